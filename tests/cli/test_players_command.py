"""``oche players``: the roster from the command line on a real SQLite file
and a real PostgreSQL database; a card's UID is hashed with the venue secret
and never printed, logged or stored; bad input exits 2 with one line."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli.main import main
from firmware_bridge.daemon.config import Config
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.mosquitto_broker import free_port
from tests.postgres_database import postgres_url, sqlite_or_postgres_url

__all__ = ["postgres_url", "sqlite_or_postgres_url"]

SECRET = "the-crowns-card-secret"
UID = "04:A2:1B:3F"


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A user without a config file, whose state lives in ``tmp_path``; the
    venue secret in the environment."""
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("OCHE_CARD_SECRET", SECRET)


def oche(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def listed(capsys: pytest.CaptureFixture[str], db: list[str]) -> list[dict[str, Any]]:
    status, out, _ = oche(capsys, "players", "list", "--json", *db)
    assert status == 0
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def test_add_list_cards_rename_merge_and_forget(
    sqlite_or_postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    db = ["--db", sqlite_or_postgres_url]
    assert oche(capsys, "players", "add", "Ann", "--card", UID, *db) == (
        0,
        "added 'Ann' (id 1) at home: 1 card\n",
        "",
    )
    assert oche(capsys, "players", "add", "Bob", *db)[0] == 0
    assert oche(capsys, "players", "add", "Cy", "--venue", "The Crown", *db)[0] == 0
    assert oche(capsys, "players", "add", " ANN ", *db) == (
        2,
        "",
        "oche players: 'Ann' is in the roster at home already (id 1)\n",
    )
    assert listed(capsys, db) == [
        {"id": 1, "name": "Ann", "venue": "home", "cards": 1, "games": 0},
        {"id": 2, "name": "Bob", "venue": "home", "cards": 0, "games": 0},
        {"id": 3, "name": "Cy", "venue": "The Crown", "cards": 0, "games": 0},
    ]
    status, out, _ = oche(capsys, "players", "list", *db)
    assert out.splitlines() == [
        "ID  NAME  VENUE      CARDS  GAMES",
        " 1  Ann   home           1      0",
        " 2  Bob   home           0      0",
        " 3  Cy    The Crown      0      0",
    ]
    # the same card (written another way) is Ann's already
    assert oche(capsys, "players", "card", "add", "2", "--card", "04a21b3f", *db) == (
        2,
        "",
        "oche players: that card is Ann's (id 1) already\n",
    )
    assert oche(capsys, "players", "card", "add", "bob", "--card", "C0FFEE01", *db)[0] == 0
    assert oche(capsys, "players", "card", "remove", "Ann", "--card", "C0FFEE01", *db) == (
        2,
        "",
        "oche players: that card is not Ann's\n",
    )
    assert oche(capsys, "players", "card", "remove", "1", "--card", UID, *db) == (
        0,
        "card removed: 'Ann' (id 1) at home: no card\n",
        "",
    )
    assert oche(capsys, "players", "rename", "2", "Robert", *db) == (
        0,
        "renamed '2' to 'Robert' at home\n",
        "",
    )
    oche(capsys, "players", "add", "Bobby", *db)
    assert oche(capsys, "players", "rename", "bobby", "robert", *db)[2].startswith(
        "oche players: 'Robert' is another player at home (id 2): to make them one, merge"
    )
    assert oche(capsys, "players", "merge", "Bobby", "Robert", *db) == (
        0,
        "merged 'Bobby' into 'Robert' at home (0 games)\n",
        "",
    )
    assert oche(capsys, "players", "merge", "Ann", "Cy", *db)[2] == (
        "oche players: 'Ann' plays at home and 'Cy' at The Crown: only players of one venue merge\n"
    )
    nowhere = f"mqtt://127.0.0.1:{free_port()}"
    status, out, err = oche(capsys, "players", "forget", "2", "--mqtt", nowhere, *db)
    assert (status, out.splitlines()[0]) == (
        0,
        "forgot 'player 2' at home: their name and ratings are deleted; 0 games stay as "
        "'forgotten player'",
    )
    assert err.startswith(f"oche players: the retained snapshots on {nowhere} may still")
    assert [row["name"] for row in listed(capsys, db)] == ["Ann", "Cy"]
    assert oche(capsys, "players", "forget", "7", *db) == (
        2,
        "",
        "oche players: no player with id 7\n",
    )
    for uid in (UID, "04A21B3F", "C0FFEE01"):
        assert uid.lower() not in caplog.text.lower()


def test_a_renamed_player_keeps_their_games_in_the_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3"]
    assert oche(capsys, "players", "add", "Ann", "--card", UID, *db)[0] == 0
    results = tmp_path / "results.jsonl"
    lines = []
    for index, names in enumerate([["Annie", "Bob"], ["A.", "Bob"]]):
        document = result_document(
            "x01", X01_MOVES, players=names, options={"start": 301}, finished_at=1.78e9 + index
        )
        document["players"][0]["player_id"] = 1  # the board joined Ann by her card
        lines.append(as_payload(document))
    results.write_bytes(b"\n".join(lines) + b"\n")
    assert oche(capsys, "leaderboard", "import", str(results), *db)[0] == 0
    assert oche(capsys, "players", "rename", "Ann", "Ann Smith", *db)[0] == 0
    _, out, _ = oche(capsys, "leaderboard", "show", "--game", "x01", "--json", *db)
    rows = {row["player"]: row for row in json.loads(out)}
    assert (rows["Ann Smith"]["player_id"], rows["Ann Smith"]["played"]) == (1, 2)
    assert rows["Bob"]["player_id"] == 2
    assert {row["name"]: row["games"] for row in listed(capsys, db)} == {"Ann Smith": 2, "Bob": 2}
    # the leaderboard's own rename still merges
    assert oche(capsys, "leaderboard", "rename", "bob", "Ann Smith", *db)[1] == (
        "merged 'bob' into 'Ann Smith' at home (2 games)\n"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["add", "Ann", "--card", "not-a-card"], "oche players: --card: a card UID is 4 to 40"),
        (["add", "x" * 65], "oche players: a player's name has at most 64 characters"),
        (["add", "  "], "oche players: the new name is blank"),
        (["rename", "Nobody", "Ann"], "oche players: no player called 'Nobody'"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3"]
    oche(capsys, "players", "add", "Someone", *db)
    status, _, err = oche(capsys, "players", *args, *db)
    assert status == 2
    assert err.startswith(said) and err.count("\n") == 1
    assert "not-a-card" not in err


def test_a_card_needs_the_venue_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCHE_CARD_SECRET")
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3"]
    status, out, err = oche(capsys, "players", "add", "Ann", "--card", UID, *db)
    assert (status, out) == (2, "")
    assert err == (
        "oche players: a card needs the venue's card secret: set [cards] secret in the config "
        "(--config FILE; `oche cards secret` prints a new one) or OCHE_CARD_SECRET\n"
    )
    assert oche(capsys, "players", "add", "Ann", *db)[0] == 0  # no card: no secret needed


@pytest.mark.skipif(
    "cards" not in {field.name for field in dataclasses.fields(Config)},
    reason="the config's [cards] section comes with the card readers (issue #23's cards part)",
)
def test_the_secret_comes_from_the_configs_cards_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OCHE_CARD_SECRET")
    config = tmp_path / "oche.toml"
    config.write_text(f'[cards]\nsecret = "{SECRET}"\n')
    db = ["--db", f"sqlite:///{tmp_path}/lb.sqlite3"]
    assert (
        oche(capsys, "players", "add", "Ann", "--card", UID, "--config", str(config), *db)[0] == 0
    )
    monkeypatch.setenv("OCHE_CARD_SECRET", SECRET)
    assert oche(capsys, "players", "card", "add", "Ann", "--card", UID, *db)[2] == (
        "oche players: that card is theirs already\n"
    )
