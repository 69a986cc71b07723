"""One board's game as players feel it: visits, takeout, NEXT, MISS, UNDO.

A :class:`GameSession` wraps an engine game and adds the board's *phase*:
``throwing`` while darts score, ``takeout`` after a visit ends (contacts made
while pulling darts out are never scored) until NEXT or the takeout timer, and
``finished``. Everything it accepts is a journal event (a dart, ``NEXT`` or
``UNDO``, journaled as its token); :meth:`apply` is the only way the game
changes, live and when a journal is replayed after a crash, so the phase and
the state come back exactly as they were. It returns typed events
(:mod:`firmware_bridge.daemon.events`) built from what the game did. No I/O:
the clock is passed in.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine import (
    END_VISIT,
    MISS,
    UNDO,
    Bed,
    EndVisit,
    EngineError,
    Event,
    Game,
    Option,
    Undo,
    VisitOver,
    game_class,
    new_game,
)
from engine.game import DARTS_PER_VISIT
from firmware_bridge.daemon.events import (
    Bust,
    DaemonEvent,
    Dart,
    GameOver,
    PlayerChange,
    Points,
    Takeout,
    Undone,
    VisitEnd,
    Winner,
)

__all__ = ["GameSession", "Phase", "Refusal", "SessionSetup"]


class Phase(StrEnum):
    """The phases a board is in (published as their plain strings)."""

    IDLE = "idle"
    THROWING = "throwing"
    TAKEOUT = "takeout"
    FINISHED = "finished"


class Refusal(ValueError):
    """Input the session will not take now (no game, visit over, nothing to undo)."""


@dataclass(frozen=True)
class SessionSetup:
    """What a game was started with; also what ``rematch`` starts again."""

    game: str
    options: Mapping[str, Any]
    players: Sequence[str]
    teams: Mapping[str, Sequence[str]] | None = None

    def shuffled(self) -> SessionSetup:
        """This setup with a fresh random value for each ``per_game`` option
        not given (domino cribbage's shuffle ``seed``): each new game and each
        rematch deals differently, and the journal, which keeps the options a
        game started with, still replays it exactly."""
        drawn = {
            option.name: _draw(option)
            for option in game_class(self.game).options_spec
            if option.per_game and option.name not in self.options
        }
        return dataclasses.replace(self, options={**self.options, **drawn}) if drawn else self


def _draw(option: Option) -> int:
    low = option.minimum or 0
    high = option.maximum if option.maximum is not None else 2**31 - 1
    return low + secrets.randbelow(high - low + 1)


def _scoring(game: Game) -> tuple[tuple[int, int, str], ...]:
    scoring: tuple[tuple[int, int, str], ...] = getattr(game, "scoring", ())
    return scoring


class GameSession:
    """A game in progress on one board, with its phase and takeout timer."""

    def __init__(self, setup: SessionSetup, coalesce_ms: int = 30, takeout_s: float = 0.0) -> None:
        self.setup = setup
        self.game: Game = new_game(setup.game, setup.players, setup.options, setup.teams)
        self.coalesce_s = coalesce_ms / 1000
        self.takeout_s = takeout_s
        self.phase = Phase.THROWING
        self.takeout_deadline: float | None = None
        self._last_hit_at: float | None = None
        self._quiet_takeout = False
        self._visit_start_score: int | None = None

    # ------------------------------------------------------------- planning
    # Board and command input becomes journal events here; nothing changes yet.

    def plan_hit(self, bed: Bed, now: float) -> list[Event]:
        """Events for a dart the board detected; a :class:`Refusal` says why it
        is not scored (takeout, finished, a bounce within ``coalesce_ms``)."""
        if self.phase == Phase.TAKEOUT:
            raise Refusal("takeout: contacts while removing darts are not scored")
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over")
        last = self._last_hit_at
        if last is not None and 0 <= now - last < self.coalesce_s:
            raise Refusal(f"a second contact within {self.coalesce_s * 1000:g} ms: one dart")
        self._check(bed)
        self._last_hit_at = now
        return [bed]

    def plan_manual_dart(self, bed: Bed) -> list[Event]:
        """Events for a dart entered by hand (a dead segment): no coalescing."""
        self._require_throwing("a dart")
        self._check(bed)
        return [bed]

    def plan_miss(self) -> list[Event]:
        """MISS: a dart that missed the board or bounced out."""
        self._require_throwing("a miss")
        if not self.game.plays_in_visits:
            raise Refusal(f"{self.game.name} has no misses: hit a number to pick, NEXT for Go")
        return [MISS]

    def plan_next(self) -> list[Event]:
        """NEXT: end takeout, or end the visit early (unthrown darts are misses)."""
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over: start a new game or a rematch")
        if not self.game.plays_in_visits:  # Go, or the next deal: the game says which
            self._check(END_VISIT)
            return [END_VISIT]
        if self.phase == Phase.TAKEOUT:
            return [END_VISIT]
        # The darts not thrown are misses; the player has their darts in hand
        # already, so the misses that close the visit do not announce a takeout.
        self._quiet_takeout = True
        thrown = len(self.game.visit)
        misses: list[Event] = [MISS] * (DARTS_PER_VISIT - thrown)
        return [*misses, END_VISIT]

    def plan_undo(self) -> list[Event]:
        if not self.game.can_undo():
            raise Refusal("nothing to undo: no dart has been thrown")
        return [UNDO]

    def due(self, now: float) -> list[Event]:
        """Events the takeout timer owes at ``now`` (``NEXT`` once it ran out)."""
        deadline = self.takeout_deadline
        if self.phase == Phase.TAKEOUT and deadline is not None and now >= deadline:
            return [END_VISIT]
        return []

    def _check(self, event: Bed | EndVisit) -> None:
        """A move the game would refuse (a domino past 31, a Go while a tile
        fits) is refused here, before it is journaled."""
        try:
            self.game.check(event)
        except EngineError as error:
            raise Refusal(str(error)) from None

    def _require_throwing(self, what: str) -> None:
        if self.phase == Phase.TAKEOUT:
            raise Refusal(f"the visit is over: press NEXT before {what}")
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over")

    # -------------------------------------------------------------- applying

    def apply(self, event: Event, now: float) -> list[DaemonEvent]:
        """Apply one journal event; returns the events it caused (MQTT ``event``
        payloads). The same events in the same order always give the same game
        and phase."""
        game = self.game
        player, thrown = game.current_player, len(game.visit)
        over, finished = game.visit_over, game.is_finished
        events: list[DaemonEvent] = []
        if isinstance(event, Undo):
            game.undo()
            self._visit_start_score = None  # the visit it reopens may have begun earlier
            events.append(Undone(now, game.current_player))
        elif isinstance(event, EndVisit):
            game.end_visit()
        else:
            if game.plays_in_visits and not thrown:
                self._visit_start_score = game.score(player)
            game.dart(event)
        if not game.plays_in_visits:
            events += [Points(now, *line) for line in _scoring(game)]
        elif isinstance(event, Bed):
            events += self._dart_events(event, player, thrown, over, now)
        events += self._settle(event, player, thrown, finished, now)
        return events

    def _dart_events(
        self, bed: Bed, player: int, thrown: int, over: VisitOver | None, now: float
    ) -> list[DaemonEvent]:
        """The dart, and the bust and visit end it caused."""
        number = thrown + 1
        events: list[DaemonEvent] = [
            Dart(now, player, bed.notation, bed.points, number, over is None)
        ]
        if self.game.visit_over == VisitOver.BUST and over != VisitOver.BUST:
            events.append(Bust(now, player))
        if number == DARTS_PER_VISIT or not self.game.visit:
            events.append(self._visit_end(player, now))
        return events

    def _visit_end(self, player: int, now: float) -> VisitEnd:
        """The visit just ended (or, once the game is over, the one still shown)."""
        game = self.game
        last = game.last_visit if not game.visit else None
        darts, over = (last[1], last[2]) if last else (game.visit, game.visit_over)
        start = self._visit_start_score
        return VisitEnd(
            now,
            player,
            tuple(bed.notation for bed in darts),
            0 if over == VisitOver.BUST else sum(bed.points for bed in darts),
            None if start is None else game.score(player) - start,
            None if over is None else str(over),
        )

    def _settle(
        self, event: Event, player: int, thrown: int, finished: bool, now: float
    ) -> list[DaemonEvent]:
        """The phase after ``event``, and the events its change causes; ``player``,
        ``thrown`` and ``finished`` are the turn, visit length and finish before it."""
        game = self.game
        old = self.phase
        events: list[DaemonEvent] = []
        if game.visit_over is None and thrown and isinstance(event, EndVisit):
            events.append(self._visit_end(player, now))
        if game.is_finished:
            self.phase = Phase.FINISHED
        elif not game.plays_in_visits or isinstance(event, EndVisit):
            self.phase = Phase.THROWING
        elif isinstance(event, Bed) and (not game.visit or game.visit_over):
            self.phase = Phase.TAKEOUT
        elif isinstance(event, Undo):
            self.phase = Phase.TAKEOUT if game.visit_over else Phase.THROWING
        if self.phase == Phase.TAKEOUT and old != Phase.TAKEOUT:
            self.takeout_deadline = now + self.takeout_s if self.takeout_s > 0 else None
            if not self._quiet_takeout:
                events.append(Takeout(now, player))
        if isinstance(event, EndVisit):
            self._quiet_takeout = False
        elif self.phase != Phase.TAKEOUT:
            self.takeout_deadline = None
        if game.current_player != player and not game.is_finished:
            events.append(PlayerChange(now, game.current_player, player))
        outcome = game.outcome()
        if outcome is not None and not finished:
            if outcome.winner is not None:
                events.append(Winner(now, outcome.winner, outcome.team))
            events.append(GameOver(now, str(outcome.reason), outcome.winner))
        return events

    # ---------------------------------------------------------------- views

    def state(self) -> dict[str, Any]:
        """The engine's state JSON plus the board phase."""
        return {**self.game.state(), "phase": self.phase.value}
