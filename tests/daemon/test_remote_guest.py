"""The guest side of a remote match (docs/remote.md), end to end: the real
daemon as board ``pub2`` on a pty board and a real Mosquitto, invited by a
scripted host ``oche/pub1`` (a plain MQTT client running a real game session)
that reads what the guest forwards on ``oche/pub2/remote/pub1``."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from engine import Bed
from firmware_bridge.cli.history_command import history_entries, history_table
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from firmware_bridge.daemon.journal import Journal
from firmware_bridge.daemon.mqtt_link import MqttLink
from mqtt_contract import (
    TOPICS,
    JoinRefusal,
    JoinRefusalReason,
    RefusedMessage,
    parse_remote_message,
)
from tests.daemon_harness import TIMEOUT, Running, Watcher, press, throw, until
from tests.mosquitto_broker import MosquittoBroker

HOST = "oche/pub1"
GUEST = "oche/pub2"
ALLOW = '[remote]\nallow = ["pub1"]\nresend_s = {resend_s}\n'
STATE_SCHEMA = Draft202012Validator(TOPICS["state"].schema)


class ScriptedHost:
    """The host ``{base}/{board}``: availability (last will offline), its
    retained state from a real :class:`GameSession` with the match's remote
    block, and the private channel to the guest ``pub2``. With ``take`` it
    takes the guest's actions in seq order as a host does (the guest's darts
    only in its own player's visit) and publishes the state after each."""

    def __init__(
        self,
        broker: MosquittoBroker,
        *,
        board: str = "pub1",
        players: tuple[tuple[str, str], ...] = (("Cy", GUEST), ("Ann", HOST)),
        take: bool = True,
        publish_on_join: bool = True,
    ) -> None:
        self.broker, self.board, self.address = broker, board, f"oche/{board}"
        self.boards = dict(players)
        setup = SessionSetup("x01", {"start": 301}, [name for name, _ in players])
        self.session = GameSession(setup, coalesce_ms=0)
        self.match = uuid.uuid4().hex
        self.take = take
        self.publish_on_join = publish_on_join
        self.applied = 0
        self.joined = False
        self.published = False
        self.received: list[dict[str, Any]] = []
        """Every message on oche/pub2/remote/{board}, in order."""
        self.on_action: Callable[[dict[str, Any]], None] | None = None
        self._client: aiomqtt.Client | None = None
        self._changed = asyncio.Event()
        self.ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> ScriptedHost:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.ready.wait(), TIMEOUT)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        will = aiomqtt.Will(f"{self.address}/availability", "offline", qos=1, retain=True)
        nodelay = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
        while True:
            try:
                async with aiomqtt.Client(
                    self.broker.host, self.broker.port, will=will, socket_options=nodelay
                ) as client:
                    await client.publish(
                        f"{self.address}/availability", "online", qos=1, retain=True
                    )
                    await client.subscribe(f"{GUEST}/remote/{self.board}", qos=1)
                    self._client = client
                    self.ready.set()
                    if self.published:  # the broker keeps nothing over a restart
                        await self.publish_state()
                    async for message in client.messages:
                        assert isinstance(message.payload, bytes)
                        document = json.loads(message.payload)
                        self.received.append(document)
                        self._changed.set()
                        await self._handle(document)
            except aiomqtt.MqttError:
                self._client = None
                self.ready.clear()
                await asyncio.sleep(0.2)

    async def _handle(self, message: dict[str, Any]) -> None:
        parse_remote_message(json.dumps(message).encode(), "oche")  # what a guest sends is valid
        if message["type"] == "joined" and message["match"] == self.match:
            self.joined = True
            if self.publish_on_join:
                await self.publish_state()
        if message["type"] == "action":
            if self.on_action is not None:
                self.on_action(message)
            if self.take and message["seq"] == self.applied + 1:
                self._apply(message)
                self.applied = message["seq"]
                await self.publish_state()

    def _apply(self, message: dict[str, Any]) -> None:
        session = self.session
        if self.boards[self.players[session.thrower()]] != GUEST:
            return  # not-your-turn: taken, ignored
        planned = {
            "hit": lambda: session.plan_hit(Bed.parse(message.get("segment", "")), time.time()),
            "dart": lambda: session.plan_manual_dart(Bed.parse(message.get("segment", ""))),
            "miss": session.plan_miss,
            "next": session.plan_next,
            "undo": session.plan_undo,
        }[message["action"]]
        try:
            events = planned()
        except Refusal:
            return  # taken, ignored
        for event in events:
            session.apply(event, time.time())

    @property
    def players(self) -> list[str]:
        return list(self.boards)

    async def own_dart(self, *planned: str) -> None:
        """Darts (or NEXT) at the host's own board."""
        for token in planned:
            session = self.session
            events = (
                session.plan_next()
                if token == "NEXT"
                else session.plan_hit(Bed.parse(token), time.time())
            )
            for event in events:
                session.apply(event, time.time())
        await self.publish_state()

    def state(self) -> dict[str, Any]:
        session = self.session
        state = session.state()
        for player in state["players"]:
            player["board"] = self.boards[player["name"]]
        finished = state["phase"] == "finished"
        waiting = [] if self.joined else [GUEST]
        return {
            **state,
            "phase": "waiting-remote" if waiting else state["phase"],
            "board": {
                "id": self.board,
                "name": "Pub 1",
                "connected": True,
                "status": "connected",
                "stuck_cells": [],
            },
            "remote": {
                "match": self.match,
                "role": "host",
                "host": self.address,
                "throwing_at": None if finished else self.boards[self.players[session.thrower()]],
                "boards": [
                    {
                        "board": self.address,
                        "name": "Pub 1",
                        "online": True,
                        "joined": True,
                        "applied": 0,
                    },
                    {
                        "board": GUEST,
                        "name": "Test board",
                        "online": True,
                        "joined": self.joined,
                        "applied": self.applied,
                    },
                ],
                "waiting": waiting,
            },
        }

    async def _client_ready(self) -> aiomqtt.Client:
        await asyncio.wait_for(self.ready.wait(), TIMEOUT * 3)
        assert self._client is not None
        return self._client

    async def publish_state(self, state: dict[str, Any] | None = None) -> None:
        client = await self._client_ready()
        self.published = True
        payload = json.dumps(self.state() if state is None else state)
        await client.publish(f"{self.address}/state", payload, qos=1, retain=True)

    async def publish(self, name: str, payload: bytes | str) -> None:
        """Anything on one of the host's own topics (an event, garbage)."""
        client = await self._client_ready()
        await client.publish(f"{self.address}/{name}", payload, qos=1)

    async def say(self, kind: str, match: str | None = None, **fields: Any) -> None:
        """A message on the channel to the guest."""
        document = {"type": kind, "match": match or self.match, "at": time.time(), **fields}
        await self.say_raw(json.dumps(document).encode())

    async def say_raw(self, payload: bytes) -> None:
        client = await self._client_ready()
        await client.publish(f"{self.address}/remote/pub2", payload, qos=1)

    async def join(self) -> None:
        await self.say(
            "join",
            host=self.address,
            host_name="Pub 1",
            game="x01",
            options={"start": 301},
            players=[{"name": name, "board": board} for name, board in self.boards.items()],
        )

    async def wait(
        self, predicate: Callable[[dict[str, Any]], bool], since: int = 0
    ) -> dict[str, Any]:
        """The first message from the guest from the ``since``-th on that matches."""

        async def look() -> dict[str, Any]:
            while True:
                for message in self.received[since:]:
                    if predicate(message):
                        return message
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(look(), TIMEOUT * 3)

    def actions(self) -> list[tuple[int, str, str | None]]:
        """(seq, action, segment) of every action received, resends included."""
        return [
            (m["seq"], m["action"], m.get("segment"))
            for m in self.received
            if m["type"] == "action"
        ]

    def seqs(self) -> set[int]:
        return {seq for seq, _, _ in self.actions()}


