"""A match as a game log: what ``oche export`` writes of a journaled match
and ``oche replay`` reads back (docs/matches.md, docs/journal.md).

The export's header has a ``# match:`` line (the format's JSON); the body is
each leg's log (:func:`engine.game_log.format_game_log`) under a comment
naming the leg and who threw first in it, a ``NEXT`` line between legs (the
NEXT that started the next one) and a deciding leg's cork darts on a line of
their own. Replayed with the format, a line's end ends a visit only inside a
leg: between legs and during a cork only the tokens count, so

    oche export 3 | oche replay -

gives the match as it was, every leg with its first side.
"""

from __future__ import annotations

import json

from engine import Bed, EndVisit, EngineError, PickingGame
from engine.errors import GameLogError
from engine.game_log import format_game_log, parse_game_log
from engine.match import Match
from engine.match_format import MatchFormat

__all__ = ["MATCH_KEY", "format_match_log", "match_header", "replay_match_log"]

MATCH_KEY = "match"
"""The export header's key of a match's format: ``# match: {"legs": 2, ...}``."""


def match_header(text: str) -> MatchFormat | None:
    """The format an exported log's ``# match:`` header line gives, or
    ``None`` for a single game's log; a damaged line raises GameLogError."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("#"):
            return None
        key, sep, value = line[1:].strip().partition(": ")
        if sep and key == MATCH_KEY:
            try:
                found, _ = json.JSONDecoder().raw_decode(value)  # words may follow
                return MatchFormat.from_json(found)
            except (ValueError, EngineError) as error:
                raise GameLogError(number, MATCH_KEY, f"the header's match: {error}") from None
    return None


def _name(match: Match, player: int | None) -> str:
    return "a draw" if player is None else match.lineup.players[player]


def format_match_log(match: Match, *, awards: bool = False) -> str:
    """The log of ``match``'s effective events: each leg's under a comment
    line (its number, set, first player and winner), NEXT between legs, a
    cork's darts on their line; with ``awards``, each visit's awards noted."""
    corks = _cork_darts(match)
    lines: list[str] = []
    legs = list(match.legs)
    on = not match.leg.is_finished and (match.leg.events or match.number in corks)
    numbers = [record.number for record in legs] + ([match.number] if on else [])
    for index, number in enumerate(numbers):
        if index:
            lines.append(f"NEXT  # leg {number}\n")
        if number in corks:
            darts = " ".join(bed.notation for bed in corks[number])
            lines.append(f"{darts}  # the cork for leg {number}\n")
        starter: int | None
        if index < len(legs):
            record = legs[index]
            game, starter = record.game, record.starter
            end = f"won by {_name(match, record.outcome.winner)} ({record.outcome.reason})"
        else:
            game, starter, end = match.leg, match.starter, "in progress"
        where = f", set {game_set}" if (game_set := _set_of(match, index)) is not None else ""
        first = "?" if starter is None else _name(match, starter)
        lines.append(f"# leg {number}{where}: first {first}, {end}\n")
        lines.append(format_game_log(game, awards=awards))
    return "".join(lines)


def _set_of(match: Match, index: int) -> int | None:
    legs = match.legs
    return legs[index].set if index < len(legs) else match.set


def _cork_darts(match: Match) -> dict[int, list[Bed]]:
    """Each cork's darts (every round of it), by the number of the leg it started."""
    walk = Match(match.leg.id, match.lineup, match.options, None, match.format)
    corks: dict[int, list[Bed]] = {}
    for event in match.events:
        if walk.cork is not None and isinstance(event, Bed):
            corks.setdefault(walk.number, []).append(event)
        walk.push(event)
    return corks


def replay_match_log(match: Match, text: str) -> Match:
    """Apply a match's log (:func:`format_match_log`) to ``match`` and return
    it: a line's end ends a visit inside a leg (not in a game played by
    picking), never between legs or during a cork, where ``NEXT`` and the
    darts are the only events. An event the match refuses raises
    GameLogError naming the line and the token."""
    for logged in parse_game_log(text):
        event = logged.event
        line_end = not logged.token
        if line_end and (
            match.leg_over or match.cork is not None or isinstance(match.leg, PickingGame)
        ):
            continue
        if line_end and isinstance(event, EndVisit) and not match.leg.visit:
            continue
        try:
            match.push(event)
        except EngineError as error:
            raise GameLogError(logged.line, logged.token, str(error)) from None
    return match
