"""Who is throwing next, in the display's words: the state's ``lobby``, the
lobby's events and the leaderboard's after-game lines (docs/players.md).

Pure (no pygame, no I/O). The feed parses a state's ``lobby`` once
(:func:`parse_lobby`; a state without one, from a daemon older than the
lobby, reads as ``None`` and the display behaves as before it), and the
``{base}/{board}/result/lines`` message (:func:`parse_lines`). The scenes
turn the lobby's events into short announcements (:func:`announcement_for`:
"Ann joined with their card", a card refused) and the lines into a line of
text per player (:func:`line_text`), matched to the finished game's seats
(:func:`lines_for`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mqtt_contract import PayloadError, StateView
from mqtt_contract.lobby_payload import JoinedBy, LobbyPlayer, LobbyState, PlayerLine, ResultLines

__all__ = [
    "CARD_IN_GAME",
    "CARD_UNKNOWN",
    "MAX_LINES_BYTES",
    "Announcement",
    "AnnouncementKind",
    "announcement_for",
    "average_text",
    "guest_name",
    "in_lobby",
    "joined_text",
    "line_text",
    "lines_for",
    "lobby_names",
    "name_key",
    "parse_lines",
    "parse_lobby",
]

MAX_LINES_BYTES = 64 * 1024
"""The largest ``result/lines`` payload read (eight players' lines take a few hundred
bytes): anything on the broker may publish there, so no client fills the display's memory."""

CARD_UNKNOWN = "Card not registered: ask at the bar, or scan the code"
"""What the display says for a card the roster does not know (``card_refused``, ``unknown``)."""
CARD_IN_GAME = "Cards join between games"
"""What the display says for a card tapped during a game (``card_refused``, ``in-game``)."""

_REFUSALS = {"unknown": CARD_UNKNOWN, "in-game": CARD_IN_GAME}
"""A ``card_refused`` event's reason, in the display's words (the design's)."""

_HOW = {
    JoinedBy.CARD: "joined with their card",
    JoinedBy.PHONE: "joined by phone",
    JoinedBy.ROSTER: "joined",
    JoinedBy.NAME: "joined",
}
"""How a player came into the lobby, after their name."""


class AnnouncementKind(StrEnum):
    """What an announcement is about: its colour on the screen."""

    JOINED = "joined"
    LEFT = "left"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Announcement:
    """A short banner about the lobby: its headline, a detail line, and its kind."""

    kind: AnnouncementKind
    text: str
    detail: str = ""


def name_key(name: str) -> str:
    """A name as the roster compares names: case and spaces ignored."""
    return "".join(name.split()).casefold()


def parse_lobby(document: Mapping[str, Any]) -> LobbyState | None:
    """The state's ``lobby``, or ``None`` when it has none (a daemon older
    than the lobby); raises :class:`mqtt_contract.PayloadError` naming what is
    wrong with a malformed one."""
    lobby = document.get("lobby")
    if lobby is None:
        return None
    return LobbyState.decode_object(lobby, "$.lobby")


def parse_lines(data: bytes) -> ResultLines | None:
    """A ``result/lines`` payload; ``None`` for an empty message (the lines
    taken away); raises :class:`mqtt_contract.PayloadError` for one that is
    not the leaderboard's lines (not JSON, a field of the wrong type)."""
    if not data:
        return None
    if len(data) > MAX_LINES_BYTES:
        raise PayloadError(f"$: {len(data)} bytes, more than {MAX_LINES_BYTES}")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise PayloadError(f"$: not JSON ({error})") from error
    return ResultLines.from_json(document)


def joined_text(player: LobbyPlayer) -> str:
    """``Ann joined with their card``, ``Bob joined by phone``, ``Cy joined``."""
    return f"{player.name} {_HOW.get(player.joined_by, 'joined')}"


def average_text(average: float | None) -> str:
    """A player's month average as a lobby shows it (``avg 48.2``), or ``""``."""
    return "" if average is None else f"avg {average:.1f}"


def announcement_for(payload: Mapping[str, Any]) -> Announcement | None:
    """The announcement for a lobby event (``joined``, ``left``,
    ``card_refused``), or ``None`` for any other event (or one the display
    cannot read: an announcement is a courtesy, the lobby itself is in the state)."""
    kind = payload.get("type")
    if kind == "card_refused":
        reason = str(payload.get("reason") or "")
        message = payload.get("message")
        text = _REFUSALS.get(reason) or (message if isinstance(message, str) else CARD_UNKNOWN)
        return Announcement(AnnouncementKind.REFUSED, text)
    if kind not in ("joined", "left"):
        return None
    try:
        player = LobbyPlayer.decode_object(payload.get("player"), "$.player")
    except PayloadError:
        return None
    if kind == "left":
        return Announcement(AnnouncementKind.LEFT, f"{player.name} left the next game")
    return Announcement(AnnouncementKind.JOINED, joined_text(player), average_text(player.average))


def lines_for(state: StateView | None, lines: ResultLines | None) -> dict[int, PlayerLine]:
    """The leaderboard's line of each seat of ``state``'s finished game: the
    lines of the same game whose seat holds a player of the same name (lines
    of another game, or late ones of the game before, show nothing)."""
    if state is None or lines is None or not state.finished or lines.game != state.game:
        return {}
    players = state.players
    return {
        line.seat: line
        for line in lines.players
        if line.seat < len(players)
        and name_key(players[line.seat].name or "") == name_key(line.name)
    }


def line_text(line: PlayerLine) -> str:
    """One player's line: ``this game 61.3 · month 48.9 · rating +1.2 · New best: ...``."""
    parts: list[str] = []
    if line.average is not None:
        parts.append(f"this game {line.average:.1f}")
    if line.month_average is not None:
        parts.append(f"month {line.month_average:.1f}")
    if line.rating_change is not None:
        parts.append(f"rating {line.rating_change:+.1f}")
    if line.personal_best:
        parts.append(f"personal best: {line.personal_best}")
    return "  ·  ".join(parts)


def lobby_names(lobby: LobbyState | None, limit: int) -> tuple[str, ...]:
    """The names of the lobby's players, in the order they joined, at most ``limit``."""
    return tuple(player.name for player in lobby.players[:limit]) if lobby is not None else ()


def in_lobby(lobby: LobbyState, name: str, player_id: int | None) -> LobbyPlayer | None:
    """The lobby's player with ``player_id`` (when given) or else ``name``, if any."""
    for player in lobby.players:
        if player_id is not None and player.player_id == player_id:
            return player
        if name_key(player.name) == name_key(name) and (
            player_id is None or player.player_id is None
        ):
            return player
    return None


def guest_name(names: Sequence[str]) -> str:
    """The next guest's name: ``Guest 1``, ``Guest 2``, ... the first not taken."""
    taken = {name_key(name) for name in names}
    number = 1
    while name_key(f"Guest {number}") in taken:
        number += 1
    return f"Guest {number}"
