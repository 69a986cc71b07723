"""The host's side of a remote match (docs/remote.md): the game runs here.

:class:`RemoteHost` belongs to one :class:`~firmware_bridge.daemon.board_daemon.Daemon`
and is asked by it at fixed points (the hooks below). It invites the guest
boards (``join`` on ``{base}/{host}/remote/{guest}``), follows their
availability, takes their forwarded actions exactly once (``remote_taken``,
journaled with what the action did), enforces turns (``not-your-turn``),
pauses the match (phase ``waiting-remote``) while a guest is away, and adds
the ``remote`` block and each player's ``board`` to the state. No I/O in the
constructor; everything runs on the daemon's loop under its lock where it
changes the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware_bridge.daemon.board_daemon import Daemon
    from firmware_bridge.daemon.game_session import SessionSetup
    from firmware_bridge.daemon.journal import JournalGame

__all__ = ["RemoteHost"]


class RemoteHost:
    """The remote match this board hosts, if any."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    @property
    def active(self) -> bool:
        """A remote match is on (its game is the daemon's session)."""
        return False

    # ----------------------------------------------------------- hooks

    def start(self, setup: SessionSetup, boards: dict[str, str], now: float) -> dict[str, Any]:
        """``new_game`` named boards (player name -> the board as given): check
        them and return the journal's ``remote`` record (``match``, ``host``,
        ``boards``); a ValueError refuses the game. Called before the game
        is journaled; :meth:`started` follows once it is."""
        raise ValueError("remote matches are not built yet")

    def started(self, game_row: int, remote: dict[str, Any] | None, now: float) -> None:
        """The daemon started (or resumed, from the journal) a game; ``remote``
        is its journal record, or ``None`` for a game on this board alone (which
        ends any match this board hosted)."""

    def resumed(self, journaled: JournalGame) -> None:
        """The daemon resumed ``journaled`` from the journal: bring back the
        match's boards and the actions taken so far."""

    def ended(self, reason: str, now: float) -> None:
        """The match's game is over for good (end_game, a new game over it)."""

    def refusal(self, board: str | None, what: str) -> str | None:
        """Why a ``what`` (``a dart``, ``NEXT``, ...) from ``board`` (``None``:
        this board, its hits, buttons and own commands) must not be taken now:
        ``not-your-turn``-style text, the match is waiting for a board, ...;
        ``None`` to take it."""
        return None

    def state(self, state: dict[str, Any]) -> dict[str, Any]:
        """The daemon's ``state`` payload with the match in it (``remote``, each
        player's ``board``, phase ``waiting-remote`` while waiting)."""
        return state

    def result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The finished game's ``result`` payload with each player's ``board``
        and the ``match`` id."""
        return result

    async def on_connect(self) -> None:
        """After every (re)connect: subscribe to what the match needs, invite again."""

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        """A message on a topic the host subscribed to; True when it was the host's."""
        return False

    async def run(self) -> None:
        """Timers (``[remote] offline_timeout_s``) until cancelled."""
