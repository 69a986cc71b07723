"""One daemon per board id (firmware_bridge/daemon/board_claim.py), on a real
Mosquitto: two real ``oche run`` with the same board id (a copied config), a
kill -9 and an immediate restart, a daemon kicked off by another that took
its client id, and the start-up check against a board that says it is online
but does not answer.

A daemon's availability is counted by a watcher subscribed before anything
starts: "never flaps" means it saw exactly one ``online`` and no ``offline``
once a command sent after the clash has been answered (the broker delivers the
daemon's messages in order, and a will would have come at the takeover,
before that answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from firmware_bridge.daemon.board_claim import BoardClaim, BoardIdTaken, Instance, parse_instance
from tests.daemon_harness import TIMEOUT, Running, Watcher
from tests.deployed_mosquitto import mosquitto_passwd_binary, write_password_file
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
INSTANCE = "oche/board1/instance"
AVAILABILITY = "oche/board1/availability"
HOST = socket.gethostname()


def daemon_config(tmp_path: Path, broker: MosquittoBroker, name: str, extra: str = "") -> Path:
    """A config for board1 on a simulated board, its journal of its own: what
    a copied config gives a second machine."""
    home = tmp_path / name
    home.mkdir()
    config = home / "oche.toml"
    config.write_text(
        f"""
[board]
id = "board1"
driver = "simulated"

