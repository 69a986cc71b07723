"""Fifty-one by Fives: a card per player with the side's score out of the
target and a bar filling towards it; under the cards, the visit in progress
as the rules judge it when it ends: its running total, whether all three
darts scored and whether the total divides by 5, what it adds so far, and a
bust warning once it would take the side past the target.

The engine judges the visit only when it ends, so all of this is worked out
here from the visit's darts, the thrower's score and the target; the bar of
the side to throw shows the fives the visit adds so far as a pending
stretch.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from display.darts import bed_of
from display.layout import COLORS, Color, Layout, split
from display.scenes.base import (
    Scene,
    State,
    format_value,
    int_or_none,
    is_winner,
    player_label,
)
from display.scenes.registry import register_scene
from engine import ALL_BEDS
from engine.game import DARTS_PER_VISIT
from engine.games.fifty_one_by_fives import FIVE

__all__ = ["FIVE", "MAX_VISIT", "FiftyOneByFivesScene", "VisitJudgement", "judge_visit"]

MAX_VISIT = DARTS_PER_VISIT * max(bed.points for bed in ALL_BEDS)
"""The most three darts can score (T20 T20 T20)."""


def target_of(state: State) -> int:
    first = state.players[0].target_number if state.players else None
    return first or int_or_none(state.game_option("target")) or FIVE


@dataclass(frozen=True)
class VisitJudgement:
    """The visit in progress as the rules will judge it."""

    darts: int
    """Darts thrown in the visit."""
    total: int
    """Their running total."""
    scoring: int
    """Darts that scored (not a miss)."""
    score: int
    """The side's score before the visit."""
    target: int

    @property
    def missed(self) -> bool:
        """A dart missed: the visit adds nothing."""
        return self.scoring < self.darts

    @property
    def divisible(self) -> bool:
        return self.total % FIVE == 0

    @property
    def fives(self) -> int:
        """The fives the total makes so far."""
        return self.total // FIVE

    @property
    def bust(self) -> bool:
        """The visit can only take the side past the target (if it scores at all)."""
        return not self.missed and self.darts > 0 and self.score + self.fives > self.target

    @property
    def adds(self) -> int:
        """What the visit adds if it ends with the total it has (three darts
        scored and a multiple of 5); 0 when it cannot add anything."""
        if self.missed or self.bust or not self.divisible or self.darts == 0:
            return 0
        return self.fives


