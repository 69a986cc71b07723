"""The daemon's event loop: its largest stall in each scenario, and a skill
test's last dart to its finished state and to its report over MQTT.

The daemons run in this process (so their loop can be watched) on pty boards,
with a private Mosquitto on a free loopback port and their SQLite journals in
a temporary directory. A watch task asks to wake every
:data:`WATCH_PERIOD_S`; how late it wakes is how long the loop was held by
something else (a dart's commit, a state's JSON, a solve left on the loop).
Each scenario's largest stall is the latest wake-up from its first input to
its last answer; **idle** is the same watch over ``--idle-s`` quiet seconds
(3: as long as the skill test's cold solve) before the scenarios, the
machine's own noise, the floor the targets are read against.

- **skill-test finish**: one player throws a skill test's darts (30 at T20,
  the option's default) on the board; the clock runs from the last dart's
  frame to the first ``state`` with the test finished, and to the first with
  the player's report (the 1.6 s solve, cold: the first of the process).
- **checkout spread**: X01 301 for Ann, with checkout hints for her spread
  (``checkout_sigma_mm``), against a computer player (level 5); from
  ``new_game`` (Ann's T20 T20 T19 leave 124: a hint) until the computer
  player's first visit is over: the computer player's levels, the spread's
  X01 plan and the bot's own plan are solved (cold) meanwhile.
- **remote undo late in a game**: a host (pub1) and a guest (pub2) on the
  one broker, x01 1001 for Ann at the host and Cy at the guest, ``--darts``
  S1s thrown, then the guest's ``undo`` of its last dart; from the undo to
  the host's state with it undone.
- **books**: a coin-operated board whose journal holds a year's
  ``--books-games`` finished, paid-for games (``benchmarks.year``'s
  journal, the books' running totals summed); from a coin to its ``books``
  snapshot, which reads those totals and adds the coin's credit line to them.

Goal: every largest stall <= 20 ms; last dart -> finished state <= 100 ms.
Run from the checkout: ``python -m benchmarks.loop_stalls [--darts N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import platform
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt

from benchmarks.latency import (
    NEXT_BUTTON,
    PtyBoard,
    client,
    mosquitto,
    receive,
    write_config,
)
from benchmarks.report import print_rows
from benchmarks.year import build_journal
from drivers.protocol import Coin
from engine import Bed
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import parse_config

__all__ = ["StallWatch", "main"]

WATCH_PERIOD_S = 0.001
TARGET_STALL_MS = 20.0
TARGET_FINISH_MS = 100.0
TIMEOUT = 120.0
"""A cold solve on a busy 2-core machine takes seconds: the waits are generous."""
SKILL_DARTS = ["T20"] * 9 + ["S20"] * 14 + ["S1"] * 3 + ["S5"] * 3 + ["T5"]
"""A skill test's 30 darts at T20 (a sigma near 25 mm)."""


class StallWatch:
    """The loop's largest stall: a task that sleeps :data:`WATCH_PERIOD_S` at
    a time and keeps how much later than asked it woke."""

    def __init__(self) -> None:
        self.worst_ms = 0.0
        self.asked_at = time.perf_counter()
        """When the watch last asked to wake (read by :class:`StackSampler`)."""
        self.scenario = ""
        """The scenario being timed (from :meth:`reset` to :meth:`finished`), or ``""``."""
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        while True:
            asked = self.asked_at = time.perf_counter()
            await asyncio.sleep(WATCH_PERIOD_S)
            late = (time.perf_counter() - asked - WATCH_PERIOD_S) * 1000
            self.worst_ms = max(self.worst_ms, late)

    def reset(self, scenario: str = "") -> None:
        self.worst_ms = 0.0
        self.scenario = scenario

    def finished(self) -> float:
        """The scenario's largest stall (ms); the scenario's time is over."""
        self.scenario = ""
        return self.worst_ms

    async def __aenter__(self) -> StallWatch:
        self._task = asyncio.create_task(self._watch())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


IDLE_FRAMES = ("thread.py:81 _worker", "threading.py:327 wait", "threading.py:331 wait")
"""Innermost frames of a thread waiting for work: left out of the samples."""


