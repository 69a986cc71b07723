"""The views rendered: :func:`scoreboard_html` (the board page's live
scoreboard) and :func:`board_card_html` (the TV's card), from a
:class:`leaderboard.api_models.LiveBoard`: the state parsed once, the
game's view picked by its id, the shared parts worked out here."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from engine import game_name
from leaderboard.api_models import LiveBoard
from leaderboard.web.board_views.base import (
    banners,
    last_visit_text,
    seats,
    turn_text,
    visit_awards_text,
    visit_on_board,
)
from leaderboard.web.board_views.match import call_panel, match_panel
from leaderboard.web.board_views.registry import view_for
from leaderboard.web.board_views.templating import ENVIRONMENT
from mqtt_contract import Phase, StateView

__all__ = ["board_card_html", "board_context", "scoreboard_html"]


def board_context(board: LiveBoard) -> dict[str, Any]:
    """What the scoreboard's and the card's templates read of ``board``."""
    state = StateView.from_json(board.state or {})
    playing = bool(state.game) and state.phase is not Phase.IDLE and bool(state.players)
    view = view_for(state.game)
    darts, visit_player = visit_on_board(state)
    name = state.board.name or board.board
    return {
        "board": board,
        "name": name,
        "state": state,
        "playing": playing,
        "view": view,
        "title": game_name(state.game),
        "subtitle": view.subtitle(state) if playing else "",
        "round_label": view.round_label(state) if playing else "",
        "seats": seats(state),
        "turn": turn_text(state) if playing else "",
        "banners": banners(state, board.availability),
        "visit": darts,
        "visit_player": visit_player,
        "visit_total": sum(dart.points for dart in darts),
        "visit_awards": visit_awards_text(state),
        "last_visit": last_visit_text(state),
        "match": match_panel(state) if playing else None,
        "call": call_panel(state, name),
        **(view.context(state) if playing else {}),
    }


def scoreboard_html(board: LiveBoard) -> Markup:
    """The board page's live scoreboard of ``board``: its game's own view."""
    template = ENVIRONMENT.get_template("board_views/scoreboard.html")
    return Markup(template.render(board_context(board)))


def board_card_html(board: LiveBoard) -> Markup:
    """The TV's compact card of ``board``: players, scores or marks, whose turn."""
    template = ENVIRONMENT.get_template("board_views/card.html")
    return Markup(template.render(board_context(board)))
