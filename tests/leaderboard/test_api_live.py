"""``/api/live`` and ``/api/boards`` over real HTTP (uvicorn on a free port):
a client first gets every board already known, then each message posted to
the hub, as Server-Sent Events; a venue filter keeps other venues' boards out."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub, LiveMessage
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from tests.leaderboard.app_server import AppServer

X01_STATE: dict[str, Any] = {
    "game": "x01",
    "phase": "throwing",
    "round": 1,
    "players": [{"name": "Ann", "score": 241}, {"name": "Bob", "score": 301}],
    "current_player": 1,
    "visit": [],
    "finished": False,
    "winner": None,
    "board": {"id": "pub", "name": "Pub board"},
}


@pytest.fixture
def hub() -> LiveHub:
    return LiveHub()


@pytest.fixture
def server(hub: LiveHub, tmp_path: Any) -> Iterator[AppServer]:
    # The live routes read only the hub; the database is never opened here.
    app = create_app(Database(f"sqlite:///{tmp_path}/unused.sqlite3"), hub, VenueMap())
    server = AppServer(app)
    server.start()
    yield server
    server.stop()


def events(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(event, data)`` of each SSE message read from ``lines``; comments skipped."""
    kind = None
    for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            assert kind is not None, f"data without an event line: {line!r}"
            yield kind, json.loads(line.removeprefix("data: "))
            kind = None


def test_a_client_gets_the_known_boards_then_each_message_posted(
    server: AppServer, hub: LiveHub
) -> None:
    server.call(lambda: hub.board_availability("pub", "home", "online"))
    with (
        httpx.Client(base_url=server.url, timeout=5) as client,
        client.stream("GET", "/api/live") as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = events(response.iter_lines())
        kind, data = next(stream)
        assert (kind, data["board"], data["availability"]) == ("state", "pub", "online")

        server.call(lambda: hub.board_state("pub", "home", X01_STATE))
        kind, data = next(stream)
        assert kind == "state"
        assert data["state"]["players"][0] == {"name": "Ann", "score": 241}
        assert data["availability"] == "online"

        summary = {"result_id": "r-1", "board": "pub", "venue": "home", "winner_name": "Zoë"}
        server.call(lambda: hub.post(LiveMessage("result", summary)))
        assert next(stream) == ("result", summary)  # non-ASCII names survive

        server.call(lambda: hub.board_availability("pub", "home", "offline"))
        kind, data = next(stream)
        assert (kind, data["availability"], data["state"]["game"]) == (
            "availability",
            "offline",
            "x01",
        )


def test_a_venue_sees_only_its_own_boards_and_results(server: AppServer, hub: LiveHub) -> None:
    server.call(lambda: hub.board_availability("pub", "home", "online"))
    server.call(lambda: hub.board_availability("club1", "club", "online"))
    with (
        httpx.Client(base_url=server.url, timeout=5) as client,
        client.stream("GET", "/api/live", params={"venue": "club"}) as response,
    ):
        stream = events(response.iter_lines())
        assert next(stream)[1]["board"] == "club1"
        server.call(lambda: hub.post(LiveMessage("result", {"result_id": "a", "venue": "home"})))
        server.call(lambda: hub.post(LiveMessage("result", {"result_id": "b", "venue": "club"})))
        assert next(stream) == ("result", {"result_id": "b", "venue": "club"})

    with httpx.Client(base_url=server.url, timeout=5) as client:
        boards = client.get("/api/boards").json()
        assert [board["board"] for board in boards] == ["club1", "pub"]
        club = client.get("/api/boards", params={"venue": "club"}).json()
        assert club == [
            {"board": "club1", "venue": "club", "availability": "online", "state": None}
        ]


def test_a_remote_matchs_result_reaches_every_venue_of_its_players(
    server: AppServer, hub: LiveHub
) -> None:
    remote = {"result_id": "m", "venue": "The Crown", "venues": ["The Crown", "The Anchor"]}
    elsewhere = {"result_id": "x", "venue": "The Swan", "venues": ["The Swan"]}
    with (
        httpx.Client(base_url=server.url, timeout=5) as client,
        client.stream("GET", "/api/live", params={"venue": "The Anchor"}) as response,
    ):
        stream = events(response.iter_lines())
        server.call(lambda: hub.post(LiveMessage("result", elsewhere)))
        server.call(lambda: hub.post(LiveMessage("result", remote)))
        assert next(stream) == ("result", remote)


def test_a_closed_stream_leaves_the_hub(server: AppServer, hub: LiveHub) -> None:
    def subscribers() -> int:
        return server.call(lambda: len(hub._queues))

    with (
        httpx.Client(base_url=server.url, timeout=5) as client,
        client.stream("GET", "/api/live") as response,
    ):
        lines = response.iter_lines()  # kept: dropping it closes the response
        assert next(lines) == ": connected"
        assert subscribers() == 1
    deadline = time.monotonic() + 10
    while subscribers() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert subscribers() == 0


def test_an_idle_stream_gets_keep_alive_comments(server: AppServer) -> None:
    server.server.config.app.state.keep_alive_seconds = 0.05
    with (
        httpx.Client(base_url=server.url, timeout=5) as client,
        client.stream("GET", "/api/live") as response,
    ):
        lines = response.iter_lines()
        assert next(lines) == ": connected"
        assert [line for line in itertools.islice(lines, 4) if line] == [": keep-alive"] * 2
