"""What a hosted match adds to the board's ``state`` and ``result`` payloads.

:class:`StateBlock` writes the ``remote`` block (the match, the host, where
the player up throws, every board with its presence and its last action
taken, who the match waits for), each player's ``board``, phase
``waiting-remote`` while the match waits, and the result's ``match`` id
(docs/mqtt.md, docs/remote.md).
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.remote_host.hosted_match import HostedMatch
from firmware_bridge.daemon.remote_host.turn_rules import TurnRules
from mqtt_contract import BoardEntry, Phase

__all__ = ["StateBlock"]


class StateBlock:
    """The match in the host's payloads. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext, turns: TurnRules) -> None:
        self.context = context
        self.turns = turns

    def state(self, match: HostedMatch, state: dict[str, Any]) -> dict[str, Any]:
        """The core's ``state`` payload with ``match`` in it (``remote``, each
        player's ``board``, phase ``waiting-remote`` while waiting)."""
        own = self.turns.own
        for player in state.get("players") or []:
            player["board"] = str(match.board_of(player["name"], own))
        waiting = self.turns.waiting(match)
        session = self.context.session
        assert session is not None
        finished = session.is_finished
        boards = [
            BoardEntry(own, self.context.config.board.name, True, True, 0),
            *(
                BoardEntry(guest.address, guest.name, guest.online, guest.joined, guest.taken)
                for guest in match.guests.values()
            ),
        ]
        state["remote"] = {
            "match": match.id,
            "role": "host",
            "host": str(own),
            "throwing_at": None if finished else str(self.turns.thrower_board(match)),
            "boards": [entry.to_json() for entry in boards],
            "waiting": [str(guest.address) for guest in waiting],
        }
        if waiting:
            state["phase"] = Phase.WAITING_REMOTE.value
        return state

    def result(self, match: HostedMatch, result: dict[str, Any]) -> dict[str, Any]:
        """The finished game's ``result`` payload with each player's ``board``
        and the ``match`` id."""
        own = self.turns.own
        for player in result.get("players") or []:
            player["board"] = str(match.board_of(player["name"], own))
        result["match"] = match.id
        return result
