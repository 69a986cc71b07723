"""``oche udev print`` and ``oche udev install``, run as the installed console
script, and the rules file itself: every controller chip, the symlink, the
access keys, and a syntax check (``udevadm verify`` when this machine has it)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.cli import main as cli
from firmware_bridge.cli import udev_command
from tests.paths import REPO

OCHE = Path(sys.executable).parent / "oche"
REPO_RULES = REPO / "udev" / "70-oche-board.rules"

# (vendor id, product id or None for every product, chip)
CONTROLLERS: tuple[tuple[str, str | None, str], ...] = (
    ("2e8a", "0005", "MicroPython on RP2040 / Raspberry Pi Pico"),
    ("2341", None, "Arduino"),
    ("2a03", None, "Arduino (arduino.org)"),
    ("1a86", "7523", "CH340/CH341"),
    ("1a86", "55d4", "WCH CH9102F"),
    ("10c4", "ea60", "CP210x"),
    ("0403", "6001", "FTDI FT232R"),
    ("0403", "6015", "FTDI FT-X"),
    ("303a", "1001", "Espressif USB Serial/JTAG"),
    ("303a", "4001", "Espressif TinyUSB CDC"),
    ("303a", None, "Espressif, any product"),
)

RELOAD_CALLS = ["control --reload-rules", "trigger --subsystem-match=tty --subsystem-match=usb"]


def oche(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [str(OCHE), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def printed() -> str:
    result = oche("udev", "print")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


# --- a small udev rules parser, for the syntax check and the content tests ---


def keys(words: str) -> frozenset[str]:
    return frozenset(words.split())


KNOWN_KEYS = keys(
    "ACTION DEVPATH KERNEL KERNELS NAME SYMLINK SUBSYSTEM SUBSYSTEMS DRIVER DRIVERS ATTR ATTRS"
    " SYSCTL ENV CONST TAG TAGS TEST PROGRAM RESULT OWNER GROUP MODE SECLABEL RUN LABEL GOTO"
    " IMPORT OPTIONS"
)
MATCH_ONLY = keys(
    "ACTION DEVPATH KERNEL KERNELS SUBSYSTEM SUBSYSTEMS DRIVER DRIVERS ATTRS TAGS TEST PROGRAM"
    " RESULT CONST"
)
ASSIGN_ONLY = keys("OWNER GROUP MODE SECLABEL RUN LABEL GOTO IMPORT OPTIONS")
ATTRIBUTE_REQUIRED = keys("ATTR ATTRS SYSCTL ENV CONST IMPORT SECLABEL")
ATTRIBUTE_ALLOWED = ATTRIBUTE_REQUIRED | {"RUN", "TEST"}

_PAIR = re.compile(r'\s*([A-Z]+)(?:\{([^{}"]+)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')

Pair = tuple[str, str | None, str, str]  # key, {attribute}, operator, value


def parse_rule(line: str) -> list[Pair]:
    """The KEY{attr}OP"value" pairs of one rule line; AssertionError names the problem."""
    pairs: list[Pair] = []
    position = 0
    while position < len(line):
        match = _PAIR.match(line, position)
        assert match, f'not a KEY=="value" pair at column {position}: {line[position:]!r}'
        key, attribute, operator, value, separator = match.groups()
        assert key in KNOWN_KEYS, f"unknown key {key} in {line!r}"
        if attribute is None:
            assert key not in ATTRIBUTE_REQUIRED, f"{key} needs {{attribute}}: {line!r}"
        else:
            assert key in ATTRIBUTE_ALLOWED, f"{key} takes no {{attribute}}: {line!r}"
        is_match = operator in ("==", "!=")
        assert not (key in MATCH_ONLY and not is_match), f"{key} can only be matched: {line!r}"
        assert not (key in ASSIGN_ONLY and is_match), f"{key} can only be assigned: {line!r}"
        pairs.append((key, attribute, operator, value))
        position = match.end()
        assert separator == "," or position == len(line), line
    assert pairs, "an empty rule"
    assert line.rstrip()[-1] != ",", f"a trailing comma: {line!r}"
    return pairs


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) with backslash continuations joined."""
    lines: list[tuple[int, str]] = []
    pending = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        if raw.endswith("\\"):
            pending += raw[:-1]
            continue
        lines.append((start, pending + raw))
        pending = ""
    assert not pending, "the file ends in a line continuation"
    return lines


def rules_of(text: str) -> list[list[Pair]]:
    rules = []
    for number, line in logical_lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            rules.append(parse_rule(stripped))
        except AssertionError as error:
            raise AssertionError(f"line {number}: {error}") from None
    return rules


def value(rule: list[Pair], key: str, attribute: str | None = None, op: str = "==") -> str | None:
    for k, a, o, v in rule:
        if k == key and a == attribute and o == op:
            return v
    return None


