"""Cricket (seed 000): own 15-20 and the bull with three marks, score on them
while an opponent still has them open."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.awards import Award
from engine.beds import BULL, Bed
from engine.game import Game, Reason
from engine.handicap import (
    HANDICAPS_OPTION,
    NO_HANDICAPS,
    SPOT_TARGETS,
    HandicapError,
    parse_handicaps,
)
from engine.lineup import Lineup
from engine.options import Option
from engine.registry import register
from engine.schema_parts import NON_NEGATIVE_INT, NON_NEGATIVE_NUMBER, every_player
from engine.traits import MARKS_PER_ROUND, AwardFigure, Family, Highlight, Measure

__all__ = [
    "CRICKET_TARGETS",
    "MARKS_KEYS",
    "MARKS_TO_CLOSE",
    "WHITE_HORSE_TREBLES",
    "Cricket",
    "Marked",
    "MarksGame",
    "mark_visit_band",
    "marks_json",
    "marks_stats",
    "target_index",
]

CRICKET_TARGETS = (15, 16, 17, 18, 19, 20, BULL)
"""The cricket family's numbers in marks order; the bull is the last."""

MARKS_TO_CLOSE = 3
"""Marks that close a target (the third and later score in Cricket)."""

WHITE_HORSE_TREBLES = 3
"""The different trebles of open numbers in one visit that make a White Horse."""

_INDEX = [-1] * (BULL + 1)
for _i, _number in enumerate(CRICKET_TARGETS):
    _INDEX[_number] = _i


def target_index(number: int) -> int:
    """Position of ``number`` in :data:`CRICKET_TARGETS`, or -1 if it is not one."""
    return _INDEX[number]


MARKS_KEYS = tuple("bull" if number == BULL else str(number) for number in CRICKET_TARGETS)
"""The keys of the state JSON's ``marks``, in :data:`CRICKET_TARGETS` order."""


def marks_json(marks: list[int]) -> dict[str, int]:
    """Marks per target as the state JSON shows them: ``"15"``-``"20"`` and ``"bull"``."""
    return dict(zip(MARKS_KEYS, marks, strict=True))


MARKS_SCHEMA: dict[str, Any] = {
    "description": "Marks per cricket target, 0 (open) to 3 (closed).",
    "type": "object",
    "properties": {key: {"type": "integer", "minimum": 0, "maximum": 3} for key in MARKS_KEYS},
    "required": [*MARKS_KEYS],
    "additionalProperties": False,
}

CRICKET_PLAYER_SCHEMA: dict[str, Any] = {
    "properties": {
        "score": {"minimum": 0},
        "marks": {"$ref": "#/$defs/marks"},
        "spot_marks": {
            "description": "Only in a game with handicaps: the marks this player was "
            "given before the first dart (docs/games/cricket.md, Handicaps); {} for none.",
            "type": "object",
            "propertyNames": {"enum": [*MARKS_KEYS]},
            "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 3},
        },
        "stats": {
            "properties": {"marks": NON_NEGATIVE_INT, "mpr": NON_NEGATIVE_NUMBER},
            "required": ["marks", "mpr"],
        },
    },
    "required": ["marks"],
}


_MARK_VISITS = {9: "count_9_marks", 7: "count_7_marks", 5: "count_5_marks"}
"""A visit's marks from which it counts as a 9-, 7- or 5-mark visit."""


def mark_visit_band(marks: int) -> str | None:
    """The counter a visit of ``marks`` marks adds to (``count_5_marks``,
    ``count_7_marks``, ``count_9_marks``), or None below five."""
    return next((key for floor, key in _MARK_VISITS.items() if marks >= floor), None)


def marks_stats(marks: int, visits: int) -> dict[str, Any]:
    """The cricket family's statistics: marks scored and marks per round (visit)."""
    return {"marks": marks, "mpr": round(marks / visits, 2) if visits else 0.0}


@dataclass(frozen=True, slots=True)
class Marked:
    """What one dart (Cricket) or one visit (Cricket-Shanghai) did to the
    thrower's side's marks: the marks it scored (the statistics' ``marks``)
    and the targets it closed (:data:`MARKS_KEYS`: ``"20"``, ``"bull"``)."""

    marks: int
    closed: tuple[str, ...]


