"""A match of one game: legs (engine games) until a side has won the format's
legs (or sets of them), who throws first in each, and the cork (bull-off)
before a deciding leg.

Like a :class:`~engine.game.Game`, a match is a deterministic fold over one
flat list of events: darts, NEXTs, undos, bounces and corrections go to the
leg in progress; once a leg is won and the match goes on (:attr:`Match.leg_over`)
a NEXT starts the next leg (or the cork for it), and an UNDO in a leg with
nothing to undo goes back across the boundary into the leg before
(docs/matches.md, "Match play"). With no format the match is one plain game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.beds import Bed
from engine.errors import EngineError, GameOverError, LineupError, NothingToUndoError
from engine.events import END_VISIT, EndVisit, Event, Undo
from engine.game import Game, Outcome
from engine.lineup import Lineup
from engine.match_format import Decider, MatchFormat, Starts
from engine.registry import game_class
from engine.traits import Family

__all__ = ["LegRecord", "Match", "MatchError", "cork_rank", "default_decider"]


class MatchError(EngineError):
    """An event or a lineup a match refuses: says why and quotes the input."""


@dataclass(frozen=True, slots=True)
class LegRecord:
    """A finished leg: its number in the match (from 1), its set (None: no
    sets), the player who threw first, the game and how it ended."""

    number: int
    set: int | None
    starter: int
    game: Game
    outcome: Outcome


def default_decider(game: type[Game], match: MatchFormat) -> Decider:
    """The decider a format plays: its own, else a cork for the cricket
    family (``Family.MARKS``) and none for the rest."""
    if match.decider is not None:
        return match.decider
    return Decider.CORK if game.family is Family.MARKS else Decider.NONE


def cork_rank(bed: Bed) -> int:
    """A cork dart's worth: 2 for the inner bull, 1 for the outer, 0 for the rest."""
    if not bed.is_bull:
        return 0
    return 2 if bed.multiplier == 2 else 1


