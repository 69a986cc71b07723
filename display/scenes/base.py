"""The scene base class and what every scoreboard shares.

A scene is one screen, in the manner of Tuxemon's states: the app hands it
pygame events (``process_event``), advances its clock (``update``) and asks
it to ``draw`` itself. Drawing never changes anything: a frame is a pure
function of the latest state (the MQTT ``state`` payload), the daemon's
availability, the animation clock and the short-lived notices the scene was
told about. The scene for a state is picked by game id
(:func:`display.scenes.registry.scene_for`); a game without a scene of its
own gets the generic scoreboard, and no game (phase ``idle``, or no state
yet) the attract screen.

MQTT events reach a scene as pygame events of type :data:`MQTT_EVENT` with
the payload in ``event.payload``; the base class turns the ones worth a word
(a contact not scored, a board error, a stuck cell) into a notice shown for
a few seconds. A command of the display's that the daemon refused comes the
same way, as a ``refused`` payload the feed made from the daemon's answer
(display/state_feed.py), and becomes a notice too.

The display talks to the daemon only through MQTT commands: a scene that
turns an input into a command (the setup's ``new_game``, a tile picked on
the keyboard) puts it in its :attr:`Scene.outbox`, and the app sends it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, ClassVar

import pygame

from display.dartboard import draw_board, draw_lit_beds
from display.darts import total_points
from display.layout import COLORS, Color, Layout, grid, split
from display.leaderboards import Snapshot
from display.lobby import Announcement, AnnouncementKind, announcement_for
from display.scenes.match_view import (
    LEG_WON_SECONDS,
    MATCH_BAND,
    draw_leg_won,
    draw_match_band,
    draw_starter_mark,
    shows_match,
)
from display.sprites import SHARED_SPRITES, Sprites
from engine import game_name
from mqtt_contract import (
    BoardView,
    LegWon,
    PayloadError,
    Phase,
    PlayerView,
    RefusalReason,
    StateView,
    cpu_label,
)
from mqtt_contract.lobby_payload import LobbyState, ResultLines
from mqtt_contract.pairing_payload import PairingState
from mqtt_contract.scoreboard import is_winner, player_label, short_name

__all__ = [
    "ANNOUNCEMENT_SECONDS",
    "MQTT_EVENT",
    "NOTICE_SECONDS",
    "SETUP_HINT",
    "Scene",
    "State",
    "as_view",
    "board_problem",
    "board_status",
    "can_set_up",
    "cpu_name",
    "format_value",
    "int_or_none",
    "is_winner",
    "lit_darts",
    "player_label",
    "short_name",
    "shown_visit",
]

State = StateView
"""What a scene draws from: the parsed state (mqtt_contract.StateView)."""

MQTT_EVENT = pygame.event.custom_type()
"""A pygame event carrying one MQTT ``event`` payload in ``.payload``."""

SETUP_HINT = "Press GAME or any key to set up a game"
"""What the attract screen and a finished game say about starting the next one."""

NOTICE_SECONDS = 3.0
"""How long a notice (a contact not scored, an error, a refused command) stays on screen."""

ANNOUNCEMENT_SECONDS = 4.0
"""How long a lobby's announcement (a player joined, a card refused) stays on screen."""
ANNOUNCEMENT_SLIDE = 0.25
"""How long an announcement takes to slide in from the top."""
_ANNOUNCEMENT_COLOURS = {
    AnnouncementKind.JOINED: COLORS.here,
    AnnouncementKind.LEFT: COLORS.stale,
    AnnouncementKind.REFUSED: COLORS.bad,
}


def can_set_up(state: StateView | None) -> bool:
    """Whether a new game may be set up on the display: the daemon's state
    shows no game (phase ``idle``) or a finished one."""
    return state is not None and state.phase in (Phase.IDLE, Phase.FINISHED)


def as_view(state: StateView | Mapping[str, Any] | None) -> StateView | None:
    """``state`` as a view: a state document (a test's, a file's) is parsed once here."""
    if state is None or isinstance(state, StateView):
        return state
    return StateView.from_json(state) if state else None


# ----------------------------------------------------------------- helpers


