"""Re-scoring results from their logs (leaderboard/scoring.py): golden figures
worked out by hand for short X01 and Cricket games, documents that lie about
their game refused with a reason naming the lie, every registered game scored,
and X01's points adding up for any legal game (hypothesis).

Every document is made by the daemon's own session and result building
(tests/leaderboard/result_documents.py), so it is what a board publishes."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import ALL_BEDS, game_class, game_ids
from engine.x01_rules import RING_RULES
from firmware_bridge.daemon.game_session import GameSession, SessionSetup
from leaderboard.figures import LINE_FIGURES, Aggregate
from leaderboard.scoring import (
    MAX_LOG_BOUNCES,
    MAX_LOG_UNDOS,
    PlayerLine,
    RejectedResultError,
    VisitLine,
    score_result,
)
from mqtt_contract import Phase
from tests.daemon_harness import Running, Watcher, press, throw
from tests.leaderboard.result_documents import (
    PLAYED_GAMES,
    result_document,
    simulated_document,
)

# Ann: 180; 21; T20 T20 busts on 1 (double out); T20 D20 checks out 100.
# Bob: 60; 15; 171.
X01_MOVES = [
    "T20 T20 T20",
    "S20 S20 S20",
    "S20 S1 M",
    "S5 S5 S5",
    "T20 T20",
    "T19 T19 T19",
    "T20 D20",
]


def x01_document() -> dict[str, Any]:
    return result_document("x01", X01_MOVES, options={"start": 301})


def rejected(document: Any) -> str:
    with pytest.raises(RejectedResultError) as caught:
        score_result(document)
    return caught.value.reason


# ------------------------------------------------------------------ golden


def line_figures(**given: int | None) -> dict[str, int | None]:
    """A line's figures: ``given``, and 0 (a best: None) for every other one."""
    empty = {str(f.column): 0 if f.aggregate is Aggregate.SUM else None for f in LINE_FIGURES}
    assert set(given) <= set(empty)
    return {**empty, **given}


def test_an_x01_game_with_a_180_a_bust_and_a_100_checkout() -> None:
    scored = score_result(x01_document())
    assert (scored.game, scored.result, scored.winner) == ("x01", "checkout", 0)
    assert scored.options == {
        "start": 301,
        "in": "straight",
        "out": "double",
        "bull": "split",
        "rounds": 0,
        "checkout_sigma_mm": "none",
        "handicaps": "none",
    }
    ann, bob = scored.players
    assert ann == PlayerLine(
        index=0,
        name="Ann",
        team=None,
        score=0,
        won=True,
        placement=1,
        darts=10,  # 3 + 3 + 2 (the bust: its two darts count) + 2
        highlight=100.0,
        figures=line_figures(
            points=301,
            first9_points=201,  # 180 + 21 + 0 (the bust)
            first9_darts=8,
            checkout_darts=2,  # at 40 in the bust (second T20) and at 40 before D20
            checkouts=1,
            highest_checkout=100,
            leg_darts=10,
            count_100=1,
            count_140=0,
            count_180=1,
            legs_won=1,  # a single game is a match of one leg
            award_ton_80=1,  # T20 T20 T20
            award_low_ton=1,  # the T20 D20 out (the bust visit earns nothing)
        ),
    )
    assert bob == PlayerLine(
        index=1,
        name="Bob",
        team=None,
        score=55,
        won=False,
        placement=2,
        darts=9,
        highlight=None,
        figures=line_figures(
            points=246,
            first9_points=246,
            first9_darts=9,
            count_140=1,  # 171
            legs_lost=1,
            award_three_in_a_bed=3,  # S20 x3, S5 x3, T19 x3 (a bed before a High Ton)
        ),
    )
    assert scored.visits == (
        VisitLine(0, ("T20", "T20", "T20"), 180, 0, False, 121),
        VisitLine(1, ("S20", "S20", "S20"), 60, 0, False, 241),
        VisitLine(0, ("S20", "S1", "M"), 21, 0, False, 100),
        VisitLine(1, ("S5", "S5", "S5"), 15, 0, False, 226),
        VisitLine(0, ("T20", "T20"), 0, 0, True, 100),
        VisitLine(1, ("T19", "T19", "T19"), 171, 0, False, 55),
        VisitLine(0, ("T20", "D20"), 100, 0, False, 0),
    )


