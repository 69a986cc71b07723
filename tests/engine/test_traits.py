"""What each game says of itself for the clients (``engine.traits``): every
registered game has a highlight, and the options and figures the others
name are really the game's (tests/leaderboard measures every highlight)."""

from __future__ import annotations

import pytest

from engine import game_class, game_ids
from engine.traits import Family, Highlight, Measure


@pytest.mark.parametrize("game", game_ids())
def test_every_game_has_a_highlight(game: str) -> None:
    highlight = game_class(game).highlight
    assert isinstance(highlight, Highlight) and highlight.label


@pytest.mark.parametrize("game", game_ids())
def test_a_round_limit_option_is_an_option_of_the_game(game: str) -> None:
    cls = game_class(game)
    if cls.round_limit_option is not None:
        assert cls.round_limit_option in {option.name for option in cls.options_spec}


@pytest.mark.parametrize("game", game_ids())
def test_an_average_is_of_the_figures_its_family_counts(game: str) -> None:
    cls = game_class(game)
    if cls.average is not None:
        assert cls.family is not Family.PLAIN
        assert cls.average.figure in ("points", "marks")


def test_a_highlight_names_a_stat_exactly_when_it_measures_one() -> None:
    with pytest.raises(ValueError):
        Highlight("most runs", Measure.STAT)
    with pytest.raises(ValueError):
        Highlight("highest visit", Measure.BEST_VISIT_TOTAL, "points")
