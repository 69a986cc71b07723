"""A stand-in for the board API (``/api/boards/{board}/...``, ``/api/games``)
in front of the real board page, for the page's own browser tests: the
routes and answers of docs/leaderboard.md's board API, but no MQTT and no
database. It pairs with one code, accepts one token, checks every command
with the contract's own parser (a 422 names the problem, as the real API
does) and records what the page sent, with its ``Authorization`` header;
``refuse_with`` makes it answer as a board that refuses (409). The real
API and board are driven end to end by tests/test_phone_end_to_end.py."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles

from engine import game_class, game_ids
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.lineup import MAX_PLAYERS
from leaderboard.live_hub import LiveHub
from leaderboard.web import app_shell, board_page
from leaderboard.web.api_live import live_stream
from leaderboard.web.app import STATIC_DIR
from leaderboard.web.security_headers import SecurityHeaders
from mqtt_contract import CPU_AVERAGES, CommandError, parse_command

__all__ = ["CODE", "TOKEN", "BoardApiStandIn", "SentCommand", "catalogue"]

CODE = "428913"
"""The pairing code the stand-in board shows."""
TOKEN = "stand-in-token-Zq3"
"""The token a pairing with :data:`CODE` gets."""
STREAM_CHECK_SECONDS = 0.1
"""How often an open stream checks ``streams_down`` (a keep-alive comment each time)."""
ROSTER = ("Bob", "Cy", "Dee")
"""The venue's roster the stand-in offers."""


@dataclass(frozen=True)
class SentCommand:
    """A command the page posted: its JSON and its ``Authorization`` header."""

    board: str
    payload: dict[str, Any]
    authorization: str | None


def catalogue() -> dict[str, Any]:
    """``GET /api/games`` as the real API builds it from the engine's registry."""
    games = []
    for game_id in game_ids():
        game = game_class(game_id)
        low, high = game.sides_range
        options = [
            {
                "name": option.name,
                "type": option.kind,
                "default": option.default,
                "help": option.help,
                "choices": list(option.choices),
                "minimum": option.minimum,
                "maximum": option.maximum,
            }
            for option in game.options_spec
            if option.offered and not option.per_game
        ]
        games.append(
            {
                "id": game.id,
                "name": game.name,
                "summary": game.summary,
                "options": options,
                "lineup": game.lineup_rule(),
                "sides_min": low,
                "sides_max": high,
                "max_players": MAX_PLAYERS,
                "teams": game.teams_allowed,
            }
        )
    levels = [
        {"level": level, "average": average}
        for level, average in zip(LEVELS, TARGET_AVERAGES, strict=True)
    ]
    least, most = CPU_AVERAGES
    return {"games": games, "cpu": {"levels": levels, "average_min": least, "average_max": most}}


@dataclass
class BoardApiStandIn:
    """The app: the real board page router, static files and security
    headers, with the stand-in API; ``hub`` holds the boards' states."""

    hub: LiveHub = field(default_factory=LiveHub)
    commands: list[SentCommand] = field(default_factory=list)
    pairings: list[dict[str, Any]] = field(default_factory=list)
    unpaired: list[str] = field(default_factory=list)
    refuse_with: str | None = None
    revoked: bool = False
    streams_down: bool = False
    """While True, open live streams end and new ones get a 503 (the service went away)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def app(self) -> FastAPI:
        """A FastAPI app serving the page against this stand-in."""
        app = FastAPI(docs_url=None, redoc_url=None)
        app.state.hub = self.hub
        app.include_router(board_page.router)
        app.include_router(app_shell.router)  # every page links the manifest, icons and worker
        app.include_router(self._router())
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
        app.add_middleware(SecurityHeaders)
        return app

    def sent(self) -> list[SentCommand]:
        """The commands recorded so far."""
        with self._lock:
            return list(self.commands)

    async def _stream(self, board: str) -> AsyncIterator[str]:
        """The real live stream of ``board`` (its events too), ended once ``streams_down``."""
        async for chunk in live_stream(self.hub, None, STREAM_CHECK_SECONDS, board):
            if self.streams_down:
                return
            yield chunk

    def _authorized(self, request: Request) -> JSONResponse | None:
        """None for this stand-in's live token, else the API's 401 or 403."""
        header = request.headers.get("authorization")
        if header is None or not header.startswith("Bearer "):
            return JSONResponse({"detail": "this device is not paired to the board"}, 401)
        if header != f"Bearer {TOKEN}":
            return JSONResponse({"detail": "unknown token"}, 401)
        if self.revoked:
            return JSONResponse({"detail": "this device was unpaired at the board"}, 403)
        return None

    def _router(self) -> APIRouter:
        router = APIRouter()

        @router.get("/api/boards/{board}/live", response_model=None)
        async def live(board: str) -> StreamingResponse | JSONResponse:
            if self.streams_down:
                return JSONResponse({"detail": "the service is restarting"}, 503)
            return StreamingResponse(self._stream(board), media_type="text/event-stream")

        @router.post("/api/boards/{board}/pair")
        async def pair(board: str, request: Request) -> JSONResponse:
            body = await request.json()
            with self._lock:
                self.pairings.append(body)
            if body.get("code") != CODE:
                return JSONResponse({"detail": "wrong pairing code"}, 403)
            device = {"id": "d-standin-1", "name": body.get("name", "")}
            return JSONResponse({"token": TOKEN, "board": board, "device": device})

        @router.get("/api/boards/{board}/pairing")
        async def pairing(board: str, request: Request) -> JSONResponse:
            refused = self._authorized(request)
            if refused is not None:
                return refused
            device = {"id": "d-standin-1", "name": "a phone"}
            return JSONResponse({"paired": True, "board": board, "device": device, "paired_at": 0})

        @router.delete("/api/boards/{board}/pairing")
        async def unpair(board: str, request: Request) -> Response:
            refused = self._authorized(request)
            if refused is not None:
                return refused
            with self._lock:
                self.unpaired.append(board)
            return Response(status_code=204)

        @router.post("/api/boards/{board}/command")
        async def command(board: str, request: Request) -> JSONResponse:
            body = await request.body()
            authorization = request.headers.get("authorization")
            refused = self._authorized(request)
            if refused is not None:
                return refused
            try:
                parse_command(body)
            except CommandError as error:
                return JSONResponse({"detail": str(error)}, 422)
            with self._lock:
                self.commands.append(SentCommand(board, await request.json(), authorization))
            if self.refuse_with is not None:
                return JSONResponse({"detail": self.refuse_with}, 409)
            return JSONResponse({"ok": True})

        @router.get("/api/games")
        async def games() -> JSONResponse:
            return JSONResponse(catalogue())

        @router.get("/api/boards/{board}/roster")
        async def roster(board: str) -> JSONResponse:
            players = [{"id": index, "name": name} for index, name in enumerate(ROSTER, 1)]
            return JSONResponse({"board": board, "players": players})

        return router
