"""Result documents made the way a board makes them, for the leaderboard tests.

A game is played through the daemon's own :class:`GameSession` (the board's
planning: a visit's unthrown darts become misses at NEXT, takeout after the
third dart or a bust) and its result is built by the daemon's own
``BoardGame.finish_record``, so the document, ``log`` included, is exactly what
``{base}/{board}/result`` carries. :data:`PLAYED_GAMES` has a short finished
game of every registered game; :func:`simulated_document` plays a whole X01 or
Cricket game with a seeded, fallible thrower (for volume)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import DB, MISS, SB, Bed, Bounce, EndVisit, PickingGame, Undo, checkout, parse_event
from engine.board_geometry import GEOMETRIES
from engine.games.cricket import CRICKET_TARGETS, MARKS_TO_CLOSE
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.bots import Bots, CpuPlayer
from firmware_bridge.daemon.config import parse_config
from firmware_bridge.daemon.game_session import GameSession, Refusal, SessionSetup
from mqtt_contract import Phase

__all__ = [
    "BOARD_ORDER",
    "PLAYED_GAMES",
    "STARTED_AT",
    "play_session",
    "result_document",
    "simulated_document",
]

STARTED_AT = 1_767_225_600.0
"""2026-01-01 00:00 UTC: when every document's game starts unless told."""

_CONFIG = """
[board]
id = "{board}"
driver = "simulated"

[mqtt]
url = "mqtt://127.0.0.1:9"

[visit]
takeout_s = 0
coalesce_ms = 0
"""


def _daemon(board: str) -> Daemon:
    """A daemon that is never run: only its result building is used (no I/O)."""
    return Daemon(parse_config(_CONFIG.format(board=board), f"{board}.toml"))


def _apply(session: GameSession, events: Sequence[Any], now: float) -> None:
    for event in events:
        session.apply(event, now)


def play_session(
    game: str,
    moves: Sequence[str],
    *,
    players: Sequence[str] = ("Ann", "Bob"),
    options: Mapping[str, Any] | None = None,
    teams: Mapping[str, Sequence[str]] | None = None,
) -> GameSession:
    """Play ``moves`` through a daemon session as a board would. In a game
    played in visits each move is one visit's darts (``"T20 T20 T20"``),
    followed by NEXT while the game is on (``BOUNCE`` after a dart presses
    the bounce-out button, ``UNDO`` takes the last dart back, as after a win
    it reopens the game); in a game played by picking each
    move is one token (a pick ``S3`` or ``NEXT``)."""
    session = GameSession(SessionSetup(game, dict(options or {}), list(players), teams))
    now = STARTED_AT
    for move in moves:
        for token in move.split():
            now += 1.0
            event = parse_event(token)
            if isinstance(event, EndVisit):
                _apply(session, session.plan_next(), now)
            elif isinstance(event, Bounce):
                _apply(session, session.plan_bounce(), now)
            elif isinstance(event, Undo):
                _apply(session, session.plan_undo(), now)
            else:
                assert isinstance(event, Bed), token
                _apply(session, session.plan_manual_dart(event), now)
        if not isinstance(session.game, PickingGame) and session.phase != Phase.FINISHED:
            now += 1.0
            _apply(session, session.plan_next(), now)
    return session


