"""The game base class: turns, visits, undo, statistics and the state JSON.

A game is a deterministic function of its event log. This class runs the part
every game shares (whose turn it is, three-dart visits, dead darts, rounds,
eliminations, undo, bounce-outs and corrections by replay) and calls named
hooks that each game overrides to score (``_setup``, ``_on_dart``,
``_on_visit_end``, ``_next_side``, ``_on_round_limit``, ``_side_state``,
``_player_stats``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from engine.beds import MISS, Bed
from engine.errors import (
    CorrectionError,
    GameOverError,
    LineupError,
    NothingToBounceError,
    NothingToUndoError,
)
from engine.events import BOUNCE, END_VISIT, Bounce, Correct, EndVisit, Event, Undo
from engine.lineup import MAX_PLAYERS, Lineup
from engine.options import Option, OptionValue, resolve_options
from engine.traits import Average, Family, Highlight

__all__ = ["DARTS_PER_VISIT", "Game", "Outcome", "PickingGame", "Reason", "VisitOver"]

DARTS_PER_VISIT = 3

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


class Reason(StrEnum):
    """Why a game ended: ``Outcome.reason``, published as the state's ``result``."""

    CHECKOUT = "checkout"
    CLOSED_ALL = "closed-all"
    ROUND_LIMIT = "round-limit"
    EXTRA_INNINGS = "extra-innings"
    LAST_STANDING = "last-standing"
    ALL_OUT = "all-out"
    SHANGHAI = "shanghai"
    TARGET = "target"
    BULL = "bull"
    RUNS = "runs"
    DARTS_THROWN = "darts-thrown"
    PRACTICE_COMPLETE = "practice-complete"
    """A practice with one player is over: there was no one to beat (no winner)."""


