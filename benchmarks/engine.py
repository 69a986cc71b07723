"""Engine throughput: darts per second for each game on a fixed random stream.

A fixed-seed stream of 100,000 darts is thrown at each game; when a game ends
a new one starts, as on a board playing all night. A dart the game does not
take (domino cribbage takes only the number of a tile it can lay) is replaced
by the first move it does take, so every game is thrown what it accepts. The
moves are worked out before the clock starts; the timed loop applies them. The
game's state is kept current after every move (scores, marks, statistics); a
second column also builds the full state JSON after every move, as the daemon
does to publish it.
Run from the checkout: ``make bench`` or ``python -m benchmarks.engine [--darts N]``
(as a module, so this file's name does not hide the ``engine`` package).
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from engine import (
    ALL_BEDS,
    END_VISIT,
    Bed,
    EngineError,
    Event,
    Game,
    game_class,
    game_ids,
    new_game,
)

__all__ = ["GAME_OPTIONS", "dart_stream", "darts_per_second", "game_moves", "main"]

SEED = 2026
PLAYERS = ("Ann", "Bob")
FALLBACKS: tuple[Event, ...] = (*(Bed(number, 1) for number in range(1, 21)), END_VISIT)
"""What is thrown instead of a dart the game refuses, in this order: single 1
to 20 (domino cribbage picks the first tile that fits), then NEXT (its Go)."""

GAME_OPTIONS: dict[str, dict[str, object]] = {"skill-test": {"darts": 999}}
"""Options a game is benchmarked with. A skill test's state works out each
player's estimate once their darts are all thrown (the throw model, a quarter
of a second or so); at the default 30 darts the stream would time thousands of
estimates rather than the engine, so it is played at the longest test."""

Moves = list[tuple[dict[str, object], list[Event]]]
"""Games in the order played: each game's options and the moves applied to it."""


def dart_stream(count: int) -> list[Bed]:
    """The same ``count`` darts on every run: uniform over the 63 beds."""
    rng = random.Random(SEED)
    return [rng.choice(ALL_BEDS) for _ in range(count)]


def _start(game_id: str, number: int) -> tuple[Game, dict[str, object]]:
    """Game ``number`` of the stream; a per-game option (a shuffle seed) is the
    game's number, so every run deals the same."""
    options: dict[str, object] = {
        **GAME_OPTIONS.get(game_id, {}),
        **{
            option.name: number % ((option.maximum or number) + 1)
            for option in game_class(game_id).options_spec
            if option.per_game
        },
    }
    return new_game(game_id, PLAYERS, options), options


def _accepted(game: Game, wanted: Event) -> Event:
    """``wanted`` if the game takes it now, else the first fallback it takes."""
    for event in (wanted, *FALLBACKS):
        try:
            game.check(event)
        except EngineError:
            continue
        return event
    raise RuntimeError(f"{game.id} takes no dart and no NEXT: {game.state()}")


def game_moves(game_id: str, darts: list[Bed]) -> Moves:
    """The stream as ``game_id`` takes it: one move per dart (the dart, or what
    replaces a dart it refuses), a new game whenever one ends."""
    game, options = _start(game_id, 0)
    played: Moves = [(options, [])]
    for bed in darts:
        if not game.accepts_darts():
            game, options = _start(game_id, len(played))
            played.append((options, []))
        event = _accepted(game, bed)
        game.push(event)
        played[-1][1].append(event)
    return played


def darts_per_second(game_id: str, moves: Moves, with_json: bool) -> tuple[float, int]:
    """Apply every move, starting each game afresh; (moves/s, games). With
    ``with_json`` the state JSON is also built after every move, as the daemon
    does before publishing it."""
    count = sum(len(events) for _, events in moves)
    start = time.perf_counter()
    for options, events in moves:
        game = new_game(game_id, PLAYERS, options)
        for event in events:
            game.push(event)
            if with_json:
                game.state()
    elapsed = time.perf_counter() - start
    return count / elapsed, len(moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--darts", type=int, default=100_000)
    args = parser.parse_args()
    darts = dart_stream(args.darts)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.darts} darts")
    print(f"{'game':<20}{'darts/s':>12}{'+ state JSON':>14}{'games':>8}")
    for game_id in game_ids():
        moves = game_moves(game_id, darts)
        rate, games = darts_per_second(game_id, moves, with_json=False)
        with_json, _ = darts_per_second(game_id, moves, with_json=True)
        print(f"{game_id:<20}{rate:>12,.0f}{with_json:>14,.0f}{games:>8}")


if __name__ == "__main__":
    main()
