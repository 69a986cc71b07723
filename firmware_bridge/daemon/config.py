"""The daemon's one config file: TOML, twelve sections, every setting has a default.

Three tables sit inside sections: ``[board.firmware]``, the firmware settings
(docs/protocol.md#settings) the daemon sends a serial board at each connect,
and ``[leaderboard.venues]`` and ``[leaderboard.timezones]``, which board is in
which venue and each venue's time zone.

The file is looked for at ``--config FILE``, else ``$OCHE_CONFIG``,
``$XDG_CONFIG_HOME/oche/oche.toml`` (default ``~/.config``) and
``/etc/oche/oche.toml``, first found wins; with none the defaults are used.
``--set section.key=value`` options are applied on top of the file.

Loading checks everything at once and raises one :class:`ConfigError` listing
every problem as ``key.path: what is wrong``; bad input never raises anything
else. Relative paths in a file are relative to that file's directory, ``~`` is
expanded. ``docs/config.md`` documents every key.
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import logging
import math
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints
from zoneinfo import ZoneInfo

from credentials.secret_hash import SECRET_HASH_FORM
from drivers.board_decoder import DARTS_CODE_PROTOCOLS, PROTOCOLS
from drivers.errors import DriverError
from drivers.factory import BLE_ADDRESS, DRIVERS, PRESETS, BoardSpec, check_sensors
from drivers.protocol import NO_FIRMWARE_SETTINGS, SETTINGS, FirmwareSettings, check_setting
from engine.board_geometry import GEOMETRIES
from engine.lineup import MAX_PLAYERS
from engine.registry import game_ids
from firmware_bridge.daemon.credits import DAYS, ROUND_LIMIT_GAMES, HappyHour, clock_minutes
from firmware_bridge.daemon.log_setup import DEFAULT_LOG_LEVEL, LOG_LEVELS
from mqtt_contract import (
    BrokerAddress,
    BrokerUrlError,
    allow_problem,
    base_problem,
    board_id_problem,
    parse_broker_url,
)

__all__ = [
    "SECTIONS",
    "USB_REPORTS",
    "BoardConfig",
    "BotConfig",
    "Config",
    "ConfigError",
    "CreditsConfig",
    "DisplayConfig",
    "HomeAssistantConfig",
    "JournalConfig",
    "LeaderboardConfig",
    "LogConfig",
    "MqttConfig",
    "OperatorConfig",
    "RemoteConfig",
    "VisitConfig",
    "config_search_path",
    "load_config",
    "parse_config",
]

log = logging.getLogger(__name__)

USB_REPORTS = ("line", "cells")
"""USB report formats (``drivers.usb_source.REPORT_FORMATS``; not imported
from there because that module loads pyusb)."""


class ConfigError(ValueError):
    """Everything wrong with a config, each as ``key.path: what is wrong``.

    ``str()`` gives one line per problem, each after ``<origin>: `` (the file,
    ``defaults`` or nothing when ``origin`` is empty)."""

    def __init__(self, errors: str | Iterable[str], origin: str = "") -> None:
        self.errors: list[str] = [errors] if isinstance(errors, str) else list(errors)
        self.origin = origin
        super().__init__(str(self))

    def __str__(self) -> str:
        prefix = f"{self.origin}: " if self.origin else ""
        return "\n".join(prefix + error for error in self.errors)


def _show(value: object) -> str:
    """A value as TOML would spell it (strings in double quotes), shortened."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _suggest(word: str, choices: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def _home(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME")
    if home and os.path.isabs(home):
        return Path(home)
    try:
        return Path.home()
    except RuntimeError:
        return None


def _xdg_dir(env: Mapping[str, str], variable: str, default: str) -> Path | None:
    """``$variable`` if set to an absolute path (as the XDG spec says), else ``~/default``."""
    value = env.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value)
    home = _home(env)
    return home / default if home is not None else None


# --- the sections ------------------------------------------------------------


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
            if text and not _USB_ID.fullmatch(text):
                raise ConfigError(f"board.{key}: {_show(text)} is not 4 hex digits such as 2e8a")
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
        return _read_password(self.password_file, "mqtt.password_file")


