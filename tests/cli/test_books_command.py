"""``oche books``: a board's customer and security books, read from a real
journal (SQLite) in-process and through the installed console script.

Games are written through :class:`Journal`'s own methods; the credit lines and
books resets, which the daemon writes (docs/credits.md), are inserted by
:func:`credit` and :func:`reset` into the journal's v4 tables as they are.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from firmware_bridge.cli.books_command import parse_when
from firmware_bridge.cli.main import main
from firmware_bridge.daemon.books import books
from firmware_bridge.daemon.journal import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    Finish,
    Journal,
)
from firmware_bridge.daemon.journal.totals import rebuild_books
from mqtt_contract import TOPICS
from tests.paths import REPO

OCHE = Path(sys.executable).parent / "oche"


def at(day: int, hour: int, minute: int = 0) -> float:
    """November ``day``, 2026, local time, in unix seconds."""
    return datetime(2026, 11, day, hour, minute).timestamp()


def credit(
    path: Path,
    when: float,
    change: int,
    source: str,
    *,
    board: str = "board1",
    coin_input: int | None = None,
    pulses: int | None = None,
    game_id: int | None = None,
    reason: str | None = None,
) -> None:
    """One line of the books, as the daemon writes it (credit_ledger, schema v4, and the
    running totals of v6)."""
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO credit_ledger (board, at, change, source, coin_input, pulses, game_id, "
            "reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (board, when, change, source, coin_input, pulses, game_id, reason),
        )
        rebuild_books(connection)  # written behind the store's back: the totals summed again
    connection.close()


def reset(path: Path, when: float, board: str = "board1") -> None:
    """A reset_books of the customer books (books_resets, schema v4; totals of v6)."""
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO books_resets (board, at, reason) VALUES (?, ?, 'settled')", (board, when)
        )
        rebuild_books(connection)
    connection.close()


def game(
    journal: Journal,
    name: str,
    start: float,
    end: float | None,
    how: str = "finished",
    board: str = "board1",
) -> int:
    """A game of two players started at ``start`` with one dart a minute in;
    over (``finished`` or ``ended``) at ``end``, or still playing."""
    game_id = journal.games.start_game(name, {}, ["Ann", "Bob"], None, board, start)
    journal.games.append(game_id, "S20", start + 60)
    if end is not None and how == "finished":
        journal.games.record(
            game_id, [], finish=Finish({"winner": 0}, end, f"result-{game_id}", "{}")
        )
    elif end is not None:
        journal.games.end_game(game_id, end)
    return game_id


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A user without a config file, whose state lives in ``tmp_path``."""
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def bar(tmp_path: Path) -> Iterator[Path]:
    """Two days of a coin-operated board1, its customer books reset between them:

    1 November: input 1 three pulses of 1 credit, input 2 one pulse of 2
    credits, 5 remote credits; an x01 (20:00-20:10, finished) and a cricket
    (21:00-21:05, abandoned), 2 credits each.
    2 November 09:00: reset_books.
    2 November: input 1 two pulses of 1 credit (one line), 1 happy-hour credit,
    2 free-play credits; an x01 from 18:30 still playing (last dart 18:31),
    2 credits.
    """
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        x01 = game(journal, "x01", at(1, 20), at(1, 20, 10))
        cricket = game(journal, "cricket", at(1, 21), at(1, 21, 5), how="ended")
        playing = game(journal, "x01", at(2, 18, 30), None)
    for minute in (1, 2, 3):
        credit(path, at(1, 19, minute), 1, "coin", coin_input=1, pulses=1)
    credit(path, at(1, 19, 4), 2, "coin", coin_input=2, pulses=1)
    credit(path, at(1, 19, 5), 5, "remote", reason="the tablet")
    credit(path, at(1, 20), -2, "game", game_id=x01)
    credit(path, at(1, 21), -2, "game", game_id=cricket)
    reset(path, at(2, 9))
    credit(path, at(2, 12), 2, "coin", coin_input=1, pulses=2)
    credit(path, at(2, 18), 1, "happy-hour")
    credit(path, at(2, 18, 29), 2, "free-play")
    credit(path, at(2, 18, 30), -2, "game", game_id=playing)
    yield path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["books", *args])
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    status, out, err = run(capsys, *args, "--json")
    assert (status, err) == (0, ""), err
    result = json.loads(out)
    assert isinstance(result, dict)
    return result