def journal_rows(path: Path, query: str) -> list[tuple[Any, ...]]:
    """Rows of the guest's journal, read as another process would (read-only)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


def guest_running(tmp_path: Path, broker: MosquittoBroker, resend_s: float = 600) -> Running:
    return Running(tmp_path, broker, board="pub2", extra=ALLOW.format(resend_s=resend_s))


@pytest.fixture
async def guest(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Running]:
    """The guest daemon (board pub2, [remote] allow = ["pub1"], no timed resends)."""
    async with guest_running(tmp_path, mosquitto) as running:
        yield running


@pytest.fixture
async def seen(mosquitto: MosquittoBroker) -> AsyncIterator[Watcher]:
    """Everything under oche/pub2/#: the guest's topics and what it says to hosts."""
    async with Watcher(mosquitto.host, mosquitto.port, board="pub2") as watching:
        yield watching


async def invited(guest: Running, host: ScriptedHost) -> dict[str, Any]:
    """Invite the guest once it listens for invitations; its ``joined``."""
    await until(lambda: guest.daemon.link is not None and guest.daemon.link.connected)
    await until(lambda: "oche/+/remote/pub2" in guest.daemon.link.subscriptions)  # type: ignore[union-attr]
    answered = lambda m: m["type"] in ("joined", "refused") and m["match"] == host.match  # noqa: E731
    for _ in range(20):  # the subscription may reach the broker a moment after it is listed
        await host.join()
        try:
            await asyncio.wait_for(host.wait(answered), 0.5)
            break
        except TimeoutError:
            continue
    return await host.wait(answered)


