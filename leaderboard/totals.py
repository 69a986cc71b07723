"""Each player's all-time figures per game (``player_totals``), kept beside the
results: a stored result adds its lines (sums added, bests kept; the figures
of :data:`leaderboard.figures.FIGURES`), a rename or
forget counts the players it touched again from ``result_players``. The same
aggregates, over a period's rows, make the period tables in
:mod:`leaderboard.queries`."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Float, Table, case, cast, delete, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from engine import game_class, game_ids
from leaderboard.figures import TOTAL_FIGURES, Aggregate, Figure
from leaderboard.models import PlayerTotal, ResultPlayer

__all__ = ["LOWER_IS_BETTER", "add_lines", "figure_aggregates", "recount"]

LOWER_IS_BETTER = tuple(
    sorted(g for g in game_ids() if not game_class(g).highlight.higher_is_better)
)
"""Games whose highlight is best when lowest (Around the World's darts)."""


def _of_line(figure: Figure) -> ColumnElement[Any]:
    """A figure's value in one ``result_players`` row: its column, or the
    ratio of its columns (a best of one result's ratio: a game's MPR)."""
    rows = ResultPlayer.__table__.c
    if figure.column is not None:
        return rows[figure.column]
    ratio = figure.ratio
    assert ratio is not None
    top, bottom = rows[ratio.top], rows[ratio.bottom]
    scaled = cast(top, Float) * ratio.scale / cast(bottom, Float)
    return case((bottom > 0, scaled), else_=None)


def _aggregated(figure: Figure) -> ColumnElement[Any]:
    """A figure's aggregate over ``result_players`` rows, labelled as its total."""
    value = _of_line(figure)
    match figure.aggregate:
        case Aggregate.SUM:
            aggregate: ColumnElement[Any] = func.sum(value)
        case Aggregate.MAX:
            aggregate = func.max(value)
        case Aggregate.MIN:
            aggregate = func.min(value)
        case Aggregate.PER:
            raise ValueError(f"{figure.name} is worked out for a row, not kept")
    return aggregate.label(figure.name)


def figure_aggregates(game: str | None) -> list[ColumnElement[Any]]:
    """The aggregates of ``result_players`` rows, labelled as the columns of
    :class:`PlayerTotal`; grouped by game when ``game`` is None."""
    rows = ResultPlayer
    if game is None:
        highlight: Any = case(
            (rows.game.in_(LOWER_IS_BETTER), func.min(rows.highlight)),
            else_=func.max(rows.highlight),
        )
    else:
        highlight = (func.min if game in LOWER_IS_BETTER else func.max)(rows.highlight)
    return [
        func.count().label("played"),
        func.sum(case((rows.won, 1), else_=0)).label("won"),
        highlight.label("highlight"),
        func.sum(rows.darts).label("darts"),
        *(_aggregated(figure) for figure in TOTAL_FIGURES),
    ]


def _better(current: Any, new: Any, higher: bool) -> Any:
    """The better of two nullable values (SQL: portable, no GREATEST/LEAST)."""
    wins = new > current if higher else new < current
    return case((current.is_(None), new), (new.is_(None), current), (wins, new), else_=current)


def _added(figure: Figure, total: Any, new: Any) -> Any:
    """A kept total with a new result's aggregate added."""
    current, more = total[figure.name], new[figure.name]
    if figure.aggregate is Aggregate.SUM:
        return current + more
    return _better(current, more, figure.aggregate is Aggregate.MAX)


def add_lines(session: Session, game: str, lines: Iterable[Mapping[str, Any]]) -> None:
    """Add the ``result_players`` rows just inserted (``lines``, as inserted,
    all of ``game``) to their players' totals: their aggregates, added in SQL."""
    pks = sorted({line["result_pk"] for line in lines if line["player_id"] is not None})
    if not pks:
        return
    rows = ResultPlayer
    grouped = (
        select(rows.player_id, rows.game, *figure_aggregates(game))
        .where(rows.result_pk.in_(pks), rows.player_id.is_not(None))
        .group_by(rows.player_id, rows.game)
    )
    dialect = session.get_bind().dialect.name
    session.execute(
        _totals_upsert(dialect, game not in LOWER_IS_BETTER).from_select(_NAMES, grouped)
    )


_NAMES = [
    "player_id",
    "game",
    "played",
    "won",
    "highlight",
    "darts",
    *(f.name for f in TOTAL_FIGURES),
]


@functools.cache
def _totals_upsert(dialect: str, higher: bool) -> Any:
    """The statement adding a result's aggregates to the totals (made once per
    dialect and direction; ``from_select`` gives the rows)."""
    table = PlayerTotal.__table__
    assert isinstance(table, Table)
    statement = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
    new, total = statement.excluded, table.c
    return statement.on_conflict_do_update(
        index_elements=["player_id", "game"],
        set_={
            "played": total.played + new.played,
            "won": total.won + new.won,
            "darts": total.darts + new.darts,
            "highlight": _better(total.highlight, new.highlight, higher),
            **{f.name: _added(f, total, new) for f in TOTAL_FIGURES},
        },
    )


def recount(session: Session, player_ids: Iterable[int]) -> None:
    """Count the totals of ``player_ids`` again from their ``result_players`` rows."""
    ids = sorted(set(player_ids))
    for start in range(0, len(ids), 1000):
        chunk = ids[start : start + 1000]
        session.execute(delete(PlayerTotal).where(PlayerTotal.player_id.in_(chunk)))
        grouped = (
            select(ResultPlayer.player_id, ResultPlayer.game, *figure_aggregates(None))
            .where(ResultPlayer.player_id.in_(chunk))
            .group_by(ResultPlayer.player_id, ResultPlayer.game)
        )
        session.execute(insert(PlayerTotal).from_select(_NAMES, grouped))
