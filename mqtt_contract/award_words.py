"""What every screen calls an award (``ton-80`` is "TON 80!") and which of a
visit's awards is the headline, so the display, the board page and the
leaderboard never name one differently. Pure: award ids in, words out; the
names are the engine's (:attr:`engine.awards.Award.label`), shouted."""

from __future__ import annotations

from collections.abc import Iterable

from engine.awards import AWARD_RANKING, FEATS, Award

__all__ = ["AWARD_ORDER", "award_title", "ranked_awards"]

_EXCLAIMED = frozenset({Award.TON_80, Award.SHANGHAI, Award.NINE_DARTER})
"""The awards a screen shouts with a "!"."""

AWARD_ORDER: tuple[Award, ...] = (*FEATS, *AWARD_RANKING)
"""The award ids, a visit's headline first: the game's feats (a nine-darter,
a Shanghai), then the visit awards best first, as the engine ranks them."""


def award_title(award: str) -> str:
    """The award's name as a screen shouts it: ``TON 80!``, ``HAT TRICK``,
    ``5 MARKS``; an id no screen knows yet in capitals (``bed-and-breakfast``
    is ``BED AND BREAKFAST``)."""
    try:
        known = Award(award)
    except ValueError:
        return award.replace("-", " ").replace("_", " ").upper()
    return known.label.upper() + ("!" if known in _EXCLAIMED else "")


def ranked_awards(awards: Iterable[str]) -> list[str]:
    """``awards`` without repeats, the headline first (:data:`AWARD_ORDER`;
    ids not in it after, in their own order)."""
    unique = list(dict.fromkeys(awards))
    rank = {str(award): index for index, award in enumerate(AWARD_ORDER)}
    return sorted(unique, key=lambda award: rank.get(award, len(rank)))
