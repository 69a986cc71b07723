"""English Cricket: the two sides side by side, each with its runs and a
BATTING or BOWLING plate (they swap at the second innings); the innings and
who bats and bowls; ten wicket boxes that fill as wickets fall in the
current innings; and what the visit on the board makes: a batting visit's
runs (its total above 40), a bowling visit's wickets (SB one, DB two).

The wickets a bowling visit took are the bulls of its darts while fewer than
ten wickets are down. The visit that takes the tenth wicket may also hold
dead darts, and the state does not say how many wickets were down before it,
so that visit is shown as the innings' end rather than with a count.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from display.darts import bed_of, total_points
from display.layout import COLORS, Color, Layout, bands, split
from display.scenes.base import (
    Scene,
    State,
    format_value,
    player_label,
    short_name,
    shown_visit,
)
from display.scenes.registry import register_scene
from engine.games.english_cricket import INNINGS_OVER, RUNS_FREE, WICKETS

__all__ = [
    "EnglishCricketScene",
    "VisitSummary",
    "side_name",
    "side_of",
    "visit_summary",
]


def side_of(state: State, index: int) -> int:
    """Player ``index``'s side: its team in a team game, else the player itself."""
    player = state.player(index)
    if player is None:
        return 0
    team = player.team
    return team if team is not None and state.teams else index


def members(state: State, side: int) -> list[int]:
    """The players of ``side``, in lineup order."""
    return [i for i in range(len(state.players)) if side_of(state, i) == side]


def side_name(state: State, side: int) -> str:
    """The team's name, or the player's."""
    team = state.team(side)
    if team is not None:
        return short_name(team.name or f"Side {side + 1}")
    return player_label(state, side)


def batting_side(state: State) -> int | None:
    for index, player in enumerate(state.players):
        if player.batting:
            return side_of(state, index)
    return None


def side_runs(state: State, side: int) -> int:
    return next((state.players[i].score or 0 for i in members(state, side)), 0)


@dataclass(frozen=True)
class VisitSummary:
    """What the visit on the board (in progress, or the last one) makes."""

    text: str
    colour: Color
    wickets: int = 0
    """Wickets it took in the current innings (the boxes to mark as this visit's)."""


def visit_summary(state: State) -> VisitSummary | None:
    """The visit in progress (or, between visits, the last one) in words:
    runs for a batting visit, wickets for a bowling one."""
    darts, player, is_last = shown_visit(state)
    thrower = state.player(player)
    if not darts or player is None or thrower is None:
        return None
    name = player_label(state, player)
    last = state.last_visit
    over = last.visit_over if is_last and last is not None else None
    if not is_last:
        over = state.visit_over
    prefix = "Last visit: " if is_last else ""
    wickets = state.wickets or 0
    ended = over == INNINGS_OVER or (not is_last and state.finished)
    if ended or not thrower.batting:
        if ended or wickets >= WICKETS:
            all_out = side_name(state, 1 - side_of(state, player))
            runs = side_runs(state, 1 - side_of(state, player))
            return VisitSummary(
                f"{prefix}{name} takes the tenth wicket: {all_out} all out for {runs}",
                COLORS.accent,
            )
        took = sum(bed.multiplier for bed in map(bed_of, darts) if bed is not None and bed.is_bull)
        took = min(took, wickets)
        verb = "took" if is_last else "bowls:"
        return VisitSummary(
            f"{prefix}{name} {verb} {took} wicket{'' if took == 1 else 's'}",
            COLORS.accent if took else COLORS.dim,
            took,
        )
    total = total_points(darts)
    runs = max(0, total - RUNS_FREE)
    verb = "made" if is_last else "bats:"
    if runs:
        text = f"{prefix}{name} {verb} {total} = {runs} run{'' if runs == 1 else 's'}"
        return VisitSummary(text, COLORS.good)
    return VisitSummary(
        f"{prefix}{name} {verb} {total}, no runs (runs from {RUNS_FREE + 1})", COLORS.dim
    )


