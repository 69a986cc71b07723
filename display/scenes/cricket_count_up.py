"""Cricket Count-Up: the Count-Up grid with each round's marks, the total
marks and the side's marks per round (MPR); the line under the grid shows the
thrower's marks on each target (nothing closes)."""

from __future__ import annotations

from collections.abc import Sequence

from display.scenes.base import State
from display.scenes.count_up import RoundsScene, rounds_of
from display.scenes.registry import register_scene
from engine.games.cricket_count_up import TARGETS_SHOWN
from mqtt_contract import PlayerView

__all__ = ["CricketCountUpScene"]


def _player(state: State, index: int) -> PlayerView:
    return state.player(index) or PlayerView(index)


@register_scene("cricket-count-up")
class CricketCountUpScene(RoundsScene):
    def subtitle(self, state: State) -> str:
        rounds = rounds_of(state)
        return f"{rounds} round{'s' if rounds != 1 else ''}  ·  marks on 15-20 and the bull"

    def figure_text(self, state: State, members: Sequence[int]) -> str:
        players = [_player(state, m) for m in members]
        visits = sum(p.stats.visits for p in players)
        marks = sum(p.stats.marks or 0 for p in players)
        return f"MPR {marks / visits:.2f}" if visits else "MPR -"

    def rule_text(self, state: State) -> str:
        if state.finished:
            return "Final"
        current = state.current_player
        marks = dict(_player(state, current).target_marks) if current is not None else {}
        shown = "  ".join(
            f"{'Bull' if key == 'bull' else key}:{marks.get(key, 0)}" for key in TARGETS_SHOWN
        )
        return f"Round {state.round or 1}: T 3 marks, D 2, S 1, SB 1, DB 2  ·  {shown}"
