"""Golden matches (tests/golden/matches.json): replay each match's flat
events and compare its state, legs and statistics with the hand-worked
expectation; its result document carries the same legs."""

from __future__ import annotations

import pytest

from engine import MatchFormat, parse_event
from engine.match import Match
from mqtt_contract.result_payload import result_document
from tests.goldens import MatchCase, iter_match_cases, mismatches

CASES = list(iter_match_cases())


def replayed(case: MatchCase) -> Match:
    match = Match(case.game, case.players, case.options, format=MatchFormat.from_json(case.match))
    match.push_all(parse_event(token) for token in case.events.split())
    return match


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_match(case: MatchCase) -> None:
    match = replayed(case)
    found = mismatches(case.expect, match.state())
    for number, (expected, record) in enumerate(zip(case.legs, match.legs, strict=True), 1):
        found += mismatches(expected, record.game.state(), f"leg {number}")
    assert len(match.legs) == len(case.legs)
    for player, expected in enumerate(case.stats):
        found += mismatches(expected, match.stats(player), f"stats of {case.players[player]}")
    assert found == [], f"golden match {case.name} ({case.source}):\n" + "\n".join(found)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_match_result(case: MatchCase) -> None:
    match = replayed(case)
    document = result_document(
        match, result_id=case.name, board="pub", started_at=None, finished_at=1.0
    )
    assert [leg["winner"] for leg in document["legs"]] == [leg["winner"] for leg in case.legs]
    assert [line["stats"] for line in document["players"]] == [
        match.stats(player) for player in range(len(case.players))
    ]
