"""A finished game's result from the daemon's side, with a real Mosquitto and
journal: a game won again after an undo publishes a new revision of its
result (same game_key), a reopened game abandoned after its result was sent
publishes a withdrawal, a board whose clock is not set says so, and a
result stays in the outbox until a leaderboard said it stored it (sent again
whenever a leaderboard comes online, a backlog of thousands without stalling
the board)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.journal import Journal
from mqtt_contract import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    TOPICS,
    leaderboard_availability_topic,
)
from tests.daemon_harness import Running, Watcher, win_x01
from tests.leaderboard.mqtt_harness import wait_until
from tests.mosquitto_broker import MosquittoBroker

RESULT_SCHEMA = Draft202012Validator(TOPICS["result"].schema)
STORED_TOPIC = "oche/board1/result/stored"
ONE_PLAYER = {"command": "new_game", "game": "x01", "options": {"start": 301, "out": "straight"}}


def journal_of(running: Running) -> Journal:
    return Journal(running.config.journal.resolved_path())


def outbox(running: Running) -> list[tuple[str, bool, bool]]:
    """(result_id, sent, stored) of every result in the board's outbox, oldest first."""
    with sqlite3.connect(running.config.journal.resolved_path()) as connection:
        rows = connection.execute(
            "SELECT result_id, sent_at IS NOT NULL, stored_at IS NOT NULL FROM outbox ORDER BY id"
        ).fetchall()
    connection.close()
    return [(str(a), bool(b), bool(c)) for a, b, c in rows]


async def command(watcher: Watcher, name: str, **args: Any) -> None:
    response = await watcher.command({"command": name, **args})
    assert response["ok"], response


async def results(watcher: Watcher, count: int) -> list[dict[str, Any]]:
    await watcher.count("result", lambda p: isinstance(p, dict), count)
    found: list[dict[str, Any]] = watcher.of("result")
    for document in found:
        assert not list(RESULT_SCHEMA.iter_errors(document)), document
    return found


async def all_sent(running: Running) -> None:
    def sent() -> bool:
        """every result in the outbox was acknowledged by the broker"""
        return all(was_sent for _, was_sent, _ in outbox(running))

    await wait_until(sent)


async def test_a_game_won_again_after_an_undo_replaces_its_result_and_an_abandon_withdraws_it(
    running: Running, watcher: Watcher
) -> None:
    await win_x01(watcher)
    [first] = await results(watcher, 1)
    assert (first["game_key"], first["revision"]) == (first["result_id"], 1)
    await all_sent(running)  # delivered: an undo can no longer take it back unseen
    await command(watcher, "undo")
    await command(watcher, "dart", segment="S1")  # the same checkout, thrown again
    second = (await results(watcher, 2))[1]
    assert second["result_id"] != first["result_id"]
    assert (second["game_key"], second["revision"]) == (first["result_id"], 2)
    assert "withdrawn" not in second
    await all_sent(running)
    await command(watcher, "undo")
    await command(watcher, "end_game")  # reopened, then abandoned: the game no longer counts
    withdrawal = (await results(watcher, 3))[2]
    assert withdrawal["withdrawn"] is True
    assert (withdrawal["game_key"], withdrawal["revision"]) == (first["result_id"], 3)
    assert withdrawal["result_id"] not in (first["result_id"], second["result_id"])
    trimmed = {k: v for k, v in withdrawal.items() if k not in ("result_id", "revision")}
    assert trimmed == {
        **{k: v for k, v in second.items() if k not in ("result_id", "revision")},
        "withdrawn": True,
    }
    with journal_of(running) as journal:
        [game] = journal.games.games()
        assert (game.status, game.game_key, game.revision) == ("ended", first["result_id"], 3)


