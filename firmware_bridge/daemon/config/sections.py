"""The fourteen sections of ``oche.toml``, one frozen dataclass each with its
defaults, and :class:`Config`, the whole of them; :data:`SECTIONS` names them
in the order they are documented and checked."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.card_readers import DEFAULT_TEST_CARD, CardReaderSpec, parse_card_reader
from drivers.errors import DriverError
from drivers.factory import BoardSpec
from drivers.protocol import NO_FIRMWARE_SETTINGS, FirmwareSettings
from firmware_bridge.daemon.config.errors import ConfigError, show_value
from firmware_bridge.daemon.config.files import read_password, xdg_dir
from firmware_bridge.daemon.credits import HappyHour
from firmware_bridge.daemon.log_setup import DEFAULT_LOG_LEVEL
from mqtt_contract import BrokerAddress, parse_broker_url

__all__ = [
    "SECTIONS",
    "USB_ID",
    "USB_REPORTS",
    "BoardConfig",
    "BotConfig",
    "CardsConfig",
    "Config",
    "CreditsConfig",
    "DisplayConfig",
    "HomeAssistantConfig",
    "JournalConfig",
    "LeaderboardConfig",
    "LobbyConfig",
    "LogConfig",
    "MqttConfig",
    "OperatorConfig",
    "RemoteConfig",
    "VisitConfig",
]


USB_REPORTS = ("line", "cells")
"""USB report formats (``drivers.usb_source.REPORT_FORMATS``; not imported
from there because that module loads pyusb)."""

USB_ID = re.compile(r"[0-9a-fA-F]{4}")
"""A USB vendor or product id as written in ``[board]``: 4 hex digits."""


@dataclass(frozen=True)
class BoardConfig:
    """``[board]``: which board to read and how (see ``docs/drivers.md``)."""

    id: str = "board1"
    name: str = "Dartboard"
    driver: str = "serial"
    port: str = "/dev/oche-board"
    baudrate: int = 115200
    protocol: str = "oche"
    map: str = ""
    usb_vid: str = ""
    usb_pid: str = ""
    usb_interface: int = 0
    usb_report: str = "line"
    script: str = ""
    delay: float = 0.0
    firmware: FirmwareSettings = NO_FIRMWARE_SETTINGS
    """``[board.firmware]``: settings sent to a serial board at each connect."""
    sensors: tuple[str, ...] = ()
    """What the board senses besides hits: ``button``, ``piezo``, ``ultrasonic`` (DaSCR).
    ``protocol = "dascr"`` gives all three, and 9600 baud, unless they are set."""
    ble_address: str = ""
    ble_name: str = ""

    def spec(self) -> BoardSpec:
        """The :class:`drivers.factory.BoardSpec` for ``drivers.factory.open_board``.
        Empty strings become ``None``; the USB ids are parsed from hex."""
        ids: dict[str, int | None] = {}
        for key in ("usb_vid", "usb_pid"):
            text: str = getattr(self, key)
            if text and not USB_ID.fullmatch(text):
                raise ConfigError(
                    f"board.{key}: {show_value(text)} is not 4 hex digits such as 2e8a"
                )
            ids[key] = int(text, 16) if text else None
        return BoardSpec(
            driver=self.driver,
            port=self.port or None,
            baudrate=self.baudrate,
            protocol=self.protocol,
            map_path=self.map or None,
            script=self.script,
            delay=self.delay,
            usb_vid=ids["usb_vid"],
            usb_pid=ids["usb_pid"],
            usb_interface=self.usb_interface,
            usb_report=self.usb_report,
            firmware=self.firmware,
            sensors=self.sensors,
            ble_address=self.ble_address,
            ble_name=self.ble_name,
        )


@dataclass(frozen=True)
class MqttConfig:
    """``[mqtt]``: the broker. An empty ``url`` starts the embedded broker on
    ``embedded_host:embedded_port``."""

    url: str = ""
    base: str = "oche"
    username: str = ""
    password_file: str = ""
    ca_file: str = ""
    client_id: str = ""
    keepalive: int = 30
    embedded_host: str = "127.0.0.1"
    embedded_port: int = 1883

    @property
    def embedded(self) -> bool:
        """Whether the daemon runs its own broker (``url`` is empty)."""
        return not self.url

    def address(self) -> BrokerAddress:
        """Where to connect, read by the MQTT contract's parser (as the daemon and
        the display read it). With the embedded broker it is
        ``mqtt://embedded_host:embedded_port``, a wildcard listen address
        replaced by loopback."""
        if self.embedded:
            host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(
                self.embedded_host, self.embedded_host
            )
            return BrokerAddress(host, self.embedded_port, "tcp", tls=False, ws_path=None)
        try:
            return parse_broker_url(self.url)
        except ValueError as problem:
            raise ConfigError(f"mqtt.url: {problem}") from None

    def password(self) -> str | None:
        """The password from ``password_file`` without its trailing newline;
        ``None`` when there is no password file. A file that cannot be read
        (or is empty) is a :class:`ConfigError` naming it."""
        return read_password(self.password_file, "mqtt.password_file")


@dataclass(frozen=True)
class VisitConfig:
    """``[visit]``: when a visit ends."""

    takeout_s: float = 0.0
    coalesce_ms: int = 30


@dataclass(frozen=True)
class BotConfig:
    """``[bot]``: how the daemon throws a computer player's darts."""

    dart_interval_s: float = 1.0
    takeout_s: float = 2.0
    geometry: str = "soft"


