"""Changing players after the fact: ``rename`` merges one name into another
(a typo, a nickname), ``forget`` deletes a player's data for privacy (their
cards too) while their games stay, the name replaced, in every payload kept
too (rejected, failed, superseded). Both rebuild the ratings they touch.
A player is named by name (any case) or by roster id (an ``int``); the
roster's own commands are :mod:`leaderboard.roster`'s."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from leaderboard.database import Database
from leaderboard.models import (
    NAME_LENGTH,
    Player,
    PlayerCard,
    Rejected,
    Result,
    ResultPlayer,
    Superseded,
    Venue,
)
from leaderboard.ratings import rebuild_family
from leaderboard.store import FORGOTTEN_NAME, lock_family, player_key
from leaderboard.totals import recount
from leaderboard.venues import VenueMap

__all__ = [
    "FORGOTTEN_NAME",
    "Forgotten",
    "PlayerError",
    "Renamed",
    "checked_name",
    "find_player",
    "forget",
    "rename",
]


class PlayerError(ValueError):
    """A rename or forget that cannot be done; the message says why."""


@dataclass(frozen=True, slots=True)
class Renamed:
    """The outcome of :func:`rename`: the player's name now, where, and whether
    two players became one (``merged``) and over how many games."""

    name: str
    venue: str
    merged: bool
    games: int


@dataclass(frozen=True, slots=True)
class Forgotten:
    """The outcome of :func:`forget`: whose data went, how many games stay, and
    how many payloads that do not count (rejected, failed, superseded) had
    the name taken out."""

    venue: str
    games: int
    kept: int = 0


def find_player(session: Session, ref: str | int, venue: str | None) -> tuple[Player, str]:
    """The one player ``ref`` (a name, or an ``int``: the roster id; at
    ``venue``), and the venue's name; a PlayerError says why not."""
    if isinstance(ref, int):
        found_id = session.execute(
            select(Player, Venue.name)
            .join(Venue, Venue.id == Player.venue_id)
            .where(Player.id == ref)
        ).first()
        if found_id is None or (venue is not None and found_id[1] != venue):
            where = f" at {venue}" if venue is not None else ""
            raise PlayerError(f"no player with id {ref}{where}")
        return found_id[0], found_id[1]
    name = ref
    query = (
        select(Player, Venue.name)
        .join(Venue, Venue.id == Player.venue_id)
        .where(Player.key == player_key(name))
    )
    if venue is not None:
        query = query.where(Venue.name == venue)
    found = session.execute(query.order_by(Venue.name)).all()
    where = f" at {venue}" if venue is not None else ""
    if not found:
        raise PlayerError(f"no player called {name.strip()!r}{where}")
    if len(found) > 1:
        venues = ", ".join(repr(row[1]) for row in found)
        raise PlayerError(
            f"{name.strip()!r} plays at several venues ({venues}); say which with --venue"
        )
    return found[0][0], found[0][1]


def _games_of(session: Session, player_id: int) -> list[str]:
    return sorted(
        session.execute(
            select(ResultPlayer.game).where(ResultPlayer.player_id == player_id).distinct()
        ).scalars()
    )


def checked_name(name: str) -> str:
    """``name`` stripped; a PlayerError when it is blank, too long or has a NUL."""
    clean = name.strip()
    if not clean:
        raise PlayerError("the new name is blank")
    if len(clean) > NAME_LENGTH or "\x00" in clean:
        raise PlayerError(f"the new name is not a name (over {NAME_LENGTH} characters, or a NUL)")
    return clean


def rename(database: Database, old: str | int, new: str, venue: str | None = None) -> Renamed:
    """Call player ``old`` ``new`` from now on; when ``new`` is already a
    player of that venue, ``old``'s games and cards become theirs (and their
    ratings are rebuilt from those games)."""
    target = checked_name(new)
    with database.write_session() as session:
        player, venue_name = find_player(session, old, venue)
        games = _games_of(session, player.id)
        count = len(
            session.execute(
                select(ResultPlayer.id).where(ResultPlayer.player_id == player.id)
            ).all()
        )
        other = session.execute(
            select(Player).where(
                Player.venue_id == player.venue_id,
                Player.key == player_key(target),
                Player.id != player.id,
            )
        ).scalar_one_or_none()
        for game in sorted(set(games) | set(_games_of(session, other.id) if other else [])):
            lock_family(session, game)  # in one order, as ingest takes them
        if other is None:
            player.key, player.name = player_key(target), target
            session.execute(
                update(ResultPlayer).where(ResultPlayer.player_id == player.id).values(name=target)
            )
            return Renamed(target, venue_name, merged=False, games=count)
        session.execute(
            update(ResultPlayer)
            .where(ResultPlayer.player_id == player.id)
            .values(player_id=other.id, name=target)
        )
        session.execute(
            update(PlayerCard).where(PlayerCard.player_id == player.id).values(player_id=other.id)
        )
        other.name = target
        other.name_at = max(other.name_at, player.name_at)
        registered = [at for at in (other.registered_at, player.registered_at) if at is not None]
        other.registered_at = min(registered, default=None)
        session.delete(player)
        session.flush()
        recount(session, [other.id])
        for game in games:
            rebuild_family(session, game)
        return Renamed(target, venue_name, merged=True, games=count)


