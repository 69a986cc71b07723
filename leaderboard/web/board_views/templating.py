"""The views' own Jinja environment on the service's templates
(templates/board_views/), autoescaped: the pages import the views, never
the other way round, so the views do not use the pages' environment."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from leaderboard.web.board_views.base import format_value, points_of
from leaderboard.web.board_views.generic import details

__all__ = ["ENVIRONMENT", "TEMPLATES_DIR"]

TEMPLATES_DIR = Path(__file__).resolve().parent.parent.parent / "templates"
"""The service's templates; the views' are under ``board_views/``."""

ENVIRONMENT = Environment(
    loader=FileSystemLoader(TEMPLATES_DIR),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
"""The environment every view renders with."""
ENVIRONMENT.filters["value"] = format_value
ENVIRONMENT.globals["details"] = details
ENVIRONMENT.globals["last_points"] = points_of
