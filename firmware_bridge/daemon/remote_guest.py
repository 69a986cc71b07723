"""The guest's side of a remote match (docs/remote.md): the game runs at the host.

:class:`RemoteGuest` belongs to one :class:`~firmware_bridge.daemon.board_daemon.Daemon`
and is asked by it at fixed points (the hooks below). It accepts invitations
from the hosts ``[remote] allow`` names (and refuses others, saying why),
journals and forwards this board's hits, buttons and ``dart``/``miss``/
``next``/``undo`` commands with a sequence number (sent again until the host
has taken them), keeps takeout local, and mirrors the host's state and events
onto this board's own topics. No I/O in the constructor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import Bed

if TYPE_CHECKING:
    from firmware_bridge.daemon.board_daemon import Daemon

__all__ = ["RemoteGuest"]


class RemoteGuest:
    """The remote match this board is a guest in, if any."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    @property
    def active(self) -> bool:
        """This board is in a match another board hosts: its hits, buttons and
        game commands go there, and its state is the host's."""
        return False

    # ----------------------------------------------------------- hooks

    def resume(self) -> None:
        """At start-up: bring back the match this board was in from the journal."""

    def hit(self, bed: Bed, now: float) -> None:
        """A hit this board detected while :attr:`active`: forward it, or ignore
        it locally (takeout) and say so."""

    def action(self, name: str, segment: str | None, now: float) -> None:
        """A button or command while :attr:`active` (``dart``, ``miss``,
        ``next``, ``undo``): forward it. A :class:`Refusal` says why not."""

    def leave(self, now: float) -> None:
        """``end_game`` on this board while :attr:`active`: leave the match."""

    def state(self, state: dict[str, Any]) -> dict[str, Any]:
        """This board's ``state`` payload while :attr:`active`: the host's,
        with this board's own ``board`` object and ``remote.role`` guest."""
        return state

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe to invitations (and the host's
        topics during a match), say joined again and resend what is untaken."""

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic the guest subscribed to; True when it was the guest's."""
        return False

    async def run(self) -> None:
        """Timers (local takeout, resending) until cancelled."""