def usb_id(rule: list[Pair], name: str) -> str | None:
    return value(rule, "ATTRS", name) or value(rule, "ATTR", name)


def find_rule(rules: list[list[Pair]], subsystem: str, vid: str, pid: str | None) -> list[Pair]:
    found = [
        rule
        for rule in rules
        if value(rule, "SUBSYSTEM") == subsystem
        and usb_id(rule, "idVendor") == vid
        and usb_id(rule, "idProduct") == pid
    ]
    assert len(found) == 1, f"{len(found)} {subsystem} rules for {vid}:{pid or '*'}"
    return found[0]


# --- the rules ---


def test_print_is_the_one_rules_file(printed: str) -> None:
    assert printed == REPO_RULES.read_text(encoding="utf-8")
    assert printed.endswith("\n")


def test_print_names_every_controller_and_the_symlink(printed: str) -> None:
    assert 'SYMLINK+="oche-board"' in printed
    for vid, pid, chip in CONTROLLERS:
        assert f'{{idVendor}}=="{vid}"' in printed, chip
        if pid is not None:
            assert f'{{idVendor}}=="{vid}", ATTRS{{idProduct}}=="{pid}"' in printed, chip
            assert f"({vid}:{pid})" in printed, f"no comment names {chip} {vid}:{pid}"
        else:
            assert f"({vid}:*)" in printed, f"no comment names {chip} {vid}:*"


@pytest.mark.parametrize(("vid", "pid", "chip"), CONTROLLERS)
def test_serial_rule_gives_the_symlink_and_access(
    printed: str, vid: str, pid: str | None, chip: str
) -> None:
    rule = find_rule(rules_of(printed), "tty", vid, pid)
    assert value(rule, "SYMLINK", op="+=") == "oche-board", chip
    assert value(rule, "TAG", op="+=") == "uaccess", chip
    assert value(rule, "GROUP", op="=") == "dialout", chip
    assert value(rule, "MODE", op="=") == "0660", chip


@pytest.mark.parametrize(("vid", "pid", "chip"), CONTROLLERS)
def test_usb_rule_gives_access_for_pyusb(
    printed: str, vid: str, pid: str | None, chip: str
) -> None:
    rule = find_rule(rules_of(printed), "usb", vid, pid)
    assert value(rule, "TAG", op="+=") == "uaccess", chip
    assert value(rule, "GROUP", op="=") == "dialout", chip
    assert value(rule, "MODE", op="=") == "0660", chip
    assert value(rule, "SYMLINK", op="+=") is None, "a raw USB device must not take the symlink"


def test_every_rule_has_a_comment_line_above(printed: str) -> None:
    previous = ""
    for _, line in logical_lines(printed):
        if line.strip() and not line.startswith("#"):
            assert previous.startswith("#"), f"no comment above {line!r}"
        if line.strip():
            previous = line


def test_the_pinning_example_is_a_valid_rule(printed: str) -> None:
    examples = [line[1:] for line in printed.splitlines() if line.startswith("#SUBSYSTEM")]
    assert examples, "no commented example rule"
    for example in examples:
        rule = parse_rule(example)
        assert value(rule, "ATTRS", "serial") is not None
        assert value(rule, "SYMLINK", op="+=") == "oche-board"


def test_the_parser_rejects_broken_rules() -> None:
    for bad in (
        'SUBSYSTEM=="tty", ATTRS{idVendor}=="1a86" # a trailing comment',
        'SUBSYSTEM=="tty" ATTRS{idVendor}=="1a86"',
        'SUBSYSTEM=="tty", FOO=="x"',
        'SUBSYSTEM="tty"',
        'SUBSYSTEM=="tty", GROUP=="dialout"',
        'SUBSYSTEM=="tty", ATTRS{idVendor}=="1a86',
        'SUBSYSTEM=="tty",',
    ):
        with pytest.raises(AssertionError):
            parse_rule(bad)


def _udevadm_verify() -> str | None:
    udevadm = shutil.which("udevadm")
    if udevadm is None:
        return None
    probe = subprocess.run(
        [udevadm, "verify", "--help"], capture_output=True, timeout=30, check=False
    )
    return udevadm if probe.returncode == 0 else None


