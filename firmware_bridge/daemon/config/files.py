"""The files a config points at beyond itself: the XDG base directories
(``$XDG_CONFIG_HOME``, ``$XDG_STATE_HOME``, else under ``~``) and password
files, read with a :class:`ConfigError` naming the key when they cannot be."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from firmware_bridge.daemon.config.errors import ConfigError

__all__ = ["read_password", "xdg_dir"]


def _home(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME")
    if home and os.path.isabs(home):
        return Path(home)
    try:
        return Path.home()
    except RuntimeError:
        return None


def xdg_dir(env: Mapping[str, str], variable: str, default: str) -> Path | None:
    """``$variable`` if set to an absolute path (as the XDG spec says), else ``~/default``."""
    value = env.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value)
    home = _home(env)
    return home / default if home is not None else None


def read_password(password_file: str, key: str) -> str | None:
    """The password in ``password_file`` without its trailing newline, ``None``
    without a file; a :class:`ConfigError` naming ``key`` when it cannot be read."""
    if not password_file:
        return None
    path = os.path.expanduser(password_file)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError(f"{key}: cannot read {path}: {reason}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{key}: {path} is not UTF-8 text") from None
    password = text.rstrip("\r\n")
    if not password:
        raise ConfigError(f"{key}: {path} is empty")
    return password
