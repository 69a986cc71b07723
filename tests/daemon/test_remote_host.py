"""The host's side of a remote match (docs/remote.md), end to end: the real
daemon on a pty board and a real Mosquitto, and a scripted guest, a plain MQTT
client that plays ``oche/pub2``: it has a last will on its availability,
reads its channel ``oche/board1/remote/pub2`` and writes
``oche/pub2/remote/board1`` as a guest daemon would."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from firmware_bridge.daemon.remote_host import REPORT_INTERVAL_S
from mqtt_contract import REMOTE_TOPIC_SPEC, TOPICS
from tests.daemon_harness import TIMEOUT, Running, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

HOST = "oche/board1"
PUB2 = "oche/pub2"
PUB3 = "oche/pub3"


class Guest:
    """A scripted guest board: online (retained) with a last will, recording
    what the host says on its channel."""

    def __init__(self, broker: MosquittoBroker, board: str = "pub2", name: str = "Pub 2") -> None:
        self.broker, self.board, self.name = broker, board, name
        self.received: list[dict[str, Any]] = []
        self._changed = asyncio.Event()
        self._ready = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        return f"oche/{self.board}"

    async def __aenter__(self) -> Guest:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._ready.wait(), TIMEOUT)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        availability = f"{self.address}/availability"
        will = aiomqtt.Will(availability, "offline", qos=1, retain=True)
        client = aiomqtt.Client(self.broker.host, self.broker.port, will=will)
        try:
            async with client:
                self._client = client
                await client.subscribe(f"{HOST}/remote/{self.board}", qos=1)
                await client.publish(availability, "online", qos=1, retain=True)
                self._ready.set()
                async for message in client.messages:
                    raw = message.payload
                    assert isinstance(raw, bytes)
                    self.received.append(json.loads(raw))
                    self._changed.set()
        except aiomqtt.MqttError:
            pass  # dropped (see drop)

    async def drop(self) -> None:
        """Lose the connection without a goodbye: the broker sends the last will."""
        assert self._client is not None and self._task is not None
        sock = self._client._client.socket()
        assert isinstance(sock, socket.socket)
        sock.shutdown(socket.SHUT_RDWR)
        await asyncio.gather(self._task, return_exceptions=True)

    async def say(self, kind: str, match: str, **fields: Any) -> None:
        await self.say_raw(json.dumps({"type": kind, "match": match, "at": time.time(), **fields}))

    async def say_raw(self, payload: str | bytes) -> None:
        assert self._client is not None
        await self._client.publish(f"{self.address}/remote/board1", payload, qos=1)

    async def act(self, match: str, seq: int, action: str, segment: str | None = None) -> None:
        fields = {"seq": seq, "action": action}
        if segment is not None:
            fields["segment"] = segment
        await self.say("action", match, **fields)

    async def joined(self, match: str, forwarded: int = 0) -> None:
        await self.say("joined", match, board=self.address, name=self.name, forwarded=forwarded)

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        async def look() -> dict[str, Any]:
            seen = 0
            while True:
                fresh, seen = self.received[seen:], len(self.received)
                for message in fresh:
                    if predicate(message):
                        return message
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(look(), TIMEOUT)

    async def invitation(self) -> dict[str, Any]:
        return await self.wait_for(lambda m: m["type"] == "join")


@pytest.fixture
def host(running: Running) -> Running:
    """The host daemon: board1, the suite's running daemon."""
    return running


def remote_of(state: dict[str, Any]) -> dict[str, Any]:
    return state.get("remote") or {}


def scores(state: dict[str, Any]) -> list[int]:
    return [player["score"] for player in state["players"]]


def ignored(watcher: Watcher, reason: str) -> list[str]:
    return [
        event["segment"]
        for event in watcher.of("event")
        if event.get("type") == "hit" and event.get("reason") == reason
    ]


def errors(watcher: Watcher, kind: str) -> list[str]:
    return [
        e["message"] for e in watcher.of("event") if e.get("type") == "error" and e["kind"] == kind
    ]