def test_checkout_darts_follow_the_out_rule() -> None:
    moves = ["T20 T20 T20", "M M M", "T20 S4 T19"]  # Ann 121: 61, 57, then T19
    master = score_result(
        result_document("x01", moves, options={"start": 301, "out": "master"})
    ).players[0]
    # 61 has no one-dart finish, 57 has (T19) under master out: one checkout dart.
    figures = master.figures
    assert (figures["checkout_darts"], figures["checkouts"], figures["highest_checkout"]) == (
        1,
        1,
        121,
    )
    assert figures["leg_darts"] == 6
    document = result_document(
        "x01", [*moves, "M M M"], options={"start": 301, "out": "double"}, finished=False
    )
    document.update(result="checkout", winner=0, winner_name="Ann")
    # Under double out the T19 busts and the game goes on: the claim is refused.
    assert "the log does not finish the game (Ann 121, Bob 301)" in rejected(document)


def test_a_cricket_game_counts_scoring_marks_and_not_dead_ones() -> None:
    document = result_document(
        "cricket",
        [
            "T20 T20 S19",  # Ann: closes 20, 3 more marks score 60, one 19: 7 marks
            "T20 T20 M",  # Bob: closes 20; the next T20 hits a dead 20: 3 marks
            "T19 T18 T17",  # Ann: 2 close 19 + 1 scores 19, 18 and 17 closed: 9 marks
            "T15 S15 S15",  # Bob: closes 15, two singles score 30: 5 marks
            "T16 T15 DB",  # Ann: 16 and 15 closed, the bull half: 8 marks
            "SB M M",  # Bob: 1 mark
            "SB",  # Ann closes the bull, everything closed and ahead: 1 mark
        ],
    )
    scored = score_result(document)
    assert (scored.result, scored.winner) == ("closed-all", 0)
    ann, bob = scored.players
    assert ann == PlayerLine(
        index=0,
        name="Ann",
        team=None,
        score=79,
        won=True,
        placement=1,
        darts=10,
        highlight=9.0,  # her best visit: 9 marks
        figures=line_figures(
            marks=25,
            count_7_marks=2,
            count_9_marks=1,
            legs_won=1,
            award_7_mark=1,  # T20 T20 S19
            award_white_horse=1,  # T19 T18 T17: the horse before its 9 marks
            award_8_mark=1,  # T16 T15 DB
        ),
    )  # and X01's figures stay empty
    assert bob == PlayerLine(
        index=1,
        name="Bob",
        team=None,
        score=30,
        won=False,
        placement=2,
        darts=9,
        highlight=5.0,
        figures=line_figures(marks=9, count_5_marks=1, legs_lost=1, award_5_mark=1),
    )
    assert [(v.player, v.points, v.marks, v.score_after) for v in scored.visits] == [
        (0, 60, 7, 60),
        (1, 0, 3, 0),
        (0, 19, 9, 79),
        (1, 30, 5, 30),
        (0, 0, 8, 79),
        (1, 0, 1, 30),
        (0, 0, 1, 79),
    ]


def test_cut_throat_cricket_credits_the_points_a_visit_gives_away() -> None:
    document = result_document(
        "cricket",
        ["T20 S20 M", "M M M", "T19 T18 T17", "M M M", "T16 T15 DB", "M M M", "SB"],
        options={"mode": "cut-throat"},
    )
    scored = score_result(document)
    assert (scored.winner, scored.result) == (0, "closed-all")  # all closed, fewest points
    first = scored.visits[0]
    assert (first.player, first.marks, first.points, first.score_after) == (0, 4, 20, 0)
    ann, bob = scored.players
    assert (ann.score, ann.figures["marks"], ann.placement) == (0, 22, 1)
    assert (bob.score, bob.figures["marks"], bob.placement) == (20, 0, 2)


