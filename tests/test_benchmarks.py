"""Every benchmark runs to its end with a tiny count, so ``make bench`` cannot
rot: each game is thrown what it accepts, and each module's ``main`` prints
its table. The figures are not checked (speed lives in docs/benchmarks.md)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from benchmarks.engine import dart_stream, darts_per_second, game_moves
from engine import game_ids, new_game
from tests.browser import chromium_path
from tests.mosquitto_broker import mosquitto_binary
from tests.paths import REPO

ROOT = REPO


def bench(module: str, *args: str) -> str:
    """``python -m benchmarks.MODULE ARGS`` from the checkout, as ``make bench`` runs it."""
    result = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{module}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize("game_id", game_ids())
def test_each_game_is_thrown_moves_it_accepts(game_id: str) -> None:
    moves = game_moves(game_id, dart_stream(400))
    assert sum(len(events) for _, events in moves) == 400
    for options, events in moves:
        new_game(game_id, ("Ann", "Bob"), options).push_all(events)  # raises on a refused move
    rate, games = darts_per_second(game_id, moves, with_json=True)
    assert rate > 0 and games == len(moves)


def test_the_engine_benchmark_runs_every_game() -> None:
    out = bench("engine", "--darts", "300")
    listed = [line.split()[0] for line in out.splitlines()[2:]]
    assert listed == list(game_ids())


@pytest.mark.slow
def test_the_bots_benchmark_runs() -> None:
    out = bench("bots", "--legs", "2", "--levels", "1,10", "--aims", "5", "--games", "4")
    assert "X01 501 double-out plan" in out and "bed distribution" in out
    assert "simulate x01 level 9 vs 2, 4 games" in out and "simulate cricket" in out
    levels = [line.split()[0] for line in out.splitlines() if line.endswith((" ok", " OFF"))]
    assert levels == ["1", "10"]


def test_the_drivers_benchmark_runs() -> None:
    out = bench("drivers", "--frames", "200", "--hits", "5")
    assert "frames/s" in out and "over 5 hits" in out


@pytest.mark.slow
@pytest.mark.skipif(mosquitto_binary() is None, reason="needs a mosquitto binary")
def test_the_latency_benchmark_runs() -> None:
    out = bench("latency", "--hits", "7", "--starts", "1", "--gap-ms", "0", "--idle-s", "0.1")
    assert "hit -> state, p99" in out and "idle RSS" in out
    assert "floor (pty + commit + bare), p99" in out and "p99 hit -> state / floor" in out
    assert "daemon CPU / floor CPU" in out and "0.25 of one core, by" in out
    assert "0.25 core: p99 hit -> state / floor" in out
    assert "0.25 core: daemon CPU per dart / floor CPU per dart" in out


@pytest.mark.slow
@pytest.mark.skipif(mosquitto_binary() is None, reason="needs a mosquitto binary")
def test_the_year_journal_benchmark_runs() -> None:
    out = bench(
        "year", "--games", "30", "--starts", "1", "--games-started", "1", "--books-runs", "1"
    )
    assert "start -> online, full" in out and "coin-mode new_game, full" in out
    assert "books update, full" in out and "30, 1,890" in out


@pytest.mark.slow
@pytest.mark.skipif(mosquitto_binary() is None, reason="needs a mosquitto binary")
def test_the_leaderboard_benchmark_runs() -> None:
    from tests.postgres_database import POSTGRES_ADMIN_URL, postgres_database

    with postgres_database():  # skips (fails under CI) when PostgreSQL is not there
        pass
    out = bench(
        "leaderboard",
        *("--boards", "3", "--results", "30", "--probes", "3", "--load", "5"),
        *("--read-results", "40", "--reads", "5", "--pg", POSTGRES_ADMIN_URL),
    )
    assert re.search(r"checksum of ids \(SHA-256\) matches +yes", out), out
    assert "ingest, results/s" in out and "publish -> visible, p99, ms" in out
    assert "GET one venue, X01, all time, p99 ms" in out


@pytest.mark.slow
@pytest.mark.skipif(mosquitto_binary() is None, reason="needs a mosquitto binary")
def test_the_remote_benchmark_runs() -> None:
    out = bench("remote", "--samples", "5", "--gap-ms", "0")
    assert "bare bridged round trip, p99" in out and "guest hit -> host state" in out


@pytest.mark.slow
@pytest.mark.skipif(mosquitto_binary() is None, reason="needs a mosquitto binary")
def test_the_loop_stalls_benchmark_runs() -> None:
    out = bench("loop_stalls", "--darts", "6", "--books-games", "5", "--idle-s", "0.2")
    assert "skill test: last dart -> finished state" in out and "idle 0.2 s, largest stall" in out
    for scenario in ("skill-test finish", "checkout spread", "remote undo", "books, coin"):
        assert f"{scenario}" in out and "largest stall" in out


@pytest.mark.slow
@pytest.mark.skipif(mosquitto_binary() is None, reason="needs a mosquitto binary")
@pytest.mark.skipif(chromium_path() is None, reason="needs chromium")
def test_the_board_page_benchmark_runs() -> None:
    out = bench("board_page", "--darts", "4", "--loads", "2")
    assert "dart -> page, p99" in out and "service and page (state -> DOM)" in out
    assert "page weight" in out and "first contentful paint, median of 2" in out
