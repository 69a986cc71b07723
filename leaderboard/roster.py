"""The venue's roster (docs/players.md): players with a stable id per venue,
names unique in a venue ignoring case and spaces, and their cards as keyed
hashes (never UIDs). ``oche players`` adds, lists, renames, merges and
forgets through here; :func:`roster_message` is what a board of the venue
gets on ``{base}/{board}/roster``.

A player is in the roster from their first game (by name) or from
:func:`add` (``registered_at``: kept though they have no game yet). Renames,
merges and forgets are :mod:`leaderboard.players`'s, which keep one history
per id."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine import Game
from engine.games import X01, Cricket
from leaderboard.database import Database
from leaderboard.models import Player, PlayerCard, Venue
from leaderboard.models import ResultPlayer as PlayerFigures
from leaderboard.players import (
    Forgotten,
    PlayerError,
    Renamed,
    checked_name,
    find_player,
    forget,
    rename,
)
from leaderboard.queries import period_bounds
from leaderboard.store import player_key, venue_id
from leaderboard.venues import VenueMap
from mqtt_contract.lobby_payload import RosterMessage, RosterPlayer

__all__ = [
    "REGULARS",
    "REGULAR_DAYS",
    "ROSTER_NAME_LENGTH",
    "PlayerRef",
    "RosterEntry",
    "add",
    "add_card",
    "entries",
    "forget_player",
    "merge",
    "remove_card",
    "rename_player",
    "roster_message",
]

REGULARS = 10
"""How many of a venue's players are its regulars: the most games there in
the last :data:`REGULAR_DAYS` days (the display suggests them first)."""
REGULAR_DAYS = 30

ROSTER_NAME_LENGTH = 64
"""The longest name a board's lobby takes (``lobby_payload``'s names): the
longest ``add`` and ``rename`` accept. A longer name seen in a game stays in
the tables but is left out of the roster a board gets."""

PlayerRef = str | int
"""A player as the CLI names one: the name (any case), or the roster id."""


@dataclass(frozen=True, slots=True)
class RosterEntry:
    """One roster player as ``oche players list`` shows them: the cards as
    their keyed hashes (the list prints their count)."""

    id: int
    name: str
    venue: str
    cards: tuple[str, ...]
    games: int
    registered_at: float | None


def _name(name: str) -> str:
    clean = checked_name(name)
    if len(clean) > ROSTER_NAME_LENGTH:
        raise PlayerError(f"a player's name has at most {ROSTER_NAME_LENGTH} characters")
    return clean


def _entry(session: Session, player: Player) -> RosterEntry:
    venue = session.execute(select(Venue.name).where(Venue.id == player.venue_id)).scalar_one()
    cards = session.execute(
        select(PlayerCard.card_hash)
        .where(PlayerCard.player_id == player.id)
        .order_by(PlayerCard.id)
    ).scalars()
    games = session.execute(
        select(func.count()).select_from(PlayerFigures).where(PlayerFigures.player_id == player.id)
    ).scalar_one()
    return RosterEntry(
        player.id, player.name, venue, tuple(cards), int(games), player.registered_at
    )


def _card_owner(session: Session, venue: int, card_hash: str) -> Player | None:
    return session.execute(
        select(Player)
        .join(PlayerCard, PlayerCard.player_id == Player.id)
        .where(PlayerCard.venue_id == venue, PlayerCard.card_hash == card_hash)
    ).scalar_one_or_none()


def _link(session: Session, player: Player, card_hash: str, now: float) -> None:
    """Give ``player`` the card; a PlayerError when it is someone's already."""
    owner = _card_owner(session, player.venue_id, card_hash)
    if owner is not None:
        whose = "theirs" if owner.id == player.id else f"{owner.name}'s (id {owner.id})"
        raise PlayerError(f"that card is {whose} already")
    session.add(
        PlayerCard(player_id=player.id, venue_id=player.venue_id, card_hash=card_hash, added_at=now)
    )
    if player.registered_at is None:
        player.registered_at = now  # a player with a card stays in the roster


def add(
    database: Database,
    name: str,
    venue: str,
    venues: VenueMap | None = None,
    card_hash: str | None = None,
    now: float | None = None,
) -> RosterEntry:
    """Add ``name`` to ``venue``'s roster (with a card, by its hash); a
    PlayerError when the venue has that name already (case and spaces ignored)."""
    clean = _name(name)
    at = time.time() if now is None else now
    timezone = (venues or VenueMap()).timezone_of(venue)
    with database.write_session() as session:
        place = venue_id(session, venue, timezone)
        known = session.execute(
            select(Player).where(Player.venue_id == place, Player.key == player_key(clean))
        ).scalar_one_or_none()
        if known is not None:
            raise PlayerError(f"{known.name!r} is in the roster at {venue} already (id {known.id})")
        player = Player(venue_id=place, key=player_key(clean), name=clean, name_at=at)
        player.registered_at = at
        session.add(player)
        session.flush()
        if card_hash is not None:
            _link(session, player, card_hash, at)
            session.flush()
        return _entry(session, player)


def entries(database: Database, venue: str | None = None) -> list[RosterEntry]:
    """Every roster player (of ``venue``), by id (the order they came in)."""
    with database.session() as session:
        query = select(Player).join(Venue, Venue.id == Player.venue_id)
        if venue is not None:
            query = query.where(Venue.name == venue)
        players = session.execute(query.order_by(Player.id)).scalars()
        return [_entry(session, player) for player in players]


def add_card(
    database: Database,
    ref: PlayerRef,
    card_hash: str,
    venue: str | None = None,
    now: float | None = None,
) -> RosterEntry:
    """Give the player ``ref`` the card ``card_hash`` (one player's per venue)."""
    with database.write_session() as session:
        player, _ = find_player(session, ref, venue)
        _link(session, player, card_hash, time.time() if now is None else now)
        session.flush()
        return _entry(session, player)


