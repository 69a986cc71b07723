"""Shanghai (the numbers game): the round's target number, big, with the
rounds' targets in a strip (played, now, to come); the single, double and
treble of the target the visit in progress has hit (all three is a
Shanghai, and wins); and a card per player with the side's total."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.beds import NUMBERS, RING_PREFIX
from engine.games.shanghai import SHANGHAI_RINGS
from leaderboard.web.board_views.base import GameView, bed_of
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import StateView

__all__ = ["RINGS", "ShanghaiView", "round_targets", "target_of"]

RINGS = tuple(RING_PREFIX[multiplier] for multiplier in sorted(SHANGHAI_RINGS))
"""The rings a Shanghai needs: S, D, T."""


def _int(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
    )


def round_targets(state: StateView) -> list[int]:
    """Each round's target number, the first round first (after 20, 1 again)."""
    rounds = _int(state.game_option("rounds"), 1)
    start = _int(state.game_option("start"), 1)
    return [(start + n - 1) % NUMBERS[-1] + 1 for n in range(rounds)]


def target_of(state: StateView) -> int:
    """The number the round being played scores on."""
    target = state.players[0].target_number if state.players else None
    if target is not None:
        return target
    targets = round_targets(state)
    return targets[min(max((state.round or 1) - 1, 0), len(targets) - 1)]


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
