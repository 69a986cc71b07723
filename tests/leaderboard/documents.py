"""Result documents as a daemon publishes them (``Daemon._finish_record``),
made by playing a log through the engine: what the storage tests ingest."""

from __future__ import annotations

import json
import uuid
from typing import Any

from engine import new_game
from engine.game_log import format_game_log, replay_log

__all__ = ["X01_LOG", "as_payload", "result_document"]

X01_LOG = "T20 T20 T20\nS20 S20 S20\nT20 T7 D20\n"
"""301 between two: the first player throws a 180, the second 60, then the
first checks out 121 (T20 T7 D20): a 6-dart leg, average 150.5."""


def result_document(
    game: str,
    players: list[str],
    log: str,
    *,
    options: dict[str, Any] | None = None,
    teams: dict[str, list[str]] | None = None,
    board: str = "board1",
    finished_at: float = 1_780_000_000.0,
    started_at: float | None = None,
    result_id: str | None = None,
) -> dict[str, Any]:
    """The ``result`` payload of ``log`` played to its end by ``players``."""
    played = new_game(game, players, options or {}, teams)
    replay_log(played, log)
    state = played.state()
    assert state["finished"], f"the log does not finish the {game} game"
    winner = state["winner"]
    return {
        "result_id": result_id or str(uuid.uuid4()),
        "board": board,
        "game": state["game"],
        "options": state["options"],
        "players": [
            {k: p[k] for k in ("name", "team", "score", "stats")} for p in state["players"]
        ],
        "teams": state["teams"],
        "winner": winner,
        "winner_name": state["players"][winner]["name"] if winner is not None else None,
        "winner_team": state["winner_team"],
        "result": state["result"],
        "started_at": started_at if started_at is not None else finished_at - 600,
        "finished_at": finished_at,
        "log": format_game_log(played.events, in_visits=played.plays_in_visits),
    }


def as_payload(document: dict[str, Any]) -> bytes:
    """The document as the daemon sends it: compact JSON, UTF-8."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
