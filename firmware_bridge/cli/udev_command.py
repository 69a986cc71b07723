"""``oche udev``: print or install the udev rules that give the board a stable
``/dev/oche-board`` name and let the user open it without root.

``oche udev print`` writes the rules to stdout; ``oche udev install`` writes
them atomically into the rules directory (``/etc/udev/rules.d``) and reloads
udev. The rules text lives in one file only, ``udev/70-oche-board.rules``:
this module reads it from the installed package, or from the source tree.

Exit status: 0 done; 2 the rules could not be written (permission denied,
no such directory), with one line on stderr; 1 the rules were written but
``udevadm`` failed to reload them.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

from firmware_bridge.cli.command_support import Commands, UsageError

__all__ = [
    "DEFAULT_RULES_DIR",
    "RELOAD_COMMANDS",
    "RULES_NAME",
    "add_parser",
    "install_rules",
    "rules_text",
]

RULES_NAME = "70-oche-board.rules"
"""The rules file's name, in the package, the source tree and the rules directory."""

DEFAULT_RULES_DIR = Path("/etc/udev/rules.d")

RELOAD_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("udevadm", "control", "--reload-rules"),
    ("udevadm", "trigger", "--subsystem-match=tty", "--subsystem-match=usb"),
)
"""What ``oche udev install`` runs after writing the file (unless ``--no-reload``)."""

_UDEVADM_TIMEOUT_S = 60.0


def rules_text() -> str:
    """The rules: the package's copy (package data ``firmware_bridge/cli/udev/``),
    else the source tree's ``udev/`` next to the package (an editable install
    or a checkout). A UsageError if neither is there."""
    packaged = resources.files("firmware_bridge.cli") / "udev" / RULES_NAME
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    in_tree = Path(__file__).resolve().parents[2] / "udev" / RULES_NAME
    try:
        return in_tree.read_text(encoding="utf-8")
    except OSError:
        raise UsageError(
            f"the udev rules ({RULES_NAME}) are missing from this installation; reinstall oche"
        ) from None


def _sudo_hint(args: argparse.Namespace) -> str:
    """The command to run again as root, as the user typed it (with the full
    path of the script: sudo's own PATH seldom holds a virtualenv)."""
    script = Path(sys.argv[0])
    program = str(script.resolve()) if script.name == "oche" else "oche"
    command = [program, "udev", "install"]
    if Path(args.rules_dir) != DEFAULT_RULES_DIR:
        command += ["--rules-dir", str(args.rules_dir)]
    if args.no_reload:
        command.append("--no-reload")
    return "sudo " + shlex.join(command)


def install_rules(text: str, rules_dir: Path) -> Path:
    """Write ``text`` as ``rules_dir/RULES_NAME`` atomically (a temporary file
    in the same directory, then a rename), mode 0644; returns the path.
    Raises ``OSError`` as the file system reports it."""
    target = rules_dir / RULES_NAME
    # udevd only reads names ending in ".rules", so it never sees the
    # half-written temporary file even if it rescans the directory meanwhile.
    handle, temporary = tempfile.mkstemp(dir=rules_dir, prefix=f".{RULES_NAME}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _write_error(rules_dir: Path, error: OSError, args: argparse.Namespace) -> UsageError:
    if isinstance(error, PermissionError) and os.geteuid() != 0:
        return UsageError(
            f"cannot write to {rules_dir}: permission denied; run it as root: {_sudo_hint(args)}"
        )
    if isinstance(error, FileNotFoundError) and not rules_dir.exists():
        return UsageError(f"the rules directory {rules_dir} does not exist")
    return UsageError(f"cannot write to {rules_dir}: {error.strerror or error}")


def _manual_reload() -> str:
    return " && ".join("sudo " + shlex.join(command) for command in RELOAD_COMMANDS)


def _reload(udevadm: str) -> str | None:
    """Run the reload commands; None when they all worked, else what failed."""
    for command in RELOAD_COMMANDS:
        shown = shlex.join(command)
        try:
            result = subprocess.run(
                [udevadm, *command[1:]],
                capture_output=True,
                text=True,
                timeout=_UDEVADM_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"{shown} failed: {error}"
        if result.returncode != 0:
            lines = result.stderr.strip().splitlines()
            detail = f": {lines[-1]}" if lines else ""
            return f"{shown} failed (exit {result.returncode}){detail}"
    return None


def _print(args: argparse.Namespace) -> int:
    sys.stdout.write(rules_text())
    return 0


def _install(args: argparse.Namespace) -> int:
    text = rules_text()
    rules_dir = Path(args.rules_dir)
    try:
        target = install_rules(text, rules_dir)
    except OSError as error:
        raise _write_error(rules_dir, error, args) from None
    sys.stdout.write(f"installed {target}\n")
    if args.no_reload:
        sys.stdout.write(f"to load the rules now, run: {_manual_reload()}; then replug the board\n")
        return 0
    udevadm = shutil.which("udevadm")
    if udevadm is None:
        sys.stderr.write(
            "oche udev: udevadm not found, the rules are not loaded yet; "
            f"run: {_manual_reload()} (or reboot), then replug the board\n"
        )
        return 0
    failure = _reload(udevadm)
    if failure is not None:
        sys.stderr.write(
            f"oche udev: {target} is installed but {failure}; run: {_manual_reload()}\n"
        )
        return 1
    sys.stdout.write("udev rules reloaded; replug the board, then use /dev/oche-board\n")
    return 0


def add_parser(commands: Commands) -> None:
    """Add ``oche udev print`` and ``oche udev install``."""
    udev = commands.add_parser(
        "udev",
        help="print or install the udev rules (/dev/oche-board, access without root)",
        description="udev rules that name the board /dev/oche-board and let the logged-in "
        "user and the dialout group open it, for the common controller chips (RP2040, "
        "Arduino, CH340, CP210x, FTDI, Espressif).",
    )
    actions = udev.add_subparsers(dest="udev_command", required=True, metavar="ACTION")

    show = actions.add_parser(
        "print",
        help="print the rules",
        description=f"Print the udev rules ({RULES_NAME}) on standard output, to read them "
        f"or to install them by hand: oche udev print | sudo tee {DEFAULT_RULES_DIR}/"
        f"{RULES_NAME}. Changes nothing.",
    )
    show.set_defaults(run=_print)

    install = actions.add_parser(
        "install",
        help="write the rules into the rules directory and reload udev (needs root)",
        description=f"Write {RULES_NAME} into the rules directory (atomically) and run "
        + " and ".join(shlex.join(command) for command in RELOAD_COMMANDS)
        + ". Needs root: sudo oche udev install.",
    )
    install.add_argument(
        "--rules-dir",
        type=Path,
        default=DEFAULT_RULES_DIR,
        metavar="DIR",
        help=f"where to write the rules (default: {DEFAULT_RULES_DIR})",
    )
    install.add_argument(
        "--no-reload",
        action="store_true",
        help="only write the file; do not run udevadm",
    )
    install.set_defaults(run=_install)
