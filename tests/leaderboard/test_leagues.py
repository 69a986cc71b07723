"""Leagues in the database (leaderboard/leagues.py), on SQLite and
PostgreSQL: migrations 0012 and 0013 make the tables the models say; a
league's teams and format are checked; a fixture queues each game as a
called match with the line-up's players (a pairs game as a team game, a
remote fixture's with the away team at the away board, which its claim
holds); the games' match results, stored
by the real ingest with their calls' ``call_id``, decide the games once and
give the right standings (the Done-when check); a result by hand cancels the
call; bad input is refused naming what is wrong and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from leaderboard import leagues, match_calls, queries
from leaderboard.database import Database
from leaderboard.league_rules import PointsRules, TeamMatchFormat
from leaderboard.leagues import LeagueError, LeagueView
from leaderboard.models import Base, LeagueFixture, MatchCall
from leaderboard.store import ingest
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.league_seed import match_result
from tests.leaderboard.web_seed import VENUES

LIONS = ("Lions", ["Ann", "Bob", "Cy"])
TIGERS = ("Tigers", ["Dan", "Eve", "Fay"])
THREE_SINGLES = ["3*singles:x01:start=301:legs=2"]


def _league(database: Database, specs: list[str] = THREE_SINGLES, **rules: int) -> int:
    with database.write_session() as session:
        league = leagues.create_league(
            session,
            name="Thursday League",
            season="2026/27",
            teams=[LIONS, TIGERS],
            team_format=TeamMatchFormat.parse(specs),
            rules=PointsRules(**rules),
            now=1000.0,
        )
        return league.id


def _fixture(database: Database, league: int | str, **given: Any) -> int:
    arguments: dict[str, Any] = {"home": "Lions", "away": "tigers", "boards": ["oche/board1"]}
    with database.write_session() as session:
        fixture = leagues.add_fixture(session, league, **{**arguments, **given}, now=2000.0)
        return fixture.id


def _view(database: Database, league: int | str) -> LeagueView:
    with database.session() as session:
        return leagues.league_view(session, league)


def _match_result(call: dict[str, Any], leg_winners: list[int]) -> bytes:
    """The result of a called match as the board sends it: the call's players
    and call_id, 301 first to 2 legs played through the engine's Match."""
    players = [player["name"] for player in call["players"]]
    return as_payload(match_result(players, leg_winners, call_id=call["call_id"]))


def _calls(database: Database) -> list[dict[str, Any]]:
    order = (MatchCall.created_at, MatchCall.title)
    with database.session() as session:
        return [
            {"call_id": call.call_id, "players": call.players, "status": call.status,
             "title": call.title, "boards": call.boards, "owner": (call.owner_kind, call.owner_id),
             "match": call.match_format, "options": call.options, "teams": call.teams}
            for call in session.scalars(select(MatchCall).order_by(*order))
        ]  # fmt: skip


def test_migrations_0012_and_0013_make_the_tables_the_models_say(database: Database) -> None:
    mine = {"leagues", "league_teams", "league_fixtures", "league_games", "match_calls"}
    mine |= {"board_claims"}

    def of_leagues(item: Any, name: str | None, kind: str, *_: Any) -> bool:
        return (name if kind == "table" else item.table.name) in mine

    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": of_leagues}
        )
        assert compare_metadata(context, Base.metadata) == []
    database.migrate("0011")
    database.migrate()
    database.migrate("0012")
    database.migrate()


