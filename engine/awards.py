"""The awards a visit earns (Ton 80, Hat Trick, White Horse, ...), as the
commercial soft-tip boards show them: their ids and the board-wide detection.

A game settles each visit's awards once it stops scoring (it closed, or it
ended the game) from :func:`visit_awards`: the generic ones from the darts and
the visit's points or marks (the game's :attr:`~engine.game.Game.award_figure`),
plus the game's own (:meth:`~engine.game.Game._own_awards`). A visit shows at
most one of the board's visit awards, the highest in :data:`AWARD_RANKING`, as
DARTSLIVE and Phoenix play one animation per visit; the game's feats
(:data:`FEATS`: a nine-darter, a Shanghai) come on top. docs/awards.md has
each rule, its usual variants and Oche's choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.beds import Bed
from engine.traits import AwardFigure

__all__ = [
    "AWARD_IDS",
    "AWARD_RANKING",
    "FEATS",
    "HIGH_TON_MIN",
    "LOW_TON_MIN",
    "TON_80",
    "Award",
    "AwardedVisit",
    "bed_award",
    "figure_award",
    "marks_award",
    "points_award",
    "ranked",
    "visit_awards",
]

LOW_TON_MIN = 100
"""The fewest points of a Low Ton visit (up to 150)."""
HIGH_TON_MIN = 151
"""The fewest points of a High Ton visit (up to 179)."""
TON_80 = 180
"""The points of a Ton 80 visit: three treble 20s."""
_FIVE_MARKS, _NINE_MARKS = 5, 9
_BED_DARTS = 3


class Award(StrEnum):
    """An award's id, as the ``award`` event and the state's ``awards`` carry it."""

    LOW_TON = "low-ton"
    """100 to 150 points in a visit (a points game)."""
    HIGH_TON = "high-ton"
    """151 to 179 points in a visit."""
    TON_80 = "ton-80"
    """180 points in a visit: T20 T20 T20."""
    HAT_TRICK = "hat-trick"
    """Three bulls in a visit, outer or inner."""
    THREE_IN_THE_BLACK = "three-in-the-black"
    """Three inner bulls in a visit."""
    THREE_IN_A_BED = "three-in-a-bed"
    """Three darts in the same bed (the same single, double or treble of a number)."""
    WHITE_HORSE = "white-horse"
    """Cricket: three different trebles of 15-20 in a visit, none closed before it."""
    FIVE_MARK = "5-mark"
    SIX_MARK = "6-mark"
    SEVEN_MARK = "7-mark"
    EIGHT_MARK = "8-mark"
    NINE_MARK = "9-mark"
    SHANGHAI = "shanghai"
    """Shanghai: the single, double and treble of the round's number in a visit."""
    NINE_DARTER = "nine-darter"
    """501 checked out in nine darts."""

    @property
    def label(self) -> str:
        """The award as a screen or a caller says it: ``Ton 80``, ``Hat Trick``."""
        return _LABELS[self]


_LABELS = {
    Award.LOW_TON: "Low Ton",
    Award.HIGH_TON: "High Ton",
    Award.TON_80: "Ton 80",
    Award.HAT_TRICK: "Hat Trick",
    Award.THREE_IN_THE_BLACK: "Three in the Black",
    Award.THREE_IN_A_BED: "Three in a Bed",
    Award.WHITE_HORSE: "White Horse",
    Award.FIVE_MARK: "5 Marks",
    Award.SIX_MARK: "6 Marks",
    Award.SEVEN_MARK: "7 Marks",
    Award.EIGHT_MARK: "8 Marks",
    Award.NINE_MARK: "9 Marks",
    Award.SHANGHAI: "Shanghai",
    Award.NINE_DARTER: "Nine-Darter",
}

AWARD_IDS: tuple[str, ...] = tuple(str(award) for award in Award)
"""Every award id as a plain string (a schema's enum), in :class:`Award` order."""

