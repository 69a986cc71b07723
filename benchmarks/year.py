"""A year's journal: start-up, a coin-mode new_game and the books, empty against full.

A board that plays all year has a journal of some 20,000 games and 1.2
million darts. What the daemon does at start and for each command must not
grow with that history, so this benchmark measures, in one run and against
the same private Mosquitto, a daemon on an **empty** journal and one on a
**full** one (``--games`` games, default 20,000, of 63 darts each: a coin-mode
bar's year, every game paid for with a credit line and its result stored by
a leaderboard; the last game is finished, its winner shown):

- **start -> online**: from launching ``oche run`` to its retained ``state``
  reaching a client subscribed before the launch (as in
  ``benchmarks/latency.py``), the median of ``--starts`` launches per
  journal, empty and full launched in turn.
- **coin-mode new_game**: from publishing a ``new_game`` command to the state
  of the new game arriving, on a running daemon in ``[credits] mode = "coin"``
  (credits enough for every game), the median of ``--games-started`` games
  per journal, empty and full in turn.

Beside each time, the daemon's CPU time for it (``/proc``: what the
machine's other work does not move; per new_game, the mean over the games,
as the kernel counts in 10 ms ticks).
- **books update**: the retained ``books`` snapshot the daemon builds after
  each start, finish, coin and operator command (``books()`` for the customer
  and security books and for today), in this process, on the full journal:
  the median wall time and the CPU time.

The full journal is written straight into SQLite (the daemon's schema, one
transaction, the books' running totals summed at its end), which takes a
few seconds; the game is a real X01 501 game
(replayed by the engine here once). Run from the checkout:
``python -m benchmarks.year [--games N]``; figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.latency import (
    STATE_TOPIC,
    PtyBoard,
    client,
    cpu_seconds,
    launch,
    mosquitto,
    receive,
    stop,
    write_config,
)
from benchmarks.report import print_rows
from engine import new_game, parse_event
from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.journal import Journal
from firmware_bridge.daemon.journal.totals import rebuild_books

__all__ = ["build_journal", "game_tokens", "main"]

BOARD = "board1"
NAMES = ("empty", "full")
COMMAND_TOPIC = f"oche/{BOARD}/cmd"
PLAYERS = ["Ann", "Bob"]
OPTIONS = {"start": 501}
CREDITS_PER_GAME = 2
_LOSER_VISITS = 10
_WINNER = ["S1"] * 24 + ["T20"] * 6 + ["T20", "S17", "D20"]
"""Ann's 33 darts: eight visits of 1s, two of 180, a 117 checkout (501 in all)."""


def game_tokens() -> list[str]:
    """One game's event tokens, as the daemon journals them: every dart and a
    NEXT after each visit but the winning one; checked by the engine."""
    tokens: list[str] = []
    for visit in range(11):
        tokens += _WINNER[visit * 3 : visit * 3 + 3]
        if visit < _LOSER_VISITS:
            tokens += ["NEXT", "S1", "S1", "S1", "NEXT"]
    game = new_game("x01", PLAYERS, OPTIONS)
    game.push_all([parse_event(token) for token in tokens])
    if not game.is_finished:
        raise RuntimeError("the benchmark's game does not finish")
    return tokens


