"""The text game log: one visit per line, darts separated by spaces.

A line with fewer than three darts is a visit that ended early; ``#`` starts a
comment; ``UNDO`` takes back the last dart, ``BOUNCE`` makes the last dart a
bounce-out (a miss that counts as one; written right after its dart, on its
line), ``NEXT`` ends a visit inside a line and ``CORRECT2=T19`` replaces dart 2
of the visit on the board (the last dart's) with the bed it really hit. This is what ``oche replay``
reads and ``oche export`` writes, so any result can be re-scored.

A log that ``oche export`` wrote starts with a header of comment lines; its
``game:``, ``players:``, ``teams:`` and ``options:`` lines say what was played,
so ``oche replay`` re-scores it with nothing more (:func:`parse_log_header`).

A game not played in visits (a :class:`~engine.game.PickingGame`, domino
cribbage: a dart picks a tile) has no visits to end: there a line's end means
nothing and ``NEXT`` is written and read as a token of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.beds import Bed
from engine.errors import EngineError, GameLogError, NotationError
from engine.events import END_VISIT, Bounce, EndVisit, Event, parse_event
from engine.game import DARTS_PER_VISIT, Game, PickingGame

__all__ = [
    "FIRST_KEY",
    "HEADER_MARK",
    "LogHeader",
    "LoggedEvent",
    "format_game_log",
    "header_json",
    "log_first_side",
    "parse_game_log",
    "parse_log_header",
    "replay_log",
    "settled_awards",
]

FIRST_KEY = "first"
"""The comment line's key that says which side threw first: ``# first: 1``."""

HEADER_MARK = "Oche journal game "
"""What the first line of an exported log says after its ``# ``; only such a
log has a header."""


@dataclass(frozen=True, slots=True)
class LogHeader:
    """What an exported log's header says was played: the game id, the players
    in throwing order, the teams (or None), every option's value and the side
    that threw first."""

    game: str
    players: list[str]
    teams: dict[str, list[str]] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    first_side: int = 0
    """The side that threw first (a match's leg started by another side):
    the header's ``# first: 1`` line; 0 without one."""


def header_json(value: object) -> str:
    """``value`` as JSON with every character printable (a name's control or
    invisible character is written as its ``\\u`` escape), so a header line
    shows it and :func:`parse_log_header` reads it back exactly."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(char if char.isprintable() else json.dumps(char)[1:-1] for char in text)


def _header_value(number: int, key: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise GameLogError(number, key, f"the header's {key} are not JSON: {error.msg}") from None


def _names(number: int, key: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise GameLogError(number, key, f"the header's {key} are not a list of names")
    return value


def parse_log_header(text: str) -> LogHeader | None:
    """The header of a log ``oche export`` wrote, or None for a log without one.
    A header that lacks the game or the players, or whose values are not what
    export writes, raises :class:`GameLogError` naming its line."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith(f"# {HEADER_MARK}"):
        return None
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(": ")
        if sep and key in ("game", "players", "teams", "options", FIRST_KEY) and key not in found:
            found[key] = (number, value.strip())
    for key in ("game", "players"):
        if key not in found:
            raise GameLogError(1, "", f"the export header has no '# {key}:' line")
    game = found["game"][1].split(" ", 1)[0]
    number, value = found["players"]
    players = _names(number, "players", _header_value(number, "players", value))
    teams: dict[str, list[str]] | None = None
    if "teams" in found:
        number, value = found["teams"]
        raw = _header_value(number, "teams", value)
        if raw is not None:
            if not isinstance(raw, dict):
                raise GameLogError(number, "teams", "the header's teams are not a JSON object")
            teams = {name: _names(number, "teams", members) for name, members in raw.items()}
    options: dict[str, Any] = {}
    if "options" in found:
        number, value = found["options"]
        raw = _header_value(number, "options", value)
        if not isinstance(raw, dict):
            raise GameLogError(number, "options", "the header's options are not a JSON object")
        options = raw
    first_side = 0
    if FIRST_KEY in found:
        first_side = _first_side(*found[FIRST_KEY])
    return LogHeader(game, players, teams, options, first_side)


def _first_side(number: int, value: str) -> int:
    """A ``# first: N`` line's side, or a :class:`GameLogError` naming it."""
    if not value.isascii() or not value.isdigit():
        raise GameLogError(
            number,
            FIRST_KEY,
            f"the side that threw first is a side's index (0, 1, ...), not {value!r}",
        )
    return int(value)


def log_first_side(text: str) -> int | None:
    """The side that threw first by a log's leading comment lines (the
    ``# first: 1`` line :func:`format_game_log` writes for a leg another side
    started, or an export header's), None when they do not say (side 0 then,
    unless the game was built otherwise)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(": ")
        if sep and key == FIRST_KEY:
            return _first_side(number, value.split("#", 1)[0].strip())
    return None


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """An event read from a log, with where it came from (for error messages).
    A line's end is an :data:`END_VISIT` with an empty ``token``."""

    line: int
    token: str
    event: Event


def parse_game_log(text: str) -> Iterator[LoggedEvent]:
    """The events of a log in order; a bad token raises :class:`GameLogError`."""
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        for token in tokens:
            try:
                event = parse_event(token)
            except NotationError as error:
                raise GameLogError(number, token, error.reason) from None
            yield LoggedEvent(number, token, event)
        yield LoggedEvent(number, "", END_VISIT)


