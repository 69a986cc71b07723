"""``/api/boards/{board}/join`` over real HTTP, served by the whole service
(``run_service``: the boards' states from a real Mosquitto, a SQLite file),
with a board's lobby answering the relayed ``join`` (tests/leaderboard/
lobby_peer.py, the daemon's lobby being on another branch): the options a
code opens, a join by roster id and by a new name, and every refusal: 403
(a code not the board's current one), 404 (a board not heard), 409 (the
board's own refusal), 422 (a bad body), 429 (too many bad codes), 504 (a
board that does not answer); and a card the board linked, stored."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from leaderboard.command_relay import CommandRelay
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.phone_roster import venue_players
from leaderboard.service import ServiceSettings
from leaderboard.web.app import create_app
from leaderboard.web.join_checks import BAD_CODES_PER_MINUTE, EXPIRED_CODE
from tests.leaderboard.app_server import AppServer, ServiceThread
from tests.leaderboard.lobby_peer import EXPIRED, WAITING_CARD, LobbyPeer, lobby_names
from tests.leaderboard.web_seed import VENUES, seed
from tests.mosquitto_broker import MosquittoBroker

pytestmark = pytest.mark.slow

CODE = "K7PQ2M"
CORNER_CODE = "ZX9WQ4"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    database = Database(url)
    database.migrate()
    seed(database)
    database.dispose()
    return url


@pytest.fixture
def pub(mosquitto: MosquittoBroker, roster: dict[int, str]) -> Iterator[LobbyPeer]:
    peer = LobbyPeer(mosquitto, "pub", CODE, roster)
    yield peer
    peer.close()


def wait_for_board(url: str, board: str, code: str, timeout: float = 10.0) -> httpx.Response:
    """The join options once the service heard the board (its retained state)."""
    deadline = time.monotonic() + timeout
    while True:
        response = httpx.get(f"{url}/api/boards/{board}/join-options", params={"code": code})
        if response.status_code != 404 or time.monotonic() > deadline:
            return response
        time.sleep(0.05)


def join(url: str, board: str, body: dict[str, object]) -> httpx.Response:
    return httpx.post(f"{url}/api/boards/{board}/join", json=body, timeout=15)


def ann_id(roster: dict[int, str]) -> int:
    return next(pid for pid, name in roster.items() if name == "Ann")


def test_the_options_name_the_venue_s_players(
    service: ServiceThread, pub: LobbyPeer, roster: dict[int, str]
) -> None:
    response = wait_for_board(service.url, "pub", CODE)
    assert response.status_code == 200, response.text
    options = response.json()
    assert options["board"] == "pub"
    assert options["venue"] == "The Crown"
    assert {(p["id"], p["name"]) for p in options["players"]} == set(roster.items())
    assert options["card_waiting"] is False


def test_a_join_by_roster_id_is_relayed_by_name_with_the_code_and_lands_in_the_lobby(
    service: ServiceThread, pub: LobbyPeer, roster: dict[int, str]
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    response = join(service.url, "pub", {"code": CODE, "player": {"id": ann_id(roster)}})
    assert response.status_code == 200, response.text
    assert response.json() == {
        "board": "pub",
        "player": {"id": ann_id(roster), "name": "Ann"},
        "new_player": False,
        "card_linked": False,
    }
    command = pub.commands[-1]
    assert command["command"] == "join"
    # By name: the board's roster copy may not know a player made a moment ago.
    assert command["player"] == {"name": "Ann"}
    assert command["code"] == CODE
    assert "link_card" not in command
    assert isinstance(command["id"], str)
    assert lobby_names(httpx.get(f"{service.url}/api/boards").json()[0]["state"]) == ["Ann"]


def test_a_new_name_becomes_a_roster_player_and_joins_by_name(
    service: ServiceThread, pub: LobbyPeer, db_url: str
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    response = join(service.url, "pub", {"code": CODE, "player": {"name": "  Newbie "}})
    assert response.status_code == 200, response.text
    joined = response.json()
    assert joined["new_player"] is True
    assert joined["player"]["name"] == "Newbie"
    assert pub.commands[-1]["player"] == {"name": "Newbie"}
    database = Database(db_url)
    try:
        assert joined["player"]["id"] in {p.id for p in venue_players(database, "The Crown")}
    finally:
        database.dispose()
    again = join(service.url, "pub", {"code": CODE, "player": {"name": "NEWBIE"}})
    assert again.json()["player"]["id"] == joined["player"]["id"]  # case ignored: one player
    assert again.json()["new_player"] is False


def test_a_code_that_is_not_the_board_s_current_one_is_a_403(
    service: ServiceThread, pub: LobbyPeer, mosquitto: MosquittoBroker, roster: dict[int, str]
) -> None:
    corner = LobbyPeer(mosquitto, "corner", CORNER_CODE, roster)
    try:
        assert wait_for_board(service.url, "corner", CORNER_CODE).status_code == 200
        assert wait_for_board(service.url, "pub", CODE).status_code == 200
        other_board_s = join(service.url, "pub", {"code": CORNER_CODE, "player": {"name": "Ann"}})
        assert other_board_s.status_code == 403
        assert other_board_s.json() == {"detail": EXPIRED_CODE}
        pub.new_code("QWERTY")  # a game started
        deadline = time.monotonic() + 10
        while wait_for_board(service.url, "pub", CODE).status_code != 403:
            assert time.monotonic() < deadline, "the service kept the old code"
            time.sleep(0.05)
        expired = join(service.url, "pub", {"code": CODE, "player": {"name": "Ann"}})
        assert expired.status_code == 403
        assert pub.commands == []  # never relayed
    finally:
        corner.close()


def test_an_unknown_board_is_a_404(service: ServiceThread, pub: LobbyPeer) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    response = join(service.url, "nowhere", {"code": CODE, "player": {"name": "Ann"}})
    assert response.status_code == 404
    assert "nowhere" in response.json()["detail"]
    assert httpx.get(f"{service.url}/join/nowhere", params={"code": CODE}).status_code == 404


def test_the_board_s_own_refusal_is_a_409_with_its_reason(
    service: ServiceThread, pub: LobbyPeer
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    pub.refuse_with = "the lobby is full (8 players)"
    response = join(service.url, "pub", {"code": CODE, "player": {"name": "Ann"}})
    assert response.status_code == 409
    assert response.json() == {"detail": "the lobby is full (8 players)"}
    # The board has the last word on the code too (it changed in between).
    pub.refuse_with = None
    pub.code = "NEWCDE"
    response = join(service.url, "pub", {"code": CODE, "player": {"name": "Ann"}})
    assert response.status_code == 409
    assert response.json() == {"detail": EXPIRED}


@pytest.mark.parametrize(
    "body",
    [
        {"code": CODE, "player": {}},
        {"code": CODE, "player": {"id": 1, "name": "Ann"}},
        {"code": CODE, "player": {"name": ""}},
        {"code": CODE, "player": {"name": "x" * 25}},
        {"code": CODE, "player": {"name": "   "}},
        {"code": CODE, "player": {"id": 0}},
        {"code": CODE, "player": {"name": "Ann"}, "link_card": "yes"},
        {"player": {"name": "Ann"}},
        {"code": CODE, "player": {"name": "Ann"}, "extra": 1},
    ],
)
def test_a_bad_body_is_a_422_saying_what_is_wrong(
    service: ServiceThread, pub: LobbyPeer, body: dict[str, object]
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    response = join(service.url, "pub", body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"]
    assert pub.commands == []


def test_a_name_a_board_cannot_take_is_a_422_and_an_unknown_id_a_404(
    service: ServiceThread, pub: LobbyPeer
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    control = join(service.url, "pub", {"code": CODE, "player": {"name": "Ann\x07"}})
    assert control.status_code == 422
    assert "your name" in control.json()["detail"][0]["msg"]
    unknown = join(service.url, "pub", {"code": CODE, "player": {"id": 99999}})
    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "There is no player 99999 at The Crown"}
    assert pub.commands == []


def test_ten_bad_codes_a_minute_shut_the_client_out_even_with_the_right_one(
    service: ServiceThread, pub: LobbyPeer
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    for attempt in range(BAD_CODES_PER_MINUTE - 1):  # wait_for_board's 200 counted none
        bad = join(service.url, "pub", {"code": f"BAD{attempt:03d}", "player": {"name": "Ann"}})
        assert bad.status_code == 403
    assert httpx.get(f"{service.url}/join/pub", params={"code": "WRONG1"}).status_code == 403
    refused = join(service.url, "pub", {"code": CODE, "player": {"name": "Ann"}})
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert "Too many wrong codes" in refused.json()["detail"]
    page = httpx.get(f"{service.url}/join/pub", params={"code": CODE})
    assert page.status_code == 429
    assert pub.commands == []


def test_a_board_that_does_not_answer_is_a_504(
    service: ServiceThread, pub: LobbyPeer, mosquitto: MosquittoBroker
) -> None:
    assert wait_for_board(service.url, "pub", CODE).status_code == 200
    pub.close()  # its retained state stays, nobody answers its cmd
    started = time.monotonic()
    response = join(service.url, "pub", {"code": CODE, "player": {"name": "Ann"}})
    assert response.status_code == 504
    assert response.json() == {"detail": "board pub did not answer within 5 s"}
    assert time.monotonic() - started >= 5.0


def test_a_card_the_board_linked_is_stored_for_the_player(
    db_url: str, mosquitto: MosquittoBroker, roster: dict[int, str]
) -> None:
    """The app alone (uvicorn), its relay on the app's loop, the board's state handed to the hub."""
    linked: list[tuple[int, str]] = []
    settings = ServiceSettings(db_url=db_url, mqtt_url=mosquitto.url, venues=VENUES)
    relay = CommandRelay(settings)
    hub = LiveHub()
    database = Database(db_url)
    server = AppServer(
        create_app(
            database,
            hub,
            VENUES,
            relay=relay,
            card_linker=lambda player, card: linked.append((player, card)),
        )
    )
    server.start()
    peer = LobbyPeer(mosquitto, "pub", CODE, roster)
    peer.card_waiting = True
    peer.publish_state()
    try:
        task = server.call(lambda: asyncio.ensure_future(relay.run()))
        deadline = time.monotonic() + 10
        while not relay.connected:
            assert time.monotonic() < deadline, "the relay did not connect"
            time.sleep(0.02)
        state = {"lobby": {"players": [], "join_code": CODE, "card_waiting": True}}
        server.call(lambda: hub.board_state("pub", "The Crown", state))
        options = httpx.get(f"{server.url}/api/boards/pub/join-options", params={"code": CODE})
        assert options.json()["card_waiting"] is True
        body = {"code": CODE, "player": {"id": ann_id(roster)}, "link_card": True}
        response = join(server.url, "pub", body)
        assert response.status_code == 200, response.text
        assert response.json()["card_linked"] is True
        assert peer.commands[-1]["link_card"] is True
        assert linked == [(ann_id(roster), WAITING_CARD)]
        server.call(task.cancel)
    finally:
        peer.close()
        server.stop()
        database.dispose()
