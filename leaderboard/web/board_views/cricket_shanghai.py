"""Cricket-Shanghai: the cricket grid with three stage boxes per target and
player (S, D, T; the bull 25, 25, 50), filled as the chain is completed;
the boxes the visit in progress will fill (``marks_after_visit`` beyond
``marks``) are drawn pending, as the engine judges a visit when it ends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.beds import BULL, RING_PREFIX, Bed
from engine.games.cricket import CRICKET_TARGETS, MARKS_TO_CLOSE
from engine.games.cricket_shanghai import BULL_CHAIN, NUMBER_CHAIN
from leaderboard.web.board_views.base import Seat
from leaderboard.web.board_views.cricket import CricketView
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import PlayerView, StateView

__all__ = ["BULL_STAGES", "STAGES", "CricketShanghaiView"]

STAGES = tuple(RING_PREFIX[multiplier] for multiplier in NUMBER_CHAIN)
"""A number's stage boxes, the engine's chain: S, D, T."""
BULL_STAGES = tuple(str(Bed(BULL, multiplier).points) for multiplier in BULL_CHAIN)
"""The bull's stage boxes, by points: 25, 25, 50."""
ELEMENTS = len(CRICKET_TARGETS) * MARKS_TO_CLOSE
"""Stage boxes per side: the score to complete (21)."""


@register_view("cricket-shanghai")
class CricketShanghaiView(CricketView):
    template = "board_views/cricket.html"

    def subtitle(self, state: StateView) -> str:
        strict = state.game_option("bull_order") == "strict"
        return "S-D-T, bull 25-25-50" + (" · bull in throw order" if strict else "")

    def footer(self, player: PlayerView) -> str:
        gained = sum(dict(player.marks_after_visit).values()) - sum(dict(player.marks).values())
        base = super().footer(player)
        return f"{base} · +{gained} this visit" if player.marks_after_visit and gained > 0 else base

    def card_score(self, state: StateView, seat: Seat) -> str:
        score = seat.player.score
        return "-" if score is None else f"{score}/{ELEMENTS}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            **super().context(state),
            "boxes": True,
            "stages": STAGES,
            "bull_stages": BULL_STAGES,
            "elements": ELEMENTS,
        }