@pytest.mark.skipif(_udevadm_verify() is None, reason="no `udevadm verify` (systemd >= 253) here")
def test_udevadm_verify_accepts_the_rules(tmp_path: Path, printed: str) -> None:
    udevadm = _udevadm_verify()
    assert udevadm is not None
    rules = tmp_path / "70-oche-board.rules"
    rules.write_text(printed, encoding="utf-8")
    result = subprocess.run(
        [udevadm, "verify", "--resolve-names=never", str(rules)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --- oche udev install ---


def fake_udevadm(tmp_path: Path, status: int = 0) -> tuple[Path, Path]:
    """A ``udevadm`` script in its own bin directory that appends its
    arguments to a log (and fails with ``status`` if not 0)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "udevadm.log"
    script = bin_dir / "udevadm"
    failure = f"echo 'Failed to send reload request: Permission denied' >&2\nexit {status}\n"
    script.write_text(
        f'#!/bin/sh\necho "$*" >> {shlex.quote(str(log))}\n{failure if status else ""}',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bin_dir, log


def test_install_without_reload_writes_the_printed_rules(tmp_path: Path, printed: str) -> None:
    rules_dir = tmp_path / "rules.d"
    rules_dir.mkdir()
    (rules_dir / "70-oche-board.rules").write_text("# an old version\n", encoding="utf-8")
    result = oche("udev", "install", "--rules-dir", str(rules_dir), "--no-reload")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    installed = rules_dir / "70-oche-board.rules"
    assert installed.read_text(encoding="utf-8") == printed
    assert installed.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in rules_dir.iterdir()) == ["70-oche-board.rules"]
    assert str(installed) in result.stdout
    assert "udevadm control --reload-rules" in result.stdout


def test_install_reloads_and_triggers_udev(tmp_path: Path, printed: str) -> None:
    bin_dir, log = fake_udevadm(tmp_path)
    rules_dir = tmp_path / "rules.d"
    rules_dir.mkdir()
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    result = oche("udev", "install", "--rules-dir", str(rules_dir), path=path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert log.read_text(encoding="utf-8").splitlines() == RELOAD_CALLS
    assert (rules_dir / "70-oche-board.rules").read_text(encoding="utf-8") == printed
    assert "reloaded" in result.stdout


def test_no_reload_runs_no_udevadm(tmp_path: Path) -> None:
    bin_dir, log = fake_udevadm(tmp_path)
    rules_dir = tmp_path / "rules.d"
    rules_dir.mkdir()
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    result = oche("udev", "install", "--rules-dir", str(rules_dir), "--no-reload", path=path)
    assert result.returncode == 0, result.stderr
    assert not log.exists()


def test_a_failing_udevadm_is_reported_after_installing(tmp_path: Path) -> None:
    bin_dir, log = fake_udevadm(tmp_path, status=1)
    rules_dir = tmp_path / "rules.d"
    rules_dir.mkdir()
    result = oche("udev", "install", "--rules-dir", str(rules_dir), path=str(bin_dir))
    assert result.returncode == 1
    assert log.read_text(encoding="utf-8").splitlines() == RELOAD_CALLS[:1]
    assert (rules_dir / "70-oche-board.rules").is_file()
    assert len(result.stderr.splitlines()) == 1
    assert "udevadm control --reload-rules failed (exit 1)" in result.stderr
    assert "Permission denied" in result.stderr


def test_without_udevadm_it_says_what_to_run(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    rules_dir = tmp_path / "rules.d"
    rules_dir.mkdir()
    result = oche("udev", "install", "--rules-dir", str(rules_dir), path=str(empty))
    assert result.returncode == 0, result.stderr
    assert (rules_dir / "70-oche-board.rules").is_file()
    assert "udevadm not found" in result.stderr
    assert "udevadm control --reload-rules" in result.stderr
    assert "udevadm trigger --subsystem-match=tty --subsystem-match=usb" in result.stderr


def test_an_unwritable_rules_dir_exits_2_naming_it(tmp_path: Path) -> None:
    # Tests run as root, which may write anywhere: a path under a regular
    # file is one that nobody can create files in.
    (tmp_path / "file").write_text("", encoding="utf-8")
    rules_dir = tmp_path / "file" / "rules.d"
    result = oche("udev", "install", "--rules-dir", str(rules_dir), "--no-reload")
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("oche udev: ")
    assert str(rules_dir) in result.stderr


def test_a_missing_rules_dir_exits_2(tmp_path: Path) -> None:
    rules_dir = tmp_path / "missing"
    result = oche("udev", "install", "--rules-dir", str(rules_dir), "--no-reload")
    assert result.returncode == 2
    assert result.stderr == f"oche udev: the rules directory {rules_dir} does not exist\n"
    assert not rules_dir.exists()


def test_permission_denied_as_a_user_says_to_use_sudo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The suite runs as root, so a user's EACCES is simulated in-process.
    def denied(text: str, rules_dir: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(rules_dir))

    monkeypatch.setattr(udev_command, "install_rules", denied)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    status = cli.main(["udev", "install", "--rules-dir", str(tmp_path)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1
    assert f"cannot write to {tmp_path}: permission denied" in captured.err
    assert f"sudo oche udev install --rules-dir {tmp_path}" in captured.err


def test_udev_needs_an_action() -> None:
    result = oche("udev")
    assert result.returncode == 2
    assert "ACTION" in result.stderr
