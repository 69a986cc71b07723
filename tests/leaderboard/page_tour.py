"""Every page of the leaderboard service, served from seeded data for the
browser tests that walk them all (small screens, contrast, landmarks): a
SQLite file with a fortnight of history and today's games (results stored
through ``ingest``), three live boards on the hub (an X01 game, a Cricket
game with a computer player, one offline; the X01 game a match in its
deciding leg, the offline board with a match called to it), a board taking
phone joins, and the admin password. :func:`tour_pages` lists the paths a visitor can open."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from tests.leaderboard.app_server import AppServer
from tests.leaderboard.league_seed import LEAGUE_PAGE, seed_league
from tests.leaderboard.web_seed import (
    ADMIN_PASSWORD_HASH,
    TRICKY_NAME,
    VENUES,
    Seeded,
    seed,
    seed_history,
)

__all__ = [
    "BOARD_PAGE",
    "JOIN_CODE",
    "LIVE_STATES",
    "PageTour",
    "TourPage",
    "has_route",
    "page_tour",
    "tour_pages",
]

JOIN_CODE = "K7PQ2M"
"""The join code of board ``pub``'s lobby."""

BOARD_PAGE = "/boards/pub"
"""The board page of a live board (``/boards/{board}``): walked once the app has it."""

LONG_NAME = "Maximilian-Alexander"
"""A 20-character name with no space to break at (names are at most 24)."""

LIVE_STATES: dict[str, dict[str, Any]] = {
    "pub": {
        "game": "x01",
        "phase": "throwing",
        "round": 4,
        "players": [{"name": LONG_NAME, "score": 81}, {"name": "Bob", "score": 164}],
        "current_player": 0,
        "visit": ["T19", "S1"],
        "finished": False,
        "winner": None,
        "board": {"id": "pub", "name": "Pub board"},
        "lobby": {"join_code": JOIN_CODE, "join_url": "", "players": [], "card_waiting": False},
        "match": {
            "format": {"legs": 3, "sets": 3, "starts": "alternate", "decider": "none"},
            "leg": 9,
            "set": 3,
            "starter": 0,
            "legs_won": [2, 2],
            "sets_won": [1, 1],
            "decider": True,
            "leg_over": False,
            "cork": None,
            "finished": False,
            "winner": None,
            "winner_team": None,
            "played": [],
        },
    },
    "corner": {
        "game": "cricket",
        "phase": "throwing",
        "round": 2,
        "players": [
            {"name": "Cy", "score": 40},
            {"name": "Robo", "score": 15, "cpu": {"level": 6}},
        ],
        "current_player": 1,
        "visit": ["T20"],
        "finished": False,
        "winner": None,
        "board": {"id": "corner", "name": "Corner board"},
    },
    "back": {
        "game": "x01",
        "phase": "finished",
        "round": 9,
        "players": [{"name": "Dee", "score": 0}, {"name": "Eve", "score": 32}],
        "current_player": 0,
        "visit": [],
        "finished": True,
        "winner": 0,
        "board": {"id": "back", "name": "Back room"},
        "call": {
            "call_id": "cup-r2-m1",
            "title": "Friday Cup, round 2",
            "game": "x01",
            "options": {"start": 501},
            "match": {"legs": 2},
            "players": [{"name": LONG_NAME, "player_id": 1}, {"name": "Eve"}],
            "called_at": 1767225600.0,
        },
    },
}
"""The live boards' retained states (``back`` goes offline after its game)."""


@dataclass(frozen=True)
class TourPage:
    """A page to open: its path, what it is called in a failure, and whether
    it is an admin view (the browser must answer HTTP Basic)."""

    path: str
    label: str
    admin: bool = False
    status: int = 200


@dataclass
class PageTour:
    """The running app of a tour and what it was seeded with."""

    server: AppServer
    app: FastAPI
    seeded: Seeded

    @property
    def url(self) -> str:
        return self.server.url


def has_route(tour: PageTour, path: str) -> bool:
    """Whether the tour's app serves the page at ``path`` (an HTML answer, not
    the framework's JSON 404 for a route it does not have)."""
    answer = httpx.get(tour.url + path, timeout=10)
    return answer.headers.get("content-type", "").startswith("text/html")


def tour_pages(seeded: Seeded) -> list[TourPage]:
    """Every page of the service a visitor opens (the board page aside: see
    :data:`BOARD_PAGE`): the TV on each of its slides, a player card with
    charts, a markup name's card, results of X01 and Cricket, the join page
    and its refusal, the admin view, and the not-found pages."""
    return [
        TourPage("/?rotate=0&slide=table-x01", "TV, X01 table"),
        TourPage("/?rotate=0&slide=table-cricket", "TV, Cricket table"),
        TourPage("/?rotate=0&slide=records", "TV, records"),
        TourPage("/?rotate=0&slide=boards", "TV, live boards"),
        TourPage("/players/Ann", "player card with charts"),
        TourPage(f"/players/{TRICKY_NAME.replace('&', '%26')}", "player card of a markup name"),
        TourPage(f"/results/{seeded.result_ids['x01']}", "X01 result"),
        TourPage(f"/results/{seeded.result_ids['cricket-1']}", "Cricket result"),
        TourPage(f"/join/pub?code={JOIN_CODE}", "join page"),
        TourPage("/join/pub?code=WRONG1", "join refused", status=403),
        TourPage("/admin/rejected", "admin: rejected results", admin=True),
        TourPage("/players/Nobody", "player not found", status=404),
        TourPage("/results/no-such-result", "result not found", status=404),
        TourPage("/offline", "offline shell"),
        TourPage("/leagues", "leagues"),
        TourPage(LEAGUE_PAGE, "a league's standings and fixtures"),
        TourPage("/leagues/no-such-league", "league not found", status=404),
    ]


@contextmanager
def page_tour(folder: Path) -> Iterator[PageTour]:
    """The app over a freshly seeded SQLite file in ``folder``, with the live
    boards of :data:`LIVE_STATES`, served on uvicorn for the block."""
    database = Database(f"sqlite:///{folder / 'leaderboard.sqlite3'}")
    database.migrate()
    seed_history(database)
    seeded = seed(database)
    seed_league(database, VENUES)
    hub = LiveHub()
    app = create_app(database, hub, VENUES, admin_password_hash=ADMIN_PASSWORD_HASH)
    server = AppServer(app)
    server.start()
    try:
        for board, state in LIVE_STATES.items():
            venue = VENUES.venue_of(board)
            server.call(partial(hub.board_availability, board, venue, "online"))
            server.call(partial(hub.board_state, board, venue, state))
        server.call(lambda: hub.board_availability("back", VENUES.venue_of("back"), "offline"))
        yield PageTour(server, app, seeded)
    finally:
        server.stop()
        database.dispose()
