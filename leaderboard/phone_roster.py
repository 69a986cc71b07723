"""The little of the venue's roster the phone's join page needs: the venue's
players (id and name) to pick from, and a new player for a name typed in.

Built on :mod:`leaderboard.roster` (a stable id per venue, names unique
ignoring case and spaces, a new player registered so they stay without
games); linking a card goes through the ``CardLinker`` the app is given
(:mod:`leaderboard.web.api_join`), which the service points at
``roster.add_card``."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from leaderboard import roster
from leaderboard.database import Database
from leaderboard.models import NAME_LENGTH, Player, Venue
from leaderboard.players import PlayerError
from leaderboard.store import FORGOTTEN_NAME, player_key
from leaderboard.venues import VenueMap

__all__ = ["ROSTER_NAME_LENGTH", "RosterChoice", "add_player", "venue_players"]

ROSTER_NAME_LENGTH = 64
"""The longest name a board's lobby takes (``lobby_payload``'s names)."""


@dataclass(frozen=True, slots=True)
class RosterChoice:
    """One player of the venue as the join page offers them."""

    id: int
    name: str


def venue_players(database: Database, venue: str) -> list[RosterChoice]:
    """The venue's players by name (case ignored), forgotten ones left out. Blocking."""
    with database.session() as session:
        rows = session.execute(
            select(Player.id, Player.name)
            .join(Venue, Venue.id == Player.venue_id)
            .where(Venue.name == venue, Player.name != FORGOTTEN_NAME)
        ).all()
    choices = [RosterChoice(int(row.id), row.name) for row in rows]
    return sorted(choices, key=lambda choice: (choice.name.casefold(), choice.id))


def add_player(
    database: Database, name: str, venue: str, venues: VenueMap | None = None
) -> tuple[RosterChoice, bool]:
    """The venue's player called ``name`` (case and spaces ignored), made when
    new: ``(player, made)``. A ValueError says what is wrong with the name. Blocking."""
    clean = name.strip()
    if not clean:
        raise ValueError("the name is blank")
    if len(clean) > min(ROSTER_NAME_LENGTH, NAME_LENGTH):
        raise ValueError(f"a name has at most {ROSTER_NAME_LENGTH} characters")
    if player_key(clean) == player_key(FORGOTTEN_NAME):
        raise ValueError(f"{clean!r} is not a name a player may take")
    key = player_key(clean)
    for entry in roster.entries(database, venue):
        if player_key(entry.name) == key:
            return RosterChoice(entry.id, entry.name), False
    try:
        made = roster.add(database, clean, venue, venues)
    except PlayerError:  # made by another request meanwhile: that player
        return next(
            (RosterChoice(e.id, e.name), False)
            for e in roster.entries(database, venue)
            if player_key(e.name) == key
        )
    return RosterChoice(made.id, made.name), True