def test_a_fixture_of_three_singles_gives_the_right_standings_from_its_match_results(
    database: Database,
) -> None:
    league = _league(database)
    fixture = _fixture(database, league)
    calls = _calls(database)
    assert [call["players"] for call in calls] == [
        [{"name": home, "player_id": None}, {"name": away, "player_id": None}]
        for home, away in (("Ann", "Dan"), ("Bob", "Eve"), ("Cy", "Fay"))
    ]
    assert {call["owner"] for call in calls} == {("league", fixture)}
    assert calls[0]["title"] == "Thursday League: Lions v Tigers, game 1"
    assert calls[0]["boards"] == ["oche/board1"]
    assert calls[0]["options"] == {"start": 301}
    assert calls[0]["match"]["legs"] == 2
    shown = _view(database, league)
    assert [game.status for game in shown.fixtures[0].games] == ["ready"] * 3
    assert shown.fixtures[0].status == "scheduled"

    # Ann beats Dan 2-1; Eve beats Bob 2-0; Cy beats Fay 2-1: Lions win 2-1 in games, legs 4-4.
    outcomes = [[0, 1, 0], [1, 1], [0, 1, 0]]
    sent = [_match_result(call, legs) for call, legs in zip(calls, outcomes, strict=True)]
    for payload in sent:
        assert ingest(database, payload, VENUES).status == "imported", payload
    assert ingest(database, sent[0], VENUES).status == "duplicate"  # redelivered: nothing changes
    with database.session() as session:  # the leaderboard counted each as one match, with its legs
        rows = {row.player: row for row in queries.leaderboard(session, "x01", "all")}
    assert (rows["Ann"].played, rows["Ann"].won, rows["Ann"].legs_won, rows["Ann"].legs_lost) == (
        1,
        1,
        2,
        1,
    )
    assert (rows["Eve"].won, rows["Eve"].legs_won, rows["Bob"].legs_lost) == (1, 2, 2)

    shown = _view(database, league)
    (night,) = shown.fixtures
    assert night.status == "finished"
    assert [(g.winner, g.home_legs, g.away_legs, g.source) for g in night.games] == [
        ("Lions", 2, 1, "oche"),
        ("Tigers", 0, 2, "oche"),
        ("Lions", 2, 1, "oche"),
    ]
    assert all(game.result_id for game in night.games)
    assert (night.home_games, night.away_games, night.home_legs, night.away_legs) == (2, 1, 4, 4)
    assert night.winner == "Lions"
    table = [row.model_dump() for row in shown.standings]
    assert table == [
        {"rank": 1, "team": "Lions", "played": 1, "won": 1, "drawn": 0, "lost": 0,
         "games_for": 2, "games_against": 1, "legs_for": 4, "legs_against": 4, "points": 2},
        {"rank": 2, "team": "Tigers", "played": 1, "won": 0, "drawn": 0, "lost": 1,
         "games_for": 1, "games_against": 2, "legs_for": 4, "legs_against": 4, "points": 0},
    ]  # fmt: skip


def test_a_fixture_half_played_counts_in_no_standing(database: Database) -> None:
    league = _league(database)
    _fixture(database, league)
    first = _calls(database)[0]
    ingest(database, _match_result(first, [0, 0]), VENUES)
    shown = _view(database, league)
    assert shown.fixtures[0].status == "playing"
    assert [row.played for row in shown.standings] == [0, 0]


def test_a_lineup_says_who_plays_which_game(database: Database) -> None:
    _league(database)
    _fixture(database, "thursday league", lineup={1: (["Cy"], ["Fay"]), 3: (["Ann"], ["Dan"])})
    players = [[p["name"] for p in call["players"]] for call in _calls(database)]
    assert players == [["Cy", "Fay"], ["Bob", "Eve"], ["Ann", "Dan"]]


def test_a_result_by_hand_decides_a_game_and_cancels_its_call(database: Database) -> None:
    league = _league(database)
    fixture = _fixture(database, league)
    with database.write_session() as session:
        leagues.enter_result(session, fixture, 2, winner="eve", legs="2-1", now=3000.0)
    game = _view(database, league).fixtures[0].games[1]
    assert (game.status, game.winner, game.home_legs, game.away_legs, game.source) == (
        "finished",
        "Tigers",
        1,
        2,
        "hand",
    )
    assert _calls(database)[1]["status"] == "cancelled"
    with database.write_session() as session, pytest.raises(LeagueError, match="decided already"):
        leagues.enter_result(session, fixture, 2, winner="Bob", legs="2-0", now=3001.0)
    # Its match's result, arriving late, does not change the hand's.
    ingest(database, _match_result(_calls(database)[1], [0, 0]), VENUES)
    assert _view(database, league).fixtures[0].games[1].source == "hand"