async def new_match(
    watcher: Watcher, *players: Any, start: int = 501, timeout: float = TIMEOUT
) -> dict[str, Any]:
    await watcher.state_where(lambda s: s["board"]["connected"])
    response = await watcher.command(
        {
            "command": "new_game",
            "game": "x01",
            "options": {"start": start},
            "players": list(players),
        },
        timeout,
    )
    assert response["ok"], response
    return response


async def playing(guest: Guest, watcher: Watcher) -> str:
    """The guest takes the invitation; returns the match id once the host plays."""
    join = await guest.invitation()
    await guest.joined(join["match"])
    await watcher.state_where(
        lambda s: s.get("phase") == "throwing" and not remote_of(s)["waiting"]
    )
    return str(join["match"])


def schema_errors(watcher: Watcher) -> list[Any]:
    found = []
    for name in ("state", "event", "result"):
        validator = Draft202012Validator(TOPICS[name].schema)
        found += [error.message for p in watcher.of(name) for error in validator.iter_errors(p)]
    remote = Draft202012Validator(REMOTE_TOPIC_SPEC.schema)
    found += [error.message for p in watcher.of("remote/pub2") for error in remote.iter_errors(p)]
    return found


# ------------------------------------------------------------------ tests


async def test_the_match_waits_for_the_guest_to_be_online_and_joined(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(watcher, "Ann", {"name": "Cy", "board": "pub2"})
    state = await watcher.state_where(lambda s: s.get("phase") == "waiting-remote")
    remote = remote_of(state)
    assert (remote["role"], remote["host"], remote["waiting"]) == ("host", HOST, [PUB2])
    assert [b["board"] for b in remote["boards"]] == [HOST, PUB2]
    assert remote["boards"][1]["online"] is False and remote["boards"][1]["joined"] is False
    assert [p["board"] for p in state["players"]] == [HOST, PUB2]
    assert remote["throwing_at"] == HOST
    # While it waits, nothing of this board's is taken.
    await throw(host.board, "T20")
    await watcher.wait_for("event", lambda e: e.get("reason") == "waiting-remote")
    refused = await watcher.command({"command": "dart", "segment": "S20"})
    assert not refused["ok"] and refused["error"].startswith("waiting-remote:"), refused
    assert PUB2 in refused["error"]

    async with Guest(mosquitto) as guest:
        join = await guest.invitation()  # its availability turned online
        assert join["host"] == HOST and join["host_name"] == "Test board"
        assert join["game"] == "x01" and join["options"]["start"] == 501
        assert join["players"] == [{"name": "Ann", "board": HOST}, {"name": "Cy", "board": PUB2}]
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["online"])
        assert state["phase"] == "waiting-remote"  # online, not joined yet
        await guest.joined(join["match"])
        state = await watcher.state_where(lambda s: s.get("phase") == "throwing")
        remote = remote_of(state)
        assert remote["match"] == join["match"] and remote["waiting"] == []
        assert remote["boards"][1] == {
            "board": PUB2,
            "name": "Pub 2",
            "online": True,
            "joined": True,
            "applied": 0,
        }
        assert scores(state) == [501, 501]  # the dart thrown while waiting was not taken
        await throw(host.board, "T20")
        state = await watcher.state_where(lambda s: s.get("visit") == ["T20"])
        assert scores(state) == [441, 501]
    assert schema_errors(watcher) == []