class VisitOver(StrEnum):
    """Why the visit in progress stopped scoring: the state's ``visit_over``."""

    BUST = "bust"
    WIN = "win"
    ELIMINATION = "elimination"
    GAME_OVER = "game-over"
    NUMBER_CHOSEN = "number chosen"
    INNINGS_OVER = "innings over"
    DARTS_THROWN = "darts thrown"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended. ``winner`` is a player index (a team's first player in
    team games) and ``team`` the winning team's index; both ``None`` for a draw.
    ``reason`` says why, e.g. ``checkout``, ``closed-all``, ``round-limit``."""

    winner: int | None
    team: int | None
    reason: Reason

    @property
    def is_draw(self) -> bool:
        return self.winner is None


class Game:
    """One game in progress. Subclasses set ``id``, ``name``, ``options_spec``
    and ``highlight`` (and what else of :mod:`engine.traits` they have) and
    override the hooks; callers use :meth:`push` (or :meth:`dart`,
    :meth:`end_visit`, :meth:`undo`, :meth:`bounce`), :meth:`outcome` and
    :meth:`state`."""

    id: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    options_spec: ClassVar[tuple[Option, ...]] = ()
    sides_range: ClassVar[tuple[int, int]] = (1, MAX_PLAYERS)
    """How many sides (players, or teams in a team game) the game takes."""
    teams_allowed: ClassVar[bool] = True
    """Whether the game can be played in teams."""
    state_schema: ClassVar[dict[str, Any]] = {}
    """What the game adds to the state JSON, as a JSON Schema the state also
    matches (``{}``: nothing of its own). It may refer to ``#/$defs/NAME`` for
    a name in :attr:`schema_defs`; :mod:`engine.state_schema` gathers them."""
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {}
    """The definitions :attr:`state_schema` refers to."""
    highlight: ClassVar[Highlight]
    """The game's own highlight on the leaderboard (every game has one)."""
    average: ClassVar[Average | None] = None
    """The game's average (the card's chart, the attract screen); None: the
    highlight stands in for it."""
    family: ClassVar[Family] = Family.PLAIN
    """The kind of figures the leaderboard counts the game's players by."""
    round_limit_option: ClassVar[str | None] = None
    """The option that ends the game after so many rounds, which a paid game's
    ``[credits] rounds`` may set; None: the game has no such limit."""
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {}
    """The statistics that are ratios: key -> (numerator, denominator,
    factor), recomputed from the summed parts over a match's legs."""
    stat_bests: ClassVar[frozenset[str]] = frozenset()
    """The statistics that are a best (the highest over a match's legs)."""
    stat_latest: ClassVar[frozenset[str]] = frozenset()
    """The statistics that are a measure at the end of a leg (a skill
    estimate): a match's is its last leg's that has one."""
    calls_visit_points: ClassVar[bool] = False
    """Whether the caller says each visit's points ("one hundred and forty"),
    as in the 01 games."""

    def __init__(
        self,
        players: Sequence[str] | Lineup,
        options: Mapping[str, object] | None = None,
        teams: Mapping[str, Sequence[str | int]] | None = None,
        *,
        first_side: int = 0,
    ) -> None:
        self.lineup = players if isinstance(players, Lineup) else Lineup.build(players, teams)
        self._check_lineup()
        count = len(self.lineup.sides)
        if isinstance(first_side, bool) or not isinstance(first_side, int):
            raise LineupError(f"the first side is a side's index, not {first_side!r}")
        if not 0 <= first_side < count:
            raise LineupError(
                f"no side {first_side!r} to throw first: the sides are 0 to {count - 1}"
            )
        self._first_side = first_side
        self.options: dict[str, OptionValue] = resolve_options(self.options_spec, options, self.id)
        self._sides = self.lineup.sides
        self._side_of = [0] * len(self.lineup.players)
        for side, members in enumerate(self._sides):
            for player in members:
                self._side_of[player] = side
        # The play so far; :meth:`_reset` puts it back to this.
        sides, players_count = len(self._sides), len(self.lineup.players)
        self._events: list[Event] = []
        self._side = first_side
        self._player = self._sides[first_side][0]
        self._side_visits = [0] * sides
        self._out = [False] * sides
        self._round = 1
        self._visit: list[Bed] = []
        self._visit_live = True
        self._visit_over: VisitOver | None = None
        self._visit_closed = False
        self._last_visit: tuple[int, list[Bed], VisitOver | None] | None = None
        self._outcome: Outcome | None = None
        self._darts = [0] * players_count
        self._visits = [0] * players_count
        self._bounce_outs = [0] * players_count
        self._last_dart: tuple[int, Bed] | None = None
        self._corrections: dict[int, Bed] = {}
        self._setup()

    @classmethod
    def lineup_rule(cls) -> str:
        """The lineups the game takes, in words ("exactly two players or two teams")."""
        low, high = cls.sides_range
        if low == high:
            count = _NUMBER_WORDS.get(low, str(low))
            wanted = f"exactly {count} player" + ("" if low == 1 else "s")
            if cls.teams_allowed and low >= 2:
                wanted += f" or {count} teams"
            return wanted
        return f"{low} to {high} players" + (" or teams" if cls.teams_allowed else "")

    @classmethod
    def takes_lineup(cls, players: int, teams: int = 0) -> bool:
        """Whether ``players`` players (in ``teams`` teams, 0: no teams) can play."""
        if teams and not cls.teams_allowed:
            return False
        low, high = cls.sides_range
        return 1 <= players <= MAX_PLAYERS and low <= (teams or players) <= high

    @classmethod
    def leg_options(cls, options: Mapping[str, Any], leg: int) -> dict[str, Any]:
        """The options leg ``leg`` (from 1) of a match plays with: the match's
        own by default; a game whose options deal or draw (a seed) gives each
        leg its own, so a match does not deal every leg the same."""
        return dict(options)

    @classmethod
    def combine_stats(cls, per_leg: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """A player's statistics over a match's legs from each leg's
        (:meth:`leg_stats`): counters (integers) summed, a best of
        :attr:`stat_bests` the highest, one of :attr:`stat_latest` the last
        leg's, a ratio of :attr:`stat_ratios`
        recomputed from its summed parts, any other number the legs' mean
        weighted by their darts, anything else the last leg's."""
        combined: dict[str, Any] = {}
        weighted: dict[str, tuple[float, float]] = {}
        for stats in per_leg:
            darts = stats.get("darts", 0)
            weight = float(darts) if isinstance(darts, int) and darts > 0 else 0.0
            for key, value in stats.items():
                if key in cls.stat_latest:
                    combined[key] = copy.deepcopy(value)
                elif key in cls.stat_bests:
                    best = combined.get(key)
                    combined[key] = value if best is None or (value or 0) > best else best
                elif isinstance(value, bool) or not isinstance(value, int | float):
                    combined[key] = copy.deepcopy(value)
                elif isinstance(value, int) and key not in weighted:
                    combined[key] = combined.get(key, 0) + value
                else:
                    total, weights = weighted.get(key, (0.0, 0.0))
                    if isinstance(combined.get(key), int) and key not in weighted:
                        total = float(combined[key])  # an int in an earlier leg: a mean now
                    weighted[key] = (total + value * weight, weights + weight)
        for key, (total, weights) in weighted.items():
            combined[key] = round(total / weights, 2) if weights else 0.0
        for key, (numerator, denominator, factor) in cls.stat_ratios.items():
            if numerator in combined and denominator in combined:
                parts = combined.get(numerator, 0), combined.get(denominator, 0)
                combined[key] = round(factor * parts[0] / parts[1], 2) if parts[1] else 0.0
        return combined

    def leg_stats(self, player: int) -> dict[str, Any]:
        """``player``'s statistics in this game as a match combines them: the
        state's ``stats`` plus the counters of :meth:`_match_counters` its
        match figures are made of (:meth:`combine_stats`)."""
        return {**self._stats_of(player), **self._match_counters(player)}

    def _check_lineup(self) -> None:
        lineup = self.lineup
        teams = len(lineup.teams)
        if self.takes_lineup(len(lineup.players), teams):
            return
        if teams and not self.teams_allowed:
            raise LineupError(f"{self.name} is played without teams, got {teams} teams")
        count = teams or len(lineup.players)
        noun = "team" if teams else "player"
        got = f"{count} {noun}" + ("" if count == 1 else "s")
        raise LineupError(f"{self.name} is for {self.lineup_rule()}, got {got}")

    # ----------------------------------------------------------------- hooks

    def _setup(self) -> None:
        """Create the game's own per-side and per-player state (called on reset)."""

    def _on_dart(self, bed: Bed) -> None:
        """Score one live dart of the current side's visit."""

    def _on_visit_end(self) -> None:
        """Called when the current visit ends and the game is still on."""

    def _next_side(self, current: int) -> int:
        """The side that throws after ``current``'s visit: by default the next
        side still in. Returning a side at or before ``current`` in the round's
        order (from :attr:`first_side`) starts a round."""
        count = len(self._sides)
        nxt = current
        while True:
            nxt = (nxt + 1) % count
            if not self._out[nxt]:
                return nxt

    def _round_limit(self) -> int:
        """The number of rounds after which the game ends (0: no limit)."""
        limit = self.options.get("rounds", 0)
        return limit if isinstance(limit, int) and not isinstance(limit, bool) else 0

    def _on_round_limit(self) -> None:
        """Decide the game when the round limit runs out (must call :meth:`_finish`)."""
        self._finish(None, Reason.ROUND_LIMIT)

    def _side_state(self, side: int) -> dict[str, Any]:
        """The game's keys for a side (at least ``score``), shown for each member."""
        return {"score": 0}

    def _player_stats(self, player: int) -> dict[str, Any]:
        """The game's own statistics for one player, beside darts and visits."""
        return {}

    def _match_counters(self, player: int) -> dict[str, Any]:
        """Counters of ``player``'s the state does not show but a match's
        statistics are made of (X01's first nine darts, checkout darts)."""
        return {}

    def _stats_of(self, player: int) -> dict[str, Any]:
        """The state's ``stats`` of ``player``."""
        return {
            "darts": self._darts[player],
            "visits": self._visits[player],
            "bounce_outs": self._bounce_outs[player],
            **self._player_stats(player),
        }

    # -------------------------------------------------- helpers for the hooks

    def _end_visit_early(self, reason: VisitOver) -> None:
        """The visit is over (bust, elimination): later darts in it are dead."""
        self._visit_live = False
        self._visit_over = reason

    def _finish(self, side: int | None, reason: Reason) -> None:
        """End the game: ``side`` wins, or ``None`` for a draw."""
        if side is None:
            self._outcome = Outcome(None, None, reason)
        else:
            team = side if self.lineup.teams else None
            self._outcome = Outcome(self._sides[side][0], team, reason)
        self._visit_live = False
        if self._visit_over is None:
            self._visit_over = VisitOver.WIN if side == self._side else VisitOver.GAME_OVER

    def _eliminate(self, side: int) -> None:
        """Put a side out of the game; the last side left wins at once."""
        self._out[side] = True
        if side == self._side:
            self._end_visit_early(VisitOver.ELIMINATION)
        left = [s for s in range(len(self._sides)) if not self._out[s]]
        if len(left) == 1:
            self._finish(left[0], Reason.LAST_STANDING)
        elif not left:
            self._finish(None, Reason.ALL_OUT)

    # ------------------------------------------------------------ public API

    @property
    def events(self) -> tuple[Event, ...]:
        """The effective event log: undone darts removed, no-op visit ends dropped."""
        return tuple(self._events)

    @property
    def corrections(self) -> dict[int, Bed]:
        """The corrected darts of :attr:`events`: each one's index there and
        the bed the board first read it as (the audit a log's comment shows)."""
        return dict(self._corrections)

    @property
    def current_player(self) -> int:
        """Index of the player who throws the next dart."""
        return self._player

    @property
    def first_side(self) -> int:
        """The side that threw first: each round starts with it (a match's
        leg may be started by any side)."""
        return self._first_side

    def _round_position(self, side: int) -> int:
        """Where ``side`` throws in a round: 0 for :attr:`first_side`, then on."""
        return (side - self._first_side) % len(self._sides)

    @property
    def current_side(self) -> int:
        return self._side

    @property
    def round(self) -> int:
        return self._round

    @property
    def visit(self) -> tuple[Bed, ...]:
        """The darts of the visit in progress (or of the last visit, once finished)."""
        return tuple(self._visit)

    @property
    def visit_over(self) -> VisitOver | None:
        """Why the visit in progress stopped scoring (the state's ``visit_over``)."""
        return self._visit_over

    @property
    def last_visit(self) -> tuple[int, tuple[Bed, ...], VisitOver | None] | None:
        """The last visit that passed the turn: its player, darts and ``visit_over``."""
        if self._last_visit is None:
            return None
        player, darts, over = self._last_visit
        return player, tuple(darts), over

    def score(self, player: int) -> int:
        """The score the state shows for ``player`` (their side's)."""
        score: int = self._side_state(self._side_of[player])["score"]
        return score

    @property
    def is_finished(self) -> bool:
        return self._outcome is not None

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it is on."""
        return self._outcome

    def accepts_darts(self) -> bool:
        """False once the game is over and its final visit is closed."""
        return not (self._outcome is not None and self._visit_closed)

    def can_undo(self) -> bool:
        """True when a dart has been thrown, so :meth:`undo` has something to take back."""
        return any(isinstance(event, Bed) for event in reversed(self._events))

    def undo_thrower(self) -> int | None:
        """The player whose move :meth:`undo` would take back (after it, they
        are up again); ``None`` when there is nothing to undo. Known without
        undoing: the thrower of the last dart is kept as it is thrown."""
        if not self.can_undo():
            return None
        assert self._last_dart is not None  # a dart was thrown: it is the last one
        return self._last_dart[0]

    def bounceable(self) -> tuple[int, Bed] | None:
        """The player and the dart a :meth:`bounce` would take back: the last
        dart thrown, unless a NEXT that ended its visit early or a bounce came
        after it (the engine passes the turn at a visit's third dart, so a
        board in takeout still bounces that dart). ``None`` when there is none."""
        if self._events and isinstance(self._events[-1], Bed):
            return self._last_dart
        return None

    def check(self, event: Event) -> None:
        """Raise the :class:`~engine.errors.EngineError` that pushing ``event``
        would raise, changing nothing; return quietly when it would be taken."""
        if isinstance(event, Bed) and self._visit_closed:
            raise GameOverError("the game is over: no more darts")
        if isinstance(event, Undo) and not self.can_undo():
            raise NothingToUndoError("nothing to undo: no dart has been thrown")
        if isinstance(event, Bounce) and self.bounceable() is None:
            raise NothingToBounceError(self._no_bounce_reason())
        if isinstance(event, Correct):
            self._correctable(event.dart)

    def _no_bounce_reason(self) -> str:
        """Why no dart can bounce out now, in words."""
        last = self._events[-1] if self._events else None
        if last is None:
            return "no dart to take back as a bounce-out: no dart has been thrown"
        if isinstance(last, Bounce):
            return "the last dart is a bounce-out already: only the last dart can bounce out"
        return "no dart to take back as a bounce-out: the visit has ended"

    def push(self, event: Event) -> None:
        """Apply one event of any kind."""
        if isinstance(event, Bed):
            self.dart(event)
        elif isinstance(event, EndVisit):
            self.end_visit()
        elif isinstance(event, Undo):
            self.undo()
        elif isinstance(event, Bounce):
            self.bounce()
        elif isinstance(event, Correct):
            self.correct(event.dart, event.bed)
        else:
            raise TypeError(f"not a game event: {event!r}")

    def push_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.push(event)

    def dart(self, bed: Bed) -> None:
        """A dart landed. Live darts score; darts after the visit is over are dead."""
        if self._visit_closed:
            raise GameOverError("the game is over: no more darts")
        self._events.append(bed)
        visit = self._visit
        player = self._player
        if not visit:
            self._visits[player] += 1
        visit.append(bed)
        self._last_dart = (player, bed)
        if self._visit_live:
            self._darts[player] += 1
            self._on_dart(bed)
        if len(visit) == DARTS_PER_VISIT:
            self._close_visit()

    def end_visit(self) -> None:
        """End the visit in progress early. A no-op when no dart of it was thrown."""
        if self._visit_closed or not self._visit:
            return
        self._events.append(END_VISIT)
        self._close_visit()

    def undo(self) -> None:
        """Take back the last dart (and any visit end or bounce after it), even after a win."""
        events = self._events
        for index in range(len(events) - 1, -1, -1):
            if isinstance(events[index], Bed):
                self._replay(events[:index])
                self._corrections = {at: bed for at, bed in self._corrections.items() if at < index}
                return
        raise NothingToUndoError("nothing to undo: no dart has been thrown")

    def on_board(self) -> tuple[Bed, ...]:
        """The darts of the visit a :meth:`correct` changes: the visit of the
        last dart thrown (in progress, just closed, or the final one), as they
        count (a bounced-out dart as a miss); empty when no dart is thrown."""
        if self._visit:
            return tuple(self._visit)
        return tuple(self._last_visit[1]) if self._last_visit is not None else ()

    def _correctable(self, dart: int) -> int:
        """The index in :attr:`events` of dart ``dart`` (1-based) of the visit
        on the board; a :class:`CorrectionError` says why there is none."""
        darts = len(self.on_board())
        if not darts:
            raise CorrectionError("no dart to correct: no dart has been thrown")
        if not 1 <= dart <= darts:
            thrown = f"{darts} dart" + ("" if darts == 1 else "s")
            raise CorrectionError(f"no dart {dart} to correct: the visit has {thrown}")
        beds = [index for index, event in enumerate(self._events) if isinstance(event, Bed)]
        return beds[len(beds) - darts + dart - 1]

    def correct(self, dart: int, bed: Bed) -> None:
        """Dart ``dart`` (1-based) of the visit on the board (:meth:`on_board`)
        really hit ``bed``: the game is replayed with it, so the state is the
        visit thrown right. A bust or win it makes or undoes follows; what
        came after it is dropped once the visit stops scoring (after a bust
        or a win it makes, as a board goes to takeout there); a
        bounce-out of that dart is gone (it hit ``bed``). The board's first
        reading is kept in :attr:`corrections`."""
        index = self._correctable(dart)
        events, corrections = list(self._events), dict(self._corrections)
        read_as = corrections.get(index, events[index])
        assert isinstance(read_as, Bed)
        kept = {at: was for at, was in corrections.items() if at < index}
        if bed != read_as:
            kept[index] = read_as
        self._replay(events[:index])
        self.dart(bed)
        position = index + 1
        if position < len(events) and isinstance(events[position], Bounce):
            position += 1
        while position < len(events) and self._visit_live:  # none once it stops scoring
            event = events[position]
            bounced = position + 1 < len(events) and isinstance(events[position + 1], Bounce)
            if isinstance(event, Bed):
                if position in corrections:
                    kept[len(self._events)] = corrections[position]
                if bounced:
                    self._bounced(event)
                else:
                    self.dart(event)
            elif isinstance(event, EndVisit):
                self.end_visit()
            position += 2 if isinstance(event, Bed) and bounced else 1
        self._corrections = kept

    def bounce(self) -> None:
        """The last dart bounced out: it becomes a miss (still thrown, scoring
        nothing) and counts as its thrower's bounce-out. The game is replayed
        without it, so a bust or a win it caused is taken back (a win reopens
        the game, as :meth:`undo` does) and a visit it closed closes again."""
        self.check(BOUNCE)
        events = self._events
        self._replay(events[:-1])
        self._bounced(events[-1])

    def _bounced(self, dart: Event) -> None:
        """Throw ``dart`` (the last event taken back) as a bounced-out miss."""
        assert isinstance(dart, Bed)
        thrower = self._player
        self.dart(MISS)
        self._events[-1] = dart
        self._events.append(BOUNCE)
        self._bounce_outs[thrower] += 1
        self._last_dart = (thrower, dart)

    def _replay(self, events: Sequence[Event]) -> None:
        """Back to the start, then the effective ``events`` again; a dart and
        the ``BOUNCE`` after it are thrown as one bounced miss, so a bounce
        costs no replay of its own here. The corrections are kept: the
        caller trims them."""
        corrections = self._corrections
        self._reset()
        count = len(events)
        for index, event in enumerate(events):
            if isinstance(event, Bounce):
                continue  # thrown with its dart, just before
            if (
                isinstance(event, Bed)
                and index + 1 < count
                and isinstance(events[index + 1], Bounce)
            ):
                self._bounced(event)
            else:
                self.push(event)
        self._corrections = corrections

    def state(self) -> dict[str, Any]:
        """The state JSON shared by every game (see docs/state.md)."""
        outcome = self._outcome
        teams = bool(self.lineup.teams)
        players = []
        for player, name in enumerate(self.lineup.players):
            side = self._side_of[player]
            players.append(
                {
                    "name": name,
                    **self._side_state(side),
                    "team": side if teams else None,
                    "out": self._out[side],
                    "stats": self._stats_of(player),
                }
            )
        return {
            "game": self.id,
            "options": dict(self.options),
            "players": players,
            "teams": [{"name": t.name, "players": list(t.members)} for t in self.lineup.teams]
            or None,
            "current_player": self._player,
            "round": self._round,
            "visit": [bed.notation for bed in self._visit],
            "visit_over": _plain(self._visit_over),
            "last_visit": self._last_visit_json(),
            "finished": outcome is not None,
            "winner": outcome.winner if outcome else None,
            "winner_team": outcome.team if outcome else None,
            "result": str(outcome.reason) if outcome else None,
        }

    # --------------------------------------------------------------- internals

    def _last_visit_json(self) -> dict[str, Any] | None:
        if self._last_visit is None:
            return None
        player, darts, over = self._last_visit
        darts_json = [bed.notation for bed in darts]
        return {"player": player, "darts": darts_json, "visit_over": _plain(over)}

    def _reset(self) -> None:
        """Back to the start, as :meth:`__init__` left the game (undo replays from here)."""
        fresh = type(self)(self.lineup, self.options, first_side=self._first_side)
        self.__dict__.update(fresh.__dict__)

    def _close_visit(self) -> None:
        """The visit ends (third dart or NEXT): settle it and pass the turn."""
        if self._outcome is None:
            self._on_visit_end()
        if self._outcome is not None:
            self._visit_closed = True
            return
        current = self._side
        self._side_visits[current] += 1
        nxt = self._next_side(current)
        if self._round_position(nxt) <= self._round_position(current):
            limit = self._round_limit()
            if limit and self._round >= limit:
                self._on_round_limit()
                self._visit_closed = True
                return
            self._round += 1
        self._last_visit = (self._player, self._visit, self._visit_over)
        members = self._sides[nxt]
        self._side = nxt
        self._player = members[self._side_visits[nxt] % len(members)]
        self._visit = []
        self._visit_live = True
        self._visit_over = None


class PickingGame(Game):
    """A game played by picking, not throwing (domino cribbage): a dart at a
    number picks something and ``NEXT`` is the game's own move (Go, the next
    deal). No three-dart visits, so the board has no takeout, MISS means
    nothing, and undo takes back the last move of any kind."""

    @property
    def scoring(self) -> tuple[tuple[int, int, str], ...]:
        """The points the last move scored, in order: (player, points, reason)."""
        return ()

    def can_undo(self) -> bool:
        return bool(self._events)

    def undo_thrower(self) -> int | None:
        """Who is up once the last move (a pick or a NEXT, and the replies to
        it) is taken back: found by undoing a copy, as a move may be no dart."""
        if not self.can_undo():
            return None
        probe = copy.deepcopy(self)
        probe.undo()
        return probe.current_player

    def bounceable(self) -> tuple[int, Bed] | None:
        """Never: a pick that did not stick is simply thrown again."""
        return None

    def _no_bounce_reason(self) -> str:
        return f"{self.name} has no bounce-outs: a dart picks; UNDO takes a pick back"

    def bounce(self) -> None:
        raise NothingToBounceError(self._no_bounce_reason())

    def on_board(self) -> tuple[Bed, ...]:
        """Nothing: a pick is no dart of a visit to correct."""
        return ()

    def _correctable(self, dart: int) -> int:
        raise CorrectionError(
            f"{self.name} has no visits to correct: a dart picks; UNDO takes a pick back"
        )

    def correct(self, dart: int, bed: Bed) -> None:
        self._correctable(dart)

    def accepts_darts(self) -> bool:
        return self._outcome is None


def _plain(reason: VisitOver | None) -> str | None:
    """A reason as the state JSON carries it: a plain string (or null)."""
    return None if reason is None else str(reason)
