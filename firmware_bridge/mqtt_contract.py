"""Oche's MQTT contract: the broker address, topics, payload schemas and
commands. The daemon, its config loader and the display all read URLs, bases
and board ids here, so what one takes, the others take. Home Assistant
discovery is the daemon's (firmware_bridge/daemon/home_assistant.py).

Every board publishes under ``{base}/{board}/`` (zigbee2mqtt style)::

    {base}/{board}/state          retained, QoS 1: the game state plus "board" and "phase"
    {base}/{board}/event          QoS 1: one message per thing that happened
    {base}/{board}/availability   retained, QoS 1: "online" / "offline" (plain strings)
    {base}/{board}/instance       retained, QoS 1: which daemon is the board's (host, pid)
    {base}/{board}/cmd            QoS 1: commands to the board (JSON objects)
    {base}/{board}/cmd/response   QoS 1: the answer to each command
    {base}/{board}/result         QoS 1: finished games, at least once (dedupe by result_id)
    {base}/{board}/result/stored  QoS 1, from a leaderboard: this result is in its database

The leaderboard service (``oche leaderboard serve``) publishes two topics of its
own, outside every board's subtree (so ``leaderboard`` is not a board id)::

    {base}/leaderboard/{game}     retained, QoS 1: the game's top 10 and the day's records
    {base}/leaderboard/availability/{instance}   retained: "online" / "offline"

:data:`TOPICS` maps each topic name to its retain flag, QoS and the JSON Schema
(draft 2020-12) of its payload; ``docs/mqtt.md`` prints those schemas. This
module is pure: it does no I/O. :mod:`firmware_bridge.daemon.mqtt_link` moves the
bytes.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine import Bed, Game, NotationError
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.errors import LineupError
from engine.game_log import format_game_log
from engine.lineup import MAX_NAME_LENGTH, MAX_PLAYERS, check_name
from engine.state_schema import BED_NOTATION_PATTERN, MARKS_KEYS, STATE_SCHEMA

__all__ = [
    "AVAILABILITY_OFFLINE",
    "AVAILABILITY_ONLINE",
    "BASE_PATTERN",
    "BOARD_ID_PATTERN",
    "BOARD_STATUSES",
    "COMMANDS",
    "COMMAND_TOPIC",
    "CPU_AVERAGES",
    "CREDIT_SOURCES",
    "DART_SOURCES",
    "DEFAULT_PORTS",
    "END_REASONS",
    "EVENT_TYPES",
    "GUEST_MESSAGE_TYPES",
    "HOST_MESSAGE_TYPES",
    "JOURNAL_STATUSES",
    "LATEST_TIMESTAMP",
    "LEADERBOARD_LEVEL",
    "LEADERBOARD_TOP",
    "LEADERBOARD_TOPIC",
    "MATCH_ID_PATTERN",
    "MAX_COMMAND_BYTES",
    "MAX_REMOTE_BYTES",
    "MAX_TOPIC_LEVEL",
    "NOT_YOUR_TURN",
    "OPERATOR_COMMANDS",
    "PHASES",
    "REMOTE_ACTIONS",
    "REMOTE_LEVEL",
    "REMOTE_MESSAGE_TYPES",
    "REMOTE_TOPIC",
    "REMOTE_TOPIC_SPEC",
    "RESULT_STORED_STATUSES",
    "TOPICS",
    "TOPIC_NAMES",
    "WAITING_REMOTE",
    "BoardAddress",
    "BrokerAddress",
    "Command",
    "CommandError",
    "RemoteMessage",
    "RemoteMessageError",
    "TopicSpec",
    "allow_problem",
    "check_base",
    "check_board_id",
    "check_subtopic",
    "cpu_label",
    "host_allowed",
    "invitation_filters",
    "leaderboard_availability_topic",
    "leaderboard_topic",
    "parse_broker_url",
    "parse_command",
    "parse_operator_command",
    "parse_remote_message",
    "remote_message",
    "remote_topic",
    "response_payload",
    "result_document",
    "topic",
]

# ---------------------------------------------------------------- topic names

TOPIC_NAMES = (
    "state",
    "event",
    "availability",
    "instance",
    "cmd",
    "cmd/response",
    "result",
    "result/stored",
    "operator/cmd",
    "operator/cmd/response",
    "books",
)
"""The topics of one board, relative to ``{base}/{board}/``. The ``operator/``
topics and ``books`` are the operator's alone (docs/credits.md): the deployed
ACL lets only an operator account write the one and read the others.
``result/stored`` is the leaderboard service's: it says which of the board's
results it has stored, so the board keeps each result until one has."""

MAX_TOPIC_LEVEL = 64
"""The longest base level or board id, in characters."""

BOARD_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
"""A board id: one topic level of letters, digits, ``_`` and ``-`` (what Home
Assistant accepts as a discovery node id), at most 64 characters."""

_LEVEL_PATTERN = r"[^/+#\s\x00-\x1f\x7f]{1,64}"
BASE_PATTERN = rf"(?!\$){_LEVEL_PATTERN}(?:/{_LEVEL_PATTERN})*"
"""The base topic: one or more levels of 1-64 characters, no wildcards (``+``,
``#``), white space or control characters, not starting with ``$`` (reserved
for brokers)."""

COMMAND_TOPIC: re.Pattern[str] = re.compile(
    rf"^(?P<base>{BASE_PATTERN})/(?P<board>{BOARD_ID_PATTERN})/cmd$"
)
"""Parses ``{base}/{board}/cmd`` into its ``base`` and ``board`` groups. The board
is the level before ``cmd``; the base is everything before it (it may have
several levels, e.g. ``home/darts``)."""

_BASE_RE = re.compile(rf"^{BASE_PATTERN}$")
_BOARD_RE = re.compile(rf"^{BOARD_ID_PATTERN}$")
_SUBTOPIC_RE = re.compile(r"^[^/+#\s]+(?:/[^/+#\s]+)*$")

LEADERBOARD_LEVEL = "leaderboard"
"""The level under the base where the leaderboard service publishes
``{base}/leaderboard/{game}``; no board may take it as its id."""

AVAILABILITY_ONLINE = "online"
AVAILABILITY_OFFLINE = "offline"

WAITING_REMOTE = "waiting-remote"
"""The phase of a remote match while a board of it is offline or has not
joined yet; no board's darts are taken."""

NOT_YOUR_TURN = "not-your-turn"
"""The reason of a dart ignored because the player who is up throws at
another board."""

REMOTE_LEVEL = "remote"
"""The topic level between a sender's board id and a recipient's."""

MATCH_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
"""A match id: what the host draws (32 hex digits), one topic-safe token."""

PHASES = ("idle", "throwing", "takeout", "finished", "waiting-remote")
"""The board's phase, published as ``phase`` in the state: ``waiting-remote``
while a remote match waits for a board that is offline or has not joined
(docs/remote.md)."""

BOARD_STATUSES = ("connected", "disconnected", "stuck")
"""``board.status`` in the state: ``stuck`` is connected with stuck cells masked."""

JOURNAL_STATUSES = ("ok", "full", "failing")
"""``journal.status`` in the state: the journal takes writes (``ok``), or
refuses them because its file system is full (``full``) or for another reason
(``failing``: a failing or read-only disk); then nothing is counted."""

MAX_COMMAND_BYTES = 65536
"""Longer ``cmd`` payloads are refused unread."""

MAX_COMMAND_DEPTH = 16
"""Deeper nested ``cmd`` payloads are refused (a command needs three levels)."""


def board_id_problem(board: str) -> str | None:
    """Why ``board`` cannot be a board id (:data:`BOARD_ID_PATTERN`), or ``None``."""
    if not board:
        return "must not be empty"
    if board == LEADERBOARD_LEVEL:
        return (
            f"{LEADERBOARD_LEVEL!r} is reserved: {{base}}/{LEADERBOARD_LEVEL}/ holds the "
            "leaderboard's snapshots"
        )
    if len(board) > MAX_TOPIC_LEVEL:
        return f"must be at most {MAX_TOPIC_LEVEL} characters, not {len(board)}"
    if not _BOARD_RE.match(board):
        bad = "".join(
            sorted({c for c in board if not (c.isascii() and (c.isalnum() or c in "_-"))})
        )
        return (
            f"must be letters, digits, '_' and '-' only, not {bad!r}: it is one MQTT topic "
            "level and part of Home Assistant's ids"
        )
    return None


def base_problem(base: str) -> str | None:
    """Why ``base`` cannot be a base topic (:data:`BASE_PATTERN`), or ``None``."""
    if not base:
        return "must not be empty"
    if base.startswith("$"):
        return "must not start with '$' (MQTT reserves those topics)"
    wildcards = [c for c in "+#" if c in base]
    if wildcards:
        return f"must not contain {' or '.join(repr(c) for c in wildcards)}: MQTT wildcards"
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in base):
        return "must not contain white space or control characters"
    levels = base.split("/")
    if not all(levels):
        return "must not have an empty level (a leading, trailing or double '/')"
    longest = max(len(level) for level in levels)
    if longest > MAX_TOPIC_LEVEL:
        return f"levels must be at most {MAX_TOPIC_LEVEL} characters, not {longest}"
    return None


def check_board_id(board: str) -> str:
    """``board`` if it is a board id, else a ValueError saying why."""
    problem = board_id_problem(board) if isinstance(board, str) else "must be a string"
    if problem:
        raise ValueError(f"bad board id {board!r}: {problem}")
    return board


def check_base(base: str) -> str:
    """``base`` if it is a base topic, else a ValueError saying why."""
    problem = base_problem(base) if isinstance(base, str) else "must be a string"
    if problem:
        raise ValueError(f"bad MQTT base topic {base!r}: {problem}")
    return base


# ---------------------------------------------------------------- the broker

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
"""The port of each URL scheme when the URL gives none."""

DEFAULT_WS_PATH = "/mqtt"
"""The websocket path when a ``ws://`` or ``wss://`` URL gives none (Mosquitto's
and most brokers' convention)."""