class Match:
    """A match of one game: its legs (engine games) and the format; a
    deterministic fold over one flat event list, like a Game. ``format``
    None: a single game, one leg and no match block in the state.

    :attr:`leg` is the leg in progress or just won (during a cork, the
    deciding leg not begun yet); it is another object after a NEXT, a cork's
    last dart or an undo across a boundary, so read it after each push."""

    def __init__(
        self,
        game: str,
        players: Sequence[str] | Lineup,
        options: Mapping[str, object] | None = None,
        teams: Mapping[str, Sequence[str | int]] | None = None,
        format: MatchFormat | None = None,
    ) -> None:
        self._class = game_class(game)
        first = self._class(players, options, teams)
        self.lineup = first.lineup
        self.options = dict(first.options)
        self.format = format
        sides = len(self.lineup.sides)
        if format is not None and sides < 2:
            raise LineupError(
                f"a match needs two sides or more, got {sides}: "
                "play one game (no match) for a practice alone"
            )
        self.decider_rule = Decider.NONE if format is None else default_decider(self._class, format)
        self._side_of = {p: s for s, members in enumerate(self.lineup.sides) for p in members}
        self._start()

    # ------------------------------------------------------------ the fold

    def _start(self) -> None:
        """Back to the match's start (before its first event)."""
        self._events: list[Event] = []
        self._records: list[LegRecord] = []
        self._leg_start = 0
        self._number = 1
        self._set: int | None = None if self.format is None or self.format.sets is None else 1
        self._set_first_side = 0
        self._cork: list[Bed | None] | None = None
        self._begin_leg(0)
        if self._is_decider():
            self._cork = [None] * len(self.lineup.sides)

    def _begin_leg(self, first_side: int) -> None:
        options = self._class.leg_options(self.options, self._number)
        self.leg: Game = self._class(self.lineup, options, first_side=first_side)
        self._starter_side = first_side
        self._leg_start = len(self._events)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every effective event of the match, flat: each leg's, the NEXT that
        started the next leg and the cork darts (a replay gives the same match)."""
        return tuple(self._events)

    def _sync(self) -> None:
        """The flat list after the leg changed itself."""
        del self._events[self._leg_start :]
        self._events.extend(self.leg.events)

    def push(self, event: Event) -> None:
        """Apply one event (see the module's docstring)."""
        self.check(event)
        if self._cork is not None:
            self._cork_event(event)
        elif isinstance(event, Undo):
            self.undo()
        elif self.leg_over and isinstance(event, EndVisit):
            self._next_leg()
        else:
            self.leg.push(event)
            self._sync()

    def push_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.push(event)

    def check(self, event: Event) -> None:
        """Raise the :class:`EngineError` pushing ``event`` would, changing nothing."""
        if isinstance(event, Undo):
            if not self.can_undo():
                raise NothingToUndoError("nothing to undo: no dart has been thrown")
            return
        if self._cork is not None:
            if not isinstance(event, Bed):
                raise MatchError(f"{event}: the cork is being thrown: one dart each at the bull")
            return
        if self.leg_over:
            if isinstance(event, Bed):
                raise GameOverError(
                    f"{event.notation}: the leg is won: NEXT starts leg {self._number + 1}"
                )
            if isinstance(event, EndVisit):
                return
        self.leg.check(event)

    def can_undo(self) -> bool:
        """Whether an UNDO has something to take back (here or in a leg before)."""
        if self.leg.can_undo() and self._cork is None:
            return True
        # else back across a boundary: into the cork or the leg before it
        return bool(self._events) and (self._cork is not None or self._leg_start > 0)

    def undo(self) -> None:
        """Take back the last dart: the cork's, the leg's, or (in a new leg with
        nothing to undo) the last dart of the leg before, which reopens it."""
        if not self.can_undo():
            raise NothingToUndoError("nothing to undo: no dart has been thrown")
        in_cork = self._cork is not None
        if not in_cork and self.leg.can_undo():
            self.leg.undo()
            self._sync()
            return
        # Back across the boundary: the cork's last dart (or the NEXT that
        # started the cork); else the NEXT (or the deciding cork dart) that
        # started this leg, and after a NEXT the last dart of the leg before.
        kept = list(self._events if in_cork else self._events[: self._leg_start])
        dropped = kept.pop()
        self._replay(kept)
        if not in_cork and isinstance(dropped, EndVisit) and self.leg_over:
            self.leg.undo()
            self._sync()

    def _replay(self, events: Sequence[Event]) -> None:
        self._start()
        for event in events:
            self.push(event)

    def _cork_event(self, event: Event) -> None:
        cork = self._cork
        assert cork is not None
        if isinstance(event, Undo):
            self.undo()
            return
        assert isinstance(event, Bed)
        self._events.append(event)
        self._leg_start = len(self._events)
        side = cork.index(None)
        cork[side] = event
        if None in cork:
            return
        ranks = [cork_rank(bed) for bed in cork if bed is not None]
        best = max(ranks)
        if ranks.count(best) > 1:
            self._cork = [None] * len(cork)  # a tie: throw again
            return
        self._cork = None
        self._begin_leg(ranks.index(best))

    def _next_leg(self) -> None:
        """NEXT after a won leg: the leg goes to the records, the next starts."""
        set_won = self._set is not None and self._set_winner() is not None
        self._events.append(END_VISIT)
        self._records.append(self._record())
        finished = self.leg.outcome()
        assert finished is not None
        previous = self._starter_side
        self._number += 1
        if set_won:
            assert self._set is not None
            self._set += 1
            self._set_first_side = (self._set_first_side + 1) % len(self.lineup.sides)
            side = self._set_first_side
        else:
            side = self._following(previous, finished)
        if self._is_decider():
            self._begin_leg(0)
            self._cork = [None] * len(self.lineup.sides)
        else:
            self._begin_leg(side)

    def _following(self, previous: int, outcome: Outcome) -> int:
        """Who starts the leg after one ``previous`` started and ``outcome`` ended."""
        count = len(self.lineup.sides)
        assert self.format is not None
        winner = None if outcome.winner is None else self._side_of[outcome.winner]
        if self.format.starts is Starts.ALTERNATE or winner is None:
            return (previous + 1) % count
        if self.format.starts is Starts.WINNER:
            return winner
        return (winner + 1) % count

    def _record(self) -> LegRecord:
        outcome = self.leg.outcome()
        assert outcome is not None
        starter = self.lineup.sides[self._starter_side][0]
        return LegRecord(self._number, self._set, starter, self.leg, outcome)

    # -------------------------------------------------------------- reading

    @property
    def legs(self) -> tuple[LegRecord, ...]:
        """The finished legs in order, the leg just won included."""
        if self.leg.is_finished:
            return (*self._records, self._record())
        return tuple(self._records)

    @property
    def cork(self) -> tuple[Bed | None, ...] | None:
        """While a cork is thrown: each side's dart this round (None: not yet)."""
        return None if self._cork is None else tuple(self._cork)

    @property
    def cork_thrower(self) -> int | None:
        """The player who throws the next cork dart (a team's first player)."""
        if self._cork is None:
            return None
        return self.lineup.sides[self._cork.index(None)][0]

    @property
    def starter(self) -> int | None:
        """The player who throws (threw) first in this leg; None during its cork."""
        if self._cork is not None:
            return None
        return self.lineup.sides[self._starter_side][0]

    @property
    def number(self) -> int:
        """This leg's number in the match, from 1."""
        return self._number

    @property
    def set(self) -> int | None:
        """This leg's set, from 1; None without sets."""
        return self._set

    def _side_wins(self, records: Iterable[LegRecord]) -> list[int]:
        wins = [0] * len(self.lineup.sides)
        for record in records:
            if record.outcome.winner is not None:
                wins[self._side_of[record.outcome.winner]] += 1
        return wins

    def legs_won(self) -> tuple[int, ...]:
        """Legs won per side over the whole match."""
        return tuple(self._side_wins(self.legs))

    def set_legs_won(self) -> tuple[int, ...]:
        """Legs won per side in this set (with sets), else in the match."""
        return tuple(self._side_wins(r for r in self.legs if r.set == self._set))

    def sets_won(self) -> tuple[int, ...] | None:
        """Sets won per side; None without sets."""
        if self._set is None:
            return None
        assert self.format is not None
        wins = [0] * len(self.lineup.sides)
        for number in range(1, self._set + 1):
            legs = self._side_wins(r for r in self.legs if r.set == number)
            for side, won in enumerate(legs):
                if won >= self.format.legs:
                    wins[side] += 1
        return tuple(wins)

    def _set_winner(self) -> int | None:
        assert self.format is not None
        for side, won in enumerate(self.set_legs_won()):
            if won >= self.format.legs:
                return side
        return None

    def _match_winner(self) -> int | None:
        """The side that has won the match, if one has."""
        if self.format is None:
            outcome = self.leg.outcome()
            if outcome is None or outcome.winner is None:
                return None
            return self._side_of[outcome.winner]
        counts, need = (
            (self.sets_won(), self.format.sets)
            if self.format.sets is not None
            else (self.legs_won(), self.format.legs)
        )
        assert counts is not None
        for side, won in enumerate(counts):
            if won >= need:
                return side
        return None

    def _is_decider(self) -> bool:
        """Whether the leg about to start decides the match (every side is one
        leg from it) and is started by a cork."""
        return self.decider_rule is Decider.CORK and self.deciding

    @property
    def deciding(self) -> bool:
        """This leg decides the match: every side is one leg from winning it."""
        fmt = self.format
        if fmt is None:
            return False
        records = self._records
        legs = self._side_wins(r for r in records if r.set == self._set)
        if fmt.sets is not None:
            sets = [0] * len(self.lineup.sides)
            for number in range(1, (self._set or 1)):
                for side, won in enumerate(self._side_wins(r for r in records if r.set == number)):
                    if won >= fmt.legs:
                        sets[side] += 1
            if any(won != fmt.sets - 1 for won in sets):
                return False
        return all(won == fmt.legs - 1 for won in legs)

    @property
    def is_finished(self) -> bool:
        """The match is over (a single game: the game is)."""
        if self.format is None:
            return self.leg.is_finished
        return self._cork is None and self.leg.is_finished and self._match_winner() is not None

    @property
    def leg_over(self) -> bool:
        """The leg is won (or drawn) and the match goes on: NEXT starts the next."""
        return (
            self.format is not None
            and self._cork is None
            and self.leg.is_finished
            and not self.is_finished
        )

    def accepts_darts(self) -> bool:
        """Whether a dart is taken now: the leg's, or the cork's."""
        if self._cork is not None:
            return True
        if self.leg_over:
            return False
        return self.leg.accepts_darts()

    def outcome(self) -> Outcome | None:
        """How the match ended: the winning side's first player (and team) and
        the last leg's reason; None while it is on."""
        if not self.is_finished:
            return None
        last = self.leg.outcome()
        assert last is not None
        if self.format is None:
            return last
        side = self._match_winner()
        assert side is not None
        team = side if self.lineup.teams else None
        return Outcome(self.lineup.sides[side][0], team, last.reason)

    def state(self) -> dict[str, Any]:
        """The leg's state, plus the ``match`` block in a match (docs/state.md)."""
        state = self.leg.state()
        if self.format is None:
            return state
        thrower = self.cork_thrower
        if thrower is not None:
            state["current_player"] = thrower
        outcome = self.outcome()
        sets = self.sets_won()
        state["match"] = {
            "format": {**self.format.to_json(), "decider": self.decider_rule.value},
            "leg": self._number,
            "set": self._set,
            "starter": self.starter,
            "legs_won": list(self.set_legs_won()),
            "sets_won": None if sets is None else list(sets),
            "decider": self.deciding,
            "leg_over": self.leg_over,
            "cork": None
            if self._cork is None
            else [None if bed is None else bed.notation for bed in self._cork],
            "finished": outcome is not None,
            "winner": None if outcome is None else outcome.winner,
            "winner_team": None if outcome is None else outcome.team,
            "played": [
                {
                    "leg": record.number,
                    "set": record.set,
                    "starter": record.starter,
                    "winner": record.outcome.winner,
                    "winner_team": record.outcome.team,
                    "result": str(record.outcome.reason),
                }
                for record in self.legs
            ],
        }
        return state

    def stats(self, player: int) -> dict[str, Any]:
        """``player``'s statistics over every leg played (the game's
        :meth:`~engine.game.Game.combine_stats` of each leg's
        :meth:`~engine.game.Game.leg_stats`); in a game that is won by
        finishing (X01, the cricket family) also ``legs_won_darts``: the
        darts their side threw in each leg it won."""
        games = [record.game for record in self.legs]
        if not self.leg.is_finished and (self.leg.events or not games):
            games.append(self.leg)
        combined = self._class.combine_stats([game.leg_stats(player) for game in games])
        if self._class.family is not Family.PLAIN:
            side = self._side_of[player]
            members = self.lineup.sides[side]
            combined["legs_won_darts"] = [
                sum(record.game.leg_stats(member)["darts"] for member in members)
                for record in self.legs
                if record.outcome.winner is not None
                and self._side_of[record.outcome.winner] == side
            ]
        return combined
