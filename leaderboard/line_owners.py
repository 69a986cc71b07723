"""Whose figures a result's line is (a ``players`` row's id): the roster
player the board joined by id (the result's ``player_id``, a player of that
venue), else the venue's player of that name, made on their first game. A
computer's line and a forgotten player's are nobody's. Part of ingest
(:mod:`leaderboard.store`), in one statement per kind whatever the batch."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from leaderboard.models import Player
from leaderboard.scoring import PlayerLine, ScoredResult

__all__ = ["FORGOTTEN_NAME", "Placed", "line_owners", "no_player", "player_key"]

FORGOTTEN_NAME = "forgotten player"
"""What a forgotten player's games show instead of their name
(:func:`leaderboard.players.forget`); a line under it is no player's."""

Placed = tuple[ScoredResult, Sequence[int]]
"""A result and each of its lines' venue id, in seat order."""


def player_key(name: str) -> str:
    """The name a player is known by within a venue: case and surrounding spaces ignored."""
    return name.strip().casefold()


def no_player(line: PlayerLine) -> bool:
    """Whether a line is no player's: a computer's, or a forgotten player's."""
    return line.cpu_level is not None or line.name.strip() == FORGOTTEN_NAME


@functools.cache
def _player_upsert(dialect: str) -> Any:
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(Player)
    return insert.on_conflict_do_update(
        index_elements=["venue_id", "key"],
        set_={"name": insert.excluded.name, "name_at": insert.excluded.name_at},
        where=(Player.name_at <= insert.excluded.name_at) & (Player.name != insert.excluded.name),
    )


def _player_ids(
    session: Session, spellings: dict[tuple[int, str], tuple[float, str]]
) -> dict[tuple[int, str], int]:
    """Each (venue id, key)'s player id, made when new; ``spellings`` gives
    each one's latest spelling and when: the display name becomes it when it
    is newer than the player's."""
    if not spellings:
        return {}
    session.execute(
        _player_upsert(session.get_bind().dialect.name),
        [  # one lock order for every writer
            {"venue_id": venue, "key": key, "name": name, "name_at": at}
            for (venue, key), (at, name) in sorted(spellings.items())
        ],
    )
    ids: dict[tuple[int, str], int] = {}
    for venue in sorted({venue for venue, _ in spellings}):
        keys = [key for place, key in spellings if place == venue]
        for key, ident in session.execute(
            select(Player.key, Player.id).where(Player.venue_id == venue, Player.key.in_(keys))
        ):
            ids[(venue, key)] = ident
    return ids


def _roster_players(session: Session, results: Sequence[Placed]) -> set[tuple[int, int]]:
    """The (player id, venue id) pairs of the lines' ``player_id`` that are
    players of that venue: those lines count for that player by id, whatever
    the name at the board (the roster's name stays). Any other id (a player
    forgotten, or of another venue) is ignored: the line goes by its name."""
    wanted = {
        (line.player_id, venue)
        for scored, venues in results
        for line, venue in zip(scored.players, venues, strict=True)
        if line.player_id is not None and not no_player(line)
    }
    if not wanted:
        return set()
    found = session.execute(
        select(Player.id, Player.venue_id).where(Player.id.in_(sorted({i for i, _ in wanted})))
    )
    return {(ident, venue) for ident, venue in found} & wanted


def line_owners(session: Session, results: Sequence[Placed]) -> list[list[int | None]]:
    """Each result's lines' player ids (None: nobody's), players made for new names."""
    roster = _roster_players(session, results)
    spellings: dict[tuple[int, str], tuple[float, str]] = {}
    for scored, venues in results:
        for line, venue in zip(scored.players, venues, strict=True):
            if no_player(line) or (line.player_id, venue) in roster:
                continue
            key = (venue, player_key(line.name))
            if key not in spellings or spellings[key][0] <= scored.finished_at:
                spellings[key] = (scored.finished_at, line.name.strip())
    ids = _player_ids(session, spellings)

    def owner(line: PlayerLine, venue: int) -> int | None:
        if no_player(line):
            return None
        if (line.player_id, venue) in roster:
            return line.player_id
        return ids[(venue, player_key(line.name))]

    return [
        [owner(line, venue) for line, venue in zip(scored.players, venues, strict=True)]
        for scored, venues in results
    ]
