"""STUB of the per-game board views (issue 24's helper ``views`` writes the
real package; its version replaces this file whole in the merge). Just
enough for the board page: :func:`scoreboard_html` a plain table of the
players with the visit's darts as buttons, :func:`board_card_html` a line per
board, :func:`dartboard_svg` a drawn board whose every bed is a focusable
``<path data-bed=...>`` with its centre in ``data-x``/``data-y``."""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup, escape

from engine.beds import DB, SB, Bed
from engine.board_geometry import SOFT, bed_centre, bed_regions
from leaderboard.api_models import LiveBoard
from mqtt_contract import cpu_label

__all__ = ["bed_centre_xy", "board_card_html", "dartboard_svg", "scoreboard_html"]

_MULTIPLIER_WORDS = {1: "single", 2: "double", 3: "treble"}


def _bed_words(bed: Bed) -> str:
    """A bed for a screen reader: ``treble 20``, ``outer bull``, ``miss``."""
    if bed.is_miss:
        return "miss"
    if bed == DB:
        return "bull"
    if bed == SB:
        return "outer bull"
    return f"{_MULTIPLIER_WORDS[bed.multiplier]} {bed.number}"


def _visit(state: dict[str, Any]) -> list[str]:
    """The darts of the visit on the board: in progress, else the one just thrown."""
    visit = state.get("visit") or []
    if not visit and state.get("phase") in ("takeout", "finished"):
        last = state.get("last_visit") or {}
        visit = last.get("darts") or []
    return [str(dart) for dart in visit]


def scoreboard_html(board: LiveBoard) -> Markup:
    """STUB: the players and scores, whose turn, and the visit's darts as buttons."""
    state: dict[str, Any] = dict(board.state or {})
    parts = [f'<div class="scoreboard" data-phase="{escape(state.get("phase") or "unknown")}">']
    if board.availability == "offline":
        parts.append('<p class="banner offline">The board is offline</p>')
    if not state.get("game"):
        parts.append('<p class="idle">No game on the board</p></div>')
        return Markup("".join(parts))
    current = state.get("current_player")
    parts.append(f'<p class="game">{escape(state["game"])}</p><table class="players"><tbody>')
    for index, player in enumerate(state.get("players") or []):
        cpu = player.get("cpu") or {}
        name = cpu_label(str(player.get("name", "")), cpu.get("level"))
        turn = index == current and not state.get("finished")
        marker = '<span class="turn">to throw: </span>' if turn else ""
        row = ' class="current" aria-current="true"' if turn else ""
        score = escape(player.get("score", ""))
        parts.append(f"<tr{row}><th>{marker}{escape(name)}</th><td>{score}</td></tr>")
    parts.append('</tbody></table><p class="visit">')
    for number, dart in enumerate(_visit(state), start=1):
        words = _bed_words(Bed.parse(dart))
        parts.append(
            f'<button type="button" class="dart" data-dart="{number}" '
            f'aria-label="Dart {number}: {words}">{escape(dart)}</button>'
        )
    parts.append("</p></div>")
    return Markup("".join(parts))


def board_card_html(board: LiveBoard) -> Markup:
    """STUB: the board's id and its players' scores on one line."""
    state: dict[str, Any] = dict(board.state or {})
    scores = ", ".join(
        f"{player.get('name')} {player.get('score')}" for player in state.get("players") or []
    )
    return Markup(f'<div class="card">{escape(board.board)}: {escape(scores)}</div>')


def bed_centre_xy(notation: str) -> tuple[float, float]:
    """Where a bed's marker goes in the SVG's coordinates (y down)."""
    x, y = bed_centre(Bed.parse(notation), SOFT)
    return (round(x, 1), round(-y, 1))


def _arc_path(r_in: float, r_out: float, start: float, end: float) -> str:
    """An annulus sector (clockwise degrees from up) as an SVG path, y down."""

    def point(r: float, degrees: float) -> str:
        angle = math.radians(degrees)
        return f"{r * math.sin(angle):.1f} {-r * math.cos(angle):.1f}"

    if end - start >= 360:
        return (
            f"M 0 {-r_out:.1f} A {r_out:.1f} {r_out:.1f} 0 1 1 0 {r_out:.1f} "
            f"A {r_out:.1f} {r_out:.1f} 0 1 1 0 {-r_out:.1f} Z"
            + (
                f" M 0 {-r_in:.1f} A {r_in:.1f} {r_in:.1f} 0 1 0 0 {r_in:.1f} "
                f"A {r_in:.1f} {r_in:.1f} 0 1 0 0 {-r_in:.1f} Z"
                if r_in > 0
                else ""
            )
        )
    return (
        f"M {point(r_in, start)} L {point(r_out, start)} "
        f"A {r_out:.1f} {r_out:.1f} 0 0 1 {point(r_out, end)} "
        f"L {point(r_in, end)} A {r_in:.1f} {r_in:.1f} 0 0 0 {point(r_in, start)} Z"
    )


def _fill(bed: Bed) -> str:
    """A bed's colour: singles black and cream by sector, rings red and green, as on a board."""
    if bed in (DB, SB):
        return "#b3261e" if bed == DB else "#1f7a3a"
    dark = SOFT.numbers.index(bed.number) % 2 == 0
    if bed.multiplier == 1:
        return "#1d1d1d" if dark else "#e9dfc3"
    return "#b3261e" if dark else "#1f7a3a"


def dartboard_svg() -> Markup:
    """STUB: each bed a focusable ``path`` with ``data-bed`` and its centre; empty markers."""
    paths = []
    for region in bed_regions(SOFT):
        notation = region.bed.notation
        x, y = bed_centre_xy(notation)
        words = _bed_words(region.bed).capitalize()
        outline = _arc_path(region.r_inner, region.r_outer, region.start_deg, region.end_deg)
        paths.append(
            f'<path d="{outline}" '
            f'data-bed="{notation}" data-x="{x}" data-y="{y}" role="button" tabindex="0" '
            f'aria-label="{words}" fill="{_fill(region.bed)}" class="bed"></path>'
        )
    numbers = []
    for index, number in enumerate(SOFT.numbers):
        angle = math.radians(index * 18)
        r = SOFT.double_outer + 14
        numbers.append(
            f'<text x="{r * math.sin(angle):.1f}" y="{-r * math.cos(angle) + 5:.1f}" '
            f'text-anchor="middle">{number}</text>'
        )
    return Markup(
        '<svg class="dartboard" stroke="#777" stroke-width="0.6" viewBox="-232 -232 464 464" role="group" '
        'aria-label="Dartboard: pick the bed a dart hit">'
        f'<g class="beds">{"".join(paths)}</g>'
        f'<g class="numbers" aria-hidden="true">{"".join(numbers)}</g>'
        '<g class="markers" aria-hidden="true"></g></svg>'
    )