def _scrub(payload: dict[str, Any], seats: list[int]) -> dict[str, Any]:
    """The result document with the players in ``seats`` renamed
    :data:`FORGOTTEN_NAME` (names, winner's name, a log header's players)."""
    scrubbed = copy.deepcopy(payload)
    players = scrubbed.get("players")
    if isinstance(players, list):
        for seat in seats:
            if 0 <= seat < len(players) and isinstance(players[seat], dict):
                players[seat]["name"] = FORGOTTEN_NAME
    if scrubbed.get("winner") in seats:
        scrubbed["winner_name"] = FORGOTTEN_NAME
    log = scrubbed.get("log")
    if isinstance(log, str) and isinstance(players, list):
        lines = log.splitlines(keepends=True)
        for number, line in enumerate(lines):
            if line.startswith("# players:"):
                names = [p.get("name") if isinstance(p, dict) else None for p in players]
                lines[number] = "# players: " + json.dumps(names, ensure_ascii=False) + "\n"
        scrubbed["log"] = "".join(lines)
    return scrubbed


def _seats_of(document: dict[str, Any], key: str, venue: str, venues: VenueMap | None) -> list[int]:
    """The seats of ``document`` (a result document) the player of ``key`` at
    ``venue`` played: the name, and the venue of their board when ``venues``
    says (else, and when the document names no board, every seat of the name)."""
    players = document.get("players")
    if not isinstance(players, list):
        return []
    board = document.get("board")
    seats = []
    for seat, line in enumerate(players):
        if not isinstance(line, dict) or not isinstance(line.get("name"), str):
            continue
        own = line.get("board")
        elsewhere = False
        if venues is not None and isinstance(board, str) and isinstance(own, str | None):
            elsewhere = venues.venue_of_player(board, own) != venue
        if player_key(line["name"]) == key and not elsewhere:
            seats.append(seat)
    return seats


def _name_pattern(name: str) -> re.Pattern[str]:
    """``name`` as a whole word in any text, in any case, as written or as
    JSON writes it (non-ASCII letters escaped)."""
    forms = {re.escape(name), re.escape(json.dumps(name)[1:-1])}
    return re.compile(rf"(?<!\w)(?:{'|'.join(sorted(forms))})(?!\w)", re.IGNORECASE)


def _scrub_text(
    text: str, scrub: Callable[[dict[str, Any]], dict[str, Any] | None], name: str
) -> str | None:
    """A kept payload's text without the name: a JSON result document
    scrubbed seat by seat (re-encoded compactly), any other text with every
    whole-word occurrence replaced (it cannot be read seat by seat, so no
    venue is told apart); None when the name is not in it."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict):
        scrubbed = scrub(document)
        if scrubbed is None:
            return None
        return json.dumps(scrubbed, ensure_ascii=False, separators=(",", ":"))
    pattern = _name_pattern(name)
    if not pattern.search(text):
        return None
    return pattern.sub(FORGOTTEN_NAME, text)


def _forget_in_kept(session: Session, player: Player, venue: str, venues: VenueMap | None) -> int:
    """Take the player's name out of every payload kept that does not count:
    superseded revisions and rejected or failed payloads. How many changed."""

    def scrub(document: dict[str, Any]) -> dict[str, Any] | None:
        seats = _seats_of(document, player.key, venue, venues)
        return _scrub(document, seats) if seats else None

    changed = 0
    for row in session.execute(select(Superseded)).scalars():
        scrubbed = scrub(row.payload)
        if scrubbed is not None:
            row.payload = scrubbed
            changed += 1
    for kept in session.execute(select(Rejected)).scalars():
        text = _scrub_text(kept.payload, scrub, player.name)
        if text is not None:
            kept.payload = text
            changed += 1
    return changed


def forget(
    database: Database, name: str | int, venue: str | None = None, venues: VenueMap | None = None
) -> Forgotten:
    """Delete player ``name``'s data: their name and ratings. Their games stay,
    with :data:`FORGOTTEN_NAME` in their place (in stored payloads too), so
    the other players keep their games; ratings of those games are rebuilt.
    The name goes from the payloads kept that do not count as well: in a
    result document, the seats of the player's venue (by ``venues``, the
    board to venue map; without it, every seat of the name); in a payload that
    is not a JSON document, every occurrence of the name."""
    with database.write_session() as session:
        player, venue_name = find_player(session, name, venue)
        games = _games_of(session, player.id)
        for game in games:
            lock_family(session, game)
        seats: dict[int, list[int]] = {}
        for result_pk, seat in session.execute(
            select(ResultPlayer.result_pk, ResultPlayer.seat).where(
                ResultPlayer.player_id == player.id
            )
        ):
            seats.setdefault(result_pk, []).append(seat)
        for result in session.execute(select(Result).where(Result.id.in_(seats))).scalars():
            mine = seats[result.id]
            result.payload = _scrub(result.payload, mine)
            if result.winner in mine:
                result.winner_name = FORGOTTEN_NAME
        kept = _forget_in_kept(session, player, venue_name, venues)
        session.execute(
            update(ResultPlayer)
            .where(ResultPlayer.player_id == player.id)
            .values(player_id=None, name=FORGOTTEN_NAME)
        )
        session.execute(delete(PlayerCard).where(PlayerCard.player_id == player.id))
        session.execute(delete(Player).where(Player.id == player.id))
        for game in games:
            rebuild_family(session, game)
        return Forgotten(venue_name, sum(len(s) for s in seats.values()), kept)