@dataclass(frozen=True)
class BrokerAddress:
    """A broker URL taken apart: where and how to connect."""

    host: str
    port: int
    transport: Literal["tcp", "websockets"]
    tls: bool
    ws_path: str | None
    username: str | None = None
    password: str | None = None

    @property
    def scheme(self) -> str:
        if self.transport == "websockets":
            return "wss" if self.tls else "ws"
        return "mqtts" if self.tls else "mqtt"

    @property
    def url(self) -> str:
        """The address as a URL without credentials, every part spelled out."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.ws_path or ''}"

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


class BrokerUrlError(ValueError):
    """A broker URL that cannot be used; ``problem`` says why, without the URL."""

    def __init__(self, url: str, problem: str) -> None:
        super().__init__(f"bad MQTT URL {url!r}: {problem}")
        self.problem = problem


def parse_broker_url(url: str) -> BrokerAddress:
    """``mqtt://[user[:pass]@]host[:port]``, ``mqtts://`` (TLS), ``ws://host[:port][/path]``
    or ``wss://``. Ports default per scheme (:data:`DEFAULT_PORTS`) and the
    websocket path to :data:`DEFAULT_WS_PATH`. A :class:`BrokerUrlError` says
    what is wrong."""
    text = url.strip() if isinstance(url, str) else ""
    if "://" not in text:
        raise BrokerUrlError(url, f'no scheme; write it like "mqtt://{text}"')
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        raise BrokerUrlError(url, "the port must be a number from 1 to 65535")
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BrokerUrlError(url, f'scheme "{parts.scheme}://" is not mqtt, mqtts, ws or wss')
    host = parts.hostname or ""
    if not host or any(c.isspace() for c in host):
        raise BrokerUrlError(url, "no valid host")
    if parts.query or parts.fragment:
        raise BrokerUrlError(url, "no query or fragment")
    websockets = scheme in ("ws", "wss")
    if not websockets and parts.path not in ("", "/"):
        raise BrokerUrlError(url, f"{scheme}:// URLs have no path ({parts.path!r})")
    return BrokerAddress(
        host=host,
        port=port or DEFAULT_PORTS[scheme],
        transport="websockets" if websockets else "tcp",
        tls=scheme in ("mqtts", "wss"),
        ws_path=(parts.path or DEFAULT_WS_PATH) if websockets else None,
        username=urllib.parse.unquote(parts.username) if parts.username else None,
        password=urllib.parse.unquote(parts.password) if parts.password is not None else None,
    )


def topic(base: str, board: str, name: str) -> str:
    """The full topic of ``name`` (one of :data:`TOPIC_NAMES`) for ``board``:
    ``{base}/{board}/{name}``. A ValueError names a bad base, board or name."""
    check_base(base)
    check_board_id(board)
    if name not in TOPIC_NAMES:
        raise ValueError(f"unknown topic {name!r}; topics are {', '.join(TOPIC_NAMES)}")
    return f"{base}/{board}/{name}"


def check_subtopic(subtopic: str) -> str:
    """``subtopic`` if it is one or more non-empty topic levels without wildcards."""
    if not isinstance(subtopic, str) or not _SUBTOPIC_RE.match(subtopic):
        raise ValueError(
            f"bad subtopic {subtopic!r}: non-empty levels separated by '/', "
            "no '+', '#' or white space"
        )
    return subtopic


# ------------------------------------------------------------------- schemas

_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_INDEX: dict[str, Any] = {"type": "integer", "minimum": 0}
_BED: dict[str, Any] = {"type": "string", "pattern": BED_NOTATION_PATTERN}
LATEST_TIMESTAMP = 4102444800.0
"""2100-01-01 00:00 UTC: no time in any payload may be later (a bound, so that
a stored time never breaks a date calculation)."""

_TIMESTAMP: dict[str, Any] = {
    "description": "Unix time in seconds (float), before 2100.",
    "type": "number",
    "minimum": 0,
    "maximum": LATEST_TIMESTAMP,
}
_COMMAND_ID: dict[str, Any] = {
    "description": "Chosen by the sender; echoed in the response.",
    "type": ["string", "integer"],
}
_BED_ANY_CASE = (
    r"^\s*([SsDdTt]([1-9]|1[0-9]|20)|[Ss][Bb]|[Dd][Bb]|[Mm])\s*$"  # what Bed.parse reads
)


def _state_body() -> dict[str, Any]:
    """STATE_SCHEMA without its draft and $defs (those go to the document root)."""
    body = copy.deepcopy(STATE_SCHEMA)
    body.pop("$schema", None)
    body.pop("$defs", None)
    return body


_BOARD: dict[str, Any] = {
    "description": "The physical board.",
    "type": "object",
    "properties": {
        "id": {"description": "The board id, as in the topics.", "type": "string"},
        "name": {"description": "A display name.", "type": "string"},
        "connected": {"description": "The daemon can talk to the board.", "type": "boolean"},
        "status": {
            "description": "connected; disconnected; or stuck (connected, with stuck cells "
            "masked until they are released).",
            "enum": [*BOARD_STATUSES],
        },
        "stuck_cells": {
            "description": "Matrix cells [row, col] stuck closed and masked.",
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [_INDEX, _INDEX],
                "minItems": 2,
                "maxItems": 2,
            },
        },
        "clock_synced": {
            "description": "False when the board's clock is not synchronised (its results "
            "then say so, docs/mqtt.md). Absent: true.",
            "type": "boolean",
        },
        "problem": {
            "description": "What is wrong with the board, in words, or null: while it is "
            "disconnected, why (its port and the reason: '/dev/oche-board: cannot open: No "
            "such file or directory: is the board plugged in?'); while connected, what its "
            "bytes say is set up wrongly (a wrong-protocol or wrong-speed diagnosis, "
            "docs/drivers.md), until the board is read again. Absent from older daemons.",
            "type": ["string", "null"],
        },
    },
    "required": ["id", "name", "connected", "status", "stuck_cells"],
    "allOf": [
        {
            "if": {"properties": {"status": {"const": "disconnected"}}, "required": ["status"]},
            "then": {"properties": {"connected": {"const": False}}},
            "else": {"properties": {"connected": {"const": True}}},
        }
    ],
}


CPU_AVERAGES = (TARGET_AVERAGES[0], TARGET_AVERAGES[-1])
"""The three-dart averages a bot can be asked for (``{"cpu": {"average": x}}``):
the span of the levels, level 1's to level 10's."""

DART_SOURCES = ("board", "manual", "cpu")
"""Who entered a ``dart`` event's dart: the board detected it; a person entered
it (a ``dart`` or ``miss`` command, the MISS button, the misses NEXT fills in);
or the daemon threw it for a computer player."""

_CPU_STATE: dict[str, Any] = {
    "description": "Only on a computer player (added by the daemon, not the engine): "
    "its level, the throw spread it throws with and the three-dart average that spread "
    "gives at T20.",
    "type": "object",
    "properties": {
        "level": {"type": "integer", "minimum": LEVELS[0], "maximum": LEVELS[-1]},
        "sigma_mm": {"type": "number", "exclusiveMinimum": 0},
        "average": {"type": "number", "minimum": 0},
    },
    "required": ["level", "sigma_mm", "average"],
}


_CREDITS_STATE: dict[str, Any] = {
    "description": "Added by the daemon (docs/credits.md): free play, or the credits a "
    "coin-operated board holds and what a game costs.",
    "type": "object",
    "properties": {
        "mode": {"enum": ["free", "coin"]},
        "free_play": {"description": "Every game is free now.", "type": "boolean"},
        "credits": {"description": "Credits held.", **_INDEX},
        "price": {"description": "Credits per player for a game now.", **_INDEX},
        "happy_hour": {"description": "A happy-hour window is on.", "type": "boolean"},
        "game_prices": {
            "description": "Coin mode, not free play: credits per player now for the games "
            "whose price is their own (game id -> credits); others cost player_prices or price.",
            "type": "object",
            "additionalProperties": _INDEX,
        },
        "player_prices": {
            "description": "Coin mode, not free play: credits per player now by the number "
            'of paying players ("3" -> credits), for games without a price of their own.',
            "type": "object",
            "additionalProperties": _INDEX,
        },
        "coins_today": {
            "description": "Mode coin: coin pulses since the local midnight ([credits] timezone).",
            **_INDEX,
        },
    },
    "required": ["mode", "free_play", "credits", "price"],
}

_JOURNAL_STATE: dict[str, Any] = {
    "description": "Added by the daemon (docs/journal.md): whether its journal takes "
    "writes. The daemon counts nothing it cannot journal: while status is not ok every "
    "dart, button and command is refused (each with an error event) until it writes again.",
    "type": "object",
    "properties": {
        "status": {
            "description": "ok; full (the journal's file system is full); failing (another "
            "write failure: a failing or read-only disk, a file damaged since the start).",
            "enum": [*JOURNAL_STATUSES],
        },
        "message": {
            "description": "While status is not ok, the line a screen shows, e.g. "
            '"the journal is full: darts are not counted"; null while it is ok.',
            "type": ["string", "null"],
        },
        "salvaged": {
            "description": "After a start that found the journal damaged, until the next "
            "game starts: the line a screen shows (where the damaged file was set aside, "
            "what was salvaged, whether the game in progress was lost); null otherwise.",
            "type": ["string", "null"],
        },
    },
    "required": ["status", "message", "salvaged"],
    "allOf": [
        {
            "if": {"properties": {"status": {"const": "ok"}}, "required": ["status"]},
            "then": {"properties": {"message": {"type": "null"}}},
            "else": {"properties": {"message": {"type": "string", "minLength": 1}}},
        }
    ],
}

_PLAYER_BOARD: dict[str, Any] = {
    "description": "Only in a remote match (added by the daemon): the board the player "
    "throws at, as base/board.",
    "type": "string",
}

_REMOTE_STATE: dict[str, Any] = {
    "description": "Only while this board is in a remote match (docs/remote.md): the "
    "match, the boards in it and where the player who is up throws. A guest publishes the "
    "host's state with its own board and role.",
    "type": "object",
    "properties": {
        "match": {"type": "string", "pattern": f"^{MATCH_ID_PATTERN}$"},
        "role": {"description": "This board's part in it.", "enum": ["host", "guest"]},
        "host": {"description": "The host, as base/board.", "type": "string"},
        "throwing_at": {
            "description": "The board of the player whose visit is on, as base/board; "
            "null when no visit is (the game is over, or the guest has no state yet).",
            "type": ["string", "null"],
        },
        "boards": {
            "description": "Every board of the match, the host first.",
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "board": {"description": "base/board.", "type": "string"},
                    "name": {"description": "Its display name.", "type": "string"},
                    "online": {"type": "boolean"},
                    "joined": {"type": "boolean"},
                    "applied": {
                        "description": "The highest forwarded action (seq) of this board "
                        "the host has taken, applied or ignored; 0 for the host.",
                        **_INDEX,
                    },
                },
                "required": ["board", "name", "online", "joined", "applied"],
            },
        },
        "waiting": {
            "description": "The boards the match waits for (offline, or not joined yet), "
            "as base/board; the phase is waiting-remote while this is not empty.",
            "type": "array",
            "items": {"type": "string"},
        },
    },
    "required": ["match", "role", "host", "throwing_at", "boards", "waiting"],
}


def cpu_label(name: str, cpu: Any) -> str:
    """How a screen names a player: ``Robo (CPU 6)`` for a computer player
    (``cpu`` is its state's ``cpu`` object), the plain name otherwise."""
    if isinstance(cpu, dict) and isinstance(cpu.get("level"), int):
        return f"{name} (CPU {cpu['level']})"
    return name


def _state_topic_schema() -> dict[str, Any]:
    body = _state_body()
    game_keys = list(body["required"])
    body["title"] = "Oche state topic"
    body["description"] = (
        "The retained state of a board: the game state (docs/state.md) plus board and "
        "phase. In phase idle there is no game: game is null and the other game keys "
        "are absent."
    )
    game = {**body["properties"]["game"], "type": ["string", "null"]}
    game["description"] = "The game id, e.g. x01, cricket; null in phase idle."
    body["properties"] = {
        **body["properties"],
        "game": game,
        "board": _BOARD,
        "phase": {
            "description": "idle (no game), throwing, takeout (darts being removed), "
            "finished, or waiting-remote (a remote match waits for a board; game is null "
            "on a guest that has no state from the host yet).",
            "enum": [*PHASES],
        },
    }
    body["required"] = ["board", "phase"]
    body["allOf"] = [
        {
            "if": {"properties": {"phase": {"const": "idle"}}, "required": ["phase"]},
            "then": {"properties": {"game": {"type": "null"}}},
        },
        {
            "if": {
                "properties": {"phase": {"enum": ["throwing", "takeout", "finished"]}},
                "required": ["phase"],
            },
            "then": {"required": game_keys, "properties": {"game": {"type": "string"}}},
        },
        {
            "if": {"properties": {"phase": {"const": WAITING_REMOTE}}, "required": ["phase"]},
            "then": {
                "required": ["remote"],
                "if": {"properties": {"game": {"type": "string"}}, "required": ["game"]},
                "then": {"required": game_keys},
            },
        },
        {
            "if": {"properties": {"phase": {"const": "finished"}}, "required": ["phase"]},
            "then": {"properties": {"finished": {"const": True}}},
        },
        {
            "if": {
                "properties": {"phase": {"enum": ["throwing", "takeout"]}},
                "required": ["phase"],
            },
            "then": {"properties": {"finished": {"const": False}}},
        },
        *body["allOf"],
    ]
    body["properties"]["remote"] = _REMOTE_STATE
    body["properties"]["credits"] = _CREDITS_STATE
    body["properties"]["journal"] = _JOURNAL_STATE
    defs = copy.deepcopy(STATE_SCHEMA["$defs"])
    defs["player"]["properties"]["cpu"] = _CPU_STATE
    defs["player"]["properties"]["board"] = _PLAYER_BOARD
    return {"$schema": _DRAFT, **body, "$defs": defs}


CREDIT_SOURCES = ("coin", "remote", "happy-hour", "free-play", "game")
"""Where a credit change comes from (a line of the books, a ``credits`` event)."""

OPERATOR_COMMANDS = ("add_credits", "set_free_play", "reset_books", "set_price")
"""The commands on ``{base}/{board}/operator/cmd`` (docs/credits.md); refused on ``cmd``."""

EVENT_TYPES = (
    "game_started",
    "dart",
    "bust",
    "visit_end",
    "takeout",
    "player_change",
    "points",
    "undo",
    "winner",
    "game_over",
    "stuck",
    "released",
    "board_connected",
    "board_disconnected",
    "error",
    "hit",
    "button",
    "credits",
    "bounce",
    "takeout_sensed",
    "battery",
)
"""The ``type`` of every ``event`` payload."""

_PLAYER_FIELD = {"description": "Player index into the state's players.", **_INDEX}
_NULLABLE_INDEX: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}
_MARKS_FIELDS: dict[str, Any] = {
    "marks": {
        "description": "Only on the event that moves cricket marks (Cricket's dart, "
        "Cricket-Shanghai's visit_end): the marks it scored, as the statistics count them.",
        **_INDEX,
    },
    "closed": {
        "description": "With marks: the targets the thrower's side closed, in marks order.",
        "type": "array",
        "items": {"enum": [*MARKS_KEYS]},
        "uniqueItems": True,
    },
}

