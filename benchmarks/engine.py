"""Engine throughput: darts per second for each game on a fixed random stream.

A fixed-seed stream of 100,000 darts is thrown at each game; when a game ends
a new one starts, as on a board playing all night. The game's state is kept
current after every dart (scores, marks, statistics); a second column also
builds the full state JSON after every dart, as the daemon does to publish it.
Run from the checkout: ``make bench`` or ``python -m benchmarks.engine [--darts N]``
(as a module, so this file's name does not hide the ``engine`` package).
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from engine import ALL_BEDS, Bed, game_ids, new_game

SEED = 2026
PLAYERS = ("Ann", "Bob")


def dart_stream(count: int) -> list[Bed]:
    """The same ``count`` darts on every run: uniform over the 63 beds."""
    rng = random.Random(SEED)
    return [rng.choice(ALL_BEDS) for _ in range(count)]


def darts_per_second(game_id: str, darts: list[Bed], with_json: bool) -> tuple[float, int]:
    """Throw every dart, starting a new game whenever one ends; (darts/s, games).
    With ``with_json`` the state JSON is also built after every dart, as the
    daemon does before publishing it."""
    game = new_game(game_id, PLAYERS)
    games = 1
    start = time.perf_counter()
    for bed in darts:
        if not game.accepts_darts():
            game = new_game(game_id, PLAYERS)
            games += 1
        game.dart(bed)
        if with_json:
            game.state()
    elapsed = time.perf_counter() - start
    return len(darts) / elapsed, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--darts", type=int, default=100_000)
    args = parser.parse_args()
    darts = dart_stream(args.darts)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.darts} darts")
    print(f"{'game':<18}{'darts/s':>12}{'+ state JSON':>14}{'games':>8}")
    for game_id in game_ids():
        rate, games = darts_per_second(game_id, darts, with_json=False)
        with_json, _ = darts_per_second(game_id, darts, with_json=True)
        print(f"{game_id:<18}{rate:>12,.0f}{with_json:>14,.0f}{games:>8}")


if __name__ == "__main__":
    main()
