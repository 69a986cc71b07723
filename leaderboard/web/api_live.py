"""``GET /api/live`` (Server-Sent Events: new results and each board's state and
availability, as the hub posts them) and ``GET /api/boards`` (the boards now).
A stream takes one of the app's :class:`StreamSlots` and frees it when it
ends, however it ends; past the limits a client gets a 503 with
``Retry-After``, and the refusals are logged at most once a minute."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from leaderboard.api_models import LiveBoard
from leaderboard.live_hub import LiveHub, LiveMessage, StreamSlots
from leaderboard.log_throttle import ThrottledLog
from leaderboard.web.dependencies import HubDep, Problem, StreamSlotsDep, VenueQuery

__all__ = [
    "KEEP_ALIVE_SECONDS",
    "RETRY_AFTER_SECONDS",
    "live_stream",
    "open_stream",
    "router",
    "sse_text",
]

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["live"])

KEEP_ALIVE_SECONDS = 15.0
"""A comment line this often keeps proxies and the browser from closing an idle
stream (``app.state.keep_alive_seconds`` overrides it, for tests)."""
RETRY_AFTER_SECONDS = 30
"""A refused stream's ``Retry-After``: when a slot may have come free."""


@router.get("/boards", response_model=list[LiveBoard])
async def get_boards(hub: HubDep, venue: VenueQuery = None) -> list[LiveBoard]:
    """Every board seen so far, with its last state and availability, by board id."""
    return [board for board in hub.boards() if venue is None or board.venue == venue]


def sse_text(message: LiveMessage) -> str:
    """One SSE message: ``event: {kind}``, ``data: {compact JSON}``, a blank line."""
    data = json.dumps(message.data, ensure_ascii=False, separators=(",", ":"), default=str)
    return f"event: {message.kind}\ndata: {data}\n\n"


def _in_venue(message: LiveMessage, venue: str | None) -> bool:
    """A message for ``venue``'s clients: its board's or result's venue, or
    (a remote match's result) one of its players' ``venues``."""
    found: Any = message.data.get("venue")
    also: Any = message.data.get("venues")
    return (
        venue is None
        or found is None
        or found == venue
        or (isinstance(also, list) and venue in also)
    )


def _for_board(message: LiveMessage, board: str) -> bool:
    """A message of ``board``'s own stream: its state, availability and events."""
    return message.kind in ("state", "availability", "event") and message.data.get("board") == board


async def live_stream(
    hub: LiveHub, venue: str | None, keep_alive: float, board: str | None = None
) -> AsyncIterator[str]:
    """The boards already known (one ``state`` message each, carrying their
    availability too), then every message posted, with keep-alive comments.
    With ``board``: that board's alone, its ``event`` messages too (the
    every-board stream leaves events out: a dart on every board is a lot)."""
    messages = hub.subscribe()
    pending: asyncio.Future[LiveMessage] = asyncio.ensure_future(anext(messages))

    def wanted(message: LiveMessage) -> bool:
        if board is not None:
            return _for_board(message, board)
        return message.kind != "event" and _in_venue(message, venue)

    try:
        await asyncio.sleep(0)  # the subscription is registered before the snapshot
        yield ": connected\n\n"
        for known in hub.boards():
            snapshot = LiveMessage("state", known.model_dump())
            if wanted(snapshot):
                yield sse_text(snapshot)
        while True:
            done, _ = await asyncio.wait({pending}, timeout=keep_alive)
            if not done:
                yield ": keep-alive\n\n"
                continue
            message = pending.result()
            pending = asyncio.ensure_future(anext(messages))
            if not wanted(message):
                continue
            try:
                text = sse_text(message)
            except (TypeError, ValueError) as error:
                # Every stream would fail on the same message: one line a minute, not one each.
                _UNSENDABLE.warn(f"a live {message.kind} message cannot be sent: {error}")
                continue
            yield text
    finally:
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
            await pending
        if isinstance(messages, AsyncGenerator):
            await messages.aclose()


_UNSENDABLE = ThrottledLog(log)


class _SlotResponse(StreamingResponse):
    """A stream that calls ``release`` once it ends: finished, cancelled
    (the client went away), or failed."""

    def __init__(self, content: AsyncIterator[str], release: Callable[[], None]) -> None:
        super().__init__(
            content,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


@router.get(
    "/live",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "An endless text/event-stream: `event: result|state|availability|"
            "leaderboard` and `data: <JSON>`; first one `state` message per known board "
            "(a LiveBoard), then everything as it happens; a comment every 15 s.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        503: {
            "description": "Too many streams are open (in all, or from this client address): "
            "try again after `Retry-After` seconds.",
            "model": Problem,
        },
    },
)
async def get_live(
    request: Request, hub: HubDep, slots: StreamSlotsDep, venue: VenueQuery = None
) -> Response:
    """Server-Sent Events for the TV page and any other live client."""
    return open_stream(request, hub, slots, venue=venue)


def open_stream(
    request: Request,
    hub: LiveHub,
    slots: StreamSlots,
    *,
    venue: str | None = None,
    board: str | None = None,
) -> Response:
    """A live stream (every board's, or ``board``'s alone) in one of the
    app's slots; a 503 with ``Retry-After`` when none is free."""
    client = request.client.host if request.client else "unknown"
    refused = slots.acquire(client)
    if refused is not None:
        refusals: ThrottledLog = request.app.state.live_refusals
        refusals.warn(f"refused a live stream: {refused}")
        return JSONResponse(
            {"detail": f"{refused}: try again later"},
            status_code=503,
            # Connection: close frees the refused client's file descriptor now.
            headers={"Retry-After": str(RETRY_AFTER_SECONDS), "Connection": "close"},
        )
    keep_alive: float = getattr(request.app.state, "keep_alive_seconds", KEEP_ALIVE_SECONDS)
    try:
        stream = live_stream(hub, venue, keep_alive, board)
        return _SlotResponse(stream, lambda: slots.release(client))
    except BaseException:
        slots.release(client)
        raise
