"""The daemon's config file: defaults, search path, overrides, every error at once."""

from __future__ import annotations

import dataclasses
import os
import re
import textwrap
from pathlib import Path

import pytest

from drivers.factory import BoardSpec
from drivers.protocol import NO_FIRMWARE_SETTINGS, SETTINGS, FirmwareSettings
from firmware_bridge.daemon.config import (
    SECTIONS,
    BoardConfig,
    Config,
    ConfigError,
    JournalConfig,
    MqttConfig,
    config_search_path,
    load_config,
    parse_config,
)
from tests.paths import REPO

DOCS = REPO / "docs"
EXAMPLE = DOCS / "oche.example.toml"
CONFIG_MD = DOCS / "config.md"

EMBEDDED_HINT = (
    ": the embedded broker listens on this machine only (127.0.0.1, ::1);"
    " for a network, run Mosquitto and set mqtt.url"
)

HA_LEVEL = "it is one MQTT topic level and part of Home Assistant's ids"


def errors_of(text: str, overrides: tuple[str, ...] = ()) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "test.toml", overrides)
    return caught.value.errors


def the_error(text: str, overrides: tuple[str, ...] = ()) -> str:
    errors = errors_of(text, overrides)
    assert len(errors) == 1, errors
    return errors[0]


def empty_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose home has no config (``/etc/oche`` may still exist)."""
    return {"HOME": str(tmp_path / "home")}


# --- defaults and the example file --------------------------------------------


def test_defaults() -> None:
    config = parse_config("", "defaults")
    assert config == Config()
    assert config.source == "defaults"
    assert config.board == BoardConfig(
        id="board1",
        name="Dartboard",
        driver="serial",
        port="/dev/oche-board",
        baudrate=115200,
        protocol="oche",
    )
    assert config.mqtt.url == "" and config.mqtt.embedded
    assert config.mqtt.base == "oche"
    assert config.mqtt.keepalive == 30
    assert config.mqtt.address().url == "mqtt://127.0.0.1:1883"
    assert config.mqtt.password() is None
    assert config.client_id == "oche-board1"
    assert (config.visit.takeout_s, config.visit.coalesce_ms) == (0.0, 30)
    assert config.journal.path == ""
    assert config.homeassistant.enabled is False
    assert config.homeassistant.discovery_prefix == "homeassistant"
    assert config.log.level == "info"


@pytest.mark.parametrize("written", ["debug", "WARNING", "Error", "critical"])
def test_the_log_level_is_any_level_name_in_any_case(written: str) -> None:
    config = parse_config(f'[log]\nlevel = "{written}"', "log.toml")
    assert config.log.level == written.lower()
    assert parse_config("", "x", [f"log.level={written}"]).log.level == written.lower()


def test_no_file_anywhere_gives_the_defaults(tmp_path: Path) -> None:
    env = empty_env(tmp_path)
    if Path("/etc/oche/oche.toml").exists():  # pragma: no cover - a machine running oche
        pytest.skip("this machine has /etc/oche/oche.toml")
    assert load_config(env=env) == Config(source="defaults")
    config = load_config(overrides=["board.id=lane2"], env=env)
    assert config.board.id == "lane2" and config.source == "defaults"


def test_the_example_file_loads_and_shows_every_key_at_its_default() -> None:
    config = load_config(str(EXAMPLE), env={})
    assert config == Config(source=str(EXAMPLE))
    text = EXAMPLE.read_text("utf-8")
    for section, cls in SECTIONS.items():
        block = text.split(f"[{section}]", 1)[1].split("\n[", 1)[0]
        for field in dataclasses.fields(cls):
            assert re.search(rf"^{field.name} = ", block, re.M), f"{section}.{field.name}"


def test_config_md_opens_with_every_section() -> None:
    """The first paragraph counts and names the sections, in their order."""
    opening = " ".join(CONFIG_MD.read_text("utf-8").split("\n\n")[1].split())
    words = {9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen"}
    assert f"with {words[len(SECTIONS)]} sections" in opening, opening
    named = re.findall(r"`\[(\w+)\]`", opening)
    assert named == list(SECTIONS), named


def test_config_md_documents_every_key_and_nothing_else() -> None:
    text = CONFIG_MD.read_text("utf-8")
    for section, cls in SECTIONS.items():
        heading = text.index(f"## `[{section}]`")
        table = text[heading:].split("\n## ", 1)[0]
        documented = re.findall(r"^\| `(\w+)` \|", table, re.M)
        assert documented == [f.name for f in dataclasses.fields(cls)], section
        for field in dataclasses.fields(cls):
            row = next(line for line in table.splitlines() if line.startswith(f"| `{field.name}`"))
            default = field.default
            if field.default_factory is not dataclasses.MISSING:  # a table: [leaderboard] venues
                default = field.default_factory()
            shown = (
                f'"{default}"'
                if isinstance(default, str)
                else str(default).lower()
                if isinstance(default, bool)
                else "{}"  # no firmware settings: an empty table
                if default == NO_FIRMWARE_SETTINGS
                else "[]"  # an empty array: [remote] allow
                if default == ()
                else "[" + ", ".join(map(str, default)) + "]"  # [credits] credits_per_pulse
                if isinstance(default, tuple)
                else str(default)
            )
            assert f"| `{shown}` |" in row, (section, field.name, row)


def test_the_documented_examples_load_except_for_their_files() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", CONFIG_MD.read_text("utf-8"), re.S)
    assert len(blocks) == 3  # the bar, home and mistakes examples
    bar, home, _mistakes = blocks
    home_config = parse_config(home, "home")
    assert home_config.board.driver == "simulated"
    assert home_config.mqtt.address().url == "mqtt://127.0.0.1:1883"
    assert home_config.homeassistant.enabled
    # The bar example names files that exist only on the bar's machine.
    assert all("does not exist" in error for error in errors_of(bar))


def test_the_documented_error_output_is_what_is_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = CONFIG_MD.read_text("utf-8")
    mistakes = re.findall(r"```toml\n(.*?)```", text, re.S)[2]
    printed = re.search(r"```text\noche run: (.*?)```", text, re.S)
    assert printed is not None
    (tmp_path / "bad.toml").write_text(mistakes, "utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_config("bad.toml", ["visit.coalesce_ms=fast"], env={})
    assert str(caught.value) + "\n" == printed.group(1)


# --- a full file ----------------------------------------------------------------


def test_a_full_file_loads(tmp_path: Path) -> None:
    (tmp_path / "mqtt-password").write_text("s3cret\n", "utf-8")
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n", "utf-8")
    (tmp_path / "map.toml").write_text("", "utf-8")
    file = tmp_path / "oche.toml"
    file.write_text(
        textwrap.dedent(
            """\
            [board]
            id = "lane3"
            name = "Lane 3"
            driver = "usb"
            baudrate = 9600
            protocol = "darts-codes"
            map = "map.toml"
            usb_vid = "2E8A"
            usb_pid = "000a"
            usb_interface = 1
            usb_report = "cells"

            [mqtt]
            url = "mqtts://broker.example"
            base = "bar"
            username = "lane3"
            password_file = "mqtt-password"
            ca_file = "ca.pem"
            client_id = "lane-3"
            keepalive = 60
            embedded_host = "::1"
            embedded_port = 1884

            [visit]
            takeout_s = 8
            coalesce_ms = 0

            [journal]
            path = "/var/lib/oche/journal.sqlite3"

            [homeassistant]
            enabled = true
            discovery_prefix = "ha/discovery"
            """
        ),
        "utf-8",
    )
    config = load_config(str(file), env={})
    assert config.source == str(file)
    assert config.board.spec() == BoardSpec(
        driver="usb",
        port="/dev/oche-board",
        baudrate=9600,
        protocol="darts-codes",
        map_path=str(tmp_path / "map.toml"),
        usb_vid=0x2E8A,
        usb_pid=0x000A,
        usb_interface=1,
        usb_report="cells",
    )
    assert config.board.usb_vid == "2e8a"
    assert config.mqtt.address().url == "mqtts://broker.example:8883"
    assert config.mqtt.password() == "s3cret"
    assert config.mqtt.ca_file == str(tmp_path / "ca.pem")
    assert config.client_id == "lane-3"
    assert config.visit.takeout_s == 8.0 and isinstance(config.visit.takeout_s, float)
    assert config.visit.coalesce_ms == 0
    assert config.journal.resolved_path() == Path("/var/lib/oche/journal.sqlite3")
    assert config.homeassistant.enabled
    assert config.homeassistant.discovery_prefix == "ha/discovery"


def test_relative_paths_follow_the_file_and_tilde_is_expanded(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    file = tmp_path / "etc" / "oche.toml"
    file.write_text('[journal]\npath = "state/j.sqlite3"\n', "utf-8")
    config = load_config(str(file), env={})
    assert config.journal.path == str(tmp_path / "etc" / "state" / "j.sqlite3")
    tilde = parse_config('[journal]\npath = "~/j.sqlite3"', "x", base_dir=file.parent)
    assert tilde.journal.path == os.path.expanduser("~/j.sqlite3")
    overridden = parse_config("", "x", ["journal.path=j.sqlite3"])
    assert overridden.journal.path == "j.sqlite3"  # --set: relative to the working directory


# --- where the file is looked for -----------------------------------------------


def test_search_path_order(tmp_path: Path) -> None:
    env = {
        "OCHE_CONFIG": str(tmp_path / "explicit.toml"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "HOME": str(tmp_path / "home"),
    }
    assert config_search_path(env) == [
        tmp_path / "explicit.toml",
        tmp_path / "xdg" / "oche" / "oche.toml",
        Path("/etc/oche/oche.toml"),
    ]
    assert config_search_path({"HOME": str(tmp_path / "home")}) == [
        tmp_path / "home" / ".config" / "oche" / "oche.toml",
        Path("/etc/oche/oche.toml"),
    ]
    # A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    relative = {"XDG_CONFIG_HOME": "rel", "HOME": str(tmp_path), "OCHE_CONFIG": ""}
    assert config_search_path(relative)[0] == tmp_path / ".config" / "oche" / "oche.toml"


def test_load_takes_the_first_existing_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    xdg_file = tmp_path / "xdg" / "oche" / "oche.toml"
    xdg_file.parent.mkdir(parents=True)
    xdg_file.write_text('[board]\nid = "from-xdg"\n', "utf-8")
    explicit = tmp_path / "explicit.toml"
    env = {"OCHE_CONFIG": str(explicit), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}

    # OCHE_CONFIG names no file yet: the XDG file is next (with a warning).
    config = load_config(env=env)
    assert (config.board.id, config.source) == ("from-xdg", str(xdg_file))
    assert "OCHE_CONFIG" in caplog.text

    explicit.write_text('[board]\nid = "from-env"\n', "utf-8")
    config = load_config(env=env)
    assert (config.board.id, config.source) == ("from-env", str(explicit))

    # --config wins over everything.
    given = tmp_path / "given.toml"
    given.write_text('[board]\nid = "given"\n', "utf-8")
    assert load_config(str(given), env=env).board.id == "given"

    # Without OCHE_CONFIG and with XDG_CONFIG_HOME unset, ~/.config is looked at.
    home_file = tmp_path / "home" / ".config" / "oche" / "oche.toml"
    home_file.parent.mkdir(parents=True)
    home_file.write_text('[board]\nid = "from-home"\n', "utf-8")
    assert load_config(env={"HOME": str(tmp_path / "home")}).board.id == "from-home"


def test_config_option_names_a_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.toml")
    with pytest.raises(ConfigError) as caught:
        load_config(missing, env={})
    assert str(caught.value) == f"{missing}: no such config file"


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(tmp_path), env={})  # a directory
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"[board]\nname = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(str(binary), env={})


def test_bad_toml_syntax_names_the_line() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config('[board]\nid = "a"\ndriver = \n', "oche.toml")
    assert str(caught.value).startswith("oche.toml: line 3, column 10: not valid TOML: ")
    with pytest.raises(ConfigError, match=r"line 1, column 7: not valid TOML"):
        parse_config("[board\n", "x")


# --- overrides ----------------------------------------------------------------


def test_overrides_win_over_the_file_with_their_types() -> None:
    text = '[board]\ndriver = "serial"\nbaudrate = 9600\n[visit]\ntakeout_s = 3\n'
    config = parse_config(
        text,
        "f.toml",
        [
            "board.driver=simulated",
            "board.script=T20 T20 button:next",
            "board.baudrate=115_200",
            "board.delay=0.5",
            "visit.takeout_s=0",
            "homeassistant.enabled=true",
            "board.name='Lane 3'",
            "mqtt.url=ws://localhost:9001/mqtt",
            "mqtt.url=",  # the last one wins: back to the embedded broker
            " visit.coalesce_ms = 50 ",
        ],
    )
    assert config.board.driver == "simulated"
    assert config.board.script == "T20 T20 button:next"
    assert config.board.baudrate == 115200
    assert config.board.delay == 0.5
    assert config.visit.takeout_s == 0.0
    assert config.visit.coalesce_ms == 50
    assert config.homeassistant.enabled is True
    assert config.board.name == "Lane 3"
    assert config.mqtt.url == ""
    assert config.source == "f.toml"


def test_override_errors() -> None:
    errors = errors_of(
        "[board]\nbaudrate = 9600\n",
        (
            "board.baudrate=fast",
            "board.baudrat=9600",
            "homeassistant.enabled=yes",
            "baudrate=9600",
            "nonsense",
            "bord.id=x",
            "mqtt.keepalive=2",
            "board=1",
        ),
    )
    assert errors == [
        "baudrate: --set needs section.key=value; did you mean board.baudrate?",
        "--set nonsense: expected section.key=value",
        'bord: unknown section; did you mean "board"? (from --set)',
        'board.baudrate: expected an integer, got "fast" (from --set)',
        'board.baudrat: unknown key; did you mean "baudrate"? (from --set)',
        "board: --set needs section.key=value",
        "mqtt.keepalive: must be 5 to 3600, not 2 (from --set)",
        'homeassistant.enabled: expected true or false, got "yes" (from --set)',
    ]


def test_an_override_fixes_a_bad_value_in_the_file() -> None:
    text = '[mqtt]\nkeepalive = 1\n[board]\ndriver = "usb"\n'
    config = parse_config(text, "f", ["mqtt.keepalive=60", "board.driver=keyboard"])
    assert config.mqtt.keepalive == 60 and config.board.driver == "keyboard"


# --- every error at once --------------------------------------------------------


def test_five_mistakes_are_all_reported_with_their_key_paths(tmp_path: Path) -> None:
    file = tmp_path / "oche.toml"
    file.write_text(
        textwrap.dedent(
            """\
            [board]
            driver = "seriall"
            baudrat = 9600

            [mqtt]
            url = "http://broker.local"
            keepalive = 2

            [visit]
            coalesce_ms = "30"
            """
        ),
        "utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        load_config(str(file), env={})
    error = caught.value
    assert [e.split(":")[0] for e in error.errors] == [
        "board.baudrat",
        "board.driver",
        "mqtt.url",
        "mqtt.keepalive",
        "visit.coalesce_ms",
    ]
    lines = str(error).splitlines()
    assert len(lines) == 5
    assert all(line.startswith(f"{file}: ") for line in lines)
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[board]\nbaudrate = "fast"',
            'board.baudrate: expected an integer, got a string ("fast")',
        ),
        (
            "[board]\nbaudrate = 9600.0",
            "board.baudrate: expected an integer, got a number (9600.0)",
        ),
        ("[board]\nbaudrate = true", "board.baudrate: expected an integer, got a boolean (true)"),
        ("[board]\nbaudrate = 0", "board.baudrate: must be at least 1, not 0"),
        ("[board]\nname = 3", "board.name: expected a string, got an integer (3)"),
        ('[board]\nname = " "', "board.name: must not be empty"),
        ("[board]\nid = [1]", "board.id: expected a string, got an array"),
        ('[board]\nid = ""', "board.id: must not be empty"),
        (
            '[board]\nid = "a/b"',
            "board.id: must be letters, digits, '_' and '-' only, not '/': " + HA_LEVEL,
        ),
        (
            '[board]\nid = "a+#.b"',
            "board.id: must be letters, digits, '_' and '-' only, not '#+.': " + HA_LEVEL,
        ),
        (f'[board]\nid = "{"x" * 65}"', "board.id: must be at most 64 characters, not 65"),
        (
            '[board]\nid = "$SYS"',
            "board.id: must be letters, digits, '_' and '-' only, not '$': " + HA_LEVEL,
        ),
        (
            '[mqtt]\nbase = "$SYS/x"',
            "mqtt.base: must not start with '$' (MQTT reserves those topics)",
        ),
        ('[mqtt]\nbase = "oche/#"', "mqtt.base: must not contain '#': MQTT wildcards"),
        (
            '[mqtt]\nbase = "oche//x"',
            "mqtt.base: must not have an empty level (a leading, trailing or double '/')",
        ),
        ('[mqtt]\nbase = "a b"', "mqtt.base: must not contain white space or control characters"),
        (
            '[board]\nprotocol = "darts"',
            'board.protocol: "darts" is not a protocol (did you mean "darts-codes"?); '
            "use one of oche, darts-codes, dascr, row-col",
        ),
        (
            '[board]\nusb_report = "cell"',
            'board.usb_report: "cell" is not a USB report format (did you mean "cells"?); '
            "use one of line, cells",
        ),
        (
            '[board]\nport = ""',
            "board.port: the serial driver needs a port, such as /dev/oche-board",
        ),
        (
            '[board]\ndriver = "usb"\nusb_vid = "2e8a"',
            "board.usb_pid: the usb driver needs usb_vid and usb_pid",
        ),
        (
            '[board]\nusb_vid = "0x2e8a"',
            'board.usb_vid: "0x2e8a" is not a USB id: write 4 hex digits such as "2e8a"',
        ),
        ("[board]\nusb_vid = 0x2e8a", "board.usb_vid: expected a string, got an integer (11914)"),
        ("[board]\nusb_interface = 256", "board.usb_interface: must be 0 to 255, not 256"),
        ("[board]\ndelay = -1", "board.delay: must be 0 to 3600, not -1"),
        ('[board]\nmap = "/no/such/map.toml"', "board.map: /no/such/map.toml does not exist"),
        ("[mqtt]\nkeepalive = 3601", "mqtt.keepalive: must be 5 to 3600, not 3601"),
        ("[mqtt]\nembedded_port = 0", "mqtt.embedded_port: must be 1 to 65535, not 0"),
        ("[mqtt]\nembedded_port = 65536", "mqtt.embedded_port: must be 1 to 65535, not 65536"),
        (
            '[mqtt]\nembedded_host = ""',
            "mqtt.embedded_host: '' is not a loopback address" + EMBEDDED_HINT,
        ),
        (
            '[mqtt]\nembedded_host = "0.0.0.0"',
            "mqtt.embedded_host: '0.0.0.0' is not a loopback address" + EMBEDDED_HINT,
        ),
        (
            '[mqtt]\npassword_file = "/no/such/password"',
            "mqtt.password_file: /no/such/password does not exist",
        ),
        ('[mqtt]\nca_file = "/"', "mqtt.ca_file: / is not a file"),
        ("[visit]\ntakeout_s = -0.5", "visit.takeout_s: must be at least 0, not -0.5"),
        ("[visit]\ntakeout_s = inf", "visit.takeout_s: expected a finite number, got inf"),
        ("[visit]\ncoalesce_ms = 1001", "visit.coalesce_ms: must be 0 to 1000, not 1001"),
        ("[visit]\ncoalesce_ms = -1", "visit.coalesce_ms: must be 0 to 1000, not -1"),
        (
            '[homeassistant]\nenabled = "yes"',
            'homeassistant.enabled: expected true or false, got a string ("yes")',
        ),
        (
            '[homeassistant]\ndiscovery_prefix = "ha/#"',
            "homeassistant.discovery_prefix: must not contain MQTT wildcards ('+' or '#')",
        ),
        (
            '[homeassistant]\ndiscovery_prefix = "ha/"',
            "homeassistant.discovery_prefix: must not start or end with '/' or have empty levels",
        ),
        ('board = "serial"', 'board: expected a table ([board]), got a string ("serial")'),
        (
            '[log]\nlevel = "warn"',
            'log.level: "warn" is not a log level (did you mean "warning"?); '
            "use one of debug, info, warning, error, critical",
        ),
        ("[log]\nlevel = 10", "log.level: expected a string, got an integer (10)"),
    ],
)
def test_each_mistake_has_its_message(text: str, expected: str) -> None:
    assert the_error(text) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("broker.local", 'no scheme; write it like "mqtt://broker.local"'),
        ("http://broker.local", 'scheme "http://" is not mqtt, mqtts, ws or wss'),
        ("mqtt://", "no valid host"),
        ("mqtt://:1883", "no valid host"),
        ("mqtt://broker:99999", "the port must be a number from 1 to 65535"),
        ("mqtt://broker:0", "the port must be a number from 1 to 65535"),
        ("mqtt://broker:abc", "the port must be a number from 1 to 65535"),
        ("mqtt://user:pw@broker", "do not put credentials in the URL"),
        ("mqtt://broker/path", "mqtt:// URLs have no path ('/path')"),
        ("ws://broker/mqtt?x=1", "no query or fragment"),
    ],
)
def test_bad_urls(url: str, message: str) -> None:
    error = the_error(f'[mqtt]\nurl = "{url}"')
    assert error.startswith("mqtt.url: ") and message in error


def test_unknown_sections_and_keys_get_suggestions() -> None:
    errors = errors_of(
        textwrap.dedent(
            """\
            driver = "usb"
            [bord]
            [boards]
            [board]
            protocl = "oche"
            url = "mqtt://x"
            colour = "red"
            [mqtt]
            keep_alive = 30
            [homeassistent]
            enabled = true
            [weather]
            """
        )
    )
    assert errors == [
        "driver: not in a section; did you mean board.driver (under [board])?",
        'bord: unknown section; did you mean "board"?',
        'boards: unknown section; did you mean "board"?',
        'homeassistent: unknown section; did you mean "homeassistant"?',
        "weather: unknown section; the sections are board, mqtt, visit, bot, journal, "
        "homeassistant, display, leaderboard, remote, credits, operator, lobby, cards, log",
        'board.protocl: unknown key; did you mean "protocol"?',
        "board.url: unknown key in [board]; did you mean mqtt.url?",
        "board.colour: unknown key; the keys of [board] are id, name, driver, port, baudrate, "
        "protocol, map, usb_vid, usb_pid, usb_interface, usb_report, script, delay, firmware, "
        "sensors, ble_address, ble_name",
        'mqtt.keep_alive: unknown key; did you mean "keepalive"?',
    ]
    assert 'board.driver: "serail" is not a driver (did you mean "serial"?)' in the_error(
        '[board]\ndriver = "serail"'
    )


def test_a_bad_simulated_script_is_reported() -> None:
    error = the_error('[board]\ndriver = "simulated"\nscript = "T20 T21"')
    assert error.startswith("board.script: bad simulated-board script: 'T21'")


def test_ca_file_needs_tls(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("x", "utf-8")
    for url in ("", "mqtt://broker", "ws://broker"):
        text = f'[mqtt]\nurl = "{url}"\nca_file = "{ca}"'
        assert the_error(text).startswith("mqtt.ca_file: a CA file is only used with TLS")
    for url in ("mqtts://broker", "WSS://broker"):
        assert parse_config(f'[mqtt]\nurl = "{url}"\nca_file = "{ca}"', "x").mqtt.ca_file == str(ca)


def test_only_config_errors_escape_for_odd_input() -> None:
    for text in (
        "\x00",
        "[board]\nid = 1979-05-27",
        "[[board]]\nid = 'x'",
        "[board.usb]\nvid = 1",
        "a.b.c = 1",
    ):
        with pytest.raises(ConfigError):
            parse_config(text, "odd")
    for override in (
        "board.id=a\nb",
        "board.baudrate='9600'",
        'board.name="unterminated',
        "board.=",
    ):
        with pytest.raises(ConfigError):
            parse_config("", "odd", [override])


# --- the pieces -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("mqtt://broker", "mqtt://broker:1883"),
        ("mqtts://broker", "mqtts://broker:8883"),
        ("ws://broker", "ws://broker:80/mqtt"),
        ("wss://broker", "wss://broker:443/mqtt"),
        ("mqtt://broker:1884/", "mqtt://broker:1884"),
        ("MQTTS://Broker.Example:8884", "mqtts://broker.example:8884"),
        ("ws://broker:9001/", "ws://broker:9001/"),
        ("ws://broker:9001/mqtt", "ws://broker:9001/mqtt"),
        ("wss://[::1]/mqtt", "wss://[::1]:443/mqtt"),
    ],
)
def test_address_defaults_per_scheme(url: str, address: str) -> None:
    assert parse_config(f'[mqtt]\nurl = "{url}"', "x").mqtt.address().url == address


def test_embedded_address_connects_to_loopback() -> None:
    assert MqttConfig(embedded_host="0.0.0.0", embedded_port=1884).address().url == (
        "mqtt://127.0.0.1:1884"
    )
    assert MqttConfig(embedded_host="::").address().host == "::1"
    assert MqttConfig(embedded_host="192.168.1.5").address().host == "192.168.1.5"
    with pytest.raises(ConfigError, match=r"^mqtt\.url: "):
        MqttConfig(url="http://x").address()


def test_password_file(tmp_path: Path) -> None:
    password = tmp_path / "password"
    password.write_text("correct horse \n", "utf-8")
    config = parse_config(f'[mqtt]\nusername = "u"\npassword_file = "{password}"', "x")
    assert config.mqtt.password() == "correct horse "
    password.write_text("crlf\r\n", "utf-8")
    assert config.mqtt.password() == "crlf"
    password.write_text("no-newline", "utf-8")
    assert config.mqtt.password() == "no-newline"

    password.write_text("\n", "utf-8")
    with pytest.raises(ConfigError, match=re.escape(f"mqtt.password_file: {password} is empty")):
        config.mqtt.password()
    password.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        config.mqtt.password()
    password.unlink()
    with pytest.raises(ConfigError) as caught:
        config.mqtt.password()
    assert caught.value.errors == [
        f"mqtt.password_file: cannot read {password}: No such file or directory"
    ]


def test_journal_path_resolution(tmp_path: Path) -> None:
    default = JournalConfig()
    state = tmp_path / "state"
    assert default.resolved_path({"XDG_STATE_HOME": str(state)}) == (
        state / "oche" / "journal.sqlite3"
    )
    home = {"HOME": str(tmp_path), "XDG_STATE_HOME": ""}
    assert default.resolved_path(home) == tmp_path / ".local/state/oche/journal.sqlite3"
    relative = {"HOME": str(tmp_path), "XDG_STATE_HOME": "state"}
    assert default.resolved_path(relative) == tmp_path / ".local/state/oche/journal.sqlite3"
    assert JournalConfig(path="/srv/j.sqlite3").resolved_path(home) == Path("/srv/j.sqlite3")
    assert JournalConfig(path="~/j.sqlite3").resolved_path() == Path.home() / "j.sqlite3"
    assert isinstance(default.resolved_path(), Path)


def test_board_spec_round_trip() -> None:
    board = BoardConfig()
    spec = board.spec()
    spec.check()
    assert spec == BoardSpec(driver="serial", port="/dev/oche-board")

    simulated = parse_config(
        '[board]\ndriver = "simulated"\nport = ""\nscript = "T20 M"\ndelay = 0.25', "x"
    ).board.spec()
    simulated.check()
    assert simulated == BoardSpec(driver="simulated", port=None, script="T20 M", delay=0.25)

    # Every BoardSpec setting has its board key, and the values come back.
    usb = BoardConfig(
        driver="usb", usb_vid="ffff", usb_pid="0001", usb_interface=2, baudrate=57600
    ).spec()
    usb.check()
    assert (usb.usb_vid, usb.usb_pid, usb.usb_interface, usb.baudrate) == (0xFFFF, 1, 2, 57600)
    spec_fields = {f.name for f in dataclasses.fields(BoardSpec)}
    board_fields = {f.name for f in dataclasses.fields(BoardConfig)}
    assert spec_fields - board_fields == {"map_path"}
    assert board_fields - spec_fields == {"id", "name", "map"}

    with pytest.raises(ConfigError, match=r"^board\.usb_vid: "):
        BoardConfig(usb_vid="xyz").spec()


# --- [board.firmware] -----------------------------------------------------------


def test_board_firmware_settings_reach_the_spec_in_the_table_order() -> None:
    assert BoardConfig().firmware == NO_FIRMWARE_SETTINGS and not NO_FIRMWARE_SETTINGS
    table = parse_config("[board.firmware]\nscan_hz = 2000\ndebounce_ms = 30", "x")
    inline = parse_config("[board]\nfirmware = { debounce_ms = 30, scan_hz = 2000 }", "x")
    overridden = parse_config(
        "[board.firmware]\nscan_hz = 500",
        "x",
        ["board.firmware.debounce_ms=30", "board.firmware.scan_hz=2_000"],
    )
    expected = FirmwareSettings((("debounce_ms", 30), ("scan_hz", 2000)))
    for config in (table, inline, overridden):
        assert config.board.firmware == expected
        assert config.board.spec().firmware == expected
    assert str(expected) == "debounce_ms=30, scan_hz=2000"
    limits = "\n".join(f"{s.name} = {s.maximum}" for s in SETTINGS.values())
    every = parse_config(f"[board.firmware]\n{limits}", "x").board.firmware
    assert every.values == tuple((s.name, s.maximum) for s in SETTINGS.values())


@pytest.mark.parametrize(
    ("text", "overrides", "expected"),
    [
        (
            "[board.firmware]\ndebounce_ms = 0",
            (),
            ["board.firmware.debounce_ms: must be a whole number from 1 to 250 (ms), not 0"],
        ),
        (
            "[board.firmware]\nscan_hz = 20000\nstuck_ms = 1.5",
            (),
            [
                "board.firmware.scan_hz: must be a whole number from 100 to 10000 (Hz), not 20000",
                "board.firmware.stuck_ms: must be a whole number from 250 to 600000 (ms), not 1.5",
            ],
        ),
        (
            "[board.firmware]\ndebounce = 30\nsettle_us = 10",
            (),
            [
                'board.firmware.debounce: unknown setting; did you mean "debounce_ms"?',
                "board.firmware.settle_us: unknown setting; the host may change debounce_ms, "
                "stuck_ms or scan_hz, the others are set in the firmware's oche_config.py "
                "(docs/protocol.md#settings)",
            ],
        ),
        (
            "[board]\nfirmware = 30",
            (),
            ["board.firmware: expected a table ([board.firmware]), got an integer (30)"],
        ),
        (
            "",
            ("board.firmware.debounce_ms=fast", "board.firmware.scan_hz=50"),
            [
                'board.firmware.debounce_ms: expected an integer, got "fast" (from --set)',
                "board.firmware.scan_hz: must be a whole number from 100 to 10000 (Hz), "
                "not 50 (from --set)",
            ],
        ),
        (
            "",
            ("board.firmware=30",),
            ["board.firmware: set one firmware setting at a time: board.firmware.debounce_ms=30"],
        ),
        (
            '[board]\nprotocol = "darts-codes"\n[board.firmware]\nscan_hz = 2000',
            (),
            [
                "board.firmware: firmware settings are sent in the oche protocol; a board "
                'speaking darts-codes has none (set board.protocol = "oche" or drop them)'
            ],
        ),
    ],
)
def test_bad_board_firmware_settings_are_named(
    text: str, overrides: tuple[str, ...], expected: list[str]
) -> None:
    assert errors_of(text, overrides) == expected


def test_board_firmware_settings_with_another_driver_are_not_an_error() -> None:
    """A simulated board for a test (``--set board.driver=simulated``) keeps
    the file's settings; the factory logs that they are not sent."""
    config = parse_config('[board]\ndriver = "simulated"\n[board.firmware]\nscan_hz = 2000', "x")
    config.board.spec().check()


