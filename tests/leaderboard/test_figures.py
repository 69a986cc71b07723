"""The table of figures (``leaderboard.figures``) and what it makes: the columns
and row models made from it, the migrations that make the same columns, and
docs/leaderboard.md's steps for adding a statistic, followed in a process of
its own (``tests/leaderboard/new_statistic.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from engine import game_class, game_ids
from engine.traits import Family
from leaderboard.api_models import CricketRow, LeaderboardRow, X01Row
from leaderboard.database import Database
from leaderboard.figures import FIGURES, LINE_FIGURES, TOTAL_FIGURES, Aggregate, row_figures
from leaderboard.models import Base, PlayerTotal, ResultPlayer

BASE_LINE = {
    "id", "result_pk", "player_id", "seat", "name", "game", "venue_id", "board",
    "finished_at", "team", "score", "won", "placement", "darts", "highlight", "cpu_level",
}  # fmt: skip
BASE_TOTAL = {"player_id", "game", "played", "won", "highlight", "darts"}


def test_each_figure_a_result_stores_is_a_column_of_result_players() -> None:
    columns = {column.name for column in ResultPlayer.__table__.c}
    assert columns - BASE_LINE == {str(figure.column) for figure in LINE_FIGURES}


def test_each_kept_figure_is_a_column_of_player_totals() -> None:
    columns = {column.name for column in PlayerTotal.__table__.c}
    assert columns - BASE_TOTAL == {figure.name for figure in TOTAL_FIGURES}


def test_each_family_s_row_model_has_its_figures_in_the_table_s_order() -> None:
    base = list(LeaderboardRow.model_fields)
    for family, model in ((Family.COUNTDOWN, X01Row), (Family.MARKS, CricketRow)):
        added = list(model.model_fields)[len(base) :]
        assert added == [figure.name for figure in row_figures(family)]
    assert row_figures(Family.PLAIN) == ()


def test_a_ratio_is_of_figures_that_are_kept() -> None:
    kept = {figure.name for figure in TOTAL_FIGURES} | {"darts"}
    columns = {str(figure.column) for figure in LINE_FIGURES} | {"darts"}
    for figure in FIGURES:
        if figure.aggregate is Aggregate.PER:
            assert figure.ratio is not None and {figure.ratio.top, figure.ratio.bottom} <= kept
        elif figure.ratio is not None:  # a best of one result's ratio
            assert {figure.ratio.top, figure.ratio.bottom} <= columns


def test_an_average_is_a_figure_every_result_stores() -> None:
    columns = {str(figure.column) for figure in LINE_FIGURES}
    for game in game_ids():
        average = game_class(game).average
        if average is not None:
            assert average.figure in columns


FIGURE_TABLES = ("result_players", "player_totals")
REPO = Path(__file__).resolve().parents[2]


def test_the_migrations_make_the_figure_columns_the_models_make(database: Database) -> None:
    def of_figure_tables(item: Any, name: str | None, kind: str, *_: Any) -> bool:
        table = name if kind == "table" else item.table.name
        return table in FIGURE_TABLES

    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": of_figure_tables}
        )
        assert compare_metadata(context, Base.metadata) == []


def test_a_figure_is_read_by_name_only_if_it_is_one() -> None:
    assert ResultPlayer.figure("leg_darts") is ResultPlayer.leg_darts  # type: ignore[attr-defined]
    assert PlayerTotal.figure("best_leg_darts").key == "best_leg_darts"
    for model, name in ((ResultPlayer, "best_leg_darts"), (PlayerTotal, "darts")):
        try:
            model.figure(name)
        except KeyError as error:
            assert repr(name) in str(error)
        else:
            raise AssertionError(f"{model.__name__}.figure({name!r}) found a column")


def test_a_statistic_is_a_line_in_figures_and_a_migration(tmp_path: Path) -> None:
    """docs/leaderboard.md's steps, the walk's count left out (so ``count_60``
    stays 0): a line each in FIGURES, and the migration's columns. The columns,
    the row model, the stored lines, the kept totals and the period sums follow."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.leaderboard.new_statistic", str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    count = {"type": "INTEGER", "nullable": False}
    assert made["line_columns"] == {"count_60": {**count, "default": 0}, "best_game_average": None}
    assert made["total_columns"] == {
        "count_60": {**count, "default": None},
        "best_game_average": {"type": "FLOAT", "nullable": True, "default": None},
    }
    assert made["x01_row_fields"] == ["count_180", "count_60", "best_game_average"]
    assert sorted(made["migrated"]) == [
        ["add_column", "player_totals", "best_game_average"],
        ["add_column", "player_totals", "count_60"],
        ["add_column", "result_players", "count_60"],
    ]
    assert made["stored_count_60"] == [0, 0]
    for rows in (made["api_rows"], made["api_day_rows"]):
        by_player = {row["player"]: row for row in rows}
        assert {p: r["count_60"] for p, r in by_player.items()} == {"Ann": 0, "Bob": 0}
        # Ann's 6-dart 301 (150.5), Bob's 60 a visit: each a best of one game
        assert {p: r["best_game_average"] for p, r in by_player.items()} == {
            "Ann": 150.5,
            "Bob": 60.0,
        }
        assert list(by_player["Ann"])[-3:] == ["count_180", "count_60", "best_game_average"]