@dataclass(frozen=True)
class JournalConfig:
    """``[journal]``: where the game journal (SQLite) is kept."""

    path: str = ""

    def resolved_path(self, env: Mapping[str, str] | None = None) -> Path:
        """``path``, or ``$XDG_STATE_HOME/oche/journal.sqlite3`` (default
        ``~/.local/state``) when it is empty. ``env`` defaults to ``os.environ``."""
        if self.path:
            return Path(os.path.expanduser(self.path))
        state = xdg_dir(os.environ if env is None else env, "XDG_STATE_HOME", ".local/state")
        if state is None:
            raise ConfigError(
                "journal.path: there is no home directory; set journal.path or XDG_STATE_HOME"
            )
        return state / "oche" / "journal.sqlite3"


@dataclass(frozen=True)
class HomeAssistantConfig:
    """``[homeassistant]``: MQTT discovery for Home Assistant."""

    enabled: bool = False
    discovery_prefix: str = "homeassistant"


@dataclass(frozen=True)
class DisplayConfig:
    """``[display]``: the scoreboard of ``oche display`` and ``oche play``."""

    volume: float = 0.8
    muted: bool = False
    caller: bool = False
    fullscreen: bool = False


@dataclass(frozen=True)
class LeaderboardConfig:
    """``[leaderboard]``: the results service (``oche leaderboard``): its
    database, and which venue each board is in (a venue's ``day`` runs in its
    time zone)."""

    db: str = ""
    venue: str = "home"
    timezone: str = "UTC"
    share_group: str = ""
    client_id: str = ""
    """The service's MQTT client id (its persistent session); ``""``: the default."""
    venues: dict[str, str] = field(default_factory=dict)
    timezones: dict[str, str] = field(default_factory=dict)
    admin_password_hash: str = ""
    """The admin views' password, hashed by ``oche leaderboard admin-password``;
    ``""``: the admin views are refused."""
    max_live_streams: int = 200
    """Open ``/api/live`` streams at most; more get a 503."""
    max_live_streams_per_client: int = 8
    """Open ``/api/live`` streams at most per client address."""


@dataclass(frozen=True)
class CreditsConfig:
    """``[credits]``: a coin-operated board (docs/credits.md): free play (the
    default) or credits from coins and the operator, and what a game costs."""

    mode: str = "free"
    """``free`` (every game free) or ``coin`` (games cost credits)."""
    credits_per_pulse: tuple[int, ...] = (1,)
    """Credits one pulse gives, per coin input (input 1 first)."""
    price: int = 1
    """Credits per player per game, unless ``prices`` says otherwise."""
    prices: dict[str, int] = field(default_factory=dict)
    """Per game id: credits per player for that game (``{ x01 = 2 }``)."""
    player_prices: dict[str, int] = field(default_factory=dict)
    """Per number of paying players (``"3"``): credits per player."""
    rounds: dict[str, int] = field(default_factory=dict)
    """Per game (x01, cricket): the round limit a paid game gets unless chosen."""
    timezone: str = ""
    """The time zone of the happy-hour windows and of the day's coins (empty: the system's)."""
    happy_hour: tuple[HappyHour, ...] = ()
    """``[[credits.happy_hour]]`` windows: days, start, end, price_multiplier, bonus_per_pulse."""


@dataclass(frozen=True)
class OperatorConfig:
    """``[operator]``: the operator menu on the display and its MQTT account."""

    pin_hash: str = ""
    """The operator PIN, hashed (``oche operator pin`` makes it); empty: no PIN
    entry, only the operator button opens the menu."""
    username: str = ""
    """The operator's MQTT account (the display's menu connects as it); empty: anonymous."""
    password_file: str = ""
    """A file holding that account's password."""

    def password(self) -> str | None:
        """The operator account's password (see :meth:`MqttConfig.password`)."""
        return read_password(self.password_file, "operator.password_file")


