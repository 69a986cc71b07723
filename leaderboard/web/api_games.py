"""``GET /api/games``: the games a board plays, for the board page's set-up
form (docs/leaderboard.md, "Controlling a board"): each game's options (type,
default, choices or bounds, help) and the lineups it takes, from the engine's
registry, and the computer players' levels and the averages a ``new_game``
may give one. The same for every board: it changes only with Oche's version."""

from __future__ import annotations

from functools import cache
from typing import Literal

from fastapi import APIRouter

from engine import game_class, game_ids
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.lineup import MAX_PLAYERS
from engine.options import Option
from leaderboard.api_models import (
    CpuLevel,
    CpuPlayers,
    GameCatalogue,
    GameEntry,
    GameOptionEntry,
)
from mqtt_contract import CPU_AVERAGES

__all__ = ["catalogue", "router"]

router = APIRouter(prefix="/api", tags=["boards"])


def _option(option: Option) -> GameOptionEntry:
    kinds: dict[str, Literal["bool", "int", "str"]] = {"bool": "bool", "int": "int", "str": "str"}
    return GameOptionEntry(
        name=option.name,
        type=kinds[option.kind],
        default=option.default,
        help=option.help,
        choices=list(option.choices),
        minimum=option.minimum,
        maximum=option.maximum,
    )


@cache
def catalogue() -> GameCatalogue:
    """Every registered game and the computer players, built once. The options
    a player does not choose (a per-game seed, one not offered) are left out."""
    games = []
    for game_id in game_ids():
        game = game_class(game_id)
        low, high = game.sides_range
        games.append(
            GameEntry(
                id=game.id,
                name=game.name,
                summary=game.summary,
                options=[
                    _option(option)
                    for option in game.options_spec
                    if option.offered and not option.per_game
                ],
                lineup=game.lineup_rule(),
                sides_min=low,
                sides_max=high,
                max_players=MAX_PLAYERS,
                teams=game.teams_allowed,
            )
        )
    levels = [
        CpuLevel(level=level, average=average)
        for level, average in zip(LEVELS, TARGET_AVERAGES, strict=True)
    ]
    least, most = CPU_AVERAGES
    return GameCatalogue(
        games=games, cpu=CpuPlayers(levels=levels, average_min=least, average_max=most)
    )


@router.get("/games", response_model=GameCatalogue)
async def get_games() -> GameCatalogue:
    """The games a board plays, their options and lineups, and the computer players."""
    return catalogue()
