"""Ratings: OpenSkill's Plackett-Luce model, one rating per player and game
family (the game id), teams as rating groups, ranks from the replay's
placements. Results count in ``(finished_at, result_id)`` order; a result that
arrives late rewinds its family to that point and replays it, so the ratings
are the same whatever order results arrived in; a result taken out (a later
revision of its game replaced it) rewinds and replays the same way. Shown: the ordinal
(mu - 3 sigma), a conservative estimate."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import ColumnElement, and_, delete, func, insert, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from leaderboard.models import PlayerRating, Rating, Result, ResultPlayer

__all__ = [
    "DEFAULT_ORDINAL",
    "MODEL",
    "NewResult",
    "rate_new",
    "rebuild_all",
    "rebuild_family",
    "replay_from",
    "rewind",
]

MODEL = PlackettLuce()
"""The model (default mu 25, sigma 25/3): deterministic, no randomness."""

DEFAULT_ORDINAL = MODEL.rating().ordinal()
"""A new player's rating as shown (0)."""


@dataclass(frozen=True, slots=True)
class _Seat:
    player_id: int
    team: int | None
    placement: int


def _after(at: float, result_id: str, strictly: bool = False) -> ColumnElement[bool]:
    """Results at (or strictly after) the point ``(finished_at, result_id)``;
    written so the (game, finished_at, result_id) index bounds the scan."""
    same = Result.result_id > result_id if strictly else Result.result_id >= result_id
    return and_(Result.finished_at >= at, or_(Result.finished_at > at, same))


def _groups(seats: list[_Seat]) -> tuple[list[list[int]], list[int]]:
    """The rating groups (a team, or a lone player) and each group's rank. A
    player seated twice (two merged names) is left out of that result."""
    counts: dict[int, int] = defaultdict(int)
    for seat in seats:
        counts[seat.player_id] += 1
    groups: dict[tuple[str, int], list[_Seat]] = {}
    for seat in seats:
        if counts[seat.player_id] > 1:
            continue
        key = ("team", seat.team) if seat.team is not None else ("player", seat.player_id)
        groups.setdefault(key, []).append(seat)
    ordered = list(groups.values())
    return (
        [[seat.player_id for seat in group] for group in ordered],
        [min(seat.placement for seat in group) for group in ordered],
    )


def _replay(session: Session, game: str, condition: ColumnElement[bool] | None) -> None:
    """Rate every result of ``game`` matching ``condition`` (all when None), in
    order, starting from each player's current rating, and keep the history."""
    query = select(Result.id, Result.result_id, Result.finished_at).where(Result.game == game)
    if condition is not None:
        query = query.where(condition)
    results = session.execute(query.order_by(Result.finished_at, Result.result_id)).all()
    if not results:
        return
    pks = [row.id for row in results]
    seats: dict[int, list[_Seat]] = defaultdict(list)
    for chunk in _chunks(pks):
        rows = session.execute(
            select(
                ResultPlayer.result_pk,
                ResultPlayer.player_id,
                ResultPlayer.team,
                ResultPlayer.placement,
            )
            .where(ResultPlayer.result_pk.in_(chunk), ResultPlayer.player_id.is_not(None))
            .order_by(ResultPlayer.result_pk, ResultPlayer.seat)
        )
        for result_pk, seated, team, placement in rows:
            assert seated is not None
            seats[result_pk].append(_Seat(seated, team, placement))
    _rate(session, game, [(row.id, row.result_id, row.finished_at) for row in results], seats)


def _rate(
    session: Session,
    game: str,
    results: list[tuple[int, str, float]],
    seats: dict[int, list[_Seat]],
) -> None:
    """Rate ``results`` (pk, result id, finished_at; in order) from each
    player's current rating; add the history and set the current ratings."""
    players = sorted({seat.player_id for group in seats.values() for seat in group})
    current: dict[int, PlackettLuceRating] = {}
    for chunk_ids in _chunks(players):
        for player_id, mu, sigma in session.execute(
            select(PlayerRating.player_id, PlayerRating.mu, PlayerRating.sigma).where(
                PlayerRating.game == game, PlayerRating.player_id.in_(chunk_ids)
            )
        ):
            current[player_id] = MODEL.rating(mu=mu, sigma=sigma)
    history: list[dict[str, object]] = []
    touched: set[int] = set()
    for result_pk, result_id, at in results:
        teams, ranks = _groups(seats.get(result_pk, []))
        if len(teams) < 2:
            continue  # a solo game rates no one
        before = [[current.get(p) or MODEL.rating() for p in team] for team in teams]
        after = MODEL.rate(before, ranks=[float(rank) for rank in ranks])
        for members, rated in zip(teams, after, strict=True):
            for member, rating in zip(members, rated, strict=True):
                current[member] = rating
                touched.add(member)
                history.append(
                    {
                        "player_id": member,
                        "game": game,
                        "mu": rating.mu,
                        "sigma": rating.sigma,
                        "ordinal": rating.ordinal(),
                        "result_pk": result_pk,
                        "result_id": result_id,
                        "at": at,
                    }
                )
    if not history:
        return
    session.execute(insert(Rating), history)
    session.execute(
        _current_upsert(session.get_bind().dialect.name),
        [
            {
                "player_id": player_id,
                "game": game,
                "mu": current[player_id].mu,
                "sigma": current[player_id].sigma,
                "ordinal": current[player_id].ordinal(),
            }
            for player_id in sorted(touched)
        ],
    )


