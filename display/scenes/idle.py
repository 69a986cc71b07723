"""The attract screen: no game is running (phase ``idle``) or no state has
arrived yet. A dartboard with a lit sector going round, the board's and the
daemon's status, and how to start a game; on a guest of a remote match
before the host's state came, "Joining Pub 1's match…"; with ``oche play
--join HOST``, "Waiting for HOST to start a match".

With leaderboard snapshots from MQTT (the leaderboard service's retained
``{base}/leaderboard/{game}``), it is a bar board's attract mode: beside the
board it turns through each game's top 10 and the day's records, one page
every :data:`PAGE_SECONDS`, in place of the list of games.

With the state's ``lobby`` it is the lobby too: the QR code of its
``join_url`` and the join code take the board's place, and once players have
joined the next game their list takes the place of the games (or of the
leaderboard pages).

With the board's retained ``pairing`` and a web page to open, a small strip
under the text shows "Pair a phone", the pairing code and its QR code
(:data:`PAIRING_STRIP` of the text's height), so a phone pairs to control the
board from the venue's web page; a game's screens never show it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import pygame

from display.dartboard import BOARD_ORDER, draw_board, draw_lit_beds
from display.layout import COLORS, Color, HAlign, Layout, bands, split
from display.leaderboards import MAX_ROWS, RecordLine, Snapshot, SnapshotRow, today_records
from display.scenes.base import (
    SETUP_HINT,
    Scene,
    State,
    board_problem,
    board_status,
    short_name,
)
from display.scenes.credits import credits_line
from display.scenes.lobby_view import draw_join_code, draw_lobby_players
from display.scenes.match_view import call_headline
from display.scenes.pairing_view import draw_pairing_code
from display.scenes.remote import joining_headline, waiting_detail
from engine import Bed, game_class, game_ids, game_name
from mqtt_contract.lobby_payload import LobbyState

__all__ = [
    "GAME_COLUMNS",
    "PAGE_SECONDS",
    "PAIRING_STRIP",
    "PROBLEM_LINES",
    "PROBLEM_WIDTH",
    "IdleScene",
    "Page",
    "leaderboard_pages",
]

SECTORS_PER_SECOND = 2.0
"""How fast the lit sector goes round the attract board."""
PAGE_SECONDS = 8.0
"""How long each leaderboard page stays before the next one."""
GAME_COLUMNS = 2
"""The columns the attract screen lists the games in."""
PAIRING_STRIP = 0.2
"""The share of the text column's height the pairing strip takes, at its foot."""
PROBLEM_LINES = 2
"""The most lines the board's problem takes under its status."""
PROBLEM_WIDTH = 56
"""Characters per line of the board's problem, before the text is fitted."""

_PERIODS = {
    "day": ("Today's", "today"),
    "week": ("This week's", "this week"),
    "month": ("This month's", "this month"),
    "all": ("All-time", "all time"),
}
"""Each period's words: before ``records``, and what a page covers."""


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the attract mode: a game's table, or the records."""

    title: str
    period: str
    """What the page covers: ``today``, ``all time``..."""
    snapshot: Snapshot | None
    """The game whose top rows the page shows; ``None`` for the records page."""
    records: tuple[RecordLine, ...] = ()


def leaderboard_pages(snapshots: Sequence[Snapshot]) -> tuple[Page, ...]:
    """The pages the attract mode turns through: each game's table, in the
    order given, then the records of the day when there are any."""
    pages = [
        Page(
            f"{game_name(snapshot.game)} leaderboard",
            _PERIODS[snapshot.period][1],
            snapshot,
        )
        for snapshot in snapshots
    ]
    records = today_records(snapshots)
    if records:
        title = _PERIODS[snapshots[0].records_period][0]
        pages.append(Page(f"{title} records", "", None, records[:10]))
    return tuple(pages)


def _number(value: float, decimals: int = 2) -> str:
    return str(int(value)) if value.is_integer() else f"{value:.{decimals}f}"