class MarksGame(Game):
    """A cricket-family game, whose sides carry marks. It says what its last
    event did to them (:attr:`marked`), so a caller learns that a target was
    closed from the game, not by comparing two states."""

    highlight = Highlight("most marks in a visit", Measure.BEST_VISIT_MARKS)
    average = MARKS_PER_ROUND
    family = Family.MARKS
    award_figure = AwardFigure.MARKS
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {"mpr": ("marks", "visits", 1)}
    marks_per_visit: ClassVar[bool] = False
    """True when marks count at the end of a visit (Cricket-Shanghai), not
    dart by dart (Cricket)."""

    def __init__(
        self,
        players: Sequence[str] | Lineup,
        options: Mapping[str, object] | None = None,
        teams: Mapping[str, Sequence[str | int]] | None = None,
        *,
        first_side: int = 0,
    ) -> None:
        self._marked: Marked | None = None
        self._marked_at = -1
        super().__init__(players, options, teams, first_side=first_side)

    @property
    def marked(self) -> Marked | None:
        """What the last event of the log did to the marks: the last dart
        (Cricket; ``None`` for a dead dart) or the visit its dart or NEXT
        ended (Cricket-Shanghai); ``None`` when that event moved no marks."""
        return self._marked if self._marked_at == len(self._events) else None

    def _mark(self, marks: int, closed: tuple[str, ...]) -> None:
        """Record what the event being applied did to the thrower's side's marks."""
        self._marked = Marked(marks, closed)
        self._marked_at = len(self._events)


