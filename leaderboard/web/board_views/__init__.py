"""The web's per-game views of a live board, the twin of ``display/scenes/``:
one module per game, registered by game id (:func:`view_for`), a generic
view for a game without one, rendered server-side with Jinja from the
board's state parsed once (``mqtt_contract.StateView``; templates under
``templates/board_views/``, styles in ``static/views.css``).

- :func:`scoreboard_html` — the board page's live scoreboard;
- :func:`board_card_html` — the TV's compact card of a board;
- :func:`dartboard_svg` — the drawn dartboard, every bed a button named by
  the engine's notation, and :func:`bed_centre`, where a dart's marker goes.

Importing the package registers every game's view. Like the scenes, these
modules may name game ids (tests/code_metrics.py allows it here).
"""

from leaderboard.web.board_views import (
    around_the_world,
    baseball,
    count_up,
    cricket,
    cricket_shanghai,
    domino_cribbage,
    english_cricket,
    fifty_one_by_fives,
    generic,
    killer,
    legs,
    shanghai,
    skill_test,
    x01,
)
from leaderboard.web.board_views.base import GameView
from leaderboard.web.board_views.dartboard import bed_centre, dartboard_svg
from leaderboard.web.board_views.registry import register_view, registered_views, view_for
from leaderboard.web.board_views.rendering import board_card_html, scoreboard_html

__all__ = [
    "GameView",
    "around_the_world",
    "baseball",
    "bed_centre",
    "board_card_html",
    "count_up",
    "cricket",
    "cricket_shanghai",
    "dartboard_svg",
    "domino_cribbage",
    "english_cricket",
    "fifty_one_by_fives",
    "generic",
    "killer",
    "legs",
    "register_view",
    "registered_views",
    "scoreboard_html",
    "shanghai",
    "skill_test",
    "view_for",
    "x01",
]
