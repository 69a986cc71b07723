"""The deployment files under ``deploy/``, exercised for real.

``deploy/mosquitto/acl`` is loaded, unchanged, into a private Mosquitto with a
password file made by ``mosquitto_passwd``, and every account of a two-board
bar connects and tries what it may and may not do. ``deploy/mosquitto/oche.conf``
runs as Debian installs it, in ``conf.d`` under Debian's own ``mosquitto.conf``
(tests/deployed_mosquitto.py), exactly as shipped but for its paths (temporary
files, a throw-away CA for its TLS and websockets listeners) and its listeners'
port numbers; the broker must listen where the file says and nowhere else.
``deploy/systemd/oche@.service`` is parsed and, where this machine has
``systemd-analyze``, verified.

Mosquitto drops a denied publish without telling an MQTT 3.1.1 client, and never
delivers a message to a client that may not read it; an MQTT 5 client gets
"Not authorized" (0x87) in the PUBACK. Absence is checked with a marker: after
the denied publish has been acknowledged, an allowed message is sent to the
same watcher, and only once the marker has arrived (plus a short grace) is the
denied message declared never delivered.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from firmware_bridge.daemon.board_claim import BoardClaim, BoardIdTaken
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config
from tests import unit_sandbox
from tests.daemon_harness import Running, config_text, press, throw
from tests.deployed_mosquitto import (
    MOSQUITTO_CONF,
    InstalledMosquitto,
    deployed_oche_conf,
    make_certificates,
    mosquitto_passwd_binary,
    write_password_file,
)
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import mosquitto_binary
from tests.mqtt_peer import ACCEPTED, NOT_AUTHORIZED, TIMEOUT, Peer, marker
from tests.paths import REPO
from tests.unit_sandbox import parse_unit

ROOT = REPO
ACL = ROOT / "deploy" / "mosquitto" / "acl"
UNIT = ROOT / "deploy" / "systemd" / "oche@.service"
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
OCHE = Path(sys.executable).parent / "oche"

ACCOUNTS = (
    "board1",
    "board2",
    "display1",
    "display2",
    "operator1",
    "operator2",
    "operator",
    "leaderboard1",
    "leaderboard2",
    "homeassistant",
)
GRACE = 0.3  # after the marker, for anything that must not


MOSQUITTO_PASSWD = mosquitto_passwd_binary()

needs_mosquitto = pytest.mark.skipif(
    mosquitto_binary() is None or MOSQUITTO_PASSWD is None,
    reason="needs mosquitto and mosquitto_passwd (apt-get install -y mosquitto)",
)


THIRD_BOARD = ("board3", "display3", "operator3")
"""Accounts added to the test's copy of the ACL by :func:`with_board`."""


def with_board(acl: str, number: int) -> str:
    """``acl`` with board<number> added by the file header's recipe: the
    board1, display1 and operator1 blocks copied, board1, display1 and
    operator1 replaced throughout (the bar's ``operator`` account is left to
    board1 and board2, so board<number> is outside its bar)."""
    blocks = []
    for account in ("board1", "display1", "operator1"):
        start = acl.index(f"user {account}\n")
        blocks.append(acl[start:].split("\n\n", 1)[0].strip())
    added = "\n\n".join(blocks)
    for account in ("display", "operator", "board"):
        added = added.replace(f"{account}1", f"{account}{number}")
    return f"{acl.rstrip()}\n\n{added}\n"


def password(account: str) -> str:
    return f"{account}-secret"


def acl_users() -> list[str]:
    return [
        line.split()[1] for line in ACL.read_text("utf-8").splitlines() if line.startswith("user ")
    ]


def make_password_file(path: Path, accounts: tuple[str, ...]) -> None:
    write_password_file(path, {account: password(account) for account in accounts})


# --- the broker as deployed: oche.conf with the ACL --------------------------


@dataclass(frozen=True)
class Deployed:
    """Mosquitto running ``deploy/mosquitto/oche.conf`` and ``deploy/mosquitto/acl``
    unchanged but for paths and port numbers: ``ports`` maps each listener's port
    in oche.conf (1883, 8883, 8884) to the one it listens on here; ``broker.port``
    is the plain loopback listener (oche.conf's 1883)."""

    broker: InstalledMosquitto
    ports: dict[str, int]
    ca: Path


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployed]:
    if mosquitto_binary() is None or MOSQUITTO_PASSWD is None:
        pytest.skip("needs mosquitto and mosquitto_passwd (apt-get install -y mosquitto)")
    workdir = tmp_path_factory.mktemp("deployed-broker")
    ca, cert, key = make_certificates(workdir)
    passwd = workdir / "passwd"
    make_password_file(passwd, (*ACCOUNTS, *THIRD_BOARD))
    acl = workdir / "acl"
    # The very file docs/deploy.md installs, plus a third board added as its
    # header says (the remote-match tests need a board outside the match).
    acl.write_text(with_board(ACL.read_text("utf-8"), 3), "utf-8")
    paths = {
        "/etc/mosquitto/oche/passwd": passwd,
        "/etc/mosquitto/oche/acl": acl,
        "/etc/mosquitto/certs/ca.crt": ca,
        "/etc/mosquitto/certs/server.crt": cert,
        "/etc/mosquitto/certs/server.key": key,
    }
    config, ports = deployed_oche_conf(paths)
    assert set(ports) == {"1883", "8883", "8884"}
    broker = InstalledMosquitto(workdir / "mosquitto", {"oche.conf": config}, ports["1883"])
    broker.start()
    try:
        yield Deployed(broker, ports, ca)
    finally:
        broker.stop()


class Connect(Protocol):
    def __call__(self, account: str | None, secret: str | None = None, **options: Any) -> Peer: ...


@pytest.fixture
def connect(deployed: Deployed) -> Iterator[Connect]:
    """connect(account, **options) -> a Peer, closed after the test; on the
    broker's plain listener unless ``host`` and ``port`` say otherwise."""
    peers: list[Peer] = []

    def factory(account: str | None, secret: str | None = None, **options: Any) -> Peer:
        if account is not None and secret is None:
            secret = password(account)
        host = options.pop("host", deployed.broker.host)
        port = options.pop("port", deployed.broker.port)
        peer = Peer(host, port, account, secret, **options)
        peers.append(peer)
        return peer

    yield factory
    for peer in peers:
        peer.close()


def assert_never_got(watcher: Peer, denied: list[bytes], publisher: Peer, topic: str) -> None:
    """Prove ``watcher`` never got ``denied``: send it an allowed marker on
    ``topic`` after the denied publishes were acknowledged, wait for the marker,
    then a grace period."""
    flag = marker()
    assert publisher.publish(topic, flag) in ACCEPTED
    watcher.wait_for(flag, f"the marker on {topic}")
    time.sleep(GRACE)
    leaked = set(denied) & watcher.payloads()
    assert not leaked, f"{watcher.name} got messages it must not: {leaked}"


# --- the ACL file itself ------------------------------------------------------


