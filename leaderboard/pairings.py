"""The browsers paired to control a board from the web (docs/leaderboard.md,
"Controlling a board"): a bearer token per paired device, stored as its
SHA-256 digest only (``board_pairings``), for one board; and
:class:`BoardPairings`, the devices each board lists on its retained
``pairing`` topic as last heard, whose tokens are deleted once the board
drops the device (the operator unpaired it on the board).

The board is the authority on who is paired; the service is the gate: a
command from the web reaches a board's ``cmd`` only with a token of that
board whose device the board still lists (or, before the board's list was
heard, whose token the database still has)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import delete, select

from leaderboard.database import Database
from leaderboard.models import BoardPairing
from mqtt_contract.pairing_payload import device_id_problem

__all__ = [
    "BoardPairings",
    "Pairing",
    "add_pairing",
    "forget_token",
    "forget_unlisted",
    "new_device_id",
    "pairing_of",
    "token_digest",
]

log = logging.getLogger(__name__)

TOKEN_BYTES = 32
"""Random bytes in a token (``secrets.token_urlsafe``: 43 characters)."""
DEVICE_ID_BYTES = 16
"""Random bytes in a device id the service mints (22 URL-safe characters)."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """A paired browser: the board it controls, its device id and name, since when."""

    board: str
    device_id: str
    device_name: str
    created_at: float


def token_digest(token: str) -> str:
    """A token as the database keeps it: its SHA-256, hex (a token is random:
    no salt or slow hash is needed to keep it from being guessed back)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_device_id() -> str:
    """A fresh random device id the ``pair`` command and the board's list carry."""
    device = secrets.token_urlsafe(DEVICE_ID_BYTES)
    assert device_id_problem(device) is None
    return device


def add_pairing(
    database: Database, board: str, device_id: str, device_name: str, now: float | None = None
) -> str:
    """Store a pairing the board took and return its token (the only time it
    is seen: the database keeps its digest). Blocking (database)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with database.write_session() as session:
        session.add(
            BoardPairing(
                token_hash=token_digest(token),
                board=board,
                device_id=device_id,
                device_name=device_name,
                created_at=time.time() if now is None else now,
            )
        )
    return token


def pairing_of(database: Database, token: str) -> Pairing | None:
    """The pairing ``token`` is the token of, or None. Blocking (database)."""
    with database.session() as session:
        row = session.execute(
            select(BoardPairing).where(BoardPairing.token_hash == token_digest(token))
        ).scalar_one_or_none()
        if row is None:
            return None
        return Pairing(row.board, row.device_id, row.device_name, row.created_at)


def forget_token(database: Database, token: str) -> bool:
    """Delete ``token``'s pairing; whether there was one. Blocking (database)."""
    with database.write_session() as session:
        gone = session.execute(
            delete(BoardPairing)
            .where(BoardPairing.token_hash == token_digest(token))
            .returning(BoardPairing.id)
        ).all()
    return bool(gone)


def forget_unlisted(database: Database, board: str, listed: Collection[str]) -> list[str]:
    """Delete the pairings of ``board`` whose device is not in ``listed``; the
    device ids deleted. Blocking (database)."""
    with database.write_session() as session:
        query = delete(BoardPairing).where(BoardPairing.board == board)
        if listed:
            query = query.where(BoardPairing.device_id.not_in(list(listed)))
        gone = session.execute(query.returning(BoardPairing.device_id)).scalars().all()
    return sorted(gone)


class BoardPairings:
    """Each board's paired devices as its retained ``pairing`` topic last
    listed them (:meth:`heard`, from the MQTT side, on the loop), and the
    tokens of the devices it no longer lists deleted in a worker thread (a
    database that is away is tried again on the board's next message; the
    list refuses those tokens meanwhile)."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._listed: dict[str, frozenset[str]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def listed(self, board: str, device: str) -> bool | None:
        """Whether ``board`` lists ``device`` now; None before its list was heard."""
        devices = self._listed.get(board)
        return None if devices is None else device in devices

    def heard(self, board: str, devices: Collection[str]) -> None:
        """``board``'s ``pairing`` topic lists ``devices`` (empty: none, or the
        topic was cleared): the tokens of every other device of it are deleted."""
        self._listed[board] = frozenset(devices)
        task = asyncio.get_running_loop().create_task(self._forget(board))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def paired(self, board: str, device: str) -> None:
        """``board`` took ``device``'s pairing just now: listed until its next
        ``pairing`` message says otherwise (that message may still be on its way)."""
        devices = self._listed.get(board)
        if devices is not None:
            self._listed[board] = devices | {device}

    async def settled(self) -> None:
        """Wait for the deletions under way (tests, and a stopping service)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _forget(self, board: str) -> None:
        listed = self._listed[board]
        try:
            gone = await asyncio.to_thread(forget_unlisted, self._database, board, listed)
        except Exception as exc:  # the database away: the list refuses them meanwhile
            text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
            log.warning("board %s's unpaired devices keep their tokens for now: %s", board, text)
            return
        for device in gone:
            log.info("board %s unpaired device %s: its token no longer controls it", board, device)