def remove_card(
    database: Database, ref: PlayerRef, card_hash: str, venue: str | None = None
) -> RosterEntry:
    """Take the card ``card_hash`` from the player ``ref``; a PlayerError when it is not theirs."""
    with database.write_session() as session:
        player, _ = find_player(session, ref, venue)
        card = session.execute(
            select(PlayerCard).where(
                PlayerCard.player_id == player.id, PlayerCard.card_hash == card_hash
            )
        ).scalar_one_or_none()
        if card is None:
            raise PlayerError(f"that card is not {player.name}'s")
        session.delete(card)
        session.flush()
        return _entry(session, player)


def rename_player(
    database: Database, ref: PlayerRef, new: str, venue: str | None = None
) -> Renamed:
    """Call the player ``ref`` ``new``; refused when ``new`` is another
    player of the venue (merge them instead: :func:`merge`)."""
    clean = _name(new)
    with database.session() as session:
        player, venue_name = find_player(session, ref, venue)
        other = session.execute(
            select(Player).where(
                Player.venue_id == player.venue_id,
                Player.key == player_key(clean),
                Player.id != player.id,
            )
        ).scalar_one_or_none()
        if other is not None:
            raise PlayerError(
                f"{other.name!r} is another player at {venue_name} (id {other.id}): "
                f"to make them one, merge them (oche players merge {player.id} {other.id})"
            )
        ident = player.id
    return rename(database, ident, clean, venue_name)


def merge(
    database: Database, source: PlayerRef, into: PlayerRef, venue: str | None = None
) -> Renamed:
    """Make ``source`` and ``into`` (two players of one venue) one: ``into``,
    with both histories, cards and ratings rebuilt."""
    with database.session() as session:
        giving, giving_venue = find_player(session, source, venue)
        taking, taking_venue = find_player(session, into, venue)
        if giving.id == taking.id:
            raise PlayerError(f"{giving.name!r} and {taking.name!r} are the same player")
        if giving.venue_id != taking.venue_id:
            raise PlayerError(
                f"{giving.name!r} plays at {giving_venue} and {taking.name!r} at "
                f"{taking_venue}: only players of one venue merge"
            )
        ident, name = giving.id, taking.name
    return rename(database, ident, name, giving_venue)


def forget_player(
    database: Database, ref: PlayerRef, venue: str | None = None, venues: VenueMap | None = None
) -> Forgotten:
    """:func:`leaderboard.players.forget`: the player's name, ratings and cards go."""
    return forget(database, ref, venue, venues)


def _month_averages(
    session: Session, place: int, timezone: str, now: float, game: type[Game] = X01
) -> dict[int, float]:
    """Each player's average in ``game`` at the venue this month (the venue's
    month): X01's three-dart average, Cricket's marks per round."""
    average = game.average
    bounds = period_bounds("month", timezone, now)
    assert average is not None and bounds is not None
    figure = getattr(PlayerFigures, average.figure)
    found = session.execute(
        select(PlayerFigures.player_id, func.sum(figure), func.sum(PlayerFigures.darts))
        .where(
            PlayerFigures.game == game.id,
            PlayerFigures.venue_id == place,
            PlayerFigures.player_id.is_not(None),
            PlayerFigures.finished_at >= bounds[0],
            PlayerFigures.finished_at < bounds[1],
        )
        .group_by(PlayerFigures.player_id)
    )
    return {
        int(player): round(int(points) * 3 / int(darts), 2)
        for player, points, darts in found
        if darts
    }


def _regulars(session: Session, place: int, now: float) -> set[int]:
    """The venue's :data:`REGULARS` players with the most games in the last days."""
    games = func.count().label("games")
    found = session.execute(
        select(PlayerFigures.player_id, games)
        .where(
            PlayerFigures.venue_id == place,
            PlayerFigures.player_id.is_not(None),
            PlayerFigures.finished_at >= now - REGULAR_DAYS * 86400,
        )
        .group_by(PlayerFigures.player_id)
        .order_by(games.desc(), PlayerFigures.player_id)
        .limit(REGULARS)
    )
    return {int(player) for player, _ in found if player is not None}


def roster_message(session: Session, venue: str, now: float) -> RosterMessage:
    """``venue``'s roster as a board gets it: every player (a name too long
    for a lobby left out), their cards' hashes, X01 average and Cricket MPR
    this month (what the board suggests handicaps from), and whether they
    are a regular."""
    found = session.execute(select(Venue).where(Venue.name == venue)).scalar_one_or_none()
    if found is None:
        return RosterMessage(venue=venue, updated_at=now, players=())
    averages = _month_averages(session, found.id, found.timezone, now)
    mprs = _month_averages(session, found.id, found.timezone, now, Cricket)
    regulars = _regulars(session, found.id, now)
    cards: dict[int, list[str]] = {}
    for player, card in session.execute(
        select(PlayerCard.player_id, PlayerCard.card_hash)
        .where(PlayerCard.venue_id == found.id)
        .order_by(PlayerCard.id)
    ):
        cards.setdefault(player, []).append(card)
    players = session.execute(
        select(Player).where(Player.venue_id == found.id).order_by(Player.key, Player.id)
    ).scalars()
    return RosterMessage(
        venue=venue,
        updated_at=now,
        players=tuple(
            RosterPlayer(
                id=player.id,
                name=player.name,
                cards=tuple(cards.get(player.id, ())),
                average=averages.get(player.id),
                mpr=mprs.get(player.id),
                regular=player.id in regulars,
            )
            for player in players
            if 0 < len(player.name) <= ROSTER_NAME_LENGTH
        ),
    )