_EVENT_FIELDS: dict[str, tuple[dict[str, Any], list[str]]] = {
    # type: (properties, required)
    "game_started": (
        {
            "game": {"type": "string", "minLength": 1},
            "options": {"type": "object"},
            "players": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "teams": {
                "description": "As in the state: null, or the teams with player indices.",
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "players": {"type": "array", "items": _INDEX},
                    },
                    "required": ["name", "players"],
                },
            },
        },
        ["game", "players"],
    ),
    "dart": (
        {
            "player": _PLAYER_FIELD,
            "segment": _BED,
            "points": {"description": "Face value (T20 is 60).", **_INDEX},
            "dart": {"description": "1-3 within the visit.", "type": "integer", "minimum": 1},
            "scored": {"description": "False for a dead dart.", "type": "boolean"},
            "source": {
                "description": "Who entered the dart: board (detected), manual (a dart or "
                "miss command, the MISS button, the misses NEXT fills in) or cpu (thrown by "
                "the daemon for a computer player).",
                "enum": [*DART_SOURCES],
            },
            **_MARKS_FIELDS,
        },
        ["player", "segment"],
    ),
    "bust": ({"player": _PLAYER_FIELD}, ["player"]),
    "visit_end": (
        {
            "player": _PLAYER_FIELD,
            "darts": {"type": "array", "items": _BED, "maxItems": 3},
            "total": {"type": "integer"},
            "score_change": {
                "description": "The side's score change, or null when unknown (after an undo).",
                "type": ["integer", "null"],
            },
            "visit_over": {"type": ["string", "null"]},
            "game": {"description": "The game's id: x01, cricket, ...", "type": "string"},
            **_MARKS_FIELDS,
        },
        ["player", "darts"],
    ),
    "takeout": ({"player": _PLAYER_FIELD}, ["player"]),
    "player_change": ({"player": _PLAYER_FIELD, "previous": _PLAYER_FIELD}, ["player"]),
    "points": (
        {
            "player": _PLAYER_FIELD,
            "points": {"type": "integer", "minimum": 1},
            "reason": {
                "description": "What scored, e.g. fifteen, pair, run of 3, go, hand, crib.",
                "type": "string",
                "minLength": 1,
            },
        },
        ["player", "points", "reason"],
    ),
    "undo": ({"player": _PLAYER_FIELD}, []),
    "winner": ({"player": _PLAYER_FIELD, "team": _NULLABLE_INDEX}, ["player"]),
    "game_over": (
        {"result": {"type": "string"}, "winner": _NULLABLE_INDEX},
        ["result"],
    ),
    "stuck": ({"row": _INDEX, "col": _INDEX}, ["row", "col"]),
    "released": ({"row": _INDEX, "col": _INDEX}, ["row", "col"]),
    "board_connected": ({"source": {"type": "string"}}, []),
    "board_disconnected": (
        {"source": {"type": "string"}, "reason": {"type": "string"}},
        [],
    ),
    "error": (
        {
            "kind": {"description": "Stable, for counting (crc, garbage, ...).", "type": "string"},
            "message": {"type": "string"},
        },
        ["kind", "message"],
    ),
    "hit": (
        {
            "segment": _BED,
            "scored": {"description": "Always false: a contact not scored.", "const": False},
            "reason": {
                "description": "Why: no game, takeout, a bounce; exactly cpu-turn while a "
                "computer player throws.",
                "type": "string",
            },
        },
        ["segment", "scored", "reason"],
    ),
    "button": ({"button": {"type": "string", "minLength": 1}}, ["button"]),
    "credits": (
        {
            "change": {"description": "Credits added (+) or spent (-).", "type": "integer"},
            "credits": {"description": "The balance after it.", **_INDEX},
            "source": {
                "description": "Where it came from: coin, remote, happy-hour, free-play, game.",
                "enum": [*CREDIT_SOURCES],
            },
            "input": {"description": "For a coin: the coin input.", **_NULLABLE_INDEX},
            "reason": {"type": ["string", "null"]},
        },
        ["change", "credits", "source"],
    ),
    "bounce": (
        {
            "player": {
                "description": "Who threw the dart (in takeout, the turn may have passed).",
                **_INDEX,
            },
            "segment": {
                "description": "The dart taken back (a bounce-out): it stays thrown, as a "
                "miss (M) in the state's visit, and counts in stats.bounce_outs.",
                **_BED,
            },
        },
        ["player", "segment"],
    ),
    "takeout_sensed": (
        {
            "ended_visit": {
                "description": "True when it ended the visit (during takeout, as NEXT); "
                "false when it was only seen.",
                "type": "boolean",
            }
        },
        ["ended_visit"],
    ),
    "battery": (
        {"percent": {"type": "integer", "minimum": 0, "maximum": 100}},
        ["percent"],
    ),
}