def _read_password(password_file: str, key: str) -> str | None:
    """The password in ``password_file`` without its trailing newline, ``None``
    without a file; a :class:`ConfigError` naming ``key`` when it cannot be read."""
    if not password_file:
        return None
    path = os.path.expanduser(password_file)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError(f"{key}: cannot read {path}: {reason}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{key}: {path} is not UTF-8 text") from None
    password = text.rstrip("\r\n")
    if not password:
        raise ConfigError(f"{key}: {path} is empty")
    return password


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
        state = _xdg_dir(os.environ if env is None else env, "XDG_STATE_HOME", ".local/state")
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
        return _read_password(self.password_file, "operator.password_file")


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
    "log": LogConfig,
}
"""The config file's sections, in the order they are documented and checked."""

_KINDS: dict[str, dict[str, type[Any]]] = {
    name: {f.name: get_type_hints(cls)[f.name] for f in fields(cls)}
    for name, cls in SECTIONS.items()
}
"""Each section's keys and their types (str, int, float or bool; and
``board.firmware``, a table of :class:`FirmwareSettings`)."""

_PATH_KEYS = {
    ("board", "map"),
    ("mqtt", "password_file"),
    ("mqtt", "ca_file"),
    ("journal", "path"),
    ("operator", "password_file"),
}
"""Keys holding file paths: ``~`` expanded, relative to the config file."""

_USB_ID = re.compile(r"[0-9a-fA-F]{4}")


# --- locating and reading ----------------------------------------------------


