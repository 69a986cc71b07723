"""Where the config file is found (``--config``, ``$OCHE_CONFIG``, XDG,
``/etc/oche``) and reading it from disk into :func:`parse_config`."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from firmware_bridge.daemon.config.errors import ConfigError
from firmware_bridge.daemon.config.files import xdg_dir
from firmware_bridge.daemon.config.parsing import parse_config
from firmware_bridge.daemon.config.sections import Config

__all__ = ["config_search_path", "load_config"]

log = logging.getLogger("firmware_bridge.daemon.config")
"""The package's logger (its name is the one the log lines have always shown)."""


def config_search_path(env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the config file is looked for, in order: ``$OCHE_CONFIG`` (when
    set), ``$XDG_CONFIG_HOME/oche/oche.toml`` (default ``~/.config``), then
    ``/etc/oche/oche.toml``. ``env`` defaults to ``os.environ``."""
    env = os.environ if env is None else env
    paths = []
    if env.get("OCHE_CONFIG"):
        paths.append(Path(os.path.expanduser(env["OCHE_CONFIG"])))
    config_home = xdg_dir(env, "XDG_CONFIG_HOME", ".config")
    if config_home is not None:
        paths.append(config_home / "oche" / "oche.toml")
    paths.append(Path("/etc/oche/oche.toml"))
    return paths


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # e.g. a directory we may not search: let reading say so
        return True


def load_config(
    path: str | None = None,
    overrides: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> Config:
    """The config from ``path`` (``--config``: it must exist), else from the
    first existing file of :func:`config_search_path`, else the defaults; then
    ``overrides`` (``--set section.key=value``) on top. Raises
    :class:`ConfigError` listing every problem."""
    if path is not None:
        file = Path(os.path.expanduser(path))
        if not _exists(file):
            raise ConfigError("no such config file", origin=path)
    else:
        search = config_search_path(env)
        found = [candidate for candidate in search if _exists(candidate)]
        if env is None:
            env = os.environ
        if env.get("OCHE_CONFIG") and search[0] not in found:
            log.warning("OCHE_CONFIG names %s, which does not exist", search[0])
        if not found:
            return parse_config("", "defaults", overrides)
        file = found[0]
    origin = str(file)
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror or error}", origin=origin) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"not UTF-8 text (bad byte at offset {error.start})", origin=origin
        ) from None
    return parse_config(text, origin, overrides, base_dir=file.parent)