async def test_a_refused_invitation_is_an_error_event_and_the_match_keeps_waiting(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(watcher, "Ann", {"name": "Cy", "board": "oche/pub2"})
    async with Guest(mosquitto) as guest:
        join = await guest.invitation()
        await guest.say("refused", join["match"], reason="oche/board1 is not in [remote] allow")
        error = await watcher.wait_for(
            "event", lambda e: e.get("type") == "error" and e["kind"] == "remote-refused"
        )
        assert (
            error["message"] == "oche/pub2 refused the match: oche/board1 is not in [remote] allow"
        )
        state = await watcher.state_where(lambda s: s.get("phase") == "waiting-remote")
        assert remote_of(state)["waiting"] == [PUB2]
        assert (await watcher.command({"command": "end_game"}))["ok"]
        end = await guest.wait_for(lambda m: m["type"] == "end")
        assert (end["match"], end["reason"]) == (join["match"], "ended")
        await watcher.state_where(lambda s: s.get("phase") == "idle")


async def test_an_unanswered_invitation_is_sent_again_and_a_refusal_is_not_nagged(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    """A guest that was still subscribing when its invitation came never
    heard it: the host sends ``join`` again every ``resend_s`` until it
    answers. A guest that refused is not asked again until it comes back."""
    await new_match(watcher, "Ann", {"name": "Cy", "board": "pub2"})
    async with Guest(mosquitto) as guest:
        first = await guest.invitation()
        again = await guest.wait_for(lambda m: m["type"] == "join" and m is not first)
        assert again["match"] == first["match"]
        await guest.joined(first["match"])
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
        joins = len([m for m in guest.received if m["type"] == "join"])
        # What must not happen: another join. A bounded look past two resend_s.
        await asyncio.sleep(2.5 * host.config.remote.resend_s)
        assert len([m for m in guest.received if m["type"] == "join"]) == joins  # answered
        await guest.drop()
    # pub2 is gone (its last will): invited again once online, and this time it refuses.
    await watcher.state_where(lambda s: s.get("phase") == "waiting-remote")
    async with Guest(mosquitto) as guest:
        join = await guest.invitation()
        await guest.say("refused", join["match"], reason="not tonight")
        await watcher.wait_for("event", lambda e: e.get("kind") == "remote-refused")
        await asyncio.sleep(2.5 * host.config.remote.resend_s)  # no join comes: not nagged
        assert len([m for m in guest.received if m["type"] == "join"]) == 1
        assert len(errors(watcher, "remote-refused")) == 1


async def test_a_bad_board_or_two_boards_with_one_id_refuse_the_game(
    host: Running, watcher: Watcher
) -> None:
    await watcher.state_where(lambda s: s["board"]["connected"])
    bad = await watcher.command(
        {"command": "new_game", "game": "x01", "players": ["Ann", {"name": "Cy", "board": "a b"}]}
    )
    assert not bad["ok"] and "a b" in bad["error"], bad
    twins = await watcher.command(
        {
            "command": "new_game",
            "game": "x01",
            "players": [{"name": "Ann", "board": "pub2"}, {"name": "Cy", "board": "league/pub2"}],
        }
    )
    assert not twins["ok"] and "the same id" in twins["error"], twins
    # A game whose every board is this one is an ordinary game.
    plain = await watcher.command(
        {"command": "new_game", "game": "x01", "players": [{"name": "Ann", "board": "board1"}]}
    )
    assert plain["ok"], plain
    state = await watcher.state_where(lambda s: s.get("phase") == "throwing")
    assert "remote" not in state and "board" not in state["players"][0]


async def test_guest_hits_score_in_order_exactly_once_and_only_in_their_turn(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(watcher, "Ann", {"name": "Cy", "board": "pub2"})
    async with Guest(mosquitto) as guest:
        match = await playing(guest, watcher)
        # Ann is up: the guest's hit is taken (seq 1) but ignored.
        await guest.act(match, 1, "hit", "T20")
        event = await watcher.wait_for("event", lambda e: e.get("type") == "hit")
        assert (event["segment"], event["scored"], event["reason"]) == (
            "T20",
            False,
            "not-your-turn",
        )
        await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 1)
        await throw(host.board, "S20", "S20", "S20")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(host.board, 0)  # NEXT: Cy is up
        state = await watcher.state_where(
            lambda s: s.get("current_player") == 1 and s.get("phase") == "throwing"
        )
        assert remote_of(state)["throwing_at"] == PUB2
        # This board's own darts and buttons are not Cy's.
        await throw(host.board, "D5")
        await watcher.wait_for("event", lambda e: e.get("segment") == "D5")
        assert ignored(watcher, "not-your-turn") == ["T20", "D5"]
        refused = await watcher.command({"command": "dart", "segment": "S1"})
        assert refused["error"] == "not-your-turn: Cy is throwing at Pub 2", refused
        # seq 2, its duplicate, then 4 before 3: 4 waits to be sent again in order.
        await guest.act(match, 2, "hit", "T20")
        await guest.act(match, 2, "hit", "T20")
        await guest.act(match, 4, "hit", "T19")
        await guest.act(match, 3, "hit", "T20")
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 3)
        assert state["visit"] == ["T20", "T20"] and scores(state) == [441, 381]
        await guest.act(match, 4, "hit", "T19")
        await guest.act(match, 3, "hit", "T20")  # sent again: taken already
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 4)
        assert state["phase"] == "takeout" and scores(state) == [441, 324]
        darts = [e for e in watcher.of("event") if e.get("type") == "dart" and e["player"] == 1]
        assert [(d["segment"], d["source"]) for d in darts] == [
            ("T20", "board"),
            ("T20", "board"),
            ("T19", "board"),
        ]
        # The undo of a dart thrown at pub2 is pub2's; this board's is refused.
        refused = await watcher.command({"command": "undo"})
        assert refused["error"].startswith("not-your-turn: the last dart was thrown at Pub 2")
        await guest.act(match, 5, "undo")
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 5)
        assert state["visit"] == ["T20", "T20"] and scores(state) == [441, 381]
        await guest.act(match, 6, "dart", "S1")
        await guest.act(match, 7, "next")  # its takeout over: Ann is up
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 7)
        assert state["current_player"] == 0 and scores(state) == [441, 380]
        # A guest's NEXT in another's turn is refused, and taken.
        await guest.act(match, 8, "next")
        await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 8)
        assert errors(watcher, "refused") == [
            "next from oche/pub2: not-your-turn: Ann is throwing at Test board"
        ]
    assert schema_errors(watcher) == []
    with sqlite3.connect(host.config.journal.resolved_path()) as connection:
        assert connection.execute("SELECT board, seq FROM remote_taken").fetchall() == [(PUB2, 8)]


