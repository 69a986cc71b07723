"""Display frame time: milliseconds per frame at 1920x1080 for each scene.

Each scene renders a realistic state (made by the engine from a game log,
plus the daemon's ``phase`` and ``board`` keys) with ``render_state`` 200
times, the animation clock advancing 1/60 s a frame as in the app. The first
frame is timed apart: it fills the caches (the dartboard, the lit beds, the
rendered strings). Run from the checkout: ``python -m benchmarks.display
[--frames N] [--size WxH]``; it needs no window (SDL's dummy video driver).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from display.app import render_state
from display.banners import draw_banners
from display.layout import Layout
from display.scenes import scene_for
from engine import new_game, parse_event
from engine.game_log import replay_log

TARGET_MS = 4.0
BOARD = {"id": "pub", "name": "Pub board", "connected": True, "status": "connected",
         "stuck_cells": []}  # fmt: skip


def _state(game_id: str, log: str, darts: tuple[str, ...] = (), phase: str = "throwing",
           players: tuple[str, ...] = ("Ann", "Bob"),
           options: dict[str, object] | None = None) -> dict[str, Any]:  # fmt: skip
    game = replay_log(new_game(game_id, players, options), log)
    for dart in darts:
        game.push(parse_event(dart))
    return {**game.state(), "phase": phase, "board": dict(BOARD)}


def _generic() -> dict[str, Any]:
    state = _state("x01", "T20 T20 T20\nS20 S5 S1\n", ("S20",))
    state["game"] = "darts-golf"
    for player in state["players"]:
        player["handicap"] = 3
    return state


SCENES: dict[str, Callable[[], tuple[dict[str, Any] | None, str]]] = {
    "idle": lambda: ({"game": None, "phase": "idle", "board": dict(BOARD)}, "online"),
    "x01 (2 players, mid-visit)": lambda: (
        _state("x01", "T20 T20 T20\nS20 S5 S1\nT20 T19 S20\nT20 T20 S20\n", ("T20",)),
        "online",
    ),
    "x01 (8 players)": lambda: (
        _state("x01", "T20 S20 S5\n" * 9, ("S20",), players=tuple("ABCDEFGH")),
        "online",
    ),
    "cricket (2 players)": lambda: (
        _state("cricket", "T20 S20 S19\nT19 S20 M\n", ("S18", "T20")),
        "online",
    ),
    "cricket-shanghai (mid-visit)": lambda: (
        _state("cricket-shanghai", "T20 S20 D20\nD18 S18 M\nD19 S19 T19\n", ("S17", "D17")),
        "online",
    ),
    "baseball (inning 4)": lambda: (
        _state("baseball", "S1 D1 T1\nS1 M M\nS2 S2 T2\nD2 M M\nT3 S3 M\nS3 M M\n", ("S4",)),
        "online",
    ),
    "killer (3 players)": lambda: (
        _state("killer", "S5\nS7\nS9\nD5 D7 M\n", ("D9",), players=("Ann", "Bob", "Cy")),
        "online",
    ),
    "shanghai (round 3)": lambda: (
        _state("shanghai", "S1 D1 M\nT1 M M\nS2 S2 D2\nT2 M M\n", ("S3", "T3")),
        "online",
    ),
    "legs (mid-visit)": lambda: (
        _state("legs", "T20 S20 S5\nT20 T20 M\nS1 S1 S1\n", ("T20",)),
        "online",
    ),
    "fifty-one by fives": lambda: (
        _state("fifty-one-by-fives", "S5 S5 S5\nS10 S10 S5\n", ("S15", "S5")),
        "online",
    ),
    "around the world": lambda: (
        _state("around-the-world", "S1 S2 S3\nS1 M M\nS4 S5 M\n", ("S2",)),
        "online",
    ),
    "english cricket": lambda: (
        _state("english-cricket", "T20 T20 S20\nSB DB M\nT20 T19 S1\n", ("SB",)),
        "online",
    ),
    "domino cribbage (the play)": lambda: (
        _state("domino-cribbage", "S1 S1 S1", options={"seed": 11, "computer": "second"}),
        "online",
    ),
    "generic (unknown game)": lambda: (_generic(), "online"),
    "x01 takeout + offline banners": lambda: (
        _state("x01", "T20 T20 T20\n", (), phase="takeout"),
        "offline",
    ),
    "x01 winner banner": lambda: (
        _state("x01", "T20 T20 T20\n" * 5 + "T20 T20 T20\nT20 T19 D12\n", phase="finished"),
        "online",
    ),
}


def frame_times(
    state: dict[str, Any] | None, availability: str, size: tuple[int, int], frames: int
) -> tuple[float, list[float]]:
    """``render_state``: (first frame ms, the next ``frames`` frames' ms).
    Each call makes a new surface, as a screenshot does."""
    start = time.perf_counter()
    render_state(state, size, availability, 0.0)
    first = (time.perf_counter() - start) * 1000
    times: list[float] = []
    for frame in range(1, frames + 1):
        start = time.perf_counter()
        render_state(state, size, availability, frame / 60)
        times.append((time.perf_counter() - start) * 1000)
    return first, times


def app_frame_times(
    state: dict[str, Any] | None, availability: str, size: tuple[int, int], frames: int
) -> list[float]:
    """The app's frame (``DisplayApp.frame`` without the feed and the flip):
    the scene's static picture, drawn once per state, blitted to the same
    window surface, then what moves (lit beds, pending boxes) and the banners."""
    scene = scene_for(state)
    surface = pygame.Surface(size)
    static = pygame.Surface(size)
    scene.draw_static(static, Layout(*size))  # once per state, as the app does
    times: list[float] = []
    for _ in range(frames):
        start = time.perf_counter()
        scene.update(1 / 60)
        layout = Layout(*size)
        surface.blit(static, (0, 0))
        scene.draw_animated(surface, layout)
        draw_banners(surface, layout, scene.state, availability, scene.clock)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--size", default="1920x1080")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    pygame.font.init()
    print(
        f"python {platform.python_version()}, pygame-ce {pygame.version.ver} "
        f"(SDL {'.'.join(map(str, pygame.get_sdl_version()))}) on {platform.machine()}, "
        f"{width}x{height}, {args.frames} frames"
    )
    print(f"{'':<32}{'render_state (new surface)':^32}{'app frame':^16}")
    print(
        f"{'scene':<32}{'first':>8}{'mean':>8}{'p95':>8}{'max':>8}{'mean':>8}{'p95':>8}  ms/frame"
    )
    worst = worst_app = 0.0
    for name, make in SCENES.items():
        state, availability = make()
        first, times = frame_times(state, availability, (width, height), args.frames)
        app = app_frame_times(state, availability, (width, height), args.frames)
        mean, app_mean = statistics.fmean(times), statistics.fmean(app)
        worst, worst_app = max(worst, mean), max(worst_app, app_mean)
        print(
            f"{name:<32}{first:>8.2f}{mean:>8.2f}{_p95(times):>8.2f}{max(times):>8.2f}"
            f"{app_mean:>8.2f}{_p95(app):>8.2f}"
        )
    for what, value in (("render_state", worst), ("app frame", worst_app)):
        verdict = "met" if value <= TARGET_MS else "NOT met"
        print(f"target <= {TARGET_MS:g} ms/frame, {what}: {verdict} (worst mean {value:.2f} ms)")


def _p95(times: list[float]) -> float:
    return sorted(times)[max(0, int(len(times) * 0.95) - 1)]


if __name__ == "__main__":
    main()
