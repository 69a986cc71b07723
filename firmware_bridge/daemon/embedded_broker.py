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
import socket
from collections.abc import Iterator
from typing import Any

__all__ = ["EmbeddedBroker", "EmbeddedBrokerError", "address_in_use"]

log = logging.getLogger(__name__)


class _SubscriptionTable(dict[str, Any]):
    """amqtt's table of subscriptions (topic filter -> subscribers), iterated
    over a snapshot of its keys. amqtt 0.11-0.12 walks this table with an
    ``await`` inside the walk when a client connects (sending it retained
    messages); a second client subscribing to a new filter meanwhile made it
    raise "dictionary changed size during iteration" and drop the first
    client (seen with ``oche play --leaderboard``, whose daemon, service and
    display connect together)."""

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.keys()))

    def items(self) -> Any:
        return list(super().items())


class EmbeddedBrokerError(RuntimeError):
    """The embedded broker could not start; ``in_use`` when its port is taken."""

    def __init__(self, message: str, *, in_use: bool = False) -> None:
        super().__init__(message)
        self.in_use = in_use


def address_in_use(host: str, port: int) -> bool:
    """Whether something already listens on loopback ``host:port`` (probed by
    binding it as the broker will)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio does
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


class _StartupFailure(logging.Filter):
    """Drops amqtt's own traceback of a failed start: :meth:`EmbeddedBroker.start`
    reports the failure itself, in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != "Broker startup failed"


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
        """``mqtt://host:port``, for :class:`firmware_bridge.daemon.mqtt_link.LinkSettings`."""
        return f"mqtt://{self.address}"

    @property
    def running(self) -> bool:
        return self._broker is not None

    def config(self) -> dict[str, Any]:
        """The amqtt configuration: one TCP listener on this address, anonymous
        clients, no $SYS topics and no persistence plugin."""
        # Unbracketed: amqtt 0.12 splits "host:port" at the last colon, but
        # hands "[::1]" to asyncio with its brackets, which no resolver knows.
        return {
            "listeners": {
                "default": {
                    "type": "tcp",
                    "bind": f"{self.host}:{self.port}",
                    "max_connections": 0,
                },
            },
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            },
        }

    @staticmethod
    def require() -> None:
        """Import amqtt (the ``oche[broker]`` extra), or raise the
        ModuleNotFoundError that tells the CLI which extra to install."""
        import amqtt.broker  # type: ignore[import-untyped]  # noqa: F401

    async def start(self) -> None:
        """Listen on ``host:port``. An :class:`EmbeddedBrokerError` names the
        address when it is taken or cannot be bound."""
        if self._broker is not None:
            return
        from amqtt.broker import Broker
        from amqtt.errors import BrokerError  # type: ignore[import-untyped]

        class PatchedBroker(Broker):  # type: ignore[misc]
            """amqtt's broker with a subscription table that survives its own
            iteration bug (see _SubscriptionTable); pyproject.toml pins the
            amqtt versions it is written for."""

            def __init__(self, config: dict[str, Any]) -> None:
                super().__init__(config)
                self._subscriptions = _SubscriptionTable()

        broker = PatchedBroker(self.config())
        amqtt_log = logging.getLogger("amqtt.broker")
        quiet = _StartupFailure()
        amqtt_log.addFilter(quiet)
        try:
            await broker.start()
        except BrokerError as exc:
            cause = exc.__cause__
            if isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE:
                raise EmbeddedBrokerError(
                    f"cannot start the embedded MQTT broker: {self.address} is already in use "
                    "(another MQTT broker?)",
                    in_use=True,
                ) from None
            raise EmbeddedBrokerError(
                f"cannot start the embedded MQTT broker on {self.address}: {cause or exc}"
            ) from None
        finally:
            amqtt_log.removeFilter(quiet)
        self._broker = broker
        log.debug("embedded MQTT broker listening on %s", self.address)

    async def stop(self) -> None:
        """Disconnect every client and close the listener. Idempotent."""
        broker, self._broker = self._broker, None
        if broker is None:
            return
        await broker.shutdown()
        log.debug("embedded MQTT broker on %s stopped", self.address)
