"""A board's API over real HTTP, served by the whole service (``run_service``:
boards heard on a real Mosquitto, tokens in a real SQLite file, and on
PostgreSQL for the pairing's life), with a stand-in board answering ``pair``
and the game commands on ``cmd`` (tests/leaderboard/board_peer.py; the
daemon's pairing is another branch's): pairing with the board's code, a
token that controls its own board only, every control request refused
without one and nothing reaching ``cmd``, a device the board unpairs
refused, the board's own refusals, its live stream, the roster and the
game catalogue."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from engine import game_ids
from engine.bot_targets import LEVELS
from leaderboard.database import Database
from leaderboard.models import BoardPairing, Result
from leaderboard.sample_results import SimulatedPlayer, sample_result
from leaderboard.web.join_checks import BAD_CODES_PER_MINUTE
from mqtt_contract.pairing_payload import device_id_problem
from tests.leaderboard.app_server import ServiceThread
from tests.leaderboard.board_peer import WRONG_CODE, BoardPeer
from tests.leaderboard.polling import eventually
from tests.leaderboard.web_seed import seed
from tests.mosquitto_broker import MosquittoBroker
from tests.postgres_database import postgres_database

pytestmark = pytest.mark.slow

CODE = "482916"
BAR_CODE = "130575"


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A seeded database: a SQLite file, or PostgreSQL when parametrized so."""
    if getattr(request, "param", "sqlite") == "postgresql":
        with postgres_database() as url:
            yield _seeded(url)
        return
    yield _seeded(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")


def _seeded(url: str) -> str:
    database = Database(url)
    database.migrate()
    seed(database, games=2)
    database.dispose()
    return url


@pytest.fixture
def pub(mosquitto: MosquittoBroker) -> Iterator[BoardPeer]:
    peer = BoardPeer(mosquitto, "pub", CODE)
    yield peer
    peer.close()


@pytest.fixture
def bar(mosquitto: MosquittoBroker) -> Iterator[BoardPeer]:
    peer = BoardPeer(mosquitto, "bar", BAR_CODE)
    yield peer
    peer.close()


def heard(url: str, board: str) -> None:
    """Wait until the service heard ``board`` (its retained state)."""
    eventually(
        lambda: httpx.get(f"{url}/api/boards/{board}").status_code == 200,
        f"the service hears board {board}",
    )


def pair(url: str, board: str, code: str, name: str = "Ann's phone") -> httpx.Response:
    return httpx.post(
        f"{url}/api/boards/{board}/pair", json={"code": code, "name": name}, timeout=15
    )


def paired(url: str, peer: BoardPeer, name: str = "Ann's phone") -> str:
    """A token for ``peer``'s board, paired with its current code."""
    heard(url, peer.board)
    response = pair(url, peer.board, peer.code, name)
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def command(
    url: str, board: str, body: object, token: str | None = None, **kwargs: Any
) -> httpx.Response:
    headers = bearer(token) if token is not None else {}
    return httpx.post(
        f"{url}/api/boards/{board}/command", json=body, headers=headers, timeout=15, **kwargs
    )


def stored_pairings(url: str) -> list[BoardPairing]:
    database = Database(url)
    try:
        with database.session() as session:
            rows = list(session.execute(select(BoardPairing)).scalars())
            session.expunge_all()
            return rows
    finally:
        database.dispose()


CONTROLS: list[dict[str, Any]] = [
    {"command": "next"},
    {"command": "undo"},
    {"command": "miss"},
    {"command": "bounce"},
    {"command": "correct", "dart": 2, "segment": "T19"},
    {"command": "new_game", "game": "x01", "options": {"start": 301}, "players": ["Ann", "Bob"]},
    {"command": "rematch"},
    {"command": "end_game"},
]


# ------------------------------------------------------------------ pairing


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_the_board_s_code_pairs_a_device_whose_token_controls_the_board(
    db_url: str, service: ServiceThread, pub: BoardPeer
) -> None:
    heard(service.url, "pub")
    response = pair(service.url, "pub", CODE, "  Ann's phone ")
    assert response.status_code == 200, response.text
    answer = response.json()
    token, device = answer["token"], answer["device"]
    assert answer["board"] == "pub"
    assert device["name"] == "Ann's phone"
    assert device_id_problem(device["id"]) is None
    # The board was asked with the code and the minted device, and lists it.
    asked = pub.game_commands()[-1]
    assert asked["command"] == "pair" and asked["code"] == CODE
    assert asked["device"] == device
    assert [known["id"] for known in pub.devices] == [device["id"]]
    assert pub.code != CODE  # the board made a new code

    status = httpx.get(f"{service.url}/api/boards/pub/pairing", headers=bearer(token))
    assert status.status_code == 200, status.text
    assert status.json()["device"] == device and status.json()["board"] == "pub"

    for body in CONTROLS:
        taken = command(service.url, "pub", body, token)
        assert taken.status_code == 200, (body, taken.text)
        assert taken.json() == {"ok": True}
    sent = [c for c in pub.drain() if c["command"] != "pair"]
    assert [{k: v for k, v in c.items() if k != "id"} for c in sent] == CONTROLS

    # Only the token's SHA-256 is stored, with the board and the device.
    (row,) = stored_pairings(db_url)
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert (row.board, row.device_id, row.device_name) == ("pub", device["id"], "Ann's phone")
    assert token not in json.dumps(
        [row.token_hash, row.board, row.device_id, row.device_name, row.created_at]
    )


def test_a_wrong_code_is_refused_with_the_board_s_reason_and_too_many_are_429(
    service: ServiceThread, pub: BoardPeer
) -> None:
    heard(service.url, "pub")
    wrong = pair(service.url, "pub", "000000")
    assert wrong.status_code == 403
    assert wrong.json() == {"detail": WRONG_CODE}
    assert "token" not in wrong.text
    for _ in range(BAD_CODES_PER_MINUTE - 1):
        assert pair(service.url, "pub", "000000").status_code == 403
    limited = pair(service.url, "pub", CODE)  # even the right code, for the rest of the minute
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) >= 1
    assert pub.devices == []
    assert stored_pairings(service.settings.db_url) == []


