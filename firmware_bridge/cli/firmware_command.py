"""``oche firmware install``: put the board firmware (firmware_bridge/mcu/) on a
MicroPython board (Raspberry Pi Pico / RP2040, ESP32) with mpremote.

Every file of firmware_bridge/mcu/ is copied to the board's root with
``mpremote connect PORT fs cp FILE :FILE + ... + reset``. The board's own
``oche_config.py`` (its wiring and timing) is kept if it has one, unless
``--overwrite-config``; mpremote is asked first with a one-line ``exec``.
Bad input or an mpremote failure is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from firmware_bridge.cli.command_support import Commands, UsageError

__all__ = ["CONFIG_FILE", "MCU_DIR", "add_parser", "firmware_files", "install"]

MCU_DIR = Path(__file__).resolve().parent.parent / "mcu"
"""The firmware's files, copied to the board as they are."""
CONFIG_FILE = "oche_config.py"
"""The board's settings; the one file an existing board keeps."""
MAIN_FILE = "main.py"
"""Copied last: MicroPython runs it at boot."""
CHECK_MARKER = "oche-config"
CHECK_CODE = f'import os; print("{CHECK_MARKER}", "{CONFIG_FILE}" in os.listdir())'
"""Run on the board: prints ``oche-config True`` if it has an oche_config.py."""
CHECK_TIMEOUT_S = 60
COPY_TIMEOUT_S = 300


def firmware_files(directory: Path = MCU_DIR) -> list[Path]:
    """The files to copy, by name, ``main.py`` last (no hidden files, no
    byte code)."""
    files = sorted(
        path
        for path in directory.iterdir()
        if path.is_file() and not path.name.startswith(".") and path.suffix not in (".pyc", ".pyo")
    )
    return sorted(files, key=lambda path: path.name == MAIN_FILE)


def _find_mpremote(given: str | None) -> str:
    if given:
        if Path(given).is_file():
            return given
        found = shutil.which(given)
        if found is None:
            raise UsageError(f"--mpremote {given!r}: no such program")
        return found
    found = shutil.which("mpremote", path=str(Path(sys.executable).parent)) or shutil.which(
        "mpremote"
    )
    if found is None:
        raise UsageError(
            "mpremote is not installed: pip install 'oche[firmware]', or pass --mpremote PATH"
        )
    return found


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _run(command: list[str], timeout: float) -> str:
    """Run mpremote; its stdout. Failure is a UsageError with mpremote's last word."""
    _say("$ " + shlex.join(command))
    try:
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as error:
        raise UsageError(f"cannot run mpremote {command[0]!r}: {error.strerror}") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"mpremote did not finish within {timeout:g} s") from None
    if result.returncode != 0:
        said = _last_line(result.stderr) or _last_line(result.stdout) or "no message"
        raise UsageError(f"mpremote failed (exit {result.returncode}): {said}")
    return result.stdout


def _board_has_config(mpremote: str, port: str) -> bool:
    output = _run([mpremote, "connect", port, "exec", CHECK_CODE], CHECK_TIMEOUT_S)
    for line in output.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == CHECK_MARKER and words[1] in ("True", "False"):
            return words[1] == "True"
    said = _last_line(output) or "nothing"
    raise UsageError(f"cannot tell whether the board has an {CONFIG_FILE}: mpremote said {said!r}")


def _copy_command(mpremote: str, port: str, files: list[Path]) -> list[str]:
    command = [mpremote, "connect", port]
    for path in files:
        command += ["fs", "cp", str(path), f":{path.name}", "+"]
    return [*command, "reset"]


def install(
    port: str | None,
    mpremote: str | None = None,
    overwrite_config: bool = False,
    dry_run: bool = False,
    directory: Path = MCU_DIR,
) -> int:
    """Copy the firmware to the board on ``port`` and reset it; 0 when done."""
    port = (port or "").strip()
    if not port:
        raise UsageError("--port is required: the board's serial port, e.g. --port /dev/ttyACM0")
    files = firmware_files(directory) if directory.is_dir() else []
    if not any(path.name == MAIN_FILE for path in files):
        raise UsageError(f"no firmware in {directory}: the Oche installation is incomplete")
    program = _find_mpremote(mpremote)
    if not dry_run and port.startswith("/") and not os.path.exists(port):
        raise UsageError(
            f"port {port} does not exist: is the board plugged in? (mpremote devs lists ports)"
        )
    _say(f"firmware: {len(files)} files from {directory}")
    _say(f"board: {port}")
    if dry_run:
        _say("dry run: these commands would run")
    if overwrite_config:
        keep = False
        _say(f"{CONFIG_FILE}: replaced by this one (--overwrite-config)")
    elif dry_run:
        _say("$ " + shlex.join([program, "connect", port, "exec", CHECK_CODE]))
        _say(f"{CONFIG_FILE}: kept if the board has one; the copy below is for a board without")
        keep = False
    else:
        keep = _board_has_config(program, port)
        if keep:
            _say(f"{CONFIG_FILE}: the board has one, kept (--overwrite-config replaces it)")
        else:
            _say(f"{CONFIG_FILE}: the board has none, copying this one")
    copied = [path for path in files if not (keep and path.name == CONFIG_FILE)]
    command = _copy_command(program, port, copied)
    if dry_run:
        _say("$ " + shlex.join(command))
        return 0
    _run(command, COPY_TIMEOUT_S)
    names = ", ".join(path.name for path in copied)
    _say(f"installed {len(copied)} files on {port} ({names}); the board restarted")
    return 0


def _install(args: argparse.Namespace) -> int:
    return install(args.port, args.mpremote, args.overwrite_config, args.dry_run)


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "firmware",
        help="install the board firmware on a MicroPython board",
        description="The board firmware (MicroPython, for a Raspberry Pi Pico or an ESP32) "
        "scans the dartboard's contact matrix and speaks wire protocol v1. "
        "See docs/firmware.md.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    install_parser = actions.add_parser(
        "install",
        help="copy the firmware to the board with mpremote and reset it",
        description="Copy every file of the firmware to the board with mpremote "
        "(fs cp FILE :FILE), then reset it. The board's own oche_config.py is kept "
        "unless --overwrite-config. MicroPython must already be on the board.",
    )
    install_parser.add_argument(
        "--port", help="the board's serial port, e.g. /dev/ttyACM0 (or an mpremote name such as a0)"
    )
    install_parser.add_argument(
        "--mpremote",
        metavar="PATH",
        help="the mpremote program to use (default: the one installed with Oche)",
    )
    install_parser.add_argument(
        "--overwrite-config",
        action="store_true",
        help="replace the board's oche_config.py with the default one",
    )
    install_parser.add_argument(
        "--dry-run", action="store_true", help="print the mpremote commands, run nothing"
    )
    install_parser.set_defaults(run=_install)