async def test_a_board_whose_clock_is_not_set_says_so_in_its_result_and_state(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """A Raspberry Pi without a real-time clock before NTP answers: its clock
    reads 1970-01-02, and its result and state say the clock is not
    synchronised (the leaderboard then dates the game by its arrival)."""
    running = Running(tmp_path, mosquitto)
    offset = time.time() - 86_400.0  # the clock runs, a day after the epoch
    running.daemon = Daemon(running.config, clock=lambda: time.time() - offset)
    async with running:
        state = await watcher.state_where(lambda s: "board" in s)
        assert state["board"]["clock_synced"] is False
        assert not list(Draft202012Validator(TOPICS["state"].schema).iter_errors(state))
        await win_x01(watcher)
        [result] = await results(watcher, 1)
    assert result["clock_synced"] is False
    assert 86_400 <= result["started_at"] <= result["finished_at"] < 2 * 86_400


async def test_a_board_whose_clock_is_synchronised_says_nothing_of_it(
    running: Running, watcher: Watcher
) -> None:
    state = await watcher.state_where(lambda s: "board" in s)
    assert "clock_synced" not in state["board"]  # absent: synchronised
    await win_x01(watcher)
    [result] = await results(watcher, 1)
    assert "clock_synced" not in result


class Leaderboard:
    """What a leaderboard service says to boards, as a plain MQTT client: its
    availability (retained), and, once :meth:`answering`, a result/stored for
    every result it receives (``received`` keeps their ids in order)."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.broker = broker
        self.topic = leaderboard_availability_topic("oche", "lb-test")
        self.received: list[str] = []

    async def say(self, availability: str) -> None:
        async with aiomqtt.Client(self.broker.host, self.broker.port) as client:
            await client.publish(self.topic, availability, qos=1, retain=True)

    async def stored(self, result_ids: list[str], status: str = "stored") -> None:
        async with aiomqtt.Client(self.broker.host, self.broker.port) as client:
            for result_id in result_ids:
                message = {"result_id": result_id, "status": status, "at": time.time()}
                await client.publish(STORED_TOPIC, json.dumps(message), qos=1)

    @contextlib.asynccontextmanager
    async def answering(self) -> AsyncIterator[Leaderboard]:
        ready = asyncio.Event()

        async def serve() -> None:
            async with aiomqtt.Client(self.broker.host, self.broker.port) as client:
                await client.subscribe("oche/+/result", qos=1)
                ready.set()
                async for message in client.messages:
                    assert isinstance(message.payload, bytes)
                    result_id = json.loads(message.payload)["result_id"]
                    self.received.append(result_id)
                    answer = {"result_id": result_id, "status": "stored", "at": time.time()}
                    await client.publish(STORED_TOPIC, json.dumps(answer), qos=1)

        task = asyncio.create_task(serve())
        try:
            await asyncio.wait_for(ready.wait(), 10)
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def test_a_sent_result_stays_until_stored_and_goes_again_when_a_leaderboard_comes_online(
    running: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    leaderboard = Leaderboard(mosquitto)
    await win_x01(watcher)
    [first] = await results(watcher, 1)
    await all_sent(running)
    assert outbox(running) == [(first["result_id"], True, False)]  # sent, not stored
    await leaderboard.say(AVAILABILITY_OFFLINE)
    await leaderboard.say(AVAILABILITY_ONLINE)  # a leaderboard (re)started: it may not have it
    await results(watcher, 2)
    assert watcher.of("result")[1] == first  # the same result, sent again
    await leaderboard.stored([first["result_id"], "not-this-boards"])
    await wait_until(lambda: outbox(running) == [(first["result_id"], True, True)])
    await leaderboard.say(AVAILABILITY_ONLINE)
    await command(watcher, "new_game", **{**ONE_PLAYER, "players": ["Bob"]})  # a round trip
    assert len(watcher.of("result")) == 2  # stored: never sent again


async def test_a_garbled_result_stored_message_is_ignored_with_a_warning(
    running: Running, watcher: Watcher, mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    await win_x01(watcher)
    [first] = await results(watcher, 1)
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        for garbage in (b"not json", b"[]", json.dumps({"result_id": first["result_id"]})):
            await client.publish(STORED_TOPIC, garbage, qos=1)
    await wait_until(lambda: caplog.text.count("is not a result/stored") == 3)
    assert outbox(running)[0][2] is False


def backlog(path: Path, count: int) -> list[str]:
    """``count`` sent but unstored results of board1 written straight into
    the journal (one transaction), as thousands of games played while no
    leaderboard was there would leave them."""
    with Journal(path):
        pass  # the schema
    ids = [str(uuid.uuid4()) for _ in range(count)]
    with sqlite3.connect(path, isolation_level=None) as connection:
        connection.execute("BEGIN")
        for n, result_id in enumerate(ids):
            game = connection.execute(
                "INSERT INTO games (game, options, players, board, started_at, finished_at,"
                " status, result, game_key, revision) VALUES ('x01', '{}', '[\"Ann\"]',"
                " 'board1', ?, ?, 'finished', '{}', ?, 1)",
                (1.8e9 + n, 1.8e9 + n + 1, result_id),
            ).lastrowid
            payload = json.dumps({"result_id": result_id, "n": n})
            connection.execute(
                "INSERT INTO outbox (result_id, game_id, payload, created_at, sent_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (result_id, game, payload, 1.8e9 + n, 1.8e9 + n + 2),
            )
        connection.execute("COMMIT")
    connection.close()
    return ids


@pytest.mark.slow
async def test_a_backlog_of_thousands_goes_again_while_the_board_plays_on(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """2000 results no leaderboard stored: when one comes online they go at
    the pace it stores them (a window at a time), each once, oldest first,
    and meanwhile the board answers commands at once."""
    ids = backlog(tmp_path / "journal.sqlite3", 2000)
    leaderboard = Leaderboard(mosquitto)
    async with leaderboard.answering(), Running(tmp_path, mosquitto) as running:
        await watcher.state_where(lambda s: "board" in s)  # connected
        await command(watcher, "new_game", **{**ONE_PLAYER, "players": ["Ann"]})
        await leaderboard.say(AVAILABILITY_ONLINE)
        await wait_until(lambda: len(leaderboard.received) > 0)
        await command(watcher, "dart", segment="T20")
        answered_after = len(leaderboard.received)
        await wait_until(lambda: len(leaderboard.received) >= len(ids), timeout=120)
        assert answered_after < len(ids)
        assert leaderboard.received == ids  # oldest first, each once
        await wait_until(lambda: all(stored for _, _, stored in outbox(running)), timeout=60)