@pytest.mark.parametrize(
    "body",
    [
        {"code": "48291", "name": "phone"},
        {"code": "4829166", "name": "phone"},
        {"code": "48291a", "name": "phone"},
        {"code": CODE, "name": "   "},
        {"code": CODE, "name": "x" * 65},
        {"code": CODE, "name": "tab\there"},
        {"code": CODE},
        {"code": CODE, "name": "phone", "device": "mine"},
    ],
)
def test_a_malformed_pairing_is_a_422_and_never_reaches_the_board(
    service: ServiceThread, pub: BoardPeer, body: dict[str, Any]
) -> None:
    heard(service.url, "pub")
    response = httpx.post(f"{service.url}/api/boards/pub/pair", json=body, timeout=15)
    assert response.status_code == 422, response.text
    assert pub.drain() == []


def test_pairing_a_board_the_service_never_heard_is_a_404(
    service: ServiceThread, pub: BoardPeer
) -> None:
    heard(service.url, "pub")
    response = pair(service.url, "nowhere", CODE)
    assert response.status_code == 404
    assert "nowhere" in response.json()["detail"]


# ------------------------------------------------- without a token, nothing


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer not-a-token-the-service-made"},
        {"Authorization": "Basic YWRtaW46YWRtaW4="},
        {"Authorization": "Bearer " + "A" * 4000},
    ],
    ids=["none", "empty", "unknown", "basic", "huge"],
)
def test_without_a_token_every_control_is_401_and_nothing_reaches_the_board(
    service: ServiceThread, pub: BoardPeer, headers: dict[str, str]
) -> None:
    paired(service.url, pub)  # a device is paired: its token is not these
    before = pub.drain()
    for body in [*CONTROLS, {"command": "pair", "code": pub.code, "device": {}}]:
        refused = httpx.post(
            f"{service.url}/api/boards/pub/command", json=body, headers=headers, timeout=15
        )
        assert refused.status_code == 401, (body, refused.text)
        assert refused.headers["WWW-Authenticate"] == "Bearer"
        assert "pair" in refused.json()["detail"]
    for path in ("pairing", "roster"):
        refused = httpx.get(f"{service.url}/api/boards/pub/{path}", headers=headers)
        assert refused.status_code == 401, (path, refused.text)
    assert httpx.delete(f"{service.url}/api/boards/pub/pairing", headers=headers).status_code == 401
    assert pub.drain() == before