class IdleScene(Scene):
    title = "Oche"
    show_board = False
    match_band = False

    def subtitle(self, state: State) -> str:
        return "Soft-tip dartboard"

    def page_index(self) -> int | None:
        """The leaderboard page showing at the scene's clock, ``None`` without snapshots."""
        pages = len(leaderboard_pages(self.leaderboards))
        return int(self.clock // PAGE_SECONDS) % pages if pages else None

    def static_key(self) -> Hashable:
        pages = (self.page_index(), self.leaderboards) if self.leaderboards else None
        key: Hashable = pages if self.lobby is None else (pages, self.lobby)
        key = key if self.joining is None else (key, self.joining)
        return key if not self.shows_pairing else (key, self.pairing)

    @property
    def shows_pairing(self) -> bool:
        """The pairing strip is shown: a pairing with a page to open, not while joining."""
        return self.pairing is not None and bool(self.pairing.url) and self.joining is None

    @property
    def shows_join_code(self) -> bool:
        """The QR code of the lobby's join link takes the board's place."""
        return self.lobby is not None and bool(self.lobby.join_url) and self.joining is None

    @property
    def shows_players(self) -> bool:
        """The lobby's players take the place of the games or the leaderboards."""
        return self.lobby is not None and bool(self.lobby.players)

    def headline(self) -> tuple[str, str]:
        """The headline and the hint under it: waiting for the daemon, a
        guest joining its host's match, waiting for ``--join``'s host, or how
        to start a game."""
        state = self.state
        if state is None:
            return "Waiting for the daemon...", "No state from the MQTT broker yet"
        joining = joining_headline(state)
        if joining is not None:
            waiting = state.remote.waiting
            hint = waiting_detail(state) if waiting else "waiting for the host's scoreboard"
            return joining, hint
        if self.joining is not None:
            return (
                f"Waiting for {self.joining} to start a match",
                f"The match shows here as soon as {self.joining} starts it",
            )
        called = call_headline(state)
        if called is not None:
            return called
        return "Start a game", f"{SETUP_HINT} (or send new_game over MQTT)"

    def board_and_text(self, layout: Layout, rect: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect]:
        board_rect, text_rect = split(rect, 2, layout.px(32))
        board_rect.width = min(board_rect.width, board_rect.height)
        text_rect.x = board_rect.right + layout.px(32)
        text_rect.width = rect.right - text_rect.x
        return board_rect, text_rect

    def draw_animated(self, surface: pygame.Surface, layout: Layout) -> None:
        board_rect, _ = self.board_and_text(layout, self.regions(layout)["main"])
        if not self.shows_join_code:
            step = int(self.clock * SECTORS_PER_SECOND) % len(BOARD_ORDER)
            number = BOARD_ORDER[step]
            sector = tuple(Bed(number, multiplier).notation for multiplier in (1, 3, 2))
            draw_lit_beds(surface, board_rect, sector, self.clock, self.sprites)
        super().draw_animated(surface, layout)

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        board_rect, text_rect = self.board_and_text(layout, rect)
        if self.shows_pairing and self.pairing is not None:
            parts = bands(text_rect, (("text", 1 - PAIRING_STRIP),), "pairing")
            text_rect, strip = parts["text"], parts["pairing"].inflate(0, -layout.px(4))
            draw_pairing_code(surface, layout, strip, self.pairing, self.sprites)
        if self.shows_join_code and self.lobby is not None:
            with layout.on(COLORS.panel):
                draw_join_code(surface, layout, board_rect, self.lobby, self.sprites)
        else:
            draw_board(surface, board_rect, self.sprites)
        headline, hint = self.headline()
        if self.shows_players and self.lobby is not None:
            self.draw_lobby(surface, layout, text_rect, headline, hint, self.lobby)
            return
        if self.leaderboards:
            credits = credits_line(state)
            hint = hint if credits is None else f"{credits}  ·  {hint}"
            self.draw_attract(surface, layout, text_rect, headline, hint)
            return
        parts = bands(
            text_rect.inflate(0, -text_rect.height // 10),
            (
                ("headline", 0.15),
                ("hint", 0.07),
                ("credits", 0.08),
                ("status", 0.08),
                ("problem", 0.12),
                ("gap", 0.03),
            ),
            "games",
        )
        layout.text(surface, headline, parts["headline"], layout.font_size(72), COLORS.text, "left")
        layout.text(surface, hint, parts["hint"], layout.font_size(26), COLORS.dim, "left")
        credits = credits_line(state)
        if credits is not None:
            colour = COLORS.accent
            layout.text(surface, credits, parts["credits"], layout.font_size(36), colour, "left")
        self.draw_status(surface, layout, parts["status"], 36)
        self.draw_problem(surface, layout, parts["problem"])
        self.draw_games(surface, layout, parts["games"])

    def draw_lobby(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        headline: str,
        hint: str,
        lobby: LobbyState,
    ) -> None:
        """The headline and hint, small, the players who joined the next game,
        and the board's status."""
        parts = bands(
            rect, (("headline", 0.1), ("hint", 0.06), ("gap", 0.02), ("players", 0.72)), "status"
        )
        layout.text(surface, headline, parts["headline"], layout.font_size(48), COLORS.text, "left")
        layout.text(surface, hint, parts["hint"], layout.font_size(22), COLORS.dim, "left")
        draw_lobby_players(surface, layout, parts["players"], lobby)
        self.draw_status(surface, layout, parts["status"], 28)

    def draw_problem(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        """What is wrong with the board (the state's ``board.problem``), on up
        to :data:`PROBLEM_LINES` lines under its status, so it reads from the oche."""
        problem = board_problem(self.state)
        if problem is None:
            return
        lines = textwrap.wrap(problem, PROBLEM_WIDTH)
        if len(lines) > PROBLEM_LINES:
            lines = [*lines[: PROBLEM_LINES - 1], " ".join(lines[PROBLEM_LINES - 1 :])]
        inset = rect.inflate(-layout.px(8), 0).move(layout.px(8), 0)
        for line, row in zip(lines, split(inset, PROBLEM_LINES, 0, vertical=True), strict=False):
            layout.text(surface, line, row, layout.font_size(28), COLORS.bad, "left")

    def draw_games(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        """The games one can play: a label, then the names in columns, each
        as large as a hint (the list on one line was too small to read)."""
        names = [game_class(game_id).name for game_id in game_ids()]
        label, body = bands(rect, (("label", 0.16),), "body").values()
        layout.text(surface, "Games", label, layout.font_size(30), COLORS.accent, "left")
        rows = -(-len(names) // GAME_COLUMNS)
        cells = split(body, rows, 0, vertical=True)
        for column, names_in_column in enumerate(
            names[start : start + rows] for start in range(0, len(names), rows)
        ):
            for name, row in zip(names_in_column, cells, strict=False):
                cell = split(row, GAME_COLUMNS, layout.px(16))[column]
                layout.text(surface, name, cell, layout.font_size(30), COLORS.text, "left")

    def draw_status(
        self, surface: pygame.Surface, layout: Layout, line: pygame.Rect, size: float
    ) -> None:
        """The board's status with its coloured dot."""
        status, colour = board_status(self.state)
        dot = layout.px(12)
        status_rect = line.inflate(-4 * dot, 0).move(2 * dot, 0)
        placed = layout.text(surface, status, status_rect, layout.font_size(size), colour, "left")
        if placed.width:
            pygame.draw.circle(surface, colour, (placed.x - 2 * dot, placed.centery), dot)

    def draw_attract(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, headline: str, hint: str
    ) -> None:
        """The headline and hint, small, the leaderboard page of the moment,
        its place among the pages, and the board's status."""
        parts = bands(
            rect, (("headline", 0.1), ("hint", 0.06), ("gap", 0.02), ("page", 0.7)), "rest"
        )
        layout.text(surface, headline, parts["headline"], layout.font_size(48), COLORS.text, "left")
        layout.text(surface, hint, parts["hint"], layout.font_size(22), COLORS.dim, "left")
        pages = leaderboard_pages(self.leaderboards)
        index = self.page_index() or 0
        page = pages[index]
        layout.panel(surface, parts["page"], COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            inner = parts["page"].inflate(-layout.px(24), -layout.px(16))
            title, body = bands(inner, (("title", 0.12),), "body").values()
            placed = layout.text(
                surface, page.title, title, layout.font_size(36), COLORS.accent, "left"
            )
            rest = pygame.Rect(placed.right, title.y, title.right - placed.right, title.height)
            layout.text(surface, page.period, rest, layout.font_size(24), COLORS.dim, "right")
            if page.snapshot is not None:
                self.draw_table(surface, layout, body, page.snapshot)
            else:
                self.draw_records(surface, layout, body, page.records)
        dots, status = split(parts["rest"], 2, 0, vertical=True)
        self.draw_page_dots(surface, layout, dots, len(pages), index)
        self.draw_status(surface, layout, status, 28)

    def draw_table(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, snapshot: Snapshot
    ) -> None:
        """A game's top rows: rank, player, played, won, win %, its average
        (X01's three-dart average, Cricket's MPR) when the rows have one, rating."""
        if not snapshot.rows:
            layout.text(surface, "No games yet", rect, layout.font_size(30), COLORS.dim)
            return
        average = _average_label(snapshot.game)
        with_average = any(row.average is not None for row in snapshot.rows)
        header = [
            "#",
            "Player",
            "Played",
            "Won",
            "Win %",
            *([average] if with_average else []),
            "Rating",
        ]
        shares = [0.07, 0.33, 0.12, 0.1, 0.12, *([0.12] if with_average else []), 0.14]
        shares[1] += 1 - sum(shares)
        aligns: list[HAlign] = ["center"] * len(shares)
        aligns[1] = "left"
        columns = list(zip(shares, aligns, strict=True))
        lines = split(rect, 1 + MAX_ROWS, 0, vertical=True)
        self._row(surface, layout, lines[0], header, columns, COLORS.dim, 22)
        for line, row in zip(lines[1:], snapshot.rows, strict=False):
            colour = COLORS.accent if row.rank == 1 else COLORS.text
            self._row(surface, layout, line, _cells(row, with_average), columns, colour, 28)

    def draw_records(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        records: Sequence[RecordLine],
    ) -> None:
        """One line per record: what, the value, who, in which game."""
        columns: list[tuple[float, HAlign]] = [
            (0.36, "left"),
            (0.14, "center"),
            (0.28, "left"),
            (0.22, "left"),
        ]
        lines = split(rect, max(len(records), 6), 0, vertical=True)
        for line, record in zip(lines, records, strict=False):
            cells = [
                record.label[:1].upper() + record.label[1:],
                _number(record.value),
                short_name(record.player),
                game_name(record.game),
            ]
            self._row(surface, layout, line, cells, columns, COLORS.text, 28)

    def _row(
        self,
        surface: pygame.Surface,
        layout: Layout,
        line: pygame.Rect,
        cells: Sequence[str],
        columns: Sequence[tuple[float, HAlign]],
        colour: Color,
        size: float,
    ) -> None:
        """``cells`` side by side in ``line``, each its ``(share, align)`` of the width."""
        x = float(line.x)
        for cell, (share, align) in zip(cells, columns, strict=True):
            width = share * line.width
            box = pygame.Rect(round(x), line.y, round(x + width) - round(x), line.height)
            x += width
            inner = box.inflate(-layout.px(8), -layout.px(2))
            layout.text(surface, cell, inner, layout.font_size(size), colour, align)

    def draw_page_dots(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, count: int, current: int
    ) -> None:
        """A dot per page, the current one lit."""
        if count < 2:
            return
        radius = layout.px(6)
        gap = 4 * radius
        x = rect.centerx - (count - 1) * gap // 2
        for index in range(count):
            colour = COLORS.accent if index == current else COLORS.faint
            pygame.draw.circle(surface, colour, (x + index * gap, rect.centery), radius)


def _cells(row: SnapshotRow, with_average: bool) -> list[str]:
    cells = [str(row.rank), short_name(row.player), str(row.played), str(row.won)]
    cells.append(f"{_number(row.win_percent, 1)}%")
    if with_average:
        cells.append("-" if row.average is None else f"{row.average:.2f}")
    cells.append(f"{row.rating:.1f}")
    return cells


def _average_label(game: str) -> str:
    """The table's average column: the game's own (``Game.average``), else "Average"."""
    average = game_class(game).average if game in game_ids() else None
    return "Average" if average is None else average.short_label
