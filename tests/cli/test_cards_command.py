"""``oche cards monitor`` (each tap masked, with the hash a board stores;
``--show-uid`` to a terminal only) and ``oche cards secret`` (a new venue
secret as its config line); ``[cards]`` errors never show the secret."""

from __future__ import annotations

import asyncio
import io
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from credentials.card_hash import card_hash
from drivers.card_wedge import KeyboardWedgeReader
from firmware_bridge.cli.cards_command import monitor_taps
from firmware_bridge.cli.main import main
from firmware_bridge.daemon.config import parse_config
from mqtt_client.backoff import Backoff
from tests.cli.test_udev_command import find_rule, rules_of, value
from tests.drivers.fake_evdev import FakeInputDevices

OCHE = Path(sys.executable).parent / "oche"
READER = "/dev/input/by-id/usb-Card_Reader-event-kbd"
SECRET = "k3lB3YdQ0c1rX8mWm2t5p9v7s4n6q0aZ"
TIMEOUT = 30.0


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        status = main(["cards", *args])
    except SystemExit as stop:
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_secret_prints_a_config_line_that_loads(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "secret")
    assert status == 0 and "[cards]" in err
    match = re.fullmatch(r'secret = "([A-Za-z0-9_-]{43})"\n', out)
    assert match is not None, out
    config = parse_config(f"[cards]\n{out}", "t.toml")
    assert config.cards.secret == match[1]
    assert match[1] not in repr(config)  # a repr never shows it
    _, again, _ = run(capsys, "secret")
    assert again != out


def test_monitor_needs_a_reader(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "oche.toml"
    config.write_text('[cards]\nreader = "none"\n', "utf-8")
    status, out, err = run(capsys, "monitor", "--config", str(config))
    assert status == 2 and out == ""
    assert "no card reader: set [cards] reader in the config or pass --reader" in err
    status, _, err = run(capsys, "monitor", "--config", str(config), "--reader", "nfc")
    assert status == 2 and "--reader: 'nfc' is not a card reader" in err


def test_show_uid_is_for_a_terminal_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "monitor", "--reader", "pcsc", "--show-uid")
    assert status == 2 and out == ""
    assert "--show-uid prints card UIDs to a terminal only" in err


def test_a_bad_secret_is_refused_without_showing_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "oche.toml"
    config.write_text('[cards]\nreader = "pcsc"\nsecret = "hunter2hunter2"\n', "utf-8")
    status, _, err = run(capsys, "monitor", "--config", str(config))
    assert status == 2
    assert "cards.secret: is shorter than 16 characters" in err and "hunter2" not in err
    config.write_text('[cards]\nreader = "pcsc"\nsecret = 1234567890123456789\n', "utf-8")
    status, _, err = run(capsys, "monitor", "--config", str(config))
    assert status == 2 and "cards.secret: expected a string" in err
    assert "1234567890123456789" not in err
    status, _, err = run(capsys, "monitor", "--reader", "pcsc", "--set", 'cards.secret="oops')
    assert status == 2 and "oops" not in err and "(from --set)" in err


async def test_monitor_shows_taps_masked_with_their_hash() -> None:
    devices = FakeInputDevices()
    device = devices.plug(READER)
    out = io.StringIO()

    async def watch(show_uid: bool, secret: str) -> str:
        out.seek(0)
        out.truncate()
        reader = KeyboardWedgeReader(READER, open_device=devices.open, backoff=Backoff(0.01, 0.05))
        task = asyncio.create_task(monitor_taps(reader, secret, show_uid, out))
        async with asyncio.timeout(TIMEOUT):
            while "connected" not in out.getvalue():
                await asyncio.sleep(0.01)
            device.type("04A21B3F2A\n")
            while "\ncard " not in out.getvalue():
                await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return out.getvalue()

    masked = await watch(False, SECRET)
    assert masked.splitlines() == [
        f"card reader evdev:{READER}: connected, tap a card",
        f"card \u2022\u2022\u2022\u20223F2A  {card_hash(SECRET, '04A21B3F2A')}",
    ]
    shown = await watch(True, SECRET)
    assert f"card 04A21B3F2A  {card_hash(SECRET, '04A21B3F2A')}" in shown
    no_secret = await watch(False, "")
    assert "no [cards] secret: set one to see the hash it is stored as" in no_secret
    assert "04A21B3F2A" not in masked + no_secret


def test_monitor_says_when_pcscd_is_not_running(tmp_path: Path) -> None:
    """The real pyscard on a machine without pcscd: the reason, then Ctrl-C ends it."""
    monitor = subprocess.Popen(
        [str(OCHE), "cards", "monitor", "--reader", "pcsc"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert monitor.stdout is not None
        readable, _, _ = select.select([monitor.stdout], [], [], TIMEOUT)
        assert readable, "oche cards monitor printed nothing"
        line = monitor.stdout.readline()
        assert line.startswith("card reader pcsc: PC/SC: "), line
        assert "is pcscd running?" in line or "no reader is connected" in line
        monitor.send_signal(signal.SIGINT)
        assert monitor.wait(TIMEOUT) == 0
    finally:
        if monitor.poll() is None:
            monitor.kill()
            monitor.wait(TIMEOUT)


def test_the_card_reader_rules_parse_and_open_the_reader_to_the_input_group() -> None:
    text = (Path(__file__).parents[2] / "udev" / "71-oche-card-reader.rules").read_text("utf-8")
    rules = rules_of(text)
    assert rules, "no rule"
    for rule in rules:
        assert value(rule, "SUBSYSTEM") == "input" and value(rule, "KERNEL") == "event*"
        assert value(rule, "SYMLINK", op="+=") == "oche-card-reader"
        assert value(rule, "GROUP", op="=") == "input" and value(rule, "MODE", op="=") == "0660"
        assert value(rule, "TAG", op="+=") == "uaccess"
    find_rule(rules, "input", "ffff", "0035")