def replay_log(game: Game, text: str) -> Game:
    """Apply a log to ``game`` and return it. An event the game refuses (a dart
    after the game ended, undo with nothing thrown) raises :class:`GameLogError`
    naming the line and the token, and so does a fourth dart in a line's visit,
    and a log whose ``# first:`` line names another side than the game's
    :attr:`~engine.game.Game.first_side` (build the game with that side)."""
    first = log_first_side(text)
    if first is not None and first != game.first_side:
        raise GameLogError(
            1,
            f"# {FIRST_KEY}: {first}",
            f"the log was started by side {first}, the game by side {game.first_side}: "
            f"build the game with first_side={first}",
        )
    if isinstance(game, PickingGame):
        for logged in parse_game_log(text):
            if logged.token:  # a line's end is no event here
                _push(game, logged, logged.line)
        return game
    line = 0
    visit_on_line = False
    for logged in parse_game_log(text):
        event = logged.event
        if logged.line != line:
            line, visit_on_line = logged.line, False
        if isinstance(event, Bed) and visit_on_line and not game.visit:
            raise GameLogError(
                line, logged.token, "a visit has at most three darts: start a new line or use NEXT"
            )
        _push(game, logged, line)
        if isinstance(event, Bed):
            visit_on_line = True
        elif isinstance(event, EndVisit):
            visit_on_line = False
    return game


def _push(game: Game, logged: LoggedEvent, line: int) -> None:
    try:
        game.push(logged.event)
    except EngineError as error:
        raise GameLogError(line, logged.token, str(error)) from None


def format_game_log(game: Game, *, first: bool | None = None, awards: bool = False) -> str:
    """The log text of ``game``'s effective events (:attr:`Game.events`): each
    visit on its own line, a visit still in progress written as ended. A
    :class:`PickingGame` has no visits: every ``NEXT`` is written and ends a
    line. A corrected dart is written as corrected, with a comment saying what
    the board read (``T20 T19 S5  # dart 2 read as S19``); with ``awards``
    (``oche export``, ``oche replay --awards``) each visit's awards too
    (``T20 T20 T20  # award: ton-80``, docs/awards.md). A game another
    side than side 0 started (a match's leg) begins with a ``# first: 1``
    line; ``first`` True writes that line even for side 0, False never.
    :func:`replay_log` reads either back into the same game."""
    written = game.first_side != 0 if first is None else first
    head = f"# {FIRST_KEY}: {game.first_side}\n" if written else ""
    if isinstance(game, PickingGame):
        return head + _format_moves(game.events)
    settled = settled_awards(game) if awards else {}
    return head + _format_visits(game.events, game.corrections, settled)


def settled_awards(game: Game) -> dict[int, tuple[str, ...]]:
    """The awards each visit of ``game`` earned, by the index in
    :attr:`Game.events` of the event that settled it (closed it, ended the
    game on it, or bounced its third dart out and so settled it again):
    found by replaying a fresh copy of the game event by event. A visit
    still open has the awards it would have ended now, as the log writes it
    ended (so the log reads back to the same text)."""
    fresh = type(game)(game.lineup, game.options, first_side=game.first_side)
    settled: dict[int, tuple[str, ...]] = {}
    for index, event in enumerate(game.events):
        fresh.push(event)
        awarded = fresh.awarded
        if awarded is not None:
            settled[index] = tuple(str(award) for award in awarded.awards)
    if fresh.visit and not fresh.is_finished:
        fresh.end_visit()
        awarded = fresh.awarded
        if awarded is not None:
            settled[len(game.events) - 1] = tuple(str(award) for award in awarded.awards)
    return settled


def _format_moves(events: Iterable[Event]) -> str:
    lines: list[str] = []
    tokens: list[str] = []
    for event in events:
        tokens.append(str(event))
        if isinstance(event, EndVisit):
            lines.append(" ".join(tokens))
            tokens = []
    if tokens:
        lines.append(" ".join(tokens))
    return "".join(line + "\n" for line in lines)


@dataclass
class _LoggedVisit:
    """A visit's line being written: its tokens, its correction notes, its awards."""

    tokens: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    awards: tuple[str, ...] = ()


def _format_visits(
    events: Iterable[Event],
    corrections: Mapping[int, Bed],
    settled: Mapping[int, tuple[str, ...]],
) -> str:
    lines: list[_LoggedVisit] = []
    visit = _LoggedVisit()
    darts = 0
    for index, event in enumerate(events):
        if isinstance(event, Bed):
            visit.tokens.append(event.notation)
            visit.awards = settled.get(index, visit.awards)
            darts += 1
            if index in corrections:
                visit.notes.append(f"dart {darts} read as {corrections[index].notation}")
            if darts == DARTS_PER_VISIT:
                lines.append(visit)
                visit, darts = _LoggedVisit(), 0
        elif isinstance(event, EndVisit) and visit.tokens:
            visit.awards = settled.get(index, visit.awards)
            lines.append(visit)
            visit, darts = _LoggedVisit(), 0
        elif isinstance(event, Bounce):
            # Right after its dart, on that dart's line (a third dart ended it).
            line = visit if visit.tokens or not lines else lines[-1]
            line.tokens.append(str(event))
            line.awards = settled.get(index, line.awards)
    if visit.tokens:
        lines.append(visit)
    return "".join(_log_line(line) for line in lines)


def _log_line(visit: _LoggedVisit) -> str:
    """One visit's line: its tokens, then what was corrected and the awards
    it earned as a comment (``award: ton-80``)."""
    notes = list(visit.notes)
    if visit.awards:
        label = "award" if len(visit.awards) == 1 else "awards"
        notes.append(f"{label}: {', '.join(visit.awards)}")
    comment = f"  # {'; '.join(notes)}" if notes else ""
    return " ".join(visit.tokens) + comment + "\n"
