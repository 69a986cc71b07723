"""A match on every game screen (docs/matches.md "On the screens"): the band
above the scoreboard (which leg of which set, the format, each side's legs
and sets, who throws first), the starter's marker, the leg-won moment, the
strip while a won leg waits for NEXT and the cork's panel.

Drawing only, from the state's ``match`` block (``StateView.match``) and a
``leg_won`` event (``mqtt_contract.LegWon``); the words are
``mqtt_contract.scoreboard``'s, which the web's board page says the same way.
It imports no scene, so :mod:`display.scenes.base` and the banners use it.
"""

from __future__ import annotations

import pygame

from display.layout import COLORS, Layout, split
from mqtt_contract import StateView
from mqtt_contract.event_payload import LegWon
from mqtt_contract.scoreboard import (
    call_words,
    cork_turn,
    cork_words,
    game_shot_words,
    leg_in_set,
    leg_ordinal,
    match_format_words,
    match_position_words,
    match_score_words,
    match_winner_words,
    side_count,
    side_label,
    side_legs,
    side_of,
    starter_side,
    starter_words,
)

__all__ = [
    "CALL_HINT",
    "LEG_WON_SECONDS",
    "MATCH_BAND",
    "NEXT_HINT",
    "call_headline",
    "cork_lines",
    "draw_cork",
    "draw_leg_won",
    "draw_match_band",
    "draw_starter_mark",
    "leg_over_words",
    "leg_won_words",
    "shows_match",
]

MATCH_BAND = 0.075
"""The share of the window's height the match band takes above the scoreboard."""
LEG_WON_SECONDS = 2.0
"""How long the leg-won moment covers the middle of the screen: never longer,
so it hides whose turn it is for two seconds at most."""
NEXT_HINT = "press NEXT for the next leg"
"""What the strip of a won leg says to do."""
CALL_HINT = "throw a dart or press NEXT to start"
"""How the players of a called match start it."""


def shows_match(state: StateView | None) -> bool:
    """The state is a match's (it has a game and a ``match`` block)."""
    return state is not None and bool(state.game) and state.match.present


