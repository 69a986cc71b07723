"""A match's legs counted against its format: who won each set and the match,
leg by leg, the way the engine's match plays them (docs/matches.md, "A match's
statistics and its result"). Pure: :mod:`leaderboard.scoring` re-scores each
leg from its log, then checks here that the legs add up to what the result
claims, so a result whose legs do not make its winner is refused."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.match_format import MatchFormat

__all__ = ["MatchTally", "MatchTallyError", "tally_legs"]


class MatchTallyError(ValueError):
    """Legs that do not make a finished match of the format; ``reason`` says
    which leg and why, for people."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class MatchTally:
    """What the legs give: legs won per side over the match, sets won per side
    (None without sets), each leg's set (None without sets) and the side that
    won the match."""

    legs_won: tuple[int, ...]
    sets_won: tuple[int, ...] | None
    set_of_leg: tuple[int | None, ...]
    winner: int


def _score_words(counts: Sequence[int]) -> str:
    return "-".join(str(count) for count in counts)


def tally_legs(
    match_format: MatchFormat, winners: Sequence[int | None], side_names: Sequence[str]
) -> MatchTally:
    """Count the legs' winning sides (``winners``, in leg order; None for a
    drawn leg, which nobody wins) through ``match_format``. Raises
    :class:`MatchTallyError` when a leg comes after the match was won, or the
    legs end before a side has won it."""
    sides = len(side_names)
    in_set = [0] * sides
    sets = [0] * sides
    total = [0] * sides
    set_number = 1
    set_of_leg: list[int | None] = []
    winner: int | None = None
    for number, side in enumerate(winners, start=1):
        if winner is not None:
            raise MatchTallyError(
                f"leg {number} was played after {side_names[winner]} had won the match "
                f"in leg {number - 1} (legs {_score_words(total)}, {match_format})"
            )
        set_of_leg.append(set_number if match_format.sets is not None else None)
        if side is None:
            continue
        total[side] += 1
        in_set[side] += 1
        if in_set[side] < match_format.legs:
            continue
        if match_format.sets is None:
            winner = side
            continue
        sets[side] += 1
        in_set = [0] * sides
        set_number += 1
        if sets[side] == match_format.sets:
            winner = side
    if winner is None:
        so_far = f"legs {_score_words(total)}"
        if match_format.sets is not None:
            so_far = f"sets {_score_words(sets)}, {so_far}"
        raise MatchTallyError(
            f"the legs do not finish the match: {so_far} after {len(winners)} legs, "
            f"and the match is {match_format}"
        )
    return MatchTally(
        legs_won=tuple(total),
        sets_won=tuple(sets) if match_format.sets is not None else None,
        set_of_leg=tuple(set_of_leg),
        winner=winner,
    )
