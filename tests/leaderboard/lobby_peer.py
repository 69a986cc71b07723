"""A stand-in for a board's lobby on a real Mosquitto, for the service's
phone-join tests (tests/test_players_end_to_end.py drives the real daemon's
lobby; these test the page and the API alone, fast): it keeps a
retained ``state`` with a ``lobby`` (a join code, the players), takes
``join`` on ``cmd`` the way the daemon's lobby does (the code must be the
current one; ``link_card`` hands back the waiting card's hash) and answers
on ``cmd/response``. :class:`StateWatch` is an independent subscriber that
waits for a board's retained state to say something."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from tests.mosquitto_broker import MosquittoBroker

__all__ = ["EXPIRED", "WAITING_CARD", "LobbyPeer", "StateWatch", "lobby_names"]

EXPIRED = "join code expired or not this board's"
WAITING_CARD = "hmac-sha256$" + "A" * 43
"""The hash of the unknown card the peer says was tapped (``card_waiting``)."""


def _client(broker: MosquittoBroker) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client


class LobbyPeer:
    """Board ``board``'s lobby: ``roster`` maps roster ids to names."""

    def __init__(
        self, broker: MosquittoBroker, board: str, code: str, roster: dict[int, str]
    ) -> None:
        self.board = board
        self.code = code
        self.roster = dict(roster)
        self.players: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.card_waiting = False
        self.refuse_with: str | None = None
        self._lock = threading.Lock()
        self._client = _client(broker)
        self._client.on_message = self._on_message
        self._client.subscribe(f"oche/{board}/cmd", qos=1)
        self._client.publish(f"oche/{board}/availability", b"online", qos=1, retain=True)
        self.publish_state()

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def publish_state(self, wait: bool = True) -> None:
        """The retained state now; ``wait`` for its PUBACK (never on paho's own thread)."""
        lobby = {
            "players": list(self.players),
            "join_code": self.code,
            "join_url": f"http://pub.local:8080/join/{self.board}?code={self.code}",
            "suggestions": [],
            "roster": True,
            "card_waiting": self.card_waiting,
        }
        state = {"phase": "idle", "board": {"id": self.board, "name": self.board}, "lobby": lobby}
        info = self._client.publish(
            f"oche/{self.board}/state", json.dumps(state).encode(), qos=1, retain=True
        )
        if wait:
            info.wait_for_publish(5)

    def new_code(self, code: str) -> None:
        """A game started: the lobby empties and the code changes."""
        with self._lock:
            self.code, self.players = code, []
        self.publish_state()

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        command = json.loads(message.payload)
        self.commands.append(command)
        answer: dict[str, Any] = {"id": command.get("id"), "ok": True, "error": None}
        with self._lock:
            player = command.get("player", {})
            if command.get("command") != "join":
                answer = {"id": command.get("id"), "ok": False, "error": "not a lobby command"}
            elif command.get("code") != self.code:
                answer = {"id": command.get("id"), "ok": False, "error": EXPIRED}
            elif self.refuse_with is not None:
                answer = {"id": command.get("id"), "ok": False, "error": self.refuse_with}
            else:
                pid = player.get("id")
                name = self.roster[pid] if pid is not None else player["name"]
                self.players.append(
                    {"name": name, "player_id": pid, "joined_by": "phone", "joined_at": time.time()}
                )
                if command.get("link_card") and self.card_waiting:
                    answer["card"] = WAITING_CARD
                    self.card_waiting = False
        if answer["ok"]:
            self.publish_state(wait=False)
        client.publish(f"oche/{self.board}/cmd/response", json.dumps(answer).encode(), qos=1)


class StateWatch:
    """The retained states of ``board`` as a subscriber of its own sees them."""

    def __init__(self, broker: MosquittoBroker, board: str) -> None:
        self.states: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._client = _client(broker)
        self._client.on_message = self._on_message
        self._client.subscribe(f"oche/{board}/state", qos=1)

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        with self._changed:
            self.states.append(json.loads(message.payload))
            self._changed.notify_all()

    def wait_for(self, test: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The first state that passes ``test``, within ``timeout`` s; else AssertionError."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = next((state for state in self.states if test(state)), None)
                if found is not None:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no such state within {timeout} s: {self.states[-1:]}")
                self._changed.wait(left)

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()


def lobby_names(state: dict[str, Any]) -> list[str]:
    """The names in a state's lobby."""
    return [player["name"] for player in state.get("lobby", {}).get("players", [])]
