"""PC/SC card readers (the ACR122U and other contactless readers pcscd
serves), read with pyscard.

The reader is the first one whose name contains ``name_contains`` (any,
when it is empty). A worker thread asks pcscd for its status changes
(``SCardGetStatusChange``, the call pyscard's own ``CardMonitor`` polls,
here with a timeout so the source stops promptly), and when a card comes
onto the reader it connects and sends the standard *get data* command
``FF CA 00 00 00``, whose answer is the card's UID (ISO 14443 and FeliCa
cards alike; PC/SC part 3). A card already on the reader when the source
starts is not a tap. Each UID read becomes a
:class:`~drivers.board_events.CardTapped`; a card that cannot be read is
logged (never its UID). No pcscd, no reader, or the reader unplugged is
reported once and tried again with ``board_backoff``'s delays.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

import smartcard.scard as pyscard_api  # type: ignore[import-untyped]

from drivers.board_events import CardTapped, masked_card
from drivers.source import ReconnectingSource, board_backoff
from mqtt_client.backoff import Backoff

__all__ = ["GET_UID", "PcscReader"]

log = logging.getLogger(__name__)

GET_UID = [0xFF, 0xCA, 0x00, 0x00, 0x00]
"""PC/SC's pseudo-APDU *get data*, UID: the reader answers with the card's UID and ``90 00``."""

_SUCCESS_WORDS = [0x90, 0x00]


class PcscReader(ReconnectingSource):
    """Reads the PC/SC reader whose name contains ``name_contains`` until closed.
    ``scard`` is pyscard's ``smartcard.scard`` (a test passes a fake of it)."""

    name = "card-reader"

    def __init__(
        self,
        name_contains: str = "",
        *,
        scard: Any = None,
        backoff: Backoff | None = None,
        poll_ms: int = 500,
    ) -> None:
        super().__init__()
        self.name_contains = name_contains
        self.source_id = "card reader pcsc" + (f":{name_contains}" if name_contains else "")
        self.backoff = backoff or board_backoff()
        self.poll_ms = poll_ms
        self._scard: Any = scard if scard is not None else pyscard_api

    async def _session(self) -> str:
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def tapped(uid: str) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed under a late worker
                loop.call_soon_threadsafe(self._tapped, uid)

        def connected() -> None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._connected)

        worker = asyncio.ensure_future(asyncio.to_thread(self._watch, stop, connected, tapped))
        try:
            return await asyncio.shield(worker)
        except asyncio.CancelledError:
            stop.set()  # the worker sees it within one poll
            await asyncio.wait({worker}, timeout=self.poll_ms / 1000 + 2.0)
            raise

    def _tapped(self, uid: str) -> None:
        self.backoff.reset()
        log.debug("%s: card %s", self.source_id, masked_card(uid))
        self._emit(CardTapped(uid))

    def _problem(self, hresult: int) -> str:
        """pcscd's words for ``hresult``, with what to do about the usual ones."""
        api = self._scard
        message = str(api.SCardGetErrorMessage(hresult)).strip().rstrip(".")
        if hresult == api.SCARD_E_NO_SERVICE:
            return f"PC/SC: {message}: is pcscd running? (sudo systemctl enable --now pcscd)"
        if hresult == api.SCARD_E_NO_READERS_AVAILABLE:
            return "PC/SC: no reader is connected"
        return f"PC/SC: {message}"

    def _watch(
        self, stop: threading.Event, connected: Callable[[], None], tapped: Callable[[str], None]
    ) -> str:
        """Blocking: open pcscd, find the reader and watch it until ``stop`` or
        a failure; returns why it ended."""
        api = self._scard
        hresult, context = api.SCardEstablishContext(api.SCARD_SCOPE_USER)
        if hresult != api.SCARD_S_SUCCESS:
            return self._problem(hresult)
        try:
            hresult, readers = api.SCardListReaders(context, [])
            if hresult != api.SCARD_S_SUCCESS:
                return self._problem(hresult)
            wanted = self.name_contains.lower()
            matching = [reader for reader in readers if wanted in reader.lower()]
            if not matching:
                if not readers:
                    return "PC/SC: no reader is connected"
                return (
                    f"PC/SC: no reader's name contains {self.name_contains!r} "
                    f"(the readers: {', '.join(readers)})"
                )
            reader = matching[0]
            log.info("%s: reading %s", self.source_id, reader)
            return self._watch_reader(stop, context, reader, connected, tapped)
        finally:
            api.SCardReleaseContext(context)

    def _watch_reader(
        self,
        stop: threading.Event,
        context: int,
        reader: str,
        connected: Callable[[], None],
        tapped: Callable[[str], None],
    ) -> str:
        """Watch ``reader``: its first status is the baseline (a card already
        on it is no tap; then it is connected), and each card put on it after
        that a tap. The high word of a status counts the reader's card events
        (pcsc-lite), so a card swapped between two polls is a tap too."""
        api = self._scard
        known = api.SCARD_STATE_UNAWARE
        first = True
        while not stop.is_set():
            hresult, states = api.SCardGetStatusChange(context, self.poll_ms, [(reader, known)])
            if hresult == api.SCARD_E_TIMEOUT:
                continue
            if hresult != api.SCARD_S_SUCCESS:
                return f"{reader}: {self._problem(hresult)}"
            _, event_state, _atr = states[0]
            if event_state & (api.SCARD_STATE_UNAVAILABLE | api.SCARD_STATE_UNKNOWN):
                return f"{reader} went away"
            present = bool(event_state & api.SCARD_STATE_PRESENT) and not (
                event_state & api.SCARD_STATE_MUTE
            )
            was_present = bool(known & api.SCARD_STATE_PRESENT)
            swapped = (event_state >> 16) != (known >> 16)
            known = event_state & ~api.SCARD_STATE_CHANGED
            if first:
                first = False
                connected()
            elif present and (swapped or not was_present):
                uid = self._read_uid(context, reader)
                if uid is not None:
                    tapped(uid)
        return "closed"

    def _read_uid(self, context: int, reader: str) -> str | None:
        """The UID of the card on ``reader`` (hex), or ``None`` after logging why not."""
        api = self._scard
        hresult, card, protocol = api.SCardConnect(
            context, reader, api.SCARD_SHARE_SHARED, api.SCARD_PROTOCOL_T0 | api.SCARD_PROTOCOL_T1
        )
        if hresult != api.SCARD_S_SUCCESS:
            log.warning("%s: a card could not be read: %s", reader, self._problem(hresult))
            return None
        try:
            hresult, response = api.SCardTransmit(card, protocol, GET_UID)
            if hresult != api.SCARD_S_SUCCESS:
                log.warning("%s: a card could not be read: %s", reader, self._problem(hresult))
                return None
            words = list(response[-2:])
            if words != _SUCCESS_WORDS or len(response) < 3:
                status = "".join(f"{byte:02X}" for byte in words) or "none"
                log.warning(
                    "%s: the reader answered %s to get-UID: a contactless card without a "
                    "UID, or a reader that does not take FF CA 00 00 00",
                    reader,
                    status,
                )
                return None
            return "".join(f"{byte:02X}" for byte in response[:-2])
        finally:
            api.SCardDisconnect(card, api.SCARD_LEAVE_CARD)