def test_team_members_share_the_side_s_placement_and_the_thrower_owns_the_checkout() -> None:
    document = result_document(
        "x01",
        ["T20 T20 T20", "M M M", "T20 T11 D14"],  # Ann 180, Bob 0, Cy checks out 121
        players=["Ann", "Bob", "Cy", "Dee"],
        teams={"Reds": ["Ann", "Cy"], "Blues": ["Bob", "Dee"]},
        options={"start": 301},
    )
    ann, bob, cy, dee = score_result(document).players
    assert [p.team for p in (ann, bob, cy, dee)] == [0, 1, 0, 1]
    assert [p.placement for p in (ann, bob, cy, dee)] == [1, 2, 1, 2]
    assert [p.won for p in (ann, bob, cy, dee)] == [True, False, True, False]
    assert (ann.figures["points"], cy.figures["points"]) == (180, 121)
    assert (ann.figures["checkouts"], cy.figures["checkouts"]) == (0, 1)
    assert cy.figures["highest_checkout"] == 121
    assert cy.figures["leg_darts"] is None  # a team's leg is no one player's best leg
    assert (dee.darts, dee.score) == (0, 301)


def test_a_draw_places_the_tied_players_first_and_nobody_wins() -> None:
    document = result_document(
        "x01",
        ["S20 M M", "S20 M M", "S1 M M"],
        players=["Ann", "Bob", "Cy"],
        options={"start": 301, "rounds": 1},
    )
    scored = score_result(document)
    assert (scored.winner, scored.result) == (None, "round-limit")
    assert [(p.won, p.placement) for p in scored.players] == [(False, 1), (False, 1), (False, 3)]


def test_players_knocked_out_later_place_higher() -> None:
    # lives 1: Ann picks 1, Bob 2, Cy 3; Ann's D1 makes her a killer, D2 puts
    # Bob out, D3 Cy, in the same visit: Cy outlasted Bob by a dart.
    document = result_document(
        "killer",
        ["S1", "S2", "S3", "D1 D2 D3"],
        players=["Ann", "Bob", "Cy"],
        options={"lives": 1},
    )
    ann, bob, cy = score_result(document).players
    assert (ann.placement, cy.placement, bob.placement) == (1, 2, 3)
    assert (ann.highlight, bob.highlight, cy.highlight) == (2.0, 0.0, 0.0)  # lives taken


# ---------------------------------------------------------------- tampering


def test_a_wrong_winner_is_refused_naming_both() -> None:
    document = x01_document()
    document["winner"], document["winner_name"] = 1, "Bob"
    assert rejected(document) == "the log gives winner 0 (Ann), the result claims 1 (Bob)"


def test_a_winner_name_that_is_not_the_winner_s_is_refused() -> None:
    document = x01_document()
    document["winner_name"] = "Bob"
    assert rejected(document) == "the result names the winner 'Bob', the log's winner is 0 (Ann)"


def test_a_name_no_board_takes_is_refused() -> None:
    document = x01_document()
    document["players"][1]["name"] = "Bob\x07"
    assert "player name 'Bob\\x07' contains a control character (U+0007)" in rejected(document)
    document["players"][1]["name"] = "ann"
    assert "player name 'ann' is given twice" in rejected(document)


def test_a_wrong_final_score_is_refused() -> None:
    document = x01_document()
    document["players"][1]["score"] = 0
    assert rejected(document) == "the log gives Bob a final score of 55, the result claims 0"


def test_a_wrong_way_of_ending_is_refused() -> None:
    document = x01_document()
    document["result"] = "round-limit"
    assert "'checkout'" in rejected(document) and "'round-limit'" in rejected(document)


def test_a_bad_token_in_the_log_is_refused_naming_line_and_token() -> None:
    document = x01_document()
    document["log"] = document["log"].replace("S5 S5 S5", "S5 X5 S5")
    reason = rejected(document)
    assert reason.startswith("the log does not replay: line 4, 'X5'")


def test_a_dart_after_the_game_is_over_is_refused() -> None:
    document = x01_document()
    document["log"] += "S1\n"
    assert "line 8, 'S1'" in rejected(document) and "over" in rejected(document)


