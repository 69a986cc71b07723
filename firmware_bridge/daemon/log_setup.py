"""How ``oche`` logs: one line per record on stderr, with its level name, at
the level of ``--log-level`` or the config's ``[log] level`` (default info).

Under systemd, when stderr is the journal (``$JOURNAL_STREAM`` names it),
each line starts with an sd-daemon priority prefix such as ``<4>``, which
journald turns into the record's priority, so ``journalctl -p warning`` works.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

__all__ = [
    "DEFAULT_LOG_LEVEL",
    "LOG_LEVELS",
    "LogLevelParser",
    "for_journal",
    "log_level",
    "set_log_level",
    "setup_logging",
    "stderr_is_journal",
    "use_config_level",
]

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
"""The level names ``--log-level`` and ``[log] level`` take (any case)."""
DEFAULT_LOG_LEVEL = "info"

_PRIORITIES = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}
"""syslog priorities (sd-daemon(3)) of the logging levels."""

_QUIET_LIBRARIES = ("amqtt", "transitions")
"""Libraries whose INFO lines are their internals (amqtt's listeners and
sessions): shown only at debug level."""


def stderr_is_journal(env: Mapping[str, str] | None = None) -> bool:
    """Whether stderr is systemd's journal stream: ``$JOURNAL_STREAM`` is its
    ``device:inode``, which a shell redirection in between no longer matches."""
    stream = (os.environ if env is None else env).get("JOURNAL_STREAM", "")
    device, _, inode = stream.partition(":")
    try:
        status = os.fstat(sys.stderr.fileno())
        return (status.st_dev, status.st_ino) == (int(device), int(inode))
    except (ValueError, OSError, AttributeError):
        return False


def _priority(level: int) -> int:
    """The syslog priority of ``level``: that of the closest standard level below."""
    priority = 7
    for standard, value in sorted(_PRIORITIES.items()):
        if level >= standard:
            priority = value
    return priority


def _prefixed(level: int, text: str) -> str:
    """Each line of ``text`` after the ``<N>`` priority prefix of ``level``."""
    prefix = f"<{_priority(level)}>"
    return "".join(prefix + line for line in text.splitlines(keepends=True))


def for_journal(level: int, text: str) -> str:
    """``text`` to write on stderr at ``level``: each line with its priority
    prefix when stderr is the journal, else unchanged."""
    return _prefixed(level, text) if stderr_is_journal() else text


class _Formatter(logging.Formatter):
    """``oche: LEVEL logger: message``, after a journal priority prefix when
    stderr is the journal; a traceback's lines keep the record's priority."""

    def __init__(self, journal: bool) -> None:
        super().__init__("oche: %(levelname)s %(name)s: %(message)s")
        self.journal = journal

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return _prefixed(record.levelno, text) if self.journal else text


def log_level(text: str) -> str:
    """A level name, lower-cased; for argparse (``--log-level``)."""
    name = text.strip().lower()
    if name not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a log level; use one of {', '.join(LOG_LEVELS)}"
        )
    return name


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes each record to ``sys.stderr`` as it is when the record comes, not
    to the stream of the moment it was set up: a handler that outlives its
    stream (``main()`` run in-process by a test whose captured stderr is
    closed since, or stderr replaced while running) would fail on every record."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        """Ignored: the stream is always the current ``sys.stderr``."""


def setup_logging(level: str | None = None) -> None:
    """Log to stderr from ``level`` up (default :data:`DEFAULT_LOG_LEVEL`):
    called once, before a command runs."""
    handler = _StderrHandler()
    handler.setFormatter(_Formatter(stderr_is_journal()))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    set_log_level(level or DEFAULT_LOG_LEVEL)


def set_log_level(level: str) -> None:
    """Log from ``level`` up (a name of :data:`LOG_LEVELS`)."""
    number = logging.getLevelName(level.upper())
    logging.getLogger().setLevel(number)
    for library in _QUIET_LIBRARIES:
        quiet = number if number <= logging.DEBUG else max(number, logging.WARNING)
        logging.getLogger(library).setLevel(quiet)


class LogLevelParser(argparse.ArgumentParser):
    """An argument parser that takes ``--log-level``, as does each of its
    sub-commands (argparse builds a sub-command's parser with its parent's
    class), so the option may come before or after a command name
    (``args.log_level``: ``None`` when not given). Only the top parser sets the
    default; a sub-command keeps the top's value."""

    def __init__(self, *args: Any, top: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_argument(
            "--log-level",
            type=log_level,
            metavar="LEVEL",
            default=None if top else argparse.SUPPRESS,
            help=f"log from this level up: {', '.join(LOG_LEVELS)} "
            "(default: the config's [log] level, else info)",
        )


def use_config_level(given: str | None, configured: str) -> None:
    """After a command read its config: the config's ``[log] level`` applies
    unless ``--log-level`` was ``given``."""
    if given is None:
        set_log_level(configured)
