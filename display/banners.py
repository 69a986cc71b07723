"""Banners drawn over any scene, from the state and the daemon's availability.

- ``takeout``: the phase is ``takeout``: remove the darts (a strip at the bottom).
- ``cpu``: a computer player's visit is on (throwing, or the takeout after
  it, where there are no darts to remove): "Robo (CPU 6) is throwing", in
  the takeout strip's place.
- ``bust``: the visit bust, while it is still the one on the board
  (``visit_over`` is ``"bust"``, or the last visit bust and the next one has
  not begun).
- ``winner``: the game is over: who won (or a draw) and the match statistics
  (the darts and visits columns are left out of a game where no one threw a
  dart, such as domino cribbage, which is played by picking: there they
  would be columns of zeros). Not over a scene that shows how its game
  ended itself (``Scene.draws_result``: the skill test, whose estimates are
  the result).
- ``waiting``: a remote match waits for a board (phase ``waiting-remote``):
  "Waiting for Pub 2…" and why (offline, not joined yet), in the takeout
  strip's place, so the scoreboard stays readable above it.
- ``remote``: a remote match's visit is on (``remote.throwing_at``): "Cy is
  throwing at Pub 2", or on the board where the player throws "Ann is
  throwing here"; in the takeout strip's place, or just above it when that
  strip is taken. On the other boards the takeout and computer strips are
  left to it: there are no darts to remove there.
- ``board``: the board is disconnected, or connected but set up wrongly (its
  ``problem`` names a wrong protocol or speed): darts are not counted; the
  strip says why (the state's ``board.problem``).
- ``journal``: the daemon's journal refuses writes (``journal.status`` is
  ``full`` or ``failing``): darts are not counted, in red; or, after a start
  that salvaged a damaged journal and until the next game, what it did
  (``journal.salvaged``), in amber.
- ``offline``: the daemon is offline (availability ``offline``), or the
  display lost the broker (``no-broker``): the last state stays on screen,
  dimmed and marked stale.

:func:`active_banners` says which apply; :func:`draw_banners` draws them and
returns where, for tests and tools. Both only read their arguments.
"""

from __future__ import annotations

import math

import pygame

from display.layout import COLORS, Color, Layout, split
from display.lobby import line_text, lines_for
from display.scenes.base import board_problem, format_value, is_winner, player_label
from display.scenes.idle import IdleScene
from display.scenes.match_view import call_headline, cork_lines, draw_cork, leg_over_words
from display.scenes.registry import scene_class_for
from display.scenes.remote import (
    thrower,
    throwing,
    throws_elsewhere,
    waiting_detail,
    waiting_headline,
)
from engine import Reason
from mqtt_contract import Phase, PlayerView, StateView
from mqtt_contract.lobby_payload import PlayerLine, ResultLines
from mqtt_contract.scoreboard import match_winner_words

__all__ = ["BANNERS", "active_banners", "banner_rect", "cpu_thrower", "draw_banners"]

BANNERS = (
    "winner",
    "bust",
    "cork",
    "waiting",
    "takeout",
    "cpu",
    "leg",
    "remote",
    "call",
    "board",
    "journal",
    "offline",
)
"""Every banner, in drawing order (later ones are drawn over earlier ones);
the ``offline`` strip dims everything drawn before it."""

State = StateView

_STAT_LABELS = {
    "average": "3-dart avg",
    "mpr": "MPR",
    "points_per_dart": "per dart",
    # domino cribbage: points pegged in the play, counted in hands and cribs
    "pegged": "pegged",
    "hands": "hands",
    "crib": "crib",
    "best_hand": "best hand",
    "gos": "gos",
    "bounce_outs": "bounce-outs",
}
_THROWING_STATS = ("darts", "visits", "bounce_outs")
"""Statistics that only mean something when darts were thrown."""

