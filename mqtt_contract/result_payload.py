"""The ``result`` and ``result/stored`` payloads: a finished game as the
leaderboard stores it (:func:`result_document`), and its answer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from engine import Game
from engine.game_log import format_game_log
from engine.lineup import MAX_PLAYERS
from engine.state_schema import STATE_SCHEMA
from mqtt_contract.event_payload import Timestamp
from mqtt_contract.json_types import JsonObject, Meta, object_schema, omitted
from mqtt_contract.schema_parts import DRAFT, TIMESTAMP
from mqtt_contract.state_payload import CPU_STATE

NULLABLE_INDEX: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}


def result_schema() -> dict[str, Any]:
    player = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "team": {"description": "Index into teams, or null.", **NULLABLE_INDEX},
            "score": {"description": "The side's final score.", "type": "integer"},
            "stats": {"description": "As in the state (docs/state.md).", "type": "object"},
            "board": {
                "description": "Only in a remote match: where the player threw, base/board.",
                "type": "string",
            },
            "cpu": {
                **CPU_STATE,
                "description": "Only on a computer player: its level, spread and average "
                "(leaderboards rank people only).",
            },
            "player_id": {
                "description": "The player's id in the venue's roster (docs/players.md): "
                "the leaderboard counts the game for that player whatever the name; null "
                "for a guest or a computer player. Absent: a board older than the lobby.",
                "type": ["integer", "null"],
                "minimum": 1,
            },
        },
        "required": ["name", "score"],
    }
    return {
        "$schema": DRAFT,
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
            "winner": {"description": "Winning player index, null for a draw.", **NULLABLE_INDEX},
            "winner_name": {"type": ["string", "null"]},
            "winner_team": NULLABLE_INDEX,
            "result": {
                "description": "How the game ended: checkout, closed-all, round-limit, ...",
                "type": "string",
            },
            "started_at": {
                **TIMESTAMP,
                "description": "Unix time in seconds (float), before 2100; null when unknown.",
                "type": ["number", "null"],
            },
            "finished_at": TIMESTAMP,
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


@dataclass(frozen=True, slots=True)
class ResultStored(JsonObject):
    """A leaderboard's ``result/stored``: what it did with the result ``result_id``."""

    result_id: Annotated[str, Meta(description="The result's result_id.")]
    status: Annotated[str, Meta(enum=RESULT_STORED_STATUSES)]
    at: Annotated[Timestamp | None, Meta(description="When the service stored it.")] = omitted()

    def payload(self) -> bytes:
        """The message as published: compact JSON."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


RESULT_STORED_TOPIC = (
    "Oche result/stored topic",
    "Published by a leaderboard service after the result is in its database (committed), "
    "for every result it receives, redeliveries included. The board keeps a result in its "
    "outbox until this arrives, and sends again what is not stored whenever a leaderboard "
    "comes online.",
    lambda defs: object_schema(ResultStored, defs),
)
"""The ``result/stored`` topic's title, description and schema body."""


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