@register_scene("english-cricket")
class EnglishCricketScene(Scene):
    def subtitle(self, state: State) -> str:
        return f"runs above {RUNS_FREE}  ·  bulls take wickets"

    # ----------------------------------------------------------- geometry

    def body_parts(self, layout: Layout, rect: pygame.Rect) -> dict[str, pygame.Rect]:
        """The ``innings`` strip, the ``visit`` line, the two ``sides`` and the
        ``wickets``, top to bottom (the visit line near the top: the takeout
        banner covers the bottom of the screen while the darts come out)."""
        gap = layout.px(12)
        parts: dict[str, pygame.Rect] = {}
        y = rect.y
        for key, share in (("innings", 0.09), ("visit", 0.08), ("sides", 0.52)):
            parts[key] = pygame.Rect(rect.x, y, rect.width, round(rect.height * share))
            y = parts[key].bottom + gap
        parts["wickets"] = pygame.Rect(rect.x, y, rect.width, rect.bottom - y)
        return parts

    def side_rects(self, layout: Layout) -> list[pygame.Rect]:
        """The two sides' panels in a window of ``layout``'s size."""
        sides = self.body_parts(layout, self.regions(layout)["main"])["sides"]
        return split(sides, 2, layout.px(16))

    def wicket_rects(self, layout: Layout) -> list[pygame.Rect]:
        """The ten wicket boxes, first to fall first, in a window of ``layout``'s size."""
        area = self.body_parts(layout, self.regions(layout)["main"])["wickets"]
        boxes = pygame.Rect(area.x, area.y + round(area.height * 0.36), area.width, 0)
        boxes.height = area.bottom - boxes.y
        gap = layout.px(10)
        width = min(boxes.width, WICKETS * round(boxes.height * 1.4) + (WICKETS - 1) * gap)
        row = pygame.Rect(0, boxes.y, width, boxes.height)
        row.centerx = area.centerx
        return split(row, WICKETS, gap)

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        parts = self.body_parts(layout, rect)
        self.draw_innings(surface, layout, parts["innings"], state)
        for side, panel in enumerate(self.side_rects(layout)):
            self.draw_side(surface, layout, panel, state, side)
        summary = visit_summary(state)
        self.draw_wickets(surface, layout, parts["wickets"], state, summary)
        if summary is not None:
            layout.text(
                surface,
                summary.text,
                parts["visit"].inflate(-layout.px(16), 0),
                layout.font_size(40),
                summary.colour,
            )

    def draw_innings(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        innings = 1 if state.innings is None else state.innings
        batting = batting_side(state)
        left, middle, right = split(rect, 3, layout.px(16))
        layout.text(
            surface, f"Innings {innings} of 2", left, layout.font_size(40), COLORS.text, "left"
        )
        if batting is None:
            return
        bowling = 1 - batting
        roles = f"{side_name(state, batting)} bats  ·  {side_name(state, bowling)} bowls"
        layout.text(surface, roles, middle, layout.font_size(34), COLORS.text)
        if innings == 2 and not state.finished:
            behind = side_runs(state, bowling) - side_runs(state, batting)
            name = side_name(state, batting)
            chase = (
                f"{name} needs {behind + 1} to lead" if behind >= 0 else f"{name} lead by {-behind}"
            )
            layout.text(surface, chase, right, layout.font_size(30), COLORS.dim, "right")

    def draw_side(
        self, surface: pygame.Surface, layout: Layout, panel: pygame.Rect, state: State, side: int
    ) -> None:
        players = state.players
        team = members(state, side)
        current = state.current_player
        finished = state.finished
        is_current = current is not None and side_of(state, current) == side and not finished
        colour = COLORS.panel_current if is_current else COLORS.panel
        border = COLORS.accent if is_current else COLORS.line
        layout.panel(surface, panel, colour, border, 4 if is_current else 1.5)
        inner = panel.inflate(-layout.px(20), -layout.px(14))
        shares = (("title", 0.17), ("role", 0.13), ("runs", 0.3), ("label", 0.08))
        rows = bands(inner, shares, "members")
        rows["members"].y += layout.px(6)
        rows["members"].height = max(0, rows["members"].height - layout.px(6))
        with layout.on(colour):
            if state.teams:
                layout.text(
                    surface,
                    side_name(state, side),
                    rows["title"],
                    layout.font_size(44),
                    COLORS.text,
                )
            elif team:
                self.draw_name(surface, layout, rows["title"], state, team[0], 44)
            self.draw_role(surface, layout, rows["role"], bool(team and players[team[0]].batting))
            won = state.winner in team or (
                state.winner_team is not None and state.winner_team == side
            )
            layout.text(
                surface,
                str(side_runs(state, side)),
                rows["runs"].inflate(0, layout.px(6)),
                layout.font_size(150),
                COLORS.good if won else COLORS.text,
            )
            layout.text(surface, "runs", rows["label"], layout.font_size(26), COLORS.dim)
            if state.teams:
                self.draw_members(surface, layout, rows["members"], state, team)
            elif team:
                stats = players[team[0]].stats
                items = [
                    ("wickets taken", format_value(stats.wickets_taken or 0)),
                    ("darts", format_value(stats.darts)),
                ]
                self.draw_stats(surface, layout, rows["members"], items, 22)

    def draw_role(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, batting: bool
    ) -> None:
        """A BATTING (green) or BOWLING (blue) plate."""
        fill = COLORS.good if batting else COLORS.info
        plate = pygame.Rect(0, rect.y, min(rect.width, rect.height * 5), rect.height)
        plate.centerx = rect.centerx
        layout.panel(surface, plate, fill)
        with layout.on(fill):
            layout.text(
                surface,
                "BATTING" if batting else "BOWLING",
                plate.inflate(-layout.px(12), -layout.px(6)),
                layout.font_size(34),
                COLORS.background,
            )

    def draw_members(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        team: list[int],
    ) -> None:
        """A team's players, one a row, with the runs and wickets each made."""
        players = state.players
        for index, row in zip(team, split(rect, max(1, len(team)), 0, vertical=True), strict=False):
            name_rect, stat_rect = split(row, 2, layout.px(8))
            name_rect.width = round(row.width * 0.6)
            stat_rect.x = name_rect.right + layout.px(8)
            stat_rect.width = row.right - stat_rect.x
            self.draw_name(surface, layout, name_rect, state, index, 28)
            stats = players[index].stats
            text = (
                f"{format_value(stats.runs or 0)} runs  ·  "
                f"{format_value(stats.wickets_taken or 0)} wkts"
            )
            layout.text(surface, text, stat_rect, layout.font_size(24), COLORS.dim, "right")

    def draw_wickets(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        summary: VisitSummary | None,
    ) -> None:
        """The caption and the ten wicket boxes: fallen ones filled, the ones
        the visit on the board took in the accent colour, standing ones as stumps."""
        wickets = max(0, min(WICKETS, state.wickets or 0))
        caption = pygame.Rect(rect.x, rect.y, rect.width, round(rect.height * 0.3))
        innings = 1 if state.innings is None else state.innings
        layout.text(
            surface,
            f"Wickets {wickets}/{WICKETS}  ·  innings {innings}",
            caption,
            layout.font_size(30),
            COLORS.dim,
        )
        fresh = summary.wickets if summary is not None else 0
        radius = layout.px(6)
        for number, box in enumerate(self.wicket_rects(layout)):
            if number < wickets - fresh:
                pygame.draw.rect(surface, COLORS.dim, box, border_radius=radius)
            elif number < wickets:
                pygame.draw.rect(surface, COLORS.accent, box, border_radius=radius)
            else:
                pygame.draw.rect(surface, COLORS.line, box, layout.px(2), radius)
                _stumps(surface, layout, box)


def _stumps(surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
    """Three stumps and the bails in a standing wicket's box."""
    inner = box.inflate(-box.width // 3, -box.height // 3)
    if inner.width < 3 or inner.height < 3:
        return
    width = layout.px(2)
    for x in (inner.x, inner.centerx, inner.right):
        pygame.draw.line(surface, COLORS.faint, (x, inner.y), (x, inner.bottom), width)
    pygame.draw.line(surface, COLORS.faint, (inner.x, inner.y), (inner.right, inner.y), width)
