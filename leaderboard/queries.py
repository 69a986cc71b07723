"""What the API, the pages, ``oche leaderboard show`` and the MQTT snapshots
read: each function takes a session and returns :mod:`leaderboard.api_models`.
``now`` (Unix seconds) fixes the period's end for tests; default: the clock.

Tables aggregate ``result_players`` in SQL (one indexed pass per game and
period); a period is the venue's local calendar day, ISO week (from Monday)
or month, in the venue's time zone, or all time."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import (
    ColumnElement,
    and_,
    false,
    func,
    or_,
    select,
)
from sqlalchemy.orm import Session

from engine import X01, game_class, game_ids
from engine.awards import Award
from leaderboard.api_models import (
    ROW_MODELS,
    AveragePoint,
    LegSummary,
    Period,
    PlayerCard,
    PlayerGameStats,
    RatingPoint,
    RecordEntry,
    Records,
    RejectedEntry,
    ResultDetail,
    ResultPlayer,
    ResultSummary,
    Row,
    SoftTipRatingCard,
    VisitBreakdown,
)
from leaderboard.figures import Aggregate, Figure, award_column, row_figures
from leaderboard.models import (
    Player,
    PlayerRating,
    PlayerTotal,
    Rating,
    Rejected,
    Result,
    Superseded,
    Venue,
)
from leaderboard.models import ResultPlayer as PlayerFigures
from leaderboard.ratings import DEFAULT_ORDINAL
from leaderboard.soft_tip_rating import player_soft_tip_rating
from leaderboard.totals import figure_aggregates
from mqtt_contract import PERIODS

__all__ = [
    "DEFAULT_TABLE_LIMIT",
    "MAX_TABLE_LIMIT",
    "PlayerNotFoundError",
    "ResultNotFoundError",
    "leaderboard",
    "period_bounds",
    "player_card",
    "recent_results",
    "records",
    "rejected",
    "result_detail",
    "venue_names",
]

DEFAULT_TABLE_LIMIT = 100
"""Rows of a table the API and ``show`` give unless asked (a page: reads stay fast)."""

MAX_TABLE_LIMIT = 5000
"""The most rows of a table one API request or ``show`` gives."""

RECENT_ON_CARD = 20
"""How many recent results a player card lists."""


class PlayerNotFoundError(LookupError):
    """No player of that name (in that venue)."""


class ResultNotFoundError(LookupError):
    """No stored result with that id that counts (the message says when a
    later revision of its game replaced it, or the game was withdrawn)."""


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def period_bounds(period: Period, timezone: str, now: float) -> tuple[float, float] | None:
    """``[start, end)`` in Unix seconds of the ``period`` holding ``now`` in
    ``timezone`` (an IANA name; unknown ones count as UTC), None for ``all``."""
    if period == "all":
        return None
    zone = _zone(timezone)
    today = datetime.fromtimestamp(now, zone).date()
    if period == "day":
        first, last = today, today + timedelta(days=1)
    elif period == "week":
        first = today - timedelta(days=today.weekday())
        last = first + timedelta(days=7)
    elif period == "month":
        first = today.replace(day=1)
        last = (first + timedelta(days=32)).replace(day=1)
    else:
        raise ValueError(f"unknown period {period!r}; use one of {', '.join(PERIODS)}")

    def midnight(day: Any) -> float:
        return datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()

    return midnight(first), midnight(last)


def _in_period(
    session: Session,
    period: Period,
    venue: str | None,
    now: float | None,
    at: Any,
    venue_column: Any,
) -> ColumnElement[bool] | None:
    """The condition for rows (time ``at``, venue ``venue_column``) in the
    period, each in its own venue's time zone; None when nothing is filtered."""
    if period not in PERIODS:
        raise ValueError(f"unknown period {period!r}; use one of {', '.join(PERIODS)}")
    clock = time.time() if now is None else now
    venues = session.execute(select(Venue.id, Venue.name, Venue.timezone)).all()
    if venue is not None:
        venues = [row for row in venues if row.name == venue]
        if not venues:
            return false()
    if period == "all":
        return venue_column == venues[0].id if venue is not None else None
    parts = []
    for row in venues:
        bounds = period_bounds(period, row.timezone, clock)
        assert bounds is not None
        parts.append(and_(venue_column == row.id, at >= bounds[0], at < bounds[1]))
    return or_(*parts) if parts else false()