def format_value(value: Any) -> str:
    """A statistic or game key as text: floats with two decimals."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    if value is None:
        return "-"
    return str(value)


def cpu_name(name: str, player: PlayerView) -> str:
    """``name`` marked ``(CPU 6)`` for a computer player, as is for a person."""
    return cpu_label(name, player.cpu.level if player.cpu is not None else None)


def shown_visit(state: State) -> tuple[list[str], int | None, bool]:
    """The darts to show in the visit box: ``(darts, player, is_last)``; the
    visit in progress, or, between visits, the last one."""
    if state.visit:
        return list(state.visit), state.current_player, False
    last = state.last_visit
    if last is not None and last.darts:
        return list(last.darts), last.player, True
    return [], state.current_player, False


def lit_darts(state: State) -> list[str]:
    """The beds the dartboard lights: the visit in progress, or during the
    takeout the visit whose darts are being pulled out."""
    if state.visit:
        return list(state.visit)
    last = state.last_visit
    if state.phase is Phase.TAKEOUT and last is not None:
        return list(last.darts)
    return []


def board_status(state: State | None) -> tuple[str, Color]:
    """The board's status line and its colour, from the state's ``board``."""
    board = state.board if state is not None else BoardView()
    if not board.present:
        return "No board", COLORS.dim
    name = board.name or board.id or "Board"
    if not board.connected:
        return f"{name}: disconnected", COLORS.bad
    if board_problem(state) is not None:
        return f"{name}: set up wrongly", COLORS.bad
    stuck = board.stuck_cells
    if board.status == "stuck" or stuck:
        cells = len(stuck)
        return f"{name}: {cells} stuck cell{'s' if cells != 1 else ''} masked", COLORS.accent
    return f"{name}: connected", COLORS.good


def board_problem(state: State | None) -> str | None:
    """What the state's ``board`` says is wrong with the board (its
    ``problem``: why it is disconnected, or a wrong protocol or speed), or
    ``None``."""
    problem = state.board.problem if state is not None else None
    return problem.strip() if problem is not None and problem.strip() else None


def int_or_none(value: Any) -> int | None:
    """An integer value from the state, or ``None`` for anything else (bools too)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_REASONS: dict[RefusalReason, str] = {
    RefusalReason.NOT_YOUR_TURN: "another board's turn",
    RefusalReason.WAITING_REMOTE: "the remote match is waiting",
}
"""The reasons of a remote match's ignored darts, in a player's words."""


def _ignored_reason(text: str) -> str:
    """An ignored hit's ``reason`` for its notice: a remote match's in words
    (the contract's :meth:`RefusalReason.of`), another's up to its first colon
    (``takeout: contacts while removing darts are not scored``: ``takeout``)."""
    remote = RefusalReason.of(text)
    if remote is not None:
        return _REASONS[remote]
    headline, _, _ = text.partition(":")
    return headline


def _notice_for(payload: Mapping[str, Any]) -> str | None:
    kind = payload.get("type")
    if kind == "hit" and payload.get("scored") is False:
        reason = _ignored_reason(str(payload.get("reason") or "not scored"))
        return f"{payload.get('segment', '?')} not scored: {reason}"
    if kind == "error":
        return f"Board error: {payload.get('message') or payload.get('kind') or '?'}"
    if kind == "stuck":
        return f"Stuck contact at row {payload.get('row')}, column {payload.get('col')}: masked"
    if kind == "refused":
        return f"Refused: {payload.get('error') or payload.get('command') or '?'}"
    return None


# ------------------------------------------------------------------- scene


