"""The operator menu's own MQTT connection, as the operator's account.

Operator commands (docs/credits.md) go on ``{base}/{board}/operator/cmd``,
which the deployed ACL lets only the operator account write; the books
(``{base}/{board}/books``, retained) only it may read. So while the menu is
open the display holds a second connection, as ``[operator] username`` with
the password from ``password_file`` (none configured: anonymous, as on a
home broker), to the same broker as its feed. Like :class:`StateFeed`, an
aiomqtt client runs on its own asyncio loop in a daemon thread; the UI
thread only reads snapshots and queues commands, never waits.

- :meth:`OperatorLink.send` publishes a command with an id of the link's own
  (``operator-<token>-<n>``) and remembers it;
- :meth:`OperatorLink.answers` hands over the answers to those ids from
  ``operator/cmd/response`` (others' are ignored), and, for a command with
  no answer after :attr:`OperatorLink.answer_timeout` seconds, an answer
  saying so: Mosquitto drops a publish the account may not make without a
  word, so silence is how "no rights" shows;
- :attr:`OperatorLink.books` is the latest books snapshot;
- :attr:`OperatorLink.status` says ``connecting``, ``connected`` or what
  went wrong: the broker refused the account, or is away (it retries).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

import aiomqtt

from display.background_loop import BackgroundMqtt
from mqtt_contract import check_base, check_board_id, parse_broker_url

__all__ = ["Answer", "OperatorLink"]

log = logging.getLogger(__name__)

_REFUSED_CODES = frozenset((4, 5, 134, 135))
"""CONNACK codes of a refused account: bad user name or password, not
authorised (MQTT 3.1.1 and 5)."""
_MAX_PENDING = 64


@dataclass(frozen=True)
class Answer:
    """The daemon's answer to one of the link's commands (or the lack of one)."""

    command: str
    ok: bool
    error: str | None


class OperatorLink(BackgroundMqtt):
    """The operator's connection for one board; :meth:`start` it, :meth:`close` it."""

    thread_name = "oche-operator-link"

    def __init__(
        self,
        url: str,
        board: str = "board1",
        base: str = "oche",
        *,
        username: str | None = None,
        password: str | None = None,
        answer_timeout: float = 5.0,
    ) -> None:
        check_base(base)
        check_board_id(board)
        # No account configured: anonymous, not the URL's (that is the feed's).
        address = dataclasses.replace(parse_broker_url(url), username=None, password=None)
        super().__init__(address, username or None, password if username else None)
        self.username = username or None
        self.answer_timeout = answer_timeout
        prefix = f"{base}/{board}/"
        self.topics = {
            name: prefix + name for name in ("operator/cmd", "operator/cmd/response", "books")
        }
        self._lock = threading.Lock()
        self._status = "connecting"
        self._connected = False
        self._books: dict[str, Any] | None = None
        self._answers: list[Answer] = []
        self._pending: dict[str, tuple[str, float]] = {}
        self._id_prefix = f"operator-{secrets.token_hex(3)}-"
        self._ids = itertools.count(1)

    # ------------------------------------------------------------ UI side

    @property
    def status(self) -> str:
        """``connecting``, ``connected``, or the last error in a sentence."""
        with self._lock:
            return self._status

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._connected

    @property
    def books(self) -> dict[str, Any] | None:
        """The latest books snapshot (never modified), ``None`` before one came."""
        with self._lock:
            return self._books

    def answers(self) -> list[Answer]:
        """The answers since the last call, and a timeout answer for each
        command unanswered for :attr:`answer_timeout` seconds."""
        with self._lock:
            self._expire()
            answers, self._answers = self._answers, []
        return answers

    def has_answers(self) -> bool:
        """Whether :meth:`answers` has something to hand over (it takes nothing)."""
        with self._lock:
            self._expire()
            return bool(self._answers)

    def _expire(self) -> None:
        """Turn each command unanswered for too long into an answer saying so (lock held)."""
        now = time.monotonic()
        for command_id, (command, sent) in list(self._pending.items()):
            if now - sent >= self.answer_timeout:
                del self._pending[command_id]
                who = self.username or "anonymous"
                self._answers.append(
                    Answer(
                        command,
                        False,
                        f"no answer in {self.answer_timeout:g} s: the daemon is away, "
                        f"or the account {who} may not send operator commands",
                    )
                )

    def send(self, command: dict[str, Any]) -> bool:
        """Publish ``command`` on ``operator/cmd`` (QoS 1) with the link's own
        id; ``False`` (and nothing sent) when not connected."""
        loop = self._loop
        if loop is None or self._closed or not self.connected:
            return False
        name = str(command.get("command", "?"))
        with self._lock:
            command_id = f"{self._id_prefix}{next(self._ids)}"
            self._pending[command_id] = (name, time.monotonic())
            while len(self._pending) > _MAX_PENDING:
                del self._pending[next(iter(self._pending))]
        payload = json.dumps({**command, "id": command_id}).encode("utf-8")
        asyncio.run_coroutine_threadsafe(self._publish(payload, command_id, name), loop)
        return True

    def _stopped(self) -> None:
        with self._lock:
            self._connected = False

    # ------------------------------------------------------ network side

    def _set(self, status: str, connected: bool) -> None:
        with self._lock:
            self._status, self._connected = status, connected

    def _describe(self, error: aiomqtt.MqttError) -> str:
        code = getattr(error, "rc", None)
        value = getattr(code, "value", code)
        where = f"{self.address.host}:{self.address.port}"
        if isinstance(value, int) and value in _REFUSED_CODES:
            who = f"the account {self.username}" if self.username else "an anonymous client"
            return (
                f"no rights: the broker at {where} refused {who} "
                "(check [operator] username and password_file)"
            )
        return f"broker away: cannot reach {where} ({str(error) or type(error).__name__})"

    def _subscriptions(self) -> list[str]:
        return [self.topics["operator/cmd/response"], self.topics["books"]]

    def _connection_changed(
        self, connected: bool, error: aiomqtt.MqttError | None, retry_in: float
    ) -> None:
        if connected:
            self._set("connected", True)
        elif error is not None:
            self._set(self._describe(error), False)
            log.warning("operator link: %s; retrying in %.1f s", self.status, retry_in)
        else:
            with self._lock:
                self._connected = False

    async def _publish(self, payload: bytes, command_id: str, name: str) -> None:
        client = self._client
        try:
            if client is None:
                raise aiomqtt.MqttError("not connected")
            await client.publish(self.topics["operator/cmd"], payload, qos=1, retain=False)
        except aiomqtt.MqttError as error:
            with self._lock:
                if self._pending.pop(command_id, None) is not None:
                    self._answers.append(Answer(name, False, f"not sent: {error}"))

    def _receive(self, topic: str, raw: Any) -> None:
        data = bytes(raw) if isinstance(raw, bytes | bytearray) else str(raw or "").encode()
        if topic == self.topics["books"] and not data:
            with self._lock:
                self._books = None
            return
        try:
            payload = json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            log.warning("%s: not JSON, ignored", topic)
            return
        if not isinstance(payload, dict):
            return
        with self._lock:
            if topic == self.topics["books"]:
                self._books = payload
            elif topic == self.topics["operator/cmd/response"]:
                command_id = payload.get("id")
                if isinstance(command_id, str) and command_id in self._pending:
                    name, _ = self._pending.pop(command_id)
                    ok = payload.get("ok") is True
                    error = None if ok else str(payload.get("error") or "refused")
                    self._answers.append(Answer(name, ok, error))
