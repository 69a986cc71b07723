"""``oche leaderboard handicap``: suggested starts and spot marks from the
players' figures in a real database, and the formula's edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.handicap import Handicap, cricket_spot_marks, x01_starts
from firmware_bridge.cli.main import main
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document


def test_the_weaker_player_starts_lower_by_the_ratio_of_averages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.jsonl"
    document = result_document("x01", X01_MOVES, options={"start": 301})  # Ann 150.5, Bob 60
    results.write_bytes(as_payload(document) + b"\n")
    database = ["--db", f"sqlite:///{tmp_path / 'lb.db'}"]
    assert main(["leaderboard", "import", str(results), *database]) == 0
    capsys.readouterr()
    assert (
        main(["leaderboard", "handicap", "--game", "x01", "Ann", "bob", "--json", *database]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["new_game"] == {
        "command": "new_game",
        "game": "x01",
        "players": [{"name": "Ann", "start": 501}, {"name": "Bob", "start": 200}],
    }
    assert [line["three_dart_average"] for line in report["players"]] == [150.5, 60.0]
    assert main(["leaderboard", "handicap", "--game", "x01", "Ann", "Bob", *database]) == 0
    assert "from 200" in capsys.readouterr().out
    assert main(["leaderboard", "handicap", "--game", "x01", "Ann", "Zed", *database]) == 2
    assert "'Zed' has no x01 games" in capsys.readouterr().err
    assert main(["leaderboard", "handicap", "--game", "killer", "Ann", "Bob", *database]) == 2


def test_x01_starts_keep_the_strongest_at_the_start() -> None:
    assert x01_starts([90.0, 45.0, 30.0], 501) == (501, 250, 167)
    assert x01_starts([90.0, 0.0], 301) == (301, 301)
    assert x01_starts([100.0, 0.1], 501) == (501, 2)


def test_cricket_spot_marks_go_on_the_bull_first_and_never_close_everything() -> None:
    assert cricket_spot_marks([3.0, 1.5]) == (
        Handicap(),
        Handicap.of(marks={"bull": 3, "15": 3, "16": 3, "17": 1}),
    )
    weakest = cricket_spot_marks([5.0, 0.01])[1]
    assert sum(count for _, count in weakest.marks) == 20
