"""One board's game as players feel it: visits, takeout, NEXT, MISS, UNDO.

A :class:`GameSession` wraps an engine game and adds the board's *phase*:
``throwing`` while darts score, ``takeout`` after a visit ends (contacts made
while pulling darts out are never scored) until NEXT or the takeout timer, and
``finished``. Everything it accepts is a journal token (a dart, ``NEXT`` or
``UNDO``); :meth:`apply` is the only way the game changes, live and when a
journal is replayed after a crash, so the phase and the state come back
exactly as they were. No I/O: the clock is passed in.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import (
    END_VISIT,
    MISS,
    UNDO,
    Bed,
    EndVisit,
    EngineError,
    Game,
    Option,
    Undo,
    game_class,
    new_game,
    parse_event,
)
from engine.game import DARTS_PER_VISIT

__all__ = ["GameSession", "Phase", "Refusal", "SessionSetup"]

NEXT_TOKEN = str(END_VISIT)


class Phase:
    """The phases a board is in (plain strings, as published)."""

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


def _event(kind: str, now: float, /, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "at": now, **fields}


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
    # Board and command input becomes journal tokens here; nothing changes yet.

    def plan_hit(self, bed: Bed, now: float) -> list[str]:
        """Tokens for a dart the board detected; a :class:`Refusal` says why it
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
        return [bed.notation]

    def plan_manual_dart(self, bed: Bed) -> list[str]:
        """Tokens for a dart entered by hand (a dead segment): no coalescing."""
        self._require_throwing("a dart")
        self._check(bed)
        return [bed.notation]

    def plan_miss(self) -> list[str]:
        """MISS: a dart that missed the board or bounced out."""
        self._require_throwing("a miss")
        if not self.game.plays_in_visits:
            raise Refusal(f"{self.game.name} has no misses: hit a number to pick, NEXT for Go")
        return [MISS.notation]

    def plan_next(self) -> list[str]:
        """NEXT: end takeout, or end the visit early (unthrown darts are misses)."""
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over: start a new game or a rematch")
        if not self.game.plays_in_visits:  # Go, or the next deal: the game says which
            self._check(END_VISIT)
            return [NEXT_TOKEN]
        if self.phase == Phase.TAKEOUT:
            return [NEXT_TOKEN]
        # The darts not thrown are misses; the player has their darts in hand
        # already, so the misses that close the visit do not announce a takeout.
        self._quiet_takeout = True
        thrown = len(self.game.visit)
        return [MISS.notation] * (DARTS_PER_VISIT - thrown) + [NEXT_TOKEN]

    def plan_undo(self) -> list[str]:
        if not self.game.can_undo():
            raise Refusal("nothing to undo: no dart has been thrown")
        return [str(UNDO)]

    def due(self, now: float) -> list[str]:
        """Tokens the takeout timer owes at ``now`` (``NEXT`` once it ran out)."""
        deadline = self.takeout_deadline
        if self.phase == Phase.TAKEOUT and deadline is not None and now >= deadline:
            return [NEXT_TOKEN]
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

    def apply(self, token: str, now: float) -> list[dict[str, Any]]:
        """Apply one journal token; returns the events it caused (MQTT ``event``
        payloads). The same tokens in the same order always give the same game
        and phase."""
        before = self.game.state()
        event = parse_event(token)
        events: list[dict[str, Any]] = []
        if isinstance(event, Undo):
            self.game.undo()
            self._visit_start_score = None  # the visit it reopens may have begun earlier
            events.append(_event("undo", now, player=self.game.current_player))
        elif isinstance(event, EndVisit):
            self.game.end_visit()
        else:
            self.game.dart(event)
        after = self.game.state()
        if self.game.plays_in_visits:
            events += self._dart_events(event, before, after, now)
        else:
            events += [_event("points", now, **line) for line in after.get("scoring", ())]
        events += self._settle(event, before, after, now)
        return events

    def _dart_events(
        self, event: object, before: dict[str, Any], after: dict[str, Any], now: float
    ) -> list[dict[str, Any]]:
        if not isinstance(event, Bed):
            return []
        player = before["current_player"]
        if not before["visit"]:
            self._visit_start_score = before["players"][player]["score"]
        number = len(before["visit"]) + 1
        dead = before["visit_over"] is not None
        events = [
            _event(
                "dart",
                now,
                player=player,
                segment=event.notation,
                points=event.points,
                dart=number,
                scored=not dead,
            )
        ]
        if after["visit_over"] == "bust" and before["visit_over"] != "bust":
            events.append(_event("bust", now, player=player))
        if number == DARTS_PER_VISIT or (after["visit"] == [] and before["visit"]):
            events.append(self._visit_end(player, before, after, now))
        return events

    def _visit_end(
        self, player: int, before: dict[str, Any], after: dict[str, Any], now: float
    ) -> dict[str, Any]:
        last = after["last_visit"] if after["visit"] == [] else None
        darts = last["darts"] if last else after["visit"]
        over = last["visit_over"] if last else after["visit_over"]
        start = self._visit_start_score
        score_after = after["players"][player]["score"]
        return _event(
            "visit_end",
            now,
            player=player,
            darts=darts,
            total=0 if over == "bust" else sum(Bed.parse(d).points for d in darts),
            score_change=None if start is None else score_after - start,
            visit_over=over,
        )

    def _settle(
        self, event: object, before: dict[str, Any], after: dict[str, Any], now: float
    ) -> list[dict[str, Any]]:
        """The phase after ``event``, and the events its change causes."""
        old = self.phase
        events: list[dict[str, Any]] = []
        if after["visit_over"] is None and before["visit"] and isinstance(event, EndVisit):
            events.append(self._visit_end(before["current_player"], before, after, now))
        if self.game.is_finished:
            self.phase = Phase.FINISHED
        elif not self.game.plays_in_visits or isinstance(event, EndVisit):
            self.phase = Phase.THROWING
        elif isinstance(event, Bed) and (after["visit"] == [] or after["visit_over"]):
            self.phase = Phase.TAKEOUT
        elif isinstance(event, Undo):
            self.phase = Phase.TAKEOUT if after["visit_over"] else Phase.THROWING
        if self.phase == Phase.TAKEOUT and old != Phase.TAKEOUT:
            self.takeout_deadline = now + self.takeout_s if self.takeout_s > 0 else None
            if not self._quiet_takeout:
                events.append(_event("takeout", now, player=before["current_player"]))
        if isinstance(event, EndVisit):
            self._quiet_takeout = False
        elif self.phase != Phase.TAKEOUT:
            self.takeout_deadline = None
        if after["current_player"] != before["current_player"] and not self.game.is_finished:
            events.append(
                _event(
                    "player_change",
                    now,
                    player=after["current_player"],
                    previous=before["current_player"],
                )
            )
        if self.game.is_finished and not before["finished"]:
            if after["winner"] is not None:
                events.append(
                    _event("winner", now, player=after["winner"], team=after["winner_team"])
                )
            events.append(_event("game_over", now, result=after["result"], winner=after["winner"]))
        return events

    # ---------------------------------------------------------------- views

    def state(self) -> dict[str, Any]:
        """The engine's state JSON plus the board phase."""
        return {**self.game.state(), "phase": self.phase}
