"""The lobby's, the roster's and the after-game lines' payloads: they round
trip, their schemas accept what the types build, and a join code is checked."""

from __future__ import annotations

import jsonschema
import pytest

from mqtt_contract.json_types import PayloadError
from mqtt_contract.lobby_payload import (
    JoinedBy,
    LobbyPlayer,
    LobbyState,
    PlayerLine,
    PlayerRef,
    ResultLines,
    RosterMessage,
    RosterPlayer,
    Suggestion,
    join_code_problem,
)
from mqtt_contract.topics import TOPICS


def test_a_lobby_round_trips() -> None:
    lobby = LobbyState(
        players=(
            LobbyPlayer(name="Ann", player_id=3, joined_by=JoinedBy.CARD, joined_at=1.5e9),
            LobbyPlayer(name="Guest", joined_by=JoinedBy.NAME, joined_at=1.5e9),
        ),
        join_code="K7PQ2M",
        join_url="http://pub.local:8080/join/b1?code=K7PQ2M",
        suggestions=(Suggestion(name="Bob", player_id=4, regular=True),),
        roster=True,
    )
    assert LobbyState.from_json(lobby.to_json()) == lobby


def test_the_roster_and_lines_topics_accept_what_the_types_build() -> None:
    roster = RosterMessage(
        venue="crown",
        updated_at=1.7e9,
        players=(RosterPlayer(id=1, name="Ann", cards=("hmac-sha256$" + "A" * 43,)),),
    )
    jsonschema.validate(roster.to_json(), TOPICS["roster"].schema)
    lines = ResultLines(
        result_id="b1-1",
        game="x01",
        at=1.7e9,
        players=(PlayerLine(seat=0, name="Ann", player_id=1, average=45.2),),
    )
    jsonschema.validate(lines.to_json(), TOPICS["result/lines"].schema)


def test_a_player_ref_is_a_name_or_an_id() -> None:
    assert PlayerRef.from_json({"id": 12}).id == 12
    with pytest.raises(PayloadError):
        PlayerRef.from_json({"id": 0})


@pytest.mark.parametrize("code", ["K7PQ2", "K7PQ2MM", "k7pq2m", "K0PQ2M", "K1PQ2M"])
def test_a_bad_join_code_is_named(code: str) -> None:
    problem = join_code_problem(code)
    assert problem is not None and repr(code) in problem


def test_a_good_join_code_passes() -> None:
    assert join_code_problem("K7PQ2M") is None