def config_search_path(env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the config file is looked for, in order: ``$OCHE_CONFIG`` (when
    set), ``$XDG_CONFIG_HOME/oche/oche.toml`` (default ``~/.config``), then
    ``/etc/oche/oche.toml``. ``env`` defaults to ``os.environ``."""
    env = os.environ if env is None else env
    paths = []
    if env.get("OCHE_CONFIG"):
        paths.append(Path(os.path.expanduser(env["OCHE_CONFIG"])))
    config_home = _xdg_dir(env, "XDG_CONFIG_HOME", ".config")
    if config_home is not None:
        paths.append(config_home / "oche" / "oche.toml")
    paths.append(Path("/etc/oche/oche.toml"))
    return paths


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # e.g. a directory we may not search: let reading say so
        return True


def load_config(
    path: str | None = None,
    overrides: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> Config:
    """The config from ``path`` (``--config``: it must exist), else from the
    first existing file of :func:`config_search_path`, else the defaults; then
    ``overrides`` (``--set section.key=value``) on top. Raises
    :class:`ConfigError` listing every problem."""
    if path is not None:
        file = Path(os.path.expanduser(path))
        if not _exists(file):
            raise ConfigError("no such config file", origin=path)
    else:
        search = config_search_path(env)
        found = [candidate for candidate in search if _exists(candidate)]
        if env is None:
            env = os.environ
        if env.get("OCHE_CONFIG") and search[0] not in found:
            log.warning("OCHE_CONFIG names %s, which does not exist", search[0])
        if not found:
            return parse_config("", "defaults", overrides)
        file = found[0]
    origin = str(file)
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror or error}", origin=origin) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"not UTF-8 text (bad byte at offset {error.start})", origin=origin
        ) from None
    return parse_config(text, origin, overrides, base_dir=file.parent)


# --- parsing and checking ----------------------------------------------------


class _Invalid(Exception):
    """One value's problem, without its key path."""


_TOML_ERROR_AT = re.compile(r"^(.*?)\s*\(at line (\d+), column (\d+)\)$", re.DOTALL)
_TOML_ERROR_EOF = re.compile(r"^(.*?)\s*\(at end of document\)$", re.DOTALL)


def _syntax_error(error: tomllib.TOMLDecodeError) -> str:
    message = str(error)
    at = _TOML_ERROR_AT.match(message)
    if at:
        return f"line {at.group(2)}, column {at.group(3)}: not valid TOML: {at.group(1)}"
    eof = _TOML_ERROR_EOF.match(message)
    if eof:
        return f"end of file: not valid TOML: {eof.group(1)}"
    return f"not valid TOML: {message}"


def _what(value: object) -> str:
    """What a TOML value is, for "expected X, got Y"."""
    if isinstance(value, bool):
        return f"a boolean ({_show(value)})"
    if isinstance(value, int):
        return f"an integer ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({_show(value)})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return f"a date/time ({value})"


_EXPECTED = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


def _typed(value: object, kind: type[Any]) -> object:
    """``value`` as ``kind`` (an integer is also a float; a table of strings for
    ``dict[str, str]``, of integers for ``dict[str, int]``, an array of
    strings or integers for ``tuple[str, ...]`` and ``tuple[int, ...]``), or
    :class:`_Invalid`."""
    if get_origin(kind) is tuple:
        item_kind = get_args(kind)[0]
        what = "strings" if item_kind is str else "integers"
        if not isinstance(value, list | tuple):
            raise _Invalid(f"expected an array of {what}, got {_what(value)}")
        for position, item in enumerate(value):
            if item_kind is int and (isinstance(item, bool) or not isinstance(item, int)):
                raise _Invalid(f"[{position}]: expected an integer, got {_what(item)}")
            if item_kind is str and not isinstance(item, str):
                raise _Invalid(f"[{position}]: expected a string, got {_what(item)}")
        return tuple(value)
    if get_origin(kind) is dict:
        item_kind = get_args(kind)[1]
        what = "strings" if item_kind is str else "integers"
        if not isinstance(value, dict):
            raise _Invalid(f"expected a table of {what}, got {_what(value)}")
        for key, item in value.items():
            if item_kind is int and (isinstance(item, bool) or not isinstance(item, int)):
                raise _Invalid(f"{key}: expected an integer, got {_what(item)}")
            if item_kind is str and not isinstance(item, str):
                raise _Invalid(f"{key}: expected a string, got {_what(item)}")
        return dict(value)
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise _Invalid(f"expected a finite number, got {value}")
        return float(value)
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise _Invalid(f"expected {_EXPECTED[kind]}, got {_what(value)}")
    return value


def _toml_scalar(text: str) -> object:
    """``text`` read as a TOML value, or :class:`_Invalid`."""
    if "\n" in text or "\r" in text:
        raise _Invalid("a value must be on one line")
    try:
        document = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        raise _Invalid(f"{_show(text)} is not a valid value") from None
    if list(document) != ["value"]:
        raise _Invalid(f"{_show(text)} is not a valid value")
    return document["value"]


def _override_value(text: str, kind: type[Any]) -> object:
    """A ``--set`` value read with its key's type: ``true``/``false``, numbers,
    and strings bare or in TOML quotes."""
    if get_origin(kind) in (dict, tuple):
        return _typed(_toml_scalar(text), kind)
    if kind is str:
        if text[:1] in ('"', "'"):
            value = _toml_scalar(text)
            if not isinstance(value, str):
                raise _Invalid(f"{_show(text)} is not a quoted string")
            return value
        return text
    if kind is bool:
        lowered = text.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise _Invalid(f"expected true or false, got {_show(text)}")
    try:
        value = _toml_scalar(text)
    except _Invalid:
        raise _Invalid(f"expected {_EXPECTED[kind]}, got {_show(text)}") from None
    if isinstance(value, str):  # e.g. a quoted number
        raise _Invalid(f"expected {_EXPECTED[kind]}, got {_show(text)}")
    return _typed(value, kind)


def _unknown_key(section: str, key: str) -> str:
    """The message for an unknown key of ``section``, with the best suggestion."""
    close = _suggest(key, _KINDS[section])
    if close:
        return f'unknown key; did you mean "{close}"?'
    elsewhere = [name for name, keys in _KINDS.items() if key in keys]
    if elsewhere:
        return f"unknown key in [{section}]; did you mean {elsewhere[0]}.{key}?"
    return f"unknown key; the keys of [{section}] are {', '.join(_KINDS[section])}"


def _unknown_top(key: str, value: object) -> str:
    """The message for an unknown top-level key or section."""
    sections = ", ".join(SECTIONS)
    homes = [name for name, keys in _KINDS.items() if key in keys]
    if homes and not isinstance(value, dict):
        return f"not in a section; did you mean {homes[0]}.{key} (under [{homes[0]}])?"
    close = _suggest(key, SECTIONS)
    if close:
        return f'unknown section; did you mean "{close}"?'
    return f"unknown section; the sections are {sections}"


class _Checker:
    """Collects problems as ``key.path: message``, marking ``--set`` values."""

    def __init__(self, from_set: set[str]) -> None:
        self.errors: list[str] = []
        self.from_set = from_set

    def add(self, path: str, message: str) -> None:
        suffix = " (from --set)" if path in self.from_set else ""
        self.errors.append(f"{path}: {message}{suffix}")


def _apply_overrides(
    raw: dict[str, Any], overrides: Sequence[str], checker: _Checker, from_set: set[str]
) -> None:
    for override in overrides:
        name, sep, text = override.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name:
            checker.add(f"--set {override}", "expected section.key=value")
            continue
        section, dot, key = name.partition(".")
        if section not in SECTIONS:
            if not dot:
                homes = [s for s, keys in _KINDS.items() if name in keys]
                hint = f"did you mean {homes[0]}.{name}?" if homes else "expected section.key"
                checker.add(name, f"--set needs section.key=value; {hint}")
            else:
                checker.add(section, _unknown_top(section, {}) + " (from --set)")
            continue
        if not key:
            checker.add(name, "--set needs section.key=value")
            continue
        if section == "board" and key.partition(".")[0] == "firmware":
            _firmware_override(raw, name, text, checker, from_set)
            continue
        if key not in _KINDS[section]:
            checker.add(name, _unknown_key(section, key) + " (from --set)")
            continue
        if name == "credits.happy_hour":
            checker.add(name, "happy-hour windows are tables: write them in the config file")
            continue
        from_set.add(name)
        try:
            value = _override_value(text, _KINDS[section][key])
        except _Invalid as problem:
            checker.add(name, str(problem))
            from_set.discard(name)  # the file's value, if bad too, is not blamed on --set
            continue
        if (section, key) in _PATH_KEYS and isinstance(value, str) and value:
            value = os.path.expanduser(value)  # relative to the current directory
        table = raw.setdefault(section, {})
        if isinstance(table, dict):
            table[key] = value


def _firmware_override(
    raw: dict[str, Any], name: str, text: str, checker: _Checker, from_set: set[str]
) -> None:
    """``--set board.firmware.SETTING=VALUE``: one firmware setting, an integer."""
    setting = name.split(".", 2)[2] if name.count(".") >= 2 else ""
    if not setting:
        checker.add(name, "set one firmware setting at a time: board.firmware.debounce_ms=30")
        return
    from_set.add(name)
    try:
        value = _override_value(text, int)
    except _Invalid as problem:
        checker.add(name, str(problem))
        from_set.discard(name)
        return
    board = raw.setdefault("board", {})
    table = board.setdefault("firmware", {}) if isinstance(board, dict) else None
    if isinstance(table, dict):
        table[setting] = value


_HAPPY_HOUR_KEYS = ("days", "start", "end", "price_multiplier", "bonus_per_pulse")


def _happy_hours(value: object, checker: _Checker) -> tuple[HappyHour, ...] | None:
    """``[[credits.happy_hour]]``: each window's keys checked, every problem
    reported as ``credits.happy_hour[N].key``. ``None`` after reporting."""
    if not isinstance(value, list):
        checker.add(
            "credits.happy_hour",
            f"expected an array of tables ([[credits.happy_hour]]), got {_what(value)}",
        )
        return None
    windows: list[HappyHour] = []
    ok = True
    for index, table in enumerate(value):
        path = f"credits.happy_hour[{index}]"
        if not isinstance(table, dict):
            checker.add(path, f"expected a table, got {_what(table)}")
            ok = False
            continue
        problems = len(checker.errors)
        for key in table:
            if key not in _HAPPY_HOUR_KEYS:
                close = _suggest(key, _HAPPY_HOUR_KEYS)
                hint = f'did you mean "{close}"?' if close else f"use {_either(_HAPPY_HOUR_KEYS)}"
                checker.add(f"{path}.{key}", f"unknown key; {hint}")
        for key in ("start", "end"):
            if key not in table:
                checker.add(f"{path}.{key}", "missing: a window needs start and end (HH:MM)")
            elif not isinstance(table[key], str):
                checker.add(f"{path}.{key}", f"expected a string (HH:MM), got {_what(table[key])}")
            else:
                try:
                    clock_minutes(table[key])
                except ValueError as error:
                    checker.add(f"{path}.{key}", str(error))
        days = table.get("days", [])
        if not isinstance(days, list) or not all(isinstance(day, str) for day in days):
            checker.add(f"{path}.days", 'expected an array of days such as ["fri", "sat"]')
        else:
            for day in days:
                if day.lower() not in DAYS:
                    checker.add(f"{path}.days", f"{_show(day)} is not a day; use {', '.join(DAYS)}")
        multiplier = table.get("price_multiplier", 1.0)
        if isinstance(multiplier, bool) or not isinstance(multiplier, int | float):
            checker.add(f"{path}.price_multiplier", f"expected a number, got {_what(multiplier)}")
        elif not 0 <= multiplier <= 10:
            checker.add(f"{path}.price_multiplier", f"must be 0 to 10, not {multiplier:g}")
        bonus = table.get("bonus_per_pulse", 0)
        if isinstance(bonus, bool) or not isinstance(bonus, int):
            checker.add(f"{path}.bonus_per_pulse", f"expected an integer, got {_what(bonus)}")
        elif not 0 <= bonus <= 1000:
            checker.add(f"{path}.bonus_per_pulse", f"must be 0 to 1000, not {bonus}")
        if len(checker.errors) != problems:
            ok = False
            continue
        windows.append(
            HappyHour(
                start=table["start"],
                end=table["end"],
                days=tuple(day.lower() for day in days),
                price_multiplier=float(multiplier),
                bonus_per_pulse=bonus,
            )
        )
    return tuple(windows) if ok else None


def _either(names: Iterable[str]) -> str:
    """``a, b or c``."""
    *head, last = names
    return f"{', '.join(head)} or {last}" if head else last


def _firmware_settings(table: object, checker: _Checker) -> FirmwareSettings | None:
    """``[board.firmware]`` checked against the settings table: each key a
    setting the host may change, each value in its range. ``None`` after
    reporting every problem."""
    if not isinstance(table, dict):
        checker.add("board.firmware", f"expected a table ([board.firmware]), got {_what(table)}")
        return None
    values: dict[str, int] = {}
    for key, value in table.items():
        path = f"board.firmware.{key}"
        if key not in SETTINGS:
            close = _suggest(key, SETTINGS)
            checker.add(
                path,
                f'unknown setting; did you mean "{close}"?'
                if close
                else f"unknown setting; the host may change {_either(SETTINGS)}, the others "
                "are set in the firmware's oche_config.py (docs/protocol.md#settings)",
            )
            continue
        try:
            values[key] = check_setting(key, value)
        except ValueError as problem:
            checker.add(path, str(problem).removeprefix(f"{key} "))
    return FirmwareSettings.of(values) if len(values) == len(table) else None


def _in_range(low: float, high: float | None = None) -> Callable[[float], str | None]:
    def check(value: float) -> str | None:
        if value < low or (high is not None and value > high):
            wanted = f"{low:g} to {high:g}" if high is not None else f"at least {low:g}"
            return f"must be {wanted}, not {value:g}"
        return None

    return check


def _choice(what: str, choices: Sequence[str]) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        if value in choices:
            return None
        close = _suggest(value, choices)
        hint = f' (did you mean "{close}"?)' if close else ""
        return f"{_show(value)} is not a {what}{hint}; use one of {', '.join(choices)}"

    return check


def _existing_file(value: str) -> str | None:
    if not value:
        return None
    try:
        if os.path.isfile(value):
            return None
        if os.path.exists(value):
            return f"{value} is not a file"
    except (OSError, ValueError):
        pass
    return f"{value} does not exist"


def _usb_id(value: str) -> str | None:
    if not value or _USB_ID.fullmatch(value):
        return None
    return f'{_show(value)} is not a USB id: write 4 hex digits such as "2e8a"'


def _ble_address(value: str) -> str | None:
    if not value or BLE_ADDRESS.fullmatch(value.strip()):
        return None
    return (
        f"{_show(value)} is not a Bluetooth address: write it as "
        '"D4:22:CD:00:12:34" (on macOS, the board\'s UUID), or leave it empty'
    )


def _ble_name(value: str) -> str | None:
    if len(value) > 64 or not value.isprintable():
        return f"{_show(value)} is not an advertised name (printable, at most 64 characters)"
    return None


def _script(value: str) -> str | None:
    if not value:
        return None
    from drivers.simulated import parse_script

    try:
        parse_script(value)
    except (DriverError, ValueError) as error:
        return f"bad simulated-board script: {error}"
    return None


def _pin_hash(value: str) -> str | None:
    if not value or SECRET_HASH_FORM.fullmatch(value):
        return None
    return "is not a PIN hash: make one with `oche operator pin` (never the PIN itself)"


def _admin_password_hash(value: str) -> str | None:
    if not value or SECRET_HASH_FORM.fullmatch(value):
        return None
    return (
        "is not a password hash: make one with `oche leaderboard admin-password` "
        "(never the password itself)"
    )


def _sensors(value: tuple[str, ...]) -> str | None:
    return check_sensors(value)


def _not_blank(value: str) -> str | None:
    return "must not be empty" if not value.strip() else None


def _loopback_host(value: str) -> str | None:
    """The embedded broker is for this machine only (amqtt is not hardened for
    a network); a LAN needs a real broker such as Mosquitto."""
    if value.strip().lower() == "localhost":
        return None
    try:
        if ipaddress.ip_address(value.strip()).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"{value!r} is not a loopback address: the embedded broker listens on this "
        "machine only (127.0.0.1, ::1); for a network, run Mosquitto and set mqtt.url"
    )


