"""The lobby's rules, pure: who waits for the board's next game, how a
``join`` names a player (by name, by roster id, by card), the board's copy of
its venue's roster, and whom to suggest (docs/players.md). The lobby
extension (:mod:`firmware_bridge.daemon.extensions.lobby`) runs them,
journals them and publishes what they change.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from engine.errors import LineupError
from engine.lineup import MAX_PLAYERS, check_name
from firmware_bridge.daemon.game_session import Refusal
from mqtt_contract.json_types import PayloadError
from mqtt_contract.lobby_payload import (
    JOIN_CODE_ALPHABET,
    JOIN_CODE_LENGTH,
    LOBBY_SUGGESTIONS,
    JoinedBy,
    LobbyPlayer,
    PlayerRef,
    RosterMessage,
    RosterPlayer,
    Suggestion,
)

__all__ = ["LobbyBook", "name_key", "new_join_code"]


def name_key(name: str) -> str:
    """A name as the roster compares names: case and spaces ignored."""
    return "".join(name.split()).casefold()


def new_join_code() -> str:
    """A fresh join code: :data:`JOIN_CODE_LENGTH` letters a person reads off a screen."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def _same(one: LobbyPlayer | Suggestion, other: LobbyPlayer | Suggestion) -> bool:
    """The same person: the same roster id, or (guests) the same name."""
    if one.player_id is not None or other.player_id is not None:
        return one.player_id == other.player_id
    return name_key(one.name) == name_key(other.name)


