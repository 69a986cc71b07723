"""Darts typed at a terminal, so a person can play without a board.

Each line holds tokens: dart notation (``t20``, ``sb``, ``m``), a button
word (``next``, ``undo``, ``miss``, ``game``, ``player``, ``start``), or
``c`` for a coin (one pulse on coin input 1). A token that is none of these
is reported as an error event and changes nothing.
"""

from __future__ import annotations

import sys
from typing import TextIO

from drivers.board_events import (
    BUTTON_NAMES,
    ButtonEvent,
    CoinEvent,
    ConnectedEvent,
    ErrorEvent,
    HitEvent,
)
from drivers.source import BoardSource
from drivers.terminal_input import read_chunks
from engine import Bed, NotationError

__all__ = ["COIN_KEY", "KeyboardSource"]

COIN_KEY = "c"
"""The token for a coin: one pulse on coin input 1."""


class KeyboardSource(BoardSource):
    """Reads lines from ``stream`` (standard input by default) until it ends."""

    name = "keyboard"

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self.stream = stream or sys.stdin

    def _line(self, line: str) -> None:
        for token in line.split():
            word = token.lower()
            if word in BUTTON_NAMES:
                self._emit(ButtonEvent(word))
                continue
            if word == COIN_KEY:
                self._emit(CoinEvent(1))
                continue
            try:
                self._emit(HitEvent(Bed.parse(token)))
            except NotationError as error:
                self._emit(
                    ErrorEvent(
                        "input",
                        f"{token!r}: not a dart, a button ({', '.join(BUTTON_NAMES)}) "
                        f"or {COIN_KEY} (a coin): "
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
