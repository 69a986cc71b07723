"""Issue #21's first case, with the real parts: the leaderboard is away (its
persistent session waiting at the broker), three games are played, then the
broker loses power (``kill -9``, persistence on, its file saved before the
games, as Debian's 30-minute autosave leaves it) and comes back, and the
leaderboard comes back. The broker's queue for the leaderboard is gone, yet
every result must end up in the leaderboard's database, once: the board kept
each one until the leaderboard said it stored it, and sent them again when
it came online."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path

import pytest

from firmware_bridge.daemon.journal import Journal
from leaderboard.database import Database
from tests.daemon_harness import Running, Watcher, win_x01
from tests.leaderboard.mqtt_harness import running_ingest, stored_ids, wait_until
from tests.mosquitto_broker import MosquittoBroker

pytestmark = pytest.mark.slow

LEADERBOARD_ID = "lb-power-loss"
GAMES = 3


def power_cut(broker: MosquittoBroker) -> None:
    """``kill -9``: the broker saves nothing on its way down."""
    assert broker.process is not None and broker.process.poll() is None
    os.kill(broker.process.pid, signal.SIGKILL)
    broker.process.wait(10)
    broker.process = None


def outbox(journal_path: Path) -> list[tuple[str, bool]]:
    """(result_id, sent) of every result in the board's outbox."""
    connection = sqlite3.connect(journal_path)
    try:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(outbox)")}
        sent = "sent_at" if "sent_at" in columns else "delivered_at"  # the old journal's name
        rows = connection.execute(f"SELECT result_id, {sent} IS NOT NULL FROM outbox ORDER BY id")
        return [(str(result_id), bool(was_sent)) for result_id, was_sent in rows]
    finally:
        connection.close()


async def test_a_broker_power_cut_while_the_leaderboard_is_away_loses_no_result(
    tmp_path: Path,
) -> None:
    data = tmp_path / "mosquitto-data"
    data.mkdir()
    broker = MosquittoBroker(
        tmp_path / "mosquitto", extra_config=f"persistence true\npersistence_location {data}/\n"
    )
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    journal_path = tmp_path / "journal.sqlite3"
    broker.start()
    try:
        # The leaderboard connects once (its persistent session exists), then is away.
        async with running_ingest(broker, database, client_id=LEADERBOARD_ID):
            pass
        # The broker saves its memory (as an autosave would): the file has the
        # leaderboard's session and subscriptions, and nothing after.
        broker.stop()
        broker.start()
        assert (data / "mosquitto.db").exists()

        async with Watcher(broker.host, broker.port) as watcher, Running(tmp_path, broker):
            for _ in range(GAMES):
                await win_x01(watcher, ("Ann", "Bob"))
            await watcher.count("result", lambda p: isinstance(p, dict), GAMES)
            played = [document["result_id"] for document in watcher.of("result")]

            def all_sent() -> bool:
                """the broker acknowledged all three results (they wait in its queue)"""
                return [sent for _, sent in outbox(journal_path)] == [True] * GAMES

            await wait_until(all_sent, timeout=30)

            power_cut(broker)  # the queue for the leaderboard was never saved
            broker.start()

            async with running_ingest(broker, database, client_id=LEADERBOARD_ID):

                def all_stored() -> bool:
                    """every result played is in the leaderboard's database"""
                    return len(stored_ids(database)) >= GAMES

                await wait_until(all_stored, timeout=60)

                def journal_says_stored() -> bool:
                    """the board's journal shows every result stored"""
                    with Journal(journal_path) as journal:
                        return not journal.outbox.unstored_results()

                await wait_until(journal_says_stored, timeout=30)
        stored = stored_ids(database)
        assert sorted(stored) == sorted(played)  # 0 lost, 0 doubled
        assert len(set(played)) == GAMES
    finally:
        broker.stop()
        database.dispose()