def test_a_token_controls_its_own_board_only(
    service: ServiceThread, pub: BoardPeer, bar: BoardPeer
) -> None:
    pub_token = paired(service.url, pub)
    bar_token = paired(service.url, bar, "Bob's tablet")
    bar_before = bar.drain()
    for body in CONTROLS:
        refused = command(service.url, "bar", body, pub_token)
        assert refused.status_code == 403, (body, refused.text)
        assert "another board" in refused.json()["detail"]
    assert httpx.get(f"{service.url}/api/boards/bar/pairing", headers=bearer(pub_token)).json()[
        "detail"
    ]
    assert bar.drain() == bar_before
    assert command(service.url, "bar", {"command": "next"}, bar_token).status_code == 200
    assert command(service.url, "pub", {"command": "next"}, pub_token).status_code == 200
    assert [c["command"] for c in bar.drain()][-1] == "next"


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_a_device_the_board_unpairs_is_refused_and_its_token_deleted(
    db_url: str, service: ServiceThread, pub: BoardPeer
) -> None:
    token = paired(service.url, pub)
    other = paired(service.url, pub, "Bob's phone")
    assert command(service.url, "pub", {"command": "next"}, token).status_code == 200
    (ann,) = [row.device_id for row in stored_pairings(db_url) if row.device_name == "Ann's phone"]
    before = pub.drain()

    pub.unpair(ann)  # the operator's "Unpair" on the board
    eventually(
        lambda: command(service.url, "pub", {"command": "undo"}, token).status_code in (401, 403),
        "the unpaired device's command is refused",
    )
    eventually(
        lambda: [row.device_name for row in stored_pairings(db_url)] == ["Bob's phone"],
        "the unpaired device's token is deleted",
    )
    for body in CONTROLS:
        refused = command(service.url, "pub", body, token)
        assert refused.status_code == 401, (body, refused.text)
    status = httpx.get(f"{service.url}/api/boards/pub/pairing", headers=bearer(token))
    assert status.status_code == 401
    assert pub.drain() == before
    # The device the board still lists goes on controlling it.
    assert command(service.url, "pub", {"command": "miss"}, other).status_code == 200


def test_a_pairing_message_that_is_no_list_changes_nothing_and_a_cleared_one_unpairs_all(
    service: ServiceThread, pub: BoardPeer
) -> None:
    token = paired(service.url, pub)
    pub.publish_raw_pairing(b'{"code": "12"}')  # not a pairing state: ignored
    pub.publish_raw_pairing(b"not json")
    # A state published after them arrives after them (one publisher, one subscriber).
    pub.publish_state({"phase": "idle", "board": {"id": "pub"}, "after": "garbage"})
    eventually(
        lambda: httpx.get(f"{service.url}/api/boards/pub").json()["state"].get("after"),
        "the service heard the state after the unreadable pairing messages",
    )
    assert len(stored_pairings(service.settings.db_url)) == 1
    assert command(service.url, "pub", {"command": "next"}, token).status_code == 200
    pub.publish_raw_pairing(b"")  # the board cleared its topic: no device is paired
    eventually(
        lambda: command(service.url, "pub", {"command": "next"}, token).status_code == 401,
        "a cleared pairing topic unpairs every device",
    )


def test_a_flood_of_pairing_messages_never_stalls_the_results_behind_it(
    service: ServiceThread, pub: BoardPeer
) -> None:
    # The service takes pairing at QoS 1 on its manual-PUBACK session: each
    # must be acknowledged, or the broker's in-flight window (20) fills and a
    # finished game's result waits behind them for ever.
    for _ in range(30):
        pub.publish_pairing()
    rng = random.Random(24)
    players = [SimulatedPlayer("Ann", 0.8, rng), SimulatedPlayer("Bob", 0.5, rng)]
    document = sample_result(rng, "pub", players, "x01", time.time())
    pub.publish_raw("result", json.dumps(document).encode())

    def stored() -> bool:
        database = Database(service.settings.db_url)
        try:
            with database.session() as session:
                return document["result_id"] in set(session.scalars(select(Result.result_id)))
        finally:
            database.dispose()

    eventually(stored, "the result behind 30 pairing messages is stored")


def test_forgetting_the_token_ends_its_control(service: ServiceThread, pub: BoardPeer) -> None:
    token = paired(service.url, pub)
    forgot = httpx.delete(f"{service.url}/api/boards/pub/pairing", headers=bearer(token))
    assert forgot.status_code == 204 and forgot.content == b""
    assert stored_pairings(service.settings.db_url) == []
    before = pub.drain()
    assert command(service.url, "pub", {"command": "next"}, token).status_code == 401
    assert pub.drain() == before


# ------------------------------------------------------- paired, refused


def test_the_board_s_refusal_is_a_409_with_its_reason(
    service: ServiceThread, pub: BoardPeer
) -> None:
    token = paired(service.url, pub)
    pub.refuse_with = "nothing to undo"
    refused = command(service.url, "pub", {"command": "undo"}, token)
    assert refused.status_code == 409
    assert refused.json() == {"detail": "nothing to undo"}


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"command": "fly"}, "unknown command 'fly'"),
        ({"command": "correct", "dart": 4, "segment": "T19"}, "dart"),
        ({"command": "correct", "dart": 1, "segment": "T21"}, "segment"),
        ({"command": "next", "darts": 3}, "unknown key 'darts'"),
        ({"command": "add_credits", "credits": 5}, "operator command"),
        ([{"command": "next"}], "JSON object"),
        ({"nothing": 1}, 'missing "command"'),
    ],
)
def test_a_command_the_board_would_not_take_is_a_422_naming_why_and_not_sent(
    service: ServiceThread, pub: BoardPeer, body: object, said: str
) -> None:
    token = paired(service.url, pub)
    before = pub.drain()
    refused = command(service.url, "pub", body, token)
    assert refused.status_code == 422, refused.text
    assert said in refused.json()["detail"][0]["msg"]
    assert pub.drain() == before