class Scene:
    """One screen. Subclasses draw the body in :meth:`draw_body`; the base
    draws the background, the header and the notices.

    ``state`` is the latest MQTT state (never modified), ``clock`` the
    animation time in seconds, ``notices`` the recent ``(time, text)``
    notices; :meth:`draw` reads them and nothing else. ``outbox`` holds the
    MQTT commands the scene's inputs made, for the app to send.
    """

    title: ClassVar[str] = ""
    show_board: ClassVar[bool] = True
    """Whether the side column shows the dartboard and the visit."""
    draws_result: ClassVar[bool] = False
    """Whether the scene shows how its game ended itself (the skill test's
    estimates), so the winner panel is not drawn over it (display/banners.py)."""
    show_visit_total: ClassVar[bool] = False
    match_band: ClassVar[bool] = True
    """Whether a match's band (legs, sets, who throws first) takes the top of
    the body when the state has a ``match`` (display/scenes/match_view.py)."""

    def __init__(self, sprites: Sprites | None = None) -> None:
        self.sprites = sprites if sprites is not None else SHARED_SPRITES
        """Where the scene keeps the pictures it draws once and blits after
        (display/sprites.py): the app's, or the shared one."""
        self.state: StateView | None = None
        self.clock = 0.0
        self.notices: list[tuple[float, str]] = []
        self.outbox: list[dict[str, Any]] = []
        """Commands to send to the daemon; the app takes them out and sends them."""
        self.leaderboards: tuple[Snapshot, ...] = ()
        """The leaderboard snapshots from MQTT (never modified): the attract
        screen shows them between games; the app sets them every frame."""
        self.joining: str | None = None
        """The host this board waits to join (``oche play --join HOST``), as
        given: the attract screen says so; the app sets it every frame."""
        self.lobby: LobbyState | None = None
        """The state's ``lobby`` (``None``: a daemon without one); set with :meth:`set_lobby`."""
        self.pairing: PairingState | None = None
        """The board's pairing code and paired devices (its retained ``pairing``):
        the idle screen and the operator menu show them; the app sets it every frame."""
        self.lines: ResultLines | None = None
        """The leaderboard's lines of the board's last stored result (the game-over
        panel shows them); the app sets them every frame."""
        self.announcements: list[tuple[float, Announcement]] = []
        """The lobby's recent announcements, ``(time, announcement)``: drawn as a banner."""
        self.legs_won: list[tuple[float, LegWon]] = []
        """The match's leg just won, ``(time, event)`` from its ``leg_won``: the
        leg-won moment, drawn for :data:`~display.scenes.match_view.LEG_WON_SECONDS`."""

    # ----------------------------------------------------------- the loop

    def set_state(self, state: StateView | Mapping[str, Any] | None) -> None:
        """Show ``state`` from now on (the app calls this when a new state
        arrives; a state document is parsed into its view here)."""
        self.state = as_view(state)

    def set_lobby(self, lobby: LobbyState | None) -> None:
        """Show ``lobby`` (the state's, parsed by the feed) from now on."""
        self.lobby = lobby

    def process_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        """Take a pygame event; return it to pass it on, ``None`` when used up."""
        if event.type == MQTT_EVENT:
            payload = getattr(event, "payload", None)
            if isinstance(payload, Mapping):
                text = _notice_for(payload)
                if text is not None:
                    self.notices = [*self.notices[-2:], (self.clock, text)]
                    return None
                announcement = announcement_for(payload)
                if announcement is not None:
                    self.announcements = [*self.announcements[-2:], (self.clock, announcement)]
                    return None
                leg_won = _leg_won(payload)
                if leg_won is not None:
                    self.legs_won = [(self.clock, leg_won)]
                    return None
        return event

    def update(self, dt: float) -> None:
        """Advance the animation clock by ``dt`` seconds; forget old notices."""
        self.clock += max(0.0, dt)
        self.notices = [n for n in self.notices if self.clock - n[0] < NOTICE_SECONDS]
        self.announcements = [
            a for a in self.announcements if self.clock - a[0] < ANNOUNCEMENT_SECONDS
        ]
        self.legs_won = [won for won in self.legs_won if self.clock - won[0] < LEG_WON_SECONDS]

    def draw(self, surface: pygame.Surface, layout: Layout | None = None) -> None:
        """Draw the whole scene on ``surface``; changes nothing but its pixels.
        It is :meth:`draw_static` then :meth:`draw_animated`."""
        layout = layout or Layout(*surface.get_size())
        self.draw_static(surface, layout)
        self.draw_animated(surface, layout)

    def draw_static(self, surface: pygame.Surface, layout: Layout) -> None:
        """Everything that does not move: it depends on the state and the
        size only, so the app draws it once per state and blits it after."""
        surface.fill(COLORS.background)
        state = self.state or StateView()
        regions = self.regions(layout)
        with layout.on(COLORS.panel):
            self.draw_header(surface, layout, regions["header"], state)
            if "match" in regions:
                draw_match_band(surface, layout, regions["match"], state)
        with layout.on(COLORS.background):
            if self.show_board:
                draw_board(surface, regions["board"], self.sprites)
                self.draw_visit(surface, layout, regions["visit"], state)
            self.draw_body(surface, layout, regions["main"], state)

    def static_key(self) -> Hashable:
        """What :meth:`draw_static` draws from besides the state and the size
        (a screen's leaf of a rotation, say): the app draws the static picture
        again when it changes. ``None``: nothing else."""
        return None

    def draw_animated(self, surface: pygame.Surface, layout: Layout) -> None:
        """What moves with the clock, over :meth:`draw_static`'s picture: the
        lit beds (they pulse) and the notices (they expire)."""
        state = self.state or StateView()
        if self.show_board:
            board = self.regions(layout)["board"]
            draw_lit_beds(surface, board, lit_darts(state), self.clock, self.sprites)
        with layout.on(COLORS.panel):
            self.draw_notices(surface, layout)
        for at, leg_won in self.legs_won:
            draw_leg_won(surface, layout, leg_won, state, self.clock - at)

    # ------------------------------------------------------------ drawing

    def regions(self, layout: Layout) -> dict[str, pygame.Rect]:
        """Where the parts of the scene go: ``header``, ``main`` (the
        scoreboard) and, with the side column, ``board`` and ``visit``."""
        header = layout.rect(0, 0, 1, 0.085)
        body = layout.rect(0.012, 0.1, 0.976, 0.885)
        match: dict[str, pygame.Rect] = {}
        if self.match_band and shows_match(self.state):
            band = layout.rect(0.012, 0.095, 0.976, MATCH_BAND)
            match = {"match": band}
            body = pygame.Rect(body.x, band.bottom + layout.px(8), body.width,
                               body.bottom - band.bottom - layout.px(8))  # fmt: skip
        if not self.show_board:
            return {"header": header, "main": body, **match}
        side_width = round(body.width * 0.3)
        gap = layout.px(16)
        main = pygame.Rect(body.x, body.y, body.width - side_width - gap, body.height)
        side = pygame.Rect(main.right + gap, body.y, side_width, body.height)
        visit_height = min(round(side.height * 0.36), side.height - side.width)
        visit_height = max(visit_height, round(side.height * 0.26))
        board = pygame.Rect(side.x, side.y, side.width, side.height - visit_height)
        visit = pygame.Rect(side.x, board.bottom, side.width, visit_height)
        return {"header": header, "main": main, "board": board, "visit": visit, **match}

    def subtitle(self, state: State) -> str:
        """The options, after the game's name in the header."""
        if not state.has_options:
            return ""
        return "  ·  ".join(f"{key} {format_value(value)}" for key, value in state.options)

    def round_label(self, state: State, round_number: int) -> str:
        """What the header says about the round (a game may call it otherwise)."""
        return f"Round {round_number}"

    def draw_header(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        pygame.draw.rect(surface, COLORS.panel, rect)
        pad = layout.px(24)
        inner = rect.inflate(-2 * pad, 0)
        left, middle, right = split(inner, 3, pad)
        title = self.title or game_name(state.game)
        subtitle = self.subtitle(state)
        line = left.inflate(0, -rect.height // 5)
        placed = layout.text(surface, title, line, layout.font_size(44), COLORS.text, "left")
        if subtitle:
            sub_rect = pygame.Rect(placed.right + pad, line.y, 0, line.height)
            sub_rect.width = max(0, middle.x + middle.width // 4 - sub_rect.x)
            layout.text(surface, subtitle, sub_rect, layout.font_size(26), COLORS.dim, "left")
        round_number = state.round
        if round_number is not None and state.game:
            label = self.round_label(state, round_number)
            if state.match.present and state.match.leg_over and not state.match.finished:
                label = "Leg won  ·  press NEXT for the next leg"
            elif state.finished:
                then = "the next match is called" if state.call.present else SETUP_HINT
                label = f"Finished  ·  {then}"
            layout.text(surface, label, middle, layout.font_size(40), COLORS.text)
        status, colour = board_status(self.state)
        dot = layout.px(9)
        text_rect = layout.text(
            surface,
            status,
            right.inflate(-3 * dot, 0).move(dot, 0),
            layout.font_size(26),
            COLORS.dim,
            "right",
        )
        if text_rect.width:
            pygame.draw.circle(surface, colour, (text_rect.x - 2 * dot, text_rect.centery), dot)

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        """The scoreboard itself; subclasses draw it."""

    def draw_visit(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        """Three boxes with the visit's darts, a caption above and the total below."""
        darts, player, is_last = shown_visit(state)
        bull = state.option("bull") or "split"
        rows = split(rect, 4, 0, vertical=True)
        caption = ""
        if player is not None and state.players:
            name = player_label(state, player)
            if is_last:
                caption = f"Last visit: {name}"
            elif state.visit_over is not None:
                caption = f"{name}'s visit"
            else:
                caption = f"{name} to throw"
        layout.text(surface, caption, rows[0], layout.font_size(26), COLORS.dim)
        boxes_rect = pygame.Rect(rows[1].x, rows[1].y, rect.width, rows[1].height + rows[2].height)
        boxes = split(boxes_rect.inflate(0, -layout.px(8)), 3, layout.px(10))
        for index, box in enumerate(boxes):
            dart = darts[index] if index < len(darts) else ""
            colour = COLORS.panel if dart else COLORS.panel_out
            layout.panel(surface, box, colour, COLORS.line, 1.5)
            if not dart:
                continue
            top, bottom = split(box.inflate(-layout.px(8), -layout.px(6)), 2, 0, vertical=True)
            top = top.inflate(0, top.height // 2).move(0, top.height // 4)
            tone = COLORS.dim if is_last else COLORS.text
            with layout.on(colour):
                layout.text(surface, dart, top, layout.font_size(44), tone)
                layout.text(
                    surface,
                    str(total_points([dart], bull)),
                    bottom.move(0, bottom.height // 4),
                    layout.font_size(24),
                    COLORS.dim,
                )
        if self.show_visit_total and darts:
            over = state.visit_over if not is_last else _last_over(state)
            total = "Bust" if over == "bust" else f"Total {total_points(darts, bull)}"
            colour = COLORS.bad if over == "bust" else COLORS.text
            layout.text(surface, total, rows[3], layout.font_size(34), colour)

    def draw_notices(self, surface: pygame.Surface, layout: Layout) -> None:
        """The recent notices, newest at the bottom, above the banners'
        strip, and the lobby's announcements at the top."""
        self.draw_announcements(surface, layout)
        live = [text for at, text in self.notices if 0 <= self.clock - at < NOTICE_SECONDS]
        height = layout.px(44)
        bottom = layout.height - layout.px(110)
        for offset, text in enumerate(reversed(live)):
            rect = layout.rect(0.2, 0, 0.6, 0)
            rect.height = height
            rect.bottom = bottom - offset * (height + layout.px(6))
            layout.panel(surface, rect, COLORS.panel, COLORS.line, 1.5)
            layout.text(
                surface,
                text,
                rect.inflate(-layout.px(24), 0),
                layout.font_size(26),
                COLORS.text,
            )

    def draw_announcements(self, surface: pygame.Surface, layout: Layout) -> None:
        """The lobby's live announcements under the header, newest first, each
        sliding down into place as it arrives (``Ann joined with their card``,
        a card refused)."""
        live = [
            (at, item)
            for at, item in self.announcements
            if 0 <= self.clock - at < ANNOUNCEMENT_SECONDS
        ]
        height = layout.px(84)
        top = layout.px(96)
        for offset, (at, item) in enumerate(reversed(live)):
            slide = min(1.0, (self.clock - at) / ANNOUNCEMENT_SLIDE)
            rect = layout.rect(0.18, 0, 0.64, 0)
            rect.height = height
            rect.y = top + offset * (height + layout.px(8)) - round((1 - slide) * height)
            colour = _ANNOUNCEMENT_COLOURS[item.kind]
            layout.panel(surface, rect, colour, COLORS.text, 2)
            inner = rect.inflate(-layout.px(28), -layout.px(10))
            with layout.on(colour):
                if item.detail:
                    text_rect, detail_rect = split(inner, 2, layout.px(12))
                    text_rect.width = round(inner.width * 0.72)
                    detail_rect.x, detail_rect.width = (
                        text_rect.right,
                        inner.right - text_rect.right,
                    )
                    layout.text(
                        surface,
                        item.detail,
                        detail_rect,
                        layout.font_size(30),
                        COLORS.text,
                        "right",
                    )
                else:
                    text_rect = inner
                layout.text(
                    surface,
                    item.text,
                    text_rect,
                    layout.font_size(40),
                    COLORS.text,
                    "left" if item.detail else "center",
                )

    # ------------------------------------------------------ player cards

    def card_rects(self, layout: Layout, rect: pygame.Rect, count: int) -> list[pygame.Rect]:
        """The cards of ``count`` players in ``rect``: one row up to four, two rows above."""
        if count <= 0:
            return []
        columns = count if count <= 4 else (count + 1) // 2
        return grid(rect, count, columns, layout.px(14))

    def draw_cards(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        draw_card: Callable[[pygame.Surface, Layout, pygame.Rect, State, int], None],
    ) -> list[pygame.Rect]:
        """One card per player in a grid (one row up to four players, two rows
        above); ``draw_card`` fills each. Returns the cards' rects."""
        players = state.players
        cards = self.card_rects(layout, rect, len(players))
        current = state.current_player
        for index, card in enumerate(cards):
            is_current = index == current and not state.finished
            colour = COLORS.panel_current if is_current else COLORS.panel
            if players[index].out:
                colour = COLORS.panel_out
            border = COLORS.accent if is_current else COLORS.line
            layout.panel(surface, card, colour, border, 4 if is_current else 1.5)
            with layout.on(colour):
                draw_card(surface, layout, card, state, index)
        return cards

    def draw_name(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        index: int,
        size: float = 40,
    ) -> None:
        """The player's name in ``rect``, with a marker before it for the player to throw."""
        is_current = index == state.current_player and not state.finished
        marker = rect.height // 2
        text_rect = rect.inflate(-2 * (marker + layout.px(8)), 0)
        colour = COLORS.accent if is_current else COLORS.text
        placed = layout.text(
            surface, player_label(state, index), text_rect, layout.font_size(size), colour
        )
        if is_current and placed.width:
            _marker(surface, placed.x - layout.px(12), placed.centery, min(marker, placed.height))
        if placed.width and _throws_first(state, index):
            radius = max(3, min(marker, placed.height) // 3)
            draw_starter_mark(surface, (placed.right + layout.px(10) + radius, placed.centery),
                              radius)  # fmt: skip

    def draw_stats(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        items: Sequence[tuple[str, str]],
        size: float = 24,
    ) -> None:
        """``(label, value)`` pairs side by side, each value above its label;
        more than three pairs take two or more rows."""
        if not items:
            return
        columns = min(3, len(items))
        for (label, value), cell in zip(
            items, grid(rect, len(items), columns, layout.px(8)), strict=True
        ):
            value_rect = pygame.Rect(cell.x, cell.y, cell.width, round(cell.height * 0.6))
            label_rect = pygame.Rect(
                cell.x, value_rect.bottom, cell.width, round(cell.height * 0.32)
            )
            layout.text(surface, value, value_rect, layout.font_size(size * 1.6), COLORS.text)
            layout.text(surface, label, label_rect, layout.font_size(size), COLORS.dim)


def _leg_won(payload: Mapping[str, Any]) -> LegWon | None:
    """A ``leg_won`` event as its type, ``None`` for any other (or a malformed one)."""
    if payload.get("type") != LegWon.type:
        return None
    try:
        return LegWon.from_json(payload)
    except PayloadError:
        return None


def _throws_first(state: State, index: int) -> bool:
    """Player ``index`` throws (threw) first in the match's leg being played
    (no one while the match is over or its cork is thrown)."""
    match = state.match
    settled = not match.finished and match.cork is None
    return shows_match(state) and settled and match.starter == index


def _last_over(state: State) -> str | None:
    return state.last_visit.visit_over if state.last_visit is not None else None


def _marker(surface: pygame.Surface, right: int, centre_y: int, height: int) -> None:
    """A small triangle pointing right, its tip at ``right``."""
    half = max(3, height // 3)
    points = [
        (right - 2 * half, centre_y - half),
        (right, centre_y),
        (right - 2 * half, centre_y + half),
    ]
    pygame.draw.polygon(surface, COLORS.accent, points)