def test_every_valid_config_gives_a_spec_that_checks() -> None:
    for driver in ("serial", "usb", "simulated", "keyboard"):
        text = f'[board]\ndriver = "{driver}"\nusb_vid = "2e8a"\nusb_pid = "0005"'
        parse_config(text, "x").board.spec().check()


def test_config_error_formatting() -> None:
    error = ConfigError(["a.b: one", "c.d: two"], origin="f.toml")
    assert str(error) == "f.toml: a.b: one\nf.toml: c.d: two"
    assert error.errors == ["a.b: one", "c.d: two"]
    assert str(ConfigError("x.y: alone")) == "x.y: alone"


# --- [leaderboard] ---------------------------------------------------------------


def test_the_leaderboard_section_maps_boards_to_venues_and_their_time_zones() -> None:
    config = parse_config(
        """
        [leaderboard]
        db = "postgresql+psycopg://oche@db.example/oche"
        venue = "Home"
        timezone = "Europe/London"

        [leaderboard.venues]
        pub-1 = "The Crown"
        pub-2 = "The Crown"

        [leaderboard.timezones]
        "The Crown" = "Europe/Dublin"
        """,
        "lb.toml",
        ["leaderboard.share_group=league", "leaderboard.client_id=lb-crown"],
    )
    board = config.leaderboard
    assert board.client_id == "lb-crown"
    assert board.db == "postgresql+psycopg://oche@db.example/oche"
    assert (board.venue, board.timezone, board.share_group) == ("Home", "Europe/London", "league")
    assert board.venues == {"pub-1": "The Crown", "pub-2": "The Crown"}
    assert board.timezones == {"The Crown": "Europe/Dublin"}
    with_set = parse_config("", "x", ['leaderboard.venues={ pub-3 = "The Swan" }'])
    assert with_set.leaderboard.venues == {"pub-3": "The Swan"}


