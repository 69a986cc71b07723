"""``oche operator pin`` (the operator menu's PIN, hashed, never printed) and
the ``[operator]`` settings ``oche display`` passes to the display."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from display.operator_pin import PinGate, verify_pin
from firmware_bridge.cli.display_command import operator_access, resolve_target
from firmware_bridge.daemon.config import parse_config


def run_pin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pin: str
) -> tuple[int, str, str]:
    from firmware_bridge.cli.main import main

    monkeypatch.setattr("sys.stdin", io.StringIO(pin + "\n"))
    status = main(["operator", "pin", "--stdin"])
    out, err = capsys.readouterr()
    return status, out, err


def test_oche_operator_pin_prints_a_hash_and_never_the_pin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run_pin(monkeypatch, capsys, "73519")
    assert status == 0
    line = out.strip()
    match = re.fullmatch(r'pin_hash = "(scrypt\$[^"]+)"', line)
    assert match is not None, out
    assert "73519" not in out + err
    assert verify_pin("73519", match[1]) and not verify_pin("73518", match[1])
    # The line goes into the config as it is.
    config = parse_config(f"[operator]\n{line}\n", "t.toml")
    assert PinGate(config.operator.pin_hash).check("73519")

    for bad in ("73a19", "735", "7351973519735"):
        status, out, err = run_pin(monkeypatch, capsys, bad)
        assert status == 2 and out == ""
        assert err.startswith("oche operator: a PIN is") and bad not in err


@pytest.mark.parametrize("stdin", ["", "\n"], ids=["no terminal, nothing piped", "empty line"])
def test_oche_operator_pin_without_a_pin_says_so(stdin: str) -> None:
    """No terminal to ask on (a service, ssh without -t) and nothing piped:
    the error is about the missing PIN, not about what a PIN is."""
    result = subprocess.run(
        [str(Path(sys.executable).parent / "oche"), "operator", "pin"],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "oche operator: no PIN on standard input: run oche operator pin on a terminal to be "
        "asked for it, or give the PIN as standard input's first line (--stdin)\n"
    )


def test_oche_operator_pin_reads_a_pipe() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "firmware_bridge.cli.main", "operator", "pin"],
        input="8642\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "8642" not in result.stdout + result.stderr
    hashed = result.stdout.split('"')[1]
    assert verify_pin("8642", hashed)


def test_oche_display_passes_the_operator_account_and_pin_hash(tmp_path: Path) -> None:
    secret = tmp_path / "operator.secret"
    secret.write_text("op-secret\n", "utf-8")
    config = tmp_path / "oche.toml"
    hashed = "scrypt$16384$8$1$" + "A" * 22 + "$" + "B" * 43
    config.write_text(
        '[board]\nid = "pub"\n[mqtt]\nurl = "mqtt://broker.local"\n'
        f'[operator]\npin_hash = "{hashed}"\nusername = "op"\npassword_file = "operator.secret"\n',
        "utf-8",
    )
    target = resolve_target(None, None, None, str(config))
    assert target.board == "pub" and target.operator.username == "op"
    assert target.operator_password == "op-secret"
    access = operator_access(target.operator, target.operator_password)
    assert (access.pin_hash, access.username, access.password) == (hashed, "op", "op-secret")
    assert access.url is None  # the feed's broker, never its account


def test_on_a_terminal_the_pin_is_asked_twice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware_bridge.cli.main import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    answers = iter(["2580", "2581", "2580", "2580"])
    prompts: list[str] = []

    def getpass(prompt: str = "") -> str:
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr("getpass.getpass", getpass)
    assert main(["operator", "pin"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "oche operator: the two PINs differ: nothing hashed\n"
    assert main(["operator", "pin"]) == 0
    out, err = capsys.readouterr()
    assert verify_pin("2580", out.split('"')[1]) and "2580" not in out + err
    assert prompts == ["Operator PIN (4 to 12 digits): ", "The same PIN again: "] * 2
