"""A remote match's messages (docs/remote.md): the private channel between a
host and its guests, its topics, who may invite, and message parsing.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Sequence
from typing import Any, assert_never

from engine.lineup import MAX_PLAYERS
from mqtt_contract.commands import check_dart, checked_name, json_type, reject_constant
from mqtt_contract.remote_protocol import (
    ActionMessage,
    EndMessage,
    EndReason,
    JoinedMessage,
    JoinMessage,
    LeaveMessage,
    MatchPlayer,
    MessageType,
    RefusedMessage,
    RemoteAction,
    RemoteMessage,
)
from mqtt_contract.schema_parts import BED, DRAFT, INDEX, TIMESTAMP
from mqtt_contract.topic_names import (
    BASE_PATTERN,
    BOARD_ID_PATTERN,
    MATCH_ID_PATTERN,
    REMOTE_LEVEL,
    BoardAddress,
    base_problem,
    board_id_problem,
    check_base,
    check_board_id,
)
from mqtt_contract.topics import TopicSpec

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

REMOTE_ACTIONS = tuple(action.value for action in RemoteAction)
"""What a guest forwards (:class:`~mqtt_contract.remote_protocol.RemoteAction`'s
values): a hit its board detected, and the ``dart``, ``miss``, ``next``,
``undo`` and ``bounce`` commands and buttons."""

REMOTE_MESSAGE_TYPES = tuple(kind.value for kind in MessageType)
"""Each remote channel message's ``type`` (:class:`~mqtt_contract.MessageType`'s
values): the host sends ``join`` and ``end``; a guest sends the others."""

HOST_MESSAGE_TYPES = tuple(kind.value for kind in MessageType if kind.from_host)
GUEST_MESSAGE_TYPES = tuple(kind.value for kind in MessageType if not kind.from_host)

END_REASONS = tuple(reason.value for reason in EndReason)
"""Why a match ended (the ``end`` message's ``reason``,
:class:`~mqtt_contract.remote_protocol.EndReason`'s values)."""

MAX_REMOTE_BYTES = 16384
"""Longer remote channel payloads are refused unread."""

REMOTE_TOPIC: re.Pattern[str] = re.compile(
    rf"^(?P<base>{BASE_PATTERN})/(?P<sender>{BOARD_ID_PATTERN})/{REMOTE_LEVEL}/"
    rf"(?P<recipient>{BOARD_ID_PATTERN})$"
)
"""Parses ``{base}/{sender}/remote/{recipient}``."""

_MATCH_ID_RE = re.compile(rf"^{MATCH_ID_PATTERN}$")


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
        "forwarded": {"description": "The highest seq forwarded so far (0: none).", **INDEX},
    },
    "refused": {"reason": {"type": "string", "minLength": 1}},
    "action": {
        "seq": {"description": "1, 2, ... per guest and match.", "type": "integer", "minimum": 1},
        "action": {"enum": [*REMOTE_ACTIONS]},
        "segment": {"description": "For hit, dart and correct: the bed.", **BED},
        "dart": {
            "description": "For correct: which dart of the visit on the board, from 1.",
            "type": "integer",
            "minimum": 1,
            "maximum": 3,
        },
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
        "$schema": DRAFT,
        "title": "Oche remote topic",
        "description": "A message between a remote match's host and a guest, on "
        "{base}/{sender}/remote/{recipient} (docs/remote.md). The host sends join and "
        "end; a guest sends joined, refused, action and leave.",
        "type": "object",
        "properties": {
            "type": {"enum": [*REMOTE_MESSAGE_TYPES]},
            "match": {"type": "string", "pattern": f"^{MATCH_ID_PATTERN}$"},
            "at": TIMESTAMP,
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
        document = json.loads(payload.decode("utf-8"), parse_constant=reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RemoteMessageError(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise RemoteMessageError(f"must be a JSON object, got {json_type(document)}")
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
    return _typed(MessageType(kind), match, float(at), fields, default_base)


def _typed(
    kind: MessageType, match: str, at: float, fields: dict[str, Any], base: str
) -> RemoteMessage:
    """The message of checked ``fields`` (boards already ``base/board``)."""
    match kind:
        case MessageType.JOIN:
            return JoinMessage(
                match,
                at,
                BoardAddress.parse(fields["host"], base),
                fields["game"],
                tuple(
                    MatchPlayer(player["name"], BoardAddress.parse(player["board"], base))
                    for player in fields["players"]
                ),
                fields.get("host_name"),
                fields.get("options"),
            )
        case MessageType.END:
            return EndMessage(match, at, EndReason(fields["reason"]))
        case MessageType.JOINED:
            board = BoardAddress.parse(fields["board"], base)
            return JoinedMessage(match, at, board, fields["forwarded"], fields.get("name"))
        case MessageType.REFUSED:
            return RefusedMessage(match, at, fields["reason"])
        case MessageType.ACTION:
            action = RemoteAction.parse(fields["action"])
            segment, dart = fields.get("segment"), fields.get("dart")
            return ActionMessage(match, at, fields["seq"], action, segment, dart)
        case MessageType.LEAVE:
            return LeaveMessage(match, at)
        case _:
            assert_never(kind)


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
            name = checked_name(player["name"], f"players[{position}] name")
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
        action = RemoteAction.parse(fields["action"])
        if action.has_segment:
            if "segment" not in fields:
                raise ValueError(f"a {action} needs 'segment'")
            fields["segment"] = check_dart({"segment": fields["segment"]})["segment"]
        elif "segment" in fields:
            raise ValueError(f"a {action} has no 'segment'")
        if action.has_dart:
            dart = fields.get("dart")
            if isinstance(dart, bool) or not isinstance(dart, int) or not 1 <= dart <= 3:
                raise ValueError(f"a {action} needs 'dart', 1 to 3, got {dart!r}")
        elif "dart" in fields:
            raise ValueError(f"a {action} has no 'dart'")
    return fields


def remote_payload(message: RemoteMessage) -> dict[str, Any]:
    """``message`` as its channel payload, checked as :func:`parse_remote_message`
    checks it on arrival (a ValueError names the problem)."""
    document = message.to_json()
    parse_remote_message(json.dumps(document).encode("utf-8"), "oche")
    return document
