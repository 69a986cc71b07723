"""A game started by another side than side 0 (``first_side``, a match's
leg): that side throws first, each round starts with it, round limits count
from it, an undo keeps it, and a log says it (``# first: 1``) so the leg
re-scores."""

from __future__ import annotations

import pytest

from engine import (
    UNDO,
    Bed,
    Game,
    GameLogError,
    LineupError,
    PickingGame,
    game_class,
    game_ids,
    new_game,
    parse_event,
)
from engine.game_log import format_game_log, log_first_side, parse_log_header, replay_log

M = Bed.parse("M")
VISIT_GAMES = [g for g in game_ids() if not issubclass(game_class(g), PickingGame)]
PICKING_GAMES = [g for g in game_ids() if issubclass(game_class(g), PickingGame)]


def two_sided(game_id: str, first_side: int = 1, **options: object) -> Game:
    sides = max(2, game_class(game_id).sides_range[0])
    return new_game(game_id, [f"P{i}" for i in range(sides)], options, first_side=first_side)


def misses(game: Game, visits: int) -> list[tuple[int, int]]:
    """(thrower, round) of each of ``visits`` visits of three misses."""
    seen = []
    for _ in range(visits):
        seen.append((game.current_player, game.round))
        for _ in range(3):
            game.push(M)
    return seen


@pytest.mark.parametrize("game_id", VISIT_GAMES)
def test_the_second_side_throws_first_and_rounds_start_with_it(game_id: str) -> None:
    game = two_sided(game_id)
    assert game.first_side == 1
    assert game.state()["current_player"] == 1
    assert misses(game, 5) == [(1, 1), (0, 1), (1, 2), (0, 2), (1, 3)]


@pytest.mark.parametrize("game_id", VISIT_GAMES)
def test_an_undo_keeps_the_first_side(game_id: str) -> None:
    game = two_sided(game_id)
    misses(game, 2)
    game.push(M)
    game.push(UNDO)
    assert game.first_side == 1 and (game.current_player, game.round) == (1, 2)
    assert game.state() == _replayed(game).state()


def _replayed(game: Game) -> Game:
    fresh = new_game(game.id, list(game.lineup.players), game.options, first_side=game.first_side)
    fresh.push_all(game.events)
    return fresh


@pytest.mark.parametrize("game_id", PICKING_GAMES)
def test_in_a_game_played_by_picking_the_first_side_deals_first(game_id: str) -> None:
    """Domino cribbage: the first side deals the first hand, so the other
    moves first (side 0 deals a game started as usual)."""
    assert two_sided(game_id, 0).state()["dealer"] == 0
    game = two_sided(game_id)
    assert game.state()["dealer"] == 1
    assert game.current_player == 0


@pytest.mark.parametrize(
    ("game_id", "options", "rounds"),
    [("x01", {"rounds": 2}, 2), ("cricket", {"rounds": 2}, 2), ("shanghai", {"rounds": 7}, 7)],
)
def test_a_round_limit_counts_from_the_first_side(
    game_id: str, options: dict[str, object], rounds: int
) -> None:
    game = new_game(game_id, ["Ann", "Bob"], options, first_side=1)
    misses(game, 2 * rounds - 1)
    assert not game.is_finished and game.current_player == 0
    misses(game, 1)
    assert game.is_finished and game.state()["result"] == "round-limit"


def test_baseball_s_inning_ends_with_the_side_before_the_first() -> None:
    game = two_sided("baseball", innings=1)
    for token in ["S1", "S1", "S1"]:
        game.push(parse_event(token))
    assert not game.is_finished  # side 0 still throws the inning
    misses(game, 1)
    assert game.is_finished and game.outcome() is not None
    assert game.state()["winner"] == 1


def test_english_cricket_s_first_side_bats_first() -> None:
    game = two_sided("english-cricket")
    assert [p["batting"] for p in game.state()["players"]] == [False, True]
    assert two_sided("english-cricket", 0).state()["players"][0]["batting"] is True


@pytest.mark.parametrize("bad", [2, -1, True, "1"])
def test_a_first_side_that_is_no_side_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(LineupError, match=repr(bad).replace("(", r"\(")):
        new_game("x01", ["Ann", "Bob"], first_side=bad)  # type: ignore[arg-type]


def test_a_log_says_which_side_threw_first_and_replays_with_it() -> None:
    game = two_sided("x01", start=301, out="straight")
    for token in ["T20", "T20", "T20", "M", "M", "M", "T20", "T11", "D14"]:
        game.push(parse_event(token))
    text = format_game_log(game)
    assert text.startswith("# first: 1\n")
    assert log_first_side(text) == 1
    again = replay_log(two_sided("x01", start=301, out="straight"), text)
    assert again.state() == game.state()
    with pytest.raises(GameLogError, match="first_side=1"):
        replay_log(two_sided("x01", 0, start=301, out="straight"), text)


def test_a_game_started_by_side_0_writes_its_log_as_before() -> None:
    game = two_sided("x01", 0)
    misses(game, 1)
    assert format_game_log(game) == "M M M\n"
    assert format_game_log(game, first=True) == "# first: 0\nM M M\n"
    assert log_first_side("M M M\n") is None


def test_an_export_header_keeps_the_first_side() -> None:
    text = (
        '# Oche journal game 7 on board "pub": finished\n'
        "# game: x01 (X01)\n"
        '# players: ["Ann", "Bob"]\n'
        "# first: 1\n"
        "M M M\n"
    )
    header = parse_log_header(text)
    assert header is not None and header.first_side == 1
    assert parse_log_header(text.replace("# first: 1\n", "")).first_side == 0  # type: ignore[union-attr]
    with pytest.raises(GameLogError, match="'one'"):
        parse_log_header(text.replace("first: 1", "first: one"))