def _event_schema() -> dict[str, Any]:
    clauses = []
    for kind in EVENT_TYPES:
        properties, required = _EVENT_FIELDS[kind]
        then: dict[str, Any] = {"properties": properties}
        if required:
            then["required"] = required
        clauses.append(
            {"if": {"properties": {"type": {"const": kind}}, "required": ["type"]}, "then": then}
        )
    return {
        "$schema": _DRAFT,
        "title": "Oche event topic",
        "description": "Something that happened on the board. Events are open: clients "
        "ignore keys they do not know.",
        "type": "object",
        "properties": {"type": {"enum": [*EVENT_TYPES]}, "at": _TIMESTAMP},
        "required": ["type", "at"],
        "allOf": clauses,
    }


COMMANDS = ("new_game", "next", "undo", "miss", "dart", "end_game", "rematch", "bounce")
"""The commands a board takes on ``{base}/{board}/cmd``."""

_NAME_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": r"\S",
    "maxLength": MAX_NAME_LENGTH,
    "description": f"Up to {MAX_NAME_LENGTH} characters, no control characters.",
}

_CPU_PLAYER_SCHEMA: dict[str, Any] = {
    "description": "A computer player: the daemon throws its darts.",
    "type": "object",
    "properties": {
        "name": _NAME_SCHEMA,
        "cpu": {
            "description": f"A level {LEVELS[0]}-{LEVELS[-1]}, or "
            f'{{"average": A}} with A from {CPU_AVERAGES[0]:g} to {CPU_AVERAGES[1]:g} '
            "(the three-dart average it is to throw).",
            "oneOf": [
                {"type": "integer", "minimum": LEVELS[0], "maximum": LEVELS[-1]},
                {
                    "type": "object",
                    "properties": {
                        "average": {
                            "type": "number",
                            "minimum": CPU_AVERAGES[0],
                            "maximum": CPU_AVERAGES[1],
                        }
                    },
                    "required": ["average"],
                    "additionalProperties": False,
                },
            ],
        },
    },
    "required": ["name", "cpu"],
    "additionalProperties": False,
}

_REMOTE_PLAYER_SCHEMA: dict[str, Any] = {
    "description": "A player at another board (a remote match, docs/remote.md): that "
    "board's id on this board's base, or base/board.",
    "type": "object",
    "properties": {"name": _NAME_SCHEMA, "board": {"type": "string", "minLength": 1}},
    "required": ["name", "board"],
    "additionalProperties": False,
}

_PLAYER_OBJECT_SCHEMA: dict[str, Any] = {
    "description": "A player at this board, as the bare name is.",
    "type": "object",
    "properties": {"name": _NAME_SCHEMA},
    "required": ["name"],
    "additionalProperties": False,
}

_PLAYER_ITEM: dict[str, Any] = {
    "oneOf": [_NAME_SCHEMA, _PLAYER_OBJECT_SCHEMA, _CPU_PLAYER_SCHEMA, _REMOTE_PLAYER_SCHEMA]
}

_COMMAND_ARGUMENTS: dict[str, dict[str, Any]] = {
    "new_game": {
        "game": {"description": "A game id: x01, cricket, ...", "type": "string", "minLength": 1},
        "options": {
            "description": "Game options (see the game's docs); defaults fill the rest.",
            "type": "object",
        },
        "players": {
            "description": '1-8 players, in order: a name (or {"name": ...}), a computer '
            'player {"name": ..., "cpu": LEVEL} or {"name": ..., "cpu": {"average": AVERAGE}}, '
            'or a player at another board {"name": ..., "board": BOARD} (docs/remote.md). '
            "Required unless teams is given.",
            "type": "array",
            "items": _PLAYER_ITEM,
            "minItems": 1,
            "maxItems": MAX_PLAYERS,
        },
        "teams": {
            "description": "Team name -> member names in throwing order (at least two teams).",
            "type": "object",
            "minProperties": 2,
            "propertyNames": _NAME_SCHEMA,
            "additionalProperties": {
                "type": "array",
                "items": _PLAYER_ITEM,
                "minItems": 1,
                "maxItems": MAX_PLAYERS,
            },
        },
    },
    "dart": {
        "segment": {
            "description": "The bed, in any case: S1-S20, D1-D20, T1-T20, SB, DB or M.",
            "type": "string",
            "pattern": _BED_ANY_CASE,
        }
    },
}
_REQUIRED_ARGUMENTS: dict[str, tuple[str, ...]] = {"new_game": ("game",), "dart": ("segment",)}


def _command_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "command": {"enum": [*COMMANDS]},
        "id": _COMMAND_ID,
    }
    clauses: list[dict[str, Any]] = []
    for name in COMMANDS:
        arguments = _COMMAND_ARGUMENTS.get(name, {})
        properties.update(arguments)
        then: dict[str, Any] = {"propertyNames": {"enum": ["command", "id", *arguments]}}
        if name in _REQUIRED_ARGUMENTS:
            then["required"] = [*_REQUIRED_ARGUMENTS[name]]
        if name == "new_game":
            then["anyOf"] = [{"required": ["players"]}, {"required": ["teams"]}]
        clauses.append(
            {
                "if": {"properties": {"command": {"const": name}}, "required": ["command"]},
                "then": then,
            }
        )
    return {
        "$schema": _DRAFT,
        "title": "Oche cmd topic",
        "description": f"A command to the board: a JSON object of at most {MAX_COMMAND_BYTES} "
        "bytes (UTF-8). Keys a command does not take are refused.",
        "type": "object",
        "properties": properties,
        "required": ["command"],
        "allOf": clauses,
    }


def _response_schema() -> dict[str, Any]:
    return {
        "$schema": _DRAFT,
        "title": "Oche cmd/response topic",
        "description": "The answer to one command.",
        "type": "object",
        "properties": {
            "id": {
                "description": "The command's id, or null when it had none or it could not "
                "be read.",
                "type": ["string", "integer", "null"],
            },
            "ok": {"type": "boolean"},
            "error": {
                "description": "Why the command was refused, or null when ok.",
                "type": ["string", "null"],
            },
        },
        "required": ["id", "ok", "error"],
        "additionalProperties": False,
        "if": {"properties": {"ok": {"const": True}}},
        "then": {"properties": {"error": {"type": "null"}}},
        "else": {"properties": {"error": {"type": "string", "minLength": 1}}},
    }


def _result_schema() -> dict[str, Any]:
    player = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "team": {"description": "Index into teams, or null.", **_NULLABLE_INDEX},
            "score": {"description": "The side's final score.", "type": "integer"},
            "stats": {"description": "As in the state (docs/state.md).", "type": "object"},
            "board": {
                "description": "Only in a remote match: where the player threw, base/board.",
                "type": "string",
            },
            "cpu": {
                **_CPU_STATE,
                "description": "Only on a computer player: its level, spread and average "
                "(leaderboards rank people only).",
            },
        },
        "required": ["name", "score"],
    }
    return {
        "$schema": _DRAFT,
        "title": "Oche result topic",
        "description": "A finished game, for leaderboards. Delivered at least once: the same "
        "result may arrive again (after a reconnect or a restart of the daemon); dedupe by "
        "result_id.",
        "type": "object",
        "properties": {
            "result_id": {
                "description": "Unique per finished game; the same on every redelivery.",
                "type": "string",
                "minLength": 1,
            },
            "board": {"description": "The board id.", "type": "string"},
            "game": {"description": "The game id.", "type": "string", "minLength": 1},
            "options": {"description": "The game's options, defaults filled in.", "type": "object"},
            "players": {
                "type": "array",
                "items": player,
                "minItems": 1,
                "maxItems": MAX_PLAYERS,
            },
            "teams": STATE_SCHEMA["properties"]["teams"],
            "winner": {"description": "Winning player index, null for a draw.", **_NULLABLE_INDEX},
            "winner_name": {"type": ["string", "null"]},
            "winner_team": _NULLABLE_INDEX,
            "result": {
                "description": "How the game ended: checkout, closed-all, round-limit, ...",
                "type": "string",
            },
            "started_at": {
                **_TIMESTAMP,
                "description": "Unix time in seconds (float), before 2100; null when unknown.",
                "type": ["number", "null"],
            },
            "finished_at": _TIMESTAMP,
            "log": {"description": "The game log (oche replay reads it).", "type": "string"},
            "match": {
                "description": "Only in a remote match: its id (docs/remote.md).",
                "type": "string",
            },
            "game_key": {
                "description": "The game this result is of, the same in every revision (the "
                "result_id of its first). Absent: the result_id.",
                "type": "string",
                "minLength": 1,
            },
            "revision": {
                "description": "1 for a game's first result; one more each time the game is "
                "reopened by an undo and finished again or abandoned. A consumer keeps only "
                "the highest revision of each game_key. Absent: 1.",
                "type": "integer",
                "minimum": 1,
            },
            "withdrawn": {
                "description": "True: the game of game_key no longer counts (it was reopened "
                "after this revision's previous result and then abandoned); the rest of the "
                "document is that previous result's.",
                "type": "boolean",
            },
            "clock_synced": {
                "description": "False when the board's clock was not synchronised (a board "
                "without a real-time clock before NTP answered): started_at and finished_at "
                "are then not dates, and a leaderboard dates the game by its arrival. "
                "Absent: true.",
                "type": "boolean",
            },
        },
        "required": ["result_id", "board", "game", "players", "winner", "result", "finished_at"],
        "$defs": {"team": copy.deepcopy(STATE_SCHEMA["$defs"]["team"])},
    }


RESULT_STORED_STATUSES = ("stored", "duplicate", "superseded", "rejected")
"""What a leaderboard did with a result it received (``result/stored``): kept it,
had it already, had a later revision of its game, or refused it (kept as
rejected, docs/leaderboard.md). Each means the service has it: the board may
let it go."""