def result_document(
    game: str,
    moves: Sequence[str],
    *,
    players: Sequence[str] = ("Ann", "Bob"),
    options: Mapping[str, Any] | None = None,
    teams: Mapping[str, Sequence[str]] | None = None,
    board: str = "board1",
    started_at: float = STARTED_AT,
    finished_at: float | None = None,
    finished: bool = True,
    revision_of: Mapping[str, Any] | None = None,
    cpu: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """The ``result`` payload (parsed) of the game ``moves`` play (see
    :func:`play_session`). With ``finished`` (the default) the moves must end
    the game; ``finished=False`` builds the document of a game left unfinished,
    which the daemon never publishes (tests tamper with it). ``revision_of``
    (an earlier result of the same game, reopened by an UNDO in ``moves`` and
    finished again) makes this its next revision: the same ``game_key``, the
    revision one more, a new ``result_id``, as a board sends it. ``cpu``
    names the computer players and their level (the darts are still
    ``moves``): the daemon marks them in the result."""
    session = play_session(game, moves, players=players, options=options, teams=teams)
    if finished and not session.game.is_finished:
        raise AssertionError(f"the moves do not finish the {game} game: {moves!r}")
    daemon = _daemon(board)
    daemon.game.started_at = started_at
    if cpu:
        players_of = {
            name: CpuPlayer(level, sigma_mm=60.0 - 5 * level, average=10.0 * level)
            for name, level in cpu.items()
        }
        daemon.game.bots = Bots(game, players_of, next(iter(GEOMETRIES.values())), seed=1)
    at = finished_at if finished_at is not None else started_at + 60.0 * (1 + len(moves))
    document: dict[str, Any] = json.loads(daemon.game.finish_record(session, at).payload)
    if revision_of is not None:
        document["game_key"] = revision_of.get("game_key") or revision_of["result_id"]
        document["revision"] = int(revision_of.get("revision", 1)) + 1
    return document


# -------------------------------------------------- a played game of each kind


def _domino_moves(seed: int) -> list[str]:
    """Moves of a whole Domino Cribbage game: each player picks the first tile
    the rules take, or says Go / deals on (NEXT) when none fits."""
    session = GameSession(SessionSetup("domino-cribbage", {"seed": seed}, ["Ann", "Bob"]))
    moves: list[str] = []
    while not session.game.is_finished:
        for number in range(1, 7):
            try:
                planned = session.plan_manual_dart(Bed(number, 1))
            except Refusal:
                continue
            moves.append(Bed(number, 1).notation)
            break
        else:
            planned = session.plan_next()
            moves.append("NEXT")
        _apply(session, planned, STARTED_AT)
    return moves


PLAYED_GAMES: dict[str, Callable[[], dict[str, Any]]] = {
    "x01": lambda: result_document(
        "x01", ["T20 T20 T20", "S1 S1 S1", "T20 T19 D2"], options={"start": 301}
    ),
    "cricket": lambda: result_document(
        "cricket", ["T20 T19 T18", "M M M", "T17 T16 T15", "M M M", "DB SB"]
    ),
    "cricket-shanghai": lambda: result_document(
        "cricket-shanghai",
        [
            move
            for number in (20, 19, 18, 17, 16, 15)
            for move in (f"S{number} D{number} T{number}", "M M M")
        ]
        + ["SB SB DB"],
    ),
    "baseball": lambda: result_document("baseball", ["S1 D1 M", "S1 M M"], options={"innings": 1}),
    "killer": lambda: result_document("killer", ["S1", "S2", "D1 D2"], options={"lives": 1}),
    "shanghai": lambda: result_document("shanghai", ["S1 D1 T1"]),
    "legs": lambda: result_document("legs", ["T20 M M", "M M M"], options={"lives": 1}),
    "fifty-one-by-fives": lambda: result_document(
        "fifty-one-by-fives", ["S20 S20 S10"], options={"target": 10}
    ),
    "around-the-world": lambda: result_document(
        "around-the-world", ["T15 T18 M", "M M M", "SB"], options={"start": 15, "multi": True}
    ),
    "english-cricket": lambda: result_document(
        "english-cricket",
        ["T20 T20 T20", "DB DB DB", "M M M", "DB DB", "M M M", "DB DB DB", "M M M", "DB DB"],
    ),
    "domino-cribbage": lambda: result_document(
        "domino-cribbage", _domino_moves(7), options={"seed": 7}
    ),
    "skill-test": lambda: result_document(
        "skill-test", ["T20 T20 T20", "M M M"], options={"darts": 3}
    ),
    "count-up": lambda: result_document(
        "count-up", ["T20 SB DB", "S20 S1 M"], options={"rounds": 1}
    ),
    "cricket-count-up": lambda: result_document(
        "cricket-count-up", ["T20 D19 S18", "SB DB M"], options={"rounds": 1}
    ),
}
"""Game id -> a function building the document of a short finished game of it
(Ann wins each). Every registered game has one (tests/leaderboard checks)."""


# ------------------------------------------------------- simulated whole games


BOARD_ORDER = (20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5)
"""The numbers round the board, clockwise from the top."""


def _thrown(rng: random.Random, aim: Bed, skill: float) -> Bed:
    """Where a dart aimed at ``aim`` lands: there with chance ``skill``; else
    mostly the single of that number, sometimes a neighbour's single, now and
    then off the board. A bull that is missed lands on the outer bull or a
    random single."""
    roll = rng.random()
    if roll < skill:
        return aim
    roll = (roll - skill) / (1 - skill)
    if aim.is_bull:
        return SB if roll < 0.5 else Bed(rng.choice(BOARD_ORDER), 1)
    if roll < 0.6:
        return Bed(aim.number, 1)
    if roll < 0.95:
        at = BOARD_ORDER.index(aim.number)
        return Bed(BOARD_ORDER[(at + rng.choice((-1, 1))) % len(BOARD_ORDER)], 1)
    return MISS


def _x01_aim(remaining: int, darts_left: int, out: str) -> Bed:
    route = checkout(remaining, darts_left, out)
    if route is not None:
        return route[0]
    return Bed(20, 3) if remaining > 60 else Bed(max(1, min(20, (remaining - 2) // 2)), 1)


def _cricket_aim(marks: Mapping[str, int]) -> Bed:
    for number in reversed(CRICKET_TARGETS[:-1]):
        if marks[str(number)] < MARKS_TO_CLOSE:
            return Bed(number, 3)
    return DB


def simulated_document(
    game: str,
    seed: int,
    *,
    players: Sequence[str] = ("Ann", "Bob"),
    options: Mapping[str, Any] | None = None,
    skill: float = 0.15,
    board: str = "board1",
    started_at: float = STARTED_AT,
) -> dict[str, Any]:
    """A whole ``x01`` or ``cricket`` game thrown by seeded players who aim
    sensibly (checkout routes, the highest open number) and hit with chance
    ``skill``; its result document as the daemon builds it."""
    rng = random.Random(seed)
    session = GameSession(SessionSetup(game, dict(options or {}), list(players)))
    engine_game = session.game
    moves: list[str] = []
    while not engine_game.is_finished and len(moves) < 2_000:
        darts: list[str] = []
        for dart in range(3):
            player = engine_game.current_player
            if game == "x01":
                aim = _x01_aim(engine_game.score(player), 3 - dart, str(engine_game.options["out"]))
            else:
                aim = _cricket_aim(engine_game.state()["players"][player]["marks"])
            bed = _thrown(rng, aim, skill)
            _apply(session, session.plan_manual_dart(bed), started_at)
            darts.append(bed.notation)
            if session.phase != Phase.THROWING:
                break
        moves.append(" ".join(darts))
        if session.phase != Phase.FINISHED:
            _apply(session, session.plan_next(), started_at)
    return result_document(
        game, moves, players=players, options=options, board=board, started_at=started_at
    )
