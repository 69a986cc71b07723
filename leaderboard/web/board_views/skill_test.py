"""Skill Test: a card per player. While they throw, the darts thrown and
left, the target and the hits so far; once their darts are all thrown, their
spread sigma (mm) with its interval, the computer level that throws alike,
the best aim and a few checkout routes for that sigma."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.web.board_views.base import GameView, Seat, format_value
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import PlayerView, SkillReport, StateView

__all__ = ["ADVICE_SCORES", "SkillTestView", "advice_lines", "progress"]

ADVICE_SCORES = (40, 32, 50, 100)
"""The checkout routes a card lists, when the report has advice for them."""
SIGMA = "\N{GREEK SMALL LETTER SIGMA}"
"""The spread's symbol."""


def advice_lines(skill: SkillReport) -> list[str]:
    """The report in lines: the spread, the level, the best aim, the routes."""
    lines = [f"spread {SIGMA} {skill.sigma_mm:.1f} mm"]
    if skill.interval is not None:
        lines[0] += f" ({skill.interval[0]:.1f}-{skill.interval[1]:.1f})"
    if skill.level is not None:
        lines.append(f"throws like CPU {skill.level}")
    if skill.best_aim_bed:
        average = skill.best_average
        per_visit = f" ({format_value(average)} a visit)" if average is not None else ""
        lines.append(f"aim {skill.best_aim_bed}{per_visit}")
    for advice in skill.checkouts:
        if advice.score in ADVICE_SCORES:
            darts = " ".join(advice.route) if advice.finishes else f"{advice.aim} first"
            lines.append(f"{advice.score}: {darts}")
    return lines


def progress(player: PlayerView) -> str:
    """Darts thrown and left, and the hits on the target."""
    left = dict(player.extras).get("remaining")
    left_text = f", {left} left" if isinstance(left, int) else ""
    hits = f"{player.score or 0} hits on {player.target or '?'}"
    return f"{hits} · {player.stats.darts} darts{left_text}"


@register_view("skill-test")
class SkillTestView(GameView):
    template = "board_views/skill_test.html"

    def subtitle(self, state: StateView) -> str:
        darts = state.option("darts")
        target = state.option("target")
        return " · ".join(
            str(part)
            for part in (target and f"at {str(target).upper()}", darts and f"{darts} darts")
            if part
        )

    def card_score(self, state: StateView, seat: Seat) -> str:
        skill = seat.player.skill
        return (
            f"{SIGMA} {skill.sigma_mm:.1f} mm" if skill is not None else str(seat.player.score or 0)
        )

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            "progress": [progress(p) for p in state.players],
            "reports": [
                advice_lines(p.skill) if p.skill is not None else [] for p in state.players
            ],
        }
