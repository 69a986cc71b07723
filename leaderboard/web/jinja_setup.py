"""The one way the service's Jinja environments are made: on its templates
(``leaderboard/templates/``), autoescaped, blocks trimmed. The pages and the
board views each fill their own with filters (the pages import the views,
never the other way round), both from :func:`templates_environment`."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

__all__ = ["TEMPLATES_DIR", "templates_environment"]

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
"""The service's templates; the board views' are under ``board_views/``."""


def templates_environment() -> Environment:
    """A new environment on :data:`TEMPLATES_DIR`, every template autoescaped."""
    return Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
