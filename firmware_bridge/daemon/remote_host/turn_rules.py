"""The turn rules of a hosted match: whose dart it is, and who may take one back.

:class:`TurnRules` answers, for the game the core runs, which guests the
match waits for (phase ``waiting-remote``), at which board the player up
throws, and why a board's action must not be taken now (a
:class:`~mqtt_contract.RemoteRefusal`: ``waiting-remote``, ``not-your-turn``).
It reads the game; it changes nothing.
"""

from __future__ import annotations

from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.game_session import GameSession
from firmware_bridge.daemon.remote_host.hosted_match import GuestBoard, HostedMatch
from mqtt_contract import BoardAddress, RefusalReason, RemoteAction, RemoteRefusal

__all__ = ["TurnRules"]


class TurnRules:
    """The turns of the match the core's game is. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context

    @property
    def own(self) -> BoardAddress:
        """This board, the host."""
        return BoardAddress(self.context.config.mqtt.base, self.context.board_id)

    def _session(self) -> GameSession:
        session = self.context.session
        assert session is not None
        return session

    def waiting(self, match: HostedMatch) -> list[GuestBoard]:
        """The guests the match waits for (none once its game is over)."""
        session = self.context.session
        if session is None or session.is_finished:
            return []
        return match.absent()

    def refusal(
        self, match: HostedMatch, board: BoardAddress, action: RemoteAction
    ) -> RemoteRefusal | None:
        """Why ``board``'s ``action`` must not be taken now. One that takes back
        the last dart (:attr:`~mqtt_contract.RemoteAction.takes_back`) only the
        board it was thrown at may take, whoever is up; the NEXT that starts
        a match's next leg, either board."""
        waiting = self.waiting(match)
        if waiting:
            names = ", ".join(str(guest.address) for guest in waiting)
            return RemoteRefusal(RefusalReason.WAITING_REMOTE, f"the match waits for {names}")
        session = self._session()
        if action.takes_back:
            owner = self.last_dart_board(match)
            if owner is None or owner == board:
                return None
            return RemoteRefusal(
                RefusalReason.NOT_YOUR_TURN,
                f"the last dart was thrown at {self.board_name(match, owner)}, "
                "which alone can take it back",
            )
        if session.is_finished:
            return None
        if session.match.leg_over and action is RemoteAction.NEXT:
            return None  # a leg won: either board's NEXT starts the next
        owner = self.thrower_board(match)
        if owner == board:
            return None
        player = session.game.lineup.players[session.thrower()]
        return RemoteRefusal(
            RefusalReason.NOT_YOUR_TURN,
            f"{player} is throwing at {self.board_name(match, owner)}",
        )

    def thrower_board(self, match: HostedMatch) -> BoardAddress:
        """Where the player up throws."""
        session = self._session()
        player = session.game.lineup.players[session.thrower()]
        return match.board_of(player, self.own)

    def last_dart_board(self, match: HostedMatch) -> BoardAddress | None:
        """Where the dart an undo would take back was thrown; ``None`` without
        one. The game knows its thrower: nothing is undone to find it."""
        session = self._session()
        thrower = session.game.undo_thrower()
        if thrower is None:
            return None
        return match.board_of(session.game.lineup.players[thrower], self.own)

    def board_name(self, match: HostedMatch, board: BoardAddress) -> str:
        """``board``'s display name: this board's own, or a guest's."""
        if board == self.own:
            return self.context.config.board.name
        return match.board_name(board)