def _per(top: int | None, bottom: int | None, scale: float) -> float | None:
    return round(top * scale / bottom, 2) if top is not None and bottom else None


def _value(figure: Figure, figures: Any) -> float | int | None:
    """A row's value of ``figure`` from the aggregates: a ratio worked out, a
    count (0 when none), a best as kept (a best ratio to two places)."""
    ratio = figure.ratio
    if figure.aggregate is Aggregate.PER:
        assert ratio is not None
        return _per(getattr(figures, ratio.top), getattr(figures, ratio.bottom), ratio.scale)
    value = getattr(figures, figure.name)
    if figure.aggregate is Aggregate.SUM:
        return int(value or 0)
    if ratio is not None and value is not None:
        return round(float(value), 2)
    return value  # type: ignore[no-any-return]


def _row(game: str, rank: int, figures: Any) -> Row:
    """One table row from an aggregate (and the player's name, venue and rating).
    Built without validation: every value comes typed from the database."""
    played, won = int(figures.played), int(figures.won or 0)
    family = game_class(game).family
    values: dict[str, Any] = {
        "rank": rank,
        "player": figures.name,
        "player_id": int(figures.player_id),
        "venue": figures.venue,
        "played": played,
        "won": won,
        "legs_won": int(figures.legs_won or 0),
        "legs_lost": int(figures.legs_lost or 0),
        "win_percent": round(won * 100 / played, 1) if played else 0.0,
        "rating": round(float(figures.rating), 2),
        "highlight": figures.highlight,
    }
    values.update((figure.name, _value(figure, figures)) for figure in row_figures(family))
    return ROW_MODELS[family].model_construct(**values)


def _ranked(
    session: Session,
    game: str,
    totals: Any,
    venue_id: int | None,
    player: int | None,
    limit: int | None,
    offset: int = 0,
) -> list[Any]:
    """``totals`` (per player: the labelled figures) with name, venue and
    rating, in rank order: rating (a game ranked by its average: that
    average, :func:`_average_order`), then wins, then name; ``offset`` rows
    skipped, then at most ``limit``."""
    rating = func.coalesce(PlayerRating.ordinal, DEFAULT_ORDINAL).label("rating")
    first = _average_order(game, totals.c) if game_class(game).ranked_by_average else rating
    query = (
        select(totals, Player.name.label("name"), Venue.name.label("venue"), rating)
        .join(Player, Player.id == totals.c.player_id)
        .join(Venue, Venue.id == Player.venue_id)
        .outerjoin(
            PlayerRating,
            and_(PlayerRating.player_id == totals.c.player_id, PlayerRating.game == game),
        )
        .order_by(first.desc(), totals.c.won.desc(), Player.name, Venue.name)
    )
    if venue_id is not None:
        query = query.where(Player.venue_id == venue_id)
    if player is not None:
        query = query.where(totals.c.player_id == player)
    if limit is not None:
        query = query.limit(max(0, limit))
    if offset > 0:
        query = query.offset(offset)
    return list(session.execute(query).all())


