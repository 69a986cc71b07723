"""A league's pure rules (leaderboard/league_rules.py): the team-match format
as ``--format`` texts, the default line-up, a fixture's score from its
games, and the standings: their figures, points and tie-breaks, and, for
any season, that the points add up and each fixture counts once per team."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import MatchFormat
from leaderboard.league_rules import (
    FixtureScore,
    GameKind,
    GameScore,
    LeagueRuleError,
    PointsRules,
    TeamMatchFormat,
    default_lineup,
    fixture_score,
    parse_format_game,
    parse_legs,
    standings,
)


def test_a_format_text_gives_the_game_its_options_and_its_match() -> None:
    (game,) = parse_format_game("singles:x01:legs=2:start=501:out=double")
    assert game.kind is GameKind.SINGLES
    assert game.game == "x01"
    assert game.options == {"start": 501, "out": "double"}
    assert game.match == MatchFormat(legs=2)
    pairs = parse_format_game("2*pairs:cricket:legs=3:decider=cork")
    assert len(pairs) == 2 and pairs[0].kind.players == 2
    assert pairs[0].match.decider is not None and pairs[0].match.decider.value == "cork"


def test_an_ndl_like_night_round_trips_through_json() -> None:
    night = TeamMatchFormat.parse(
        ["4*singles:x01:start=501:legs=2", "2*pairs:x01:start=701:legs=2", "singles:cricket:legs=2"]
    )
    assert [game.kind.value for game in night.games] == ["singles"] * 4 + ["pairs"] * 2 + [
        "singles"
    ]
    assert TeamMatchFormat.from_json(night.to_json()) == night
    assert night.players_needed() == 2


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("triples:x01:legs=2", "the kind must be one of singles, pairs, not 'triples'"),
        ("singles:darts501:legs=2", "'darts501' is not a game"),
        ("singles:x01", "say how many legs"),
        ("singles:x01:legs=two", "legs must be a whole number"),
        ("singles:x01:legs=0", 'match "legs" must be an integer from 1'),
        ("singles:x01:legs=2:colour=red", "x01 has no option 'colour'"),
        ("singles:x01:legs=2:legs=3", "'legs' is given twice"),
        ("singles:x01:legs=2:start", "'start' is not KEY=VALUE"),
        ("0*singles:x01:legs=2", "the repeat before '*'"),
        ("x01", "KIND:GAME"),
    ],
)
def test_a_bad_format_text_is_refused_naming_what_is_wrong(spec: str, named: str) -> None:
    with pytest.raises(LeagueRuleError, match="--format") as refused:
        parse_format_game(spec)
    assert named in str(refused.value)


def test_the_default_lineup_takes_the_team_in_order_and_starts_again() -> None:
    night = TeamMatchFormat.parse(["4*singles:x01:legs=2", "pairs:x01:legs=2"])
    assert default_lineup(["Ann", "Bob", "Cy"], night.games) == [
        ("Ann",),
        ("Bob",),
        ("Cy",),
        ("Ann",),
        ("Bob", "Cy"),
    ]
    with pytest.raises(LeagueRuleError, match="a pairs game needs 2 players"):
        default_lineup(["Ann"], night.games)


def test_a_hand_result_s_legs_fit_the_match() -> None:
    assert parse_legs("2-1", MatchFormat(legs=2)) == (2, 1)
    for bad in ("2-2", "1-0", "3-1", "2", "a-b"):
        with pytest.raises(LeagueRuleError, match=f"--legs {bad!r}"):
            parse_legs(bad, MatchFormat(legs=2))
    assert parse_legs("7-5", MatchFormat(legs=3, sets=2)) == (7, 5)


def test_a_fixture_counts_games_and_legs_and_waits_for_every_game() -> None:
    played = [GameScore(0, 2, 1), GameScore(1, 0, 2), GameScore(0, 2, 0)]
    score = fixture_score(played)
    assert (score.home_games, score.away_games, score.home_legs, score.away_legs) == (2, 1, 4, 3)
    assert score.complete and score.winner == 0
    assert not fixture_score([*played[:2], None]).complete
    assert fixture_score([*played[:2], None]).winner is None


def test_standings_count_a_win_a_draw_and_break_ties_by_games_then_legs() -> None:
    teams = ["Lions", "Tigers", "Bears", "Wolves"]
    fixtures = [
        (1, "Lions", "Tigers", fixture_score([GameScore(0, 2, 1)] * 2 + [GameScore(1, 1, 2)])),
        (2, "Bears", "Wolves", fixture_score([GameScore(0, 2, 0)] * 3)),
        (3, "Lions", "Bears", fixture_score([GameScore(0, 2, 1), GameScore(1, 0, 2)])),
        (4, "Tigers", "Wolves", fixture_score([GameScore(0, 2, 1), None])),  # not finished
    ]
    table = standings(teams, fixtures, PointsRules())
    assert [(row.team, row.rank) for row in table] == [
        ("Bears", 1),
        ("Lions", 2),
        ("Tigers", 3),
        ("Wolves", 4),
    ]
    bears, lions, tigers, wolves = table
    assert (bears.played, bears.won, bears.drawn, bears.lost, bears.points) == (2, 1, 1, 0, 3)
    assert (lions.played, lions.won, lions.drawn, lions.lost, lions.points) == (2, 1, 1, 0, 3)
    # Equal on points: Bears' game difference (+3) beats Lions' (+1).
    assert (bears.games_for, bears.games_against) == (4, 1)
    assert (lions.games_for, lions.games_against) == (3, 2)
    assert (tigers.legs_for, tigers.legs_against) == (4, 5)
    assert wolves.played == 2 - 1  # the unfinished fixture does not count yet


def test_teams_equal_on_every_tie_break_share_a_rank() -> None:
    even = fixture_score([GameScore(0, 2, 1), GameScore(1, 1, 2)])
    table = standings(["B", "A"], [(1, "A", "B", even)], PointsRules(win=3, draw=1))
    assert [(row.team, row.rank, row.points) for row in table] == [("A", 1, 1), ("B", 1, 1)]


def test_a_per_game_point_is_added_to_the_fixture_s_points() -> None:
    score = fixture_score([GameScore(0, 2, 0)] * 2 + [GameScore(1, 0, 2)])
    table = standings(["A", "B"], [(1, "A", "B", score)], PointsRules(win=2, per_game=1))
    assert {row.team: row.points for row in table} == {"A": 4, "B": 1}


def test_bad_rules_and_fixtures_are_refused() -> None:
    with pytest.raises(LeagueRuleError, match="points for a win must be 0 to 100"):
        PointsRules(win=-1)
    score = fixture_score([GameScore(0, 2, 0)])
    with pytest.raises(LeagueRuleError, match="'Cats' is not a team"):
        standings(["A", "B"], [(1, "A", "Cats", score)], PointsRules())
    with pytest.raises(LeagueRuleError, match="fixture 1 is given twice"):
        standings(["A", "B"], [(1, "A", "B", score), (1, "B", "A", score)], PointsRules())


TEAMS = ["Lions", "Tigers", "Bears", "Wolves", "Owls"]

game_scores = st.one_of(
    st.none(),
    st.builds(
        lambda winner, loser_legs, legs: GameScore(
            winner,
            legs if winner == 0 else (loser_legs % legs if winner == 1 else legs - 1),
            legs if winner == 1 else (loser_legs % legs if winner == 0 else legs - 1),
        ),
        st.sampled_from([0, 1, None]),
        st.integers(0, 10),
        st.integers(1, 4),
    ),
)
fixtures_strategy = st.lists(
    st.tuples(
        st.sampled_from(TEAMS),
        st.sampled_from(TEAMS),
        st.lists(game_scores, min_size=1, max_size=6),
    ).filter(lambda fixture: fixture[0] != fixture[1]),
    max_size=20,
)
rules_strategy = st.builds(
    PointsRules, st.integers(0, 5), st.integers(0, 5), st.integers(0, 5), st.integers(0, 2)
)


@given(fixtures_strategy, rules_strategy)
def test_points_add_up_and_every_fixture_counts_once_per_team(
    season: list[tuple[str, str, list[GameScore | None]]], rules: PointsRules
) -> None:
    scored: list[tuple[int, str, str, FixtureScore]] = [
        (number, home, away, fixture_score(games))
        for number, (home, away, games) in enumerate(season, start=1)
    ]
    table = standings(TEAMS, scored, rules)
    complete = [score for _, _, _, score in scored if score.complete]
    assert sorted(row.team for row in table) == sorted(TEAMS)
    assert sum(row.played for row in table) == 2 * len(complete)
    for row in table:
        assert row.played == row.won + row.drawn + row.lost
        assert row.points == rules.win * row.won + rules.draw * row.drawn + (
            rules.loss * row.lost + rules.per_game * row.games_for
        )
        mine = [
            score for _, home, away, score in scored if score.complete and row.team in (home, away)
        ]
        assert row.played == len(mine)
    assert sum(row.won for row in table) == sum(row.lost for row in table)
    assert sum(row.games_for for row in table) == sum(row.games_against for row in table)
    assert sum(row.legs_for for row in table) == sum(row.legs_against for row in table)
    decided = sum(1 for score in complete if score.winner is not None)
    drawn = len(complete) - decided
    per_game = rules.per_game * sum(score.home_games + score.away_games for score in complete)
    expected = decided * (rules.win + rules.loss) + drawn * 2 * rules.draw + per_game
    assert sum(row.points for row in table) == expected
    keys = [row.order_key() for row in table]
    assert keys == sorted(keys, reverse=True)
    assert [row.rank for row in table] == sorted(row.rank for row in table)