@dataclass(frozen=True)
class RemoteConfig:
    """``[remote]``: remote matches (docs/remote.md). As a guest, the hosts
    this board joins; as a host, how long a match waits for a board that went
    away; as a guest, how soon an action the host has not taken is sent again."""

    allow: tuple[str, ...] = ()
    """Hosts whose invitations this board accepts: ``board`` (on this board's
    base) or ``base/board``; ``*`` and ``?`` match any part of a board id."""
    offline_timeout_s: float = 0.0
    """As a host: abandon the match once a board has been offline (or not
    joined) this long; 0 waits until end_game."""
    resend_s: float = 2.0
    """How soon an unanswered message is sent again: as a guest, an action the
    host has not taken; as a host, an invitation a guest has not answered."""


@dataclass(frozen=True)
class LobbyConfig:
    """``[lobby]``: the players who join a board's next game (docs/players.md)."""

    web_url: str = ""
    """The venue page's base URL (``http://pub.local:8080``): a phone joins at
    ``{web_url}/join/{board}?code=...``; ``""``: no join code, no phone joins."""

    def join_url(self, board: str, code: str) -> str:
        """The page a phone opens to join ``board``'s lobby with ``code``."""
        return f"{self.web_url.rstrip('/')}/join/{board}?code={code}"


@dataclass(frozen=True)
class CardsConfig:
    """``[cards]``: player cards (docs/players.md): the card reader, the venue
    secret a tapped card is hashed with, and the keyboard source's test card."""

    reader: str = "none"
    """``none``, ``evdev:PATH`` (a reader that types like a keyboard), ``pcsc`` or ``pcsc:NAME``."""
    secret: str = field(default="", repr=False)
    """The venue's card secret (``oche cards secret`` makes one), shared with the
    leaderboard; empty: taps are refused. Never shown in a message or a repr."""
    test_card: str = DEFAULT_TEST_CARD
    """The UID the keyboard source's ``card`` key taps."""

    def reader_spec(self) -> CardReaderSpec:
        """The parsed ``reader`` for ``drivers.card_readers.open_card_reader``."""
        try:
            return parse_card_reader(self.reader)
        except DriverError as problem:
            raise ConfigError(f"cards.reader: {problem}") from None


@dataclass(frozen=True)
class LogConfig:
    """``[log]``: how much the daemon logs (``--log-level`` wins)."""

    level: str = DEFAULT_LOG_LEVEL


@dataclass(frozen=True)
class Config:
    """The whole config; ``source`` is the file it came from, or ``"defaults"``."""

    board: BoardConfig = field(default_factory=BoardConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    visit: VisitConfig = field(default_factory=VisitConfig)
    bot: BotConfig = field(default_factory=BotConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    homeassistant: HomeAssistantConfig = field(default_factory=HomeAssistantConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    leaderboard: LeaderboardConfig = field(default_factory=LeaderboardConfig)
    remote: RemoteConfig = field(default_factory=RemoteConfig)
    credits: CreditsConfig = field(default_factory=CreditsConfig)
    operator: OperatorConfig = field(default_factory=OperatorConfig)
    lobby: LobbyConfig = field(default_factory=LobbyConfig)
    cards: CardsConfig = field(default_factory=CardsConfig)
    log: LogConfig = field(default_factory=LogConfig)
    source: str = "defaults"

    @property
    def client_id(self) -> str:
        """The MQTT client id the daemon asks for: ``mqtt.client_id``, or
        ``oche-<board id>``. Oche's deployed Mosquitto (use_username_as_clientid)
        replaces it with the account name (docs/deploy.md)."""
        return self.mqtt.client_id or f"oche-{self.board.id}"


SECTIONS: dict[str, type[Any]] = {
    "board": BoardConfig,
    "mqtt": MqttConfig,
    "visit": VisitConfig,
    "bot": BotConfig,
    "journal": JournalConfig,
    "homeassistant": HomeAssistantConfig,
    "display": DisplayConfig,
    "leaderboard": LeaderboardConfig,
    "remote": RemoteConfig,
    "credits": CreditsConfig,
    "operator": OperatorConfig,
    "lobby": LobbyConfig,
    "cards": CardsConfig,
    "log": LogConfig,
}
"""The config file's sections, in the order they are documented and checked."""
