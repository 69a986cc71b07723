"""What a cricket-family game says its last event did to the marks
(``MarksGame.marked``): the daemon's events carry it, so nobody compares states."""

from __future__ import annotations

from engine import new_game, parse_event
from engine.games.cricket import Marked, MarksGame


def play(game: MarksGame, tokens: str) -> None:
    game.push_all(parse_event(token) for token in tokens.split())


def marked_after(game_id: str, tokens: str) -> list[Marked | None]:
    """``marked`` after each token of ``tokens``, played by Ann and Bob."""
    game = new_game(game_id, ["Ann", "Bob"])
    assert isinstance(game, MarksGame)
    seen = []
    for token in tokens.split():
        game.push(parse_event(token))
        seen.append(game.marked)
    return seen


def test_a_cricket_dart_says_the_marks_it_scored_and_what_it_closed() -> None:
    assert marked_after("cricket", "S20 D20 T20 M S1 SB") == [
        Marked(1, ()),
        Marked(2, ("20",)),  # the third mark closes
        Marked(3, ()),  # Bob has the 20 open: the marks score
        Marked(0, ()),  # a miss
        Marked(0, ()),  # not a cricket number
        Marked(1, ()),
    ]


def test_a_visit_end_and_an_undo_in_cricket() -> None:
    # NEXT moves no marks: the last event is the visit's end, not a dart.
    assert marked_after("cricket", "T20 NEXT")[-1] is None
    # After an undo the last event of the log is the dart before.
    assert marked_after("cricket", "T19 T20 UNDO")[-1] == Marked(3, ("19",))


def test_a_team_closes_together() -> None:
    teams = {"A": ["Ann", "Cy"], "B": ["Bob", "Dee"]}
    game = new_game("cricket", ["Ann", "Bob", "Cy", "Dee"], teams=teams)
    assert isinstance(game, MarksGame)
    play(game, "S20 S20 M NEXT M M M NEXT S20")  # Ann's visit, Bob's, Cy's first dart
    assert game.marked == Marked(1, ("20",))  # Cy's single is the team's third mark


def test_dead_darts_after_a_win_move_no_marks() -> None:
    game = new_game("cricket", ["Ann"], {"mode": "no-score"})
    assert isinstance(game, MarksGame)
    play(game, "T20 T19 T18 T17 T16 T15 DB SB")
    assert game.is_finished
    assert game.marked == Marked(1, ("bull",))  # the SB closes the bull and wins
    game.push(parse_event("T20"))  # the last dart of the winning visit: dead
    assert game.marked is None


def test_cricket_shanghai_marks_at_the_end_of_the_visit() -> None:
    seen = marked_after("cricket-shanghai", "T20 D20 S20 NEXT M M M NEXT S19 D19")
    assert seen[:3] == [None, None, Marked(3, ("20",))]  # in any order within the visit
    assert seen[3] == seen[2]  # a NEXT that ends no visit is not an event of the log
    assert seen[4:8] == [None, None, Marked(0, ()), Marked(0, ())]  # Bob's visit
    assert seen[8:] == [None, None]  # a visit in progress has not been judged
    assert not MarksGame.marks_per_visit and new_game("cricket-shanghai", ["A"]).marks_per_visit
