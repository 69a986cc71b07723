"""A small MQTT broker inside the daemon (amqtt), for a board with no broker
on the network: the scoreboard display on the same machine connects to it.

It listens on a loopback address only (never on the network), lets anyone
connect without a password and keeps nothing on disk: retained messages live
as long as the broker runs. amqtt (the ``oche[broker]`` extra) is imported
only when the broker starts, so a daemon with an external broker never loads it.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
from typing import Any

__all__ = ["EmbeddedBroker", "EmbeddedBrokerError"]

log = logging.getLogger(__name__)


class EmbeddedBrokerError(RuntimeError):
    """The embedded broker could not start (the port is taken, ...)."""


def _loopback_host(host: str) -> str:
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(
            f"the embedded broker listens on a loopback address (127.0.0.1, ::1), not {host!r}"
        ) from None
    if not address.is_loopback:
        raise ValueError(
            f"the embedded broker listens on a loopback address only, not {host!r}: "
            "use an external broker (Mosquitto) to serve the network"
        )
    return str(address)


class EmbeddedBroker:
    """An amqtt broker on ``host:port`` (loopback only). The constructor checks
    its arguments and does no I/O; :meth:`start` binds, :meth:`stop` closes."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.host = _loopback_host(host)
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise ValueError(f"port must be 1 to 65535, got {port!r}")
        self.port = port
        self._broker: Any = None

    @property
    def address(self) -> str:
        """``host:port`` (IPv6 hosts in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        """``mqtt://host:port``, for :class:`firmware_bridge.mqtt_link.LinkSettings`."""
        return f"mqtt://{self.address}"

    @property
    def running(self) -> bool:
        return self._broker is not None

    def config(self) -> dict[str, Any]:
        """The amqtt configuration: one TCP listener on this address, anonymous
        clients, no $SYS topics and no persistence plugin."""
        return {
            "listeners": {
                "default": {"type": "tcp", "bind": self.address, "max_connections": 0},
            },
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            },
        }

    async def start(self) -> None:
        """Listen on ``host:port``. An :class:`EmbeddedBrokerError` names the
        address when it is taken or cannot be bound."""
        if self._broker is not None:
            return
        from amqtt.broker import Broker  # type: ignore[import-untyped]
        from amqtt.errors import BrokerError  # type: ignore[import-untyped]

        broker = Broker(self.config())
        try:
            await broker.start()
        except BrokerError as exc:
            cause = exc.__cause__
            if isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE:
                raise EmbeddedBrokerError(
                    f"cannot start the embedded MQTT broker: {self.address} is already in use "
                    "(is another broker running? use it instead, or pick another port)"
                ) from exc
            raise EmbeddedBrokerError(
                f"cannot start the embedded MQTT broker on {self.address}: {cause or exc}"
            ) from exc
        self._broker = broker
        log.info("embedded MQTT broker listening on %s", self.address)

    async def stop(self) -> None:
        """Disconnect every client and close the listener. Idempotent."""
        broker, self._broker = self._broker, None
        if broker is None:
            return
        await broker.shutdown()
        log.info("embedded MQTT broker on %s stopped", self.address)
