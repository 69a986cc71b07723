"""What every game shares: turns, team order, rounds, visits, dead darts, the
end of a game, undo and the outcome."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine import (
    END_VISIT,
    UNDO,
    Bed,
    Event,
    Game,
    GameOverError,
    NothingToUndoError,
    Outcome,
    new_game,
    parse_event,
)

M = Bed.parse("M")


def events(text: str) -> list[Event]:
    return [parse_event(token) for token in text.split()]


def play(game: Game, text: str) -> Game:
    game.push_all(events(text))
    return game


def throwers(game: Game, visits: int) -> list[int]:
    """Who throws each of the next ``visits`` visits (three misses each)."""
    order = []
    for _ in range(visits):
        order.append(game.current_player)
        play(game, "M M M")
    return order


def score(game: Game, player: int) -> int:
    value = game.state()["players"][player]["score"]
    assert isinstance(value, int)
    return value


# ---------------------------------------------------------------- turn order


@pytest.mark.parametrize("game_id", ["x01", "cricket", "cricket-shanghai"])
def test_three_players_take_turns_in_order(game_id: str) -> None:
    game = new_game(game_id, ["Ann", "Bob", "Cy"])
    assert throwers(game, 7) == [0, 1, 2, 0, 1, 2, 0]


def test_round_counter_goes_up_when_the_first_player_is_back() -> None:
    game = new_game("cricket", ["Ann", "Bob", "Cy"])
    rounds = []
    for _ in range(7):
        rounds.append(game.round)
        play(game, "M M M")
    assert rounds == [1, 1, 1, 2, 2, 2, 3]
    assert game.state()["round"] == 3


def test_single_player_round_goes_up_every_visit() -> None:
    game = new_game("cricket", ["Ann"])
    assert throwers(game, 3) == [0, 0, 0]
    assert game.round == 4


def test_teams_alternate_and_members_take_their_teams_visits_in_turn() -> None:
    game = new_game("x01", ["p0", "p1", "p2", "p3"], teams={"A": ["p0", "p2"], "B": ["p1", "p3"]})
    assert throwers(game, 9) == [0, 1, 2, 3, 0, 1, 2, 3, 0]


def test_unequal_teams_the_short_team_repeats_its_player() -> None:
    game = new_game("cricket", ["A1", "A2", "B1"], teams={"A": ["A1", "A2"], "B": ["B1"]})
    names = game.lineup.players
    assert [names[p] for p in throwers(game, 7)] == ["A1", "B1", "A2", "B1", "A1", "B1", "A2"]


def test_team_rounds_count_team_visits() -> None:
    game = new_game("cricket", ["A1", "A2", "B1"], teams={"A": ["A1", "A2"], "B": ["B1"]})
    rounds = []
    for _ in range(5):
        rounds.append(game.round)
        play(game, "M M M")
    assert rounds == [1, 1, 2, 2, 3]


def test_team_members_share_a_score() -> None:
    game = new_game(
        "x01",
        ["p0", "p1", "p2", "p3"],
        {"start": "301"},
        teams={"A": ["p0", "p2"], "B": ["p1", "p3"]},
    )
    play(game, "T20 T20 T20  S1 S1 S1  T20 M M")
    assert [score(game, p) for p in range(4)] == [61, 298, 61, 298]
    stats = [p["stats"] for p in game.state()["players"]]
    assert [s["darts"] for s in stats] == [3, 3, 3, 0]
    assert [s["visits"] for s in stats] == [1, 1, 1, 0]


# ------------------------------------------------------------------- visits


def test_a_visit_ends_by_itself_after_three_darts() -> None:
    game = new_game("x01", ["Ann", "Bob"])
    play(game, "S1 S2")
    assert game.current_player == 0
    assert game.visit == (Bed.parse("S1"), Bed.parse("S2"))
    play(game, "S3")
    assert game.current_player == 1
    assert game.visit == ()
    assert score(game, 0) == 501 - 6
    assert game.events == tuple(events("S1 S2 S3"))


@pytest.mark.parametrize("darts", ["S20", "S20 S20"])
def test_end_visit_after_one_or_two_darts_ends_the_visit_early(darts: str) -> None:
    game = new_game("x01", ["Ann", "Bob"])
    play(game, darts)
    game.end_visit()
    assert game.current_player == 1
    assert game.visit == ()
    assert game.events == (*events(darts), END_VISIT)
    state = game.state()
    assert state["players"][0]["stats"]["visits"] == 1
    assert state["players"][0]["stats"]["darts"] == len(darts.split())
    assert state["players"][0]["score"] == 501 - 20 * len(darts.split())


def test_end_visit_on_an_empty_visit_is_a_no_op_and_not_recorded() -> None:
    game = new_game("x01", ["Ann", "Bob"])
    before = game.state()
    game.end_visit()
    game.push(END_VISIT)
    assert game.state() == before
    assert game.events == ()
    play(game, "S1 S1 S1")  # Bob's turn, his visit is empty
    after_visit = game.state()
    game.end_visit()
    assert game.state() == after_visit
    assert game.current_player == 1
    assert game.events == tuple(events("S1 S1 S1"))


def test_end_visit_twice_ends_only_one_visit() -> None:
    game = new_game("cricket", ["Ann", "Bob", "Cy"])
    play(game, "S20 NEXT NEXT")
    assert game.current_player == 1
    assert game.events == (Bed.parse("S20"), END_VISIT)


def test_visit_never_holds_more_than_three_darts() -> None:
    game = new_game("cricket", ["Ann", "Bob"])
    for _ in range(10):
        game.dart(M)
        assert 0 <= len(game.visit) < 3


# -------------------------------------------------------------- dead darts


def test_darts_after_a_bust_stay_in_the_visit_but_do_not_score() -> None:
    game = new_game("x01", ["Ann"], {"start": "301"})
    play(game, "T20 T20 T20")  # 121 left
    play(game, "T20 T20")  # 61, then 1 left with double out: bust
    state = game.state()
    assert state["visit_over"] == "bust"
    assert state["players"][0]["score"] == 121
    assert game.visit == tuple(events("T20 T20"))
    play(game, "D10")  # dead: would leave 101 if it counted
    state = game.state()
    assert state["players"][0]["score"] == 121
    assert state["players"][0]["stats"]["darts"] == 5
    assert state["players"][0]["stats"]["visits"] == 2
    assert state["players"][0]["stats"]["points"] == 180
    assert game.events == tuple(events("T20 T20 T20 T20 T20 D10"))
    assert game.round == 3
    assert game.visit == ()


def test_a_bust_visit_can_be_ended_early_and_the_next_visit_scores_again() -> None:
    game = new_game("x01", ["Ann", "Bob"], {"start": "301"})
    play(game, "T20 T20 T20  M M M  T20 T20")  # Ann busts on 1
    assert game.state()["visit_over"] == "bust"
    assert game.current_player == 0
    game.end_visit()
    assert game.current_player == 1
    assert game.state()["visit_over"] is None
    play(game, "S20 M M  S20")
    assert score(game, 0) == 101
    assert score(game, 1) == 281


def test_dead_darts_are_shown_in_the_visit_of_the_state() -> None:
    game = new_game("x01", ["Ann"], {"start": "301"})
    play(game, "T20 T20 T20  T20 S20 M")  # 41 left
    play(game, "T20 S1")  # T20 busts at once, S1 is dead
    state = game.state()
    assert state["visit"] == ["T20", "S1"]
    assert state["visit_over"] == "bust"
    assert state["players"][0]["score"] == 41
    assert state["players"][0]["stats"]["darts"] == 7
    assert state["players"][0]["stats"]["visits"] == 3


# --------------------------------------------------------------- game over


def _ann_checks_out_on_first_dart() -> Game:
    game = new_game("x01", ["Ann", "Bob"], {"start": "301"})
    play(game, "T20 T20 T20  M M M  T19 T20 M  M M M  D2")
    return game


def test_after_a_win_darts_fill_the_final_visit_as_dead_then_game_over() -> None:
    game = _ann_checks_out_on_first_dart()
    assert game.is_finished
    assert game.state()["visit_over"] == "win"
    assert game.accepts_darts()
    won = game.state()
    play(game, "T20")
    assert game.accepts_darts()
    play(game, "S1")
    assert not game.accepts_darts()
    state = game.state()
    assert state["players"][0]["score"] == 0
    assert state["players"][0]["stats"]["darts"] == won["players"][0]["stats"]["darts"]
    assert state["visit"] == ["D2", "T20", "S1"]
    assert state["current_player"] == 0
    assert state["winner"] == 0
    with pytest.raises(GameOverError):
        game.dart(M)
    with pytest.raises(GameOverError):
        game.push(Bed.parse("T20"))
    assert game.state() == state
    assert game.events[-3:] == tuple(events("D2 T20 S1"))


def test_end_visit_after_a_win_closes_the_game() -> None:
    game = _ann_checks_out_on_first_dart()
    game.end_visit()
    assert not game.accepts_darts()
    assert game.events[-1] == END_VISIT
    with pytest.raises(GameOverError):
        game.dart(M)
    game.end_visit()  # closed already: nothing happens
    assert game.events[-2:] == (Bed.parse("D2"), END_VISIT)


def test_accepts_darts_while_the_game_is_on() -> None:
    game = new_game("cricket-shanghai", ["Ann"])
    assert game.accepts_darts()
    play(game, "S20 D20 T20 M M")
    assert game.accepts_darts()
    assert not game.is_finished


def test_win_on_third_dart_closes_at_once() -> None:
    game = new_game("x01", ["Ann"], {"start": "301"})
    play(game, "T20 T20 T20  T20 T11 D14")
    assert game.outcome() == Outcome(0, None, "checkout")
    assert not game.accepts_darts()
    with pytest.raises(GameOverError):
        game.dart(M)


# ------------------------------------------------------------------- undo


def state_after(game_id: str, players: Sequence[str], text: str, **options: str) -> dict:
    return play(new_game(game_id, players, options), text).state()


def test_undo_the_last_dart() -> None:
    game = play(new_game("x01", ["Ann", "Bob"]), "T20 S5")
    game.undo()
    assert game.state() == state_after("x01", ["Ann", "Bob"], "T20")
    assert game.events == (Bed.parse("T20"),)
    assert score(game, 0) == 441


def test_undo_across_a_visit_boundary_reopens_the_previous_visit() -> None:
    game = play(new_game("x01", ["Ann", "Bob"]), "T20 T20 S5")
    assert game.current_player == 1
    game.undo()
    assert game.current_player == 0
    assert game.visit == tuple(events("T20 T20"))
    assert score(game, 0) == 381
    play(game, "T20")
    assert score(game, 0) == 321
    assert game.current_player == 1


def test_undo_after_an_early_end_takes_back_the_dart_and_the_end() -> None:
    game = play(new_game("cricket", ["Ann", "Bob"]), "T20 NEXT")
    assert game.current_player == 1
    game.undo()
    assert game.events == ()
    assert game.current_player == 0
    assert game.state() == new_game("cricket", ["Ann", "Bob"]).state()


def test_undo_across_a_round_boundary() -> None:
    game = play(new_game("cricket", ["Ann", "Bob"]), "M M M  M M M")
    assert game.round == 2
    game.undo()
    assert game.round == 1
    assert game.current_player == 1


def test_undo_after_a_win_makes_the_game_unfinished_again() -> None:
    game = _ann_checks_out_on_first_dart()
    game.undo()
    assert not game.is_finished
    assert game.outcome() is None
    state = game.state()
    assert state["finished"] is False
    assert state["winner"] is None
    assert state["result"] is None
    assert state["visit_over"] is None
    assert state["players"][0]["score"] == 4
    play(game, "S2")
    assert score(game, 0) == 2
    assert not game.is_finished


def test_undo_after_the_final_visit_closed_reopens_it() -> None:
    game = _ann_checks_out_on_first_dart()
    play(game, "M M")
    assert not game.accepts_darts()
    game.undo()
    assert game.accepts_darts()
    assert game.is_finished
    play(game, "S20")
    assert game.visit == tuple(events("D2 M S20"))


def test_undo_after_a_bust_undoes_the_bust() -> None:
    game = play(new_game("x01", ["Ann"], {"start": "301"}), "T20 T20 T20  T20 T20")
    assert game.state()["visit_over"] == "bust"
    game.undo()
    state = game.state()
    assert state["visit_over"] is None
    assert state["players"][0]["score"] == 61
    play(game, "T7 D20")  # the visit is live again
    assert score(game, 0) == 0
    assert game.outcome() == Outcome(0, None, "checkout")


def test_undo_a_dead_dart_keeps_the_bust() -> None:
    game = play(new_game("x01", ["Ann"], {"start": "301"}), "T20 T20 T20  T20 T20 ")
    before = game.state()
    play(game, "M NEXT")
    game.undo()
    assert game.state() == before


def test_undo_on_a_fresh_game_raises() -> None:
    game = new_game("x01", ["Ann", "Bob"])
    with pytest.raises(NothingToUndoError):
        game.undo()
    with pytest.raises(NothingToUndoError):
        game.push(UNDO)
    assert game.state() == new_game("x01", ["Ann", "Bob"]).state()


def test_undo_everything_then_nothing_left() -> None:
    game = play(new_game("cricket", ["Ann", "Bob"]), "T20 S19 M  D18")
    for _ in range(4):
        game.undo()
    assert game.events == ()
    assert game.state() == new_game("cricket", ["Ann", "Bob"]).state()
    with pytest.raises(NothingToUndoError):
        game.undo()


def test_undo_as_an_event_matches_the_method() -> None:
    a = play(new_game("cricket", ["Ann", "Bob"]), "T20 S19 M  D18 UNDO UNDO")
    b = play(new_game("cricket", ["Ann", "Bob"]), "T20 S19")
    assert a.state() == b.state()
    assert a.events == b.events


# ----------------------------------------------------------------- outcome


def test_outcome_of_a_solo_checkout() -> None:
    game = _ann_checks_out_on_first_dart()
    outcome = game.outcome()
    assert outcome == Outcome(winner=0, team=None, reason="checkout")
    assert outcome is not None
    assert not outcome.is_draw
    state = game.state()
    assert (state["finished"], state["winner"], state["winner_team"], state["result"]) == (
        True,
        0,
        None,
        "checkout",
    )


def test_outcome_is_none_while_playing() -> None:
    game = play(new_game("x01", ["Ann", "Bob"]), "T20")
    assert game.outcome() is None
    assert not game.is_finished


def test_outcome_of_a_second_player_win() -> None:
    game = new_game("x01", ["Ann", "Bob"], {"start": "301", "out": "straight"})
    play(game, "M M M  T20 T20 T20  M M M  T20 T20 S1")
    assert game.outcome() == Outcome(1, None, "checkout")


def test_team_win_names_the_team_and_its_first_player() -> None:
    game = new_game(
        "x01",
        ["p0", "p1", "p2", "p3"],
        {"start": "301", "out": "straight"},
        teams={"A": ["p0", "p2"], "B": ["p1", "p3"]},
    )
    # B's players: p1 scores 180, p3 scores 121 and checks out.
    play(game, "M M M  T20 T20 T20  M M M  T20 T11 D14")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.team == 1
    assert outcome.winner == 1
    assert outcome.reason == "checkout"
    assert not outcome.is_draw
    assert game.state()["winner_team"] == 1


def test_round_limit_draw() -> None:
    game = new_game("x01", ["Ann", "Bob"], {"rounds": "2"})
    play(game, "T20 M M  T20 M M  M M M  M M M")
    outcome = game.outcome()
    assert outcome == Outcome(None, None, "round-limit")
    assert outcome is not None
    assert outcome.is_draw
    state = game.state()
    assert state["finished"] is True
    assert state["winner"] is None
    assert state["result"] == "round-limit"
    assert not game.accepts_darts()
    with pytest.raises(GameOverError):
        game.dart(M)


def test_round_limit_lowest_x01_score_wins() -> None:
    game = new_game("x01", ["Ann", "Bob"], {"rounds": "1"})
    play(game, "T20 M M  T19")
    assert not game.is_finished
    game.end_visit()
    assert game.outcome() == Outcome(0, None, "round-limit")


def test_round_limit_cricket_most_points_win() -> None:
    game = new_game("cricket", ["Ann", "Bob"], {"rounds": "1"})
    play(game, "T20 T20 M  T19 M M")
    assert game.outcome() == Outcome(0, None, "round-limit")
    assert game.state()["players"][0]["score"] == 60


def test_cricket_closed_all_is_the_reason() -> None:
    game = new_game("cricket", ["Ann"])
    play(game, "T20 T19 T18  T17 T16 T15  SB DB")
    assert game.outcome() == Outcome(0, None, "closed-all")


def test_cricket_shanghai_wins_at_the_end_of_the_visit() -> None:
    game = new_game("cricket-shanghai", ["Ann"])
    play(game, "S20 D20 T20  S19 D19 T19  S18 D18 T18  S17 D17 T17  S16 D16 T16")
    play(game, "S15 D15 T15  SB SB")
    assert not game.is_finished
    play(game, "DB")
    assert game.outcome() == Outcome(0, None, "closed-all")
    assert game.state()["players"][0]["score"] == 21


def test_last_visit_keeps_a_third_dart_bust_visible_after_the_turn_passed() -> None:
    game = play(new_game("x01", ["Ann", "Bob"], {"start": 301}), "T20 T20 T20  M M M")
    play(game, "T20 T20 T20")  # 121 - 180: the first T20 leaves 61, the second busts
    state = game.state()
    assert state["current_player"] == 1
    assert state["visit"] == []
    assert state["last_visit"] == {
        "player": 0,
        "darts": ["T20", "T20", "T20"],
        "visit_over": "bust",
        "awards": [],  # a bust earns nothing, though it was three in a bed
    }
    assert state["players"][0]["score"] == 121


def test_last_visit_is_null_until_a_visit_ends() -> None:
    game = play(new_game("cricket", ["Ann", "Bob"]), "T20 S19")
    assert game.state()["last_visit"] is None
    game.end_visit()
    assert game.state()["last_visit"] == {
        "player": 0,
        "darts": ["T20", "S19"],
        "visit_over": None,
        "awards": [],
    }


def test_can_undo_says_whether_a_dart_was_thrown() -> None:
    game = new_game("x01", ["Ann"])
    assert not game.can_undo()
    play(game, "S20 NEXT")
    assert game.can_undo()
    game.undo()
    assert not game.can_undo()
    with pytest.raises(NothingToUndoError):
        game.undo()


def test_round_limit_won_by_the_side_that_did_not_throw_last_is_game_over_for_the_visit() -> None:
    game = play(
        new_game("x01", ["Ann", "Bob"], {"start": 301, "rounds": 1}), "T20 T20 T20 S1 S1 S1"
    )
    state = game.state()
    assert state["winner"] == 0
    assert state["current_player"] == 1
    assert state["visit_over"] == "game-over"