_RESULTS: dict[str, str] = {
    Reason.CHECKOUT: "checkout",
    Reason.CLOSED_ALL: "all targets closed",
    Reason.ROUND_LIMIT: "round limit",
    Reason.LAST_STANDING: "last side standing",
    Reason.ALL_OUT: "all out",
    "ended": "game ended",
    Reason.BULL: "bull to finish",
    Reason.EXTRA_INNINGS: "extra innings",
    Reason.RUNS: "most runs",
    Reason.SHANGHAI: "Shanghai",
    Reason.TARGET: "target reached",
    Reason.DARTS_THROWN: "all darts thrown",
    Reason.PRACTICE_COMPLETE: "practice complete",
}
"""Each ``result`` in words (``ended``: a game abandoned, no engine reason)."""


def _bust_player(state: State) -> int | None:
    if state.finished:
        return None
    if state.visit_over == "bust":
        return state.current_player
    last = state.last_visit
    if last is not None and last.visit_over == "bust" and not state.visit:
        return last.player
    return None


def cpu_thrower(state: State) -> int | None:
    """The computer player whose visit is on the board (``players[i].cpu`` on
    the state): the one throwing, or in takeout the one whose visit ended."""
    if state.finished or state.phase not in (Phase.THROWING, Phase.TAKEOUT):
        return None
    player = state.current_player
    last = state.last_visit
    if state.phase is Phase.TAKEOUT and not state.visit and last is not None:
        player = last.player
    thrower = state.player(player)
    return player if thrower is not None and thrower.cpu is not None else None


def _visit_player(state: State) -> int | None:
    """The player whose visit the takeout strip is about: the one whose visit
    ended, between visits; else the player to throw."""
    last = state.last_visit
    if not state.visit and last is not None:
        return last.player
    return state.current_player


def active_banners(state: State | None, availability: str = "online") -> list[str]:
    """The banners that apply, in drawing order (see the module docstring)."""
    banners: list[str] = []
    if state is not None and state.game:
        finished = state.finished or state.phase is Phase.FINISHED
        leg_over = leg_over_words(state) is not None
        if finished and not leg_over and not scene_class_for(state).draws_result:
            banners.append("winner")
        elif _bust_player(state) is not None:
            banners.append("bust")
        if cork_lines(state) is not None:
            banners.append("cork")
        if waiting_headline(state) is not None:
            banners.append("waiting")
        remote = throwing(state) is not None
        cpu = cpu_thrower(state)
        if leg_over:
            banners.append("leg")
        elif cpu is not None and not (remote and throws_elsewhere(state, cpu)):
            banners.append("cpu")
        elif (
            cpu is None
            and state.phase is Phase.TAKEOUT
            and not (remote and throws_elsewhere(state, _visit_player(state)))
        ):
            banners.append("takeout")
        if remote:
            banners.append("remote")
        if call_headline(state) is not None and scene_class_for(state) is not IdleScene:
            banners.append("call")
    board = state.board if state is not None else None
    if (
        board is not None
        and board.present
        and (board.connected is False or board_problem(state) is not None)
    ):
        banners.append("board")
    if state is not None and _journal_words(state) is not None:
        banners.append("journal")
    if availability != "online":
        banners.append("offline")
    return banners


def banner_rect(layout: Layout, banner: str, stacked: int = 0) -> pygame.Rect:
    """Where ``banner`` is drawn in a window of ``layout``'s size. The strips
    for the board and the daemon cover the header; ``stacked`` is how many
    such strips are above this one (for ``remote``: below it, at the bottom)."""
    if banner == "winner":
        return layout.rect(0.12, 0.14, 0.76, 0.72)
    if banner == "bust":
        return layout.rect(0.2, 0.56, 0.6, 0.2)
    if banner == "cork":
        return layout.rect(0.18, 0.52, 0.64, 0.3)
    if banner in ("takeout", "cpu", "waiting", "leg"):
        return layout.rect(0, 0.89, 1, 0.11)
    if banner in ("remote", "call"):
        return layout.rect(0, 0.89 - 0.11 * stacked, 1, 0.11)
    if banner in ("board", "journal", "offline"):
        return layout.rect(0, 0.085 * stacked, 1, 0.085)
    raise ValueError(f"unknown banner {banner!r}; the banners are {', '.join(BANNERS)}")


