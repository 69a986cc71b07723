"""Golden game files: replay each ``tests/golden/<game>/<case>.json`` log and
compare the final state with the hand-written expectation (see tests/goldens.py)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from engine import game_ids, new_game
from engine.game_log import format_game_log, replay_log
from tests.goldens import GOLDEN_DIR, GoldenCase, iter_cases, mismatches

CASES = list(iter_cases())
MIN_CASES_PER_GAME = 5
CASE_KEYS = {"players", "teams", "options", "log", "source", "expect"}


def _describe(case: GoldenCase) -> str:
    log = "".join(f"    {line}\n" for line in case.log.splitlines())
    return (
        f"golden case {case.name} ({case.source})\n"
        f"  players {case.players}, teams {case.teams}, options {case.options}\n"
        f"  log:\n{log}"
    )


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_case(case: GoldenCase) -> None:
    found = mismatches(case.expect, case.replay().state())
    assert found == [], (
        _describe(case) + "  mismatches:\n" + "\n".join(f"    {line}" for line in found)
    )


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_log_round_trips(case: GoldenCase) -> None:
    game = case.replay()
    text = format_game_log(game)
    again = replay_log(new_game(case.game, case.players, case.options, case.teams), text)
    assert again.state() == game.state(), _describe(case) + f"  formatted log:\n{text}"
    assert format_game_log(again) == text


def test_every_game_has_golden_cases() -> None:
    counts = Counter(case.game for case in CASES)
    short = {game: counts[game] for game in game_ids() if counts[game] < MIN_CASES_PER_GAME}
    assert short == {}, f"games with fewer than {MIN_CASES_PER_GAME} golden cases: {short}"


def test_golden_folders_are_game_ids() -> None:
    folders = {path.name for path in GOLDEN_DIR.iterdir() if path.is_dir()}
    assert folders <= set(game_ids())


def test_golden_files_are_well_formed() -> None:
    for path in sorted(GOLDEN_DIR.glob("*/*.json")):
        data = json.loads(path.read_text("utf-8"))
        assert set(data) <= CASE_KEYS, f"{path}: unknown keys {set(data) - CASE_KEYS}"
        assert data["source"].strip(), f"{path}: empty source"
        assert data["expect"], f"{path}: empty expect"
        assert all(isinstance(line, str) for line in data["log"]), f"{path}: log lines"
