"""What every screen calls an award (``ton-80`` is "TON 80!") and which of a
visit's awards is the headline, so the display, the board page and the
leaderboard never name one differently. Pure: award ids in, words out."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["AWARD_ORDER", "award_title", "ranked_awards"]

_TITLES = {
    "nine-darter": "NINE-DARTER!",
    "ton-80": "TON 80!",
    "shanghai": "SHANGHAI!",
    "white-horse": "WHITE HORSE",
    "three-in-the-black": "THREE IN THE BLACK",
    "hat-trick": "HAT TRICK",
    "high-ton": "HIGH TON",
    "three-in-a-bed": "THREE IN A BED",
    "low-ton": "LOW TON",
}
_MARKS = re.compile(r"^([1-9])-mark$")

AWARD_ORDER: tuple[str, ...] = (
    "nine-darter",
    "ton-80",
    "shanghai",
    "white-horse",
    "9-mark",
    "8-mark",
    "three-in-the-black",
    "7-mark",
    "hat-trick",
    "6-mark",
    "high-ton",
    "5-mark",
    "three-in-a-bed",
    "low-ton",
)
"""The award ids, the most spectacular first: the headline of a visit with
several (T20 T20 T20 is a Ton 80 before it is Three in a Bed)."""


def award_title(award: str) -> str:
    """The award's name as a screen shouts it: ``TON 80!``, ``HAT TRICK``,
    ``5 MARKS``; an id no screen knows yet in capitals (``bed-and-breakfast``
    is ``BED AND BREAKFAST``)."""
    title = _TITLES.get(award)
    if title is not None:
        return title
    marks = _MARKS.match(award)
    if marks is not None:
        return f"{marks.group(1)} MARKS"
    return award.replace("-", " ").replace("_", " ").upper()


def ranked_awards(awards: Iterable[str]) -> list[str]:
    """``awards`` without repeats, the most spectacular first
    (:data:`AWARD_ORDER`; ids not in it after, in their own order)."""
    unique = list(dict.fromkeys(awards))
    rank = {award: index for index, award in enumerate(AWARD_ORDER)}
    return sorted(unique, key=lambda award: rank.get(award, len(rank)))
