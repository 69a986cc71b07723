"""Shanghai (the numbers game): the round's target number, big, with the
rounds' targets in a strip (played, now, to come); the single, double and
treble of the target the visit in progress has hit (all three is a
Shanghai, and wins); and a card per player with the side's total."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.beds import RING_PREFIX
from engine.games.shanghai import SHANGHAI_RINGS
from leaderboard.web.board_views.base import GameView, bed_of
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView
from mqtt_contract.scoreboard import round_targets, target_of

__all__ = ["RINGS", "ShanghaiView", "round_targets", "target_of"]

RINGS = tuple(RING_PREFIX[multiplier] for multiplier in sorted(SHANGHAI_RINGS))
"""The rings a Shanghai needs: S, D, T."""


@register_view("shanghai")
class ShanghaiView(GameView):
    template = "board_views/shanghai.html"

    def subtitle(self, state: StateView) -> str:
        return f"{len(round_targets(state))} rounds"

    def context(self, state: StateView) -> Mapping[str, Any]:
        target = target_of(state)
        hit = set()
        for dart in state.visit:
            bed = bed_of(dart)
            if bed is not None and bed.number == target and bed.multiplier in SHANGHAI_RINGS:
                hit.add(RING_PREFIX[bed.multiplier])
        played = state.round or 1
        strip = [
            ("done" if n < played or state.finished else "now" if n == played else "todo", number)
            for n, number in enumerate(round_targets(state), start=1)
        ]
        return {"target": target, "rings": [(ring, ring in hit) for ring in RINGS], "strip": strip}