def test_a_log_that_does_not_finish_the_game_is_refused() -> None:
    document = x01_document()
    document["log"] = "".join(document["log"].splitlines(keepends=True)[:-1])
    reason = rejected(document)
    assert reason.startswith("the log does not finish the game (Ann 100, Bob 55)")
    assert "winner 0 (Ann)" in reason


def test_an_abandoned_game_is_not_a_result() -> None:
    """end_game publishes no result; a document claiming 'ended' is refused."""
    document = result_document("x01", ["T20 T20 T20"], finished=False)
    document.update(result="ended", winner=None, winner_name=None)
    reason = rejected(document)
    assert "does not finish" in reason and "abandoned with end_game" in reason


def test_an_unknown_game_is_refused_with_the_engine_s_words() -> None:
    document = x01_document()
    document["game"] = "darts-golf"
    assert "unknown game 'darts-golf'; the games are: x01, cricket" in rejected(document)


def test_bad_options_are_refused() -> None:
    document = x01_document()
    document["options"]["start"] = 302
    assert "option 'start': 302 is not one of 301, 401" in rejected(document)
    document["options"] = {"start": 301, "bounce_out": True}
    assert "x01 has no option 'bounce_out'" in rejected(document)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["players"][0].update(score="zero"), "$.players[0].score"),
        (lambda d: d.pop("finished_at"), "'finished_at' is a required property"),
        (lambda d: d.update(players=[]), "$.players"),
        (lambda d: d.update(winner=-1), "$.winner"),
        (lambda d: d.update(result_id=""), "$.result_id"),
    ],
    ids=["score-type", "finished-at", "no-players", "winner", "empty-id"],
)
def test_a_schema_invalid_result_is_refused_naming_the_field(change: Any, named: str) -> None:
    document = x01_document()
    change(document)
    reason = rejected(document)
    assert reason.startswith("the result does not match the result schema at ")
    assert named in reason


def test_a_result_without_a_log_is_refused() -> None:
    document = x01_document()
    del document["log"]
    assert rejected(document) == "the result has no log, so it cannot be re-scored"


def test_not_an_object_and_a_time_that_is_not_a_time_are_refused() -> None:
    assert rejected([1, 2]) == "the result is a JSON list, not an object"
    document = x01_document()
    document["finished_at"] = math.nan
    assert rejected(document) == "finished_at is nan, not a time"


def test_teams_that_contradict_the_players_are_refused() -> None:
    document = result_document(
        "x01",
        ["T20 T20 T20", "M M M", "T20 T11 D14"],
        players=["Ann", "Bob", "Cy", "Dee"],
        teams={"Reds": ["Ann", "Cy"], "Blues": ["Bob", "Dee"]},
        options={"start": 301},
    )
    document["players"][2]["team"] = 1
    assert rejected(document) == (
        "player 2 (Cy) is in team 0 by the teams list, the result says team 1"
    )
    document["players"][2]["team"] = 0
    document["teams"][1]["players"] = [1, 2]
    assert "is in teams 'Reds' and 'Blues'" in rejected(document)


def test_a_log_full_of_undos_is_refused_unplayed() -> None:
    document = x01_document()
    document["log"] = "S1 UNDO\n" * (MAX_LOG_UNDOS + 1) + document["log"]
    assert f"{MAX_LOG_UNDOS + 1} UNDO tokens" in rejected(document)


def test_a_few_undos_replay_like_oche_replay() -> None:
    document = x01_document()
    document["log"] = "T20 T20 S1 UNDO T20\n" + document["log"].split("\n", 1)[1]
    assert score_result(document).players[0].figures["points"] == 301


def test_a_bounced_out_checkout_is_re_scored_as_the_miss_it_was() -> None:
    # Ann's D20 for the game bounces out (a miss, the game goes on); she
    # checks out with her next visit. Bob: 60, then 15.
    moves = ["T20 T20 T20", "S20 S20 S20", "T20 T7 D20 BOUNCE", "S5 S5 S5", "D20"]
    document = result_document("x01", moves, options={"start": 301})
    assert document["log"] == "T20 T20 T20\nS20 S20 S20\nT20 T7 D20 BOUNCE\nS5 S5 S5\nD20\n"
    ann_stats = document["players"][0]["stats"]
    assert (ann_stats["darts"], ann_stats["bounce_outs"]) == (7, 1)
    scored = score_result(document)
    assert (scored.result, scored.winner) == ("checkout", 0)
    ann = scored.players[0]
    figures = ann.figures
    assert (ann.darts, figures["points"], figures["leg_darts"], figures["checkouts"]) == (
        7,
        301,
        7,
        1,
    )
    assert figures["highest_checkout"] == 40
    # At 40 with the bounced D20 and again with the D20 that won: two checkout darts.
    assert figures["checkout_darts"] == 2
    assert scored.visits[2] == VisitLine(0, ("T20", "T7", "M"), 81, 0, False, 40)


