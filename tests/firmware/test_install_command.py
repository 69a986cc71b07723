"""``oche firmware install``, run as a user runs it (the installed console
script), with ``--mpremote`` pointing at a fake mpremote: a small program
written here that records its arguments and answers like mpremote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

OCHE = Path(sys.executable).parent / "oche"
MCU_DIR = Path(__file__).resolve().parents[2] / "firmware_bridge" / "mcu"
FIRMWARE = [
    "coins.py",
    "compat.py",
    "debounce.py",
    "frames.py",
    "matrix_scan.py",
    "oche_config.py",
    "main.py",
]
"""What the board gets, in order (main.py last)."""

FAKE_MPREMOTE = """#!{python}
import json, os, sys
with open({log!r}, "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("FAKE_FAIL") == sys.argv[3]:
    sys.stderr.write("mpremote: failed to access /dev/ttyACM0 (it may be in use)\\n")
    sys.exit(1)
if sys.argv[3] == "exec":
    print(os.environ.get("FAKE_EXEC_OUTPUT", "oche-config False"))
"""


class FakeMpremote:
    def __init__(self, tmp_path: Path) -> None:
        self.log = tmp_path / "mpremote-calls.jsonl"
        self.path = tmp_path / "fake-mpremote"
        self.path.write_text(FAKE_MPREMOTE.format(python=sys.executable, log=str(self.log)))
        self.path.chmod(0o755)
        self.port = tmp_path / "ttyACM0"
        self.port.touch()

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def fake(tmp_path: Path) -> FakeMpremote:
    return FakeMpremote(tmp_path)


def oche(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), "firmware", "install", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **env},
    )


def copy_call(port: str, names: list[str]) -> list[str]:
    call = ["connect", port]
    for name in names:
        call += ["fs", "cp", str(MCU_DIR / name), f":{name}", "+"]
    return [*call, "reset"]


def check_call(port: str) -> list[str]:
    return [
        "connect",
        port,
        "exec",
        'import os; print("oche-config", "oche_config.py" in os.listdir())',
    ]


def test_the_firmware_directory_holds_exactly_the_firmware() -> None:
    names = {p.name for p in MCU_DIR.iterdir() if p.is_file() and p.suffix == ".py"}
    assert names == set(FIRMWARE)


def test_a_new_board_gets_every_file_and_a_reset(fake: FakeMpremote) -> None:
    result = oche("--port", str(fake.port), "--mpremote", str(fake.path))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert fake.calls() == [check_call(str(fake.port)), copy_call(str(fake.port), FIRMWARE)]
    assert "oche_config.py: the board has none" in result.stdout
    assert f"installed {len(FIRMWARE)} files on {fake.port}" in result.stdout
    assert "$ " + str(fake.path) + " connect" in result.stdout


def test_a_board_with_a_config_keeps_it(fake: FakeMpremote) -> None:
    result = oche(
        "--port",
        str(fake.port),
        "--mpremote",
        str(fake.path),
        FAKE_EXEC_OUTPUT="oche-config True",
    )
    assert result.returncode == 0, result.stderr
    kept = [name for name in FIRMWARE if name != "oche_config.py"]
    assert fake.calls() == [check_call(str(fake.port)), copy_call(str(fake.port), kept)]
    assert "oche_config.py: the board has one, kept" in result.stdout


def test_overwrite_config_copies_it_without_asking(fake: FakeMpremote) -> None:
    result = oche(
        "--port",
        str(fake.port),
        "--mpremote",
        str(fake.path),
        "--overwrite-config",
        FAKE_EXEC_OUTPUT="oche-config True",
    )
    assert result.returncode == 0, result.stderr
    assert fake.calls() == [copy_call(str(fake.port), FIRMWARE)]


def test_mpremote_port_names_are_passed_through(fake: FakeMpremote) -> None:
    result = oche("--port", "a0", "--mpremote", str(fake.path))
    assert result.returncode == 0, result.stderr
    assert fake.calls() == [check_call("a0"), copy_call("a0", FIRMWARE)]


def test_a_dry_run_runs_nothing_and_prints_the_commands(fake: FakeMpremote) -> None:
    result = oche("--port", "/dev/no-such-board", "--mpremote", str(fake.path), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert fake.calls() == []
    lines = result.stdout.splitlines()
    assert "dry run: these commands would run" in lines
    copy_line = next(line for line in lines if " fs cp " in line)
    assert copy_line.endswith(" + reset")
    assert copy_line.count(" fs cp ") == len(FIRMWARE)


def test_a_missing_port_is_one_line_and_exit_2(fake: FakeMpremote) -> None:
    result = oche("--mpremote", str(fake.path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "oche firmware: --port is required: the board's serial port, e.g. --port /dev/ttyACM0"
    ]
    assert fake.calls() == []


def test_a_port_that_does_not_exist_is_one_line_and_exit_2(
    fake: FakeMpremote, tmp_path: Path
) -> None:
    result = oche("--port", str(tmp_path / "ttyACM9"), "--mpremote", str(fake.path))
    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"oche firmware: port {tmp_path / 'ttyACM9'} does not exist")
    assert fake.calls() == []


@pytest.mark.parametrize("failing", ["exec", "fs"])
def test_an_mpremote_failure_is_one_line_and_exit_2(fake: FakeMpremote, failing: str) -> None:
    result = oche("--port", str(fake.port), "--mpremote", str(fake.path), FAKE_FAIL=failing)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "oche firmware: mpremote failed (exit 1): "
        "mpremote: failed to access /dev/ttyACM0 (it may be in use)"
    ]
    assert "installed" not in result.stdout


def test_an_unreadable_answer_from_the_board_is_an_error(fake: FakeMpremote) -> None:
    result = oche(
        "--port", str(fake.port), "--mpremote", str(fake.path), FAKE_EXEC_OUTPUT="Traceback"
    )
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert "cannot tell whether the board has an oche_config.py" in line
    assert len(fake.calls()) == 1


def test_a_missing_mpremote_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = oche("--port", "a0", "--mpremote", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"oche firmware: --mpremote '{tmp_path / 'nope'}': no such program"
    ]


def test_the_installed_mpremote_is_the_default() -> None:
    result = oche("--port", "a0", "--dry-run")
    assert result.returncode == 0, result.stderr
    mpremote = str(Path(sys.executable).parent / "mpremote")
    assert f"$ {mpremote} connect a0 fs cp " in result.stdout


def test_install_is_listed_in_the_help() -> None:
    result = subprocess.run(
        [str(OCHE), "firmware", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "install" in result.stdout