def test_a_pairs_game_is_called_as_a_team_game_and_its_team_result_decides_it_once(
    database: Database,
) -> None:
    league = _league(database, ["singles:x01:legs=2", "pairs:x01:start=301:legs=2"])
    _fixture(database, league)
    games = _view(database, league).fixtures[0].games
    assert [(g.kind, g.status, g.home, g.away) for g in games] == [
        ("singles", "ready", ["Ann"], ["Dan"]),
        ("pairs", "ready", ["Bob", "Cy"], ["Eve", "Fay"]),
    ]
    pairs = _calls(database)[1]
    assert [p["name"] for p in pairs["players"]] == ["Bob", "Eve", "Cy", "Fay"]
    assert pairs["teams"] == [
        {"name": "Lions", "players": ["Bob", "Cy"]},
        {"name": "Tigers", "players": ["Eve", "Fay"]},
    ]
    with database.session() as session:  # the call_match the board gets names the teams
        command = match_calls.call_command(session.get(MatchCall, pairs["call_id"]))
    assert [team.name for team in command.teams or ()] == ["Lions", "Tigers"]

    # The Tigers win 2-1: the result names the teams; side 1 is the away team.
    teams = {"Lions": ["Bob", "Cy"], "Tigers": ["Eve", "Fay"]}
    names = [p["name"] for p in pairs["players"]]
    document = match_result(names, [1, 0, 1], call_id=pairs["call_id"], teams=teams)
    assert [t["name"] for t in document["teams"]] == ["Lions", "Tigers"]
    payload = as_payload(document)
    assert ingest(database, payload, VENUES).status == "imported"
    assert ingest(database, payload, VENUES).status == "duplicate"
    game = _view(database, league).fixtures[0].games[1]
    assert (game.status, game.winner, game.home_legs, game.away_legs, game.source) == (
        "finished",
        "Tigers",
        1,
        2,
        "oche",
    )
    # A later revision of the same game (an undo after the win) changes nothing.
    again = as_payload({**document, "result_id": "another", "legs_won": [2, 1]})
    ingest(database, again, VENUES)
    assert _view(database, league).fixtures[0].games[1].winner == "Tigers"


def test_a_remote_fixture_calls_its_games_with_the_away_team_at_the_away_board(
    database: Database,
) -> None:
    league = _league(database, ["singles:x01:legs=2", "pairs:x01:start=301:legs=2"])
    _fixture(database, league, boards=["oche/crown-1"], away_board="swan-1")
    shown = _view(database, league).fixtures[0]
    assert shown.away_board == "swan-1"
    singles, pairs = _calls(database)
    assert singles["players"] == [
        {"name": "Ann", "player_id": None},
        {"name": "Dan", "player_id": None, "board": "swan-1"},
    ]
    assert [p.get("board") for p in pairs["players"]] == [None, "swan-1", None, "swan-1"]
    with database.session() as session:
        call = session.get(MatchCall, singles["call_id"])
        assert call is not None and match_calls.away_boards(call) == ["swan-1"]
    # Its one result (the host's, with the remote match's id) decides the game once.
    document = match_result(["Ann", "Dan"], [1, 1], call_id=singles["call_id"], board="crown-1")
    document["match"] = "3f" * 16
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    game = _view(database, league).fixtures[0].games[0]
    assert (game.winner, game.home_legs, game.away_legs) == ("Tigers", 0, 2)


def test_a_remote_call_holds_its_away_board_and_no_other_call_is_called_to_it(
    database: Database,
) -> None:
    league = _league(database)
    _fixture(database, league, boards=["oche/crown-1"], away_board="swan-1")
    with database.write_session() as session:  # a local call at the away venue's board
        match_calls.queue_call(
            session, owner_kind="tournament", owner_id=9, title=None, game="x01",
            options={}, match_format=None, players=[{"name": "Gus"}, {"name": "Hal"}],
            boards=["swan-1"], now=1.0,
        )  # fmt: skip
    local = next(c for c in _calls(database) if c["owner"][0] == "tournament")["call_id"]
    remote = next(c for c in _calls(database) if c["owner"][0] == "league")["call_id"]
    with database.write_session() as session:
        assert match_calls.claim_board(session, local, "swan-1", 2.0)
    with pytest.raises(IntegrityError), database.write_session() as session:
        match_calls.claim_board(session, remote, "oche/crown-1", 3.0)  # swan-1 is held
    with database.session() as session:
        assert session.get(MatchCall, remote).status == "ready"  # type: ignore[union-attr]
        assert match_calls.held_boards(session) == {"swan-1"}
    with database.write_session() as session:  # the local call is over: its claim is stale
        match_calls.cancel_call(session, local, why="cancelled", now=4.0)
    with database.write_session() as session:
        assert match_calls.claim_board(session, remote, "oche/crown-1", 5.0)
    with database.session() as session:
        assert match_calls.held_boards(session) == {"crown-1", "swan-1"}