def test_a_log_full_of_bounces_is_refused_unplayed() -> None:
    document = x01_document()
    document["log"] = (
        "S1 BOUNCE S1 BOUNCE S1 BOUNCE\n" * (MAX_LOG_BOUNCES // 3 + 1) + document["log"]
    )
    assert "BOUNCE tokens, more than" in rejected(document)


def test_the_error_carries_the_result_id_and_the_document_is_left_as_it_was() -> None:
    document = x01_document()
    document["winner"] = 1
    before = copy.deepcopy(document)
    with pytest.raises(RejectedResultError) as caught:
        score_result(document)
    assert caught.value.result_id == document["result_id"]
    assert document == before


# ------------------------------------------------------------- every game


def test_every_registered_game_has_a_played_game() -> None:
    assert set(PLAYED_GAMES) == set(game_ids())


@pytest.mark.parametrize("game", game_ids())
def test_every_game_scores_from_its_log(game: str) -> None:
    document = PLAYED_GAMES[game]()
    scored = score_result(document)
    assert scored.game == game and scored.winner == 0
    winner = scored.players[0]
    assert (winner.won, winner.placement) == (True, 1)
    assert winner.highlight is not None, game_class(game).highlight
    assert all(p.placement > 1 and not p.won for p in scored.players[1:])
    if game == "domino-cribbage":  # a dart picks a tile: darts are picks
        picks = [v.player for v in scored.visits if v.darts != ("NEXT",)]
        assert [p.darts for p in scored.players] == [picks.count(0), picks.count(1)]
    else:  # counted apart from the engine's own stats, and agreeing with them
        published = [p["stats"]["darts"] for p in document["players"]]
        assert [p.darts for p in scored.players] == published
    assert [p.score for p in scored.players] == [p["score"] for p in document["players"]]


@pytest.mark.parametrize("game", ["x01", "cricket"])
def test_whole_simulated_games_agree_with_the_daemon_s_own_stats(game: str) -> None:
    for seed in range(20):
        document = simulated_document(game, seed)
        scored = score_result(document)
        for line, published in zip(scored.players, document["players"], strict=True):
            stats = published["stats"]
            assert line.darts == stats["darts"]
            if game == "x01":
                assert line.figures["points"] == stats["points"]
            else:
                assert line.figures["marks"] == stats["marks"]


# -------------------------------------------------------------- hypothesis

_BEDS = st.sampled_from(ALL_BEDS)


@st.composite
def x01_games(draw: st.DrawFn) -> dict[str, Any]:
    """A legal X01 game of random darts, to its end: a round limit ends it."""
    players = draw(st.sampled_from([["Ann"], ["Ann", "Bob"], ["Ann", "Bob", "Cy", "Dee"]]))
    teams = None
    if len(players) == 4 and draw(st.booleans()):
        teams = {"Reds": ["Ann", "Cy"], "Blues": ["Bob", "Dee"]}
    options = {
        "start": draw(st.sampled_from([301, 501])),
        "in": draw(st.sampled_from(RING_RULES)),
        "out": draw(st.sampled_from(RING_RULES)),
        "rounds": draw(st.integers(1, 8)),
    }
    session = GameSession(SessionSetup("x01", options, players, teams))
    moves: list[str] = []
    while not session.game.is_finished:
        visit: list[str] = []
        for bed in draw(st.lists(_BEDS, min_size=3, max_size=3)):
            for event in session.plan_manual_dart(bed):
                session.apply(event, 0.0)
            visit.append(bed.notation)
            if session.phase != Phase.THROWING:
                break
        moves.append(" ".join(visit))
        if session.phase != Phase.FINISHED:
            for event in session.plan_next():
                session.apply(event, 0.0)
    return result_document("x01", moves, players=players, options=options, teams=teams)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(x01_games())
def test_x01_points_add_up_to_the_start_minus_the_final_score(document: dict[str, Any]) -> None:
    scored = score_result(document)
    start = scored.options["start"]
    sides: dict[int, list[PlayerLine]] = {}
    for line in scored.players:
        sides.setdefault(line.index if line.team is None else line.team, []).append(line)
    for members in sides.values():
        assert sum(int(m.figures["points"] or 0) for m in members) == start - members[0].score
    for line in scored.players:
        own = [v for v in scored.visits if v.player == line.index]
        assert sum(v.points for v in own) == line.figures["points"]
        figures = line.figures
        assert int(figures["first9_darts"] or 0) <= line.darts
        assert int(figures["first9_points"] or 0) <= int(figures["points"] or 0)
        assert all(0 <= v.points <= 180 for v in own)
        assert all(v.points == 0 for v in own if v.bust)
        assert line.darts == document["players"][line.index]["stats"]["darts"]
    assert any(line.placement == 1 for line in scored.players)


# ---------------------------------------------------------- a real board's


async def test_a_result_a_running_daemon_published_scores(
    running: Running, watcher: Watcher
) -> None:
    """A whole game on a (pty) board through the daemon and a real Mosquitto:
    the result it publishes is scored as it arrives."""
    await watcher.state_where(lambda s: s["board"]["connected"])
    await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann", "Bob"]}
    )
    for visit in (["T20", "T20", "T20"], ["S1", "S1", "S1"]):
        await throw(running.board, *visit)
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        await press(running.board, 0)  # NEXT
        await watcher.state_where(lambda s: s.get("phase") == "throwing")
    await throw(running.board, "T20", "T11", "D14")
    document = await watcher.wait_for("result", lambda p: isinstance(p, dict))
    scored = score_result(document)
    assert scored.result_id == document["result_id"] and scored.board == "board1"
    ann, bob = scored.players
    figures = ann.figures
    assert (
        ann.won,
        figures["points"],
        ann.darts,
        figures["highest_checkout"],
        figures["count_180"],
    ) == (
        True,
        301,
        6,
        121,
        1,
    )
    assert (bob.won, bob.figures["points"], bob.darts) == (False, 3, 3)
    # The documents the other tests score are the same, but for id and times.
    made = result_document(
        "x01", ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"], options={"start": 301}
    )
    for key in ("result_id", "game_key", "started_at", "finished_at"):
        del made[key], document[key]
    assert made == document


