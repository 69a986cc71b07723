"""The lobby's commands on ``cmd``: ``join`` and ``leave`` checked into their
arguments (docs/players.md). Kept apart from :mod:`mqtt_contract.commands`,
which calls :func:`check_lobby_command` for them, so each stays small.
"""

from __future__ import annotations

from typing import Any

from engine.errors import LineupError
from engine.lineup import check_name
from mqtt_contract.json_types import json_type
from mqtt_contract.lobby_payload import PlayerRef, join_code_problem

__all__ = ["LOBBY_COMMANDS", "check_lobby_command", "check_player_ref"]

LOBBY_COMMANDS = ("join", "leave")
"""The commands the lobby takes (the daemon's lobby extension runs them)."""

_PLAYER_FORMS = 'a player is {"name": NAME} or {"id": ROSTER_ID}'


def check_player_ref(value: Any, what: str = '"player"') -> PlayerRef:
    """``value`` as a :class:`PlayerRef`: exactly one of ``name`` (a board's
    player name, stripped) and ``id`` (an integer from 1); a ValueError says why not."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object, got {json_type(value)}: {_PLAYER_FORMS}")
    unknown = [key for key in value if key not in ("name", "id")]
    if unknown:
        keys = ", ".join(repr(key) for key in unknown)
        raise ValueError(f"{what} has unknown key {keys}: {_PLAYER_FORMS}")
    if ("name" in value) == ("id" in value):
        raise ValueError(f'{what} needs exactly one of "name" and "id": {_PLAYER_FORMS}')
    if "id" in value:
        player_id = value["id"]
        if type(player_id) is not int or player_id < 1:
            raise ValueError(
                f'{what}["id"] must be a roster id (an integer from 1), got {player_id!r}'
            )
        return PlayerRef(id=player_id)
    name = value["name"]
    if not isinstance(name, str):
        raise ValueError(f'{what}["name"] must be a string, got {json_type(name)}')
    try:
        return PlayerRef(name=check_name(name, f'{what}["name"]'))
    except LineupError as error:
        raise ValueError(str(error)) from None


def check_lobby_command(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``join``'s or ``leave``'s arguments checked, in words (a ValueError says
    what is wrong): ``player`` a :class:`PlayerRef` (its name stripped, as the
    returned ``player`` has it); for ``join`` also ``code`` (a join code) and
    ``link_card`` (true or false, and only with a code)."""
    checked: dict[str, Any] = {"player": check_player_ref(arguments["player"]).to_json()}
    if name == "leave":
        return checked
    code = arguments.get("code")
    if "code" in arguments:
        if not isinstance(code, str):
            raise ValueError(f'"code" must be a string, got {json_type(code)}')
        problem = join_code_problem(code)
        if problem is not None:
            raise ValueError(problem)
    link_card = arguments.get("link_card", False)
    if not isinstance(link_card, bool):
        raise ValueError(f'"link_card" must be true or false, got {json_type(link_card)}')
    if "link_card" in arguments and code is None:
        raise ValueError('"link_card" needs "code": a card is linked from the join page')
    return checked
