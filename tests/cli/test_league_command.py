"""``oche league``: create a league, add a fixture, enter results by hand and
show the standings, on a real SQLite file and a real PostgreSQL database;
bad input exits 2 with one line naming the team, player or format, and
changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli.main import main
from tests.postgres_database import postgres_url, sqlite_or_postgres_url

__all__ = ["postgres_url", "sqlite_or_postgres_url"]

TEAMS = ["--team", "Lions=Ann,Bob,Cy", "--team", "Tigers=Dan,Eve,Fay"]


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A user without a config file, whose state lives in ``tmp_path``."""
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def oche(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def shown(capsys: pytest.CaptureFixture[str], db: list[str], league: str) -> dict[str, Any]:
    status, out, err = oche(capsys, "league", "show", league, "--json", *db)
    assert (status, err) == (0, "")
    view: dict[str, Any] = json.loads(out)
    return view


def test_create_fixture_result_and_show(
    sqlite_or_postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", sqlite_or_postgres_url]
    status, out, err = oche(
        capsys, "league", "create", "--name", "Thursday League", "--season", "2026/27",
        *TEAMS, "--format", "3*singles:x01:start=501:legs=2", "--json", *db,
    )  # fmt: skip
    assert (status, err) == (0, "")
    league = json.loads(out)["id"]
    status, out, err = oche(
        capsys, "league", "fixture", str(league), "--home", "Lions", "--away", "Tigers",
        "--board", "oche/pub", "oche/corner", "--date", "2026-12-10",
        "--lineup", "3=Ann:Fay", "--json", *db,
    )  # fmt: skip
    assert (status, err) == (0, "")
    fixture = json.loads(out)["id"]
    view = shown(capsys, db, "thursday league")
    (night,) = view["fixtures"]
    assert (night["home"], night["away"], night["date"]) == ("Lions", "Tigers", "2026-12-10")
    assert night["boards"] == ["oche/pub", "oche/corner"]
    assert [(g["home"], g["away"], g["status"]) for g in night["games"]] == [
        (["Ann"], ["Dan"], "ready"),
        (["Bob"], ["Eve"], "ready"),
        (["Ann"], ["Fay"], "ready"),
    ]
    assert night["games"][0]["match"]["legs"] == 2
    assert night["games"][0]["options"] == {"start": 501}
    for game, winner, legs in (("1", "Ann", "2-1"), ("2", "eve", "2-0"), ("3", "Ann", "2-1")):
        status, out, err = oche(
            capsys, "league", "result", str(fixture), game, "--winner", winner, "--legs", legs, *db
        )
        assert (status, err) == (0, ""), err
    view = shown(capsys, db, str(league))
    assert view["fixtures"][0]["status"] == "finished"
    assert view["fixtures"][0]["winner"] == "Lions"
    assert [
        (row["team"], row["played"], row["won"], row["lost"], row["points"])
        for row in view["standings"]
    ] == [("Lions", 1, 1, 0, 2), ("Tigers", 1, 0, 1, 0)]
    assert [(r["legs_for"], r["legs_against"]) for r in view["standings"]] == [(4, 4), (4, 4)]
    status, out, _ = oche(capsys, "league", "show", str(league), *db)
    assert out.splitlines()[:4] == [
        "Thursday League (2026/27): league 1",
        "#  TEAM    P  W  D  L  GF  GA  LF  LA  PTS",
        "1  Lions   1  1  0  0   2   1   4   4    2",
        "2  Tigers  1  0  0  1   1   2   4   4    0",
    ]
    assert "  2. singles x01: Bob v Eve: finished, legs 0-2, Tigers won" in out
    status, out, _ = oche(capsys, "league", "show", "--json", *db)
    assert json.loads(out) == [
        {"id": 1, "name": "Thursday League", "season": "2026/27", "teams": 2, "fixtures": 1}
    ]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--team", "Lions=Ann,Bob"], "a league needs at least two teams"),
        ([*TEAMS, "--team", "Bears=Ann"], "'Ann' is in team 'Lions' and team 'Bears'"),
        (["--team", "Lions=Ann,,Bob", "--team", "T=Dan"], "a player's name is blank"),
        (["--team", "Lions", "--team", "T=Dan"], "give a team as NAME=PLAYER"),
    ],
)
def test_a_bad_league_exits_2_naming_the_team_or_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'league.sqlite3'}"]
    status, out, err = oche(
        capsys, "league", "create", "--name", "L", *args, "--format", "singles:x01:legs=2", *db
    )
    assert (status, out) == (2, "")
    assert err.startswith("oche league: ") and named in err and err.count("\n") == 1
    assert oche(capsys, "league", "show", "--json", *db)[1] == "[]\n"


