"""Command parsing: a ``cmd`` payload read into its typed command (a
:data:`~mqtt_contract.GameCommand`: ``NewGame``, ``ThrowDart``, ``Next``, ...)
and an ``operator/cmd`` one into an :data:`~mqtt_contract.OperatorCommand`,
or a :class:`CommandError` that names what was wrong. The classes, and so the
schemas, are ``command_payload``'s and ``operator_payload``'s; the checks here
say in words what a schema says in keywords (and what it cannot: a team
roster's total, a board's address).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from engine import Bed, NotationError
from engine.bot_targets import LEVELS, MPR_SPAN
from engine.errors import LineupError
from engine.handicap import Handicap, HandicapError
from engine.lineup import MAX_PLAYERS, check_name
from mqtt_contract.command_payload import (
    COMMAND_ARGUMENTS,
    COMMAND_CLASSES,
    COMMANDS,
    REQUIRED_ARGUMENTS,
    CommandResponse,
    GameCommand,
)
from mqtt_contract.event_payload import OPERATOR_COMMANDS
from mqtt_contract.json_types import PayloadError
from mqtt_contract.lobby_commands import LOBBY_COMMANDS, check_lobby_command
from mqtt_contract.operator_payload import (
    OPERATOR_ARGUMENTS,
    OPERATOR_REQUIRED,
    AddCredits,
    OperatorCommand,
    ResetBooks,
    SetFreePlay,
    SetPrice,
    Unpair,
)
from mqtt_contract.pairing_payload import device_id_problem
from mqtt_contract.state_payload import CPU_AVERAGES
from mqtt_contract.topic_names import MAX_COMMAND_BYTES, MAX_COMMAND_DEPTH, BoardAddress


class CommandError(ValueError):
    """A ``cmd`` payload that cannot be run. The message names what was wrong;
    ``id`` is the command's id when it could be read (echo it in the response)."""

    def __init__(self, message: str, id: str | int | None = None) -> None:
        super().__init__(message)
        self.id = id


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not valid JSON")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _document_problem(document: Any) -> str | None:
    """What JSON allows but a command must not carry: nesting deeper than
    :data:`MAX_COMMAND_DEPTH`, or a string with a lone UTF-16 surrogate
    (``"\\ud800"``), which is not Unicode text and could not be echoed back."""
    pending: list[tuple[Any, int]] = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > MAX_COMMAND_DEPTH:
                return f"command is nested too deeply; the limit is {MAX_COMMAND_DEPTH} levels"
            items = [*value, *value.values()] if isinstance(value, dict) else value
            pending.extend((item, depth + 1) for item in items)
        elif isinstance(value, str) and (found := _SURROGATE.search(value)) is not None:
            return (
                f"command has a lone surrogate (\\u{ord(found.group()):04x}) in a string:"
                " JSON text must be Unicode"
            )
    return None


def _usable_id(document: Any) -> str | int | None:
    """The command's id when it can be echoed back, else ``None``."""
    raw_id = document.get("id") if isinstance(document, dict) else None
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        return raw_id
    return raw_id if isinstance(raw_id, str) and not _SURROGATE.search(raw_id) else None