[mqtt]
url = "{broker.url}"
{extra}
[journal]
path = "{home / "journal.sqlite3"}"
""",
        "utf-8",
    )
    return config


@contextmanager
def oche_run(config: Path) -> Iterator[subprocess.Popen[str]]:
    """``oche run --config CONFIG``; killed if still running when the block ends."""
    process = subprocess.Popen(
        [str(OCHE), "run", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def stop(process: subprocess.Popen[str]) -> str:
    """SIGTERM: a clean stop (exit 0); its stderr."""
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    return err


async def retained_instance(broker: MosquittoBroker) -> Instance | None:
    """The instance the broker keeps for board1 (a fresh subscriber's retained copy)."""
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(INSTANCE, qos=1)
        await client.subscribe("oche-test/marker", qos=1)
        await client.publish("oche-test/marker", b"end", qos=1)
        found: Instance | None = None
        async with asyncio.timeout(TIMEOUT):
            async for message in client.messages:
                if message.topic.matches("oche-test/marker"):
                    return found
                if message.retain:
                    found = parse_instance(bytes(message.payload))  # type: ignore[arg-type]
    return found


async def answered(watcher: Watcher) -> None:
    """Send board1 a command and wait for its answer: what its daemon published
    before has arrived."""
    response = await watcher.command({"command": "end_game"})
    assert response["ok"] is False  # no game runs: refused, but answered


async def test_a_second_oche_run_with_the_same_board_id_exits_2_and_the_first_never_flaps(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    with oche_run(daemon_config(tmp_path, mosquitto, "pub")) as first:
        await watcher.state_where(lambda s: s["board"]["connected"])
        assert watcher.of("availability") == ["online"]
        with oche_run(daemon_config(tmp_path, mosquitto, "copy")) as second:
            _, err = await asyncio.to_thread(second.communicate, timeout=TIMEOUT * 3)
        assert second.returncode == 2, err
        assert (
            f"oche run: board id board1 is already used by the daemon on {HOST} "
            f"(pid {first.pid}) since "
        ) in err
        assert "give this board another id (board.id / --set board.id=...)" in err
        assert "Traceback" not in err
        await answered(watcher)
        assert first.poll() is None, "the first daemon stopped"
        assert watcher.of("availability") == ["online"], "the first daemon's availability flapped"
        holder = await retained_instance(mosquitto)
        assert holder is not None and (holder.host, holder.pid) == (HOST, first.pid)
        err = stop(first)
    # The first says why the board's id was asked for, and by whom.
    assert f"the daemon on {HOST} (pid {second.pid})" in err and "asked for board board1" in err
    await watcher.wait_for("availability", lambda p: p == "offline")
    assert watcher.of("availability") == ["online", "offline"]


async def test_kill_9_and_an_immediate_restart_starts_fine(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    config = daemon_config(tmp_path, mosquitto, "pub")
    with oche_run(config) as first:
        await watcher.state_where(lambda s: s["board"]["connected"])
        os.kill(first.pid, signal.SIGKILL)
        first.wait(TIMEOUT)
    # As systemd's Restart= would, at once: the broker may not have seen the
    # dead daemon's connection close yet (its retained availability still says
    # online); the dead daemon's pid is gone on this host, so it is not asked.
    with oche_run(config) as second:
        await watcher.wait_for(
            "instance", lambda p: p["pid"] == second.pid and not p.get("probe")
        )  # its announcement, once connected as the board
        await watcher.state_where(lambda s: s["board"]["connected"])
        await answered(watcher)
        assert second.poll() is None
        assert watcher.of("availability")[-1] == "online"
        stop(second)


# --- a daemon knocked off by another that took its client id ----------------------


@asynccontextmanager
async def running_daemon(tmp_path: Path, broker: MosquittoBroker) -> AsyncIterator[Running]:
    daemon = Running(tmp_path, broker)
    await daemon.start()
    try:
        yield daemon
    finally:
        await daemon.stop()
        daemon.board.close()


async def take_over(broker: MosquittoBroker, since: float) -> Instance:
    """Another daemon with board1's client id: it connects (which knocks
    board1's daemon off) until board1's daemon comes back and knocks it off
    in turn, whereupon its last will, published by the broker before that
    daemon subscribes, says the board is its own."""
    other = Instance("f00dfeed", "elsewhere", 4242, since, time.time())
    will = aiomqtt.Will(INSTANCE, other.payload(), qos=1, retain=True)
    client = aiomqtt.Client(broker.host, broker.port, identifier="oche-board1", will=will)
    with contextlib.suppress(aiomqtt.MqttError):
        async with asyncio.timeout(TIMEOUT), client:
            async for _ in client.messages:  # nothing comes: it waits to be knocked off
                pass
    return other


async def settled(watcher: Watcher, broker: MosquittoBroker) -> None:
    """A marker under board1's topics has reached ``watcher``: what the broker
    took before it has too."""
    marker = os.urandom(8).hex()
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.publish("oche/board1/test-marker", marker, qos=1)
    await watcher.wait_for("test-marker", lambda p: str(p) == marker)


def after(watcher: Watcher, start: int, name: str) -> list[Any]:
    """The payloads on board1's ``name`` since message ``start``."""
    topic = f"oche/board1/{name}"
    return [payload for t, payload in watcher.messages[start:] if t == topic]


async def test_a_daemon_knocked_off_by_an_older_one_stops_naming_it(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with running_daemon(tmp_path, mosquitto) as daemon:
        await watcher.state_where(lambda s: s["board"]["connected"])
        start = len(watcher.messages)
        other = await take_over(mosquitto, since=time.time() - 3600)  # it started an hour ago
        assert daemon.task is not None
        with pytest.raises(BoardIdTaken) as taken:
            await asyncio.wait_for(asyncio.shield(daemon.task), TIMEOUT)
    assert taken.value.holder == other
    assert "board id board1 is already used by the daemon on elsewhere (pid 4242)" in str(
        taken.value
    )
    await settled(watcher, mosquitto)
    # Its offline is the broker's will as the other knocked it off (twice when
    # a loaded machine lets the reconnect race the other's will); it came back,
    # saw the board taken and left without a word on availability, never
    # saying online again, putting back the instance its connection had replaced.
    availability = after(watcher, start, "availability")
    assert availability and set(availability) == {"offline"}, availability
    holder = await retained_instance(mosquitto)
    assert holder == other


async def test_a_daemon_knocked_off_by_a_younger_one_keeps_the_board(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with running_daemon(tmp_path, mosquitto) as daemon:
        await watcher.state_where(lambda s: s["board"]["connected"])
        [mine] = [p for p in watcher.of("instance") if not p.get("probe")]
        start = len(watcher.messages)
        await take_over(mosquitto, since=time.time() + 1)
        # It comes back, says the board is its own again and stays.
        await watcher.count("availability", lambda p: p == "online", 2)
        await answered(watcher)
        assert daemon.task is not None and not daemon.task.done()
        assert after(watcher, start, "availability") == ["offline", "online"]
        assert after(watcher, start, "instance")[-1]["instance"] == mine["instance"]
        holder = await retained_instance(mosquitto)
        assert holder is not None and holder.instance == mine["instance"]
    warned = [r.getMessage() for r in caplog.records if "elsewhere" in r.getMessage()]
    assert warned and "this one keeps it" in warned[0], warned


async def test_a_connected_daemon_stops_for_an_older_one_it_hears_and_says_nothing(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    # Two daemons connected at once (their client ids differ): the one that
    # connected later stops as soon as it hears the other's instance, and
    # leaves the board's availability to it.
    async with running_daemon(tmp_path, mosquitto) as daemon:
        await watcher.state_where(lambda s: s["board"]["connected"])
        older = Instance("c0ffee00", "elsewhere", 4242, time.time() - 60, time.time())
        async with aiomqtt.Client(mosquitto.host, mosquitto.port, identifier="other") as other:
            await other.publish(INSTANCE, older.payload(), qos=1, retain=True)
            assert daemon.task is not None
            with pytest.raises(BoardIdTaken, match="the daemon on elsewhere"):
                await asyncio.wait_for(asyncio.shield(daemon.task), TIMEOUT)
    await settled(watcher, mosquitto)
    assert watcher.of("availability") == ["online"]  # no offline from the one that stopped
    assert await retained_instance(mosquitto) == older


async def test_a_cleared_instance_is_put_back(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with running_daemon(tmp_path, mosquitto) as daemon:
        await watcher.state_where(lambda s: s["board"]["connected"])
        [mine] = [p for p in watcher.of("instance") if not p.get("probe")]
        async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
            await client.publish(INSTANCE, b"", qos=1, retain=True)
        await watcher.count(
            "instance", lambda p: isinstance(p, dict) and p["instance"] == mine["instance"], 2
        )
        holder = await retained_instance(mosquitto)
        assert holder is not None and holder.instance == mine["instance"]
        assert daemon.task is not None and not daemon.task.done()


# --- the start-up check: a board online that does not answer ------------------------


@asynccontextmanager
async def holder_online(broker: MosquittoBroker) -> AsyncIterator[aiomqtt.Client]:
    """A daemon of another host that holds board1 and has gone silent: its
    instance and ``online`` retained, nothing answering the probe."""
    silent = Instance("0123abcd", "elsewhere", 4242, time.time() - 60, time.time())
    async with aiomqtt.Client(broker.host, broker.port, identifier="silent") as client:
        await client.publish(INSTANCE, silent.payload(), qos=1, retain=True)
        await client.publish(AVAILABILITY, b"online", qos=1, retain=True)
        yield client


async def check(broker: MosquittoBroker, grace: float) -> None:
    claim = BoardClaim("board1")

    async def reachable() -> bool:
        return True

    async with aiomqtt.Client(broker.host, broker.port) as probe:
        await claim.check(probe, INSTANCE, AVAILABILITY, grace, reachable)


async def test_the_check_waits_for_a_silent_daemons_last_will(
    mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with holder_online(mosquitto) as silent:
        checking = asyncio.create_task(check(mosquitto, grace=60))
        await watcher.wait_for("instance", lambda p: isinstance(p, dict) and bool(p.get("probe")))
        await asyncio.sleep(0)
        assert not checking.done(), "took a board that says it is online without waiting"
        # The broker gives up on the silent daemon: its will says offline.
        await silent.publish(AVAILABILITY, b"offline", qos=1, retain=True)
        await asyncio.wait_for(checking, TIMEOUT)


async def test_the_check_takes_the_board_after_the_grace_without_an_answer(
    mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with holder_online(mosquitto):
        await asyncio.wait_for(check(mosquitto, grace=0.5), TIMEOUT)
    [warning] = [r.getMessage() for r in caplog.records if "did not answer" in r.getMessage()]
    assert "the daemon on elsewhere (pid 4242)" in warning


async def test_the_check_stops_when_the_holder_answers(mosquitto: MosquittoBroker) -> None:
    async with holder_online(mosquitto) as holder:
        listening = asyncio.Event()

        async def answer() -> None:
            async with aiomqtt.Client(mosquitto.host, mosquitto.port) as listener:
                await listener.subscribe(INSTANCE, qos=1)
                listening.set()
                async for message in listener.messages:
                    probe: dict[str, Any] = json.loads(bytes(message.payload))  # type: ignore[arg-type]
                    if probe.get("probe"):
                        alive = Instance("0123abcd", "elsewhere", 4242, 1.0, time.time())
                        await holder.publish(INSTANCE, alive.payload(), qos=1, retain=True)
                        return

        answering = asyncio.create_task(answer())
        await asyncio.wait_for(listening.wait(), TIMEOUT)
        with pytest.raises(BoardIdTaken, match="the daemon on elsewhere"):
            await asyncio.wait_for(check(mosquitto, grace=60), TIMEOUT)
        await answering


async def test_an_acl_from_before_the_instance_topic_skips_the_check_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A broker whose ACL does not let the board's account use its instance
    # topic (one written before it) never returns the probe: the daemon says
    # what to add and runs as before, without the check.
    if mosquitto_passwd_binary() is None:
        pytest.skip("needs mosquitto_passwd")
    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(BoardClaim, "ECHO_TIMEOUT", 0.5)
    passwd, acl = tmp_path / "passwd", tmp_path / "acl"
    write_password_file(passwd, {"board1": "board1-secret"})
    acl.write_text(
        "user board1\n"
        + "".join(
            f"topic readwrite oche/board1/{name}\n"
            for name in ("state", "event", "availability", "cmd", "cmd/response")
        ),
        "utf-8",
    )
    broker = MosquittoBroker(tmp_path / "mosquitto", f"password_file {passwd}\nacl_file {acl}")
    broker.start()
    try:
        secret = tmp_path / "secret"
        secret.write_text("board1-secret\n", "utf-8")
        daemon = Running(
            tmp_path, broker, overrides=("mqtt.username=board1", f"mqtt.password_file={secret}")
        )
        async with daemon:
            deadline = time.monotonic() + TIMEOUT
            while daemon.daemon.link is None or not daemon.daemon.link.connected:
                assert time.monotonic() < deadline, "the daemon never connected"
                await asyncio.sleep(0.05)
    finally:
        broker.stop()
    [warning] = [r.getMessage() for r in caplog.records if "did not return" in r.getMessage()]
    assert "oche/board1/instance" in warning and "docs/deploy.md" in warning