def draw_banners(
    surface: pygame.Surface,
    layout: Layout,
    state: State | None,
    availability: str = "online",
    clock: float = 0.0,
    lines: ResultLines | None = None,
) -> list[tuple[str, pygame.Rect]]:
    """Draw every banner that applies over ``surface``; returns ``(banner,
    rect)``. The winner's panel shows the leaderboard's ``lines`` of the game
    under each player's row, when they are this game's."""
    drawn: list[tuple[str, pygame.Rect]] = []
    active = active_banners(state, availability)
    strips = [banner for banner in ("offline", "board", "journal") if banner in active]
    bottom = [banner for banner in ("waiting", "takeout", "cpu", "leg") if banner in active]
    for banner in active:
        stacked = strips.index(banner) if banner in strips else 0
        if banner == "remote":
            stacked = len(bottom)
        if banner == "call":
            stacked = len(bottom) + ("remote" in active)
        rect = banner_rect(layout, banner, stacked)
        if banner == "winner":
            _winner(surface, layout, rect, state or StateView(), lines_for(state, lines))
        elif banner == "bust":
            _bust(surface, layout, rect, state or StateView(), clock)
        elif banner == "takeout":
            _takeout(surface, layout, rect, state or StateView(), clock)
        elif banner == "cpu":
            _cpu(surface, layout, rect, state or StateView())
        elif banner == "cork":
            draw_cork(surface, layout, rect, state or StateView())
        elif banner == "leg":
            _strip(
                surface,
                layout,
                rect,
                COLORS.here,
                *(leg_over_words(state or StateView()) or ("", "")),
            )
        elif banner == "call":
            _strip(
                surface,
                layout,
                rect,
                COLORS.here,
                *(call_headline(state or StateView()) or ("", "")),
            )
        elif banner == "waiting":
            title = waiting_headline(state or StateView()) or ""
            _strip(surface, layout, rect, COLORS.wait, title, waiting_detail(state or StateView()))
        elif banner == "remote":
            _remote(surface, layout, rect, state or StateView())
        elif banner == "board":
            _strip(surface, layout, rect, COLORS.bad, *_board_words(state or StateView()))
        elif banner == "journal":
            colour, title, detail = _journal_words(state or StateView()) or (COLORS.bad, "", "")
            _strip(surface, layout, rect, colour, title, detail)
        else:
            surface.fill((118, 118, 124), special_flags=pygame.BLEND_MULT)
            title = "Daemon offline" if availability == "offline" else "No connection to the broker"
            detail = "last known state shown: it may be out of date"
            _strip(surface, layout, rect, COLORS.stale, title, detail)
        drawn.append((banner, rect))
    return drawn


def _journal_words(state: State) -> tuple[Color, str, str] | None:
    """The journal strip's colour, title and detail, or ``None`` without one:
    a journal refusing writes comes before the line of a salvage."""
    journal = state.journal
    if not journal.present:
        return None
    status, message, salvaged = journal.status, journal.message, journal.salvaged
    if status not in (None, "ok"):
        title = "Journal full" if status == "full" else "Journal failing"
        return COLORS.bad, title, str(message or "darts are not counted")
    if salvaged:
        return COLORS.wait, "Journal repaired", salvaged
    return None


def _board_words(state: State) -> tuple[str, str]:
    """The board strip's title and detail: disconnected or set up wrongly,
    and why (the state's ``board.problem``) when the daemon says."""
    board = state.board
    connected = board.present and board.connected is not False
    title = "Board set up wrongly" if connected else "Board disconnected"
    problem = board_problem(state)
    if problem is not None:
        return title, problem
    name = board.name or board.id if board.present else None
    detail = f"{name}: darts are not counted until it is back" if name else "darts are not counted"
    return title, detail


def _strip(
    surface: pygame.Surface,
    layout: Layout,
    rect: pygame.Rect,
    colour: Color,
    title: str,
    detail: str,
    solid: bool = True,
) -> None:
    """A full-width strip: ``title`` on the left, ``detail`` on the right.
    ``solid``: ``colour`` is one of a few (text may be rendered opaque on it)."""
    pygame.draw.rect(surface, colour, rect)
    with layout.on(colour if solid else None):
        _strip_text(surface, layout, rect, title, detail)