def test_pair_is_not_a_command_a_token_sends(service: ServiceThread, pub: BoardPeer) -> None:
    token = paired(service.url, pub)
    before = pub.drain()
    body = {"command": "pair", "code": pub.code, "device": {"id": "x" * 22, "name": "sneaky"}}
    refused = command(service.url, "pub", body, token)
    assert refused.status_code == 400
    assert "/pair" in refused.json()["detail"]
    assert pub.drain() == before
    assert len(pub.devices) == 1


def test_a_board_that_does_not_answer_is_a_503(
    service: ServiceThread, pub: BoardPeer, mosquitto: MosquittoBroker
) -> None:
    token = paired(service.url, pub)
    pub.close()  # the board went away (its retained state stays)
    silent = command(service.url, "pub", {"command": "next"}, token)
    assert silent.status_code == 503
    assert "did not answer" in silent.json()["detail"]


# --------------------------------------------------------------- reading


def test_the_board_and_its_own_live_stream(
    service: ServiceThread, pub: BoardPeer, bar: BoardPeer
) -> None:
    heard(service.url, "pub")
    heard(service.url, "bar")
    board = httpx.get(f"{service.url}/api/boards/pub").json()
    assert board["board"] == "pub" and board["availability"] == "online"
    assert board["state"]["phase"] == "idle"
    assert httpx.get(f"{service.url}/api/boards/nowhere").status_code == 404
    assert httpx.get(f"{service.url}/api/boards/nowhere/live").status_code == 404

    seen: list[tuple[str, dict[str, Any]]] = []
    with httpx.stream("GET", f"{service.url}/api/boards/pub/live", timeout=15) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        kind = ""
        for line in stream.iter_lines():
            if line.startswith("event: "):
                kind = line[len("event: ") :]
            elif line.startswith("data: "):
                seen.append((kind, json.loads(line[len("data: ") :])))
                if len(seen) == 1:  # the snapshot: now the changes
                    bar.publish_state({"phase": "idle", "board": {"id": "bar"}, "n": 1})
                    bar.event({"type": "dart", "segment": "S1"})
                    pub.event({"type": "dart", "player": 0, "segment": "T20"})
                    pub.publish_state({"phase": "throwing", "board": {"id": "pub"}})
                if kind == "state" and seen[-1][1]["state"]["phase"] == "throwing":
                    break
    assert seen[0][0] == "state" and seen[0][1]["board"] == "pub"
    assert seen[0][1]["state"]["phase"] == "idle"
    assert {data["board"] for _, data in seen} == {"pub"}
    events = [data for kind, data in seen if kind == "event"]
    assert events == [
        {
            "board": "pub",
            "venue": "The Crown",
            "event": {"type": "dart", "player": 0, "segment": "T20"},
        }
    ]


def test_the_roster_for_a_paired_device(service: ServiceThread, pub: BoardPeer) -> None:
    token = paired(service.url, pub)
    roster = httpx.get(f"{service.url}/api/boards/pub/roster", headers=bearer(token))
    assert roster.status_code == 200, roster.text
    answer = roster.json()
    assert answer["venue"] == "The Crown"
    names = [player["name"] for player in answer["players"]]
    assert "Ann" in names and "Bob" in names
    assert all(isinstance(player["id"], int) for player in answer["players"])


def test_the_game_catalogue_for_the_set_up_form(service: ServiceThread) -> None:
    catalogue = httpx.get(f"{service.url}/api/games").json()
    games = {game["id"]: game for game in catalogue["games"]}
    assert list(games) == list(game_ids())
    for game in games.values():
        assert game["name"] and game["lineup"]
        assert 1 <= game["sides_min"] <= game["sides_max"] <= game["max_players"]
        for option in game["options"]:
            assert option["type"] in ("bool", "int", "str")
            assert type(option["default"]).__name__ == option["type"]
            assert not option["choices"] or option["default"] in option["choices"]
    start = next(o for o in games["x01"]["options"] if o["name"] == "start")
    assert 301 in start["choices"]
    assert [level["level"] for level in catalogue["cpu"]["levels"]] == list(LEVELS)
    assert catalogue["cpu"]["average_min"] < catalogue["cpu"]["average_max"]
