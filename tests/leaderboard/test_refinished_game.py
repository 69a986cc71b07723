"""Issue #21 item 4 end to end: a real daemon on a pty board and a real
Mosquitto. Ann wins, the result is delivered, her winning dart is undone and
she wins again: the leaderboard (the service's MQTT side, its retained
snapshot, and ``oche leaderboard import`` of what the topic carried) counts
the game once: Ann played 1, won 1; Bob played 1."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from firmware_bridge.daemon.journal import Journal
from leaderboard import queries
from leaderboard.database import Database
from mqtt_contract import leaderboard_topic
from tests.daemon_harness import Running, Watcher, press, throw
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.mqtt_harness import eventually, publish, running_ingest, wait_until
from tests.leaderboard.result_documents import result_document
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
NEXT = 0
LEAGUE = "league"
"""The base the service listens on in the test that relays the board's results."""


def played_and_won(database: Database) -> dict[str, tuple[int, int]]:
    with database.session() as session:
        rows = queries.leaderboard(session, "x01", "all")
        return {row.player: (row.played, row.won) for row in rows}


async def win_undo_win(daemon: Running, watcher: Watcher, delivered: Any) -> tuple[Any, Any]:
    """Ann wins a 301 game, the result is delivered (``await delivered(first)``),
    her winning dart is undone and she throws it again: both results."""
    await watcher.state_where(lambda s: s["board"]["connected"])
    await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann", "Bob"]}
    )
    for visit in (["T20", "T20", "T20"], ["S1", "S1", "S1"]):
        await throw(daemon.board, *visit)
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(daemon.board, NEXT)
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
    await throw(daemon.board, "T20", "T11", "D14")
    first = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    await delivered(first)
    journal_path = daemon.config.journal.path

    def nothing_pending() -> bool:
        """the daemon counts the first result delivered"""
        with Journal(journal_path) as journal:
            return journal.outbox.pending_results() == []

    await wait_until(nothing_pending)
    assert (await watcher.command({"command": "undo"}))["ok"]
    await watcher.state_where(lambda s: s.get("finished") is False)
    await throw(daemon.board, "D14")
    second = await watcher.wait_for(
        "result", lambda p: isinstance(p, dict) and p["result_id"] != first["result_id"]
    )
    return first, second


async def latest_snapshot(broker: MosquittoBroker, base: str, game: str) -> dict[str, Any]:
    """The retained snapshot of ``game`` as a new subscriber gets it."""
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(leaderboard_topic(base, game), qos=1)
        async with asyncio.timeout(10):
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                document: dict[str, Any] = json.loads(message.payload)
                return document
    raise AssertionError("no snapshot")