def _command_document(payload: bytes) -> tuple[dict[str, Any], str | int | None]:
    """A command payload's JSON object and its id, checked as every command
    topic's are (size, UTF-8, JSON, depth, the id's type)."""
    if len(payload) > MAX_COMMAND_BYTES:
        raise CommandError(f"command is {len(payload)} bytes; the limit is {MAX_COMMAND_BYTES}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"command is not UTF-8 text (byte {exc.start} is invalid)") from None
    try:
        document = json.loads(text, parse_constant=reject_constant)
    except RecursionError:
        raise CommandError(
            f"command is nested too deeply; the limit is {MAX_COMMAND_DEPTH} levels"
        ) from None
    except ValueError as exc:
        raise CommandError(f"command is not valid JSON: {exc}") from None
    problem = _document_problem(document)
    if problem is not None:
        raise CommandError(problem, _usable_id(document))
    if not isinstance(document, dict):
        raise CommandError(f"command must be a JSON object, got {json_type(document)}")

    command_id: str | int | None = None
    if "id" in document:
        raw_id = document["id"]
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
            raise CommandError(f'"id" must be a string or an integer, got {json_type(raw_id)}')
        command_id = raw_id
    return document, command_id


_COMMAND_CLASSES = {cls.command: cls for cls in COMMAND_CLASSES}


def parse_command(
    payload: bytes, operator_topic: str = "{base}/{board}/operator/cmd"
) -> GameCommand:
    """Read and check one ``cmd`` payload into its command; a
    :class:`CommandError` says what is wrong. An operator command is refused,
    naming ``operator_topic``. A ``dart``'s segment comes in canonical
    notation; a ``new_game``'s players, teams, computer players and boards
    are read from it by attribute (``NewGame.player_names``, ``cpu``, ...)."""
    document, command_id = _command_document(payload)

    def fail(message: str) -> CommandError:
        return CommandError(message, command_id)

    valid = ", ".join(COMMANDS)
    if "command" not in document:
        raise fail(f'missing "command"; valid commands: {valid}')
    name = document["command"]
    if not isinstance(name, str):
        raise fail(f'"command" must be a string, got {json_type(name)}; valid commands: {valid}')
    if name in OPERATOR_COMMANDS:
        raise fail(f"{name} is an operator command: operator commands go on {operator_topic}")
    if name not in COMMANDS:
        raise fail(f"unknown command {name!r}; valid commands: {valid}")

    allowed = COMMAND_ARGUMENTS[name]
    problem = _keys_problem(document, name, allowed, REQUIRED_ARGUMENTS[name])
    if problem is not None:
        raise fail(problem)

    checked = {key: document[key] for key in ("command", "id", *allowed) if key in document}
    try:
        if name == "new_game":
            _check_new_game(checked)
        elif name == "dart":
            checked.update(check_dart(checked))
        elif name in LOBBY_COMMANDS:
            checked.update(check_lobby_command(name, checked))
        command = _COMMAND_CLASSES[name].from_json(checked)
    except (ValueError, PayloadError) as exc:  # a PayloadError: the checks above missed it
        raise fail(f"{name}: {exc}") from None
    assert isinstance(command, GameCommand)
    return command


def _keys_problem(
    document: dict[str, Any], name: str, allowed: Collection[str], required: Sequence[str]
) -> str | None:
    """What is wrong with a command's keys (one it does not take, one it
    needs and lacks), or ``None``."""
    unknown = [key for key in document if key not in ("command", "id") and key not in allowed]
    if unknown:
        keys = ", ".join(repr(key) for key in unknown)
        takes = f"it takes {', '.join(allowed)}" if allowed else "it takes no arguments"
        return f"unknown key{'s' if len(unknown) > 1 else ''} {keys} for {name}; {takes}"
    missing = [key for key in required if key not in document]
    if missing:
        return f"{name} needs {', '.join(repr(key) for key in missing)}"
    return None


def parse_operator_command(payload: bytes) -> OperatorCommand:
    """Read and check one ``operator/cmd`` payload (docs/credits.md); a
    :class:`CommandError` says what is wrong. A ``reason`` comes stripped
    (``None`` when blank or absent); ``set_price``'s ``game`` stripped and
    lower case (``None``: every game)."""
    document, command_id = _command_document(payload)

    def fail(message: str) -> CommandError:
        return CommandError(message, command_id)

    valid = ", ".join(OPERATOR_COMMANDS)
    name = document.get("command")
    if "command" not in document:
        raise fail(f'missing "command"; operator commands: {valid}')
    if not isinstance(name, str):
        raise fail(f'"command" must be a string, got {json_type(name)}; operator commands: {valid}')
    if name in COMMANDS:
        raise fail(f"{name} is a players' command: it goes on cmd, not operator/cmd")
    if name not in OPERATOR_COMMANDS:
        raise fail(f"unknown operator command {name!r}; operator commands: {valid}")
    allowed = OPERATOR_ARGUMENTS[name]
    problem = _keys_problem(document, name, allowed, OPERATOR_REQUIRED[name])
    if problem is not None:
        raise fail(problem)
    if name == "add_credits":
        count = document["count"]
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10000:
            raise fail(f'add_credits: "count" must be an integer from 1 to 10000, got {count!r}')
        return AddCredits(id=command_id, count=count, reason=_reason(document, fail))
    if name == "reset_books":
        return ResetBooks(id=command_id, reason=_reason(document, fail))
    if name == "set_free_play":
        on = document["on"]
        if not isinstance(on, bool):
            raise fail(f'set_free_play: "on" must be true or false, got {json_type(on)}')
        return SetFreePlay(id=command_id, on=on)
    if name == "unpair":
        if "device" not in document:
            return Unpair(id=command_id)
        device = document["device"]
        problem = device_id_problem(device) if isinstance(device, str) else None
        if not isinstance(device, str) or problem is not None:
            shown = problem or f"a device id is a string, got {json_type(device)}"
            raise fail(f'unpair: "device": {shown}; omit it to unpair every device')
        return Unpair(id=command_id, device=device)
    assert name == SetPrice.command, name
    price = document["price"]
    if price is not None and (
        isinstance(price, bool) or not isinstance(price, int) or not 0 <= price <= 1000
    ):
        raise fail(f'set_price: "price" must be an integer from 0 to 1000 or null, got {price!r}')
    game = document.get("game")
    if "game" in document and (not isinstance(game, str) or not game.strip()):
        raise fail(f'set_price: "game" must be a game id, got {game!r}')
    return SetPrice(id=command_id, price=price, game=None if game is None else game.strip().lower())


def _reason(document: dict[str, Any], fail: Callable[[str], CommandError]) -> str | None:
    """An operator command's ``reason``, stripped (``None`` when blank or absent)."""
    reason = document.get("reason")
    if reason is not None and (not isinstance(reason, str) or len(reason) > 200):
        raise fail(f'{document["command"]}: "reason" must be a string of at most 200 characters')
    return reason.strip() or None if isinstance(reason, str) else None


_PLAYER_FORMS = (
    'a player is a name or {"name": ...}, with "cpu": LEVEL for a computer player '
    'or "board": BOARD for a player at another board, and a handicap "start" (X01) or '
    '"marks" (Cricket)'
)
"""The player forms ``new_game`` takes, in the words its errors end with."""


def _non_empty_names(
    value: Any, what: str, cpu: dict[str, dict[str, Any]], boards: dict[str, str]
) -> list[str]:
    """The names of a list of players; a computer player's ``cpu`` goes into
    ``cpu``, a remote player's ``board`` into ``boards``."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of names, got {json_type(value)}")
    names = []
    for position, item in enumerate(value):
        where = f"{what}[{position}]"
        if isinstance(item, dict):
            name = _player_object(item, where, cpu, boards)
        elif isinstance(item, str):
            name = item
            checked_name(name, where)
        else:
            kind = json_type(item)
            raise ValueError(f"{where} must be a string or an object, got {kind}: {_PLAYER_FORMS}")
        names.append(name)
    return names


def _player_object(
    item: dict[str, Any], where: str, cpu: dict[str, dict[str, Any]], boards: dict[str, str]
) -> str:
    """Check ``{"name": ...}`` (a player at this board, as the bare name is),
    with ``"cpu"`` (a computer player) or ``"board"`` (a player at another
    board); returns the name."""
    unknown = [key for key in item if key not in ("name", "cpu", "board", "start", "marks")]
    if unknown:
        keys = ", ".join(repr(key) for key in unknown)
        raise ValueError(f"{where} has unknown key {keys}; {_PLAYER_FORMS}")
    if "name" not in item:
        raise ValueError(f'{where} needs "name": {_PLAYER_FORMS}')
    name = item["name"]
    if not isinstance(name, str):
        raise ValueError(f'{where}["name"] must be a string, got {json_type(name)}')
    key = checked_name(name, f'{where}["name"]')
    if "cpu" in item and "board" in item:
        raise ValueError(
            f'{where} has both "cpu" and "board": a computer player throws at the board '
            'that starts the game, so it has no "board"'
        )
    marks = item.get("marks")
    if marks is not None and not isinstance(marks, dict):
        raise ValueError(f'{where}["marks"] must be an object like {{"20": 3}}, got {marks!r}')
    try:
        Handicap.of(item.get("start"), marks)
    except HandicapError as error:
        raise ValueError(f"{where}: {error}") from None
    if "cpu" in item:
        cpu[key] = _cpu_spec(item["cpu"], where)
    elif "board" in item:
        board = item["board"]
        if not isinstance(board, str):
            raise ValueError(f'{where}["board"] must be a string, got {json_type(board)}')
        BoardAddress.parse(board, "oche")  # the syntax; the daemon adds its base
        boards[key] = board.strip()
    return name


def _cpu_spec(spec: Any, where: str) -> dict[str, Any]:
    """A computer player's ``"cpu"``: ``LEVEL``, ``{"average": A}`` (a 501 leg
    average) or ``{"mpr": M}`` (a Cricket MPR), checked."""
    low, high = LEVELS[0], LEVELS[-1]
    shapes = f'a level {low}-{high}, {{"average": A}} or {{"mpr": M}}'
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec not in LEVELS:
            raise ValueError(f'{where}["cpu"]: a level is {low} to {high}, not {spec}')
        return {"level": spec}
    if isinstance(spec, dict):
        if list(spec) not in (["average"], ["mpr"]):
            raise ValueError(
                f'{where}["cpu"] must be {shapes}, got keys {", ".join(map(repr, spec)) or "none"}'
            )
        ((key, figure),) = spec.items()
        least, most = CPU_AVERAGES if key == "average" else MPR_SPAN
        if isinstance(figure, bool) or not isinstance(figure, int | float):
            raise ValueError(f'{where}["cpu"]["{key}"] must be a number, got {json_type(figure)}')
        if not least <= figure <= most:
            raise ValueError(
                f'{where}["cpu"]["{key}"] {figure:g} is out of range: '
                f"the levels span {least:g} to {most:g}"
            )
        return {key: float(figure)}
    raise ValueError(f'{where}["cpu"] must be {shapes}, got {json_type(spec)}')


def checked_name(name: str, what: str) -> str:
    """``name`` stripped, as the game's lineup keeps it; a ValueError says why not."""
    try:
        return check_name(name, what)
    except LineupError as error:
        raise ValueError(str(error)) from None