async def playing(guest: Running, host: ScriptedHost, seen: Watcher) -> dict[str, Any]:
    """Host and guest in a match, the guest mirroring the host's state."""
    joined = await invited(guest, host)
    assert joined["type"] == "joined", joined
    return await seen.state_where(
        lambda s: s.get("remote", {}).get("host") == HOST and s.get("game") == "x01"
    )


def refusal_of(refused: dict[str, Any]) -> JoinRefusal | None:
    """A ``refused`` message's typed refusal, read as a host reads it."""
    message = parse_remote_message(json.dumps(refused).encode(), "oche")
    assert isinstance(message, RefusedMessage)
    return message.refusal


def cy(state: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in state["players"] if p["name"] == "Cy")


def valid(state: dict[str, Any]) -> dict[str, Any]:
    errors = [error.message for error in STATE_SCHEMA.iter_errors(state)]
    assert not errors, errors
    return state


# ------------------------------------------------------------- invitations


async def test_an_allowed_host_is_joined_and_its_state_and_events_mirrored(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    async with ScriptedHost(mosquitto, take=False, publish_on_join=False) as host:
        joined = await invited(guest, host)
        assert joined == {
            "type": "joined",
            "match": host.match,
            "at": joined["at"],
            "board": GUEST,
            "name": "Test board",
            "forwarded": 0,
        }
        # Before the host's state: waiting for the host, no game.
        waiting = valid(
            await seen.state_where(
                lambda s: (
                    s["phase"] == "waiting-remote"
                    and s["remote"]["boards"][0]["online"]
                    and s["board"]["connected"]
                )
            )
        )
        assert waiting["game"] is None
        assert waiting["board"]["id"] == "pub2"
        assert waiting["remote"] == {
            "match": host.match,
            "role": "guest",
            "host": HOST,
            "throwing_at": None,
            "boards": [
                {"board": HOST, "name": "Pub 1", "online": True, "joined": True, "applied": 0},
                {
                    "board": GUEST,
                    "name": "Test board",
                    "online": True,
                    "joined": True,
                    "applied": 0,
                },
            ],
            "waiting": [HOST],
        }
        rows = journal_rows(tmp_path / "journal.sqlite3", "SELECT host, status FROM guest_matches")
        assert rows == [(HOST, "playing")]
        # The players journaled as they always were: the join's, as JSON text.
        players = journal_rows(tmp_path / "journal.sqlite3", "SELECT players FROM guest_matches")
        assert players == [
            (f'[{{"name": "Cy", "board": "{GUEST}"}}, {{"name": "Ann", "board": "{HOST}"}}]',)
        ]

        # The host's state, with the guest's own board and role.
        await host.publish_state()
        state = valid(await seen.state_where(lambda s: s.get("game") == "x01"))
        assert state["phase"] == "throwing"
        assert state["board"] == {
            "id": "pub2",
            "name": "Test board",
            "connected": True,
            "status": "connected",
            "stuck_cells": [],
            "problem": None,
        }
        assert state["remote"]["role"] == "guest"
        assert state["remote"]["match"] == host.match
        assert [(p["name"], p["board"]) for p in state["players"]] == [("Cy", GUEST), ("Ann", HOST)]
        expected = host.state()
        own = ("board", "remote", "journal")  # the guest's journal is its own, as its board is
        assert {k: v for k, v in state.items() if k not in own} == {
            k: v for k, v in expected.items() if k not in own
        }
        assert state["journal"] == {"status": "ok", "message": None, "salvaged": None}

        # The host's events on the guest's own event topic, unchanged.
        event = {
            "type": "dart",
            "at": time.time(),
            "player": 1,
            "segment": "T20",
            "points": 60,
            "source": "board",
        }
        await host.publish("event", json.dumps(event))
        assert await seen.wait_for("event", lambda e: e.get("segment") == "T20") == event

        # The host drops: the guest waits for it.
        await host.publish("availability", "offline")
        state = valid(await seen.state_where(lambda s: s["phase"] == "waiting-remote"))
        assert state["game"] == "x01"
        assert state["remote"]["waiting"] == [HOST]
        await host.publish("availability", "online")
        await seen.state_where(lambda s: s["phase"] == "throwing")
    assert seen.of("result") == []


async def test_a_host_not_allowed_is_refused_saying_why(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    async with ScriptedHost(
        mosquitto, board="pub9", players=(("Eve", "oche/pub9"), ("Cy", GUEST))
    ) as stranger:
        refused = await invited(guest, stranger)
    assert refused["type"] == "refused"
    assert refused["reason"] == "oche/pub9 is not in [remote] allow"
    assert refusal_of(refused) == JoinRefusal(JoinRefusalReason.NOT_ALLOWED, "oche/pub9")
    assert seen.of("state")[-1]["phase"] == "idle"
    assert journal_rows(tmp_path / "journal.sqlite3", "SELECT * FROM guest_matches") == []


async def test_a_match_with_no_player_at_this_board_is_refused_saying_why(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    async with ScriptedHost(mosquitto, players=(("Ann", HOST), ("Bo", "oche/pub7"))) as host:
        refused = await invited(guest, host)
    assert refused["reason"] == f"no player of the match throws at {GUEST}"
    assert refusal_of(refused) == JoinRefusal(JoinRefusalReason.NO_PLAYER_HERE, GUEST)
    assert seen.of("state")[-1]["phase"] == "idle"
    assert journal_rows(tmp_path / "journal.sqlite3", "SELECT * FROM guest_matches") == []


async def test_another_host_is_refused_while_this_board_plays_a_match(
    tmp_path: Path, mosquitto: MosquittoBroker, seen: Watcher
) -> None:
    guest = Running(tmp_path, mosquitto, board="pub2", extra='[remote]\nallow = ["pub*"]\n')
    await guest.start()
    try:
        async with ScriptedHost(mosquitto) as host:
            await playing(guest, host, seen)
            other = ScriptedHost(
                mosquitto, board="pub3", players=(("Bo", "oche/pub3"), ("Cy", GUEST))
            )
            async with other:
                refused = await invited(guest, other)
            assert refused["reason"] == (
                f"this board is playing oche/pub1's match {host.match}; "
                "end_game there or here first"
            )
            assert refusal_of(refused) == JoinRefusal(
                JoinRefusalReason.IN_ANOTHER_MATCH, f"oche/pub1's match {host.match}"
            )
            state = await seen.state_where(lambda s: s.get("game") == "x01")
            assert state["remote"]["host"] == HOST
    finally:
        await guest.stop()
        guest.board.close()


# -------------------------------------------------------------- forwarding


async def test_hits_are_journaled_then_forwarded_in_order_and_never_applied_here(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.sqlite3"
    async with ScriptedHost(mosquitto, take=False) as host:
        at_arrival: dict[int, list[tuple[Any, ...]]] = {}

        def arrived(message: dict[str, Any]) -> None:
            query = "SELECT seq, action, segment FROM guest_forwarded"
            at_arrival.setdefault(message["seq"], journal_rows(journal, query))

        host.on_action = arrived
        await playing(guest, host, seen)
        await throw(guest.board, "S20", "T19", "D5")
        await until(lambda: host.seqs() == {1, 2, 3})
        assert host.actions() == [(1, "hit", "S20"), (2, "hit", "T19"), (3, "hit", "D5")]
        for seq in (1, 2, 3):  # each was in the guest's journal before the host had it
            assert (seq, "hit", ["S20", "T19", "D5"][seq - 1]) in at_arrival[seq]
        # Nothing is applied at the guest: its state is still the host's.
        assert cy(seen.of("state")[-1])["score"] == 301
        assert journal_rows(journal, "SELECT count(*) FROM events") == [(0,)]
        # The host takes them: the mirrored state shows them.
        host.take = True
        await host.join()  # a resync: joined again, everything untaken sent again
        state = await seen.state_where(lambda s: cy(s)["score"] == 301 - 20 - 57 - 10)
        assert state["phase"] == "takeout"
        assert journal_rows(journal, "SELECT taken FROM guest_matches") == [(3,)]
        assert host.actions()[:3] == [(1, "hit", "S20"), (2, "hit", "T19"), (3, "hit", "D5")]


async def test_takeout_is_local_after_three_darts_until_next(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    async with ScriptedHost(mosquitto, take=False) as host:  # the host takes nothing yet
        await playing(guest, host, seen)
        await throw(guest.board, "S1", "S2", "S3")
        await until(lambda: host.seqs() == {1, 2, 3})
        await throw(guest.board, "T20", "DB")  # pulling the darts out
        for segment in ("T20", "DB"):

            def this_one(event: Any, segment: str = segment) -> bool:
                return isinstance(event, dict) and event.get("segment") == segment

            ignored = await seen.wait_for("event", this_one)
            assert ignored == {
                "type": "hit",
                "at": ignored["at"],
                "segment": segment,
                "scored": False,
                "reason": "takeout",
            }
        await press(guest.board, 0)  # NEXT
        await until(lambda: 4 in host.seqs())
        await throw(guest.board, "S4")
        await until(lambda: 5 in host.seqs())
        assert host.actions() == [
            (1, "hit", "S1"),
            (2, "hit", "S2"),
            (3, "hit", "S3"),
            (4, "next", None),
            (5, "hit", "S4"),
        ]
        rows = journal_rows(
            tmp_path / "journal.sqlite3", "SELECT game_id, what, reason FROM ignored"
        )
        assert rows == [(None, "T20", "takeout"), (None, "DB", "takeout")]


async def test_the_guests_own_takeout_timer_forwards_next(
    tmp_path: Path, mosquitto: MosquittoBroker, seen: Watcher
) -> None:
    guest = Running(tmp_path, mosquitto, board="pub2", takeout_s=0.3,
                    extra=ALLOW.format(resend_s=600))  # fmt: skip
    await guest.start()
    try:
        async with ScriptedHost(mosquitto) as host:
            await playing(guest, host, seen)
            await throw(guest.board, "S1", "S2", "S3")
            await until(lambda: 4 in host.seqs())
            assert host.actions() == [(1, "hit", "S1"), (2, "hit", "S2"), (3, "hit", "S3"),
                                      (4, "next", None)]  # fmt: skip
            state = await seen.state_where(lambda s: s["remote"]["throwing_at"] == HOST)
            assert cy(state)["score"] == 301 - 6
    finally:
        await guest.stop()
        guest.board.close()


async def test_commands_are_forwarded_and_a_bad_one_refused(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker
) -> None:
    async with ScriptedHost(mosquitto) as host:
        await playing(guest, host, seen)
        assert (await seen.command({"command": "dart", "segment": "t20"}))["ok"]
        assert (await seen.command({"command": "miss"}))["ok"]
        assert (await seen.command({"command": "undo"}))["ok"]
        assert (await seen.command({"command": "next"}))["ok"]
        refused = await seen.command({"command": "new_game", "game": "x01", "players": ["Al"]})
        assert refused["ok"] is False and "end_game leaves the match" in refused["error"]
        await until(lambda: host.seqs() == {1, 2, 3, 4})
        assert host.actions() == [
            (1, "dart", "T20"),
            (2, "miss", None),
            (3, "undo", None),
            (4, "next", None),
        ]
        state = await seen.state_where(lambda s: s["current_player"] == 1)
        assert cy(state)["score"] == 241


async def test_untaken_actions_are_sent_again_on_a_resync_and_when_still_untaken(
    tmp_path: Path, mosquitto: MosquittoBroker, seen: Watcher
) -> None:
    guest = guest_running(tmp_path, mosquitto, resend_s=0.3)
    await guest.start()
    try:
        async with ScriptedHost(mosquitto, take=False) as host:
            await playing(guest, host, seen)
            await throw(guest.board, "S5", "S6")
            await until(lambda: host.seqs() == {1, 2})
            # The host's state still says none was taken: sent again, as they were.
            await until(lambda: len(host.actions()) >= 4)
            # A resync: joined (with the highest seq forwarded), then the untaken again.
            count = len(host.received)
            await host.join()
            rejoined = await host.wait(lambda m: m["type"] == "joined", since=count)
            assert rejoined["forwarded"] == 2
            # Once the host has taken the first, only the second comes again.
            host.applied = 1
            await host.publish_state()

            def seq_2_alone() -> int:
                """How many actions came after the last seq 1 (all seq 2, or more 1s)."""
                seqs = [seq for seq, _, _ in host.actions()]
                return len(seqs) - 1 - seqs[::-1].index(1) if 1 in seqs else 0

            await until(lambda: seq_2_alone() >= 3)
            assert set(host.actions()) == {(1, "hit", "S5"), (2, "hit", "S6")}  # never renumbered
            rows = journal_rows(tmp_path / "journal.sqlite3", "SELECT taken FROM guest_matches")
            assert rows == [(1,)]
    finally:
        await guest.stop()
        guest.board.close()


async def test_a_guest_restart_resumes_the_match_and_resends_with_the_same_seqs(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker
) -> None:
    async with ScriptedHost(mosquitto, take=False) as host:
        await playing(guest, host, seen)
        await throw(guest.board, "S7", "S8")
        await until(lambda: host.seqs() == {1, 2})
        await guest.stop()
        count = len(host.received)
        guest.daemon = Daemon(guest.config)
        await guest.start()
        back = await host.wait(lambda m: m["type"] == "joined", since=count)
        assert back["forwarded"] == 2
        await until(lambda: len(host.actions()) >= 4)
        assert host.actions()[2:] == [(1, "hit", "S7"), (2, "hit", "S8")]
        state = await seen.state_where(
            lambda s: s.get("remote", {}).get("role") == "guest" and s.get("game") == "x01"
        )
        assert state["remote"]["match"] == host.match
        await throw(guest.board, "S9")
        await until(lambda: 3 in host.seqs())
        assert host.actions()[-1] == (3, "hit", "S9")


async def test_a_journaled_match_with_a_bad_player_board_is_ended_at_start_up(
    tmp_path: Path, mosquitto: MosquittoBroker, seen: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as opened:
        players = [{"name": "Cy", "board": GUEST}, {"name": "Ann", "board": "oche/a b"}]
        opened.remote.guest_join("m-bad", HOST, "pub2", "x01", {"start": 301}, players, 1.0)
    guest = guest_running(tmp_path, mosquitto)
    with caplog.at_level(logging.ERROR):
        await guest.start()
    try:
        state = await seen.state_where(lambda s: s["phase"] == "idle")
        assert "remote" not in state
        assert journal_rows(journal, "SELECT status, end_reason FROM guest_matches") == [
            ("ended", "ended")
        ]
        assert any("remote match m-bad: bad board 'oche/a b'" in r.message for r in caplog.records)
    finally:
        await guest.stop()
        guest.board.close()


@pytest.mark.slow
async def test_hits_while_the_broker_is_down_reach_the_host_once_it_is_back(
    tmp_path: Path, mosquitto: MosquittoBroker, seen: Watcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(MqttLink, "BACKOFF_JITTER", 0.0)
    guest = guest_running(tmp_path, mosquitto, resend_s=0.3)
    await guest.start()
    try:
        async with ScriptedHost(mosquitto) as host:
            await playing(guest, host, seen)
            mosquitto.stop()
            await until(lambda: guest.daemon.link is not None and not guest.daemon.link.connected)
            await throw(guest.board, "T20", "S1")
            rows = journal_rows(
                tmp_path / "journal.sqlite3", "SELECT seq, segment FROM guest_forwarded"
            )
            assert rows == [(1, "T20"), (2, "S1")]
            mosquitto.start()
            await until(lambda: host.applied == 2, timeout=40)
            assert cy(host.state())["score"] == 301 - 61
            assert sorted(set(host.actions())) == [(1, "hit", "T20"), (2, "hit", "S1")]
            await seen.state_where(lambda s: s.get("players") is not None and cy(s)["score"] == 240)
    finally:
        await guest.stop()
        guest.board.close()


# ------------------------------------------------------------------ the end


async def test_end_game_on_the_guest_leaves_the_match(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    async with ScriptedHost(mosquitto) as host:
        await playing(guest, host, seen)
        assert (await seen.command({"command": "end_game"}))["ok"]
        left = await host.wait(lambda m: m["type"] == "leave")
        assert left["match"] == host.match
        await seen.state_where(lambda s: s["phase"] == "idle" and "remote" not in s)
        rows = journal_rows(
            tmp_path / "journal.sqlite3", "SELECT status, end_reason FROM guest_matches"
        )
        assert rows == [("ended", "left")]
        # The board is its own again: its games work, the host's state is not mirrored.
        await host.own_dart("S20")
        assert (await seen.command({"command": "new_game", "game": "x01", "players": ["Al"]}))["ok"]
        await throw(guest.board, "T20")
        state = await seen.state_where(lambda s: s.get("visit") == ["T20"])
        assert state["players"][0]["name"] == "Al" and "remote" not in state
        # A join for the match it left is answered with leave again.
        await host.join()
        await until(lambda: sum(m["type"] == "leave" for m in host.received) == 2)


async def test_the_hosts_end_records_the_final_result(
    guest: Running, seen: Watcher, mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    async with ScriptedHost(mosquitto) as host:
        await playing(guest, host, seen)
        await throw(guest.board, "T20", "T20", "T20")
        await seen.state_where(lambda s: s["phase"] == "takeout" and cy(s)["score"] == 121)
        await press(guest.board, 0)
        await seen.state_where(lambda s: s["remote"]["throwing_at"] == HOST)
        await host.own_dart("S1", "S1", "S1", "NEXT")
        await seen.state_where(lambda s: s["remote"]["throwing_at"] == GUEST)
        await throw(guest.board, "T20", "T11", "D14")
        final = valid(await seen.state_where(lambda s: s["phase"] == "finished"))
        assert final["remote"]["throwing_at"] is None
        await host.say("end", reason="finished")
        await seen.state_where(lambda s: s["phase"] == "idle")
    journal = tmp_path / "journal.sqlite3"
    rows = journal_rows(journal, "SELECT status, end_reason, result FROM guest_matches")
    assert [(status, reason) for status, reason, _ in rows] == [("finished", "finished")]
    assert json.loads(rows[0][2]) == {
        "winner": "Cy",
        "result": "checkout",
        "players": [
            {"name": "Cy", "board": GUEST, "score": 0},
            {"name": "Ann", "board": HOST, "score": 298},
        ],
    }
    assert seen.of("result") == []  # the host publishes the match's one result
    with Journal(journal) as opened:
        [entry] = history_entries(opened)
    assert (entry["role"], entry["host"], entry["winner"]) == ("guest", HOST, "Cy")
    assert "Cy@oche/pub2, Ann@oche/pub1" in history_table([entry])


async def test_garbage_on_the_channel_and_the_hosts_topics_changes_nothing(
    guest: Running,
    seen: Watcher,
    mosquitto: MosquittoBroker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    async with ScriptedHost(mosquitto) as host:
        await playing(guest, host, seen)
        before = seen.of("state")[-1]
        garbage = [
            b"{not json",
            b"\xff\xfe",
            b"[1, 2]",
            b'{"type": "join"}',
            json.dumps({"type": "join", "match": "m1", "at": 1}).encode(),
            json.dumps({"type": "teleport", "match": "m1", "at": 1}).encode(),
            json.dumps({"type": "end", "match": host.match, "at": 1, "reason": "boredom"}).encode(),
            json.dumps(
                {
                    "type": "join",
                    "match": "m2",
                    "at": 1,
                    "host": "oche/pub7",
                    "game": "x01",
                    "players": [{"name": "Cy", "board": "pub2"}],
                }
            ).encode(),
            b"x" * 20000,
        ]
        for payload in garbage:
            await host.say_raw(payload)
        await host.say("end", match="someone-elses", reason="ended")
        for payload in (
            b"{not json",
            b'"a string"',
            json.dumps({"phase": "throwing"}).encode(),
            json.dumps({**host.state(), "phase": "dancing"}).encode(),
        ):
            await host.publish("state", payload)
        await host.publish("event", b"[]")
        await host.publish("availability", b"maybe")
        # Still in the match, still forwarding; nothing crashed.
        await throw(guest.board, "S11")
        await until(lambda: 1 in host.seqs())
        state = await seen.state_where(lambda s: s.get("visit") == ["S11"])
        assert state["remote"]["match"] == host.match
        assert cy(state)["score"] == cy(before)["score"] - 11
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("not JSON" in w for w in warnings)
    assert any("names the host oche/pub7" in w for w in warnings)
    assert any("dancing" in w for w in warnings)
