"""Each key's own check of a well-typed value (:data:`CHECKS`): ranges,
choices, files that must exist, ids, URLs, time zones, hashes and prices.
Each returns the problem or ``None``."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from credentials.card_hash import MIN_SECRET_LENGTH
from credentials.secret_hash import SECRET_HASH_FORM
from drivers.board_decoder import PROTOCOLS
from drivers.board_events import CARD_UID
from drivers.card_readers import parse_card_reader
from drivers.errors import DriverError
from drivers.factory import BLE_ADDRESS, DRIVERS, check_sensors
from engine.board_geometry import GEOMETRIES
from engine.lineup import MAX_PLAYERS
from engine.registry import game_ids
from firmware_bridge.daemon.config.errors import SECRET_PROBLEMS, either, show_value, suggest
from firmware_bridge.daemon.config.sections import USB_ID, USB_REPORTS
from firmware_bridge.daemon.credits import ROUND_LIMIT_GAMES
from firmware_bridge.daemon.log_setup import LOG_LEVELS
from mqtt_contract import (
    BrokerUrlError,
    allow_problem,
    base_problem,
    board_id_problem,
    parse_broker_url,
)

__all__ = ["CHECKS"]


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
        close = suggest(value, choices)
        hint = f' (did you mean "{close}"?)' if close else ""
        return f"{show_value(value)} is not a {what}{hint}; use one of {', '.join(choices)}"

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
    if not value or USB_ID.fullmatch(value):
        return None
    return f'{show_value(value)} is not a USB id: write 4 hex digits such as "2e8a"'


def _ble_address(value: str) -> str | None:
    if not value or BLE_ADDRESS.fullmatch(value.strip()):
        return None
    return (
        f"{show_value(value)} is not a Bluetooth address: write it as "
        '"D4:22:CD:00:12:34" (on macOS, the board\'s UUID), or leave it empty'
    )


def _ble_name(value: str) -> str | None:
    if len(value) > 64 or not value.isprintable():
        return f"{show_value(value)} is not an advertised name (printable, at most 64 characters)"
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


def _web_url(value: str) -> str | None:
    """The venue page's base URL: http(s), a host, no query or fragment."""
    if not value:
        return None
    scheme, _, rest = value.partition("://")
    host = rest.split("/", 1)[0]
    if scheme not in ("http", "https") or not host or "?" in rest or "#" in rest:
        return (
            f"{show_value(value)} is not a web page's base URL; "
            'write it as "http://HOST[:PORT][/PATH]" (e.g. "http://pub.local:8080")'
        )
    return None


_DATABASE_SCHEMES = ("sqlite:///", "postgresql://", "postgresql+psycopg://", "postgres://")


def _database_url(value: str) -> str | None:
    """The leaderboard's database: a SQLite file or a PostgreSQL server (the
    service checks the rest when it connects)."""
    if not value or value.startswith(_DATABASE_SCHEMES):
        return None
    return (
        f"{show_value(value)} is not a database URL Oche uses: write sqlite:///PATH or "
        "postgresql+psycopg://USER@HOST/DB"
    )


def _time_zone(value: str) -> str | None:
    try:
        ZoneInfo(value)
    except (ValueError, OSError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return f"{show_value(value)} is not a time zone: use an IANA name such as Europe/London"
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
            return f"{show_value(pattern)}: {problem}"
    return None


def _venue_of_board(boards: dict[str, str]) -> str | None:
    for board, venue in boards.items():
        problem = board_id_problem(board)
        if problem is not None:
            return f"board {show_value(board)}: {problem}"
        if not venue.strip():
            return f"board {show_value(board)}: the venue must not be empty"
    return None


def _venue_time_zones(zones: dict[str, str]) -> str | None:
    for venue, zone in zones.items():
        problem = _time_zone(zone)
        if problem is not None:
            return f"venue {show_value(venue)}: {problem}"
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
            close = suggest(game, games)
            hint = f'did you mean "{close}"?' if close else f"the games are {', '.join(games)}"
            return f"{show_value(game)} is not a game id; {hint}"
        if not 0 <= price <= 1000:
            return f"{game}: must be 0 to 1000, not {price}"
    return None


def _player_prices(prices: dict[str, int]) -> str | None:
    for players, price in prices.items():
        if not players.isdigit() or not 1 <= int(players) <= MAX_PLAYERS:
            return f"{show_value(players)} is not a number of players (1 to {MAX_PLAYERS})"
        if not 0 <= price <= 1000:
            return f"{players}: must be 0 to 1000, not {price}"
    return None


def _round_limits(rounds: dict[str, int]) -> str | None:
    for game, limit in rounds.items():
        if game not in ROUND_LIMIT_GAMES:
            return f"{show_value(game)}: a round limit is for {either(ROUND_LIMIT_GAMES)}"
        if not 1 <= limit <= 1000:
            return f"{game}: must be 1 to 1000, not {limit}"
    return None


def _card_reader(value: str) -> str | None:
    try:
        parse_card_reader(value)
    except DriverError as problem:
        return str(problem)
    return None


def _card_secret(value: str) -> str | None:
    """Never shows the value: only which rule it breaks."""
    if not value:
        return None
    if len(value) < MIN_SECRET_LENGTH:
        return SECRET_PROBLEMS[0]
    if not value.isprintable() or any(character.isspace() for character in value):
        return SECRET_PROBLEMS[1]
    return None


def _test_card(value: str) -> str | None:
    if CARD_UID.fullmatch(value):
        return None
    return "is not a card UID: write 4 to 40 hex digits, such as C0FFEE01"


CHECKS: dict[str, dict[str, Callable[[Any], str | None]]] = {
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
    "lobby": {"web_url": _web_url},
    "cards": {"reader": _card_reader, "secret": _card_secret, "test_card": _test_card},
    "log": {"level": _log_level},
}
"""Per-key checks of well-typed values: each returns the problem or ``None``."""
