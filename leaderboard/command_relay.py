"""Commands the service sends a board for a web client (a phone's ``join``,
docs/players.md): published on ``{base}/{board}/cmd`` with an id of the
service's own, answered by the board's ``{base}/{board}/cmd/response`` with
that id. :class:`CommandRelay` keeps its own MQTT connection (a clean
session: a command is worth nothing once its page stopped waiting),
subscribed to every board's responses, and reconnects with backoff."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import secrets
from typing import Any

import aiomqtt

from leaderboard.service_settings import ServiceSettings
from mqtt_client.backoff import Backoff
from mqtt_client.client import (
    Client,
    load_tls,
    new_client,
    payload_bytes,
    raise_if_cancelling,
)
from mqtt_contract import check_base, parse_broker_url, topic

__all__ = ["RESPONSE_TIMEOUT", "BoardSilentError", "CommandRelay", "RelayOfflineError"]

log = logging.getLogger(__name__)

RESPONSE_TIMEOUT = 5.0
"""Seconds a relayed command waits for its board's ``cmd/response``."""


class RelayOfflineError(RuntimeError):
    """The service is not connected to the broker: no command can be sent now."""


class BoardSilentError(TimeoutError):
    """The board did not answer the command in time (offline, or too busy)."""


class CommandRelay:
    """Sends a command to a board and waits for its answer (:meth:`send`);
    :meth:`run` connects, serves and reconnects until cancelled."""

    BACKOFF_START = 0.5
    BACKOFF_CAP = 30.0
    BACKOFF_JITTER = 0.25
    KEEPALIVE = 30
    TIMEOUT = 10.0

    def __init__(self, settings: ServiceSettings) -> None:
        self._settings = settings
        self._address = parse_broker_url(settings.mqtt_url)
        self._base = check_base(settings.base)
        self._responses = f"{self._base}/+/cmd/response"
        self._client: Client | None = None
        self._prefix = f"lb-{secrets.token_hex(4)}-"
        """This instance's command ids start so: another instance's are not ours."""
        self._numbers = itertools.count(1)
        self._waiting: dict[tuple[str, str], asyncio.Future[dict[str, Any]]] = {}

    @property
    def connected(self) -> bool:
        """Whether a command can be sent now."""
        return self._client is not None

    async def send(
        self, board: str, command: dict[str, Any], timeout: float = RESPONSE_TIMEOUT
    ) -> dict[str, Any]:
        """Publish ``command`` (given an id here) on ``board``'s ``cmd`` and
        return the board's response (``{"id", "ok", "error", ...}``). A
        :class:`RelayOfflineError` when not connected, a
        :class:`BoardSilentError` when no answer came within ``timeout``."""
        client = self._client
        if client is None:
            raise RelayOfflineError("the leaderboard service is not connected to the broker")
        command_id = f"{self._prefix}{next(self._numbers)}"
        key = (board, command_id)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[key] = answer
        payload = json.dumps({**command, "id": command_id}, separators=(",", ":")).encode()
        try:
            try:
                await client.publish(topic(self._base, board, "cmd"), payload, qos=1)
            except aiomqtt.MqttError as exc:
                raise_if_cancelling()
                raise RelayOfflineError(f"the command could not be sent: {exc}") from None
            try:
                return await asyncio.wait_for(answer, timeout)
            except TimeoutError:
                raise BoardSilentError(
                    f"board {board} did not answer within {timeout:g} s"
                ) from None
        finally:
            self._waiting.pop(key, None)

    async def run(self) -> None:
        """Connect, subscribe to the responses, serve; reconnect with backoff."""
        backoff = Backoff(self.BACKOFF_START, self.BACKOFF_CAP, self.BACKOFF_JITTER)
        tls = await load_tls(self._address, self._settings.mqtt_ca_file)
        while True:
            client = new_client(
                self._address,
                tls=tls,
                username=self._settings.mqtt_username,
                password=self._settings.mqtt_password,
                timeout=self.TIMEOUT,
                keepalive=self.KEEPALIVE,
                logger=logging.getLogger(f"{__name__}.paho"),
            )
            try:
                async with client:
                    raise_if_cancelling()
                    await client.subscribe(self._responses, qos=1)
                    raise_if_cancelling()
                    backoff.reset()
                    self._client = client
                    log.info("command relay: connected to %s", self._address.url)
                    await self._serve(client)
            except aiomqtt.MqttError as exc:
                raise_if_cancelling()
                log.debug("command relay: %s unreachable (%s)", self._address.url, exc)
            finally:
                self._client = None
            await asyncio.sleep(backoff.next_delay())

    async def _serve(self, client: Client) -> None:
        async for message in client.messages:
            where = message.topic.value
            board = where[len(self._base) + 1 : -len("/cmd/response")]
            self._answer(board, payload_bytes(message.payload))

    def _answer(self, board: str, payload: bytes) -> None:
        """A board's response: to the command waiting for it, if one is."""
        try:
            document = json.loads(payload)
        except ValueError:
            return
        if not isinstance(document, dict) or not isinstance(document.get("id"), str):
            return
        waiting = self._waiting.get((board, document["id"]))
        if waiting is not None and not waiting.done():
            waiting.set_result(document)