async def test_a_guest_that_drops_pauses_the_match_and_its_actions_count_once_it_is_back(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(watcher, {"name": "Cy", "board": "pub2"}, "Ann")
    guest = Guest(mosquitto)
    async with guest:
        match = await playing(guest, watcher)
        await guest.act(match, 1, "hit", "T20")
        await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 1)
        await guest.drop()  # no goodbye: its last will says offline
    state = await watcher.state_where(lambda s: s.get("phase") == "waiting-remote")
    assert remote_of(state)["boards"][1]["online"] is False
    assert remote_of(state)["waiting"] == [PUB2]
    await throw(host.board, "S5")
    await watcher.wait_for("event", lambda e: e.get("reason") == "waiting-remote")
    async with Guest(mosquitto) as back:
        join = await back.invitation()  # online again: invited again, same match
        assert join["match"] == match
        await back.act(match, 2, "hit", "T20")  # not joined yet: left untaken
        await back.act(match, 3, "hit", "T20")
        await back.joined(match, forwarded=3)
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
        for seq in (1, 2, 3, 2, 3):  # what the host has not acknowledged, sent again
            await back.act(match, seq, "hit", "T20")
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 3)
        assert state["phase"] == "takeout" and scores(state) == [321, 501]


async def test_a_host_restart_resumes_the_match_invites_again_and_keeps_the_taken_seqs(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    first = Running(tmp_path, mosquitto)
    await first.start()
    async with Guest(mosquitto) as guest:
        try:
            await new_match(watcher, {"name": "Cy", "board": "pub2"}, "Ann")
            match = await playing(guest, watcher)
            await guest.act(match, 1, "hit", "T20")
            await guest.act(match, 2, "hit", "T20")
            await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 2)
        finally:
            await first.stop()
            first.board.close()
        guest.received.clear()
        watcher.messages.clear()
        again = Running(tmp_path, mosquitto)
        await again.start()
        try:
            join = await guest.invitation()
            assert join["match"] == match
            state = await watcher.state_where(lambda s: s.get("phase") == "waiting-remote")
            assert scores(state) == [381, 501] and remote_of(state)["boards"][1]["applied"] == 2
            await guest.joined(match, forwarded=3)
            for seq in (1, 2, 3):
                await guest.act(match, seq, "hit", "T20")
            state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 3)
            assert scores(state) == [321, 501] and state["phase"] == "takeout"
        finally:
            await again.stop()
            again.board.close()