def _all_time(
    session: Session,
    game: str,
    venue_id: int | None = None,
    player: int | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[Any]:
    """The all-time table, read from the kept totals (one row a player)."""
    columns = [column for column in PlayerTotal.__table__.c if column.name != "game"]
    totals = select(*columns).where(PlayerTotal.game == game).subquery()
    return _ranked(session, game, totals, venue_id, player, limit, offset)


def _in_rows(
    session: Session,
    game: str,
    condition: ColumnElement[bool],
    limit: int | None = None,
    offset: int = 0,
) -> list[Any]:
    """A period's table: the period's ``result_players`` rows added up in SQL."""
    figures = PlayerFigures
    totals = (
        select(figures.player_id.label("player_id"), *figure_aggregates(game))
        .where(figures.game == game, figures.player_id.is_not(None), condition)
        .group_by(figures.player_id)
        .subquery()
    )
    return _ranked(session, game, totals, None, None, limit, offset)


def leaderboard(
    session: Session,
    game: str,
    period: Period,
    venue: str | None = None,
    now: float | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> list[Row]:
    """One game's table for the period, ordered by rank (rating's ordinal):
    the ``limit`` rows (every one when None) after the first ``offset``.
    Ranks count from the top of the whole table (offset 100 starts at 101)."""
    offset = max(0, offset)
    if period == "all":
        venue_id = None
        if venue is not None:
            venue_id = session.execute(
                select(Venue.id).where(Venue.name == venue)
            ).scalar_one_or_none()
            if venue_id is None:
                return []
        found = _all_time(session, game, venue_id, limit=limit, offset=offset)
    else:
        condition = _in_period(
            session, period, venue, now, PlayerFigures.finished_at, PlayerFigures.venue_id
        )
        assert condition is not None
        found = _in_rows(session, game, condition, limit, offset)
    return [_row(game, rank, figures) for rank, figures in enumerate(found, offset + 1)]


def _player(session: Session, name: str, venue: str | None) -> Player:
    """The player called ``name`` (case and spaces ignored); without a venue,
    the one seen most recently."""
    key = name.strip().casefold()
    query = select(Player).where(Player.key == key)
    if venue is not None:
        query = query.join(Venue, Venue.id == Player.venue_id).where(Venue.name == venue)
    found = session.execute(query.order_by(Player.name_at.desc(), Player.id).limit(1))
    player = found.scalar_one_or_none()
    if player is None:
        where = f" at {venue}" if venue is not None else ""
        raise PlayerNotFoundError(f"no player called {name.strip()!r}{where}")
    return player


def _summaries(session: Session, results: Sequence[Result]) -> list[ResultSummary]:
    """:class:`ResultSummary` of each result, in the order given."""
    if not results:
        return []
    pks = [result.id for result in results]
    names: dict[int, list[str]] = {pk: [] for pk in pks}
    levels: dict[int, list[int | None]] = {pk: [] for pk in pks}
    places: dict[int, list[int]] = {result.id: [result.venue_id] for result in results}
    for result_pk, played_as, venue_id, cpu_level in session.execute(
        select(
            PlayerFigures.result_pk,
            PlayerFigures.name,
            PlayerFigures.venue_id,
            PlayerFigures.cpu_level,
        )
        .where(PlayerFigures.result_pk.in_(pks))
        .order_by(PlayerFigures.result_pk, PlayerFigures.seat)
    ):
        names[result_pk].append(played_as)
        levels[result_pk].append(cpu_level)
        places[result_pk].append(venue_id)
    venues = {ident: name for ident, name in session.execute(select(Venue.id, Venue.name))}
    return [
        ResultSummary(
            result_id=result.result_id,
            board=result.board,
            venue=venues.get(result.venue_id, ""),
            game=result.game,
            finished_at=result.finished_at,
            players=names[result.id],
            cpu_levels=levels[result.id],
            winner_name=result.winner_name,
            result=result.result,
            venues=list(dict.fromkeys(venues.get(v, "") for v in places[result.id])),
            match=result.match,
        )
        for result in results
    ]


def _average(game: str, figures: PlayerFigures) -> float | None:
    """The card chart's value of one result: the game's average (X01's
    three-dart average, Cricket's marks per round), else its highlight."""
    average = game_class(game).average
    if average is None:
        return figures.highlight
    return _per(getattr(figures, average.figure), figures.darts, 3)


def _awards(figures: Any) -> dict[str, int]:
    """A row's award counts by id, the awards thrown only, in the awards' order."""
    counts = ((str(award), int(getattr(figures, award_column(award)) or 0)) for award in Award)
    return {award: count for award, count in counts if count}


def _average_order(game: str, columns: Any) -> ColumnElement[float]:
    """A game's average per dart from a player's summed ``columns`` (points or
    marks over darts; -1 before the first dart): what the tables of a game
    that is ``ranked_by_average`` (Count-Up, Cricket Count-Up) rank by."""
    average = game_class(game).average
    assert average is not None, f"{game} is ranked by an average it does not have"
    per_dart = columns[average.figure] * 1.0 / func.nullif(columns.darts, 0)
    return func.coalesce(per_dart, -1.0)


def _rank_of(session: Session, game: str, ordinal: float, player_id: int) -> int:
    """A player's place in the game's all-time table: one more than the
    players rated higher (in a game ranked by its average, with a higher one)."""
    if game_class(game).ranked_by_average:
        mine = _average_order(game, PlayerTotal.__table__.c)
        theirs = select(mine).where(PlayerTotal.game == game, PlayerTotal.player_id == player_id)
        better = session.execute(
            select(func.count())
            .select_from(PlayerTotal)
            .where(PlayerTotal.game == game, mine > theirs.scalar_subquery())
        ).scalar_one()
        return int(better) + 1
    higher = session.execute(
        select(func.count())
        .select_from(PlayerRating)
        .where(PlayerRating.game == game, PlayerRating.ordinal > ordinal)
    ).scalar_one()
    return int(higher) + 1


def player_card(session: Session, name: str, venue: str | None = None) -> PlayerCard:
    """A player's figures per game (all time), rating and average history, and
    last results. Raises :class:`PlayerNotFoundError`."""
    player = _player(session, name, venue)
    venue_name = session.execute(select(Venue.name).where(Venue.id == player.venue_id))
    games = sorted(
        session.execute(
            select(PlayerFigures.game).where(PlayerFigures.player_id == player.id).distinct()
        ).scalars()
    )
    stats = []
    for game in games:
        (figures,) = _all_time(session, game, player=player.id)
        rank = _rank_of(session, game, float(figures.rating), player.id)
        stats.append(
            PlayerGameStats(game=game, row=_row(game, rank, figures), awards=_awards(figures))
        )
    history = [
        RatingPoint(game=game, at=at, rating=round(ordinal, 2))
        for game, at, ordinal in session.execute(
            select(Rating.game, Rating.at, Rating.ordinal)
            .where(Rating.player_id == player.id)
            .order_by(Rating.at, Rating.result_id, Rating.game)
        )
    ]
    played = session.execute(
        select(PlayerFigures, Result.result_id)
        .join(Result, Result.id == PlayerFigures.result_pk)
        .where(PlayerFigures.player_id == player.id)
        .order_by(PlayerFigures.finished_at, Result.result_id)
    ).all()
    averages = []
    for figures, result_id in played:
        value = _average(figures.game, figures)
        if value is not None:
            averages.append(
                AveragePoint(
                    game=figures.game, at=figures.finished_at, value=value, result_id=result_id
                )
            )
    recent = session.execute(
        select(Result)
        .join(PlayerFigures, PlayerFigures.result_pk == Result.id)
        .where(PlayerFigures.player_id == player.id)
        .order_by(Result.finished_at.desc(), Result.result_id.desc())
        .limit(RECENT_ON_CARD)
    ).scalars()
    soft_tip = player_soft_tip_rating(session, player.id)
    return PlayerCard(
        soft_tip_rating=None if soft_tip is None else SoftTipRatingCard(**asdict(soft_tip)),
        name=player.name,
        venue=venue_name.scalar_one(),
        games=stats,
        rating_history=history,
        average_history=averages,
        recent=_summaries(session, list(recent)),
    )


def result_detail(session: Session, result_id: str) -> ResultDetail:
    """One stored result with each player's line and its visits broken down.
    Raises :class:`ResultNotFoundError`."""
    result = session.execute(
        select(Result).where(Result.result_id == result_id)
    ).scalar_one_or_none()
    if result is None:
        raise ResultNotFoundError(_not_counted(session, result_id))
    (summary,) = _summaries(session, [result])
    lines = session.execute(
        select(PlayerFigures, Venue.name)
        .join(Venue, Venue.id == PlayerFigures.venue_id)
        .where(PlayerFigures.result_pk == result.id)
        .order_by(PlayerFigures.seat)
    ).all()
    return ResultDetail(
        **summary.model_dump(),
        options=dict(result.options),
        started_at=result.started_at,
        winner=result.winner,
        result_players=[
            ResultPlayer(
                name=line.name,
                team=line.team,
                score=line.score,
                won=line.won,
                darts=line.darts,
                highlight=line.highlight,
                legs_won=line.figure_value("legs_won"),
                legs_lost=line.figure_value("legs_lost"),
                venue=venue,
                board=line.board,
                cpu_level=line.cpu_level,
            )
            for line, venue in lines
        ],
        visits=[
            VisitBreakdown(
                player=player,
                darts=list(darts),
                points=points,
                marks=marks,
                bust=bust,
                score_after=score_after,
                leg=leg[0] if leg else 1,
            )
            for player, darts, points, marks, bust, score_after, *leg in result.visits
        ],
        match_format=result.match_format,
        legs=[LegSummary.model_validate(leg) for leg in result.match_legs or ()],
    )


_NOT_COUNTED = {
    "superseded": "its game has a later revision, result {by!r}",
    "replaced": "it was replaced by a later revision of its game, result {by!r}",
    "withdrawal": "it withdrew its game (reopened, then abandoned)",
    "withdrawn": "its game was withdrawn (reopened, then abandoned) by result {by!r}",
}
"""Why a result kept in ``superseded_results`` does not count, by its ``why``."""


def _not_counted(session: Session, result_id: str) -> str:
    """Why ``result_id`` is not a result that counts: unknown, or which later
    revision of its game took its place."""
    found = session.execute(
        select(Superseded.why, Superseded.superseded_by).where(Superseded.result_id == result_id)
    ).first()
    if found is None:
        return f"no result with id {result_id!r}"
    why, by = found
    return f"result {result_id!r} does not count: " + _NOT_COUNTED[why].format(by=by)


def _record(
    session: Session,
    game: str,
    label: str,
    measure: Any,
    higher_is_better: bool,
    condition: ColumnElement[bool] | None,
) -> RecordEntry | None:
    """The best single-result value of ``measure`` in ``game`` (the earliest
    one on a tie), or None when nobody has one."""
    figures = PlayerFigures
    query = (
        select(
            measure.label("value"),
            func.coalesce(Player.name, figures.name).label("player"),
            Result.result_id,
            figures.finished_at,
        )
        .select_from(figures)
        .join(Result, Result.id == figures.result_pk)
        .outerjoin(Player, Player.id == figures.player_id)
        .where(figures.game == game, measure.is_not(None), figures.cpu_level.is_(None))
    )
    if condition is not None:
        query = query.where(condition)
    order = measure.desc() if higher_is_better else measure.asc()
    best = session.execute(
        query.order_by(order, figures.finished_at, Result.result_id).limit(1)
    ).first()
    if best is None:
        return None
    return RecordEntry(
        game=game,
        label=label,
        player=best.player,
        value=float(best.value),
        result_id=best.result_id,
        at=best.finished_at,
    )


def _most(
    session: Session,
    column: str,
    label: str,
    condition: ColumnElement[bool] | None,
    game: str | None = None,
) -> RecordEntry | None:
    """Who had the most of the count ``column`` in the period (in ``game``,
    or in any game), with their latest game that had one; people's only."""
    figures = PlayerFigures
    count = figures.figure(column)
    where = [count > 0, figures.cpu_level.is_(None)]
    if game is not None:
        where.append(figures.game == game)
    if condition is not None:
        where.append(condition)
    who = func.coalesce(figures.player_id, -figures.id)
    totals = session.execute(
        select(
            who.label("who"),
            func.sum(count).label("total"),
            func.max(figures.finished_at).label("at"),
        )
        .where(*where)
        .group_by(who)
        .order_by(func.sum(count).desc(), func.max(figures.finished_at))
        .limit(1)
    ).first()
    if totals is None:
        return None
    latest = session.execute(
        select(func.coalesce(Player.name, figures.name), Result.result_id, figures.game)
        .select_from(figures)
        .join(Result, Result.id == figures.result_pk)
        .outerjoin(Player, Player.id == figures.player_id)
        .where(*where, who == totals.who, figures.finished_at == totals.at)
        .limit(1)
    ).one()
    return RecordEntry(
        game=latest[2],
        label=label,
        player=latest[0],
        value=float(totals.total),
        result_id=latest[1],
        at=float(totals.at),
    )


def _most_awards(session: Session, condition: ColumnElement[bool] | None) -> list[RecordEntry]:
    """For each award thrown in the period, who threw it most often."""
    found = []
    for award in Award:
        entry = _most(session, award_column(award), award.label, condition)
        if entry is not None:
            found.append(entry.model_copy(update={"award": str(award)}))
    return found


def records(
    session: Session, period: Period, venue: str | None = None, now: float | None = None
) -> Records:
    """The period's records: the highest X01 checkout, the best leg (fewest
    darts), the most 180s, each game's best highlight in one result, and who
    threw each award most often; people's only (a computer player's line is in none)."""
    condition = _in_period(
        session, period, venue, now, PlayerFigures.finished_at, PlayerFigures.venue_id
    )
    figures = PlayerFigures
    highlights = [
        entry
        for game in sorted(game_ids())
        if (highlight := game_class(game).highlight)
        and (
            entry := _record(
                session,
                game,
                highlight.label,
                figures.highlight,
                highlight.higher_is_better,
                condition,
            )
        )
        is not None
    ]
    return Records(
        period=period,
        venue=venue,
        highest_checkout=_record(
            session, X01.id, "highest checkout", figures.figure("highest_checkout"), True, condition
        ),
        best_leg=_record(
            session, X01.id, "best leg", figures.figure("leg_darts"), False, condition
        ),
        most_180s=_most(session, "count_180", "most 180s", condition, X01.id),
        highlights=highlights,
        most_awards=_most_awards(session, condition),
    )


def recent_results(
    session: Session, limit: int = 20, venue: str | None = None
) -> list[ResultSummary]:
    """The latest results (by when they finished), newest first; with a
    venue, those played there or with a player of it (remote matches)."""
    query = select(Result)
    if venue is not None:
        place = select(Venue.id).where(Venue.name == venue).scalar_subquery()
        query = query.where(
            or_(
                Result.venue_id == place,
                select(PlayerFigures.id)
                .where(PlayerFigures.result_pk == Result.id, PlayerFigures.venue_id == place)
                .exists(),
            )
        )
    latest = session.execute(
        query.order_by(Result.finished_at.desc(), Result.result_id.desc()).limit(max(0, limit))
    ).scalars()
    return _summaries(session, list(latest))


def rejected(session: Session, limit: int = 100) -> list[RejectedEntry]:
    """The latest payloads not counted (by when they arrived), newest first:
    refused by the rules, or failed (a fault of this service)."""
    rows = session.execute(
        select(
            Rejected.result_id,
            Rejected.board,
            Rejected.reason,
            Rejected.received_at,
            Rejected.status,
        )
        .order_by(Rejected.received_at.desc(), Rejected.id.desc())
        .limit(max(0, limit))
    )
    return [
        RejectedEntry.model_validate(
            {
                "result_id": result_id,
                "board": board,
                "reason": reason,
                "received_at": at,
                "status": status,
            }
        )
        for result_id, board, reason, at, status in rows
    ]


def venue_names(session: Session) -> list[str]:
    """Every venue with stored games, by name, A to Z in any case (what ``--venue`` may name)."""
    return sorted(session.execute(select(Venue.name)).scalars(), key=str.casefold)
