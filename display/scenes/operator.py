"""The operator menu: prices and free play, the books, the board and button
tests, the volume, and pairing phones (docs/display.md, docs/credits.md,
docs/phone.md).

The app opens it only while no game runs (phase ``idle``): then the daemon
scores no hit, publishes each as a ``hit`` with ``scored`` false and reason
``no game``, and does nothing with a button but publish it; the board test
and the button test use those events, so a test never scores. It opens from
the board's operator button, or from F12 / Ctrl+O followed by the PIN
(:class:`display.operator_pin.PinGate`).

Pages: ``pin`` (the PIN entry), ``menu`` and one per item of :data:`MENU`,
and ``reset`` (the books' reset, confirmed). The ``pairing`` page ("Pair a
phone") shows the board's pairing code and its QR code, large, and the paired
devices: Up/Down picks one (or "Unpair all" under them), Enter sends
``unpair`` for it. Operator commands go through an
:class:`display.operator_link.OperatorLink` made (by ``link_factory``) once
the PIN is right and closed with the menu (:meth:`OperatorScene.close`);
:meth:`OperatorScene.update` takes its answers, status and books into the
scene, so :meth:`OperatorScene.draw` reads the scene only. When the scene is
done (Esc or the operator button on the menu page), :attr:`done` tells the
app to close it.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Mapping
from typing import Any

import pygame

from display.dartboard import draw_board, draw_lit_beds
from display.darts import bed_of
from display.layout import COLORS, Color, Layout, grid, split
from display.operator_link import Answer, OperatorLink
from display.operator_pin import PIN_LENGTHS, PinGate
from display.scenes.base import MQTT_EVENT, Scene, State
from display.scenes.pairing_view import draw_pairing_code
from display.sound_bank import SoundBank
from display.sprites import Sprites
from engine import game_ids, game_name
from mqtt_contract import CreditsView, StateView

__all__ = [
    "ALL_BEDS",
    "MENU",
    "OPERATOR_BUTTON",
    "UNPAIR_ALL",
    "VOLUME_STEP",
    "OperatorScene",
    "books_lines",
    "flatten",
]

OPERATOR_BUTTON = "operator"
"""The board button that opens the menu (a matrix cell mapped ``button:operator``)."""

MENU: tuple[tuple[str, str], ...] = (
    ("prices", "Prices and free play"),
    ("books", "Books"),
    ("board_test", "Board test"),
    ("button_test", "Button test"),
    ("volume", "Volume"),
    ("pairing", "Pair a phone"),
)
"""The menu's pages, in the order of their numbers (1-6)."""

UNPAIR_ALL = "Unpair all"
"""The last line of the pairing page's list: every device at once."""

ALL_BEDS: tuple[str, ...] = (
    *(f"{ring}{number}" for number in range(1, 21) for ring in "SDT"),
    "SB",
    "DB",
)
"""Every bed a hit can name: each number's single (inner and outer read the
same), double and triple, and the two bulls; the board test lists those
never hit."""

VOLUME_STEP = 0.1
MAX_PRICE = 1000
_DIGIT_KEYS = {getattr(pygame, f"K_{n}"): n for n in range(10)} | {
    getattr(pygame, f"K_KP{n}"): n for n in range(10)
}
_ENTER = (pygame.K_RETURN, pygame.K_KP_ENTER)
_UP = (pygame.K_UP, pygame.K_RIGHT, pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS)
_DOWN = (pygame.K_DOWN, pygame.K_LEFT, pygame.K_MINUS, pygame.K_KP_MINUS)


def flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A books section as ``(key, value)`` lines, nested keys joined with dots."""
    if isinstance(value, Mapping):
        lines: list[tuple[str, str]] = []
        for key, item in value.items():
            lines += flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return lines
    if isinstance(value, list):
        return [(prefix, ", ".join(str(item) for item in value))]
    return [(prefix, str(value))]


def _count(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "-" if value is None else str(value)


def _when(value: Any) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "the start"
    return datetime.datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M")


def books_lines(section: Any) -> list[str]:
    """One set of books (``customer`` or ``security``, docs/credits.md) as the
    lines the books page shows: coins per input, credits in per source and
    spent, games and play time. A section of another shape is shown as it is
    (:func:`flatten`)."""
    if not isinstance(section, Mapping) or "credits_in_total" not in section:
        return [f"{key}: {value}" for key, value in flatten(section or {})]
    lines = [f"Since {_when(section.get('reset_at', section.get('from')))}"]
    lines.append(f"Coins: {_count(section.get('coins_total'))}")
    coins = section.get("coins")
    for name, entry in coins.items() if isinstance(coins, Mapping) else ():
        if isinstance(entry, Mapping):
            pulses, credits = _count(entry.get("pulses")), _count(entry.get("credits"))
            lines.append(f"  input {name}: {pulses} coins, {credits} credits")
    lines.append(f"Credits in: {_count(section.get('credits_in_total'))}")
    sources = section.get("credits_in")
    if isinstance(sources, Mapping) and sources:
        lines.append("  " + "  ·  ".join(f"{k} {_count(v)}" for k, v in sources.items()))
    lines.append(f"Credits spent: {_count(section.get('credits_spent'))}")
    if "credits_net" in section:
        lines.append(f"Credits net: {_count(section.get('credits_net'))}")
    seconds = section.get("play_time_s")
    hours = (
        f"{int(seconds) // 3600}:{int(seconds) % 3600 // 60:02d}"
        if isinstance(seconds, int | float)
        else "-"
    )
    lines.append(f"Games played: {_count(section.get('games_played'))}  ·  play time {hours}")
    games = section.get("games")
    for game, entry in games.items() if isinstance(games, Mapping) else ():
        if isinstance(entry, Mapping):
            lines.append(f"  {game_name(game)}: {_count(entry.get('played'))}")
    return lines


def _pin_digit(segment: object) -> int | None:
    """The PIN digit a hit types: numbers 1-9 that digit, 10 a zero."""
    bed = bed_of(segment)
    if bed is None or bed.is_miss or not 1 <= bed.number <= 10:
        return None
    return bed.number % 10


class OperatorScene(Scene):
    """The operator menu. ``need_pin``: it starts at the PIN entry (the key
    opened it), else at the menu (the operator button did)."""

    title = "Operator"
    show_board = False

    def __init__(
        self,
        *,
        need_pin: bool = False,
        gate: PinGate | None = None,
        link_factory: Callable[[], OperatorLink] | None = None,
        sound: SoundBank | None = None,
        sprites: Sprites | None = None,
    ) -> None:
        super().__init__(sprites)
        self.gate = gate
        self.link_factory = link_factory
        self.link: OperatorLink | None = None
        self.sound = sound
        self.page = "pin" if need_pin else "menu"
        self.done = False
        """The menu is to close: the app takes the daemon's scene back."""
        self.pin = ""
        self.pin_error = ""
        self.locked_for = 0.0
        self.highlight = 0
        self.price: int | None = None
        """The price being set on the prices page (``None``: the state's)."""
        self.price_game: str | None = None
        """The game the price is for (``None``: every game), sent as ``game``."""
        self.hit: dict[str, int] = {}
        """Board test: bed -> times hit, in the order first hit."""
        self.buttons: dict[str, int] = {}
        """Button test: button -> times pressed, in the order first pressed."""
        self.last_button: str | None = None
        self.device_choice = 0
        """Pairing page: the paired device picked (its index; the count of them: Unpair all)."""
        self.books: dict[str, Any] | None = None
        self.link_status = "not connected"
        self.message: tuple[str, bool] | None = None
        """The latest answer to a command, and whether it went well."""
        self.sent: list[dict[str, Any]] = []
        """The commands sent, oldest first (what the operator did, for the screen and tests)."""
        if not need_pin:
            self._unlock()

    # ---------------------------------------------------------- the link

    def _unlock(self) -> None:
        self.page = "menu"
        if self.link is None and self.link_factory is not None:
            self.link = self.link_factory().start()

    def close(self) -> None:
        """Close the operator's connection (the app calls this as the menu closes)."""
        if self.link is not None:
            self.link.close()
            self.link = None

    def send(self, command: dict[str, Any]) -> None:
        """Send an operator command on the operator's connection."""
        link = self.link
        if link is None:
            self.message = ("No operator connection", False)
        elif not link.send(command):
            self.message = (f"{command['command']} not sent: {self.link_status}", False)
        else:
            self.sent.append(command)
            self.message = (f"{command['command']}: sent, waiting for the daemon", True)

    def update(self, dt: float) -> None:
        super().update(dt)
        if self.gate is not None:
            self.locked_for = self.gate.locked_for()
        link = self.link
        if link is None:
            return
        self.link_status = link.status
        self.books = link.books
        for answer in link.answers():
            self.message = (_answer_text(answer), answer.ok)

    # ------------------------------------------------------------- state

    @property
    def credits(self) -> CreditsView:
        """The state's ``credits`` block (not ``present``: a daemon without credits)."""
        return self.state.credits if self.state is not None else CreditsView()

    def shown_price(self) -> int:
        state_price = self.credits.price if self.credits.present else 1
        return self.price if self.price is not None else state_price

    def paired_devices(self) -> list[tuple[str, str]]:
        """The board's paired devices, ``(id, name)``, as its pairing topic lists them."""
        pairing = self.pairing
        return [] if pairing is None else [(d.id, d.name) for d in pairing.devices]

    def never_hit(self) -> list[str]:
        """The beds the board test has not seen hit yet, in board order."""
        return [bed for bed in ALL_BEDS if bed not in self.hit]

    # ------------------------------------------------------------ inputs

    def process_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        if event.type == MQTT_EVENT:
            payload = getattr(event, "payload", None)
            if isinstance(payload, Mapping):
                if payload.get("type") == "hit":
                    self._hit(payload.get("segment"))
                    return None
                if payload.get("type") == "button":
                    self._button(str(payload.get("button", "")).lower())
                    return None
            return super().process_event(event)
        if event.type == pygame.KEYDOWN:
            self._key(event)
            return None
        return event

    def _hit(self, segment: object) -> None:
        bed = bed_of(segment)
        if self.page == "pin":
            if bed is not None and bed.number == 25:
                self._enter_pin()
            digit = _pin_digit(segment)
            if digit is not None:
                self._type_digit(digit)
        elif self.page == "board_test":
            if bed is not None and not bed.is_miss:
                self.hit[bed.notation] = self.hit.get(bed.notation, 0) + 1
        elif self.page == "menu" and bed is not None and 1 <= bed.number <= len(MENU):
            self._open(bed.number - 1)

    def _button(self, name: str) -> None:
        if name == OPERATOR_BUTTON:
            self._back()
        elif self.page == "button_test":
            self.buttons[name] = self.buttons.get(name, 0) + 1
            self.last_button = name

    def _back(self) -> None:
        """Esc or the operator button: from a page to the menu, from the menu
        (or the PIN entry) out."""
        if self.page in ("menu", "pin"):
            self.done = True
        elif self.page == "reset":
            self.page = "books"
        else:
            self.page = "menu"

    def _open(self, index: int) -> None:
        self.highlight = index
        self.page = MENU[index][0]
        self.price = None

    def _key(self, event: pygame.event.Event) -> None:
        key = event.key
        if key == pygame.K_ESCAPE:
            self._back()
            return
        handler = getattr(self, f"_key_{self.page}", None)
        if handler is not None:
            handler(key)

    def _type_digit(self, digit: int) -> None:
        if len(self.pin) < PIN_LENGTHS[1]:
            self.pin += str(digit)
        self.pin_error = ""

    def _enter_pin(self) -> None:
        gate = self.gate
        if gate is None:
            return
        pin, self.pin = self.pin, ""
        if gate.locked_for() > 0:
            self.pin_error = "Locked: wait before trying again"
        elif gate.check(pin):
            self.pin_error = ""
            self._unlock()
        elif gate.locked_for() > 0:
            self.pin_error = "Wrong PIN: locked"
        else:
            left = gate.tries_left()
            self.pin_error = f"Wrong PIN: {left} {'try' if left == 1 else 'tries'} left"
        self.locked_for = gate.locked_for()

    def _key_pin(self, key: int) -> None:
        if key in _DIGIT_KEYS:
            self._type_digit(_DIGIT_KEYS[key])
        elif key == pygame.K_BACKSPACE:
            self.pin = self.pin[:-1]
        elif key in _ENTER:
            self._enter_pin()

    def _key_menu(self, key: int) -> None:
        if key in _DIGIT_KEYS and 1 <= _DIGIT_KEYS[key] <= len(MENU):
            self._open(_DIGIT_KEYS[key] - 1)
        elif key in (pygame.K_DOWN, pygame.K_RIGHT):
            self.highlight = (self.highlight + 1) % len(MENU)
        elif key in (pygame.K_UP, pygame.K_LEFT):
            self.highlight = (self.highlight - 1) % len(MENU)
        elif key in _ENTER:
            self._open(self.highlight)

    def _key_prices(self, key: int) -> None:
        if key in _UP:
            self.price = min(MAX_PRICE, self.shown_price() + 1)
        elif key in _DOWN:
            self.price = max(0, self.shown_price() - 1)
        elif key in _ENTER:
            command: dict[str, Any] = {"command": "set_price", "price": self.shown_price()}
            if self.price_game is not None:
                command["game"] = self.price_game
            self.send(command)
            self.price = None
        elif key == pygame.K_g:
            games: list[str | None] = [None, *game_ids()]
            self.price_game = games[(games.index(self.price_game) + 1) % len(games)]
        elif key in (pygame.K_f, pygame.K_SPACE):
            self.send({"command": "set_free_play", "on": not self.credits.free_play})

    def _key_books(self, key: int) -> None:
        if key == pygame.K_r:
            self.page = "reset"

    def _key_reset(self, key: int) -> None:
        if key in (*_ENTER, pygame.K_y):
            self.send({"command": "reset_books"})
            self.page = "books"
        elif key == pygame.K_n:
            self.page = "books"

    def _key_board_test(self, key: int) -> None:
        if key in (pygame.K_r, pygame.K_BACKSPACE):
            self.hit = {}

    def _key_button_test(self, key: int) -> None:
        if key in (pygame.K_r, pygame.K_BACKSPACE):
            self.buttons, self.last_button = {}, None

    def _key_pairing(self, key: int) -> None:
        devices = self.paired_devices()
        choices = len(devices) + 1  # the devices, then Unpair all
        self.device_choice = min(self.device_choice, choices - 1)
        if key in (pygame.K_DOWN, pygame.K_RIGHT):
            self.device_choice = (self.device_choice + 1) % choices
        elif key in (pygame.K_UP, pygame.K_LEFT):
            self.device_choice = (self.device_choice - 1) % choices
        elif key in (*_ENTER, pygame.K_u):
            if self.device_choice < len(devices):
                self.send({"command": "unpair", "device": devices[self.device_choice][0]})
            elif devices:
                self.send({"command": "unpair"})
            else:
                self.message = ("No phone is paired", False)

    def _key_volume(self, key: int) -> None:
        sound = self.sound
        if sound is None:
            return
        if key in _UP or key in _DOWN:
            step = VOLUME_STEP if key in _UP else -VOLUME_STEP
            sound.set_volume(round(sound.volume + step, 2))
            sound.play("single")
        elif key in (pygame.K_m, pygame.K_s):
            sound.toggle_mute()

    # ----------------------------------------------------------- drawing

    def subtitle(self, state: State) -> str:
        if self.page == "pin":
            return "Enter the operator PIN"
        return dict(MENU).get(self.page, "Menu" if self.page == "menu" else "Reset the books")

    def draw_static(self, surface: pygame.Surface, layout: Layout) -> None:
        # The menu changes without a new state: everything is drawn in draw_animated.
        surface.fill(COLORS.background)

    def draw_animated(self, surface: pygame.Surface, layout: Layout) -> None:
        surface.fill(COLORS.background)
        state = self.state or StateView()
        with layout.on(COLORS.panel):
            self.draw_header(surface, layout, self.regions(layout)["header"], state)
        body = layout.rect(0.03, 0.11, 0.94, 0.72)
        with layout.on(COLORS.background):
            getattr(self, f"_draw_{self.page}")(surface, layout, body)
            self._draw_footer(surface, layout)
        with layout.on(COLORS.panel):
            self.draw_notices(surface, layout)

    def _line(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        text: str,
        size: float = 32,
        colour: Color | None = None,
        align: str = "left",
    ) -> None:
        layout.text(surface, text, rect, layout.font_size(size), colour or COLORS.text,
                    "left" if align == "left" else "center")  # fmt: skip

    def _draw_footer(self, surface: pygame.Surface, layout: Layout) -> None:
        status = layout.rect(0.03, 0.84, 0.94, 0.05)
        if self.page != "pin":
            good = self.link_status == "connected"
            who = self.link.username if self.link is not None else None
            text = f"Operator account: {self.link_status}"
            if good:
                text = f"Operator account: connected as {who or 'anonymous'}"
            self._line(surface, layout, status, text, 24, (COLORS.good if good else COLORS.bad))
        if self.message is not None and self.page != "pin":
            text, ok = self.message
            where = layout.rect(0.03, 0.79, 0.94, 0.05)
            self._line(surface, layout, where, text, 28, (COLORS.good if ok else COLORS.bad))
        hints = layout.rect(0.03, 0.9, 0.94, 0.06)
        self._line(surface, layout, hints, _HINTS[self.page], 24, COLORS.dim, "center")

    def _draw_pin(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        rows = split(rect, 4, layout.px(12), vertical=True)
        self._line(surface, layout, rows[0], "Operator PIN", 48, COLORS.accent, "center")
        box = rows[1].inflate(-rect.width // 2, 0)
        layout.panel(surface, box, COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            self._line(surface, layout, box, "*" * len(self.pin) or " ", 56, None, "center")
        if self.locked_for > 0:
            text = f"Locked: try again in {math.ceil(self.locked_for)} s"
            self._line(surface, layout, rows[2], text, 36, COLORS.bad, "center")
        elif self.pin_error:
            self._line(surface, layout, rows[2], self.pin_error, 36, COLORS.bad, "center")

    def _draw_menu(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        for index, ((_, label), cell) in enumerate(
            zip(MENU, grid(rect, len(MENU), 3, layout.px(18)), strict=True)
        ):
            lit = index == self.highlight
            colour = COLORS.panel_current if lit else COLORS.panel
            layout.panel(surface, cell, colour, COLORS.accent if lit else COLORS.line,
                         4 if lit else 1.5)  # fmt: skip
            with layout.on(colour):
                self._line(surface, layout, cell.inflate(-layout.px(24), 0),
                           f"{index + 1}  {label}", 40, None, "center")  # fmt: skip

    def _draw_prices(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        rows = split(rect, 5, layout.px(8), vertical=True)
        credits = self.credits
        if not credits.present:
            self._line(surface, layout, rows[0], "The daemon's state has no credits block", 32,
                       COLORS.bad)  # fmt: skip
        mode = credits.mode or "?"
        free = credits.free_play
        held = credits.credits if credits.present else "-"
        self._line(surface, layout, rows[1], f"Mode: {mode}  ·  Credits: {held}")
        self._line(surface, layout, rows[2], f"Free play: {'on' if free else 'off'}", 40,
                   COLORS.good if free else COLORS.text)  # fmt: skip
        pending = self.price is not None
        game = "every game" if self.price_game is None else game_name(self.price_game)
        self._line(surface, layout, rows[4], f"Price for: {game}", 32)
        price = f"Price: {self.shown_price()} credit(s) per player"
        self._line(surface, layout, rows[3], price + ("  (Enter to set)" if pending else ""), 40,
                   COLORS.accent if pending else COLORS.text)  # fmt: skip
        if credits.happy_hour:
            self._line(surface, layout, rows[0], "Happy hour is on", 32, COLORS.good)

    def _draw_books(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        books = self.books
        if books is None:
            self._line(surface, layout, rect.inflate(0, -rect.height // 2),
                       "No books yet: waiting for the daemon's snapshot", 32, COLORS.dim,
                       "center")  # fmt: skip
            return
        for column, (name, title) in zip(
            split(rect, 2, layout.px(24)),
            (
                ("customer", "Customer books (resettable)"),
                ("security", "Security books (lifetime)"),
            ),
            strict=True,
        ):
            lines = books_lines(books.get(name))
            count = max(len(lines) + 1, 12)
            rows = split(column, count, 0, vertical=True)
            self._line(surface, layout, rows[0], title, 30, COLORS.accent)
            for line, row in zip(lines, rows[1:], strict=False):
                self._line(surface, layout, row, line, 24)

    def _draw_reset(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        rows = split(rect, 3, layout.px(12), vertical=True)
        self._line(surface, layout, rows[0], "Reset the customer books?", 48, COLORS.accent,
                   "center")  # fmt: skip
        self._line(surface, layout, rows[1],
                   "The lifetime security books are kept.", 32, None, "center")  # fmt: skip

    def _draw_board_test(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        board, text = split(rect, 2, layout.px(24))
        board.width = min(board.width, board.height)
        text.x = board.right + layout.px(24)
        text.width = rect.right - text.x
        draw_board(surface, board, self.sprites)
        draw_lit_beds(surface, board, list(self.hit), 0.25, self.sprites)
        missing = self.never_hit()
        rows = split(text, 12, 0, vertical=True)
        self._line(surface, layout, rows[0], f"Hit: {len(self.hit)} of {len(ALL_BEDS)} beds", 32,
                   COLORS.good if not missing else COLORS.text)  # fmt: skip
        if not missing:
            self._line(surface, layout, rows[1], "Every bed was hit", 32, COLORS.good)
            return
        self._line(surface, layout, rows[1], f"Never hit ({len(missing)}):", 28, COLORS.bad)
        per_line = 8
        for index, row in enumerate(rows[2:]):
            chunk = missing[index * per_line : (index + 1) * per_line]
            if chunk:
                self._line(surface, layout, row, " ".join(chunk), 24)

    def _draw_button_test(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        rows = split(rect, 8, layout.px(6), vertical=True)
        if self.last_button is None:
            self._line(surface, layout, rows[0], "Press each button on the board", 40,
                       COLORS.dim, "center")  # fmt: skip
            return
        self._line(surface, layout, rows[0], f"Pressed: {self.last_button.upper()}", 48,
                   COLORS.accent, "center")  # fmt: skip
        for (name, count), row in zip(self.buttons.items(), rows[1:], strict=False):
            self._line(surface, layout, row, f"{name.upper()}  x{count}", 32, None, "center")

    def _draw_pairing(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        code_rect, text = split(rect, 2, layout.px(24))
        code_rect.width = min(code_rect.width, code_rect.height)
        text.x = code_rect.right + layout.px(24)
        text.width = rect.right - text.x
        pairing = self.pairing
        if pairing is None:
            self._line(surface, layout, code_rect, "No pairing from the board yet", 32,
                       COLORS.dim, "center")  # fmt: skip
        else:
            draw_pairing_code(surface, layout, code_rect, pairing, self.sprites,
                              side_by_side=False)  # fmt: skip
        devices = self.paired_devices()
        rows = split(text, 10, layout.px(4), vertical=True)
        count = len(devices)
        title = f"Paired: {count} device{'s' if count != 1 else ''}" if count else "No phone paired"
        self._line(surface, layout, rows[0], title, 32, COLORS.accent)
        lines = [*(name for _, name in devices[: len(rows) - 2]), UNPAIR_ALL]
        chosen = min(self.device_choice, count)
        for index, (line, row) in enumerate(zip(lines, rows[1:], strict=False)):
            lit = index == chosen or (line == UNPAIR_ALL and chosen >= count)
            colour = COLORS.panel_current if lit else COLORS.panel
            layout.panel(surface, row, colour, COLORS.accent if lit else COLORS.line, 1.5)
            shown = line if line == UNPAIR_ALL else f"{line}  ·  Unpair"
            with layout.on(colour):
                self._line(surface, layout, row.inflate(-layout.px(16), 0), shown, 28,
                           COLORS.dim if line == UNPAIR_ALL and not count else None)  # fmt: skip

    def _draw_volume(self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
        rows = split(rect, 4, layout.px(12), vertical=True)
        sound = self.sound
        if sound is None:
            self._line(surface, layout, rows[0], "No sound on this display", 40, COLORS.dim,
                       "center")  # fmt: skip
            return
        muted = " (muted)" if sound.muted else ""
        self._line(surface, layout, rows[0], f"Volume: {round(sound.volume * 100)}%{muted}", 48,
                   COLORS.accent, "center")  # fmt: skip
        bar = rows[1].inflate(-rect.width // 4, -rows[1].height // 2)
        layout.panel(surface, bar, COLORS.panel, COLORS.line, 1.5)
        filled = pygame.Rect(bar.x, bar.y, round(bar.width * sound.volume), bar.height)
        if filled.width:
            layout.panel(surface, filled, COLORS.faint if sound.muted else COLORS.good)


def _answer_text(answer: Answer) -> str:
    if answer.ok:
        return f"{answer.command}: done"
    return f"{answer.command} refused: {answer.error}"


_HINTS = {
    "pin": "Digits or throw 1-10 (10 is 0)  ·  Enter or bull: open  ·  Backspace  ·  Esc cancel",
    "menu": "1-6, throw 1-6, or arrows + Enter  ·  Esc or OPERATOR: leave the menu",
    "prices": "Up/Down or +/-: price  ·  G: which game  ·  Enter: set it  ·  "
    "F or Space: free play on/off  ·  Esc back",
    "books": "R: reset the customer books  ·  Esc or OPERATOR: back",
    "reset": "Enter or Y: reset  ·  N or Esc: keep them",
    "board_test": "Throw at every bed  ·  R: start again  ·  Esc or OPERATOR: back",
    "button_test": "Press each button  ·  R: start again  ·  Esc or OPERATOR: back",
    "volume": "Up/Down or +/-: volume (plays a sound)  ·  M: mute  ·  Esc or OPERATOR: back",
    "pairing": "Scan with a phone to pair it  ·  Up/Down: a device  ·  Enter: unpair it  ·  "
    "Esc or OPERATOR: back",
}
"""The keys of each page, shown at the bottom."""