@register
class Cricket(MarksGame):
    """A single, double or triple gives 1, 2 or 3 marks (outer bull 1, inner
    bull 2). Marks beyond the third score while an opponent has the number open."""

    id = "cricket"
    round_limit_option = "rounds"
    name = "Cricket"
    summary = "Close 15-20 and the bull; score on them until everyone has closed them."
    state_schema: ClassVar[dict[str, Any]] = every_player({"$ref": "#/$defs/cricket_player"})
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {
        "marks": MARKS_SCHEMA,
        "cricket_player": CRICKET_PLAYER_SCHEMA,
    }
    options_spec = (
        Option(
            "mode",
            "standard",
            "standard; cut-throat (points go to opponents, lowest wins); no-score",
            ("standard", "cut-throat", "no-score"),
        ),
        Option("rounds", 0, "round limit, then most points win (0: none)", minimum=0),
        Option(
            HANDICAPS_OPTION,
            NO_HANDICAPS,
            "each player's spot marks, comma-separated (20:3 19:1 bull:2,-; -: none)",
            offered=False,
        ),
    )

    def _setup(self) -> None:
        sides = len(self._sides)
        self._mode = str(self.options["mode"])
        self._spots = self._spot_marks()
        self._marks = [list(spots) for spots in self._spots]
        self._score = [0] * sides
        self._closed = [sum(m == MARKS_TO_CLOSE for m in spots) for spots in self._spots]
        self._open_sides = [
            sum(spots[target] < MARKS_TO_CLOSE for spots in self._spots)
            for target in range(len(CRICKET_TARGETS))
        ]
        self._marks_scored = [0] * len(self.lineup.players)
        self._visit_marks = 0
        self._open_trebles: set[int] = set()
        """The numbers 15-20 the visit hit a treble of while the side had them open."""
        self._mark_visits = [dict.fromkeys(_MARK_VISITS.values(), 0) for _ in self.lineup.players]

    def _visit_figure(self) -> int:
        return self._visit_marks

    def _own_awards(self) -> Iterable[Award]:
        """A white horse: three different trebles of 15-20, each open before."""
        darts = self.scoring_darts
        trebles = {bed.number for bed in darts if bed.is_triple}
        if len(darts) == len(trebles) == WHITE_HORSE_TREBLES and trebles <= self._open_trebles:
            return (Award.WHITE_HORSE,)
        return ()

    def _spot_marks(self) -> list[list[int]]:
        """Each side's marks before the first dart: none, or a player's spot
        marks from ``handicaps`` (not in teams; never every target closed)."""
        text = str(self.options[HANDICAPS_OPTION])
        handicaps = parse_handicaps(text, len(self.lineup.players))
        self._handicapped = text != NO_HANDICAPS
        if self._handicapped and self.lineup.teams:
            raise HandicapError("handicaps are per player: a team game takes none")
        assert SPOT_TARGETS == MARKS_KEYS  # one set of keys for marks and spot marks
        spots = []
        for members in self._sides:
            name, handicap = self.lineup.players[members[0]], handicaps[members[0]]
            if handicap.start is not None:
                raise HandicapError(
                    f"{name!r}: {self.name} takes spot marks as a handicap, not a start "
                    f"({handicap})"
                )
            given = dict(handicap.marks)
            marks = [given.get(key, 0) for key in MARKS_KEYS]
            if all(count == MARKS_TO_CLOSE for count in marks):
                raise HandicapError(
                    f"{name!r}: spot marks {handicap} close every target: nothing left to play"
                )
            spots.append(marks)
        return spots

    def _on_visit_end(self) -> None:
        """The visit's marks for the 5-, 7- and 9-mark counts."""
        marks, self._visit_marks = self._visit_marks, 0
        self._open_trebles = set()
        band = mark_visit_band(marks)
        if band is not None:
            self._mark_visits[self._player][band] += 1

    def _match_counters(self, player: int) -> dict[str, Any]:
        return dict(self._mark_visits[player])

    def _on_dart(self, bed: Bed) -> None:
        target = _INDEX[bed.number]
        if target < 0:
            self._mark(0, ())
            return
        side = self._side
        marks = self._marks[side]
        have = marks[target]
        hits = bed.multiplier
        if bed.is_triple and have < MARKS_TO_CLOSE:
            self._open_trebles.add(bed.number)
        counted = 0
        closed: tuple[str, ...] = ()
        if have < MARKS_TO_CLOSE:
            counted = min(MARKS_TO_CLOSE - have, hits)
            marks[target] = have + counted
            hits -= counted
            if have + counted == MARKS_TO_CLOSE:
                self._open_sides[target] -= 1
                self._closed[side] += 1
                closed = (MARKS_KEYS[target],)
        if hits and self._mode != "no-score" and self._open_sides[target]:
            points = bed.number * hits
            if self._mode == "standard":
                self._score[side] += points
            else:
                for other, other_marks in enumerate(self._marks):
                    if other_marks[target] < MARKS_TO_CLOSE:
                        self._score[other] += points
            counted += hits
        self._marks_scored[self._player] += counted
        self._visit_marks += counted
        self._mark(counted, closed)
        if counted:
            self._check_winner()

    def _check_winner(self) -> None:
        """A side that has closed everything and leads (or, cut-throat, trails) wins.
        The thrower is looked at first: only their dart can have changed things."""
        order = [self._side] + [s for s in range(len(self._sides)) if s != self._side]
        for side in order:
            if self._closed[side] < len(CRICKET_TARGETS):
                continue
            mine = self._score[side]
            others = [self._score[s] for s in range(len(self._sides)) if s != side]
            if (
                self._mode == "no-score"
                or (self._mode == "standard" and all(mine >= o for o in others))
                or (self._mode == "cut-throat" and all(mine <= o for o in others))
            ):
                self._finish(side, Reason.CLOSED_ALL)
                self._on_visit_end()  # the winning visit counts
                return

    def _on_round_limit(self) -> None:
        def rank(side: int) -> tuple[int, int]:
            points = self._score[side]
            if self._mode == "cut-throat":
                points = -points
            elif self._mode == "no-score":
                points = 0
            return points, sum(self._marks[side])

        best = max(rank(s) for s in range(len(self._sides)))
        leaders = [s for s in range(len(self._sides)) if rank(s) == best]
        self._finish(leaders[0] if len(leaders) == 1 else None, Reason.ROUND_LIMIT)

    def _side_state(self, side: int) -> dict[str, Any]:
        state = {"score": self._score[side], "marks": marks_json(self._marks[side])}
        if self._handicapped:
            given = zip(MARKS_KEYS, self._spots[side], strict=True)
            state["spot_marks"] = {key: count for key, count in given if count}
        return state

    def _player_stats(self, player: int) -> dict[str, Any]:
        return marks_stats(self._marks_scored[player], self._visits[player])