def _strip_text(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, title: str, detail: str
) -> None:
    pad = layout.px(24)
    title_rect, detail_rect = split(rect.inflate(-2 * pad, -layout.px(8)), 2, pad)
    title_rect.width = round(rect.width * 0.42)
    detail_rect.x = title_rect.right + pad
    detail_rect.width = rect.right - pad - detail_rect.x
    layout.text(surface, title, title_rect, layout.font_size(44), COLORS.text, "left")
    layout.text(surface, detail, detail_rect, layout.font_size(28), COLORS.text, "right")


def _takeout(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State, clock: float
) -> None:
    pulse = 0.5 + 0.5 * math.sin(clock * 2 * math.pi)
    base = COLORS.info
    colour = (
        round(base[0] * (0.8 + 0.2 * pulse)),
        round(base[1] * (0.8 + 0.2 * pulse)),
        round(base[2] * (0.8 + 0.2 * pulse)),
    )
    player = _visit_player(state)
    name = player_label(state, player) if player is not None else ""
    detail = f"{name}: press NEXT when the board is clear" if name else "press NEXT when done"
    _strip(surface, layout, rect, colour, "Remove darts", detail, solid=False)


def _cpu(surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State) -> None:
    player = cpu_thrower(state)
    name = player_label(state, player) if player is not None else "The computer"
    detail = "board hits do not count until its visit is over"
    _strip(surface, layout, rect, COLORS.info, f"{name} is throwing", detail)


def _remote(surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State) -> None:
    title, detail = throwing(state) or ("", "")
    elsewhere = throws_elsewhere(state, thrower(state))
    _strip(surface, layout, rect, COLORS.info if elsewhere else COLORS.here, title, detail)


def _bust(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State, clock: float
) -> None:
    player = _bust_player(state)
    layout.panel(surface, rect, COLORS.bad, COLORS.text, 4)
    with layout.on(COLORS.bad):
        _bust_text(surface, layout, rect, state, player)


def _bust_text(
    surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State, player: int | None
) -> None:
    title_rect, detail_rect = split(
        rect.inflate(-layout.px(32), -layout.px(16)), 2, 0, vertical=True
    )
    title_rect.height = round(rect.height * 0.6)
    detail_rect.y = title_rect.bottom
    detail_rect.height = rect.bottom - layout.px(12) - title_rect.bottom
    layout.text(surface, "BUST", title_rect, layout.font_size(130), COLORS.text)
    if player is not None:
        bust = state.player(player)
        score = bust.score if bust is not None else None
        detail = player_label(state, player)
        if score is not None:
            detail += f" stays on {score}"
        layout.text(surface, detail, detail_rect, layout.font_size(36), COLORS.text)


