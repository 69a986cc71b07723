"""What the join page and its API check before a phone joins a board
(docs/players.md): the board is one the service has heard, its last
retained state's ``lobby.join_code`` is the code given, and the client has
not guessed too many codes lately (:class:`BadCodeLimit`). A refusal is a
:class:`JoinRefusedError` with its HTTP status and a sentence a player reads."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from leaderboard.api_models import LiveBoard
from leaderboard.live_hub import LiveHub
from mqtt_contract import board_id_problem

__all__ = [
    "BAD_CODES_PER_MINUTE",
    "EXPIRED_CODE",
    "BadCodeLimit",
    "JoinRefusedError",
    "checked_board",
]

EXPIRED_CODE = "This code has expired: scan the code on the board again"
"""What a player reads for a code that is not the board's current one."""

BAD_CODES_PER_MINUTE = 10
"""Bad codes (or unknown boards) one client address may try in a minute;
past that its joins are refused for the rest of the minute (a code is six
letters: guessing must stay hopeless)."""
WINDOW_SECONDS = 60.0


class JoinRefusedError(Exception):
    """A join (or its page) refused: ``status`` (403, 404, 429) and ``detail``."""

    def __init__(self, status: int, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


class BadCodeLimit:
    """The bad codes each client address tried in the last minute."""

    def __init__(self, limit: int = BAD_CODES_PER_MINUTE, window: float = WINDOW_SECONDS) -> None:
        self.limit = limit
        self.window = window
        self._tries: dict[str, deque[float]] = {}

    def _recent(self, client: str, now: float) -> deque[float]:
        tries = self._tries.get(client, deque())
        while tries and tries[0] <= now - self.window:
            tries.popleft()
        if not tries:
            self._tries.pop(client, None)
        return tries

    def check(self, client: str, now: float | None = None) -> None:
        """A 429 :class:`JoinRefusedError` when ``client`` used up its bad codes."""
        at = time.monotonic() if now is None else now
        tries = self._recent(client, at)
        if len(tries) >= self.limit:
            wait = max(1, int(tries[0] + self.window - at) + 1)
            raise JoinRefusedError(
                429, f"Too many wrong codes from here: try again in {wait} s", retry_after=wait
            )

    def bad(self, client: str, now: float | None = None) -> None:
        """``client`` tried a bad code (or a board that is not there)."""
        at = time.monotonic() if now is None else now
        tries = self._recent(client, at)
        tries.append(at)
        self._tries[client] = tries


def _lobby(board: LiveBoard) -> dict[str, Any] | None:
    lobby = board.state.get("lobby") if board.state else None
    return lobby if isinstance(lobby, dict) else None


def checked_board(
    hub: LiveHub, limit: BadCodeLimit, client: str, board: str, code: str
) -> tuple[LiveBoard, dict[str, Any]]:
    """The board and its state's lobby when ``code`` is its join code now;
    else a :class:`JoinRefusedError` (404 a board not heard, 403 a code that
    is not its current one, 429 past the client's bad codes), the bad ones counted."""
    limit.check(client)
    known = next((seen for seen in hub.boards() if seen.board == board), None)
    if board_id_problem(board) is not None or known is None or known.state is None:
        limit.bad(client)
        raise JoinRefusedError(404, f"There is no board {board!r} here")
    lobby = _lobby(known)
    current = lobby.get("join_code") if lobby is not None else None
    if lobby is None or current is None:
        limit.bad(client)
        raise JoinRefusedError(403, f"Board {board} takes no joins from a phone now")
    if code.strip().upper() != current:
        limit.bad(client)
        raise JoinRefusedError(403, EXPIRED_CODE)
    return known, lobby
