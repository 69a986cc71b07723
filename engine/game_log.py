"""The text game log: one visit per line, darts separated by spaces.

A line with fewer than three darts is a visit that ended early; ``#`` starts a
comment; ``UNDO`` takes back the last dart and ``NEXT`` ends a visit inside a
line. This is what ``oche replay`` reads and ``oche export`` writes, so any
result can be re-scored.

A game not played in visits (domino cribbage: a dart picks a tile) has no
visits to end: there a line's end means nothing and ``NEXT`` is written and
read as a token of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.beds import Bed
from engine.errors import EngineError, GameLogError, NotationError
from engine.events import END_VISIT, EndVisit, Event, parse_event
from engine.game import DARTS_PER_VISIT, Game

__all__ = ["LoggedEvent", "format_game_log", "parse_game_log", "replay_log"]


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
    naming the line and the token, and so does a fourth dart in a line's visit."""
    line = 0
    visit_on_line = False
    for logged in parse_game_log(text):
        event = logged.event
        if not game.plays_in_visits:
            if logged.token:  # a line's end is no event here
                _push(game, logged, logged.line)
            continue
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


def format_game_log(events: Iterable[Event], *, in_visits: bool = True) -> str:
    """The log text for an effective event list (``Game.events``): each visit on
    its own line. A visit still in progress is written as ended. Without
    visits (``in_visits=False``) every ``NEXT`` is written and ends a line."""
    lines: list[str] = []
    if not in_visits:
        tokens: list[str] = []
        for event in events:
            tokens.append(str(event))
            if isinstance(event, EndVisit):
                lines.append(" ".join(tokens))
                tokens = []
        if tokens:
            lines.append(" ".join(tokens))
        return "".join(line + "\n" for line in lines)
    visit: list[str] = []
    for event in events:
        if isinstance(event, Bed):
            visit.append(event.notation)
            if len(visit) == DARTS_PER_VISIT:
                lines.append(" ".join(visit))
                visit = []
        elif isinstance(event, EndVisit) and visit:
            lines.append(" ".join(visit))
            visit = []
    if visit:
        lines.append(" ".join(visit))
    return "".join(line + "\n" for line in lines)