def _result_stored_schema() -> dict[str, Any]:
    return {
        "$schema": _DRAFT,
        "title": "Oche result/stored topic",
        "description": "Published by a leaderboard service after the result is in its "
        "database (committed), for every result it receives, redeliveries included. The "
        "board keeps a result in its outbox until this arrives, and sends again what is "
        "not stored whenever a leaderboard comes online.",
        "type": "object",
        "properties": {
            "result_id": {"description": "The result's result_id.", "type": "string"},
            "status": {"enum": [*RESULT_STORED_STATUSES]},
            "at": {"description": "When the service stored it.", **_TIMESTAMP},
        },
        "required": ["result_id", "status"],
    }


_OPERATOR_ARGUMENTS: dict[str, dict[str, Any]] = {
    "add_credits": {
        "count": {
            "description": "add_credits: how many.",
            "type": "integer",
            "minimum": 1,
            "maximum": 10000,
        },
        "reason": {
            "description": "Why (the books keep it).",
            "type": "string",
            "maxLength": 200,
        },
    },
    "set_free_play": {"on": {"description": "set_free_play: on or off.", "type": "boolean"}},
    "reset_books": {
        "reason": {
            "description": "Why (the books keep it).",
            "type": "string",
            "maxLength": 200,
        },
    },
    "set_price": {
        "price": {
            "description": "set_price: credits per player; null: back to the config's.",
            "type": ["integer", "null"],
            "minimum": 0,
            "maximum": 1000,
        },
        "game": {
            "description": "set_price: for this game id only (else every game).",
            "type": "string",
            "minLength": 1,
        },
    },
}
_OPERATOR_REQUIRED: dict[str, tuple[str, ...]] = {
    "add_credits": ("count",),
    "set_free_play": ("on",),
    "set_price": ("price",),
}


def _operator_schema() -> dict[str, Any]:
    """The operator's commands (docs/credits.md)."""
    return {
        "$schema": _DRAFT,
        "title": "Oche operator/cmd topic",
        "description": "A command of the board's operator: credits, free play, prices, "
        "the books. Only an operator account may publish here (deploy/mosquitto/acl).",
        "type": "object",
        "properties": {
            "command": {"enum": [*OPERATOR_COMMANDS]},
            "id": _COMMAND_ID,
            **{
                key: spec
                for arguments in _OPERATOR_ARGUMENTS.values()
                for key, spec in arguments.items()
            },
        },
        "required": ["command"],
        "allOf": [
            {
                "if": {"properties": {"command": {"const": name}}, "required": ["command"]},
                "then": {
                    "propertyNames": {"enum": ["command", "id", *_OPERATOR_ARGUMENTS[name]]},
                    "required": [*_OPERATOR_REQUIRED.get(name, ())],
                },
            }
            for name in OPERATOR_COMMANDS
        ],
    }


_BOOK_COUNT = {"type": "integer", "minimum": 0}
_BOOK_TIME = {"type": ["number", "null"], "minimum": 0, "maximum": LATEST_TIMESTAMP}
_BOOKS: dict[str, Any] = {
    "description": "One set of books (firmware_bridge/daemon/books.py).",
    "type": "object",
    "properties": {
        "from": {"description": "Where the period starts (null: open).", **_BOOK_TIME},
        "until": {"description": "Where it ends, excluded (null: open).", **_BOOK_TIME},
        "coins": {
            "description": 'Per coin input ("1", "2"): its pulses and the credits they gave.',
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {"pulses": _BOOK_COUNT, "credits": _BOOK_COUNT},
                "required": ["pulses", "credits"],
            },
        },
        "coins_total": {"description": "Pulses on every input.", **_BOOK_COUNT},
        "credits_in": {
            "description": "Credits in per source: coin, remote, happy-hour, free-play.",
            "type": "object",
            "additionalProperties": {"type": "integer"},
        },
        "credits_in_total": {"type": "integer"},
        "credits_spent": {"description": "Credits games spent.", "type": "integer"},
        "credits_net": {"type": "integer"},
        "games": {
            "description": "Per game id: games played, finished, and their play time.",
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "played": _BOOK_COUNT,
                    "finished": _BOOK_COUNT,
                    "play_time_s": {"type": "number", "minimum": 0},
                },
            },
        },
        "games_played": _BOOK_COUNT,
        "play_time_s": {"type": "number", "minimum": 0},
        "reset_at": {"description": "Customer books: the last reset_books, or null.", **_BOOK_TIME},
    },
    "required": ["coins", "credits_in", "credits_spent", "games", "games_played", "play_time_s"],
}


def _books_schema() -> dict[str, Any]:
    """The retained books snapshot (docs/credits.md): ``books.books()``, with
    the daemon's ``credits`` and ``today``."""
    return {
        "$schema": _DRAFT,
        "title": "Oche books topic",
        "description": "The board's books, retained, for its operator only: the customer "
        "books (since their last reset) and the lifetime security books.",
        "type": "object",
        "properties": {
            "board": {"type": "string"},
            "since": _BOOK_TIME,
            "until": _BOOK_TIME,
            "customer": {
                "description": "Since the last reset_books (reset_at; null: never reset).",
                "$ref": "#/$defs/books",
            },
            "security": {
                "description": "The board's whole life; never reset.",
                "$ref": "#/$defs/books",
            },
            "today": {
                "description": "Added by the daemon: since the local midnight "
                "([credits] timezone).",
                "$ref": "#/$defs/books",
            },
            "credits": {"description": "Added by the daemon: credits held now.", **_INDEX},
            "updated_at": _TIMESTAMP,
        },
        "required": ["customer", "security", "updated_at"],
        "$defs": {"books": _BOOKS},
    }


def result_document(
    game: Game,
    *,
    result_id: str,
    board: str,
    started_at: float | None,
    finished_at: float,
    cpu: Mapping[int, Mapping[str, Any]] | None = None,
    game_key: str | None = None,
    revision: int = 1,
    clock_synced: bool = True,
) -> dict[str, Any]:
    """The ``result`` payload of a finished ``game`` (its schema above): what
    the daemon publishes, and what the leaderboard's sample results imitate.
    ``cpu`` marks the computer players (seat -> their state's ``cpu``);
    ``game_key`` and ``revision`` say which game this is and how often it was
    finished again (absent: this result's id, revision 1)."""
    state = game.state()
    winner = state["winner"]
    players: list[dict[str, Any]] = []
    for seat, player in enumerate(state["players"]):
        line = {k: player[k] for k in ("name", "team", "score", "stats")}
        if cpu is not None and seat in cpu:
            line["cpu"] = dict(cpu[seat])
        players.append(line)
    document: dict[str, Any] = {
        "result_id": result_id,
        "board": board,
        "game": state["game"],
        "options": state["options"],
        "players": players,
        "teams": state["teams"],
        "winner": winner,
        "winner_name": state["players"][winner]["name"] if winner is not None else None,
        "winner_team": state["winner_team"],
        "result": state["result"],
        "started_at": started_at,
        "finished_at": finished_at,
        "log": format_game_log(game),
        "game_key": game_key or result_id,
        "revision": revision,
    }
    if not clock_synced:
        document["clock_synced"] = False
    return document


_AVAILABILITY_SCHEMA: dict[str, Any] = {
    "$schema": _DRAFT,
    "title": "Oche availability topic",
    "description": "A plain string, not JSON: online while the daemon is connected; "
    "offline after it stops or (last will) loses its connection.",
    "type": "string",
    "enum": [AVAILABILITY_ONLINE, AVAILABILITY_OFFLINE],
}


_INSTANCE_SCHEMA: dict[str, Any] = {
    "$schema": _DRAFT,
    "title": "Oche instance topic",
    "description": "Which daemon is the board's (one daemon per board id on a broker): "
    "retained, published by the board's daemon at every connection. A daemon about to "
    "connect as the board publishes one copy with probe true, not retained; the board's "
    "daemon answers with its own, and the newcomer stops (exit 2) naming host and pid.",
    "type": "object",
    "properties": {
        "instance": {
            "description": "Random per daemon process: two daemons never share it.",
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
        },
        "host": {"description": "The host name of the daemon's machine.", "type": "string"},
        "pid": {"description": "The daemon's process id on that host.", "type": "integer"},
        "since": {
            "description": "Unix time the daemon first connected as the board (a probe: "
            "when it started to look); of two daemons, the one since earlier keeps the board.",
            "type": "number",
        },
        "at": {"description": "Unix time of this message.", "type": "number"},
        "probe": {
            "description": "True: a daemon asking whether the board id is taken.",
            "type": "boolean",
        },
    },
    "required": ["instance", "host", "pid", "since", "at"],
}


@dataclass(frozen=True)
class TopicSpec:
    """One topic of a board: its name under ``{base}/{board}/``, whether the
    daemon publishes it retained, its QoS and the JSON Schema of its payload."""

    name: str
    retain: bool
    qos: int
    schema: dict[str, Any]


TOPICS: dict[str, TopicSpec] = {
    "state": TopicSpec("state", retain=True, qos=1, schema=_state_topic_schema()),
    "event": TopicSpec("event", retain=False, qos=1, schema=_event_schema()),
    "availability": TopicSpec("availability", retain=True, qos=1, schema=_AVAILABILITY_SCHEMA),
    "instance": TopicSpec("instance", retain=True, qos=1, schema=_INSTANCE_SCHEMA),
    "cmd": TopicSpec("cmd", retain=False, qos=1, schema=_command_schema()),
    "cmd/response": TopicSpec("cmd/response", retain=False, qos=1, schema=_response_schema()),
    "result": TopicSpec("result", retain=False, qos=1, schema=_result_schema()),
    "result/stored": TopicSpec(
        "result/stored", retain=False, qos=1, schema=_result_stored_schema()
    ),
    "operator/cmd": TopicSpec("operator/cmd", retain=False, qos=1, schema=_operator_schema()),
    "operator/cmd/response": TopicSpec(
        "operator/cmd/response", retain=False, qos=1, schema=_response_schema()
    ),
    "books": TopicSpec("books", retain=True, qos=1, schema=_books_schema()),
}
"""Topic name -> :class:`TopicSpec`, in the order of :data:`TOPIC_NAMES`."""


