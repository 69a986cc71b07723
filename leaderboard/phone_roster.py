"""The little of the venue's roster the phone's join page needs: the venue's
players (id and name) to pick from, and a new player for a name typed in.

A stand-in until the roster (issue #23's ``leaderboard.roster``: ``add``,
``entries``, ``add_card``) is merged: it reads and writes the same
``players`` table (a stable id per venue, names unique ignoring case and
spaces), so a player made here is the one their games are counted for. The
cards table is the roster's: linking a card goes through the
``CardLinker`` the app is given (:mod:`leaderboard.web.api_join`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import select

from leaderboard.database import Database
from leaderboard.models import NAME_LENGTH, Player, Venue
from leaderboard.store import FORGOTTEN_NAME, player_key, venue_id
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
    timezone = (venues or VenueMap()).timezone_of(venue)
    with database.write_session() as session:
        place = venue_id(session, venue, timezone)
        known = session.execute(
            select(Player).where(Player.venue_id == place, Player.key == player_key(clean))
        ).scalar_one_or_none()
        if known is not None:
            return RosterChoice(known.id, known.name), False
        player = Player(venue_id=place, key=player_key(clean), name=clean, name_at=time.time())
        session.add(player)
        session.flush()
        return RosterChoice(player.id, player.name), True