def test_a_bad_remote_fixture_is_refused(database: Database) -> None:
    league = _league(database)
    with pytest.raises(LeagueError, match="one of the home boards"):
        _fixture(database, league, boards=["oche/crown-1"], away_board="oche/crown-1")
    with pytest.raises(LeagueError, match="--board 'swan 1'"):
        _fixture(database, league, away_board="swan 1")
    assert _calls(database) == []


def test_points_follow_the_league_s_rules(database: Database) -> None:
    league = _league(database, win=3, draw=1, per_game=1)
    fixture = _fixture(database, league)
    with database.write_session() as session:
        for number, winner in ((1, "Ann"), (2, "Bob"), (3, "Fay")):
            leagues.enter_result(session, fixture, number, winner=winner, legs="2-0", now=3000.0)
    points = {row.team: row.points for row in _view(database, league).standings}
    assert points == {"Lions": 3 + 2, "Tigers": 0 + 1}


@pytest.mark.parametrize(
    ("teams", "named"),
    [
        ([LIONS], "at least two teams"),
        ([LIONS, ("lions", ["Dan"])], "team 'lions' is given twice"),
        ([LIONS, ("Tigers", ["Dan", "ann"])], "'ann' is in team 'Lions' and team 'Tigers'"),
        ([LIONS, ("Tigers", ["Dan"])], "team 'Tigers' has 1 player(s)"),
    ],
)
def test_a_bad_league_is_refused_naming_the_team_or_player(
    database: Database, teams: list[tuple[str, list[str]]], named: str
) -> None:
    with database.write_session() as session, pytest.raises(LeagueError) as refused:
        leagues.create_league(
            session,
            name="Bad",
            teams=teams,
            team_format=TeamMatchFormat.parse(["pairs:x01:legs=1"]),
            rules=PointsRules(),
            now=1.0,
        )
    assert named in str(refused.value)
    with database.session() as session:
        assert leagues.league_list(session) == []


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"home": "Bears"}, "no team 'Bears'; its teams are: Lions, Tigers"),
        ({"away": "Lions"}, "'Lions' cannot play itself"),
        ({"boards": []}, "--board"),
        ({"boards": ["oche/board 1"]}, "--board 'oche/board 1'"),
        ({"lineup": {4: (["Ann"], ["Dan"])}}, "there is no game 4"),
        ({"lineup": {1: (["Dan"], ["Eve"])}}, "'Dan' is not in team 'Lions'"),
        ({"lineup": {1: (["Ann", "Bob"], ["Dan"])}}, "fields 1 player(s), not 2"),
    ],
)
def test_a_bad_fixture_is_refused_naming_what_is_wrong_and_queues_nothing(
    database: Database, given: dict[str, Any], named: str
) -> None:
    league = _league(database)
    with pytest.raises(LeagueError) as refused:
        _fixture(database, league, **given)
    assert named in str(refused.value)
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(LeagueFixture)) == 0
    assert _calls(database) == []


def test_a_bad_hand_result_is_refused_naming_what_is_wrong(database: Database) -> None:
    league = _league(database)
    fixture = _fixture(database, league)
    for arguments, named in (
        ((fixture + 1, 1, "Ann", "2-1"), f"no fixture {fixture + 1}"),
        ((fixture, 4, "Ann", "2-1"), "has games 1 to 3, not 4"),
        ((fixture, 1, "Bob", "2-1"), "--winner 'Bob' does not play"),
        ((fixture, 1, "Ann", "3-1"), "--legs '3-1'"),
    ):
        number, game, winner, legs = arguments
        with database.write_session() as session, pytest.raises(LeagueError, match=named):
            leagues.enter_result(session, number, game, winner=winner, legs=legs, now=1.0)
    assert [call["status"] for call in _calls(database)] == ["ready"] * 3
    with database.session() as session, pytest.raises(LeagueError, match="no league 'Autumn'"):
        leagues.league_view(session, "Autumn")
