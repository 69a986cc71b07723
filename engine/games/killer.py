"""Killer (seed 000): each side picks a number, becomes a killer on its own
double, then takes lives off the other sides on their doubles."""

from __future__ import annotations

from typing import Any

from engine.beds import NUMBERS, Bed
from engine.game import Game, VisitOver
from engine.options import Option
from engine.registry import register
from engine.traits import Highlight, Measure

__all__ = ["KILLER_KEY", "NUMBER_CHOSEN", "Killer"]

NUMBER_CHOSEN = VisitOver.NUMBER_CHOSEN
"""The ``visit_over`` reason of a visit whose dart picked the side's number."""
KILLER_KEY = "killer"
"""The player key saying the side is a killer (its name is the game's id, too)."""


@register
class Killer(Game):
    """A side's first dart on a free number 1-20 picks its number and ends the
    visit. Its own double makes it a killer; a killer's dart on an opponent's
    double takes a life, on its own double loses one. No lives left: out."""

    id = "killer"
    highlight = Highlight("lives taken", Measure.STAT, "lives_taken")
    name = "Killer"
    summary = "Pick a number, hit its double to become a killer, then take the others' lives."
    options_spec = (
        Option("lives", 3, "lives each side starts with", minimum=1),
        Option(
            "any_ring_kills",
            False,
            "any ring of a number counts, not only its double",
        ),
    )

    def _setup(self) -> None:
        sides = len(self._sides)
        self._lives = [int(self.options["lives"])] * sides
        self._number: list[int | None] = [None] * sides
        self._killer = [False] * sides
        self._owner: dict[int, int] = {}
        self._any_ring = bool(self.options["any_ring_kills"])
        self._lives_taken = [0] * len(self.lineup.players)

    def _on_dart(self, bed: Bed) -> None:
        side = self._side
        if self._number[side] is None:
            if bed.number in NUMBERS and bed.number not in self._owner:
                self._number[side] = bed.number
                self._owner[bed.number] = side
                self._end_visit_early(NUMBER_CHOSEN)
            return
        if not (self._any_ring or bed.multiplier == 2):
            return
        owner = self._owner.get(bed.number)
        if owner is None or self._out[owner]:
            return
        if owner == side:
            if not self._killer[side]:
                self._killer[side] = True
            else:
                self._take_life(side)
        elif self._killer[side]:
            self._lives_taken[self._player] += 1
            self._take_life(owner)

    def _take_life(self, side: int) -> None:
        self._lives[side] -= 1
        if self._lives[side] == 0:
            self._eliminate(side)

    def _side_state(self, side: int) -> dict[str, Any]:
        return {
            "score": self._lives[side],
            "number": self._number[side],
            "lives": self._lives[side],
            KILLER_KEY: self._killer[side],
        }

    def _player_stats(self, player: int) -> dict[str, Any]:
        return {"lives_taken": self._lives_taken[player]}