def test_bad_formats_fixtures_and_results_exit_2_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'league.sqlite3'}"]
    status, _, err = oche(
        capsys, "league", "create", "--name", "L", *TEAMS, "--format", "singles:x01:lgs=2", *db
    )
    assert status == 2 and "--format 'singles:x01:lgs=2'" in err and "no option 'lgs'" in err
    assert oche(capsys, "league", "show", "--json", *db)[1] == "[]\n"
    created = ["league", "create", "--name", "L", *TEAMS, "--format", "2*singles:x01:legs=2"]
    assert oche(capsys, *created, *db)[0] == 0
    fixture = ["league", "fixture", "L", "--home", "Lions", "--board", "pub"]
    for more, named in (
        (["--away", "Bears"], "no team 'Bears'; its teams are: Lions, Tigers"),
        (["--away", "Tigers", "--lineup", "1=Dan:Eve"], "'Dan' is not in team 'Lions'"),
        (["--away", "Tigers", "--lineup", "1=Ann"], "give a game's players as GAME=HOME:AWAY"),
        (["--away", "Tigers", "--remote", "oche/pub"], "--remote 'oche/pub' is one of the home"),
        (["--away", "Tigers", "--remote", "swan 1"], "--board 'swan 1'"),
    ):
        status, out, err = oche(capsys, *fixture, *more, *db)
        assert (status, out) == (2, ""), err
        assert named in err
    assert shown(capsys, db, "L")["fixtures"] == []
    assert oche(capsys, *fixture, "--away", "Tigers", *db)[0] == 0
    for args, named in (
        (["1", "1", "--winner", "Zed", "--legs", "2-0"], "--winner 'Zed' does not play"),
        (["1", "1", "--winner", "Ann", "--legs", "2-2"], "--legs '2-2'"),
        (["2", "1", "--winner", "Ann", "--legs", "2-0"], "no fixture 2"),
    ):
        status, out, err = oche(capsys, "league", "result", *args, *db)
        assert (status, out) == (2, "") and named in err, err
    assert {g["status"] for g in shown(capsys, db, "L")["fixtures"][0]["games"]} == {"ready"}
    status, _, err = oche(capsys, "league", "show", "Nope", *db)
    assert status == 2 and "no league 'Nope'" in err


def test_a_remote_fixture_shows_its_away_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'league.sqlite3'}"]
    created = ["league", "create", "--name", "L", *TEAMS, "--format", "singles:x01:legs=1"]
    assert oche(capsys, *created, *db)[0] == 0
    fixture = ["league", "fixture", "L", "--home", "Lions", "--away", "Tigers"]
    assert oche(capsys, *fixture, "--board", "crown-1", "--remote", "swan-1", *db)[0] == 0
    (shown_fixture,) = shown(capsys, db, "L")["fixtures"]
    assert (shown_fixture["boards"], shown_fixture["away_board"]) == (["crown-1"], "swan-1")
    status, out, _ = oche(capsys, "league", "show", "L", *db)
    assert status == 0 and "remote (away at swan-1)" in out
