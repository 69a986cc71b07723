"""The views' own Jinja environment on the service's templates
(templates/board_views/), made as the pages' is
(:func:`leaderboard.web.jinja_setup.templates_environment`): the pages import
the views, never the other way round, so the views do not use the pages'."""

from __future__ import annotations

from leaderboard.web.board_views.base import format_value, points_of
from leaderboard.web.board_views.generic import details
from leaderboard.web.jinja_setup import TEMPLATES_DIR, templates_environment
from mqtt_contract.scoreboard import handicap_words

__all__ = ["ENVIRONMENT", "TEMPLATES_DIR"]

ENVIRONMENT = templates_environment()
"""The environment every view renders with."""
ENVIRONMENT.filters["value"] = format_value
ENVIRONMENT.filters["handicap"] = handicap_words
ENVIRONMENT.globals["details"] = details
ENVIRONMENT.globals["last_points"] = points_of