@dataclass
class LobbyBook:
    """A board's lobby: its players in the order they joined, the join code,
    the roster copy and this board's recent players."""

    players: list[LobbyPlayer] = field(default_factory=list)
    join_code: str | None = None
    roster: RosterMessage | None = None
    recent: list[Suggestion] = field(default_factory=list)
    """The last players at this board, the latest first (suggested after the regulars)."""

    # ----------------------------------------------------------- players

    def entrant(self, ref: PlayerRef, joined_by: JoinedBy, now: float) -> LobbyPlayer:
        """The lobby player ``ref`` names: a roster player by id, a roster
        player by a name the roster knows, else a guest; a Refusal says why not."""
        if ref.id is not None:
            known = self.roster_player(ref.id)
            if known is None:
                having = "has no roster yet" if self.roster is None else "has no such player"
                raise Refusal(f"no player {ref.id} here: this board's roster {having}")
            return self._roster_entrant(known, joined_by, now)
        assert ref.name is not None
        named = self.roster_named(ref.name)
        if named is not None:
            return self._roster_entrant(named, joined_by, now)
        return LobbyPlayer(name=ref.name, joined_by=joined_by, joined_at=now)

    def card_entrant(self, card: str, now: float) -> LobbyPlayer | None:
        """The roster player whose card ``card`` (a keyed hash) is, as a lobby
        player who joined with it; ``None`` for a card the roster does not know."""
        roster = self.roster
        known = next((p for p in roster.players if card in p.cards), None) if roster else None
        return None if known is None else self._roster_entrant(known, JoinedBy.CARD, now)

    def _roster_entrant(self, known: RosterPlayer, joined_by: JoinedBy, now: float) -> LobbyPlayer:
        try:
            name = check_name(known.name, f"roster player {known.id}'s name")
        except LineupError as error:
            raise Refusal(f"{error}: rename them in the roster to play") from None
        return LobbyPlayer(
            name=name,
            player_id=known.id,
            joined_by=joined_by,
            joined_at=now,
            average=known.average,
        )

    def add(self, player: LobbyPlayer) -> bool:
        """Put ``player`` in the lobby: ``False`` when they are in it already;
        a Refusal when it is full or a different player has the name."""
        for waiting in self.players:
            if _same(waiting, player):
                return False
            if name_key(waiting.name) == name_key(player.name):
                raise Refusal(f"another {waiting.name} is in the lobby: join with another name")
        if len(self.players) >= MAX_PLAYERS:
            raise Refusal(f"the lobby is full: a game has {MAX_PLAYERS} players at most")
        self.players.append(player)
        return True

    def remove(self, ref: PlayerRef) -> LobbyPlayer:
        """Take the player ``ref`` names out of the lobby; a Refusal when not in it."""
        for waiting in self.players:
            if (ref.id is not None and waiting.player_id == ref.id) or (
                ref.name is not None and name_key(waiting.name) == name_key(ref.name)
            ):
                self.players.remove(waiting)
                return waiting
        named = f"player {ref.id}" if ref.id is not None else repr(ref.name)
        raise Refusal(f"{named} is not in the lobby")

    def waiting(self, name: str) -> LobbyPlayer | None:
        """The lobby player of the game's player ``name``, if any."""
        return next((p for p in self.players if name_key(p.name) == name_key(name)), None)

    def played(self, players: list[tuple[str, int | None]]) -> None:
        """A game started with ``players`` (name, roster id; people only): they
        come first among the recent players, and the lobby empties."""
        fresh = [Suggestion(name=name, player_id=pid, regular=False) for name, pid in players]
        kept = [old for old in self.recent if not any(_same(old, new) for new in fresh)]
        self.recent = [*fresh, *kept][:LOBBY_SUGGESTIONS]
        self.players.clear()

    # ----------------------------------------------------------- roster

    def roster_player(self, player_id: int) -> RosterPlayer | None:
        """The roster's player ``player_id``."""
        players = self.roster.players if self.roster is not None else ()
        return next((p for p in players if p.id == player_id), None)

    def roster_named(self, name: str) -> RosterPlayer | None:
        """The roster's player of ``name`` (case and spaces ignored)."""
        players = self.roster.players if self.roster is not None else ()
        return next((p for p in players if name_key(p.name) == name_key(name)), None)

    def link_card(self, player_id: int, card: str) -> None:
        """Add ``card`` to the roster copy's player ``player_id`` (until the
        service's next roster says it too)."""
        roster, known = self.roster, self.roster_player(player_id)
        if roster is None or known is None or card in known.cards:
            return
        linked = replace(known, cards=(*known.cards, card))
        players = tuple(linked if p.id == player_id else p for p in roster.players)
        self.roster = replace(roster, players=players)

    def suggestions(self) -> tuple[Suggestion, ...]:
        """The roster's regulars, then this board's recent players, each once."""
        regulars = [
            Suggestion(name=p.name, player_id=p.id, regular=True)
            for p in (self.roster.players if self.roster is not None else ())
            if p.regular
        ]
        chosen: list[Suggestion] = []
        for suggestion in [*regulars, *self.recent]:
            if not any(_same(suggestion, other) for other in chosen):
                chosen.append(suggestion)
        return tuple(chosen[:LOBBY_SUGGESTIONS])

    # ----------------------------------------------------------- keeping

    def to_json(self) -> dict[str, Any]:
        """What the journal keeps of the lobby (the roster apart)."""
        return {
            "players": [player.to_json() for player in self.players],
            "join_code": self.join_code,
            "recent": [player.to_json() for player in self.recent],
        }

    def restore(self, kept: Any, roster: Any) -> list[str]:
        """Take back what the journal kept (:meth:`to_json`, the roster's
        JSON); what could not be read, in words (the rest is taken)."""
        problems: list[str] = []
        if isinstance(kept, dict):
            try:
                self.players = [LobbyPlayer.from_json(p) for p in kept.get("players", [])]
                self.recent = [Suggestion.from_json(p) for p in kept.get("recent", [])]
            except (PayloadError, TypeError) as error:
                problems.append(f"the lobby's players: {error}")
            code = kept.get("join_code")
            self.join_code = code if isinstance(code, str) else None
        if roster is not None:
            try:
                self.roster = RosterMessage.from_json(roster)
            except PayloadError as error:
                problems.append(f"the roster copy: {error}")
        return problems