class StackSampler:
    """What the other threads of this process were in while the loop was
    held (``--sample-ms``): a thread that, every :data:`WATCH_PERIOD_S` while
    the watch is more than ``threshold_ms`` late, notes each thread's
    innermost frames; :meth:`report` prints the longest stalls' stacks."""

    def __init__(self, watch: StallWatch, threshold_ms: float) -> None:
        self._watch = watch
        self._threshold_s = threshold_ms / 1000
        self._stop = threading.Event()
        self._stalls: list[tuple[float, str, collections.Counter[str]]] = []
        self._thread = threading.Thread(target=self._sample, name="stack-sampler", daemon=True)

    def _sample(self) -> None:
        names: dict[int | None, str] = {}
        stall: collections.Counter[str] = collections.Counter()
        held_since = 0.0
        while not self._stop.wait(WATCH_PERIOD_S / 2):
            asked = self._watch.asked_at
            late = time.perf_counter() - asked - WATCH_PERIOD_S
            if asked != held_since and stall:  # the loop woke: that stall is over
                self._keep(stall)
                stall = collections.Counter()
            if late < self._threshold_s or not self._watch.scenario:
                continue
            if not stall:
                held_since = asked
                stall[f"({self._watch.scenario})"] = 0
            stall["(held ms)"] = round(late * 1000)
            names = names or {thread.ident: thread.name for thread in threading.enumerate()}
            for ident, frame in sys._current_frames().items():
                if ident == threading.get_ident():
                    continue
                if ident not in names:
                    names = {thread.ident: thread.name for thread in threading.enumerate()}
                stack = traceback.extract_stack(frame)[-5:]
                where = " < ".join(
                    f"{Path(entry.filename).name}:{entry.lineno} {entry.name}"
                    for entry in reversed(stack)
                )
                if not where.startswith(IDLE_FRAMES):
                    stall[f"[{names.get(ident, ident)}] {where}"] += 1

    def _keep(self, stall: collections.Counter[str]) -> None:
        held = float(stall.pop("(held ms)"))
        scenario = next(key for key in stall if key.startswith("("))
        del stall[scenario]
        self._stalls.append((held, scenario, stall))
        self._stalls.sort(key=lambda kept: -kept[0])
        del self._stalls[5:]

    def report(self) -> None:
        """The five longest stalls, each with the stacks seen most in it."""
        for held, scenario, stall in self._stalls:
            print(f"\n{scenario} stall of {held:.0f} ms or more; samples of each stack:")
            for where, count in stall.most_common(8):
                print(f"{count:4d}  {where}")

    def __enter__(self) -> StackSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.asynccontextmanager
async def daemon(
    workdir: Path, port: int, board_id: str = "board1", extra: str = ""
) -> AsyncIterator[tuple[Daemon, PtyBoard]]:
    """A daemon in this process on a pty board, connected to the broker."""
    workdir.mkdir(parents=True, exist_ok=True)
    board = PtyBoard(workdir / "board")
    path = write_config(workdir, port, board, board_id=board_id, extra=extra)
    running = Daemon(parse_config(path.read_text("utf-8"), str(path)))
    task = asyncio.create_task(running.run())
    try:
        yield running, board
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        board.close()


async def command(
    mqtt: aiomqtt.Client, board: str, payload: dict[str, Any], topic: str = "cmd"
) -> dict[str, Any]:
    """Send a command and wait for its response."""
    token = f"bench-{time.perf_counter_ns()}"
    await mqtt.publish(f"oche/{board}/{topic}", json.dumps({**payload, "id": token}), qos=1)
    _, response = await receive(
        mqtt, f"oche/{board}/{topic}/response", lambda r: r.get("id") == token, "answered", TIMEOUT
    )
    if not response.get("ok"):
        raise RuntimeError(f"{payload} refused: {response}")
    return dict(response)


async def subscribed(mqtt: aiomqtt.Client, board: str, *topics: str) -> None:
    for name in topics:
        await mqtt.subscribe(f"oche/{board}/{name}", qos=1)
    await receive(mqtt, f"oche/{board}/state", lambda s: s["board"]["connected"], "connected")


def on(state_of: Callable[[dict[str, Any]], bool]) -> Callable[[Any], bool]:
    return lambda state: isinstance(state, dict) and state_of(state)


def thrown(count: int, player: int | None = None) -> Callable[[Any], bool]:
    """A state with ``count`` darts thrown (by ``player``, else by everyone)."""

    def counted(state: dict[str, Any]) -> bool:
        players = state["players"] if player is None else [state["players"][player]]
        return sum(int(p["stats"]["darts"]) for p in players) == count

    return on(counted)