def _log_level(value: str) -> str | None:
    """A level name, in any case (it is stored lower-case)."""
    return _choice("log level", LOG_LEVELS)(value.lower())


def _discovery_prefix(value: str) -> str | None:
    if not value:
        return "must not be empty"
    if "+" in value or "#" in value:
        return "must not contain MQTT wildcards ('+' or '#')"
    if value.startswith("/") or value.endswith("/") or "//" in value:
        return "must not start or end with '/' or have empty levels"
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return "must not contain control characters"
    return None


def _url(value: str) -> str | None:
    if not value:
        return None
    try:
        address = parse_broker_url(value)
    except BrokerUrlError as error:
        return error.problem
    if address.username is not None or address.password is not None:
        return "do not put credentials in the URL; use mqtt.username and mqtt.password_file"
    return None


_PORT = _in_range(1, 65535)

_DATABASE_SCHEMES = ("sqlite:///", "postgresql://", "postgresql+psycopg://", "postgres://")


def _database_url(value: str) -> str | None:
    """The leaderboard's database: a SQLite file or a PostgreSQL server (the
    service checks the rest when it connects)."""
    if not value or value.startswith(_DATABASE_SCHEMES):
        return None
    return (
        f"{_show(value)} is not a database URL Oche uses: write sqlite:///PATH or "
        "postgresql+psycopg://USER@HOST/DB"
    )


