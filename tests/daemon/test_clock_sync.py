"""Whether the board's clock tells the date (``firmware_bridge.daemon.clock_sync``):
the floor, the kernel's word where an NTP client runs, timesyncd's file where
a sandbox hides the kernel, and nothing but the floor where no NTP client
runs (a container or a virtual machine whose host keeps the clock)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from firmware_bridge.daemon import clock_sync
from firmware_bridge.daemon.clock_sync import (
    CLOCK_FLOOR,
    clock_synced,
    kernel_synchronised,
    ntp_synchronised,
)
from mqtt_contract import LATEST_TIMESTAMP


def unsynced() -> bool | None:
    return False


def synced() -> bool | None:
    return True


def hidden() -> bool | None:
    return None  # a sandbox answering EPERM


def test_the_kernel_answers_here() -> None:
    assert kernel_synchronised() in (True, False)  # Linux: read only, no privilege


def test_without_an_ntp_client_nothing_says_the_clock_is_wrong(tmp_path: Path) -> None:
    assert ntp_synchronised(tmp_path, unsynced) is None


@pytest.mark.parametrize("marker", ["systemd/timesync", "chrony", "ntpd.pid"])
def test_where_an_ntp_client_runs_the_kernel_decides(tmp_path: Path, marker: str) -> None:
    (tmp_path / marker).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / marker).mkdir() if marker != "ntpd.pid" else (tmp_path / marker).write_text("1")
    assert ntp_synchronised(tmp_path, unsynced) is False
    assert ntp_synchronised(tmp_path, synced) is True


def test_a_sandbox_hiding_the_kernel_leaves_it_to_timesyncds_file(tmp_path: Path) -> None:
    (tmp_path / "systemd" / "timesync").mkdir(parents=True)
    assert ntp_synchronised(tmp_path, hidden) is False  # timesyncd runs, not synchronised yet
    (tmp_path / "systemd" / "timesync" / "synchronized").touch()
    assert ntp_synchronised(tmp_path, hidden) is True


def test_chrony_behind_a_sandbox_cannot_tell(tmp_path: Path) -> None:
    (tmp_path / "chrony").mkdir()
    assert ntp_synchronised(tmp_path, hidden) is None


def test_a_time_before_the_floor_or_after_the_bound_is_no_date(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(clock_sync, "ntp_synchronised", lambda: None)
    assert clock_synced(time.time())
    assert not clock_synced(86_400.0)  # 1970-01-02: a Raspberry Pi before NTP answered
    assert not clock_synced(CLOCK_FLOOR - 1)
    assert clock_synced(CLOCK_FLOOR)
    assert not clock_synced(LATEST_TIMESTAMP)
    monkeypatch.setattr(clock_sync, "ntp_synchronised", lambda: False)
    assert not clock_synced(time.time())  # plausible, but NTP has not answered yet


def test_this_machines_answer_is_worked_out_at_most_once_a_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon asks with every state it builds (every dart): the file checks
    and the system call behind the answer run once a second at most."""
    worked_out: list[bool | None] = []
    answers = iter([True, False])

    def answer(run: Path, kernel: object) -> bool | None:
        worked_out.append(next(answers))
        return worked_out[-1]

    now = [1_000.0]
    monkeypatch.setattr(clock_sync, "_ntp_answer", answer)
    monkeypatch.setattr(clock_sync, "_asked", None)
    monkeypatch.setattr(clock_sync.time, "monotonic", lambda: now[0])
    assert ntp_synchronised() is True
    now[0] += 0.9
    assert ntp_synchronised() is True  # kept
    assert worked_out == [True]
    now[0] += 0.2
    assert ntp_synchronised() is False  # a second later: asked again
    assert worked_out == [True, False]