async def test_a_guest_away_longer_than_offline_timeout_s_abandons_the_match(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    daemon = Running(tmp_path, mosquitto, extra="[remote]\noffline_timeout_s = 0.5\n")
    await daemon.start()
    try:
        async with Guest(mosquitto) as guest:  # online, but it never joins
            await new_match(watcher, "Ann", {"name": "Cy", "board": "pub2"})
            join = await guest.invitation()
            end = await guest.wait_for(lambda m: m["type"] == "end")
            assert (end["match"], end["reason"]) == (join["match"], "remote-timeout")
            await watcher.wait_for("event", lambda e: e.get("type") == "game_over")
            await watcher.state_where(lambda s: s.get("phase") == "idle")
            [message] = errors(watcher, "remote-timeout")
            assert "oche/pub2 stayed away longer than 0.5 s" in message
    finally:
        await daemon.stop()
        daemon.board.close()
    with sqlite3.connect(daemon.config.journal.resolved_path()) as connection:
        assert connection.execute("SELECT status FROM games").fetchall() == [("ended",)]


async def test_the_result_carries_the_boards_and_the_match_and_a_rematch_invites_again(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(watcher, {"name": "Cy", "board": "pub2"}, "Ann", start=301)
    async with Guest(mosquitto) as guest:
        match = await playing(guest, watcher)
        for seq, dart in enumerate(["T20", "T20", "T20"], start=1):
            await guest.act(match, seq, "hit", dart)
        await guest.act(match, 4, "next")
        # Ann's darts count only once the host has taken Cy's visit and NEXT
        # (the guest's messages may come after the pty's darts on a busy machine).
        await watcher.state_where(
            lambda s: remote_of(s)["boards"][1]["applied"] == 4 and s["current_player"] == 1
        )
        await throw(host.board, "S1", "S1", "S1")
        await watcher.state_where(  # Ann's visit at this board is over
            lambda s: s.get("phase") == "takeout" and remote_of(s)["throwing_at"] == HOST
        )
        await press(host.board, 0)
        await watcher.state_where(
            lambda s: s.get("current_player") == 0 and remote_of(s)["throwing_at"] == PUB2
        )
        for seq, dart in enumerate(["T20", "T11", "D14"], start=5):  # 121 out
            await guest.act(match, seq, "hit", dart)
        result = await watcher.wait_for("result", lambda p: isinstance(p, dict))
        assert result["match"] == match and result["winner_name"] == "Cy"
        assert [(p["name"], p["board"]) for p in result["players"]] == [("Cy", PUB2), ("Ann", HOST)]
        state = await watcher.state_where(lambda s: s.get("phase") == "finished")
        assert remote_of(state)["throwing_at"] is None
        assert (await watcher.command({"command": "rematch"}))["ok"]
        end = await guest.wait_for(lambda m: m["type"] == "end")
        assert (end["match"], end["reason"]) == (match, "finished")
        join = await guest.wait_for(lambda m: m["type"] == "join" and m["match"] != match)
        assert join["players"] == [{"name": "Cy", "board": PUB2}, {"name": "Ann", "board": HOST}]
        await guest.joined(join["match"])
        state = await watcher.state_where(
            lambda s: remote_of(s).get("match") == join["match"] and s.get("phase") == "throwing"
        )
        assert remote_of(state)["boards"][1]["applied"] == 0
        # An ordinary game over it ends the new match, not finished: replaced.
        await new_match(watcher, "Ann")
        end = await guest.wait_for(lambda m: m["type"] == "end" and m["match"] == join["match"])
        assert end["reason"] == "replaced"
    assert schema_errors(watcher) == []


async def test_a_guest_that_leaves_ends_the_match(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(
        watcher, "Ann", {"name": "Cy", "board": "pub2"}, {"name": "Di", "board": "pub3"}
    )
    async with Guest(mosquitto) as guest, Guest(mosquitto, "pub3", "Pub 3") as other:
        match = (await guest.invitation())["match"]
        await guest.joined(match)
        await other.joined((await other.invitation())["match"])
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
        await guest.say("leave", match)
        end = await other.wait_for(lambda m: m["type"] == "end")
        assert (end["match"], end["reason"]) == (match, "left")
        await watcher.state_where(lambda s: s.get("phase") == "idle")
        assert [e["type"] for e in watcher.of("event")].count("game_over") == 1
        assert not [m for m in guest.received if m["type"] == "end"]


async def test_another_board_and_garbage_on_the_channel_change_nothing(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    await new_match(watcher, {"name": "Cy", "board": "pub2"}, "Ann")
    async with Guest(mosquitto) as guest, Guest(mosquitto, "pub3", "Pub 3") as stranger:
        match = await playing(guest, watcher)
        await stranger.act(match, 1, "hit", "T20")
        error = await watcher.wait_for(
            "event", lambda e: e.get("type") == "error" and e["kind"] == "remote-refused"
        )
        assert error["message"].startswith("oche/pub3: an action from a board not in")
        await guest.act("0" * 32, 1, "hit", "T20")  # another match
        await watcher.count(
            "event", lambda e: e.get("type") == "error" and e["kind"] == "remote-refused", 2
        )
        for garbage in (
            b"not json",
            b"\xff\xfe",
            b"[1, 2]",
            b"{}",
            json.dumps({"type": "action", "match": match, "at": 1, "seq": 0, "action": "hit"}),
            json.dumps({"type": "action", "match": match, "at": 1, "seq": 1, "action": "hit"}),
            json.dumps(
                {
                    "type": "action",
                    "match": match,
                    "at": 1,
                    "seq": 1,
                    "action": "hit",
                    "segment": "T21",
                }
            ),
            json.dumps({"type": "action", "match": "../#", "at": 1, "seq": 1, "action": "miss"}),
            json.dumps({"type": "explode", "match": match, "at": 1}),
            json.dumps(
                {"type": "joined", "match": match, "at": 1, "board": "no way", "forwarded": 0}
            ),
            b"{" * 5000,
            b"x" * 20000,
        ):
            await guest.say_raw(garbage)
        await guest.act(match, 1, "hit", "S20")  # a good one is still taken
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 1)
        assert state["visit"] == ["S20"] and scores(state) == [481, 501]
        assert remote_of(state)["boards"][1]["joined"] is True
        assert [b["board"] for b in remote_of(state)["boards"]] == [HOST, PUB2]
    assert host.task is not None and not host.task.done()


async def test_a_flood_of_forged_messages_gives_few_error_events_and_the_guest_plays_on(
    host: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    """A board not in the match (or a guest writing for another match) floods
    the channel: every message is dropped and none changes the game, but the
    host reports each sender's at most once every REPORT_INTERVAL_S, not once
    a message, while the guest's own darts are taken as ever."""
    await new_match(watcher, {"name": "Cy", "board": "pub2"}, "Ann")
    async with Guest(mosquitto) as guest, Guest(mosquitto, "pub3", "Pub 3") as stranger:
        match = await playing(guest, watcher)
        started = time.monotonic()

        async def flood() -> None:
            for n in range(100):
                await stranger.act(match, n + 1, "hit", "T20")
                await stranger.joined(match)
                await stranger.say_raw(b"not json")
                await guest.act("0" * 32, n + 1, "hit", "T20")  # another match

        flooding = asyncio.create_task(flood())
        for seq, dart in enumerate(["S1", "S2", "S3"], start=1):  # Cy plays meanwhile
            await guest.act(match, seq, "hit", dart)
            await watcher.state_where(
                lambda s, seq=seq: remote_of(s)["boards"][1]["applied"] == seq
            )
        await flooding
        # The guest's next action is taken after the whole flood: one
        # connection to the broker, taken in order.
        await guest.act(match, 4, "next")
        state = await watcher.state_where(lambda s: remote_of(s)["boards"][1]["applied"] == 4)
        elapsed = time.monotonic() - started

        assert scores(state) == [495, 501] and state["current_player"] == 1
        assert [b["board"] for b in remote_of(state)["boards"]] == [HOST, PUB2]
        most = 1 + int(elapsed // REPORT_INTERVAL_S)
        from_stranger = [m for m in errors(watcher, "remote-refused") if m.startswith(PUB3)]
        for_another = [m for m in errors(watcher, "remote-refused") if m.startswith(PUB2)]
        assert 1 <= len(from_stranger) <= most, (from_stranger, elapsed)
        assert 1 <= len(for_another) <= most, (for_another, elapsed)
        assert "from a board not in this board's match" in from_stranger[0]
        assert "for another match" in for_another[0]
    assert host.task is not None and not host.task.done()


async def test_the_takeout_timer_runs_only_for_visits_thrown_at_the_host(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    daemon = Running(tmp_path, mosquitto, takeout_s=0.2)
    await daemon.start()
    try:
        async with Guest(mosquitto) as guest:
            await new_match(watcher, "Ann", {"name": "Cy", "board": "pub2"})
            match = await playing(guest, watcher)
            await throw(daemon.board, "S1", "S1", "S1")
            # Ann's takeout ends by this board's timer: Cy is up without a NEXT.
            await watcher.state_where(
                lambda s: s.get("current_player") == 1 and s.get("phase") == "throwing"
            )
            for seq in (1, 2, 3):
                await guest.act(match, seq, "hit", "S2")
            state = await watcher.state_where(lambda s: s.get("phase") == "takeout")
            assert remote_of(state)["throwing_at"] == PUB2
            # Cy's takeout is pub2's: no timer here, its own NEXT ends it.
            assert daemon.daemon.game.takeout_deadline() is None
            await guest.act(match, 4, "hit", "T20")  # pulling darts out
            event = await watcher.wait_for("event", lambda e: e.get("segment") == "T20")
            assert event["reason"].startswith("takeout")
            await guest.act(match, 5, "next")
            state = await watcher.state_where(lambda s: remote_of(s)["throwing_at"] == HOST)
            assert state["phase"] == "throwing" and scores(state) == [498, 495]
    finally:
        await daemon.stop()
        daemon.board.close()


async def test_a_computer_player_throws_at_the_host_and_waits_with_the_match(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    bot = "[bot]\ndart_interval_s = 0.01\ntakeout_s = 0.01\n"
    daemon = Running(tmp_path, mosquitto, extra=bot)
    await daemon.start()
    try:
        # Solving a computer player's level and its first aim takes seconds of
        # CPU the first time in a process: many on a busy machine.
        solving = 4 * TIMEOUT
        robo, cy = {"name": "Robo", "cpu": 5}, {"name": "Cy", "board": "pub2"}
        await new_match(watcher, robo, cy, timeout=solving)
        await watcher.state_where(lambda s: s.get("phase") == "waiting-remote")
        async with Guest(mosquitto) as guest:
            join = await guest.invitation()
            assert join["players"] == [
                {"name": "Robo", "board": HOST},
                {"name": "Cy", "board": PUB2},
            ]
            await guest.joined(join["match"])
            state = await watcher.state_where(
                lambda s: remote_of(s).get("throwing_at") == PUB2 and s.get("phase") == "throwing",
                timeout=solving,
            )
            assert state["players"][0]["stats"]["darts"] == 3
            await guest.act(join["match"], 1, "hit", "S20")
            await watcher.state_where(lambda s: s.get("visit") == ["S20"])
        waiting = [s for s in watcher.of("state") if s.get("phase") == "waiting-remote"]
        assert waiting and all(s["players"][0]["stats"]["darts"] == 0 for s in waiting)
        assert ignored(watcher, "not-your-turn") == []
    finally:
        await daemon.stop()
        daemon.board.close()
