"""The match a board is a guest in, as data: what it forwarded, what the host said.

:class:`JoinedMatch` is what the guest's parts
(:mod:`~firmware_bridge.daemon.remote_guest`) share; :func:`joined_match`
builds it from the journal's ``guest_matches`` row, :func:`final_result`
says what the guest keeps of the game's end. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import EngineError, PickingGame, new_game
from firmware_bridge.daemon.journal import GuestMatch
from firmware_bridge.daemon.remote_guest.local_takeout import LocalTakeout
from mqtt_contract import BoardAddress, MatchPlayer

__all__ = ["HOST_TOPICS", "JoinedMatch", "final_result", "joined_match"]

HOST_TOPICS = ("state", "event", "availability")
"""The host's own topics a guest reads during a match."""


@dataclass
class JoinedMatch:
    """The match this board is a guest in, as far as this board knows it."""

    id: str
    host: BoardAddress
    host_name: str
    game: str
    options: dict[str, Any]
    players: tuple[MatchPlayer, ...]
    """Every player of the match and the board they throw at, in order."""
    forwarded: int
    """The highest seq journaled (and sent, or to be sent)."""
    taken: int
    """The host's ``applied`` for this board: the highest seq it has taken."""
    takeout: LocalTakeout = field(default_factory=LocalTakeout)
    """This board's own takeout, reckoned here."""
    host_state: dict[str, Any] | None = None
    """The host's last state of this match."""
    host_online: bool | None = None
    seen_state: bool = False
    """A host state of this match has been seen (so one of another match
    means the host moved on)."""
    sent_at: dict[int, float] = field(default_factory=dict)
    """seq -> when it was last sent."""
    result: dict[str, Any] | None = None
    """The won game's :func:`final_result` as journaled (``guest_finish``);
    ``None`` while the host's state says the game is not over."""

    def topics(self) -> list[str]:
        """The host's topics this board reads (:data:`HOST_TOPICS`)."""
        return [self.host.topic(name) for name in HOST_TOPICS]

    def throwing_at(self, board: BoardAddress) -> bool:
        """The host's last state has the player up throwing at ``board``."""
        state = self.host_state
        return state is not None and state["remote"].get("throwing_at") == str(board)


def joined_match(
    journaled: GuestMatch, host: BoardAddress, host_name: str | None = None
) -> JoinedMatch:
    """The match of the journal's row; its takeout is reckoned in visits
    unless the game is played by picking (or cannot be built here). A
    ValueError says what is wrong with a journaled player."""
    players = tuple(MatchPlayer.from_json(p, host.base) for p in journaled.players)
    try:
        picking = isinstance(
            new_game(journaled.game, [p.name for p in players], journaled.options),
            PickingGame,
        )
    except (EngineError, ValueError, TypeError, KeyError):
        picking = True  # a game this Oche cannot build: no local takeout reckoning
    return JoinedMatch(
        id=journaled.match,
        host=host,
        host_name=host_name or host.board,
        game=journaled.game,
        options=journaled.options,
        players=players,
        forwarded=journaled.forwarded,
        taken=journaled.taken,
        takeout=LocalTakeout(visits=not picking),
        result=journaled.result if journaled.status == "finished" else None,
    )


def final_result(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a guest keeps of the host's final state (``guest_matches.result``):
    the winner's name (team, player, or ``draw``), the result and each player's
    board and score; ``None`` unless the game in ``state`` is finished."""
    if state is None or state.get("finished") is not True:
        return None
    players = [p for p in state.get("players") or [] if isinstance(p, dict)]
    winner: str | None = "draw"
    teams = state.get("teams")
    team, player = state.get("winner_team"), state.get("winner")
    if isinstance(team, int) and isinstance(teams, list) and 0 <= team < len(teams):
        winner = str(teams[team].get("name"))
    elif isinstance(player, int) and 0 <= player < len(players):
        winner = str(players[player].get("name"))
    return {
        "winner": winner,
        "result": state.get("result"),
        "players": [
            {"name": p.get("name"), "board": p.get("board"), "score": p.get("score")}
            for p in players
        ],
    }
