"""The pairing extension: who may control the board from the venue's web page (docs/phone.md).

It holds the board's pairing code and its paired devices
(:mod:`firmware_bridge.daemon.pairing_book`), publishes them retained on
``{base}/{board}/pairing`` (read by the board's displays and the venue's
service alone: the code is a credential, never in ``state``), takes ``pair``
(``CommandReceived``: the service relays the code a browser typed) and the
operator's ``unpair`` (``UnpairAsked``, from ``operator/cmd``). The devices
are kept in the journal's settings store (``pairing.devices``), so a restart
keeps them; the code is drawn afresh at each start, after each pairing, after
:data:`~firmware_bridge.daemon.pairing_book.MAX_WRONG_CODES` wrong codes in a
row, and when the operator unpairs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from firmware_bridge.daemon.pairing_book import PairingBook
from mqtt_contract import Pair
from mqtt_contract.pairing_payload import PairingState

__all__ = ["Pairing", "board_page_url"]

log = logging.getLogger(__name__)

DEVICES_KEY = "devices"
"""The journal's ``pairing.devices``: the paired devices, as JSON."""


def board_page_url(web_url: str, board: str, code: str) -> str | None:
    """The board page with the code in it (what the QR code opens), or
    ``None`` without a venue web page (``[lobby] web_url``)."""
    if not web_url:
        return None
    return f"{web_url.rstrip('/')}/boards/{board}#pair={code}"


class Pairing(Extension):
    """The board's pairing code and paired devices. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self.book = PairingBook()
        self._watchers: list[Callable[[PairingState], None]] = []
        # Before the remote guest: a board in a remote match still pairs its own devices.
        context.subscribe(core_events.CommandReceived, self._command, order=-1)
        context.subscribe(core_events.UnpairAsked, self._unpair)

    def watch(self, watcher: Callable[[PairingState], None]) -> None:
        """Call ``watcher`` (on the daemon's loop) with each new pairing state
        (``oche play``'s terminal prints the code)."""
        self._watchers.append(watcher)

    @property
    def current(self) -> PairingState:
        """The pairing message as it is now."""
        context = self._context
        url = board_page_url(context.config.lobby.web_url, context.board_id, self.book.code)
        return self.book.state(url, context.clock())

    # ------------------------------------------------------------ lifecycle

    def opened(self) -> None:
        """Take back the paired devices from the journal."""
        context = self._context
        kept = context.journal.settings.pairing_value(context.board_id, DEVICES_KEY)
        for problem in self.book.restore(kept):
            log.error("the journal's pairing: %s; not taken back", problem)
        if self.book.devices:
            log.info("%d paired device(s) taken back from the journal", len(self.book.devices))

    async def on_connect(self) -> None:
        link = self._context.link
        if link is not None:
            await link.publish("pairing", self.current.to_json())

    # ------------------------------------------------------------ commands

    def _command(self, received: core_events.CommandReceived) -> bool | None:
        command = received.command
        if not isinstance(command, Pair):
            return None
        book, before = self.book, list(self.book.devices)
        try:
            device = book.pair(command.code, command.device.id, command.device.name, received.at)
        except Refusal:
            if book.wrong_codes:
                log.warning("a pairing was refused: wrong code (%d in a row)", book.wrong_codes)
            else:
                log.warning("a pairing was refused: wrong code, too many in a row: a new code")
                self._changed()
            raise
        try:
            self._keep()
        except JournalError:
            book.devices = before  # not journaled: not paired (the code is spent all the same)
            self._changed()
            raise
        log.info("paired device %s (%r)", device.id, device.name)
        self._changed()
        return True

    def _unpair(self, asked: core_events.UnpairAsked) -> bool:
        """The operator's ``unpair``: the device (or every device) forgotten, a new code."""
        book, before = self.book, list(self.book.devices)
        gone = book.unpair(asked.device)
        try:
            self._keep()
        except JournalError:
            book.devices = before
            raise
        book.rotate()
        for device in gone:
            log.info("unpaired device %s (%r)", device.id, device.name)
        if not gone:
            log.info("unpair: no device was paired")
        self._changed()
        return True

    # ------------------------------------------------------------ output

    def _keep(self) -> None:
        """Journal the paired devices (a JournalError goes on)."""
        context = self._context
        context.journal.settings.keep_pairing_value(
            context.board_id, DEVICES_KEY, self.book.devices_json(), context.clock()
        )

    def _changed(self) -> None:
        """Publish the pairing message, retained, and tell the watchers."""
        state = self.current
        self._context.publish("pairing", state.to_json())
        for watcher in self._watchers:
            try:
                watcher(state)
            except Exception:
                log.exception("a pairing watcher failed")