async def skill_test_finish(workdir: Path, port: int, watch: StallWatch) -> dict[str, float]:
    async with daemon(workdir, port, "skill") as (_, board), client(port) as mqtt:
        await subscribed(mqtt, "skill", "state", "cmd/response")
        players = ["Ann"]
        await command(
            mqtt, "skill", {"command": "new_game", "game": "skill-test", "players": players}
        )
        state = "oche/skill/state"
        for number, notation in enumerate(SKILL_DARTS[:-1], start=1):
            board.hit(Bed.parse(notation))
            await receive(
                mqtt,
                state,
                thrown(number, 0),
                "a dart",
            )
            if number % 3 == 0:
                board.button(NEXT_BUTTON)
                await receive(mqtt, state, on(lambda s: s["phase"] == "throwing"), "after NEXT")
        watch.reset("skill-test finish")
        start = time.perf_counter()
        board.hit(Bed.parse(SKILL_DARTS[-1]))
        finished_at, first = await receive(
            mqtt, state, on(lambda s: s["finished"] is True), "finished", TIMEOUT
        )
        reported_at, _ = (
            await receive(
                mqtt, state, on(lambda s: s["players"][0]["skill"] is not None), "reported", TIMEOUT
            )
            if first["players"][0]["skill"] is None
            else (finished_at, first)
        )
        return {
            "finish_ms": (finished_at - start) * 1000,
            "report_ms": (reported_at - start) * 1000,
            "stall_ms": watch.finished(),
        }


async def checkout_spread(workdir: Path, port: int, watch: StallWatch) -> dict[str, float]:
    extra = "[bot]\ndart_interval_s = 0.05\ntakeout_s = 0.05\n"
    async with daemon(workdir, port, "spread", extra) as _, client(port) as mqtt:
        await subscribed(mqtt, "spread", "state", "cmd/response")
        state = "oche/spread/state"
        watch.reset("checkout spread")
        start = time.perf_counter()
        await command(
            mqtt,
            "spread",
            {
                "command": "new_game",
                "game": "x01",
                "players": ["Ann", {"name": "Bot", "cpu": 5}],
                "options": {"start": 301, "checkout_sigma_mm": "9.5,none"},
            },
        )
        for segment in ("T20", "T20", "T19"):  # 124 left: a hint for Ann's spread
            await command(mqtt, "spread", {"command": "dart", "segment": segment})
        await command(mqtt, "spread", {"command": "next"})
        done_at, _ = await receive(
            mqtt,
            state,
            on(
                lambda s: (
                    s["current_player"] == 0
                    and s["phase"] == "throwing"
                    and s["players"][0]["checkout"] is not None
                )
            ),
            "the bot's visit",
            TIMEOUT,
        )
        return {"elapsed_ms": (done_at - start) * 1000, "stall_ms": watch.finished()}