@functools.cache
def _current_upsert(dialect: str) -> Any:
    statement = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(PlayerRating)
    new = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=["player_id", "game"],
        set_={"mu": new.mu, "sigma": new.sigma, "ordinal": new.ordinal},
    )


def _chunks(values: list[int], size: int = 5000) -> list[list[int]]:
    return [values[start : start + size] for start in range(0, len(values), size)]


def rewind(session: Session, game: str, at: float, result_id: str) -> None:
    """Forget the ratings from ``(at, result_id)`` on: drop that history and set
    each affected player's current rating back to their last one before it.
    A few statements whatever the number of players (a late result in a busy
    league touches hundreds)."""
    later = and_(Rating.at >= at, or_(Rating.at > at, Rating.result_id >= result_id))
    affected = sorted(
        session.execute(
            select(Rating.player_id).where(Rating.game == game, later).distinct()
        ).scalars()
    )
    if not affected:
        return
    session.execute(delete(Rating).where(Rating.game == game, later))
    kept: list[dict[str, object]] = []
    for chunk in _chunks(affected):
        position = (
            func.row_number()
            .over(
                partition_by=Rating.player_id,
                order_by=(Rating.at.desc(), Rating.result_id.desc()),
            )
            .label("position")
        )
        last = (
            select(Rating.player_id, Rating.mu, Rating.sigma, Rating.ordinal, position)
            .where(Rating.game == game, Rating.player_id.in_(chunk))
            .subquery()
        )
        kept += [
            {"player_id": player_id, "game": game, "mu": mu, "sigma": sigma, "ordinal": ordinal}
            for player_id, mu, sigma, ordinal in session.execute(
                select(last.c.player_id, last.c.mu, last.c.sigma, last.c.ordinal).where(
                    last.c.position == 1
                )
            )
        ]
    rated = {row["player_id"] for row in kept}
    unrated = [player_id for player_id in affected if player_id not in rated]
    for chunk in _chunks(unrated):
        session.execute(
            delete(PlayerRating).where(PlayerRating.game == game, PlayerRating.player_id.in_(chunk))
        )
    if kept:
        session.execute(_current_upsert(session.get_bind().dialect.name), kept)


@dataclass(frozen=True, slots=True)
class NewResult:
    """A result just stored: its row id, result id, when it finished and its
    ``result_players`` rows as inserted."""

    pk: int
    result_id: str
    finished_at: float
    lines: Sequence[Mapping[str, Any]]


def rate_new(session: Session, game: str, new: Sequence[NewResult]) -> None:
    """Results of ``game`` were stored (``new``, in finished_at order): rate
    them and, when one came late, every later result of the family again (call
    with the family's writers serialized, :func:`leaderboard.store.lock_family`).
    When they are the family's latest, as nearly always, nothing is read back
    but the players' current ratings."""
    if not new:
        return
    first = new[0]
    later = session.execute(
        select(Result.id)
        .where(
            Result.game == game,
            _after(first.finished_at, first.result_id, strictly=True),
            Result.id.not_in([result.pk for result in new]),
        )
        .limit(1)
    ).first()
    if later is None:
        seats = {
            result.pk: [
                _Seat(line["player_id"], line["team"], line["placement"])
                for line in result.lines
                if line["player_id"] is not None
            ]
            for result in new
        }
        _rate(session, game, [(r.pk, r.result_id, r.finished_at) for r in new], seats)
        return
    rewind(session, game, first.finished_at, first.result_id)
    replay_from(session, game, first.finished_at, first.result_id)


def replay_from(session: Session, game: str, at: float, result_id: str) -> None:
    """Rate every result of ``game`` from the point ``(at, result_id)`` on, in
    order, after :func:`rewind` to that point or before it; between the two,
    results at or after it may be taken out and put in (a later revision of
    a game replacing its result, in one transaction)."""
    _replay(session, game, _after(at, result_id))


def rebuild_family(session: Session, game: str) -> None:
    """Every rating of ``game`` from scratch (after a rename or a forget)."""
    session.execute(delete(Rating).where(Rating.game == game))
    session.execute(delete(PlayerRating).where(PlayerRating.game == game))
    _replay(session, game, None)


def rebuild_all(session: Session) -> None:
    """Every family's ratings from scratch."""
    games = session.execute(select(Result.game).distinct()).scalars().all()
    for game in sorted(games):
        rebuild_family(session, game)