# ---------------------------------------------------------- the leaderboard

LEADERBOARD_TOP = 10
"""How many rows a ``{base}/leaderboard/{game}`` snapshot carries at most."""

_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_NULLABLE_NUMBER: dict[str, Any] = {"type": ["number", "null"]}
_NULLABLE_COUNT: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}


def _leaderboard_schema() -> dict[str, Any]:
    row = {
        "description": "One player's row, as GET /api/leaderboard returns it. X01 rows add "
        "three_dart_average, first9_average, checkout_percent, highest_checkout, "
        "best_leg_darts, count_100, count_140 and count_180; Cricket and Cricket-Shanghai "
        "rows add mpr, best_game_mpr, count_5_marks, count_7_marks and count_9_marks "
        "(docs/leaderboard.md).",
        "type": "object",
        "properties": {
            "rank": {"type": "integer", "minimum": 1},
            "player": {"type": "string", "minLength": 1},
            "venue": {"type": "string"},
            "played": _COUNT,
            "won": _COUNT,
            "win_percent": {"type": "number", "minimum": 0, "maximum": 100},
            "rating": {"description": "The conservative OpenSkill ordinal.", "type": "number"},
            "highlight": {
                "description": "The player's best of the game's own highlight, or null.",
                **_NULLABLE_NUMBER,
            },
            "three_dart_average": _NULLABLE_NUMBER,
            "first9_average": _NULLABLE_NUMBER,
            "checkout_percent": _NULLABLE_NUMBER,
            "highest_checkout": _NULLABLE_COUNT,
            "best_leg_darts": _NULLABLE_COUNT,
            "count_100": _COUNT,
            "count_140": _COUNT,
            "count_180": _COUNT,
            "mpr": _NULLABLE_NUMBER,
            "best_game_mpr": _NULLABLE_NUMBER,
            "count_5_marks": _COUNT,
            "count_7_marks": _COUNT,
            "count_9_marks": _COUNT,
        },
        "required": ["rank", "player", "venue", "played", "won", "win_percent", "rating"],
    }
    record = {
        "description": "One record: the game it was set in, what it is, who set it, the "
        "value, the result it came from and when (Unix seconds).",
        "type": ["object", "null"],
        "properties": {
            "game": {"type": "string"},
            "label": {"type": "string"},
            "player": {"type": "string"},
            "value": {"type": "number"},
            "result_id": {"type": "string"},
            "at": {"type": "number"},
        },
        "required": ["game", "label", "player", "value", "result_id", "at"],
    }
    return {
        "$schema": _DRAFT,
        "title": "Oche leaderboard topic",
        "description": "A game's table, published retained by the leaderboard service on "
        "{base}/leaderboard/{game} after new results and on every (re)connection: the "
        f"first {LEADERBOARD_TOP} rows by rank of the day's table, or of the all-time table "
        "when nobody played the game today (period says which), and the day's records.",
        "type": "object",
        "properties": {
            "game": {"description": "The game id, as in the topic.", "type": "string"},
            "updated_at": {"description": "When the service built it.", **_TIMESTAMP},
            "period": {"description": "The table's period.", "enum": ["day", "all"]},
            "top": {"type": "array", "items": {"$ref": "#/$defs/row"}, "maxItems": LEADERBOARD_TOP},
            "records": {
                "description": "The day's records over every game (GET /api/records?period=day).",
                "type": "object",
                "properties": {
                    "period": {"const": "day"},
                    "venue": {"type": ["string", "null"]},
                    "highest_checkout": {"$ref": "#/$defs/record"},
                    "best_leg": {"$ref": "#/$defs/record"},
                    "most_180s": {"$ref": "#/$defs/record"},
                    "highlights": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/record", "type": "object"},
                    },
                },
                "required": ["highest_checkout", "best_leg", "most_180s", "highlights"],
            },
        },
        "required": ["game", "updated_at", "period", "top", "records"],
        "$defs": {"row": row, "record": record},
    }


LEADERBOARD_TOPIC = TopicSpec(LEADERBOARD_LEVEL, retain=True, qos=1, schema=_leaderboard_schema())
"""``{base}/leaderboard/{game}``: not a board's topic, so not in :data:`TOPICS`."""


def leaderboard_availability_topic(base: str, instance: str) -> str:
    """``{base}/leaderboard/availability/{instance}``: a leaderboard service's
    retained ``online``/``offline`` (its last will). ``instance`` is its session's
    client id, or ``+`` to subscribe to every instance. A board that sees one
    come online sends again every result that no service has stored yet."""
    check_base(base)
    if instance != "+" and (
        not instance or any(c in instance for c in "/+#") or instance != instance.strip()
    ):
        raise ValueError(f"bad leaderboard instance {instance!r}: one topic level")
    return f"{base}/{LEADERBOARD_LEVEL}/availability/{instance}"


def leaderboard_topic(base: str, game: str) -> str:
    """``{base}/leaderboard/{game}``; ``game`` may be ``+`` to subscribe to every
    game. A ValueError names a bad base or game."""
    check_base(base)
    if game != "+" and (not game or any(c in game for c in "/+#") or game != game.strip()):
        raise ValueError(f"bad game id {game!r} for a leaderboard topic: one topic level")
    return f"{base}/{LEADERBOARD_LEVEL}/{game}"


# ------------------------------------------------------------------ commands


class CommandError(ValueError):
    """A ``cmd`` payload that cannot be run. The message names what was wrong;
    ``id`` is the command's id when it could be read (echo it in the response)."""

    def __init__(self, message: str, id: str | int | None = None) -> None:
        super().__init__(message)
        self.id = id


@dataclass(frozen=True)
class Command:
    """A checked command. ``args`` holds the command's arguments (none for most):
    ``new_game`` always has ``game`` and ``players`` (names only, worked out
    from ``teams`` when not given; ``teams`` too holds names only) and
    ``options``, ``teams`` when given, and ``cpu`` (stripped name ->
    ``{"level": n}`` or ``{"average": x}``) when a player is a computer player,
    and ``boards`` (stripped name -> the board as given, ``pub2`` or
    ``base/pub2``) when a player throws at another board (a remote match,
    docs/remote.md); ``dart`` has
    ``segment`` in canonical notation."""

    id: str | int | None
    name: str
    args: dict[str, Any]


def _json_type(value: Any) -> str:
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


def _reject_constant(token: str) -> Any:
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
        document = json.loads(text, parse_constant=_reject_constant)
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
        raise CommandError(f"command must be a JSON object, got {_json_type(document)}")

    command_id: str | int | None = None
    if "id" in document:
        raw_id = document["id"]
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
            raise CommandError(f'"id" must be a string or an integer, got {_json_type(raw_id)}')
        command_id = raw_id
    return document, command_id


def parse_command(payload: bytes, operator_topic: str = "{base}/{board}/operator/cmd") -> Command:
    """Read and check one ``cmd`` payload; a :class:`CommandError` says what is
    wrong. An operator command is refused, naming ``operator_topic``."""
    document, command_id = _command_document(payload)

    def fail(message: str) -> CommandError:
        return CommandError(message, command_id)

    valid = ", ".join(COMMANDS)
    if "command" not in document:
        raise fail(f'missing "command"; valid commands: {valid}')
    name = document["command"]
    if not isinstance(name, str):
        raise fail(f'"command" must be a string, got {_json_type(name)}; valid commands: {valid}')
    if name in OPERATOR_COMMANDS:
        raise fail(f"{name} is an operator command: operator commands go on {operator_topic}")
    if name not in COMMANDS:
        raise fail(f"unknown command {name!r}; valid commands: {valid}")

    allowed = _COMMAND_ARGUMENTS.get(name, {})
    problem = _keys_problem(document, name, allowed, _REQUIRED_ARGUMENTS.get(name, ()))
    if problem is not None:
        raise fail(problem)

    arguments = {key: document[key] for key in allowed if key in document}
    try:
        if name == "new_game":
            arguments = _check_new_game(arguments)
        elif name == "dart":
            arguments = _check_dart(arguments)
    except ValueError as exc:
        raise fail(f"{name}: {exc}") from None
    return Command(command_id, name, arguments)


