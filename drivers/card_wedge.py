"""Keyboard-wedge card readers: USB readers (125 kHz and 13.56 MHz) that type
a card's number and Enter as a keyboard would, read through the Linux input
layer with python-evdev.

The device (``/dev/input/event*``, or better its stable
``/dev/input/by-id/...-event-kbd`` link) is grabbed (``EVIOCGRAB``), so no
keystroke reaches the display or a console while Oche reads it.
:class:`WedgeDecoder` turns its key presses into numbers: hex digits
(the main row and the keypad), separators skipped, Enter ends a card; a gap
longer than ``max_gap_s`` inside a number drops what came before it (a
person at a keyboard, not a reader). :class:`KeyboardWedgeReader` yields a
:class:`~drivers.board_events.CardTapped` for each; a reader unplugged is
reported once and opened again when it is back (``board_backoff``'s
delays). The UID never appears in a log line: only
:func:`~drivers.board_events.masked_card`'s last four digits.
"""

from __future__ import annotations

import contextlib
import errno
import logging
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from evdev import InputDevice, InputEvent, ecodes

from drivers.board_events import CardTapped, masked_card
from drivers.source import ReconnectingSource, board_backoff
from mqtt_client.backoff import Backoff

__all__ = ["InputDeviceLike", "KeyboardWedgeReader", "WedgeDecoder"]

log = logging.getLogger(__name__)

_KEY_DOWN = 1
"""An ``EV_KEY`` event's value when the key goes down (0: up, 2: repeat)."""

_CHARACTERS: dict[int, str] = {
    **{ecodes.ecodes[f"KEY_{digit}"]: str(digit) for digit in range(10)},
    **{ecodes.ecodes[f"KEY_KP{digit}"]: str(digit) for digit in range(10)},
    **{ecodes.ecodes[f"KEY_{letter}"]: letter for letter in "ABCDEF"},
}
"""The keys a card's number is typed with: decimal digits or hex (either row)."""

_SEPARATORS = frozenset(
    ecodes.ecodes[name]
    for name in ("KEY_SPACE", "KEY_MINUS", "KEY_SEMICOLON", "KEY_DOT", "KEY_KPMINUS")
)
"""Keys some readers type between a UID's bytes (``04:A2``, ``04-A2``): skipped."""

_MODIFIERS = frozenset(
    ecodes.ecodes[name]
    for name in ("KEY_LEFTSHIFT", "KEY_RIGHTSHIFT", "KEY_CAPSLOCK", "KEY_NUMLOCK")
)
"""Keys a reader presses around upper-case letters or the keypad: ignored."""

_ENTERS = frozenset((ecodes.ecodes["KEY_ENTER"], ecodes.ecodes["KEY_KPENTER"]))

MAX_UID_LENGTH = 40
"""The longest number read as a card (``credentials.card_hash`` takes 4 to 40 hex digits)."""

MIN_UID_LENGTH = 4


class WedgeDecoder:
    """Key events in, card numbers out: :meth:`feed` returns the number an
    Enter ends, else ``None``."""

    def __init__(self, max_gap_s: float = 1.0) -> None:
        self.max_gap_s = max_gap_s
        self._typed: list[str] = []
        self._last_key_at: float | None = None
        self.dropped = 0
        """Numbers thrown away: too short, too long, another key inside, a gap."""

    def _drop(self) -> None:
        if self._typed:
            self.dropped += 1
        self._typed.clear()

    def feed(self, event: InputEvent) -> str | None:
        """Take one input event; the card's number when it ends one."""
        if event.type != ecodes.EV_KEY or event.value != _KEY_DOWN:
            return None
        at = event.timestamp()
        if self._last_key_at is not None and at - self._last_key_at > self.max_gap_s:
            self._drop()
        self._last_key_at = at
        code = event.code
        if code in _MODIFIERS or code in _SEPARATORS:
            return None
        if code in _ENTERS:
            number = "".join(self._typed)
            self._typed.clear()
            if MIN_UID_LENGTH <= len(number) <= MAX_UID_LENGTH:
                return number
            if number:
                self.dropped += 1
            return None
        character = _CHARACTERS.get(code)
        if character is None:  # not a card reader's key: what was typed is no card
            self._drop()
            return None
        self._typed.append(character)
        if len(self._typed) > MAX_UID_LENGTH:
            self._drop()
        return None


class InputDeviceLike(Protocol):
    """What the reader uses of ``evdev.InputDevice`` (a test fakes it)."""

    name: str

    def grab(self) -> None: ...

    def ungrab(self) -> None: ...

    def close(self) -> None: ...

    def async_read_loop(self) -> AsyncIterator[InputEvent]: ...


def _open_input_device(path: str) -> InputDeviceLike:
    device: InputDeviceLike = InputDevice(path)
    return device


class KeyboardWedgeReader(ReconnectingSource):
    """Reads a keyboard-wedge card reader at ``path``, grabbed, until closed."""

    name = "card-reader"

    def __init__(
        self,
        path: str,
        *,
        open_device: Callable[[str], InputDeviceLike] = _open_input_device,
        backoff: Backoff | None = None,
        max_gap_s: float = 1.0,
    ) -> None:
        super().__init__()
        self.path = path
        self.source_id = f"card reader evdev:{path}"
        self.backoff = backoff or board_backoff()
        self.key_decoder = WedgeDecoder(max_gap_s)
        self._open_device = open_device

    def _open(self) -> InputDeviceLike:
        """The device, grabbed; an ``_Unavailable`` saying why it cannot be."""
        path = self.path
        try:
            device = self._open_device(path)
        except FileNotFoundError:
            raise _Unavailable(
                f"{path} does not exist: is the reader plugged in? "
                "(ls -l /dev/input/by-id/ lists the input devices)"
            ) from None
        except PermissionError:
            raise _Unavailable(
                f"no permission to read {path}: add this user to the input group "
                "(sudo usermod -aG input $USER) or install udev/71-oche-card-reader.rules"
            ) from None
        except OSError as error:
            raise _Unavailable(f"{path} cannot be opened: {error.strerror or error}") from None
        try:
            device.grab()
        except OSError as error:
            device.close()
            if error.errno == errno.EBUSY:
                raise _Unavailable(
                    f"{path} is grabbed by another program (oche run, oche cards monitor?)"
                ) from None
            raise _Unavailable(f"{path} cannot be grabbed: {error.strerror or error}") from None
        return device

    async def _session(self) -> str:
        try:
            device = self._open()
        except _Unavailable as unavailable:
            return unavailable.reason
        log.info("%s: %s, grabbed", self.source_id, device.name)
        self._connected()
        try:
            async for event in device.async_read_loop():
                uid = self.key_decoder.feed(event)
                if uid is not None:
                    self.backoff.reset()
                    log.debug("%s: card %s", self.source_id, masked_card(uid))
                    self._emit(CardTapped(uid))
            return f"{self.path} closed"
        except OSError as error:
            return f"{self.path} went away ({error.strerror or error})"
        finally:
            with contextlib.suppress(OSError):
                device.ungrab()
            with contextlib.suppress(OSError):
                device.close()


class _Unavailable(Exception):
    """The reader cannot be opened now; ``reason`` says why, for the log."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
