"""``oche tournament``: create, show, list and walkover from the command line
on a real SQLite file and a real PostgreSQL database, a result imported with
``oche leaderboard import`` advancing the bracket; bad input exits 2 with one
line and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli.main import main
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.postgres_database import postgres_url, sqlite_or_postgres_url

__all__ = ["postgres_url", "sqlite_or_postgres_url"]


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


def shown(capsys: pytest.CaptureFixture[str], db: list[str], made: int) -> dict[str, Any]:
    status, out, err = oche(capsys, "tournament", "show", str(made), "--json", *db)
    assert status == 0, err
    view: dict[str, Any] = json.loads(out)
    return view


def test_create_show_walkover_import_and_list(
    sqlite_or_postgres_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = ["--db", sqlite_or_postgres_url]
    status, out, err = oche(
        capsys, "tournament", "create", *db, "--format", "single-elimination",
        "--game", "x01", "-o", "start=301", "--legs", "1", "--board", "board1",
        "--board", "pub/board2", "-p", "Ann", "-p", "Bob", "-p", "Cy",
        "--title", "Friday Cup", "--json",
    )  # fmt: skip
    assert (status, err) == (0, "")
    made = json.loads(out)["id"]
    view = shown(capsys, db, made)
    assert (view["title"], view["format"], view["game"]) == (
        "Friday Cup",
        "single-elimination",
        "x01",
    )
    assert view["boards"] == ["oche/board1", "pub/board2"]  # a bare id gets mqtt.base
    assert view["options"] == {"start": 301}
    assert view["match_format"] == {"legs": 1, "starts": "alternate"}
    assert view["byes"] == [{"id": "R1-1", "round": 1, "label": "Semi-final", "player": "Ann"}]
    assert [(m["id"], m["players"], m["status"]) for m in view["matches"]] == [
        ("R1-2", ["Bob", "Cy"], "queued"),
        ("R2-1", ["Ann", None], "waiting"),
    ]
    assert set(view["matches"][0]) >= {
        "id",
        "round",
        "players",
        "board",
        "status",
        "winner",
        "legs",
    }
    assert [set(row) >= {"player", "played", "won", "legs_won", "legs_lost", "points"}
            for row in view["standings"]] == [True] * 3  # fmt: skip

    # the semi-final's result, imported as a board would have sent it
    semi = view["matches"][0]
    document = result_document("x01", X01_MOVES, players=["Bob", "Cy"], options={"start": 301})
    document["call_id"] = semi["call_id"]
    results = tmp_path / "results.jsonl"
    results.write_bytes(as_payload(document) + b"\n")
    status, out, err = oche(capsys, "leaderboard", "import", *db, str(results))
    assert status == 0, err
    view = shown(capsys, db, made)
    assert [(m["id"], m["players"], m["status"], m["winner"]) for m in view["matches"]] == [
        ("R1-2", ["Bob", "Cy"], "finished", "Bob"),
        ("R2-1", ["Ann", "Bob"], "queued", None),
    ]
    assert view["matches"][0]["legs"] == [1, 0]

    # Ann does not turn up for the final
    assert oche(capsys, "tournament", "walkover", str(made), "r2-1", "--winner", "bob", *db) == (
        0,
        f"match R2-1 of tournament {made}: bob goes through on a walkover\n",
        "",
    )
    view = shown(capsys, db, made)
    assert (view["status"], view["champion"]) == ("finished", "Bob")
    assert view["matches"][1]["status"] == "walkover"
    assert [
        (r["place"], r["player"], r["played"], r["won"], r["points"]) for r in view["standings"]
    ] == [
        (1, "Bob", 2, 2, 4),
        (2, "Ann", 1, 0, 0),
        (3, "Cy", 1, 0, 0),
    ]

    status, out, _ = oche(capsys, "tournament", "list", "--json", *db)
    assert status == 0
    assert [(t["id"], t["title"], t["status"], t["champion"]) for t in json.loads(out)] == [
        (made, "Friday Cup", "finished", "Bob")
    ]
    status, out, _ = oche(capsys, "tournament", "show", str(made), *db)
    assert status == 0
    assert out.startswith(
        f"Friday Cup (#{made}): single-elimination, x01, finished\nchampion: Bob\n"
    )
    assert "R2-1   Final" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--format", "swiss"], "invalid choice: 'swiss'"),
        (["-p", "Ann"], "2 to 128 players, not 1"),
        (["--game", "chess"], "no game 'chess'"),
        (["-o", "start=7"], "start"),
        (["--legs", "0"], "'0' is not a count"),
        (["--board", "bad board"], "'oche/bad board' is not a board"),
    ],
)
def test_a_bad_create_exits_2_with_one_line_and_makes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"]
    given = {"--format": "round-robin", "--game": "x01", "--legs": "1", "--board": "board1"}
    for flag in ("--format", "--game", "--legs", "--board"):
        if flag in args:
            given.pop(flag)
    fixed = [part for flag, value in given.items() for part in (flag, value)]
    players = [] if "-p" in args else ["-p", "Ann", "-p", "Bob"]
    try:
        status, out, err = oche(capsys, "tournament", "create", *db, *fixed, *players, *args)
    except SystemExit as exited:  # argparse's own refusal
        status, (out, err) = int(str(exited.code)), capsys.readouterr()
    assert (status, out) == (2, "")
    assert words in err
    assert err.count("\n") == 1 or err.startswith("usage:")
    if (tmp_path / "leaderboard.sqlite3").exists():  # argparse refuses before any database
        status, out, _ = oche(capsys, "tournament", "list", "--json", *db)
        assert (status, json.loads(out)) == (0, [])


def test_show_and_walkover_of_what_is_not_there_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"]
    status, out, _ = oche(
        capsys, "tournament", "create", *db, "--format", "round-robin", "--game", "x01",
        "--legs", "1", "--board", "board1", "-p", "Ann", "-p", "Bob", "--json",
    )  # fmt: skip
    made = json.loads(out)["id"]
    assert oche(capsys, "tournament", "show", str(made + 1), *db) == (
        2, "", f"oche tournament: no tournament {made + 1}\n",
    )  # fmt: skip
    status, out, err = oche(
        capsys, "tournament", "walkover", str(made), "R1-1", "--winner", "Cy", *db
    )
    assert (status, out) == (2, "")
    assert err == "oche tournament: 'Cy' is not in match R1-1 (Ann v Bob)\n"
    assert shown(capsys, db, made)["matches"][0]["status"] == "queued"