def test_leaderboard_mistakes_are_named() -> None:
    assert errors_of(
        """
        [leaderboard]
        db = "mysql://root@localhost/oche"
        venue = " "
        timezone = "Mars/Olympus"
        share_group = "a/b"
        client_id = "lb crown"
        venues = { "pub 1" = "The Crown", pub-2 = 2 }
        timezones = { "The Crown" = "Nowhere/Town" }
        """
    ) == [
        'leaderboard.db: "mysql://root@localhost/oche" is not a database URL Oche uses: write '
        "sqlite:///PATH or postgresql+psycopg://USER@HOST/DB",
        "leaderboard.venue: must not be empty",
        'leaderboard.timezone: "Mars/Olympus" is not a time zone: use an IANA name such as '
        "Europe/London",
        "leaderboard.share_group: must not contain '/', '+', '#', spaces or control characters",
        "leaderboard.client_id: must not contain spaces or control characters",
        "leaderboard.venues: pub-2: expected a string, got an integer (2)",
        'leaderboard.timezones: venue "The Crown": "Nowhere/Town" is not a time zone: use an '
        "IANA name such as Europe/London",
    ]


def test_the_lobby_and_cards_sections_load_and_their_mistakes_are_named() -> None:
    text = """
[lobby]
web_url = "http://pub.local:8080/"

[cards]
reader = "evdev:/dev/input/by-id/usb-reader-event-kbd"
secret = "a-venue-secret-of-24-chars"
test_card = "04:a2:1b:3f"
"""
    config = parse_config(text, "test.toml")
    assert (
        config.lobby.join_url("board1", "K7PQ2M") == "http://pub.local:8080/join/board1?code=K7PQ2M"
    )
    assert config.cards.reader.startswith("evdev:") and config.cards.test_card == "04:a2:1b:3f"
    assert parse_config("", "test.toml").lobby.web_url == ""
    for url in ("pub.local:8080", "ftp://pub.local", "http://", "http://pub.local/?x=1"):
        error = the_error(f'[lobby]\nweb_url = "{url}"')
        assert error.startswith("lobby.web_url: ") and "base URL" in error, error
    assert "not a card reader" in the_error('[cards]\nreader = "usb"')
    assert "needs the reader's input device" in the_error('[cards]\nreader = "evdev:"')
    short = "tooshort-secret"  # 15 characters
    error = the_error(f'[cards]\nsecret = "{short}"')
    assert error.startswith("cards.secret: ") and "16 characters" in error
    assert short not in error  # a secret is never shown
    assert "4 to 40 hex digits" in the_error('[cards]\ntest_card = "not-a-card"')
