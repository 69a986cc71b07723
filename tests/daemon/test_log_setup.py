"""How ``oche`` logs (firmware_bridge/daemon/log_setup.py)."""

from __future__ import annotations

import io
import logging
import sys

import pytest

from firmware_bridge.daemon.log_setup import setup_logging


def test_records_go_to_stderr_as_it_is_when_they_come(monkeypatch: pytest.MonkeyPatch) -> None:
    """A handler set up while stderr was one stream keeps working once that
    stream is closed and stderr is another: each record goes to the stderr of
    its moment, and none fails with "I/O operation on closed file"."""
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    setup_logging("info")
    logging.getLogger("oche.test").info("one")
    first.close()
    second = io.StringIO()
    monkeypatch.setattr(sys, "stderr", second)
    logging.getLogger("oche.test").warning("two")
    assert "INFO oche.test: one" not in second.getvalue()
    assert "WARNING oche.test: two" in second.getvalue()
    assert "Logging error" not in second.getvalue()
