"""Each player's all-time figures per game (``player_totals``), kept beside the
results: a stored result adds its lines (sums added, bests kept), a rename or
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
from leaderboard.models import PlayerTotal, ResultPlayer

__all__ = ["LOWER_IS_BETTER", "SUMS", "add_lines", "figure_aggregates", "recount"]

SUMS = (
    "points",
    "darts",
    "first9_points",
    "first9_darts",
    "checkouts",
    "checkout_darts",
    "count_100",
    "count_140",
    "count_180",
    "marks",
    "count_5_marks",
    "count_7_marks",
    "count_9_marks",
)
"""The figures a total adds up (beside played and won)."""

LOWER_IS_BETTER = tuple(
    sorted(g for g in game_ids() if not game_class(g).highlight.higher_is_better)
)
"""Games whose highlight is best when lowest (Around the World's darts)."""


def _game_mpr(marks: Any, darts: Any) -> Any:
    return case((darts > 0, cast(marks, Float) * 3.0 / cast(darts, Float)), else_=None)


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
        *(func.sum(getattr(rows, name)).label(name) for name in SUMS),
        func.max(rows.highest_checkout).label("highest_checkout"),
        func.min(rows.leg_darts).label("best_leg_darts"),
        func.max(_game_mpr(rows.marks, rows.darts)).label("best_game_mpr"),
    ]


def _better(current: Any, new: Any, higher: bool) -> Any:
    """The better of two nullable values (SQL: portable, no GREATEST/LEAST)."""
    wins = new > current if higher else new < current
    return case((current.is_(None), new), (new.is_(None), current), (wins, new), else_=current)


def add_lines(session: Session, game: str, lines: Iterable[Mapping[str, Any]]) -> None:
    """Add one result's ``result_players`` rows (as inserted) to their players' totals."""
    values = [
        {
            "player_id": line["player_id"],
            "game": game,
            "played": 1,
            "won": 1 if line["won"] else 0,
            "highlight": line["highlight"],
            **{name: line[name] for name in SUMS},
            "highest_checkout": line["highest_checkout"],
            "best_leg_darts": line["leg_darts"],
            "best_game_mpr": (line["marks"] * 3.0 / line["darts"] if line["darts"] > 0 else None),
        }
        for line in lines
        if line["player_id"] is not None
    ]
    if values:
        dialect = session.get_bind().dialect.name
        session.execute(_totals_upsert(dialect, game not in LOWER_IS_BETTER), values)


@functools.cache
def _totals_upsert(dialect: str, higher: bool) -> Any:
    """The statement adding a line to a total (made once per dialect and direction)."""
    table = PlayerTotal.__table__
    assert isinstance(table, Table)
    statement = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
    new, total = statement.excluded, table.c
    return statement.on_conflict_do_update(
        index_elements=["player_id", "game"],
        set_={
            "played": total.played + new.played,
            "won": total.won + new.won,
            **{name: getattr(total, name) + getattr(new, name) for name in SUMS},
            "highlight": _better(total.highlight, new.highlight, higher),
            "highest_checkout": _better(total.highest_checkout, new.highest_checkout, True),
            "best_leg_darts": _better(total.best_leg_darts, new.best_leg_darts, False),
            "best_game_mpr": _better(total.best_game_mpr, new.best_game_mpr, True),
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
        names = ["player_id", "game", *(column.name for column in figure_aggregates(None))]
        session.execute(insert(PlayerTotal).from_select(names, grouped))
