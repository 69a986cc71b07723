"""What a match's boundaries say on the board: the events of a leg won, a
leg started and a cork (docs/matches.md, "Match play").

:class:`~firmware_bridge.daemon.game_session.GameSession` drives the engine's
:class:`~engine.match.Match` one journal event at a time; around an event that
wins a leg, starts the next (the NEXT after a won leg) or throws a cork dart,
it takes a :class:`MatchMark` before and asks :func:`leg_won` or
:func:`crossed` for the contract's events after. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Bed, EndVisit, Event, Game
from engine.match import Match
from mqtt_contract import CorkWon, DaemonEvent, Dart, LegStarted, LegWon

__all__ = ["CORK_REFUSAL", "MatchMark", "crossed", "leg_won"]

CORK_REFUSAL = "the cork is being thrown: one dart each at the bull (UNDO takes one back)"
"""Why NEXT, a bounce-out or a correction is refused during a cork."""


@dataclass(frozen=True, slots=True)
class MatchMark:
    """The match just before an event: its leg (the engine game), whether a
    cork was being thrown and by whom, whether the leg was won with the match
    going on, and the sets won."""

    leg: Game
    cork_thrower: int | None
    leg_over: bool
    sets_won: tuple[int, ...] | None

    @classmethod
    def of(cls, match: Match) -> MatchMark:
        return cls(match.leg, match.cork_thrower, match.leg_over, match.sets_won())

    def crossed(self, match: Match) -> bool:
        """Whether the event went past the leg: a new leg (or the one before,
        reopened by an undo) or a cork dart, so the leg's own play style has
        nothing to say about it."""
        return match.leg is not self.leg or self.cork_thrower is not None or match.cork is not None


def crossed(match: Match, mark: MatchMark, event: Event, now: float) -> list[DaemonEvent]:
    """The events of ``event`` going past a leg: a cork dart (and the cork's
    winner with the leg it starts), or the NEXT after a won leg that started
    the next leg (a NEXT that started a cork says nothing: the state shows it)."""
    events: list[DaemonEvent] = []
    if mark.cork_thrower is not None and isinstance(event, Bed):
        events.append(Dart(now, mark.cork_thrower, event.notation, event.points, 1, True))
        if match.cork is None and match.starter is not None:
            events.append(CorkWon(now, match.starter))
            events.append(_leg_started(match, now))
    elif mark.leg_over and isinstance(event, EndVisit) and match.starter is not None:
        events.append(_leg_started(match, now))
    return events


def _leg_started(match: Match, now: float) -> LegStarted:
    starter = match.starter
    assert starter is not None  # not during a cork
    return LegStarted(now, match.number, starter, match.set, match.deciding)


def leg_won(match: Match, mark: MatchMark, now: float) -> LegWon | None:
    """The ``leg_won`` of the leg the event just won (``match_won`` when it
    was the match's last); ``None`` for a drawn leg or a single game."""
    outcome = match.leg.outcome()
    if match.format is None or outcome is None or outcome.winner is None:
        return None
    sets = match.sets_won()
    set_won = sets is not None and sum(sets) > sum(mark.sets_won or ())
    return LegWon(
        now,
        outcome.winner,
        match.number,
        str(outcome.reason),
        match.set_legs_won(),
        outcome.team,
        match.set,
        sets,
        set_won,
        match.is_finished,
    )