def _check_new_game(arguments: dict[str, Any]) -> None:
    """What ``new_game``'s arguments must be, in words; a ValueError says what is not."""
    game = arguments["game"]
    if not isinstance(game, str):
        raise ValueError(f'"game" must be a string, got {json_type(game)}')
    if not game.strip():
        raise ValueError('"game" is empty')
    if "options" in arguments and not isinstance(arguments["options"], dict):
        raise ValueError(f'"options" must be an object, got {json_type(arguments["options"])}')
    teams: dict[str, list[str]] | None = None
    cpu: dict[str, dict[str, Any]] = {}
    boards: dict[str, str] = {}
    if "teams" in arguments:
        raw_teams = arguments["teams"]
        if not isinstance(raw_teams, dict):
            raise ValueError(
                f'"teams" must be an object of team name -> player names, '
                f"got {json_type(raw_teams)}"
            )
        if len(raw_teams) < 2:
            raise ValueError(f'"teams" needs at least two teams, got {len(raw_teams)}')
        teams = {}
        for team_name, members in raw_teams.items():
            checked_name(team_name, '"teams" name')
            teams[team_name] = _non_empty_names(members, f'"teams"[{team_name!r}]', cpu, boards)
            if not members:
                raise ValueError(f'"teams"[{team_name!r}] has no players')
    if "players" in arguments:
        players = _non_empty_names(arguments["players"], '"players"', cpu, boards)
        if not 1 <= len(players) <= MAX_PLAYERS:
            raise ValueError(f'"players" must list 1 to {MAX_PLAYERS} names, got {len(players)}')
    elif teams is not None:
        players = _interleave(teams)
        if len(players) > MAX_PLAYERS:
            raise ValueError(f'"teams" name {len(players)} players; the limit is {MAX_PLAYERS}')
    else:
        return  # no players: the lobby's play (the daemon asks its lobby)


def _interleave(teams: dict[str, list[str]]) -> list[str]:
    """The players in throwing order: each team's first, then each team's second, ..."""
    rosters = list(teams.values())
    longest = max(len(roster) for roster in rosters)
    return [roster[i] for i in range(longest) for roster in rosters if i < len(roster)]


def check_dart(arguments: dict[str, Any]) -> dict[str, Any]:
    segment = arguments["segment"]
    if not isinstance(segment, str):
        raise ValueError(f'"segment" must be a string, got {json_type(segment)}')
    try:
        bed = Bed.parse(segment)
    except NotationError:
        raise ValueError(
            f'"segment" {segment!r} is not a bed: expected S1-S20, D1-D20, T1-T20, SB, DB or M'
        ) from None
    return {"segment": bed.notation}


def response_payload(
    command_id: str | int | None, ok: bool, error: str | None = None, card: str | None = None
) -> dict[str, Any]:
    """The ``cmd/response`` payload ``{"id", "ok", "error"}``
    (:class:`~mqtt_contract.CommandResponse`): ``error`` is null when ok and
    required (non-empty) when not; ``card``, a join's linked card hash, only when given."""
    return CommandResponse(command_id, ok, error, card).to_json()