def draw_starter_mark(surface: pygame.Surface, centre: tuple[int, int], radius: int) -> None:
    """The marker of the side that throws first in the leg: a small bull
    (a green ring round a red centre)."""
    radius = max(3, radius)
    pygame.draw.circle(surface, COLORS.good, centre, radius)
    pygame.draw.circle(surface, COLORS.bad, centre, max(1, radius * 5 // 10))


def draw_match_band(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: StateView
) -> None:
    """The band above the scoreboard: which leg (and set) and the format on
    the left, a chip per side with its legs (and sets) and the starter's
    marker, the score in words and who throws first on the right."""
    layout.panel(surface, rect, COLORS.panel, COLORS.line, 1.5)
    inner = rect.inflate(-layout.px(20), -layout.px(8))
    left, middle, right = split(inner, 3, layout.px(16))
    left.width = round(inner.width * 0.24)
    right.width = round(inner.width * 0.28)
    right.x = inner.right - right.width
    middle.x, middle.width = left.right + layout.px(16), right.x - left.right - layout.px(32)
    match = state.match
    with layout.on(COLORS.panel):
        top, bottom = split(left, 2, 0, vertical=True)
        top.height = round(left.height * 0.6)
        bottom.y, bottom.height = top.bottom, left.bottom - top.bottom
        position = match_position_words(state) or ""
        layout.text(surface, position, top, layout.font_size(34), COLORS.accent, "left")
        layout.text(
            surface,
            match_format_words(state) or "",
            bottom,
            layout.font_size(22),
            COLORS.dim,
            "left",
        )
        top, bottom = split(right, 2, 0, vertical=True)
        top.height = round(right.height * 0.6)
        bottom.y, bottom.height = top.bottom, right.bottom - top.bottom
        score = match_winner_words(state) if match.finished else None
        layout.text(
            surface,
            score or match_score_words(state) or "",
            top,
            layout.font_size(30),
            COLORS.text,
            "right",
        )
        layout.text(surface, _band_hint(state), bottom, layout.font_size(22), COLORS.dim, "right")
    _draw_chips(surface, layout, middle, state)


def _band_hint(state: StateView) -> str:
    """Under the score: who throws first, or what the match waits for."""
    match = state.match
    if match.finished:
        return "match over"
    if match.cork is not None:
        return "cork: bull for the throw"
    if match.leg_over:
        return NEXT_HINT
    return starter_words(state) or ""


def _draw_chips(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: StateView
) -> None:
    """A chip per side: the starter's marker, the name, its legs big and,
    with sets, its sets."""
    count = side_count(state)
    if count < 1:
        return
    settled = not state.match.finished and state.match.cork is None
    starter = starter_side(state) if settled else None
    for side, chip in enumerate(split(rect, count, layout.px(10))):
        is_starter = side == starter
        layout.panel(surface, chip, COLORS.panel_current, COLORS.line, 1)
        legs, sets = side_legs(state.match, side)
        inner = chip.inflate(-layout.px(12), -layout.px(4))
        mark = inner.height // 4
        name = pygame.Rect(
            inner.x + 3 * mark, inner.y, round(inner.width * 0.62) - 3 * mark, inner.height
        )
        numbers = pygame.Rect(name.right, inner.y, inner.right - name.right, inner.height)
        with layout.on(COLORS.panel_current):
            placed = layout.text(
                surface, side_label(state, side), name, layout.font_size(28), COLORS.text, "left"
            )
            if is_starter and placed.width:
                draw_starter_mark(surface, (inner.x + mark, placed.centery), mark)
            if sets is None:
                layout.text(
                    surface, str(legs), numbers, layout.font_size(40), COLORS.accent, "right"
                )
            else:
                sets_rect, legs_rect = split(numbers, 2, layout.px(6))
                layout.text(
                    surface, f"sets {sets}", sets_rect, layout.font_size(26), COLORS.dim, "right"
                )
                layout.text(
                    surface, str(legs), legs_rect, layout.font_size(40), COLORS.accent, "right"
                )


# ------------------------------------------------------------ a leg won


def leg_won_words(event: LegWon, state: StateView) -> tuple[str, str]:
    """The leg-won moment's title and detail: ``Game shot, and the first
    leg`` and ``Ann wins the leg · Legs 1-0`` (the set, the match)."""
    title = game_shot_words(_leg_number(event), set_won=event.set_won, match_won=event.match_won)
    side = event.team if event.team is not None else side_of(state, event.player)
    name = side_label(state, side if side is not None else event.player)
    what = "match" if event.match_won else "set" if event.set_won else "leg"
    label, counts = "Legs", event.legs_won
    if event.sets_won is not None and (event.set_won or event.match_won):
        label, counts = "Sets", event.sets_won
    score = "-".join(str(count) for count in counts)
    return title, f"{name} wins the {what}" + (f"  ·  {label} {score}" if counts else "")


def _leg_number(event: LegWon) -> int:
    """The won leg's number in its set (in the match without sets): with sets
    the legs won in the set so far, as the event counts them after the leg."""
    if event.set is None:
        return event.leg
    return max(sum(event.legs_won), 1)


def draw_leg_won(
    surface: pygame.Surface, layout: Layout, event: LegWon, state: StateView, age: float
) -> pygame.Rect | None:
    """The leg-won moment, ``age`` seconds after the event: a panel across the
    middle for :data:`LEG_WON_SECONDS`, then nothing. Returns where it went."""
    if not 0 <= age < LEG_WON_SECONDS:
        return None
    title, detail = leg_won_words(event, state)
    rect = layout.rect(0.16, 0.32, 0.68, 0.26)
    layout.panel(surface, rect, COLORS.here, COLORS.accent, 5)
    inner = rect.inflate(-layout.px(32), -layout.px(20))
    top, bottom = split(inner, 2, 0, vertical=True)
    top.height = round(inner.height * 0.62)
    bottom.y, bottom.height = top.bottom, inner.bottom - top.bottom
    with layout.on(COLORS.here):
        layout.text(surface, title, top, layout.font_size(80), COLORS.text)
        layout.text(surface, detail, bottom, layout.font_size(40), COLORS.text)
    return rect


def leg_over_words(state: StateView) -> tuple[str, str] | None:
    """The strip's words while a won leg waits for NEXT: ``Ann wins the
    first leg`` and ``Legs 1-0 · press NEXT for the next leg``; ``None``
    otherwise."""
    match = state.match
    if not shows_match(state) or not match.leg_over or match.finished:
        return None
    last = match.played[-1] if match.played else None
    if last is not None and last.winner is None:
        return "Leg drawn", f"{match_score_words(state)}  ·  {NEXT_HINT}"
    side = side_of(state, last.winner if last is not None else state.winner)
    if side is None:
        return "Leg over", f"{match_score_words(state)}  ·  {NEXT_HINT}"
    legs, _ = side_legs(match, side)
    need = match.format.legs if match.format is not None else None
    if match.sets_won is not None and need is not None and legs >= need:
        what = "the set"
    elif last is not None:
        what = f"the {leg_ordinal(last.leg if last.set is None else leg_in_set(match))} leg"
    else:
        what = "the leg"
    return f"{side_label(state, side)} wins {what}", f"{match_score_words(state)}  ·  {NEXT_HINT}"


# ------------------------------------------------------------ the cork


def cork_lines(state: StateView) -> tuple[str, list[tuple[str, str, bool]]] | None:
    """The cork's title (``Bull for the throw: Bob to throw``) and a line
    per side: its name, its dart this round (``-`` not yet) and whether it is
    to throw; ``None`` when no cork is being thrown."""
    cork = state.match.cork
    if not shows_match(state) or cork is None:
        return None
    turn = cork_turn(state.match)
    title = cork_words(state) or "Bull for the throw"
    lines = [
        (
            side_label(state, side),
            (cork[side] if side < len(cork) else None) or "-",
            side == turn,
        )
        for side in range(max(side_count(state), len(cork)))
    ]
    return title, lines


def draw_cork(surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: StateView) -> None:
    """The cork's panel: before the deciding leg, each side throws one dart
    at the bull; whose turn it is, each side's dart, and what wins."""
    words = cork_lines(state)
    if words is None:
        return
    title, lines = words
    layout.panel(surface, rect, COLORS.info, COLORS.text, 4)
    inner = rect.inflate(-layout.px(32), -layout.px(16))
    head, body = split(inner, 2, 0, vertical=True)
    head.height = round(inner.height * 0.34)
    body.y, body.height = head.bottom, inner.bottom - head.bottom
    rule, sides = split(body, 2, 0, vertical=True)
    rule.height = round(body.height * 0.3)
    sides.y, sides.height = rule.bottom, body.bottom - rule.bottom
    with layout.on(COLORS.info):
        layout.text(surface, title, head, layout.font_size(52), COLORS.text)
        layout.text(
            surface,
            "The deciding leg: closest to the bull throws first (DB beats SB)",
            rule,
            layout.font_size(24),
            COLORS.text,
        )
        for (name, dart, up), cell in zip(
            lines, split(sides, len(lines), layout.px(12)), strict=True
        ):
            colour = COLORS.accent if up else COLORS.text
            layout.text(surface, f"{name}: {dart}", cell, layout.font_size(40), colour)


# ------------------------------------------------------ a called match


def call_headline(state: StateView) -> tuple[str, str] | None:
    """A called match's headline and hint: ``Next: Ann v Bob on Board 2``
    (the board's display name, else its id) and ``Friday Cup, round 1 ·
    throw a dart or press NEXT to start``; ``None`` without a call."""
    board = state.board
    words = call_words(state, (board.name or board.id) if board.present else None)
    if words is None:
        return None
    title = state.call.title
    return words, f"{title}  ·  {CALL_HINT}" if title else CALL_HINT