async def remote_undo(workdir: Path, port: int, darts: int, watch: StallWatch) -> dict[str, float]:
    guest_extra = '[remote]\nallow = ["pub1"]\n'
    async with (
        daemon(workdir / "host", port, "pub1") as _,
        daemon(workdir / "guest", port, "pub2", guest_extra) as (_, guest_board),
        client(port) as mqtt,
    ):
        await subscribed(mqtt, "pub1", "state", "cmd/response")
        await subscribed(mqtt, "pub2", "state", "cmd/response")
        players = [{"name": "Ann"}, {"name": "Cy", "board": "pub2"}]
        await command(
            mqtt,
            "pub1",
            {"command": "new_game", "game": "x01", "options": {"start": 1001}, "players": players},
        )
        host = "oche/pub1/state"
        ready = on(
            lambda s: (s.get("remote") or {}).get("waiting") == [] and s["phase"] == "throwing"
        )
        await receive(mqtt, host, ready, "with the match on", TIMEOUT)
        total = darts - darts % 6 + 3  # then Cy is up: the dart undone is the guest's
        for count in range(1, total + 1):
            seat = ((count - 1) // 3) % 2
            if seat == 0:
                await command(mqtt, "pub1", {"command": "dart", "segment": "S1"})
            else:
                guest_board.hit(Bed.parse("S1"))
            await receive(mqtt, host, thrown(count), "a dart", TIMEOUT)
            if count % 3 == 0:
                await command(mqtt, "pub1" if seat == 0 else "pub2", {"command": "next"})
                await receive(mqtt, host, ready, "after NEXT", TIMEOUT)
        guest_board.hit(Bed.parse("S1"))
        total += 1
        await receive(mqtt, host, thrown(total), "Cy's dart", TIMEOUT)
        watch.reset("remote undo")
        start = time.perf_counter()
        await command(mqtt, "pub2", {"command": "undo"})
        undone_at, _ = await receive(mqtt, host, thrown(total - 1), "undone", TIMEOUT)
        return {
            "undo_ms": (undone_at - start) * 1000,
            "stall_ms": watch.finished(),
            "darts": float(total),
        }


# ------------------------------------------------------------ books


async def books_coin(workdir: Path, port: int, games: int, watch: StallWatch) -> dict[str, float]:
    workdir.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(build_journal, workdir / "journal.sqlite3", games, "books")
    async with (
        daemon(workdir, port, "books", '[credits]\nmode = "coin"\n') as (_, board),
        client(port) as mqtt,
    ):
        await mqtt.subscribe("oche/books/books", qos=1)
        await subscribed(mqtt, "books", "state")
        watch.reset("books")
        start = time.perf_counter()
        board.send(Coin(board.seq, 1, 1, "BE4C0001"))
        at, _ = await receive(
            mqtt, "oche/books/books", on(lambda b: bool(b.get("credits"))), "books", TIMEOUT
        )
        return {"books_ms": (at - start) * 1000, "stall_ms": watch.finished()}


# ------------------------------------------------------------------ report


def verdict(met: bool) -> str:
    return "met" if met else "missed"


async def run(args: argparse.Namespace) -> None:
    load = os.getloadavg()[0]
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="oche-stalls-") as temporary:
        work = Path(temporary)
        with mosquitto(work) as port:
            async with StallWatch() as watch:
                sampler = StackSampler(watch, args.sample_ms) if args.sample_ms else None
                if sampler is not None:
                    sampler.__enter__()
                await asyncio.sleep(0.2)
                watch.reset("idle")
                await asyncio.sleep(args.idle_s)
                rows.append(
                    (
                        f"idle {args.idle_s:g} s, largest stall",
                        f"{watch.finished():.1f} ms (the machine's noise)",
                    )
                )
                skill = await skill_test_finish(work / "skill", port, watch)
                spread = await checkout_spread(work / "spread", port, watch)
                undo = await remote_undo(work / "remote", port, args.darts, watch)
                books = await books_coin(work / "books", port, args.books_games, watch)
                if sampler is not None:
                    sampler.__exit__()
    finish = skill["finish_ms"]
    rows += [
        (
            "skill test: last dart -> finished state",
            f"{finish:.1f} ms ({verdict(finish <= TARGET_FINISH_MS)})",
        ),
        (
            "skill test: last dart -> its report",
            f"{skill['report_ms']:.1f} ms (solved off the loop)",
        ),
    ]
    for name, figures in (
        ("skill-test finish", skill),
        ("checkout spread + computer player", spread),
        (f"remote undo after {int(undo['darts'])} darts", undo),
        (f"books, coin with {args.books_games} games", books),
    ):
        stall = figures["stall_ms"]
        rows.append(
            (f"{name}, largest stall", f"{stall:.1f} ms ({verdict(stall <= TARGET_STALL_MS)})")
        )
    rows += [
        ("checkout spread: new_game -> bot's visit over", f"{spread['elapsed_ms']:.1f} ms"),
        ("remote undo -> host state", f"{undo['undo_ms']:.1f} ms"),
        ("books: coin -> books snapshot", f"{books['books_ms']:.1f} ms"),
        (f"goal: stalls <= {TARGET_STALL_MS:g} ms, finished state <= {TARGET_FINISH_MS:g} ms", ""),
    ]
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"load {load:.2f} before the run, watch every {WATCH_PERIOD_S * 1000:g} ms"
    )
    print_rows(rows)
    if sampler is not None:
        sampler.report()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--darts", type=int, default=600, help="darts before the remote undo")
    parser.add_argument(
        "--books-games", type=int, default=20_000, help="games in the coin board's journal"
    )
    parser.add_argument(
        "--idle-s",
        type=float,
        default=3.0,
        help="seconds of the idle watch (the noise floor; as long as a cold solve)",
    )
    parser.add_argument(
        "--sample-ms",
        type=float,
        default=0.0,
        help="note every thread's stack whenever the loop is this late (0: not sampled)",
    )
    args = parser.parse_args()
    if args.darts < 1 or args.books_games < 0:
        parser.error("--darts must be at least 1, --books-games at least 0")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
