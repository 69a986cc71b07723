"""The match a board hosts, as data: its guests and where each player throws.

:class:`HostedMatch` and its :class:`GuestBoard` entries are what the host's
parts (:mod:`~firmware_bridge.daemon.remote_host`) share; the two functions
turn a ``new_game``'s boards into the journal's ``remote`` record and that
record back into a match. Pure: no I/O, no clock.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mqtt_contract import BoardAddress, MatchRecord

__all__ = ["GuestBoard", "HostedMatch", "match_from_record", "new_match_record"]

log = logging.getLogger(__name__)


@dataclass
class GuestBoard:
    """One guest board of the match, as the host knows it."""

    address: BoardAddress
    name: str
    """Its display name (from its ``joined``; its id until then)."""
    online: bool = False
    joined: bool = False
    refused: bool = False
    """It refused the invitation: not invited again until it comes online again."""
    taken: int = 0
    """The last of its actions taken (applied or ignored)."""
    away_since: float | None = None
    """Since when it has been offline or not joined (``None`` while present)."""

    @property
    def present(self) -> bool:
        return self.online and self.joined


@dataclass
class HostedMatch:
    """The match this board hosts: its id, its game's journal row, where each
    player throws, and the guests by board id (their level on the channel)."""

    id: str
    game_row: int
    boards: Mapping[str, BoardAddress]
    guests: dict[str, GuestBoard]

    def board_of(self, player: str, own: BoardAddress) -> BoardAddress:
        """Where ``player`` throws (``own``, the host, unless the match says otherwise)."""
        return self.boards.get(player, own)

    def addresses(self) -> list[BoardAddress]:
        """The guests' boards, in the players' order."""
        return [guest.address for guest in self.guests.values()]

    def absent(self) -> list[GuestBoard]:
        """The guests not here (offline, or not joined)."""
        return [guest for guest in self.guests.values() if not guest.present]

    def board_name(self, board: BoardAddress) -> str:
        """A guest board's display name (``board`` itself for one not a guest)."""
        for guest in self.guests.values():
            if guest.address == board:
                return guest.name
        return str(board)


def new_match_record(boards: dict[str, BoardAddress], own: BoardAddress) -> dict[str, Any] | None:
    """The journal's ``remote`` record (a :class:`~mqtt_contract.MatchRecord`'s
    JSON) of a new match with ``boards`` (player -> board) hosted at ``own``;
    ``None`` when every board is ``own`` (an ordinary game). A ValueError when
    two boards share an id: the channel could not tell them apart."""
    by_id: dict[str, BoardAddress] = {own.board: own}
    for address in sorted(set(boards.values()) - {own}):
        other = by_id.setdefault(address.board, address)
        if other != address:
            raise ValueError(
                f"boards {other} and {address} have the same id: the match's channel "
                f"({own.base}/{address.board}/remote/{own.board}) cannot tell them apart"
            )
    if len(by_id) == 1:
        return None
    return MatchRecord(uuid.uuid4().hex, own, boards).to_json()


def match_from_record(
    game_row: int,
    remote: dict[str, Any],
    own: BoardAddress,
    online: Mapping[str, bool],
    taken: Mapping[str, int],
    now: float,
) -> HostedMatch | None:
    """The match of a journal ``remote`` record, guests in the players' order;
    ``online`` is the last availability seen on each availability topic,
    ``taken`` each guest's last action taken. ``None`` (logged) for a damaged record."""
    try:
        record = MatchRecord.from_json(remote, own.base)
    except ValueError as error:
        log.error("journal game %d: its remote match is damaged (%s)", game_row, error)
        return None
    guests: dict[str, GuestBoard] = {}
    for address in record.boards.values():
        if address != own and address.board not in guests:
            guests[address.board] = GuestBoard(
                address,
                address.board,
                online=online.get(address.topic("availability"), False),
                taken=taken.get(str(address), 0),
                away_since=now,
            )
    return HostedMatch(record.match, game_row, record.boards, guests)
