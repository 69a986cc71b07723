"""PC/SC at pyscard's API boundary: a stand-in for ``smartcard.scard`` (the
calls :class:`~drivers.card_pcsc.PcscReader` makes, with pyscard's return
conventions and its real constants and error messages) over readers and
cards the test puts down and takes away, as pcscd would report them."""

from __future__ import annotations

import threading
from typing import Any

import smartcard.scard as scard  # type: ignore[import-untyped]

__all__ = ["FakePcsc"]

ATR = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]


class FakePcsc:
    """pcscd with readers the test controls. Attributes it does not define
    (the constants, ``SCardGetErrorMessage``) are pyscard's own."""

    def __init__(self, service: bool = True) -> None:
        self.service = service
        self.readers: dict[str, list[int] | None] = {}
        """Reader name -> the UID of the card on it, or ``None`` (empty)."""
        self.refuses: dict[str, list[int]] = {}
        """Reader name -> the status words it answers the get-UID command with."""
        self.card_events: dict[str, int] = {}
        """Reader name -> how many times a card came or went (pcsc-lite's high word)."""
        self.transmitted: list[list[int]] = []
        self.contexts_open = 0
        self._changed = threading.Condition()
        self._cards: dict[int, str] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(scard, name)

    # ------------------------------------------------------------ the test's hands

    def plug(self, reader: str) -> None:
        with self._changed:
            self.readers[reader] = None
            self._changed.notify_all()

    def unplug(self, reader: str) -> None:
        with self._changed:
            del self.readers[reader]
            self._changed.notify_all()

    def put(self, reader: str, uid: list[int]) -> None:
        with self._changed:
            self.readers[reader] = uid
            self.card_events[reader] = self.card_events.get(reader, 0) + 1
            self._changed.notify_all()

    def take(self, reader: str) -> None:
        with self._changed:
            self.readers[reader] = None
            self.card_events[reader] = self.card_events.get(reader, 0) + 1
            self._changed.notify_all()

    # ------------------------------------------------------------ pyscard's calls

    def _state(self, reader: str) -> int:
        if reader not in self.readers:
            return int(scard.SCARD_STATE_UNKNOWN | scard.SCARD_STATE_UNAVAILABLE)
        counted = self.card_events.get(reader, 0) << 16
        if self.readers[reader] is None:
            return int(scard.SCARD_STATE_EMPTY) | counted
        return int(scard.SCARD_STATE_PRESENT) | counted

    def SCardEstablishContext(self, scope: int) -> list[int]:
        if not self.service:
            return [scard.SCARD_E_NO_SERVICE, 0]
        self.contexts_open += 1
        return [scard.SCARD_S_SUCCESS, 0x1000 + self.contexts_open]

    def SCardReleaseContext(self, context: int) -> int:
        self.contexts_open -= 1
        return int(scard.SCARD_S_SUCCESS)

    def SCardListReaders(self, context: int, groups: list[str]) -> list[Any]:
        with self._changed:
            if not self.readers:
                return [scard.SCARD_E_NO_READERS_AVAILABLE, []]
            return [scard.SCARD_S_SUCCESS, list(self.readers)]

    def SCardGetStatusChange(
        self, context: int, timeout_ms: int, states: list[tuple[str, int]]
    ) -> list[Any]:
        reader, known = states[0]
        known &= ~scard.SCARD_STATE_CHANGED
        with self._changed:
            current = self._state(reader)
            if current == known:
                self._changed.wait(timeout_ms / 1000)
                current = self._state(reader)
            if current == known:
                return [scard.SCARD_E_TIMEOUT, [(reader, known, [])]]
            atr = ATR if current & scard.SCARD_STATE_PRESENT else []
            return [scard.SCARD_S_SUCCESS, [(reader, current | scard.SCARD_STATE_CHANGED, atr)]]

    def SCardConnect(self, context: int, reader: str, share: int, protocols: int) -> list[int]:
        with self._changed:
            if self.readers.get(reader) is None:
                return [scard.SCARD_W_REMOVED_CARD, 0, 0]
            handle = 0x2000 + len(self._cards)
            self._cards[handle] = reader
            return [scard.SCARD_S_SUCCESS, handle, scard.SCARD_PROTOCOL_T1]

    def SCardTransmit(self, card: int, protocol: int, apdu: list[int]) -> list[Any]:
        reader = self._cards[card]
        self.transmitted.append(list(apdu))
        if reader in self.refuses:
            return [scard.SCARD_S_SUCCESS, list(self.refuses[reader])]
        uid = self.readers.get(reader)
        if uid is None:
            return [scard.SCARD_W_REMOVED_CARD, []]
        return [scard.SCARD_S_SUCCESS, [*uid, 0x90, 0x00]]

    def SCardDisconnect(self, card: int, disposition: int) -> int:
        self._cards.pop(card, None)
        return int(scard.SCARD_S_SUCCESS)
