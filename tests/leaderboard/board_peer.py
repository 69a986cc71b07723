"""A stand-in for a board on a real Mosquitto, for the board API's tests (the
daemon's pairing extension is another branch's): it keeps a retained
``state`` and ``pairing`` (a six-digit code, the paired devices), takes
``pair`` on ``cmd`` as the board does (the current code pairs the device
and makes a new code; a wrong one is refused), takes every other command
(``refuse_with`` makes it refuse them), answers on ``cmd/response``, and
records every message its ``cmd`` topic carried. :meth:`BoardPeer.unpair`
is the operator's "Unpair" on the board; :meth:`BoardPeer.event` a dart."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from tests.mosquitto_broker import MosquittoBroker

__all__ = ["WRONG_CODE", "BoardPeer"]

WRONG_CODE = "wrong pairing code: read it again from the board"
"""The peer's refusal of a code that is not its current one."""
MARKER = "peer-marker"
"""The id of a command the test itself publishes on ``cmd``: everything before it arrived."""


class BoardPeer:
    """Board ``board`` on ``broker``, its pairing code ``code``."""

    def __init__(self, broker: MosquittoBroker, board: str, code: str) -> None:
        self.board = board
        self.code = code
        self.devices: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.refuse_with: str | None = None
        self._changed = threading.Condition()
        self._next_code = 100000
        self._client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self._client.on_message = self._on_message
        self._client.connect(broker.host, broker.port)
        self._client.loop_start()
        self._client.subscribe(f"oche/{board}/cmd", qos=1)
        self._publish("availability", b"online", retain=True)
        self.publish_state({"phase": "idle", "board": {"id": board, "name": board}})
        self.publish_pairing()
        self.drain()  # subscribed: a marker came back

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def _publish(self, name: str, payload: bytes, retain: bool = False, wait: bool = True) -> None:
        info = self._client.publish(f"oche/{self.board}/{name}", payload, qos=1, retain=retain)
        if wait:
            info.wait_for_publish(5)

    def publish_state(self, state: dict[str, Any], wait: bool = True) -> None:
        """A retained ``state``; ``wait`` for its PUBACK (never on paho's own thread)."""
        self._publish("state", json.dumps(state).encode(), retain=True, wait=wait)

    def publish_pairing(self, wait: bool = True) -> None:
        """The retained ``pairing`` now: the code and the devices."""
        document: dict[str, Any] = {"code": self.code, "url": None, "devices": self.devices}
        document["updated_at"] = time.time()
        self._publish("pairing", json.dumps(document).encode(), retain=True, wait=wait)

    def publish_raw(self, name: str, payload: bytes) -> None:
        """Anything on the board's topic ``name`` (a ``result``, say), not retained."""
        self._publish(name, payload)

    def publish_raw_pairing(self, payload: bytes) -> None:
        """Anything on the retained ``pairing`` (b"": the topic cleared)."""
        self._publish("pairing", payload, retain=True)

    def event(self, event: dict[str, Any]) -> None:
        """An ``event`` of the board (a dart thrown, say)."""
        self._publish("event", json.dumps(event).encode())

    def unpair(self, device: str) -> None:
        """The operator unpairs ``device`` on the board: its list drops it."""
        self.devices = [known for known in self.devices if known["id"] != device]
        self.publish_pairing()

    def game_commands(self) -> list[dict[str, Any]]:
        """Every command ``cmd`` carried but the test's markers."""
        with self._changed:
            return [command for command in self.commands if command.get("id") != MARKER]

    def drain(self, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The commands ``cmd`` carried so far: a marker is published on
        ``cmd`` and waited for (the broker keeps one publisher's order, and
        the service's commands were answered before the test gets here)."""
        marker = {"command": "next", "id": MARKER}
        with self._changed:
            self.commands = [command for command in self.commands if command.get("id") != MARKER]
        self._publish("cmd", json.dumps(marker).encode())
        self.wait_for(lambda commands: any(c.get("id") == MARKER for c in commands), timeout)
        return self.game_commands()

    def wait_for(
        self, test: Callable[[list[dict[str, Any]]], bool], timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not test(self.commands):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no such commands within {timeout} s: {self.commands}")
                self._changed.wait(left)
            return list(self.commands)

    def _answer(self, command: dict[str, Any]) -> dict[str, Any]:
        ok: dict[str, Any] = {"id": command.get("id"), "ok": True, "error": None}
        if command.get("command") == "pair":
            if command.get("code") != self.code:
                return {**ok, "ok": False, "error": WRONG_CODE}
            device = command["device"]
            self.devices.append({**device, "paired_at": time.time()})
            self._next_code += 1
            self.code = str(self._next_code)
            self.publish_pairing(wait=False)
            return ok
        if self.refuse_with is not None:
            return {**ok, "ok": False, "error": self.refuse_with}
        return ok

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        command = json.loads(message.payload)
        with self._changed:
            self.commands.append(command)
            self._changed.notify_all()
        if command.get("id") == MARKER:
            return
        answer = self._answer(command)
        client.publish(f"oche/{self.board}/cmd/response", json.dumps(answer).encode(), qos=1)
