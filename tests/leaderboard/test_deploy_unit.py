"""``deploy/systemd/oche-leaderboard.service``: the leaderboard's unit runs
``oche leaderboard serve`` with room for its streams (``LimitNOFILE``, issue
#21: systemd's 1,024 was too few), passes ``systemd-analyze verify``, rates
3 or better in ``systemd-analyze security``, is shown verbatim in
docs/deploy.md, and the real service answers HTTP under its sandbox."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from leaderboard.live_hub import DEFAULT_MAX_STREAMS
from tests import unit_sandbox
from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO
from tests.unit_sandbox import parse_unit

UNIT = REPO / "deploy" / "systemd" / "oche-leaderboard.service"
DEPLOY_DOC = REPO / "docs" / "deploy.md"
OCHE = Path(sys.executable).parent / "oche"
EXPOSURE_LIMIT = 3.0


def values(key: str) -> list[str]:
    return [value for name, value in parse_unit(UNIT.read_text("utf-8"))["Service"] if name == key]


def test_the_unit_serves_the_leaderboard_with_room_for_its_streams() -> None:
    (exec_start,) = values("ExecStart")
    binary, *arguments = exec_start.split()
    assert Path(binary).name == "oche"
    assert arguments[:4] == ["leaderboard", "serve", "--config", "/etc/oche/leaderboard.toml"]
    (limit,) = values("LimitNOFILE")
    # Each stream, client and database connection is a file descriptor.
    assert int(limit) >= 10 * DEFAULT_MAX_STREAMS
    assert values("User") == ["oche"] and values("StateDirectory") == ["oche-leaderboard"]
    assert values("CapabilityBoundingSet") == [""] and values("NoNewPrivileges") == ["yes"]


def test_docs_deploy_shows_the_unit_as_it_is() -> None:
    doc = DEPLOY_DOC.read_text("utf-8")
    assert UNIT.read_text("utf-8").strip() in doc
    assert "](../deploy/systemd/oche-leaderboard.service)" in doc


def systemd_analyze() -> str | None:
    return shutil.which("systemd-analyze")


@pytest.mark.skipif(systemd_analyze() is None, reason="no systemd-analyze on this machine")
def test_the_unit_passes_systemd_analyze_verify_and_rates_3_or_better(tmp_path: Path) -> None:
    analyze = str(systemd_analyze())
    unit = tmp_path / UNIT.name  # verify wants ExecStart's program to exist
    unit.write_text(UNIT.read_text("utf-8").replace("/opt/oche/bin/oche", str(OCHE)), "utf-8")
    verify = subprocess.run(
        [analyze, "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert verify.returncode == 0 and UNIT.name not in verify.stderr, verify.stderr
    security = subprocess.run(
        [analyze, "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", security.stdout)
    assert found is not None, security.stdout + security.stderr
    exposure = float(found.group(1))
    assert exposure <= EXPOSURE_LIMIT
    assert f"rates it **{exposure:.1f}**" in DEPLOY_DOC.read_text("utf-8")


@pytest.mark.skipif(
    unit_sandbox.available() is not None or os.geteuid() != 0,
    reason=f"cannot apply the unit's sandbox here: {unit_sandbox.available() or 'not root'}",
)
def test_the_service_answers_under_the_units_sandbox(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    port = free_port()
    command = [
        str(OCHE),
        "leaderboard",
        "serve",
        "--db",
        f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}",
        "--mqtt",
        f"mqtt://{mosquitto.host}:{mosquitto.port}",
        "--http",
        f"127.0.0.1:{port}",
    ]
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        service = subprocess.Popen(
            [sys.executable, "-m", "tests.unit_sandbox", str(UNIT), "--", *command],
            cwd=REPO,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        answer = None
        while answer is None:
            assert service.poll() is None, log.read_text("utf-8", "replace")
            assert time.monotonic() < deadline, "the sandboxed service did not answer"
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.get(f"http://127.0.0.1:{port}/api/records", timeout=2)
            if answer is None:
                time.sleep(0.05)
        assert answer.status_code == 200
        assert answer.headers["x-content-type-options"] == "nosniff"
        service.terminate()  # systemctl stop: death by SIGTERM is a clean stop there
        assert service.wait(30) in (0, -signal.SIGTERM)
    finally:
        if service.poll() is None:
            service.kill()
            service.wait(10)
    text = log.read_text("utf-8", "replace")
    assert "Traceback" not in text and "not permitted" not in text, text