_MARK_AWARDS = (
    Award.FIVE_MARK,
    Award.SIX_MARK,
    Award.SEVEN_MARK,
    Award.EIGHT_MARK,
    Award.NINE_MARK,
)

FEATS = (Award.NINE_DARTER, Award.SHANGHAI)
"""The game's feats: shown beside the visit's award, not instead of it."""

AWARD_RANKING = (
    Award.TON_80,
    Award.THREE_IN_THE_BLACK,
    Award.HAT_TRICK,
    Award.WHITE_HORSE,
    Award.THREE_IN_A_BED,
    Award.NINE_MARK,
    Award.EIGHT_MARK,
    Award.SEVEN_MARK,
    Award.SIX_MARK,
    Award.FIVE_MARK,
    Award.HIGH_TON,
    Award.LOW_TON,
)
"""The board's visit awards, best first: a visit shows only the first that it
earns (T20 T20 T20 is a Ton 80, not also a Three in a Bed; DB DB DB a Three in
the Black, not also a Hat Trick; a Hat Trick is no Low Ton)."""


@dataclass(frozen=True, slots=True)
class AwardedVisit:
    """A settled visit's awards: who threw it, its darts (as they scored, a
    bounce-out as a miss), the awards (feats first, then the visit's award)
    and the figure they were counted by (``points`` in a points game,
    ``marks`` in a marks game, else both None)."""

    player: int
    darts: tuple[Bed, ...]
    awards: tuple[Award, ...]
    points: int | None = None
    marks: int | None = None


def points_award(points: int) -> Award | None:
    """The ton award of a visit of ``points``: Low Ton, High Ton, Ton 80, or None."""
    if points >= TON_80:
        return Award.TON_80
    if points >= HIGH_TON_MIN:
        return Award.HIGH_TON
    if points >= LOW_TON_MIN:
        return Award.LOW_TON
    return None


def marks_award(marks: int) -> Award | None:
    """The N-mark award of a visit of ``marks`` (5 to 9), or None below 5."""
    if marks < _FIVE_MARKS:
        return None
    return _MARK_AWARDS[min(marks, _NINE_MARKS) - _FIVE_MARKS]


def figure_award(figure: AwardFigure, value: int) -> Award | None:
    """The award a visit's ``value`` earns in a game counted by ``figure``."""
    if figure is AwardFigure.POINTS:
        return points_award(value)
    if figure is AwardFigure.MARKS:
        return marks_award(value)
    return None


def bed_award(live_darts: Sequence[Bed]) -> Award | None:
    """The award three live darts earn by where they landed: Three in the
    Black (three inner bulls), Hat Trick (three bulls), Three in a Bed (three
    in one bed of a number), or None (fewer than three live darts, a miss)."""
    if len(live_darts) != _BED_DARTS or any(bed.is_miss for bed in live_darts):
        return None
    if all(bed.is_bull for bed in live_darts):
        inner = all(bed.multiplier == 2 for bed in live_darts)
        return Award.THREE_IN_THE_BLACK if inner else Award.HAT_TRICK
    if len(set(live_darts)) == 1:
        return Award.THREE_IN_A_BED
    return None


def ranked(earned: Iterable[Award]) -> tuple[Award, ...]:
    """The awards a visit shows of all it ``earned``: its feats, then the
    highest of its visit awards (:data:`AWARD_RANKING`)."""
    earned = set(earned)
    feats = tuple(award for award in FEATS if award in earned)
    best = next((award for award in AWARD_RANKING if award in earned), None)
    return feats if best is None else (*feats, best)


def visit_awards(
    live_darts: Sequence[Bed],
    figure: AwardFigure,
    value: int,
    own: Iterable[Award] = (),
) -> tuple[Award, ...]:
    """The awards of a visit that scored: from its ``live_darts``, its
    ``value`` (points or marks, as ``figure`` says) and the game's ``own``."""
    if figure is AwardFigure.NONE:
        return ()
    earned = [*own, bed_award(live_darts), figure_award(figure, value)]
    return ranked(award for award in earned if award is not None)
