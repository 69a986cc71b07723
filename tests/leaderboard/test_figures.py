"""The table of figures (``leaderboard.figures``) and what it makes agree with
the columns and row models declared beside it: a statistic added to the table
without its column or row field (or the other way round) fails here."""

from __future__ import annotations

from engine import game_class, game_ids
from engine.traits import Family
from leaderboard.api_models import CricketRow, LeaderboardRow, X01Row
from leaderboard.figures import FIGURES, LINE_FIGURES, TOTAL_FIGURES, Aggregate, row_figures
from leaderboard.models import PlayerTotal, ResultPlayer

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