def test_acl_names_every_account_and_grants_nothing_to_anonymous() -> None:
    lines = [
        line.strip()
        for line in ACL.read_text("utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[0].startswith("user "), (
        "topic lines before the first user are for anonymous clients"
    )
    assert sorted(acl_users()) == sorted(ACCOUNTS)
    # No pattern lines: they apply to every account (see the file's header).
    assert not [line for line in lines if line.startswith("pattern")]
    for line in lines:
        words = line.split()
        assert words[0] in ("user", "topic"), line
        if words[0] == "topic":
            assert len(words) == 3 and words[1] in ("read", "write"), f"explicit access: {line}"


# --- connections -----------------------------------------------------------------


@needs_mosquitto
@pytest.mark.parametrize("protocol", [mqtt.MQTTv311, mqtt.MQTTv5], ids=["mqtt3.1.1", "mqtt5"])
@pytest.mark.parametrize(
    ("account", "secret"),
    [(None, None), ("board1", "wrong-password"), ("stranger", "stranger-secret")],
    ids=["anonymous", "wrong-password", "unknown-account"],
)
def test_connection_refused(
    connect: Connect, account: str | None, secret: str | None, protocol: int
) -> None:
    peer = connect(account, secret, protocol=protocol, threaded=False)
    code = peer.wait_connack()
    assert code.is_failure, f"{account or 'anonymous'} was let in"
    # Mosquitto answers "not authorised" (3.1.1: 5, which paho reports as MQTT
    # 5's 0x87) to all three; 0x86 would be "bad user name or password".
    assert code.value in (0x86, NOT_AUTHORIZED), code


# --- boards --------------------------------------------------------------------


@needs_mosquitto
def test_board_publishes_its_own_topics(connect: Connect) -> None:
    display = connect("display1").connected()
    display.subscribe(
        "oche/board1/state",
        "oche/board1/event",
        "oche/board1/availability",
        "oche/board1/cmd/response",
    )
    leaderboard = connect("leaderboard1").connected().subscribe("oche/+/result")
    homeassistant = connect("homeassistant").connected()
    homeassistant.subscribe("homeassistant/#", "oche/+/state", "oche/+/availability")
    board = connect("board1").connected()

    for topic, watcher in [
        ("oche/board1/state", display),
        ("oche/board1/event", display),
        ("oche/board1/availability", display),
        ("oche/board1/cmd/response", display),
        ("oche/board1/result", leaderboard),
        ("oche/board1/state", homeassistant),
        ("oche/board1/availability", homeassistant),
        ("homeassistant/sensor/oche_board1/score_0/config", homeassistant),  # docs/mqtt.md
        ("homeassistant/sensor/oche_board1/game/config", homeassistant),
        ("homeassistant/device/oche_board1/config", homeassistant),
    ]:
        payload = marker()
        assert board.publish(topic, payload) in ACCEPTED, topic
        assert watcher.wait_for(payload, topic)[0] == topic


@needs_mosquitto
@pytest.mark.parametrize("protocol", [mqtt.MQTTv311, mqtt.MQTTv5], ids=["mqtt3.1.1", "mqtt5"])
def test_board_cannot_publish_another_boards_topics(connect: Connect, protocol: int) -> None:
    display2 = connect("display2").connected()
    display2.subscribe("oche/board2/state", "oche/board2/event", "oche/board2/availability")
    leaderboard = connect("leaderboard1").connected().subscribe("oche/+/result")
    homeassistant = connect("homeassistant").connected()
    homeassistant.subscribe("homeassistant/#", "oche/+/state")
    board1 = connect("board1", protocol=protocol).connected()
    board1.subscribe("oche/board1/cmd")
    board2 = connect("board2").connected()

    attempts = {
        "oche/board2/state": display2,
        "oche/board2/event": display2,
        "oche/board2/availability": display2,
        "oche/board2/result": leaderboard,
        "homeassistant/sensor/oche_board2/score_0/config": homeassistant,
        "homeassistant/sensor/board1/score_0/config": homeassistant,
        "homeassistant/status": homeassistant,
        "oche/board1/cmd": board1,  # a board does not command itself
    }
    denied: dict[str, bytes] = {}
    for topic in attempts:
        denied[topic] = marker()
        code = board1.publish(topic, denied[topic])
        # MQTT 5 is told; MQTT 3.1.1 gets a plain PUBACK and the message is dropped.
        assert code == (NOT_AUTHORIZED if protocol == mqtt.MQTTv5 else 0), topic

    display1 = connect("display1").connected()
    assert_never_got(display2, list(denied.values()), board2, "oche/board2/state")
    assert_never_got(leaderboard, list(denied.values()), board2, "oche/board2/result")
    assert_never_got(homeassistant, list(denied.values()), board2, "oche/board2/state")
    assert_never_got(board1, list(denied.values()), display1, "oche/board1/cmd")


@needs_mosquitto
def test_board_receives_only_its_own_commands(connect: Connect) -> None:
    board1 = connect("board1").connected()
    board1.subscribe("oche/board1/cmd", "oche/board2/cmd", "oche/+/cmd")
    board2 = connect("board2").connected().subscribe("oche/board2/cmd")
    display1 = connect("display1").connected()
    display2 = connect("display2").connected()

    for_board2 = marker()
    assert display2.publish("oche/board2/cmd", for_board2) in ACCEPTED
    assert board2.wait_for(for_board2)[0] == "oche/board2/cmd"  # it was sent, and delivered
    for_board1 = marker()
    assert display1.publish("oche/board1/cmd", for_board1) in ACCEPTED
    assert board1.wait_for(for_board1)[0] == "oche/board1/cmd"
    assert_never_got(board1, [for_board2], display1, "oche/board1/cmd")


@needs_mosquitto
def test_last_will_marks_the_board_offline(connect: Connect) -> None:
    display = connect("display1").connected().subscribe("oche/board1/availability")
    offline = marker()
    board = connect("board1", will=("oche/board1/availability", offline)).connected()
    # An MQTT 5 disconnect with reason 0x04 makes the broker publish the will,
    # as if the board had dropped off the network.
    board.client.disconnect(
        reasoncode=ReasonCode(PacketTypes.DISCONNECT, "Disconnect with will message")
    )
    topic, _, _ = display.wait_for(offline, "the will")
    assert topic == "oche/board1/availability"
    connect("board1").connected().publish("oche/board1/availability", b"", retain=True)


@needs_mosquitto
@pytest.mark.parametrize("listener", ["1883", "8883", "8884"], ids=["plain", "tls", "wss"])
@pytest.mark.parametrize("stolen_id", ["oche-board1", "board1"])
def test_no_other_account_can_knock_a_board_offline(
    deployed: Deployed, connect: Connect, stolen_id: str, listener: str
) -> None:
    # Mosquitto drops a connected client when another connects with its client
    # id, and publishes the dropped client's will. oche.conf makes every
    # client's id its account name on each of its listeners, so asking for
    # board1's id (the daemon's default oche-board1, or board1, the id the
    # broker gives it) gets nothing, whichever listener the intruders use.
    display1 = connect("display1").connected().subscribe("oche/board1/availability")
    will = marker()
    board = connect(
        "board1", client_id=stolen_id, will=("oche/board1/availability", will)
    ).connected()
    board.subscribe("oche/board1/cmd")
    where: dict[str, Any] = {"host": "localhost", "port": deployed.ports[listener]}
    if listener != "1883":
        where["ca_file"] = deployed.ca
    if listener == "8884":
        where["transport"] = "websockets"
    intruders = [
        connect(account, client_id=stolen_id, **where).connected()
        for account in ("display2", "board2", "leaderboard1", "homeassistant")
    ]
    for intruder in intruders:  # connected, with ids of their own
        intruder.subscribe("oche/+/state")
    command = marker()
    assert display1.publish("oche/board1/cmd", command) in ACCEPTED
    board.wait_for(command, "a command after the intruders connected")
    assert board.client.is_connected()
    assert_never_got(display1, [will], board, "oche/board1/availability")
    board.publish("oche/board1/availability", b"", retain=True)


# --- displays ----------------------------------------------------------------


@needs_mosquitto
def test_display_reads_its_board_and_sends_it_commands(connect: Connect) -> None:
    board1 = connect("board1").connected().subscribe("oche/board1/cmd")
    display = connect("display1").connected()
    display.subscribe("oche/board1/state", "oche/board1/event", "oche/board1/availability")

    state = marker()
    assert board1.publish("oche/board1/state", state) in ACCEPTED
    assert display.wait_for(state)[0] == "oche/board1/state"
    command = marker()
    assert display.publish("oche/board1/cmd", command) in ACCEPTED
    assert board1.wait_for(command)[0] == "oche/board1/cmd"


@needs_mosquitto
def test_display_reads_the_leaderboard_snapshots_but_cannot_write_them(connect: Connect) -> None:
    """The attract screen between games shows the service's retained top 10."""
    leaderboard = connect("leaderboard1").connected()
    snapshot = marker()
    topic = "oche/leaderboard/x01"
    assert leaderboard.publish(topic, snapshot, retain=True) in ACCEPTED
    display = connect("display1").connected().subscribe(topic)
    assert display.wait_for(snapshot, "the retained snapshot")[0] == topic
    forged = marker()
    assert display.publish(topic, forged) == NOT_AUTHORIZED
    watcher = connect("leaderboard2").connected().subscribe(topic)
    assert_never_got(watcher, [forged], leaderboard, topic)


@needs_mosquitto
def test_display_cannot_write_state_nor_another_boards_commands(connect: Connect) -> None:
    homeassistant = connect("homeassistant").connected().subscribe("oche/+/state")
    board2 = connect("board2").connected().subscribe("oche/board2/cmd")
    display1 = connect("display1").connected()
    display2 = connect("display2").connected()
    board1 = connect("board1").connected()

    forged_state = marker()
    assert display1.publish("oche/board1/state", forged_state) == NOT_AUTHORIZED
    forged_result = marker()
    assert display1.publish("oche/board1/result", forged_result) == NOT_AUTHORIZED
    foreign_command = marker()
    assert display1.publish("oche/board2/cmd", foreign_command) == NOT_AUTHORIZED

    assert_never_got(homeassistant, [forged_state], board1, "oche/board1/state")
    assert_never_got(board2, [foreign_command], display2, "oche/board2/cmd")


@needs_mosquitto
def test_display_cannot_read_another_board(connect: Connect) -> None:
    display1 = connect("display1").connected()
    display1.subscribe("oche/board2/state", "oche/+/state", "oche/#")
    display2 = connect("display2").connected().subscribe("oche/board2/state")
    board1 = connect("board1").connected()
    board2 = connect("board2").connected()

    other = marker()
    assert board2.publish("oche/board2/state", other) in ACCEPTED
    assert display2.wait_for(other)[0] == "oche/board2/state"  # published, and readable by display2
    assert_never_got(display1, [other], board1, "oche/board1/state")


@needs_mosquitto
def test_retained_state_is_filtered_too(connect: Connect) -> None:
    board1 = connect("board1").connected()
    board2 = connect("board2").connected()
    mine, theirs = marker(), marker()
    assert board2.publish("oche/board2/state", theirs, retain=True) in ACCEPTED
    assert board1.publish("oche/board1/state", mine, retain=True) in ACCEPTED
    try:
        # A display that starts later gets its own board's retained state,
        # never the other board's, even through a wildcard.
        display1 = connect("display1").connected().subscribe("oche/+/state", "oche/board2/state")
        topic, _, retained = display1.wait_for(mine, "the retained state")
        assert (topic, retained) == ("oche/board1/state", True)
        time.sleep(GRACE)
        assert theirs not in display1.payloads()
    finally:
        board1.publish("oche/board1/state", b"", retain=True)
        board2.publish("oche/board2/state", b"", retain=True)


# --- leaderboards and Home Assistant --------------------------------------


@needs_mosquitto
def test_leaderboard_reads_what_the_service_needs_and_writes_only_snapshots(
    connect: Connect,
) -> None:
    # oche leaderboard serve: every board's result, state, event (the board
    # page's darts) and availability in, the retained oche/leaderboard/<game>
    # snapshots out (and read back, from any instance); never a board's
    # commands in. It may send a
    # board a command (a phone's join, docs/players.md) but never speak as it.
    leaderboard = (
        connect("leaderboard1")
        .connected()
        .subscribe(
            "oche/+/result",
            "oche/+/state",
            "oche/+/availability",
            "oche/leaderboard/+",
            "oche/+/cmd",
            "oche/+/event",
        )
    )
    watcher = connect("leaderboard2").connected().subscribe("oche/+/result", "oche/leaderboard/+")
    board1 = connect("board1").connected().subscribe("oche/board1/cmd")
    board2 = connect("board2").connected()
    homeassistant = (
        connect("homeassistant").connected().subscribe("homeassistant/#", "oche/+/state")
    )
    display1 = connect("display1").connected().subscribe("oche/board1/state")

    for board in (board1, board2):
        for kind in ("result", "state", "availability"):
            payload = marker()
            topic = f"oche/{board.name}/{kind}"
            assert board.publish(topic, payload) in ACCEPTED
            assert leaderboard.wait_for(payload)[0] == topic

    snapshot = marker()
    topic = "oche/leaderboard/x01"
    assert leaderboard.publish(topic, snapshot, retain=True) in ACCEPTED
    assert watcher.wait_for(snapshot, "another instance's snapshot") == (topic, snapshot, False)

    command, event = marker(), marker()
    assert display1.publish("oche/board1/cmd", command) in ACCEPTED
    assert board1.wait_for(command)[0] == "oche/board1/cmd"
    assert board1.publish("oche/board1/event", event) in ACCEPTED
    assert leaderboard.wait_for(event)[0] == "oche/board1/event"

    forged: list[bytes] = []
    for topic in [
        "oche/board1/result",
        "oche/leaderboard1/result",  # what a `pattern write oche/%u/result` line would allow
        "oche/board1/state",
        "oche/board1/availability",
        "oche/board1/event",
        "homeassistant/status",
        "homeassistant/sensor/oche_leaderboard1/x/config",
        "leaderboard1/anything",
    ]:
        forged.append(marker())
        assert leaderboard.publish(topic, forged[-1]) == NOT_AUTHORIZED, topic

    assert_never_got(watcher, forged, board1, "oche/board1/result")
    assert_never_got(homeassistant, forged, board1, "oche/board1/state")
    assert_never_got(display1, forged, board1, "oche/board1/state")
    assert_never_got(board1, forged, display1, "oche/board1/cmd")
    join = marker()
    assert leaderboard.publish("oche/board1/cmd", join) in ACCEPTED  # a phone's join, relayed
    assert board1.wait_for(join)[0] == "oche/board1/cmd"
    assert_never_got(leaderboard, [command], board1, "oche/board1/state")

    # A service that starts later gets the retained snapshot (the account is
    # the client id: this connection replaces the watcher's).
    late = connect("leaderboard2").connected().subscribe("oche/leaderboard/+")
    assert late.wait_for(snapshot, "the retained snapshot") == (
        "oche/leaderboard/x01",
        snapshot,
        True,
    )
    assert leaderboard.publish("oche/leaderboard/x01", b"", retain=True) in ACCEPTED  # cleared


@needs_mosquitto
def test_a_leaderboard_confirms_results_to_their_board_alone_and_says_it_is_online(
    connect: Connect,
) -> None:
    # docs/mqtt.md, result: a board keeps a result until a leaderboard says
    # on oche/<id>/result/stored that it stored it, and sends again what is
    # not stored when a leaderboard's retained availability says online.
    board1 = connect("board1").connected()
    board1.subscribe("oche/board1/result/stored", "oche/leaderboard/availability/+")
    display1 = connect("display1").connected().subscribe("oche/leaderboard/#")
    leaderboard = connect("leaderboard1").connected()

    stored, online = marker(), marker()
    assert leaderboard.publish("oche/board1/result/stored", stored) in ACCEPTED
    assert board1.wait_for(stored)[0] == "oche/board1/result/stored"
    topic = "oche/leaderboard/availability/leaderboard1"
    assert leaderboard.publish(topic, online, retain=True) in ACCEPTED
    assert board1.wait_for(online)[0] == topic
    late = connect("board2").connected()
    late.subscribe("oche/+/result/stored", "oche/leaderboard/availability/+")
    assert late.wait_for(online, "the retained availability")[1:] == (online, True)

    # Nobody but a leaderboard confirms a result: not the board itself (its
    # oche/board1/result does not cover result/stored), not another board.
    forged = [marker(), marker(), marker()]
    assert board1.publish("oche/board1/result/stored", forged[0]) == NOT_AUTHORIZED
    assert late.publish("oche/board1/result/stored", forged[1]) == NOT_AUTHORIZED
    assert display1.publish(topic, forged[2], retain=True) == NOT_AUTHORIZED
    assert_never_got(board1, forged, leaderboard, "oche/board1/result/stored")
    # Each board hears only its own confirmations; a display's snapshot
    # filter (oche/leaderboard/+) is one level short of the availability.
    assert_never_got(late, [stored], leaderboard, "oche/leaderboard/availability/leaderboard1")
    assert stored not in display1.payloads() and online not in display1.payloads()
    assert leaderboard.publish(topic, b"", retain=True) in ACCEPTED  # cleared


@needs_mosquitto
def test_leaderboards_share_results_through_a_shared_subscription(connect: Connect) -> None:
    # docs/deploy.md: each result goes to one member of a group. Mosquitto has
    # shared subscriptions too, so the ACL is checked against them here; each
    # member has an account of its own (the account is the client id).
    group = [connect(f"leaderboard{n}").connected() for n in (1, 2)]
    for member in group:
        member.subscribe("$share/leaderboard/oche/+/result")
    board = connect("board1").connected()

    results = [marker() for _ in range(6)]
    for result in results:
        assert board.publish("oche/board1/result", result) in ACCEPTED
    deadline = time.monotonic() + TIMEOUT
    while set(results) - group[0].payloads() - group[1].payloads():
        assert time.monotonic() < deadline, "the group did not get every result"
        time.sleep(0.05)
    time.sleep(GRACE)
    got = [member.payloads() & set(results) for member in group]
    assert got[0] | got[1] == set(results)
    assert not got[0] & got[1], "a result went to two members of one group"
    assert sum(len(member.seen) for member in group) == len(results)


@needs_mosquitto
def test_home_assistant_reads_discovery_and_state_only(connect: Connect) -> None:
    homeassistant = connect("homeassistant").connected()
    homeassistant.subscribe("homeassistant/#", "oche/#")
    board1 = connect("board1").connected().subscribe("oche/board1/cmd", "homeassistant/status")
    board2 = connect("board2").connected()
    display1 = connect("display1").connected()

    for board, topic in [
        (board1, "homeassistant/sensor/oche_board1/score_0/config"),
        (board1, "oche/board1/state"),
        (board2, "oche/board2/state"),
        (board2, "oche/board2/availability"),
    ]:
        payload = marker()
        assert board.publish(topic, payload) in ACCEPTED
        assert homeassistant.wait_for(payload)[0] == topic
    # Its birth message goes to Home Assistant itself, not to the boards
    # (their discovery configurations are retained).
    birth = marker()
    assert homeassistant.publish("homeassistant/status", birth) in ACCEPTED
    assert homeassistant.wait_for(birth)[0] == "homeassistant/status"

    event, result = marker(), marker()
    assert board1.publish("oche/board1/event", event) in ACCEPTED
    assert board1.publish("oche/board1/result", result) in ACCEPTED
    assert homeassistant.publish("oche/board1/cmd", marker()) == NOT_AUTHORIZED
    assert_never_got(homeassistant, [event, result], board1, "oche/board1/state")
    assert_never_got(board1, [birth], display1, "oche/board1/cmd")


# --- remote matches (docs/remote.md) ------------------------------------------


@needs_mosquitto
def test_a_match_channel_carries_each_side_to_the_other(connect: Connect) -> None:
    # board1 hosts, board2 is its guest: each writes its side of the channel
    # and reads the other's, and the guest reads the host's public topics.
    host = connect("board1").connected().subscribe("oche/board2/remote/board1")
    guest = connect("board2").connected()
    guest.subscribe(
        "oche/board1/remote/board2",
        "oche/board1/state",
        "oche/board1/event",
        "oche/board1/availability",
    )
    join, action = marker(), marker()
    assert host.publish("oche/board1/remote/board2", join) in ACCEPTED
    assert guest.wait_for(join, "the host's join")[0] == "oche/board1/remote/board2"
    assert guest.publish("oche/board2/remote/board1", action) in ACCEPTED
    assert host.wait_for(action, "the guest's action")[0] == "oche/board2/remote/board1"
    for kind in ("state", "event", "availability"):
        payload = marker()
        assert host.publish(f"oche/board1/{kind}", payload) in ACCEPTED
        assert guest.wait_for(payload, f"the host's {kind}")[0] == f"oche/board1/{kind}"
    # And the host reads the guest's availability (its last will).
    host.subscribe("oche/board2/availability")
    online = marker()
    assert guest.publish("oche/board2/availability", online) in ACCEPTED
    assert host.wait_for(online, "the guest's availability")[0] == "oche/board2/availability"


@needs_mosquitto
@pytest.mark.parametrize("protocol", [mqtt.MQTTv311, mqtt.MQTTv5], ids=["mqtt3.1.1", "mqtt5"])
def test_a_third_board_can_neither_inject_into_nor_read_a_match(
    connect: Connect, protocol: int
) -> None:
    host = connect("board1").connected().subscribe("oche/board2/remote/board1")
    guest = connect("board2").connected().subscribe("oche/board1/remote/board2")
    intruder = connect("board3", protocol=protocol).connected()
    intruder.subscribe(
        "oche/board1/remote/board2", "oche/board2/remote/board1", "oche/+/remote/+", "oche/#"
    )
    # Impersonation: darts as board2 for board1's match, invitations as board1.
    forged = {"oche/board2/remote/board1": marker(), "oche/board1/remote/board2": marker()}
    for topic, payload in forged.items():
        code = intruder.publish(topic, payload)
        assert code == (NOT_AUTHORIZED if protocol == mqtt.MQTTv5 else 0), topic
    assert_never_got(host, list(forged.values()), guest, "oche/board2/remote/board1")
    assert_never_got(guest, list(forged.values()), host, "oche/board1/remote/board2")
    # Eavesdropping: the match's real messages never reach board3.
    private = [marker(), marker()]
    assert host.publish("oche/board1/remote/board2", private[0]) in ACCEPTED
    assert guest.publish("oche/board2/remote/board1", private[1]) in ACCEPTED
    guest.wait_for(private[0])
    host.wait_for(private[1])
    display3 = connect("display3").connected()
    intruder.subscribe("oche/board3/cmd")
    assert_never_got(intruder, private, display3, "oche/board3/cmd")
    # What board3 may do: its own side of a channel (the guest or host drops
    # it unless board3 is in the match), and read the boards' public state.
    own = marker()
    host.subscribe("oche/board3/remote/board1")
    assert intruder.publish("oche/board3/remote/board1", own) in (*ACCEPTED, 0)
    host.wait_for(own, "board3's own channel")


@needs_mosquitto
def test_boards_read_each_others_state_but_not_commands(connect: Connect) -> None:
    board2 = connect("board2").connected()
    board2.subscribe("oche/board1/state", "oche/board1/event", "oche/board1/availability")
    board2.subscribe("oche/board1/cmd", "oche/board1/cmd/response", "oche/board1/result")
    board1 = connect("board1").connected()
    display1 = connect("display1").connected()
    public = {kind: marker() for kind in ("state", "event", "availability")}
    for kind, payload in public.items():
        assert board1.publish(f"oche/board1/{kind}", payload) in ACCEPTED
        assert board2.wait_for(payload, kind)[0] == f"oche/board1/{kind}"
    private = [marker(), marker(), marker()]
    assert display1.publish("oche/board1/cmd", private[0]) in ACCEPTED
    assert board1.publish("oche/board1/cmd/response", private[1]) in ACCEPTED
    assert board1.publish("oche/board1/result", private[2]) in ACCEPTED
    assert_never_got(board2, private, board1, "oche/board1/state")


# --- bar operation: the operator topics (docs/credits.md) ----------------------

OPERATOR_TOPICS = ("operator/cmd", "operator/cmd/response", "books")


@needs_mosquitto
@pytest.mark.parametrize("operator", ["operator1", "operator"])
def test_the_operator_adds_credits_and_reads_the_answers_and_the_books(
    connect: Connect, operator: str
) -> None:
    board1 = connect("board1").connected().subscribe("oche/board1/operator/cmd")
    tablet = connect(operator).connected()
    tablet.subscribe("oche/board1/operator/cmd/response", "oche/board1/state")
    command = marker()
    assert tablet.publish("oche/board1/operator/cmd", command) in ACCEPTED
    assert board1.wait_for(command, "the operator's command")[0] == "oche/board1/operator/cmd"
    for topic in ("oche/board1/operator/cmd/response", "oche/board1/state"):
        payload = marker()
        assert board1.publish(topic, payload) in ACCEPTED
        assert tablet.wait_for(payload, topic)[0] == topic
    # The books are retained: an operator that connects later gets them.
    books = marker()
    assert board1.publish("oche/board1/books", books, retain=True) in ACCEPTED
    tablet.close()  # one connection per account: the broker's client id is the account
    try:
        later = connect(operator).connected().subscribe("oche/board1/books")
        topic, _, retained = later.wait_for(books, "the retained books")
        assert (topic, retained) == ("oche/board1/books", True)
    finally:
        board1.publish("oche/board1/books", b"", retain=True)


@needs_mosquitto
def test_the_bars_operator_serves_every_board_and_operator1_only_board1(
    connect: Connect,
) -> None:
    board2 = connect("board2").connected().subscribe("oche/board2/operator/cmd")
    tablet = connect("operator").connected().subscribe("oche/board2/books")
    operator1 = connect("operator1").connected().subscribe("oche/board2/books", "oche/#")
    command = marker()
    assert tablet.publish("oche/board2/operator/cmd", command) in ACCEPTED
    assert board2.wait_for(command)[0] == "oche/board2/operator/cmd"
    foreign = marker()
    assert operator1.publish("oche/board2/operator/cmd", foreign) == NOT_AUTHORIZED
    books = marker()
    assert board2.publish("oche/board2/books", books) in ACCEPTED
    tablet.wait_for(books, "board2's books")
    assert_never_got(board2, [foreign], tablet, "oche/board2/operator/cmd")
    assert_never_got(operator1, [books], connect("board1").connected(), "oche/board1/books")
    # The bar's account is the bar's: a board added outside it (board3) is not its.
    assert tablet.publish("oche/board3/operator/cmd", marker()) == NOT_AUTHORIZED


@needs_mosquitto
@pytest.mark.parametrize("protocol", [mqtt.MQTTv311, mqtt.MQTTv5], ids=["mqtt3.1.1", "mqtt5"])
def test_a_display_cannot_add_credits_nor_read_the_books(connect: Connect, protocol: int) -> None:
    """Anyone at the board can touch its display: it must not be a till."""
    board1 = connect("board1").connected().subscribe("oche/board1/operator/cmd")
    books = marker()
    assert board1.publish("oche/board1/books", books, retain=True) in ACCEPTED
    try:
        display = connect("display1", protocol=protocol).connected()
        display.subscribe(*(f"oche/board1/{topic}" for topic in OPERATOR_TOPICS), "oche/#")
        operator1 = connect("operator1").connected()
        free_credits = marker()
        code = display.publish("oche/board1/operator/cmd", free_credits)
        assert code == (NOT_AUTHORIZED if protocol == mqtt.MQTTv5 else 0)
        assert_never_got(board1, [free_credits], operator1, "oche/board1/operator/cmd")
        # Nor does it see the retained books, the answers or the operator's commands.
        command, answer = marker(), marker()
        assert operator1.publish("oche/board1/operator/cmd", command) in ACCEPTED
        board1.wait_for(command)
        assert board1.publish("oche/board1/operator/cmd/response", answer) in ACCEPTED
        assert_never_got(display, [books, command, answer], board1, "oche/board1/state")
    finally:
        board1.publish("oche/board1/books", b"", retain=True)


@needs_mosquitto
@pytest.mark.parametrize(
    "account", ["display2", "board2", "operator2", "leaderboard1", "homeassistant"]
)
def test_no_other_account_touches_a_boards_operator_topics(connect: Connect, account: str) -> None:
    board1 = connect("board1").connected().subscribe("oche/board1/operator/cmd")
    other = connect(account).connected()
    other.subscribe(*(f"oche/board1/{topic}" for topic in OPERATOR_TOPICS), "oche/#")
    # A topic ``other`` does read, for the markers, and who writes it.
    publisher, readable = (
        (connect("board2").connected(), "oche/board2/state")
        if account in ("display2", "operator2")
        else (board1, "oche/board1/state")
    )
    operator1 = connect("operator1").connected()
    forged = marker()
    assert other.publish("oche/board1/operator/cmd", forged) == NOT_AUTHORIZED
    assert other.publish("oche/board1/books", marker()) == NOT_AUTHORIZED
    assert other.publish("oche/board1/operator/cmd/response", marker()) == NOT_AUTHORIZED
    assert_never_got(board1, [forged], operator1, "oche/board1/operator/cmd")
    private = [marker(), marker(), marker()]
    assert operator1.publish("oche/board1/operator/cmd", private[0]) in ACCEPTED
    assert board1.publish("oche/board1/operator/cmd/response", private[1]) in ACCEPTED
    assert board1.publish("oche/board1/books", private[2]) in ACCEPTED
    board1.wait_for(private[0])
    assert_never_got(other, private, publisher, readable)


@needs_mosquitto
def test_an_operator_cannot_play_the_board_nor_forge_its_books(connect: Connect) -> None:
    """The operator account is for money, not for the game nor the board's own topics."""
    board1 = connect("board1").connected().subscribe("oche/board1/cmd")
    operator1 = connect("operator1").connected()
    tablet = connect("operator").connected().subscribe("oche/board1/books")
    assert operator1.publish("oche/board1/cmd", marker()) == NOT_AUTHORIZED
    forged = marker()
    assert operator1.publish("oche/board1/books", forged) == NOT_AUTHORIZED
    assert operator1.publish("oche/board1/operator/cmd/response", marker()) == NOT_AUTHORIZED
    assert operator1.publish("oche/board1/state", marker()) == NOT_AUTHORIZED
    assert_never_got(tablet, [forged], board1, "oche/board1/books")


# --- deploy/mosquitto/oche.conf, with TLS and websockets -------------------


@needs_mosquitto
def test_deployed_mosquitto_conf_listens_only_where_it_says(deployed: Deployed) -> None:
    # A listener setting written before the first `listener` line makes
    # Mosquitto 2.0 open a default listener on 0.0.0.0:1883 too: beside a
    # Mosquitto already on 127.0.0.1:1883 it then exits ("Address already in
    # use"), and alone it opens a port the file never wrote.
    assert sorted(deployed.broker.written) == sorted(deployed.ports.values())
    assert deployed.broker.written[deployed.ports["1883"]] == "127.0.0.1"
    deployed.broker.assert_listens_only()


@needs_mosquitto
def test_deployed_mosquitto_conf_serves_tls_and_websockets(
    deployed: Deployed, connect: Connect
) -> None:
    ports, ca = deployed.ports, deployed.ca
    plain = connect("homeassistant", host="127.0.0.1", port=ports["1883"])
    tls = connect("board1", host="localhost", port=ports["8883"], ca_file=ca)
    ws = connect(
        "display1", host="localhost", port=ports["8884"], transport="websockets", ca_file=ca
    )
    anonymous_tls = connect(None, host="localhost", port=ports["8883"], ca_file=ca)
    assert anonymous_tls.wait_connack().is_failure
    plain.connected().subscribe("oche/board1/state")
    ws.connected().subscribe("oche/board1/state")
    state = marker()
    assert tls.connected().publish("oche/board1/state", state) in ACCEPTED
    plain.wait_for(state, "state over TLS, read on the loopback listener")
    ws.wait_for(state, "state over TLS, read over secure websockets")
    assert ws.publish("oche/board1/state", marker()) == NOT_AUTHORIZED  # the same ACL


# --- deploy/systemd/oche@.service -------------------------------------------


def values(section: list[tuple[str, str]], key: str) -> list[str]:
    return [value for name, value in section if name == key]


def test_unit_runs_one_board_per_instance() -> None:
    unit = parse_unit(UNIT.read_text("utf-8"))
    assert list(unit) == ["Unit", "Service", "Install"]
    service = unit["Service"]
    (exec_start,) = values(service, "ExecStart")
    binary, *arguments = exec_start.split()
    assert binary.startswith("/") and Path(binary).name == "oche"
    assert arguments == ["run", "--config", "/etc/oche/%i.toml"]
    expected = {
        "User": "oche",
        "Group": "dialout",
        "Restart": "on-failure",
        "RestartSec": "2",
        "RestartPreventExitStatus": "2",  # a bad config or a taken board id
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "StateDirectory": "oche",
        "KillSignal": "SIGTERM",
    }
    for key, value in expected.items():
        assert values(service, key) == [value], key
    assert "XDG_STATE_HOME=/var/lib/oche" in " ".join(values(service, "Environment"))
    devices = {value.split()[0] for value in values(service, "DeviceAllow")}
    assert {"char-ttyACM", "char-ttyUSB", "char-usb_device"} <= devices
    assert not values(service, "PrivateDevices"), "PrivateDevices would hide the board"
    assert values(unit["Install"], "WantedBy") == ["multi-user.target"]


def test_deploy_doc_shows_the_unit_and_the_files_as_they_are() -> None:
    doc = DEPLOY_DOC.read_text("utf-8")
    assert UNIT.read_text("utf-8").strip() in doc, "docs/deploy.md must show oche@.service verbatim"
    assert MOSQUITTO_CONF.read_text("utf-8").strip() in doc, (
        "docs/deploy.md must show oche.conf verbatim"
    )
    acl = ACL.read_text("utf-8")
    for account in ("board1", "display1", "operator1", "operator", "leaderboard1", "homeassistant"):
        start = acl.index(f"user {account}\n")
        block = acl[start:].split("\n\n", 1)[0].strip()
        assert block in doc, f"docs/deploy.md must show the ACL block of {account} verbatim"
    for link in ("../deploy/systemd/oche@.service", "../deploy/mosquitto/acl", "config.md"):
        assert f"]({link}" in doc, link


def systemd_analyze() -> str | None:
    return shutil.which("systemd-analyze")


@pytest.mark.skipif(systemd_analyze() is None, reason="no systemd-analyze on this machine")
def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    # verify checks that ExecStart's program exists: point it at this checkout's
    # oche (or any executable), keeping the rest of the unit unchanged.
    text = UNIT.read_text("utf-8")
    installed = Path(sys.executable).parent / "oche"
    stand_in = str(installed) if installed.exists() else shutil.which("true") or "/bin/true"
    unit = tmp_path / "oche@.service"
    unit.write_text(text.replace("/opt/oche/bin/oche", stand_in), "utf-8")
    assert unit.read_text("utf-8") != text
    assert systemd_analyze() is not None
    result = subprocess.run(
        [str(systemd_analyze()), "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    complaints = [line for line in result.stderr.splitlines() if "oche@" in line]
    assert result.returncode == 0, result.stderr
    assert not complaints, "\n".join(complaints)


UNIT_EXPOSURE_LIMIT = 3.0
"""The most ``systemd-analyze security`` may rate the unit (0 is locked down, 10 exposed)."""


def unit_exposure() -> float:
    """``systemd-analyze security --offline`` on the unit as deployed: its overall exposure."""
    analyze = systemd_analyze()
    assert analyze is not None
    result = subprocess.run(
        [analyze, "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = re.search(r"Overall exposure level for oche@\S*: (\d+\.\d+)", result.stdout)
    assert found is not None, result.stdout + result.stderr
    return float(found.group(1))


@pytest.mark.skipif(systemd_analyze() is None, reason="no systemd-analyze on this machine")
def test_unit_sandbox_rates_3_or_better_as_docs_deploy_says() -> None:
    exposure = unit_exposure()
    assert exposure <= UNIT_EXPOSURE_LIMIT, f"systemd-analyze security rates the unit {exposure}"
    doc = DEPLOY_DOC.read_text("utf-8")
    assert f"rates it **{exposure:.1f}**" in doc, "docs/deploy.md must give the measured rating"


def test_unit_lets_the_daemon_reach_only_its_board_and_the_broker() -> None:
    service = parse_unit(UNIT.read_text("utf-8"))["Service"]
    assert values(service, "DevicePolicy") == ["closed"]
    assert values(service, "CapabilityBoundingSet") == [""]
    (families,) = values(service, "RestrictAddressFamilies")
    # MQTT is IPv4 or IPv6; name services (systemd-resolved, nscd) answer on
    # AF_UNIX; libusb's hot-plug monitor and getaddrinfo's address check use netlink.
    assert set(families.split()) == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    assert values(service, "SystemCallFilter")[0] == "@system-service"
    assert values(service, "SystemCallErrorNumber") == ["EPERM"]
    assert values(service, "UMask") == ["0077"]
    for key in (
        "ProtectClock",
        "ProtectKernelLogs",
        "ProtectHostname",
        "RestrictNamespaces",
        "RestrictRealtime",
        "LockPersonality",
    ):
        assert values(service, key) == ["yes"], key


@needs_mosquitto
@pytest.mark.skipif(
    unit_sandbox.available() is not None or os.geteuid() != 0,
    reason=f"cannot apply the unit's sandbox here: {unit_sandbox.available() or 'not root'}",
)
async def test_the_daemon_plays_under_the_units_sandbox_as_board1(
    tmp_path: Path, deployed: Deployed, connect: Connect
) -> None:
    # The real oche executable, under the unit's system-call filter, socket
    # families, empty capability bounding set and umask (tests/unit_sandbox.py:
    # what systemd would apply), talks MQTT over TLS to the deployed broker as
    # board1 and reads a board on a pty (a serial device, as ttyACM/ttyUSB are).
    board = FakeBoard(tmp_path / "oche-board")
    secret = tmp_path / "board1.password"
    secret.write_text(password("board1") + "\n", "utf-8")
    url = f"mqtts://localhost:{deployed.ports['8883']}"
    text = config_text(tmp_path, url, board.link).replace(
        "[mqtt]\n",
        f'[mqtt]\nusername = "board1"\npassword_file = "{secret}"\nca_file = "{deployed.ca}"\n',
    )
    config = tmp_path / "board1.toml"
    config.write_text(text, "utf-8")
    display = connect("display1").connected()
    display.subscribe("oche/board1/availability", "oche/board1/state", "oche/board1/cmd/response")
    command = [str(OCHE), "run", "--config", str(config)]
    daemon = subprocess.Popen(
        [sys.executable, "-m", "tests.unit_sandbox", str(UNIT), "--", *command],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        display.wait_until("oche/board1/availability", lambda p: p == "online", "online")
        display.wait_until("oche/board1/state", lambda s: s["board"]["connected"], "the board")
        new_game = {"command": "new_game", "id": "sandboxed", "game": "x01", "players": ["Ann"]}
        assert display.publish("oche/board1/cmd", json.dumps(new_game).encode()) in ACCEPTED
        response = display.wait_until(
            "oche/board1/cmd/response", lambda p: p.get("id") == "sandboxed", "the response"
        )
        assert response["ok"], response
        await throw(board, "T20", "T20")
        await press(board, 2)  # MISS
        state = display.wait_until(
            "oche/board1/state", lambda s: s.get("phase") == "takeout", "the visit's end"
        )
        assert state["players"][0]["score"] == 501 - 120
        daemon.terminate()  # systemctl stop
        assert daemon.wait(TIMEOUT) == 0
        display.wait_until("oche/board1/availability", lambda p: p == "offline", "offline")
    finally:
        if daemon.poll() is None:
            daemon.kill()
        board.close()
    errors = daemon.stderr.read() if daemon.stderr else ""
    assert "not permitted" not in errors and "Errno 1]" not in errors, errors
    assert (tmp_path / "journal.sqlite3").stat().st_mode & 0o077 == 0, "UMask=0077"


@pytest.mark.skipif(unit_sandbox.available() is not None, reason="cannot apply the sandbox here")
def test_the_units_sandbox_refuses_what_the_daemon_must_not_do() -> None:
    # The sandbox of the test above is live: a privileged call and a socket
    # family the unit does not allow fail with EPERM (SystemCallErrorNumber).
    probe = (
        "import os, socket\n"
        "for name, attempt in [\n"
        "    ('chroot', lambda: os.chroot('/')),\n"
        "    ('packet socket', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW)),\n"
        "    ('sched_setaffinity', lambda: os.sched_setaffinity(0, {0})),\n"
        "]:\n"
        "    try:\n"
        "        attempt()\n"
        "        print(name, 'allowed')\n"
        "    except PermissionError:\n"
        "        print(name, 'refused')\n"
        "socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close()\n"
        "print('inet6 allowed')\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "tests.unit_sandbox", str(UNIT), "--", sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n") == [
        "chroot refused",
        "packet socket refused",
        "sched_setaffinity refused",
        "inet6 allowed",
        "",
    ]


def host_errors(display: Peer) -> list[str]:
    """The messages of the error events the display has seen."""
    events = [json.loads(p) for topic, p, _ in display.seen if topic == "oche/board1/event"]
    return [e["message"] for e in events if e.get("type") == "error"]


def tls_daemon(tmp_path: Path, deployed: Deployed, board: str, extra: str = "") -> Running:
    """A daemon in this process for ``board``, over TLS to the deployed broker
    as the account of that name (password file and CA, as docs/remote.md's
    two homes set it up)."""
    home = tmp_path / board
    home.mkdir()
    secret = home / "password"
    secret.write_text(password(board) + "\n", "utf-8")
    url = f"mqtts://localhost:{deployed.ports['8883']}"
    running = Running(home, deployed.broker, board=board, extra=extra)
    text = config_text(home, url, running.board.link, board=board, extra=extra).replace(
        "[mqtt]\n",
        f'[mqtt]\nusername = "{board}"\npassword_file = "{secret}"\nca_file = "{deployed.ca}"\n',
    )
    running.config = parse_config(text, f"{board}.toml")
    running.daemon = Daemon(running.config)
    return running


@needs_mosquitto
async def test_a_second_daemon_on_the_board1_account_stops_and_the_first_keeps_the_board(
    tmp_path: Path, deployed: Deployed, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copied config with its account: oche.conf gives both daemons the
    client id board1, so the second's check of the board id knocks the first
    off once (its will says offline; it is back at once). The check sees it
    come back (its own connection is knocked off in turn) and stops; the
    first keeps the board."""
    # A generous wait for the first daemon to come back, on a busy machine
    # (it ends when the first daemon is back).
    monkeypatch.setattr(BoardClaim, "KICK_WAIT", 30.0)
    display = connect("display1").connected()
    display.subscribe("oche/board1/availability", "oche/board1/cmd/response")
    (tmp_path / "pub").mkdir()
    (tmp_path / "copy").mkdir()
    first = tls_daemon(tmp_path / "pub", deployed, "board1")
    second = tls_daemon(tmp_path / "copy", deployed, "board1")

    def availability() -> list[bytes]:
        """What board1's daemons said since the display subscribed (not the
        retained copy an earlier test left)."""
        display.payloads()
        return [p for t, p, kept in display.seen if t == "oche/board1/availability" and not kept]

    async def until_online() -> None:
        deadline = time.monotonic() + 30.0
        while not availability() or availability()[-1] != b"online":
            assert time.monotonic() < deadline, availability()
            await asyncio.sleep(0.05)

    await first.start()
    try:
        await until_online()
        await second.start()
        assert second.task is not None
        with pytest.raises(BoardIdTaken, match="board id board1 is already used by the daemon on"):
            await asyncio.wait_for(asyncio.shield(second.task), 60)
        assert first.task is not None and not first.task.done()

        await until_online()  # back after its one blink
        assert availability().count(b"offline") <= 1, availability()
        command = b'{"command": "end_game", "id": "still-there"}'
        assert display.publish("oche/board1/cmd", command) in ACCEPTED
        answer = await asyncio.to_thread(
            display.wait_until,
            "oche/board1/cmd/response",
            lambda p: isinstance(p, dict) and p.get("id") == "still-there",
        )
        assert answer["ok"] is False  # no game: refused, by the first daemon
    finally:
        await second.stop()
        second.board.close()
        await first.stop()
        first.board.close()


@needs_mosquitto
async def test_two_homes_play_over_tls_with_accounts_and_a_third_board_changes_nothing(
    tmp_path: Path, deployed: Deployed, connect: Connect
) -> None:
    """Two real daemons on the deployed broker (TLS, accounts, the ACL), as two
    homes sharing one internet broker: board1 hosts, board2 (allowing board1)
    joins; board3, a board of the same broker, forges board2's darts (the
    broker drops them) and sends its own (the host drops them): the score
    moves only for the guest's real darts."""
    host = tls_daemon(tmp_path, deployed, "board1")
    guest = tls_daemon(tmp_path, deployed, "board2", '[remote]\nallow = ["board1"]\n')
    display = connect("display1").connected()
    display.subscribe("oche/board1/state", "oche/board1/cmd/response", "oche/board1/event")
    await host.start()
    await guest.start()
    try:
        # (Not a state seen on the broker: an earlier test's board1 may have
        # left one retained.)
        async with asyncio.timeout(TIMEOUT):
            while not all(d.daemon.link and d.daemon.link.connected for d in (host, guest)):
                await asyncio.sleep(0.05)
        new_game = {
            "command": "new_game",
            "id": "home-match",
            "game": "x01",
            "players": [{"name": "Cy", "board": "board2"}, "Ann"],
        }
        assert display.publish("oche/board1/cmd", json.dumps(new_game).encode()) in ACCEPTED
        response = await asyncio.to_thread(
            display.wait_until,
            "oche/board1/cmd/response",
            lambda p: p.get("id") == "home-match",
            "the response",
        )
        assert response["ok"], response
        state = await asyncio.to_thread(
            display.wait_until,
            "oche/board1/state",
            lambda s: s.get("phase") == "throwing" and s["remote"]["waiting"] == [],
            "the match on",
        )
        match = state["remote"]["match"]
        intruder = connect("board3").connected()
        forged = {"type": "action", "match": match, "at": 1.0, "seq": 1, "action": "dart"}
        for seq, sender in enumerate(("board2", "board3"), start=1):
            payload = json.dumps({**forged, "seq": seq, "segment": "T20"}).encode()
            intruder.publish(f"oche/{sender}/remote/board1", payload)
        await throw(guest.board, "S1")
        state = await asyncio.to_thread(
            display.wait_until,
            "oche/board1/state",
            lambda s: (
                (s.get("remote") or {}).get("match") == match and s["players"][0]["score"] != 501
            ),
            "the guest's dart",
        )
        assert [p["score"] for p in state["players"]] == [500, 501]
        await asyncio.sleep(GRACE)  # a bounded look: nothing more comes of the forged darts
        display.payloads()  # take in what has arrived meanwhile
        states = [json.loads(p) for topic, p, _ in display.seen if topic == "oche/board1/state"]
        assert [p["score"] for p in states[-1]["players"]] == [500, 501]
        assert any("board3" in e for e in host_errors(display))  # dropped, and said so
    finally:
        await guest.stop()
        await host.stop()
        guest.board.close()
        host.board.close()


# --- pairing: the code is the board's, read by its display and the service ---


@needs_mosquitto
def test_the_pairing_code_reaches_the_boards_display_and_the_leaderboard_alone(
    connect: Connect,
) -> None:
    """A board writes its retained pairing; its display (which shows the code)
    and a leaderboard (which relays a browser's pair) read it as retained."""
    board1 = connect("board1").connected()
    code = marker()
    assert board1.publish("oche/board1/pairing", code, retain=True) in ACCEPTED
    try:
        for account in ("display1", "leaderboard1"):
            reader = connect(account).connected().subscribe("oche/board1/pairing")
            topic, _, retained = reader.wait_for(code, f"the retained pairing, as {account}")
            assert (topic, retained) == ("oche/board1/pairing", True)
        assert board1.publish("oche/board2/pairing", marker()) == NOT_AUTHORIZED
    finally:
        board1.publish("oche/board1/pairing", b"", retain=True)


@needs_mosquitto
@pytest.mark.parametrize(
    "account", ["display2", "board2", "operator1", "operator", "homeassistant", "leaderboard1"]
)
def test_no_other_account_reads_or_forges_a_boards_pairing(connect: Connect, account: str) -> None:
    display1 = connect("display1").connected().subscribe("oche/board1/pairing")
    board1 = connect("board1").connected()
    other = connect(account).connected()
    forged = marker()
    assert other.publish("oche/board1/pairing", forged, retain=True) == NOT_AUTHORIZED
    assert_never_got(display1, [forged], board1, "oche/board1/pairing")
    if account == "leaderboard1":
        return  # it reads the pairing (the test above); it only may not write it
    other.subscribe("oche/board1/pairing", "oche/+/pairing", "oche/#")
    code = marker()
    assert board1.publish("oche/board1/pairing", code, retain=True) in ACCEPTED
    try:
        # A topic ``other`` does read, for the marker, and who writes it.
        publisher, readable = (
            (connect("board2").connected(), "oche/board2/state")
            if account == "display2"
            else (board1, "oche/board1/state")
        )
        assert_never_got(other, [code], publisher, readable)
    finally:
        board1.publish("oche/board1/pairing", b"", retain=True)