def _keys_problem(
    document: dict[str, Any], name: str, allowed: Mapping[str, Any], required: Sequence[str]
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


def parse_operator_command(payload: bytes) -> Command:
    """Read and check one ``operator/cmd`` payload (docs/credits.md); a
    :class:`CommandError` says what is wrong. ``add_credits`` has ``count``
    (1 to 10000) and ``reason`` (or ``None``); ``set_free_play`` has ``on``;
    ``reset_books`` has ``reason``; ``set_price`` has ``price`` (0 to 1000,
    or ``None`` to return to the config's) and ``game`` (or ``None``)."""
    document, command_id = _command_document(payload)

    def fail(message: str) -> CommandError:
        return CommandError(message, command_id)

    valid = ", ".join(OPERATOR_COMMANDS)
    name = document.get("command")
    if "command" not in document:
        raise fail(f'missing "command"; operator commands: {valid}')
    if not isinstance(name, str):
        raise fail(
            f'"command" must be a string, got {_json_type(name)}; operator commands: {valid}'
        )
    if name in COMMANDS:
        raise fail(f"{name} is a players' command: it goes on cmd, not operator/cmd")
    if name not in OPERATOR_COMMANDS:
        raise fail(f"unknown operator command {name!r}; operator commands: {valid}")
    allowed = _OPERATOR_ARGUMENTS.get(name, {})
    problem = _keys_problem(document, name, allowed, _OPERATOR_REQUIRED.get(name, ()))
    if problem is not None:
        raise fail(problem)
    args: dict[str, Any] = {}
    if name == "add_credits":
        count = document["count"]
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10000:
            raise fail(f'add_credits: "count" must be an integer from 1 to 10000, got {count!r}')
        args["count"] = count
    if name in ("add_credits", "reset_books"):
        reason = document.get("reason")
        if reason is not None and (not isinstance(reason, str) or len(reason) > 200):
            raise fail(f'{name}: "reason" must be a string of at most 200 characters')
        args["reason"] = reason.strip() or None if isinstance(reason, str) else None
    if name == "set_free_play":
        on = document["on"]
        if not isinstance(on, bool):
            raise fail(f'set_free_play: "on" must be true or false, got {_json_type(on)}')
        args["on"] = on
    if name == "set_price":
        price = document["price"]
        if price is not None and (
            isinstance(price, bool) or not isinstance(price, int) or not 0 <= price <= 1000
        ):
            raise fail(
                f'set_price: "price" must be an integer from 0 to 1000 or null, got {price!r}'
            )
        game = document.get("game")
        if game is not None and (not isinstance(game, str) or not game.strip()):
            raise fail(f'set_price: "game" must be a game id, got {game!r}')
        args["price"] = price
        args["game"] = None if game is None else game.strip().lower()
    return Command(command_id, name, args)


_PLAYER_FORMS = (
    'a player is a name or {"name": ...}, with "cpu": LEVEL for a computer player '
    'or "board": BOARD for a player at another board'
)
"""The player forms ``new_game`` takes, in the words its errors end with."""


def _non_empty_names(
    value: Any, what: str, cpu: dict[str, dict[str, Any]], boards: dict[str, str]
) -> list[str]:
    """The names of a list of players; a computer player's ``cpu`` goes into
    ``cpu``, a remote player's ``board`` into ``boards``."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of names, got {_json_type(value)}")
    names = []
    for position, item in enumerate(value):
        where = f"{what}[{position}]"
        if isinstance(item, dict):
            name = _player_object(item, where, cpu, boards)
        elif isinstance(item, str):
            name = item
            _check_name(name, where)
        else:
            kind = _json_type(item)
            raise ValueError(f"{where} must be a string or an object, got {kind}: {_PLAYER_FORMS}")
        names.append(name)
    return names


def _player_object(
    item: dict[str, Any], where: str, cpu: dict[str, dict[str, Any]], boards: dict[str, str]
) -> str:
    """Check ``{"name": ...}`` (a player at this board, as the bare name is),
    with ``"cpu"`` (a computer player) or ``"board"`` (a player at another
    board); returns the name."""
    unknown = [key for key in item if key not in ("name", "cpu", "board")]
    if unknown:
        keys = ", ".join(repr(key) for key in unknown)
        raise ValueError(f"{where} has unknown key {keys}; {_PLAYER_FORMS}")
    if "name" not in item:
        raise ValueError(f'{where} needs "name": {_PLAYER_FORMS}')
    name = item["name"]
    if not isinstance(name, str):
        raise ValueError(f'{where}["name"] must be a string, got {_json_type(name)}')
    key = _check_name(name, f'{where}["name"]')
    if "cpu" in item and "board" in item:
        raise ValueError(
            f'{where} has both "cpu" and "board": a computer player throws at the board '
            'that starts the game, so it has no "board"'
        )
    if "cpu" in item:
        cpu[key] = _cpu_spec(item["cpu"], where)
    elif "board" in item:
        board = item["board"]
        if not isinstance(board, str):
            raise ValueError(f'{where}["board"] must be a string, got {_json_type(board)}')
        BoardAddress.parse(board, "oche")  # the syntax; the daemon adds its base
        boards[key] = board.strip()
    return name


def _cpu_spec(spec: Any, where: str) -> dict[str, Any]:
    """A computer player's ``"cpu"``: ``LEVEL`` or ``{"average": A}``, checked."""
    low, high = LEVELS[0], LEVELS[-1]
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec not in LEVELS:
            raise ValueError(f'{where}["cpu"]: a level is {low} to {high}, not {spec}')
        return {"level": spec}
    if isinstance(spec, dict):
        if list(spec) != ["average"]:
            raise ValueError(
                f'{where}["cpu"] must be a level {low}-{high} or {{"average": A}}, '
                f"got keys {', '.join(map(repr, spec)) or 'none'}"
            )
        average = spec["average"]
        least, most = CPU_AVERAGES
        if isinstance(average, bool) or not isinstance(average, int | float):
            raise ValueError(
                f'{where}["cpu"]["average"] must be a number, got {_json_type(average)}'
            )
        if not least <= average <= most:
            raise ValueError(
                f'{where}["cpu"]["average"] {average:g} is out of range: '
                f"the levels span {least:g} to {most:g}"
            )
        return {"average": float(average)}
    raise ValueError(
        f'{where}["cpu"] must be a level {low}-{high} or {{"average": A}}, got {_json_type(spec)}'
    )


def _check_name(name: str, what: str) -> str:
    """``name`` stripped, as the game's lineup keeps it; a ValueError says why not."""
    try:
        return check_name(name, what)
    except LineupError as error:
        raise ValueError(str(error)) from None


def _check_new_game(arguments: dict[str, Any]) -> dict[str, Any]:
    game = arguments["game"]
    if not isinstance(game, str):
        raise ValueError(f'"game" must be a string, got {_json_type(game)}')
    if not game.strip():
        raise ValueError('"game" is empty')
    if "options" in arguments and not isinstance(arguments["options"], dict):
        raise ValueError(f'"options" must be an object, got {_json_type(arguments["options"])}')
    teams: dict[str, list[str]] | None = None
    cpu: dict[str, dict[str, Any]] = {}
    boards: dict[str, str] = {}
    if "teams" in arguments:
        raw_teams = arguments["teams"]
        if not isinstance(raw_teams, dict):
            raise ValueError(
                f'"teams" must be an object of team name -> player names, '
                f"got {_json_type(raw_teams)}"
            )
        if len(raw_teams) < 2:
            raise ValueError(f'"teams" needs at least two teams, got {len(raw_teams)}')
        teams = {}
        for team_name, members in raw_teams.items():
            _check_name(team_name, '"teams" name')
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
        raise ValueError('needs "players" (1 to 8 names) or "teams"')
    checked = {**arguments, "players": players}
    if teams is not None:
        checked["teams"] = teams
    if cpu:
        checked["cpu"] = cpu
    if boards:
        checked["boards"] = boards
    return checked


def _interleave(teams: dict[str, list[str]]) -> list[str]:
    """The players in throwing order: each team's first, then each team's second, ..."""
    rosters = list(teams.values())
    longest = max(len(roster) for roster in rosters)
    return [roster[i] for i in range(longest) for roster in rosters if i < len(roster)]


def _check_dart(arguments: dict[str, Any]) -> dict[str, Any]:
    segment = arguments["segment"]
    if not isinstance(segment, str):
        raise ValueError(f'"segment" must be a string, got {_json_type(segment)}')
    try:
        bed = Bed.parse(segment)
    except NotationError:
        raise ValueError(
            f'"segment" {segment!r} is not a bed: expected S1-S20, D1-D20, T1-T20, SB, DB or M'
        ) from None
    return {"segment": bed.notation}


def response_payload(
    command_id: str | int | None, ok: bool, error: str | None = None
) -> dict[str, Any]:
    """The ``cmd/response`` payload ``{"id", "ok", "error"}``: ``error`` is null
    when ok and required (non-empty) when not."""
    if ok and error is not None:
        raise ValueError("a successful response carries no error")
    if not ok and not error:
        raise ValueError("a refused command needs an error message")
    return {"id": command_id, "ok": ok, "error": error}


# ------------------------------------------------------------- remote matches
#
# One game on two or more boards (docs/remote.md). The host's daemon runs the
# game; each guest forwards its board's hits and buttons. They talk on one
# private channel per pair, under the host's base, each side writing only
# topics that carry its own board id before "remote" (the broker's ACL makes
# that level authentic):
#
#     {base}/{host}/remote/{guest}    host -> guest: join (the invitation, and
#                                     a resync), end
#     {base}/{guest}/remote/{host}    guest -> host: joined, refused, action, leave
#
# The guest mirrors the host's retained state and its events onto its own
# topics, so a guest's display and Home Assistant need nothing new.

REMOTE_ACTIONS = ("hit", "dart", "miss", "next", "undo", "bounce")
"""What a guest forwards: a hit its board detected, and the ``dart``,
``miss``, ``next``, ``undo`` and ``bounce`` commands and buttons."""

REMOTE_MESSAGE_TYPES = ("join", "end", "joined", "refused", "action", "leave")
"""Each remote channel message's ``type``: the host sends ``join`` and
``end``; a guest sends the others."""

HOST_MESSAGE_TYPES = ("join", "end")
GUEST_MESSAGE_TYPES = ("joined", "refused", "action", "leave")

END_REASONS = ("finished", "ended", "left", "remote-timeout", "replaced")
"""Why a match ended (the ``end`` message's ``reason``): the game was won and
the host moved on (a new game, a rematch); end_game on the host; a guest
left (end_game on a guest); a board stayed offline longer than the host's
``[remote] offline_timeout_s``; the host started another game over it."""

MAX_REMOTE_BYTES = 16384
"""Longer remote channel payloads are refused unread."""

REMOTE_TOPIC: re.Pattern[str] = re.compile(
    rf"^(?P<base>{BASE_PATTERN})/(?P<sender>{BOARD_ID_PATTERN})/{REMOTE_LEVEL}/"
    rf"(?P<recipient>{BOARD_ID_PATTERN})$"
)
"""Parses ``{base}/{sender}/remote/{recipient}``."""

_MATCH_ID_RE = re.compile(rf"^{MATCH_ID_PATTERN}$")


@dataclass(frozen=True, order=True)
class BoardAddress:
    """A board anywhere on the broker: its base topic and its id. Written
    ``base/board`` (the base may have several levels: ``home/darts/pub2``);
    a bare ``board`` is on the base of whoever reads it."""

    base: str
    board: str

    def __post_init__(self) -> None:
        check_base(self.base)
        check_board_id(self.board)

    @classmethod
    def parse(cls, text: str, default_base: str) -> BoardAddress:
        """``board`` or ``base/board``; a ValueError quotes ``text`` and says why."""
        if not isinstance(text, str):
            raise ValueError(f"a board is a string like 'pub2' or 'oche/pub2', not {text!r}")
        base, slash, board = text.strip().rpartition("/")
        if not slash:
            base = default_base
        problem = board_id_problem(board)
        if problem is None and slash:
            problem = base_problem(base)
        if problem is not None:
            raise ValueError(f"bad board {text!r}: {problem}")
        return cls(base, board)

    def __str__(self) -> str:
        return f"{self.base}/{self.board}"

    def topic(self, name: str) -> str:
        """One of this board's own topics (:data:`TOPIC_NAMES`)."""
        return topic(self.base, self.board, name)


def remote_topic(base: str, sender: str, recipient: str) -> str:
    """``{base}/{sender}/remote/{recipient}``: what ``sender`` says to
    ``recipient`` in a match hosted on ``base``. ``recipient`` may be ``+``
    (everything ``sender`` says to anyone), and ``sender`` may be ``+``
    (everything said to ``recipient``)."""
    check_base(base)
    for level in (sender, recipient):
        if level != "+":
            check_board_id(level)
    return f"{base}/{sender}/{REMOTE_LEVEL}/{recipient}"


def allow_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a ``[remote] allow`` entry, or ``None``. An
    entry is ``board`` or ``base/board`` where ``board`` may be or contain
    ``*`` (any board id) and ``?``."""
    if not isinstance(pattern, str) or not pattern.strip():
        return "must be a board id or base/board, not empty"
    base, slash, board = pattern.strip().rpartition("/")
    if slash:
        problem = base_problem(base)
        if problem is not None:
            return f"base {base!r} {problem}"
    sample = board.replace("*", "x").replace("?", "x")
    problem = board_id_problem(sample)
    if problem is not None:
        return f"board {board!r} {problem} (besides the wildcards * and ?)"
    return None


def host_allowed(host: BoardAddress, patterns: Sequence[str], own_base: str) -> bool:
    """Whether a guest whose ``[remote] allow`` is ``patterns`` (on base
    ``own_base``) accepts ``host``: some entry names its base (or is bare and
    ``host`` is on ``own_base``) and its board id matches (``*``, ``?``)."""
    for pattern in patterns:
        base, slash, board = pattern.strip().rpartition("/")
        if (base if slash else own_base) == host.base and fnmatch.fnmatchcase(host.board, board):
            return True
    return False


def invitation_filters(patterns: Sequence[str], own_base: str, board: str) -> list[str]:
    """The subscriptions a guest needs to hear every host ``patterns`` allow:
    ``{base}/+/remote/{board}`` once per base they name (``own_base`` for bare
    entries). Sorted; empty when nothing is allowed."""
    bases = {(p.strip().rpartition("/")[0] or own_base) for p in patterns}
    return sorted(remote_topic(base, "+", board) for base in bases)


class RemoteMessageError(ValueError):
    """A remote channel payload that cannot be used; the message says what was wrong."""


@dataclass(frozen=True)
class RemoteMessage:
    """One checked remote channel message. ``fields`` holds the rest of the
    payload by type: ``join``: ``host`` (str, ``base/board``), ``host_name``,
    ``game``, ``options``, ``players`` (``[{"name", "board"}]``, ``board`` as
    ``base/board``); ``end``: ``reason``; ``joined``: ``board``, ``name``,
    ``forwarded`` (the highest seq sent so far, 0 for none); ``refused``:
    ``reason``; ``action``: ``seq`` (1, 2, ... per guest and match),
    ``action`` (:data:`REMOTE_ACTIONS`) and, for ``hit`` and ``dart``,
    ``segment`` (canonical notation); ``leave``: nothing."""

    type: str
    match: str
    at: float
    fields: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "match": self.match, "at": self.at, **self.fields}


_REMOTE_FIELDS: dict[str, dict[str, Any]] = {
    "join": {
        "host": {"description": "The host, as base/board.", "type": "string"},
        "host_name": {"description": "The host board's display name.", "type": "string"},
        "game": {"type": "string", "minLength": 1},
        "options": {"type": "object"},
        "players": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_PLAYERS,
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "board": {"description": "Where they throw, as base/board.", "type": "string"},
                },
                "required": ["name", "board"],
            },
        },
    },
    "end": {"reason": {"enum": [*END_REASONS]}},
    "joined": {
        "board": {"description": "The guest, as base/board.", "type": "string"},
        "name": {"description": "The guest board's display name.", "type": "string"},
        "forwarded": {"description": "The highest seq forwarded so far (0: none).", **_INDEX},
    },
    "refused": {"reason": {"type": "string", "minLength": 1}},
    "action": {
        "seq": {"description": "1, 2, ... per guest and match.", "type": "integer", "minimum": 1},
        "action": {"enum": [*REMOTE_ACTIONS]},
        "segment": {"description": "For hit and dart: the bed.", **_BED},
    },
    "leave": {},
}
_REMOTE_REQUIRED: dict[str, tuple[str, ...]] = {
    "join": ("host", "game", "players"),
    "end": ("reason",),
    "joined": ("board", "forwarded"),
    "refused": ("reason",),
    "action": ("seq", "action"),
    "leave": (),
}


def _remote_schema() -> dict[str, Any]:
    clauses = []
    for kind in REMOTE_MESSAGE_TYPES:
        clauses.append(
            {
                "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                "then": {
                    "properties": _REMOTE_FIELDS[kind],
                    "required": [*_REMOTE_REQUIRED[kind]],
                },
            }
        )
    return {
        "$schema": _DRAFT,
        "title": "Oche remote topic",
        "description": "A message between a remote match's host and a guest, on "
        "{base}/{sender}/remote/{recipient} (docs/remote.md). The host sends join and "
        "end; a guest sends joined, refused, action and leave.",
        "type": "object",
        "properties": {
            "type": {"enum": [*REMOTE_MESSAGE_TYPES]},
            "match": {"type": "string", "pattern": f"^{MATCH_ID_PATTERN}$"},
            "at": _TIMESTAMP,
        },
        "required": ["type", "match", "at"],
        "allOf": clauses,
    }


REMOTE_TOPIC_SPEC = TopicSpec(REMOTE_LEVEL, retain=False, qos=1, schema=_remote_schema())
"""``{base}/{sender}/remote/{recipient}``: not one board's topic, so not in :data:`TOPICS`."""


def parse_remote_message(payload: bytes, default_base: str) -> RemoteMessage:
    """Read and check one remote channel payload; bare board ids in it are on
    ``default_base`` (the channel's). A :class:`RemoteMessageError` says what is
    wrong."""
    if len(payload) > MAX_REMOTE_BYTES:
        raise RemoteMessageError(f"{len(payload)} bytes; the limit is {MAX_REMOTE_BYTES}")
    try:
        document = json.loads(payload.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RemoteMessageError(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise RemoteMessageError(f"must be a JSON object, got {_json_type(document)}")
    kind = document.get("type")
    if kind not in REMOTE_MESSAGE_TYPES:
        raise RemoteMessageError(
            f"unknown type {kind!r}; remote messages are {', '.join(REMOTE_MESSAGE_TYPES)}"
        )
    match = document.get("match")
    if not isinstance(match, str) or not _MATCH_ID_RE.match(match):
        raise RemoteMessageError(f"{kind}: bad match id {match!r}")
    at = document.get("at")
    if isinstance(at, bool) or not isinstance(at, int | float) or not at >= 0:
        raise RemoteMessageError(f"{kind}: 'at' must be a time in seconds, got {at!r}")
    missing = [key for key in _REMOTE_REQUIRED[kind] if key not in document]
    if missing:
        raise RemoteMessageError(f"{kind} needs {', '.join(map(repr, missing))}")
    fields = {key: document[key] for key in _REMOTE_FIELDS[kind] if key in document}
    try:
        fields = _check_remote_fields(kind, fields, default_base)
    except ValueError as error:
        raise RemoteMessageError(f"{kind}: {error}") from None
    return RemoteMessage(kind, match, float(at), fields)


def _check_remote_fields(kind: str, fields: dict[str, Any], base: str) -> dict[str, Any]:
    for key in ("host", "board"):
        if key in fields:
            fields[key] = str(BoardAddress.parse(fields[key], base))
    for key in ("host_name", "name", "reason", "game"):
        if key in fields and (not isinstance(fields[key], str) or not fields[key].strip()):
            raise ValueError(f"{key!r} must be a non-empty string")
    if kind == "end" and fields["reason"] not in END_REASONS:
        raise ValueError(f"reason {fields['reason']!r} is not one of {', '.join(END_REASONS)}")
    if "options" in fields and not isinstance(fields["options"], dict):
        raise ValueError("'options' must be an object")
    if kind == "join":
        players = fields["players"]
        if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"'players' must list 1 to {MAX_PLAYERS} players")
        checked = []
        for position, player in enumerate(players):
            if not isinstance(player, dict) or not {"name", "board"} <= set(player):
                raise ValueError(f"players[{position}] must be {{'name', 'board'}}")
            name = _check_name(player["name"], f"players[{position}] name")
            board = str(BoardAddress.parse(player["board"], base))
            checked.append({"name": name, "board": board})
        fields["players"] = checked
    for key in ("seq", "forwarded"):
        if key in fields:
            value = fields[key]
            least = 1 if key == "seq" else 0
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{key!r} must be an integer >= {least}, got {value!r}")
    if kind == "action":
        action = fields["action"]
        if action not in REMOTE_ACTIONS:
            raise ValueError(f"unknown action {action!r}; actions are {', '.join(REMOTE_ACTIONS)}")
        if action in ("hit", "dart"):
            if "segment" not in fields:
                raise ValueError(f"a {action} needs 'segment'")
            fields["segment"] = _check_dart({"segment": fields["segment"]})["segment"]
        elif "segment" in fields:
            raise ValueError(f"a {action} has no 'segment'")
    return fields


def remote_message(kind: str, match: str, at: float, **fields: Any) -> dict[str, Any]:
    """A remote channel payload, checked as :func:`parse_remote_message` would
    check it on arrival (a ValueError names the problem)."""
    document = {"type": kind, "match": match, "at": at, **fields}
    return parse_remote_message(json.dumps(document).encode("utf-8"), "oche").to_json()
