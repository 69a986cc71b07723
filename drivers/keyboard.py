"""Darts typed at a terminal, so a person can play without a board.

Each line holds tokens: dart notation (``t20``, ``sb``, ``m``), a button
word (``next``, ``undo``, ``miss``, ``game``, ``player``, ``start``),
``c`` for a coin (one pulse on coin input 1), ``card`` for a tap of the test
card (``[cards] test_card``) or ``card:UID`` for another card. A token that
is none of these is reported as an error event and changes nothing (a bad
card's error never repeats its UID).
"""

from __future__ import annotations

import sys
from typing import TextIO

from drivers.board_events import (
    BUTTON_NAMES,
    CARD_UID,
    ButtonEvent,
    CardTapped,
    CoinEvent,
    ConnectedEvent,
    ErrorEvent,
    HitEvent,
)
from drivers.card_readers import DEFAULT_TEST_CARD
from drivers.source import BoardSource
from drivers.terminal_input import read_chunks
from engine import Bed, NotationError

__all__ = ["CARD_KEY", "COIN_KEY", "KeyboardSource"]

COIN_KEY = "c"
"""The token for a coin: one pulse on coin input 1."""

CARD_KEY = "card"
"""The token for a tap of the test card; ``card:UID`` taps another."""


class KeyboardSource(BoardSource):
    """Reads lines from ``stream`` (standard input by default) until it ends;
    ``card`` taps ``test_card``."""

    name = "keyboard"

    def __init__(self, stream: TextIO | None = None, test_card: str = DEFAULT_TEST_CARD) -> None:
        super().__init__()
        self.stream = stream or sys.stdin
        self.test_card = test_card

    def _line(self, line: str) -> None:
        for token in line.split():
            word = token.lower()
            if word in BUTTON_NAMES:
                self._emit(ButtonEvent(word))
                continue
            if word == COIN_KEY:
                self._emit(CoinEvent(1))
                continue
            if word == CARD_KEY:
                self._emit(CardTapped(self.test_card))
                continue
            if word.startswith(CARD_KEY + ":"):
                uid = token[len(CARD_KEY) + 1 :]
                if CARD_UID.fullmatch(uid):
                    self._emit(CardTapped(uid))
                else:
                    self._emit(
                        ErrorEvent(
                            "input", "card:UID takes 4 to 40 hex digits, such as card:04A21B3F"
                        )
                    )
                continue
            try:
                self._emit(HitEvent(Bed.parse(token)))
            except NotationError as error:
                self._emit(
                    ErrorEvent(
                        "input",
                        f"{token!r}: not a dart, a button ({', '.join(BUTTON_NAMES)}) "
                        f"{COIN_KEY} (a coin) or {CARD_KEY} (the test card): "
                        f"{error.reason}",
                    )
                )

    async def _run(self) -> None:
        self._emit(ConnectedEvent(self.name))
        pending = b""
        async for data in read_chunks(self.stream.fileno()):
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                self._line(line.decode("utf-8", "replace"))
        if pending:
            self._line(pending.decode("utf-8", "replace"))
