"""Cricket for a bot (every mode: standard, cut-throat, no-score): each dart
goes where the expected value of one dart is highest, a bed's value weighing
closing, scoring and blocking from both sides' marks and scores.

A bed of target t (points p: the number, 25 for the bull) worth h marks gives
c = min(3 - mine, h) closing marks and e = h - c extra marks. Its value is

- closing: c x (CLOSE + p if an opponent has t closed and can score on it
  against us (standard, cut-throat: blocking), + p/2 if an opponent still has
  it open (owning it lets us score));
- scoring (e > 0 while an opponent has t open): e x p x w, counted once in
  standard (our points) and once per open opponent in cut-throat (their
  points); w = 1 while we trail (standard: our score is below an
  opponent's; cut-throat: above), LEAD_WEIGHT when level or ahead (closing
  then wins); nothing in no-score;
- WIN if the dart closes our last target and wins (standard: our score at
  least every opponent's; cut-throat: at most).

Numbers off the cricket targets are worth nothing, so a wide thrower is drawn
toward big open targets and away from the doubles' edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.beds import BULL, Bed
from engine.board_geometry import STEEL, BoardGeometry
from engine.games.cricket import CRICKET_TARGETS, MARKS_KEYS, MARKS_TO_CLOSE, target_index
from engine.strategy.aims import FloatArray, aim_table, bed_values
from engine.strategy.reading import check_playing, opponents, thrower
from engine.throw_model import Aim, SpreadLike

__all__ = ["CLOSE", "LEAD_WEIGHT", "WIN", "CricketStrategy", "cricket_values"]

CLOSE = 10.0
"""Points a closing mark is worth in itself: every target must close to win."""
LEAD_WEIGHT = 0.4
"""How much a point counts while we do not trail: closing matters more then."""
WIN = 1000.0
"""The value of a dart that wins the game."""


def _points(number: int) -> int:
    return BULL if number == BULL else number


def cricket_values(state: Mapping[str, Any]) -> FloatArray:
    """The value of each bed (chance-row order) for the thrower in a Cricket state."""
    mode = str(state["options"]["mode"])
    me = thrower(state)
    others = opponents(state)
    mine = [int(me["marks"][key]) for key in MARKS_KEYS]
    theirs = [[int(o["marks"][key]) for key in MARKS_KEYS] for o in others]
    my_score = int(me["score"])
    scores = [int(o["score"]) for o in others]
    if mode == "cut-throat":
        ahead = bool(scores) and my_score <= min(scores)
    else:
        ahead = bool(scores) and my_score >= max(scores)
    weight = LEAD_WEIGHT if ahead else 1.0
    closed = sum(1 for m in mine if m >= MARKS_TO_CLOSE)

    def value(bed: Bed) -> float:
        target = target_index(bed.number)
        if target < 0 or bed.is_miss:
            return 0.0
        p = _points(CRICKET_TARGETS[target])
        have = mine[target]
        close = min(MARKS_TO_CLOSE - have, bed.multiplier) if have < MARKS_TO_CLOSE else 0
        extra = bed.multiplier - close
        open_others = sum(1 for marks in theirs if marks[target] < MARKS_TO_CLOSE)
        total = 0.0
        if close:
            per_mark = CLOSE
            if mode != "no-score":
                if open_others < len(theirs):
                    per_mark += p  # blocking: they can score on it against us
                if open_others:
                    per_mark += p / 2  # owning it lets us score
            total += close * per_mark
        gained = 0
        if extra and open_others and mode != "no-score":
            gained = extra * p
            total += gained * weight * (open_others if mode == "cut-throat" else 1)
        now_closed = closed + (1 if have + close >= MARKS_TO_CLOSE > have else 0)
        mine_after = my_score + gained if mode == "standard" else my_score
        if (close or gained) and now_closed == len(CRICKET_TARGETS):
            total += WIN if _wins(mode, mine_after, scores) else 0.0
        return total

    return bed_values(value)


def _wins(mode: str, my_score: int, scores: list[int]) -> bool:
    """Whether having closed everything wins with these scores."""
    if mode == "standard":
        return all(my_score >= s for s in scores)
    if mode == "cut-throat":
        return all(my_score <= s for s in scores)
    return True


@dataclass(frozen=True, slots=True)
class CricketStrategy:
    """The Cricket policy (module docstring): the aim of highest expected value."""

    geometry: BoardGeometry = STEEL
    game_id: str = "cricket"

    def aim(self, state: Mapping[str, Any], spread: SpreadLike) -> Aim:
        check_playing(state, self.game_id)
        values = cricket_values(state)
        if not np.any(values):
            values = cricket_fallback()
        return aim_table(spread, self.geometry).best(values)


def cricket_fallback() -> FloatArray:
    """Marks on any target, for a state where no bed is worth anything."""
    return bed_values(lambda bed: float(bed.multiplier) if target_index(bed.number) >= 0 else 0.0)