def _winner(
    surface: pygame.Surface,
    layout: Layout,
    rect: pygame.Rect,
    state: State,
    lines: dict[int, PlayerLine],
) -> None:
    surface.fill((150, 150, 156), special_flags=pygame.BLEND_MULT)
    players = state.players
    row = _LINE_ROW if lines else 64
    needed = layout.px(130 + 50 + 10 + 64 + row * len(players) + 2 * 28)
    if needed < rect.height:
        rect = pygame.Rect(rect.x, rect.centery - needed // 2, rect.width, needed)
    layout.panel(surface, rect, COLORS.panel, COLORS.accent, 5)
    with layout.on(COLORS.panel):
        _winner_text(surface, layout, rect, state, players, lines)


_LINE_ROW = 96
"""A player's row in the winner's panel with the leaderboard's line under it (design px)."""


def _winner_text(
    surface: pygame.Surface,
    layout: Layout,
    rect: pygame.Rect,
    state: State,
    players: tuple[PlayerView, ...],
    lines: dict[int, PlayerLine],
) -> None:
    inner = rect.inflate(-layout.px(40), -layout.px(28))
    team = state.team(state.winner_team)
    winner = state.player(state.winner)
    match_winner = match_winner_words(state)
    if match_winner is not None:
        headline = match_winner
    elif team is not None:
        headline = f"{team.name} win!"
    elif winner is not None:
        headline = f"{winner.name if winner.name is not None else '?'} wins!"
    else:
        headline = "Draw"
    result = _RESULTS.get(str(state.result), state.result or "")
    head_h = min(round(inner.height * 0.26), layout.px(130))
    head = pygame.Rect(inner.x, inner.y, inner.width, head_h)
    layout.text(surface, headline, head, layout.font_size(96), COLORS.accent)
    sub = pygame.Rect(inner.x, head.bottom, inner.width, min(head_h * 5 // 13, layout.px(50)))
    round_number = state.round
    # A game dealt in hands (domino cribbage) counts hands, not rounds.
    period = "hand" if state.hand is not None else "round"
    bits = [b for b in (result, f"{period} {round_number}" if round_number else "") if b]
    layout.text(surface, "  ·  ".join(bits), sub, layout.font_size(30), COLORS.dim)
    table = pygame.Rect(
        inner.x, sub.bottom + layout.px(10), inner.width, inner.bottom - sub.bottom - layout.px(10)
    )
    stat_keys = _stat_columns(players)
    headers = ["", "score", *(_STAT_LABELS.get(key, key.replace("_", " ")) for key in stat_keys)]
    head_row = min(table.height // (len(players) + 1), layout.px(64))
    player_row = head_row
    if lines:
        player_row = min((table.height - head_row) // max(1, len(players)), layout.px(_LINE_ROW))
    rows = [pygame.Rect(table.x, table.y, table.width, head_row)] + [
        pygame.Rect(table.x, table.y + head_row + i * player_row, table.width, player_row)
        for i in range(len(players))
    ]
    widths = [0.34] + [0.66 / (len(headers) - 1)] * (len(headers) - 1)

    def cells(row: pygame.Rect) -> list[pygame.Rect]:
        out: list[pygame.Rect] = []
        x = row.x
        for share in widths:
            width = round(row.width * share)
            out.append(pygame.Rect(x, row.y, width, row.height).inflate(-layout.px(8), 0))
            x += width
        return out

    for text, cell in zip(headers, cells(rows[0]), strict=True):
        layout.text(surface, text, cell, layout.font_size(26), COLORS.dim, "right")
    for index, (player, row) in enumerate(zip(players, rows[1:], strict=False)):
        line = lines.get(index)
        if lines:
            top = round(row.height * 0.62)
            row, below = (
                pygame.Rect(row.x, row.y, row.width, top),
                pygame.Rect(row.x, row.y + top, row.width, row.height - top),
            )
            if line is not None:
                layout.text(surface, line_text(line), below.inflate(-layout.px(16), 0),
                            layout.font_size(28), COLORS.good, "left")  # fmt: skip
        won = is_winner(state, index)
        colour = COLORS.accent if won else COLORS.text
        stats = dict(player.stats.items)
        values = [
            player_label(state, index),
            format_value(player.score),
            *(format_value(stats.get(key)) for key in stat_keys),
        ]
        for column, (text, cell) in enumerate(zip(values, cells(row), strict=True)):
            layout.text(
                surface,
                text,
                cell,
                layout.font_size(34),
                colour,
                "left" if column == 0 else "right",
            )


def _stat_columns(players: tuple[PlayerView, ...]) -> list[str]:
    """The statistics every player has, in the first player's order, at most
    four; without ``darts`` and ``visits`` when they are 0 for everyone (a
    game not played in visits, or one ended before the first dart)."""
    if not players:
        return []
    stats = [dict(p.stats.items) for p in players]
    keys = [
        key
        for key, value in players[0].stats.items
        if isinstance(value, int | float)
        and not isinstance(value, bool)
        and all(key in figures for figures in stats)
    ]
    if all(figures.get(key, 0) == 0 for figures in stats for key in _THROWING_STATS):
        keys = [key for key in keys if key not in _THROWING_STATS]
    preferred = [k for k in ("darts", "average", "mpr", "marks", "points") if k in keys]
    rest = [k for k in keys if k not in preferred]
    return (preferred + rest)[:4]
