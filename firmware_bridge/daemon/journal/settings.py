"""What the operator set at a board (prices, free play), what the lobby
keeps of a board (its players, its copy of the roster: keys under
``lobby.``) and what the pairing keeps (its code, its paired devices: keys
under ``pairing.``): the store :attr:`Journal.settings`."""

from __future__ import annotations

import json
from typing import Any

from firmware_bridge.daemon.journal.database import Database

__all__ = ["LOBBY_PREFIX", "PAIRING_PREFIX", "SettingsStore"]

LOBBY_PREFIX = "lobby."
"""The keys the lobby keeps (``lobby.players``, ``lobby.roster``, ...): not the operator's."""

PAIRING_PREFIX = "pairing."
"""The keys the pairing keeps (``pairing.code``, ``pairing.devices``): not the operator's."""


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
        """What the operator set at ``board``: key -> value (not the lobby's
        nor the pairing's keys)."""
        with self._db.reading() as connection:
            rows = connection.execute(
                "SELECT key, value FROM operator_settings WHERE board = ? AND key NOT LIKE ? "
                "AND key NOT LIKE ? ORDER BY key",
                (str(board), LOBBY_PREFIX + "%", PAIRING_PREFIX + "%"),
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