def _time_zone(value: str) -> str | None:
    try:
        ZoneInfo(value)
    except (ValueError, OSError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return f"{_show(value)} is not a time zone: use an IANA name such as Europe/London"
    return None


def _share_group(value: str) -> str | None:
    if any(c in "/+#" or ord(c) < 33 or ord(c) == 127 for c in value):
        return "must not contain '/', '+', '#', spaces or control characters"
    return None


def _client_id(value: str) -> str | None:
    if any(ord(c) < 33 or ord(c) == 127 for c in value):
        return "must not contain spaces or control characters"
    if len(value.encode("utf-8")) > 65535:
        return "is longer than MQTT allows (65535 bytes)"
    return None


def _allow_list(patterns: tuple[str, ...]) -> str | None:
    for pattern in patterns:
        problem = allow_problem(pattern)
        if problem is not None:
            return f"{_show(pattern)}: {problem}"
    return None


def _venue_of_board(boards: dict[str, str]) -> str | None:
    for board, venue in boards.items():
        problem = board_id_problem(board)
        if problem is not None:
            return f"board {_show(board)}: {problem}"
        if not venue.strip():
            return f"board {_show(board)}: the venue must not be empty"
    return None


def _venue_time_zones(zones: dict[str, str]) -> str | None:
    for venue, zone in zones.items():
        problem = _time_zone(zone)
        if problem is not None:
            return f"venue {_show(venue)}: {problem}"
    return None


def _credits_per_pulse(values: tuple[int, ...]) -> str | None:
    if not values:
        return "needs one value per coin input, such as [1] or [1, 2]"
    for position, value in enumerate(values):
        if not 0 <= value <= 1000:
            return f"[{position}]: must be 0 to 1000, not {value}"
    return None


def _game_prices(prices: dict[str, int]) -> str | None:
    games = game_ids()
    for game, price in prices.items():
        if game not in games:
            close = _suggest(game, games)
            hint = f'did you mean "{close}"?' if close else f"the games are {', '.join(games)}"
            return f"{_show(game)} is not a game id; {hint}"
        if not 0 <= price <= 1000:
            return f"{game}: must be 0 to 1000, not {price}"
    return None


def _player_prices(prices: dict[str, int]) -> str | None:
    for players, price in prices.items():
        if not players.isdigit() or not 1 <= int(players) <= MAX_PLAYERS:
            return f"{_show(players)} is not a number of players (1 to {MAX_PLAYERS})"
        if not 0 <= price <= 1000:
            return f"{players}: must be 0 to 1000, not {price}"
    return None


def _round_limits(rounds: dict[str, int]) -> str | None:
    for game, limit in rounds.items():
        if game not in ROUND_LIMIT_GAMES:
            return f"{_show(game)}: a round limit is for {_either(ROUND_LIMIT_GAMES)}"
        if not 1 <= limit <= 1000:
            return f"{game}: must be 1 to 1000, not {limit}"
    return None


_CHECKS: dict[str, dict[str, Callable[[Any], str | None]]] = {
    "board": {
        "id": board_id_problem,
        "name": _not_blank,
        "driver": _choice("driver", DRIVERS),
        "baudrate": _in_range(1),
        "protocol": _choice("protocol", PROTOCOLS),
        "map": _existing_file,
        "usb_vid": _usb_id,
        "usb_pid": _usb_id,
        "usb_interface": _in_range(0, 255),
        "usb_report": _choice("USB report format", USB_REPORTS),
        "ble_address": _ble_address,
        "ble_name": _ble_name,
        "script": _script,
        "delay": _in_range(0, 3600),
        "sensors": _sensors,
    },
    "mqtt": {
        "url": _url,
        "base": base_problem,
        "password_file": _existing_file,
        "ca_file": _existing_file,
        "keepalive": _in_range(5, 3600),
        "embedded_host": _loopback_host,
        "embedded_port": _PORT,
    },
    "visit": {
        "takeout_s": _in_range(0),
        "coalesce_ms": _in_range(0, 1000),
    },
    "bot": {
        "dart_interval_s": _in_range(0, 60),
        "takeout_s": _in_range(0, 600),
        "geometry": _choice("board geometry", tuple(GEOMETRIES)),
    },
    "journal": {},
    "homeassistant": {"discovery_prefix": _discovery_prefix},
    "display": {"volume": _in_range(0, 1)},
    "leaderboard": {
        "db": _database_url,
        "venue": _not_blank,
        "timezone": _time_zone,
        "share_group": _share_group,
        "client_id": _client_id,
        "venues": _venue_of_board,
        "timezones": _venue_time_zones,
        "admin_password_hash": _admin_password_hash,
        "max_live_streams": _in_range(1, 100_000),
        "max_live_streams_per_client": _in_range(1, 100_000),
    },
    "remote": {
        "allow": _allow_list,
        "offline_timeout_s": _in_range(0),
        "resend_s": _in_range(0.1, 600),
    },
    "credits": {
        "mode": _choice("credits mode", ("free", "coin")),
        "price": _in_range(0, 1000),
        "credits_per_pulse": _credits_per_pulse,
        "prices": _game_prices,
        "player_prices": _player_prices,
        "rounds": _round_limits,
        "timezone": lambda value: _time_zone(value) if value else None,
    },
    "operator": {"pin_hash": _pin_hash, "password_file": _existing_file},
    "log": {"level": _log_level},
}
"""Per-key checks of well-typed values: each returns the problem or ``None``."""


def _board_preset(values: dict[str, Any], given: object, bad: set[str]) -> None:
    """``[board]``'s protocol preset (drivers.factory.PRESETS; ``dascr``: 9600
    baud and the button, piezo and ultrasonic sensors) for the keys the
    config does not set; a key set in the file or by ``--set`` wins."""
    if "board.protocol" in bad or values["protocol"] not in PRESETS:
        return
    preset = PRESETS[values["protocol"]]
    table = given if isinstance(given, dict) else {}
    if "baudrate" not in table:
        values["baudrate"] = preset.baudrate
    if "sensors" not in table:
        values["sensors"] = preset.sensors


def _cross_checks(values: dict[str, dict[str, Any]], bad: set[str], checker: _Checker) -> None:
    """Checks that involve more than one key (skipped when a key involved is bad)."""
    board, mqtt = values["board"], values["mqtt"]
    reads_lines = board["driver"] in ("serial", "usb")
    sensors_known = reads_lines and not {"board.driver", "board.protocol", "board.sensors"} & bad
    ultrasonic = sensors_known and "ultrasonic" in board["sensors"]
    if ultrasonic and board["protocol"] not in DARTS_CODE_PROTOCOLS:
        checker.add(
            "board.sensors",
            f"an ultrasonic takeout sensor is a DaSCR board's (protocol "
            f"{_either(DARTS_CODE_PROTOCOLS)}); a board speaking {board['protocol']} "
            "has none",
        )
    if "board.driver" not in bad:
        if board["driver"] == "serial" and "board.port" not in bad and not board["port"]:
            checker.add("board.port", "the serial driver needs a port, such as /dev/oche-board")
        if board["driver"] == "usb":
            for key in ("usb_vid", "usb_pid"):
                if f"board.{key}" not in bad and not board[key]:
                    checker.add(f"board.{key}", "the usb driver needs usb_vid and usb_pid")
    serial_board = board["driver"] == "serial" and not {"board.driver", "board.protocol"} & bad
    if board["firmware"] and serial_board and board["protocol"] != "oche":
        checker.add(
            "board.firmware",
            f"firmware settings are sent in the oche protocol; a board speaking "
            f'{board["protocol"]} has none (set board.protocol = "oche" or drop them)',
        )
    operator = values["operator"]
    if operator["password_file"] and not operator["username"] and "operator.username" not in bad:
        checker.add("operator.password_file", "a password needs its account: set operator.username")
    tls = bool(mqtt["url"]) and "mqtt.url" not in bad and parse_broker_url(mqtt["url"]).tls
    if mqtt["ca_file"] and not ({"mqtt.url", "mqtt.ca_file"} & bad) and not tls:
        checker.add(
            "mqtt.ca_file",
            "a CA file is only used with TLS: make mqtt.url mqtts:// or wss://",
        )


def _default(key: Field[Any]) -> Any:
    """A key's default, made fresh when it is a table (``default_factory``)."""
    if key.default_factory is not MISSING:
        return key.default_factory()
    return key.default


def parse_config(
    text: str,
    origin: str,
    overrides: Sequence[str] = (),
    *,
    base_dir: Path | None = None,
) -> Config:
    """The config a TOML ``text`` describes, with ``overrides`` applied.

    ``origin`` names the text in errors and becomes ``Config.source``.
    Relative paths in ``text`` are taken relative to ``base_dir`` (when given);
    relative paths in ``overrides`` relative to the current directory.
    Raises :class:`ConfigError` listing every problem."""
    try:
        raw: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(_syntax_error(error), origin=origin) from None

    # Paths in the file: ~ expanded, relative to the file's directory.
    for section, key in _PATH_KEYS:
        table = raw.get(section)
        if isinstance(table, dict) and isinstance(table.get(key), str) and table[key]:
            path = os.path.expanduser(table[key])
            table[key] = os.path.join(base_dir, path) if base_dir is not None else path

    from_set: set[str] = set()
    checker = _Checker(from_set)
    _apply_overrides(raw, overrides, checker, from_set)

    for key, value in raw.items():
        if key not in SECTIONS:
            checker.add(key, _unknown_top(key, value))

    values: dict[str, dict[str, Any]] = {}
    bad: set[str] = set()
    for section, cls in SECTIONS.items():
        defaults = {f.name: _default(f) for f in fields(cls)}
        values[section] = defaults
        table = raw.get(section, {})
        if not isinstance(table, dict):
            checker.add(section, f"expected a table ([{section}]), got {_what(table)}")
            bad.update(f"{section}.{key}" for key in defaults)
            continue
        for key in table:
            if key not in defaults:
                checker.add(f"{section}.{key}", _unknown_key(section, key))
        for key, kind in _KINDS[section].items():
            if key not in table:
                continue
            path = f"{section}.{key}"
            if kind is FirmwareSettings:
                settings = _firmware_settings(table[key], checker)
                if settings is None:
                    bad.add(path)
                else:
                    defaults[key] = settings
                continue
            if path == "credits.happy_hour":
                windows = _happy_hours(table[key], checker)
                if windows is None:
                    bad.add(path)
                else:
                    defaults[key] = windows
                continue
            try:
                value = _typed(table[key], kind)
            except _Invalid as problem:
                checker.add(path, str(problem))
                bad.add(path)
                continue
            check = _CHECKS[section].get(key)
            problem_text = check(value) if check is not None else None
            if problem_text is not None:
                checker.add(path, problem_text)
                bad.add(path)
                continue
            if path in ("board.usb_vid", "board.usb_pid", "log.level"):
                value = str(value).lower()
            defaults[key] = value
    _board_preset(values["board"], raw.get("board"), bad)
    _cross_checks(values, bad, checker)

    if checker.errors:
        order = {section: index for index, section in enumerate(SECTIONS, 1)}
        errors = sorted(checker.errors, key=lambda error: order.get(re.split("[.:]", error)[0], 0))
        raise ConfigError(errors, origin=origin)
    built = {section: cls(**values[section]) for section, cls in SECTIONS.items()}
    return Config(**built, source=origin)