def build_journal(path: Path, games: int, board: str = BOARD) -> int:
    """A journal at ``path`` with ``games`` finished, paid-for games of
    ``board`` over the year before now, their results stored and the books'
    running totals summed from them (as the schema's migration does); returns
    the darts written. The one year's journal of the benchmarks
    (``benchmarks.loop_stalls`` builds its books board's with it)."""
    with Journal(path):  # the daemon's schema
        pass
    tokens = game_tokens()
    darts = sum(token != "NEXT" for token in tokens)
    now = time.time()
    step = 365 * 86400 / max(games, 1)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute("BEGIN")
        for number in range(games):
            started = now - 365 * 86400 + number * step
            finished = started + len(tokens) * 2.0
            result_id = f"{number:032x}"
            row = connection.execute(
                "INSERT INTO games (game, options, players, board, started_at, finished_at,"
                " status, result, game_key, revision) VALUES"
                " ('x01', ?, ?, ?, ?, ?, 'finished', ?, ?, 1)",
                (
                    json.dumps(OPTIONS),
                    json.dumps(PLAYERS),
                    board,
                    started,
                    finished,
                    json.dumps({"winner": "Ann", "result": "checkout"}),
                    result_id,
                ),
            ).lastrowid
            connection.executemany(
                "INSERT INTO events (game_id, seq, token, at) VALUES (?, ?, ?, ?)",
                [(row, seq, token, started + seq * 2.0) for seq, token in enumerate(tokens, 1)],
            )
            connection.execute(
                "INSERT INTO credit_ledger (board, at, change, source, coin_input, pulses)"
                " VALUES (?, ?, ?, 'coin', 1, 1)",
                (board, started - 10, CREDITS_PER_GAME),
            )
            connection.execute(
                "INSERT INTO credit_ledger (board, at, change, source, game_id)"
                " VALUES (?, ?, ?, 'game', ?)",
                (board, started, -CREDITS_PER_GAME, row),
            )
            connection.execute(
                "INSERT INTO outbox (result_id, game_id, payload, created_at, sent_at,"
                " stored_at) VALUES (?, ?, '{}', ?, ?, ?)",
                (result_id, row, finished, finished, finished),
            )
        rebuild_books(connection)  # written behind the stores' backs: the running totals summed
        connection.execute("COMMIT")
    finally:
        connection.close()
    return darts * games


def add_credits(path: Path, count: int) -> None:
    """``count`` credits for the board (the operator's), so every new_game is paid."""
    with Journal(path) as journal:
        journal.ledger.add_credits(BOARD, count, "remote", time.time(), "benchmark")


COIN_CONFIG = """
[credits]
mode = "coin"
price = 1
"""


class Daemon:
    """One board's working directory, config and journal."""

    def __init__(self, workdir: Path, port: int) -> None:
        workdir.mkdir()
        self.workdir = workdir
        self.board = PtyBoard(workdir / "oche-board")
        self.config = write_config(workdir, port, self.board, BOARD, COIN_CONFIG)
        self.journal = workdir / "journal.sqlite3"


async def start_ms(daemon: Daemon, port: int, profile: Path | None = None) -> tuple[float, float]:
    """One launch: milliseconds to the retained state, and the daemon's CPU
    milliseconds until then (the machine's other work does not move those)."""
    async with client(port) as subscriber:
        await subscriber.publish(STATE_TOPIC, b"", qos=1, retain=True)
        await subscriber.subscribe(STATE_TOPIC, qos=1)
        start = time.perf_counter()
        process = launch(daemon.config, daemon.workdir / "daemon.log", profile)
        try:
            arrived, _ = await receive(
                subscriber, STATE_TOPIC, lambda s: True, "after the launch", 60.0
            )
            cpu = cpu_seconds(process.pid)
        finally:
            stop(process)
    daemon.board.drain()
    return (arrived - start) * 1000, cpu * 1000


def playing(players: list[str]) -> Callable[[Any], bool]:
    """A state of a game of ``players``."""
    return lambda state: [p["name"] for p in state.get("players") or []] == players


async def new_games_ms(
    daemon: Daemon, port: int, count: int, profile: Path | None = None
) -> tuple[list[float], list[float]]:
    """``count`` new_game commands on one running daemon: milliseconds from
    each command to the state of its game, and the daemon's CPU milliseconds
    for it (a first, untimed, warms it up)."""
    times: list[float] = []
    cpus: list[float] = []
    async with client(port) as subscriber:
        await subscriber.publish(STATE_TOPIC, b"", qos=1, retain=True)
        await subscriber.subscribe(STATE_TOPIC, qos=1)
        process = launch(daemon.config, daemon.workdir / "daemon.log", profile)
        try:
            await receive(subscriber, STATE_TOPIC, lambda s: True, "after the launch", 60.0)
            for attempt in range(count + 1):
                players = [f"P{attempt}", "Q"]
                command = {"command": "new_game", "game": "cricket", "players": players}
                start, cpu = time.perf_counter(), cpu_seconds(process.pid)
                await subscriber.publish(COMMAND_TOPIC, json.dumps(command), qos=1)
                arrived, _ = await receive(
                    subscriber,
                    STATE_TOPIC,
                    playing(players),
                    f"after new_game {attempt}",
                    30.0,
                )
                if attempt:
                    times.append((arrived - start) * 1000)
                    cpus.append((cpu_seconds(process.pid) - cpu) * 1000)
        finally:
            stop(process)
    daemon.board.drain()
    return times, cpus


