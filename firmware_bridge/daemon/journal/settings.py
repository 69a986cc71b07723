"""What the operator set at a board (prices, free play), what the lobby
keeps of a board (its players, its copy of the roster: keys under
``lobby.``), what the pairing keeps (its code, its paired devices: keys
under ``pairing.``) and what the called matches keep (keys under ``call.``):
the store :attr:`Journal.settings`."""

from __future__ import annotations

import json
from typing import Any

from firmware_bridge.daemon.journal.database import Database

__all__ = ["CALL_PREFIX", "LOBBY_PREFIX", "PAIRING_PREFIX", "SettingsStore"]

LOBBY_PREFIX = "lobby."
"""The keys the lobby keeps (``lobby.players``, ``lobby.roster``, ...): not the operator's."""

PAIRING_PREFIX = "pairing."
"""The keys the pairing keeps (``pairing.code``, ``pairing.devices``): not the operator's."""


CALL_PREFIX = "call."
"""The keys the called matches keep (``call.book``: the call waiting, the one
playing, those started): not the operator's."""

_NOT_OPERATORS = (LOBBY_PREFIX, PAIRING_PREFIX, CALL_PREFIX)


class SettingsStore:
    """The operator's settings of every board, and the lobby's keys (``operator_settings``)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def set_operator_setting(self, board: str, key: str, value: Any, at: float) -> None:
        """Keep what the operator set at ``board`` (``free_play``, ``price``,
        ``price.<game>``; ``value`` as JSON; ``None`` removes the setting)."""
        with self._db.transaction() as connection:
            if value is None:
                connection.execute(
                    "DELETE FROM operator_settings WHERE board = ? AND key = ?",
                    (str(board), str(key)),
                )
                return
            connection.execute(
                "INSERT INTO operator_settings (board, key, value, at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (board, key) DO UPDATE SET value = excluded.value, at = excluded.at",
                (str(board), str(key), self._db.json(value, key), self._db.time(at)),
            )

    def operator_settings(self, board: str) -> dict[str, Any]:
        """What the operator set at ``board``: key -> value (not the lobby's,
        the pairing's nor the called matches' keys)."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT key, value FROM operator_settings WHERE board = ? "
                + "".join("AND key NOT LIKE ? " for _ in _NOT_OPERATORS)
                + "ORDER BY key",
                (str(board), *(prefix + "%" for prefix in _NOT_OPERATORS)),
            ).fetchall()
        settings: dict[str, Any] = {}
        for key, value in rows:
            try:
                settings[str(key)] = json.loads(value)
            except ValueError:
                continue  # a damaged setting is as if unset
        return settings

    def lobby_value(self, board: str, key: str) -> Any:
        """What the lobby kept at ``board`` as ``lobby.<key>`` (decoded JSON),
        or ``None`` when nothing (or something unreadable) is kept."""
        return self._kept_value(board, LOBBY_PREFIX + key)

    def pairing_value(self, board: str, key: str) -> Any:
        """What the pairing kept at ``board`` as ``pairing.<key>`` (decoded
        JSON), or ``None`` when nothing (or something unreadable) is kept."""
        return self._kept_value(board, PAIRING_PREFIX + key)

    def keep_pairing_value(self, board: str, key: str, value: Any, at: float) -> None:
        """Keep ``value`` (JSON) as the pairing's ``pairing.<key>`` at ``board``."""
        self.set_operator_setting(board, PAIRING_PREFIX + key, value, at)

    def call_value(self, board: str, key: str) -> Any:
        """What the called matches kept at ``board`` as ``call.<key>``, or ``None``."""
        return self._kept_value(board, CALL_PREFIX + key)

    def keep_call_value(self, board: str, key: str, value: Any, at: float) -> None:
        """Keep ``value`` (JSON) as the called matches' ``call.<key>`` at ``board``."""
        self.set_operator_setting(board, CALL_PREFIX + key, value, at)

    def _kept_value(self, board: str, full_key: str) -> Any:
        """The decoded JSON kept at ``board`` under ``full_key``, or ``None``."""
        with self._db.reading() as connection:
            row = connection.execute(
                "SELECT value FROM operator_settings WHERE board = ? AND key = ?",
                (str(board), full_key),
            ).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError:
            return None  # a damaged value is as if unset

    def keep_lobby_value(self, board: str, key: str, value: Any, at: float) -> None:
        """Keep ``value`` (JSON) as the lobby's ``lobby.<key>`` at ``board``."""
        self.set_operator_setting(board, LOBBY_PREFIX + key, value, at)
