"""``/boards/{board}``: a board's live scoreboard and remote control, the page
a phone or tablet by the board opens (docs/leaderboard.md, "The board
page"). The page is rendered with the board's last state, then
``static/board.js`` follows ``/api/boards/{board}/live`` and swaps in
``/boards/{board}/view`` (the scoreboard fragment) on every change. Its
controls post the board's MQTT commands to ``/api/boards/{board}/command``
with the paired device's token; reading needs none."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import AfterValidator

from engine.match_format import MAX_LEGS, MAX_SETS, Decider, Starts
from leaderboard.api_models import LiveBoard
from leaderboard.live_hub import LiveHub
from leaderboard.web.board_views import dartboard_svg, scoreboard_html
from leaderboard.web.dependencies import HubDep, PlainTextSchema, plain_text
from leaderboard.web.pages import TEMPLATES
from mqtt_contract.award_words import AWARD_ORDER, award_title
from mqtt_contract.scoreboard import leg_ordinal

__all__ = [
    "STARTS_WORDS",
    "BoardInPath",
    "award_titles",
    "board_now",
    "match_choices",
    "router",
]

router = APIRouter(include_in_schema=False)

BoardInPath = Annotated[
    str, AfterValidator(plain_text), Path(max_length=64, json_schema_extra=PlainTextSchema)
]
"""A board id in the path: plain text (a control character is a 422)."""


def board_now(hub: LiveHub, board: str) -> LiveBoard | None:
    """``board`` as the hub has it now, or None when the service never heard of it."""
    return next((known for known in hub.boards() if known.board == board), None)


STARTS_WORDS = {
    Starts.ALTERNATE: "In turn",
    Starts.LOSER: "The last leg's loser",
    Starts.WINNER: "The last leg's winner",
}
"""The set-up panel's words for who throws first in each leg after the first."""

DECIDER_WORDS = {Decider.NONE: "As any leg", Decider.CORK: "Bull for the throw (cork)"}
"""The set-up panel's words for the deciding leg's first throw."""


def match_choices() -> dict[str, object]:
    """The set-up panel's match format choices (legs, sets, starts, decider) and
    the leg ordinals board.js says a won leg with ("first" ...), from the engine's limits."""
    return {
        "leg_counts": range(1, MAX_LEGS + 1),
        "set_counts": range(1, MAX_SETS + 1),
        "starts": [(starts.value, words) for starts, words in STARTS_WORDS.items()],
        "deciders": [(decider.value, words) for decider, words in DECIDER_WORDS.items()],
        "ordinals": " ".join(leg_ordinal(n) for n in range(1, 2 * MAX_LEGS)),
    }


def award_titles() -> str:
    """Every award's name by id as JSON (``{"ton-80": "TON 80!", ...}``): board.js
    names an ``award`` event with it, as the display does."""
    return json.dumps({award: award_title(award) for award in AWARD_ORDER})


def _unheard(board: str) -> LiveBoard:
    """A board the service has no state of yet: shown as unknown, the page waits for it."""
    return LiveBoard(board=board, venue="", availability="unknown", state=None)


def _no_store(page: HTMLResponse) -> HTMLResponse:
    """A live page is never cached: a stale score is worse than a slow one."""
    page.headers["Cache-Control"] = "no-store"
    return page


@router.get("/boards/{board}", response_class=HTMLResponse)
async def board_page(request: Request, hub: HubDep, board: BoardInPath) -> HTMLResponse:
    """The live scoreboard, the drawn board and the controls of ``board``."""
    known = board_now(hub, board)
    context = {
        "board": board,
        "known": known is not None,
        "scoreboard": scoreboard_html(known or _unheard(board)),
        "dartboard": dartboard_svg(),
        "match_choices": match_choices(),
        "award_titles": award_titles(),
    }
    status = 200 if known is not None else 404
    return _no_store(TEMPLATES.TemplateResponse(request, "board.html", context, status))


@router.get("/boards/{board}/view", response_class=HTMLResponse)
async def board_view(hub: HubDep, board: BoardInPath) -> HTMLResponse:
    """The scoreboard fragment the page swaps in when the board's state changes."""
    known = board_now(hub, board)
    fragment = scoreboard_html(known or _unheard(board))
    return _no_store(HTMLResponse(str(fragment), 200 if known is not None else 404))