def judge_visit(state: State) -> VisitJudgement | None:
    """The visit in progress, judged; ``None`` when nobody is to throw."""
    player = state.player(state.current_player)
    if player is None:
        return None
    darts = [bed_of(dart) for dart in state.visit]
    score = player.score or 0
    total = sum(bed.points for bed in darts if bed is not None)
    target = target_of(state)
    if state.finished and state.winner is not None:
        # the winning visit stays in ``visit``: the score already has it
        score = max(0, score - total // FIVE)
    return VisitJudgement(
        darts=len(darts),
        total=total,
        scoring=sum(1 for bed in darts if bed is None or not bed.is_miss),
        score=score,
        target=target,
    )


@register_scene("fifty-one-by-fives")
class FiftyOneByFivesScene(Scene):
    visit_share = 0.3
    """The share of the scoreboard's height for the visit panel."""

    def subtitle(self, state: State) -> str:
        return f"to {target_of(state)} exactly"

    # ----------------------------------------------------------- geometry

    def panel_rects(self, layout: Layout, rect: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
        """The players' cards area and the visit panel in ``rect``."""
        gap = layout.px(14)
        visit_h = round(rect.height * self.visit_share)
        cards = pygame.Rect(rect.x, rect.y, rect.width, rect.height - visit_h - gap)
        return cards, pygame.Rect(rect.x, cards.bottom + gap, rect.width, visit_h)

    def bar_rect(self, layout: Layout, card: pygame.Rect) -> pygame.Rect:
        inner = card.inflate(-layout.px(20), -layout.px(12))
        top = inner.y + round(inner.height * 0.68)
        return pygame.Rect(inner.x, top, inner.width, max(layout.px(6), round(inner.height * 0.09)))

    # ------------------------------------------------------------ drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        cards, visit = self.panel_rects(layout, rect)
        self.draw_cards(surface, layout, cards, state, self.draw_card)
        layout.panel(surface, visit, COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            self.draw_judgement(surface, layout, visit, state)

    def draw_card(
        self, surface: pygame.Surface, layout: Layout, card: pygame.Rect, state: State, index: int
    ) -> None:
        player = state.players[index]
        target = target_of(state)
        score = player.score or 0
        inner = card.inflate(-layout.px(20), -layout.px(12))
        name_rect = pygame.Rect(inner.x, inner.y, inner.width, round(inner.height * 0.2))
        bar = self.bar_rect(layout, card)
        score_rect = pygame.Rect(inner.x, name_rect.bottom, inner.width, bar.y - name_rect.bottom)
        stats_rect = pygame.Rect(
            inner.x,
            bar.bottom + layout.px(4),
            inner.width,
            inner.bottom - bar.bottom - layout.px(4),
        )
        self.draw_name(surface, layout, name_rect, state, index)
        won = is_winner(state, index)
        big, small = split(score_rect, 2, layout.px(6))
        big.width = round(score_rect.width * 0.6)
        small.x, small.width = big.right + layout.px(6), score_rect.right - big.right - layout.px(6)
        layout.text(
            surface,
            format_value(score),
            big,
            layout.font_size(160),
            COLORS.good if won else COLORS.text,
            "right",
        )
        layout.text(
            surface,
            f"/ {target}",
            small.inflate(0, -round(small.height * 0.3)),
            layout.font_size(60),
            COLORS.dim,
            "left",
        )
        pending = 0
        judgement = judge_visit(state)
        if (
            judgement is not None
            and not state.finished
            and self._same_side(state, index)
            and judgement.adds
        ):
            pending = judgement.adds
        self.draw_bar(surface, layout, bar, score, pending, target, won)
        stats = player.stats
        items = [
            ("to go", str(max(0, target - score))),
            ("fives", format_value(stats.fives or 0)),
            ("busts", format_value(stats.busts or 0)),
        ]
        self.draw_stats(surface, layout, stats_rect, items, 20)

    def _same_side(self, state: State, index: int) -> bool:
        """Player ``index`` is on the side of the player to throw."""
        current = state.player(state.current_player)
        if current is None:
            return False
        if current.index == index:
            return True
        team = state.players[index].team
        return team is not None and team == current.team

    def draw_bar(
        self,
        surface: pygame.Surface,
        layout: Layout,
        bar: pygame.Rect,
        score: int,
        pending: int,
        target: int,
        won: bool,
    ) -> None:
        """The score as a bar out of the target, with the visit's ``pending`` fives after it."""
        radius = layout.px(4)
        pygame.draw.rect(surface, COLORS.panel_out, bar, border_radius=radius)
        share = min(1.0, max(0.0, score / target)) if target > 0 else 0.0
        done = pygame.Rect(bar.x, bar.y, round(bar.width * share), bar.height)
        if pending:
            after = min(1.0, (score + pending) / target) if target > 0 else 0.0
            stretch = pygame.Rect(
                done.right, bar.y, round(bar.width * after) - done.width, bar.height
            )
            pygame.draw.rect(surface, COLORS.pending, stretch, border_radius=radius)
        if done.width:
            colour: Color = COLORS.good if won or score else COLORS.line
            pygame.draw.rect(surface, colour, done, border_radius=radius)
        pygame.draw.rect(surface, COLORS.line, bar, 1, radius)

    def draw_judgement(
        self, surface: pygame.Surface, layout: Layout, panel: pygame.Rect, state: State
    ) -> None:
        """The visit in progress: total, the two conditions, what it adds."""
        judgement = judge_visit(state)
        if judgement is None:
            return
        current = state.current_player or 0
        inner = panel.inflate(-layout.px(24), -layout.px(12))
        total_col, checks_col, outcome_col = split(inner, 3, layout.px(16))
        total_col.width = round(inner.width * 0.22)
        checks_col.x = total_col.right + layout.px(16)
        checks_col.width = round(inner.width * 0.3)
        outcome_col.x = checks_col.right + layout.px(16)
        outcome_col.width = inner.right - outcome_col.x

        caption, value = split(total_col, 2, 0, vertical=True)
        caption.height = round(total_col.height * 0.3)
        value.y, value.height = caption.bottom, total_col.bottom - caption.bottom
        verb = "'s visit" if judgement.darts else " to throw"
        layout.text(
            surface,
            f"{player_label(state, current)}{verb}",
            caption,
            layout.font_size(26),
            COLORS.dim,
        )
        layout.text(surface, str(judgement.total), value, layout.font_size(110), COLORS.text)

        darts_ok = judgement.scoring == DARTS_PER_VISIT
        if judgement.missed:
            darts_text, darts_colour = "a miss: not all scored", COLORS.bad
        else:
            darts_text = f"{judgement.scoring} of {DARTS_PER_VISIT} darts scored"
            darts_colour = COLORS.good if darts_ok else COLORS.dim
        if judgement.darts == 0:
            five_text, five_colour = "total a multiple of 5", COLORS.dim
        elif judgement.divisible:
            five_text = f"{judgement.total} = {judgement.fives} x {FIVE}"
            five_colour = COLORS.good
        else:
            five_text = f"{judgement.total} is not a multiple of {FIVE}"
            five_colour = COLORS.bad if judgement.darts == DARTS_PER_VISIT else COLORS.dim
        for (text, colour), line in zip(
            ((darts_text, darts_colour), (five_text, five_colour)),
            split(checks_col.inflate(0, -layout.px(8)), 2, layout.px(6), vertical=True),
            strict=True,
        ):
            self.draw_check(surface, layout, line, text, colour)

        headline, hint = split(outcome_col.inflate(0, -layout.px(8)), 2, 0, vertical=True)
        headline.height = round(outcome_col.height * 0.58)
        hint.y, hint.height = headline.bottom, outcome_col.bottom - headline.bottom
        head, head_colour, note = self.outcome(judgement, state.finished)
        layout.text(surface, head, headline, layout.font_size(50), head_colour, "left")
        layout.text(surface, note, hint, layout.font_size(26), COLORS.dim, "left")

    def draw_check(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, text: str, colour: Color
    ) -> None:
        """A condition: a dot in its colour and the text."""
        dot = max(3, min(rect.height // 4, layout.px(10)))
        pygame.draw.circle(surface, colour, (rect.x + dot, rect.centery), dot)
        text_rect = pygame.Rect(rect.x + 3 * dot, rect.y, rect.width - 3 * dot, rect.height)
        layout.text(surface, text, text_rect, layout.font_size(28), colour, "left")

    def outcome(self, judgement: VisitJudgement, finished: bool) -> tuple[str, Color, str]:
        """The headline (and its colour) and a hint: what the visit adds."""
        to_go = judgement.target - judgement.score
        reach = (
            f"{to_go} to go: a visit of {to_go * FIVE} wins"
            if to_go * FIVE <= MAX_VISIT
            else f"{to_go} to go"
        )
        if finished:
            if judgement.adds and judgement.score + judgement.adds == judgement.target:
                return f"adds {judgement.adds}", COLORS.good, f"{judgement.target} exactly"
            return "Game over", COLORS.dim, ""
        if judgement.darts == 0:
            return "3 scoring darts", COLORS.dim, reach
        if judgement.missed:
            return "adds nothing", COLORS.bad, "a visit with a miss never scores"
        if judgement.bust:
            over = judgement.score + judgement.fives
            return (
                f"Bust: {judgement.score} + {judgement.fives} passes {judgement.target}",
                COLORS.bad,
                f"{over} would be past {judgement.target}: this visit adds nothing",
            )
        if judgement.divisible:
            return f"adds {judgement.fives} so far", COLORS.accent, reach
        return "adds nothing yet", COLORS.dim, reach