def import_file(path: Path, url: str) -> dict[str, Any]:
    """``oche leaderboard import`` (a real process); its summary."""
    done = subprocess.run(
        [str(OCHE), "leaderboard", "import", str(path), "--db", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


async def test_a_win_undone_and_thrown_again_counts_once_everywhere(
    tmp_path: Path, mosquitto: MosquittoBroker, running: Running, watcher: Watcher
) -> None:
    """The board's second result carried as the daemon sends a game finished
    again (the same ``game_key``, revision 2, a new ``result_id``): relayed
    from ``oche/board1/result`` to the service's base with exactly that."""
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    carried: list[dict[str, Any]] = []

    async def relay(document: dict[str, Any]) -> None:
        carried.append(document)
        await publish(mosquitto, [(f"{LEAGUE}/board1/result", as_payload(document))])

    async with running_ingest(mosquitto, database, base=LEAGUE, snapshots=True) as ingest:

        async def delivered(first: dict[str, Any]) -> None:
            await relay(first)
            await wait_until(lambda: len(ingest.outcomes) >= 1)
            # What the service says on the board's own base once it is stored
            # (a board that waits for it lets the result go; an older one ignores it).
            stored = {"result_id": first["result_id"], "status": "stored"}
            await publish(mosquitto, [("oche/board1/result/stored", json.dumps(stored).encode())])

        first, second = await win_undo_win(running, watcher, delivered)
        assert played_and_won(database) == {"Ann": (1, 1), "Bob": (1, 0)}
        if second.get("revision", 1) == 1:  # the daemon before the result-delivery branch
            second = {**second, "game_key": first["result_id"], "revision": 2}
        assert second["game_key"] == first["result_id"] and second["revision"] == 2
        await relay(second)
        await wait_until(lambda: len(ingest.outcomes) >= 2)
        assert played_and_won(database) == {"Ann": (1, 1), "Bob": (1, 0)}
        outcome = ingest.outcomes[1]
        assert (outcome.status, outcome.replaced) == ("imported", first["result_id"])

        async def snapshot_says_once() -> bool:
            """the retained x01 snapshot, published after the second result, has Ann once"""
            snapshot = await latest_snapshot(mosquitto, LEAGUE, "x01")
            top = {row["player"]: (row["played"], row["won"]) for row in snapshot["top"]}
            return (
                top == {"Ann": (1, 1), "Bob": (1, 0)}
                and snapshot["updated_at"] > (second["finished_at"])
            )

        await eventually(snapshot_says_once, timeout=20)
    database.dispose()

    lines = tmp_path / "carried.jsonl"
    lines.write_bytes(b"".join(as_payload(document) + b"\n" for document in carried))
    url = f"sqlite:///{tmp_path / 'imported.sqlite3'}"
    summary = import_file(lines, url)
    assert (summary["imported"], summary["replaced"], summary["rejected"]) == (2, 1, [])
    imported = Database(url)
    assert played_and_won(imported) == {"Ann": (1, 1), "Bob": (1, 0)}
    imported.dispose()


async def test_the_daemons_own_second_result_counts_the_game_once(
    tmp_path: Path, mosquitto: MosquittoBroker, running: Running, watcher: Watcher
) -> None:
    """The same, the service subscribed to the board's own ``result`` topic:
    runs once the daemon sends a game finished again as its next revision
    (the result-delivery branch)."""
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    async with running_ingest(mosquitto, database) as ingest:

        async def delivered(first: dict[str, Any]) -> None:
            await wait_until(lambda: len(ingest.outcomes) >= 1)

        first, second = await win_undo_win(running, watcher, delivered)
        if second.get("game_key") != first["result_id"]:
            pytest.skip(
                "needs result-delivery branch: this daemon sends a game finished again as a "
                "new game (game_key = its own result_id, revision 1)"
            )
        assert second["revision"] == 2
        await wait_until(lambda: len(ingest.outcomes) >= 2)
        assert (ingest.outcomes[1].status, ingest.outcomes[1].replaced) == (
            "imported",
            first["result_id"],
        )
        assert played_and_won(database) == {"Ann": (1, 1), "Bob": (1, 0)}
    database.dispose()


async def test_a_withdrawn_games_retained_snapshot_is_cleared_when_nothing_is_left(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """A withdrawal over MQTT: the game's snapshot is published again, empty
    (clearing the retained one) when nothing of the game is left to rank."""
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    first = result_document(
        "x01", ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"], options={"start": 301}
    )
    withdrawal = {
        **first,
        "result_id": "withdrawal",
        "game_key": first["result_id"],
        "revision": 2,
        "withdrawn": True,
    }
    seen: list[bytes] = []
    async with (
        aiomqtt.Client(mosquitto.host, mosquitto.port) as watching,
        running_ingest(mosquitto, database, snapshots=True) as ingest,
    ):
        await watching.subscribe(leaderboard_topic("oche", "x01"), qos=1)

        async def collect() -> None:
            async for message in watching.messages:
                assert isinstance(message.payload, bytes)
                seen.append(message.payload)

        collector = asyncio.create_task(collect())
        await publish(mosquitto, [("oche/board1/result", as_payload(first))])
        await wait_until(lambda: any(b'"Ann"' in payload for payload in seen))
        await publish(mosquitto, [("oche/board1/result", as_payload(withdrawal))])
        await wait_until(lambda: [o.status for o in ingest.outcomes] == ["imported", "withdrawn"])
        await wait_until(lambda: seen[-1] == b"")
        collector.cancel()
    assert played_and_won(database) == {}
    database.dispose()
