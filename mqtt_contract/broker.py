"""The broker address: ``mqtt://``, ``mqtts://``, ``ws://`` and ``wss://`` URLs
parsed into a :class:`BrokerAddress`, the one parser the daemon, the display
and the leaderboard read URLs with.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Literal

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
"""The port of each URL scheme when the URL gives none."""

DEFAULT_WS_PATH = "/mqtt"
"""The websocket path when a ``ws://`` or ``wss://`` URL gives none (Mosquitto's
and most brokers' convention)."""


@dataclass(frozen=True)
class BrokerAddress:
    """A broker URL taken apart: where and how to connect."""

    host: str
    port: int
    transport: Literal["tcp", "websockets"]
    tls: bool
    ws_path: str | None
    username: str | None = None
    password: str | None = None

    @property
    def scheme(self) -> str:
        if self.transport == "websockets":
            return "wss" if self.tls else "ws"
        return "mqtts" if self.tls else "mqtt"

    @property
    def url(self) -> str:
        """The address as a URL without credentials, every part spelled out."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.ws_path or ''}"

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


class BrokerUrlError(ValueError):
    """A broker URL that cannot be used; ``problem`` says why, without the URL."""

    def __init__(self, url: str, problem: str) -> None:
        super().__init__(f"bad MQTT URL {url!r}: {problem}")
        self.problem = problem


def parse_broker_url(url: str) -> BrokerAddress:
    """``mqtt://[user[:pass]@]host[:port]``, ``mqtts://`` (TLS), ``ws://host[:port][/path]``
    or ``wss://``. Ports default per scheme (:data:`DEFAULT_PORTS`) and the
    websocket path to :data:`DEFAULT_WS_PATH`. A :class:`BrokerUrlError` says
    what is wrong."""
    text = url.strip() if isinstance(url, str) else ""
    if "://" not in text:
        raise BrokerUrlError(url, f'no scheme; write it like "mqtt://{text}"')
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        raise BrokerUrlError(url, "the port must be a number from 1 to 65535")
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BrokerUrlError(url, f'scheme "{parts.scheme}://" is not mqtt, mqtts, ws or wss')
    host = parts.hostname or ""
    if not host or any(c.isspace() for c in host):
        raise BrokerUrlError(url, "no valid host")
    if parts.query or parts.fragment:
        raise BrokerUrlError(url, "no query or fragment")
    websockets = scheme in ("ws", "wss")
    if not websockets and parts.path not in ("", "/"):
        raise BrokerUrlError(url, f"{scheme}:// URLs have no path ({parts.path!r})")
    return BrokerAddress(
        host=host,
        port=port or DEFAULT_PORTS[scheme],
        transport="websockets" if websockets else "tcp",
        tls=scheme in ("mqtts", "wss"),
        ws_path=(parts.path or DEFAULT_WS_PATH) if websockets else None,
        username=urllib.parse.unquote(parts.username) if parts.username else None,
        password=urllib.parse.unquote(parts.password) if parts.password is not None else None,
    )