def oche(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_security_books_count_everything_ever(
    bar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    security = run_json(capsys, "--journal", str(bar))["security"]
    assert security["coins"] == {"1": {"pulses": 5, "credits": 5}, "2": {"pulses": 1, "credits": 2}}
    assert security["coins_total"] == 6
    assert security["credits_in"] == {"coin": 7, "remote": 5, "happy-hour": 1, "free-play": 2}
    assert security["credits_in_total"] == 15
    assert security["credits_spent"] == 6
    assert security["credits_net"] == 9
    assert security["games"] == {
        "cricket": {"played": 1, "finished": 0, "play_time_s": 300.0},
        "x01": {"played": 2, "finished": 1, "play_time_s": 660.0},  # 10 min, and 1 so far
    }
    assert security["games_played"] == 3
    assert security["play_time_s"] == 960.0
    assert security["from"] is None and security["until"] is None


def test_customer_books_start_at_the_last_reset(
    bar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_json(capsys, "--journal", str(bar))
    assert result["board"] == "board1"
    customer = result["customer"]
    assert customer["reset_at"] == at(2, 9)
    assert customer["from"] == at(2, 9)
    assert customer["coins"] == {"1": {"pulses": 2, "credits": 2}}
    assert customer["credits_in"] == {"coin": 2, "remote": 0, "happy-hour": 1, "free-play": 2}
    assert customer["credits_in_total"] == 5
    assert customer["credits_spent"] == 2
    assert customer["games"] == {"x01": {"played": 1, "finished": 0, "play_time_s": 60.0}}
    assert customer["games_played"] == 1
    assert customer["play_time_s"] == 60.0
    # A second reset clears the customer books; the security books stay.
    reset(bar, at(3, 9))
    after = run_json(capsys, "--journal", str(bar))
    assert after["customer"]["credits_in_total"] == 0
    assert after["customer"]["games_played"] == 0
    assert after["customer"]["coins"] == {}
    assert after["security"] == {**result["security"]}


def test_since_and_until_narrow_both_books(bar: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The first day only: --until a day takes in the whole day.
    first = run_json(capsys, "--journal", str(bar), "--until", "2026-11-01")
    assert first["until"] == at(2, 0)
    assert first["security"]["credits_in"]["coin"] == 5
    assert first["security"]["games_played"] == 2
    assert first["security"]["play_time_s"] == 900.0
    # No reset before the 2nd: the customer books are the security books.
    assert first["customer"]["reset_at"] is None
    assert {**first["customer"], "reset_at": None} == {**first["security"], "reset_at": None}
    # From a time on: the cricket and what came after it.
    late = run_json(capsys, "--journal", str(bar), "--since", "2026-11-01T20:30")
    assert late["security"]["games"] == {
        "cricket": {"played": 1, "finished": 0, "play_time_s": 300.0},
        "x01": {"played": 1, "finished": 0, "play_time_s": 60.0},
    }
    assert late["security"]["credits_spent"] == 4
    assert late["customer"]["from"] == at(2, 9)  # the reset is later than --since
    # A period within the second day, after the reset.
    evening = run_json(
        capsys, "--journal", str(bar), "--since", "2026-11-02T17:00", "--until", "2026-11-02T18:15"
    )
    for book in ("customer", "security"):
        assert evening[book]["from"] == at(2, 17)
        assert evening[book]["credits_in"] == {
            "coin": 0,
            "remote": 0,
            "happy-hour": 1,
            "free-play": 0,
        }
        assert evening[book]["games_played"] == 0


def test_the_text_table_puts_the_books_side_by_side(
    bar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "--journal", str(bar))
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "books of board board1"
    assert lines[1].split() == ["BOOKS", "CUSTOMER", "SECURITY"]
    rows = {line[:24].strip(): line[24:].split() for line in lines[2:]}
    assert rows["coin input 1 pulses"] == ["2", "5"]
    assert rows["coin input 2 credits"] == ["0", "2"]
    assert rows["credits in: remote"] == ["0", "5"]
    assert rows["credits in"] == ["5", "15"]
    assert rows["credits spent"] == ["2", "6"]
    assert rows["games: x01"] == ["1", "2"]
    assert rows["games: cricket"] == ["0", "1"]
    assert rows["games played"] == ["1", "3"]
    assert rows["play time"] == ["0:01:00", "0:16:00"]
    assert rows["last reset"] == ["2026-11-02", "09:00", "never", "reset"]


def test_the_console_script_prints_the_same_books(
    bar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inside = run_json(capsys, "--journal", str(bar))
    result = oche("books", "--journal", str(bar), "--json")
    assert result.returncode == 0, result.stderr
    outside = json.loads(result.stdout)
    for snapshot in (inside, outside):
        snapshot.pop("updated_at")
    assert outside == inside
    table = oche("books", "--journal", str(bar))
    assert table.returncode == 0, table.stderr
    assert "credits spent" in table.stdout


def test_the_daemon_and_the_command_share_one_aggregation(bar: Path) -> None:
    """The retained books snapshot is books() itself: the same figures."""
    with Journal(bar) as journal:
        snapshot = books(journal, "board1", now=123.0)
    assert snapshot["updated_at"] == 123.0
    Draft202012Validator(TOPICS["books"].schema).validate(json.loads(json.dumps(snapshot)))
    assert snapshot["security"]["credits_in_total"] == 15


def test_the_journal_of_the_config_is_read(
    bar: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "oche.toml"
    config.write_text(f'[journal]\npath = "{bar}"\n', "utf-8")
    result = run_json(capsys, "--config", str(config))
    assert result["security"]["coins_total"] == 6
    # And the default path when there is no config.
    default = tmp_path / "state" / "oche" / "journal.sqlite3"
    default.parent.mkdir(parents=True)
    default.write_bytes(bar.read_bytes())
    assert run_json(capsys)["security"]["coins_total"] == 6


def test_a_journal_of_several_boards_needs_board(
    bar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal(bar) as journal:
        game(journal, "x01", at(1, 20), at(1, 20, 20), board="board2")
    credit(bar, at(1, 20), 4, "remote", board="board2")
    status, out, err = run(capsys, "--journal", str(bar))
    assert status == 2 and out == ""
    assert "several boards (board1, board2)" in err and "--board" in err
    board2 = run_json(capsys, "--journal", str(bar), "--board", "board2")
    assert board2["board"] == "board2"
    assert board2["security"]["credits_in"]["remote"] == 4
    assert board2["security"]["games"] == {
        "x01": {"played": 1, "finished": 1, "play_time_s": 1200.0}
    }
    assert board2["customer"]["reset_at"] is None  # board1's resets are board1's
    board1 = run_json(capsys, "--journal", str(bar), "--board", "board1")
    assert board1["security"]["credits_in"]["remote"] == 5


def test_remote_matches_joined_as_a_guest_are_games_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        players = [{"name": "Ann", "board": "oche/board1"}, {"name": "Eve", "board": "pub/b9"}]
        journal.remote.guest_join("m-1", "pub/b9", "board1", "x01", {}, players, at(1, 20))
        journal.remote.guest_close("m-1", "finished", at(1, 20, 15), "won", {"winner": "Eve"})
    result = run_json(capsys, "--journal", str(path))
    assert result["security"]["games"] == {
        "x01": {"played": 1, "finished": 1, "play_time_s": 900.0}
    }


def test_an_empty_journal_has_empty_books(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path):
        pass
    result = run_json(capsys, "--journal", str(path))
    assert result["board"] == "board1"  # the config's board (the default here)
    for book in ("customer", "security"):
        assert result[book]["coins"] == {} and result[book]["games"] == {}
        assert result[book]["credits_in_total"] == result[book]["credits_spent"] == 0
        assert result[book]["play_time_s"] == 0.0
    status, out, _ = run(capsys, "--journal", str(path))
    assert status == 0 and "credits spent" in out


def test_no_journal_at_all_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.sqlite3"
    status, out, err = run(capsys, "--journal", str(missing))
    assert status == 2 and out == ""
    assert f"no journal at {missing}" in err


def test_a_journal_of_an_older_schema_is_migrated_on_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal of version 3 (before credits): its games are in the books."""
    path = tmp_path / "journal.sqlite3"
    connection = sqlite3.connect(path, isolation_level=None)
    for version in (1, 2, 3):
        MIGRATIONS[version](connection)
    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    connection.execute("PRAGMA user_version = 3")
    connection.execute(
        "INSERT INTO games (game, options, players, board, started_at, finished_at, status) "
        "VALUES ('x01', '{}', '[\"Ann\"]', 'bar', ?, ?, 'ended')",
        (at(1, 20), at(1, 20, 30)),
    )
    connection.close()
    result = oche("books", "--journal", str(path), "--json")
    assert result.returncode == 0, result.stderr
    books_now = json.loads(result.stdout)
    assert books_now["board"] == "bar"
    assert books_now["security"]["games"] == {
        "x01": {"played": 1, "finished": 0, "play_time_s": 1800.0}
    }
    assert books_now["security"]["credits_in_total"] == 0
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    check.close()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--since", "2026-13-01"),
        ("--since", "yesterday"),
        ("--until", "01/11/2026"),
        ("--until", "2026-11-01T25:00"),
    ],
)
def test_bad_dates_are_named(
    bar: Path, option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["books", "--journal", str(bar), option, value])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"argument {option}: {value!r} is not a date (YYYY-MM-DD)" in err
    result = oche("books", "--journal", str(bar), option, value)
    assert result.returncode == 2 and result.stdout == ""
    assert f"{value!r} is not a date" in result.stderr


def test_a_period_that_ends_before_it_starts_is_refused(
    bar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "--journal", str(bar), "--since", "2026-11-02", "--until", "2026-11-01"
    )
    assert status == 2 and out == ""
    assert (
        "the period is empty: --until ends it at 2026-11-02 00:00, "
        "which is not after --since starts it at 2026-11-02 00:00"
    ) in err


def test_dates_are_local_days_and_iso_times() -> None:
    assert parse_when("2026-11-01") == at(1, 0)
    assert parse_when("2026-11-01", end=True) == at(2, 0)
    assert parse_when("2026-11-01T18:30") == at(1, 18, 30)
    assert (
        parse_when("2026-11-01T18:30:00+00:00")
        == datetime.fromisoformat("2026-11-01T18:30:00+00:00").timestamp()
    )
    with pytest.raises(ValueError, match="'soon' is not a date"):
        parse_when("soon")


def test_docs_show_the_table_as_it_prints(bar: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/credits.md's example is this fixture's table, verbatim."""
    status, out, _ = run(capsys, "--journal", str(bar))
    assert status == 0
    doc = (REPO / "docs" / "credits.md").read_text("utf-8")
    assert out in doc, "docs/credits.md must show oche books' table as it prints"