# ------------------------------------------------------------------ fuzzing

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
_TOKENS = ["T20", "D20", "S1", "DB", "SB", "M", "NEXT", "UNDO", "X9", "#", "\n", "\n\n"]
_PLACES: list[tuple[str | int, ...]] = [
    ("result_id",),
    ("board",),
    ("game",),
    ("options",),
    ("options", "start"),
    ("options", "out"),
    ("players",),
    ("players", 0),
    ("players", 0, "name"),
    ("players", 1, "score"),
    ("players", 1, "team"),
    ("teams",),
    ("winner",),
    ("winner_name",),
    ("winner_team",),
    ("result",),
    ("started_at",),
    ("finished_at",),
]


_UNDAMAGED = x01_document()


@settings(max_examples=150, deadline=None)
@given(
    place=st.sampled_from(_PLACES),
    value=_JSON,
    log=st.none() | st.lists(st.sampled_from(_TOKENS), max_size=40).map(" ".join),
)
def test_any_damaged_document_is_scored_or_refused_never_a_crash(
    place: tuple[str | int, ...], value: Any, log: str | None
) -> None:
    document: Any = copy.deepcopy(_UNDAMAGED)
    if log is not None:
        document["log"] = log
    *parents, last = place
    target = document
    for key in parents:
        target = target[key]
    target[last] = value
    try:
        score_result(document)
    except RejectedResultError as error:
        assert error.reason and "\n" not in error.reason