def books_ms(path: Path, runs: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of the daemon's books snapshot
    (the books, and today's) on the journal at ``path``."""
    walls: list[float] = []
    cpus: list[float] = []
    with Journal(path) as journal:
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            now = time.time()
            midnight = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
            books(journal, BOARD, now=now)
            books(journal, BOARD, midnight.timestamp(), now=now)
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def ratio(full: float, empty: float) -> str:
    return f"{full / empty - 1:+.0%}" if empty else "n/a"


async def run(args: argparse.Namespace) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory(prefix="oche-year-") as temporary:
        workdir = Path(temporary)
        built = time.perf_counter()
        full_path = workdir / "full"
        full_path.mkdir()
        darts = build_journal(full_path / "journal.sqlite3", args.games)
        build_s = time.perf_counter() - built
        with mosquitto(workdir) as port:
            empty, full = Daemon(workdir / "empty", port), Daemon(workdir / "full-run", port)
            (full_path / "journal.sqlite3").rename(full.journal)
            for daemon in (empty, full):
                add_credits(daemon.journal, 10 * (args.games_started + 1) * args.starts)
            profile = None if args.profile is None else Path(args.profile)
            starts: dict[str, list[tuple[float, float]]] = {"empty": [], "full": []}
            await start_ms(empty, port)  # fills the bytecode cache: not timed
            for attempt in range(args.starts):
                for name, daemon in (("empty", empty), ("full", full)):
                    where = None if profile is None else profile / f"start-{name}-{attempt}.prof"
                    starts[name].append(await start_ms(daemon, port, where))
            started: dict[str, tuple[list[float], list[float]]] = {}
            for name, daemon in (("empty", empty), ("full", full)):
                where = None if profile is None else profile / f"new-game-{name}.prof"
                started[name] = await new_games_ms(daemon, port, args.games_started, where)
            wall, cpu = books_ms(full.journal, args.books_runs)
    start_empty, start_full = (statistics.median(t for t, _ in starts[n]) for n in NAMES)
    cpu_empty, cpu_full = (statistics.median(c for _, c in starts[n]) for n in NAMES)
    new_empty, new_full = (statistics.median(started[n][0]) for n in NAMES)
    # /proc counts CPU in clock ticks (10 ms): the mean over the games, not a median.
    new_cpu_empty, new_cpu_full = (statistics.fmean(started[n][1]) for n in NAMES)
    return [
        (f"full journal: games, darts (written in {build_s:.1f} s)", f"{args.games:,}, {darts:,}"),
        (f"start -> online, empty (median of {args.starts})", f"{start_empty:.0f} ms"),
        (
            f"start -> online, full (median of {args.starts})",
            f"{start_full:.0f} ms ({ratio(start_full, start_empty)})",
        ),
        ("start -> online, daemon CPU, empty", f"{cpu_empty:.0f} ms"),
        ("start -> online, daemon CPU, full", f"{cpu_full:.0f} ms ({ratio(cpu_full, cpu_empty)})"),
        (f"coin-mode new_game, empty (median of {args.games_started})", f"{new_empty:.1f} ms"),
        (
            f"coin-mode new_game, full (median of {args.games_started})",
            f"{new_full:.1f} ms ({ratio(new_full, new_empty)})",
        ),
        ("coin-mode new_game, daemon CPU (mean), empty", f"{new_cpu_empty:.1f} ms"),
        (
            "coin-mode new_game, daemon CPU (mean), full",
            f"{new_cpu_full:.1f} ms ({ratio(new_cpu_full, new_cpu_empty)})",
        ),
        (f"books update, full (median of {args.books_runs})", f"{wall:.2f} ms, CPU {cpu:.2f} ms"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games in the full journal")
    parser.add_argument("--starts", type=int, default=5, help="launches per journal")
    parser.add_argument(
        "--games-started", type=int, default=20, help="new_game commands per journal"
    )
    parser.add_argument("--books-runs", type=int, default=50, help="books snapshots timed")
    parser.add_argument("--profile", help="a directory for the daemons' cProfile statistics")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = asyncio.run(run(args))
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"load {load:.2f} before the run"
    )
    print_rows(rows)


if __name__ == "__main__":
    main()
