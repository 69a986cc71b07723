"""The daemon's one config file: TOML, thirteen sections, every setting has a default.

Three tables sit inside sections: ``[board.firmware]``, the firmware settings
(docs/protocol.md#settings) the daemon sends a serial board at each connect,
and ``[leaderboard.venues]`` and ``[leaderboard.timezones]``, which board is in
which venue and each venue's time zone.

The file is looked for at ``--config FILE``, else ``$OCHE_CONFIG``,
``$XDG_CONFIG_HOME/oche/oche.toml`` (default ``~/.config``) and
``/etc/oche/oche.toml``, first found wins; with none the defaults are used.
``--set section.key=value`` options are applied on top of the file.

Loading checks everything at once and raises one :class:`ConfigError` listing
every problem as ``key.path: what is wrong``; bad input never raises anything
else. Relative paths in a file are relative to that file's directory, ``~`` is
expanded. ``docs/config.md`` documents every key.

The modules, each importing only those above it: ``errors`` (``ConfigError``,
the problem list and how a value is worded in a message), ``files`` (the XDG
directories, password files), ``sections`` (the thirteen sections' dataclasses,
``Config`` and ``SECTIONS``), ``schema`` (each key's type, the path keys, what
an unknown key or section is told), ``toml_values`` (TOML syntax errors, a
value checked against its key's type, a ``--set`` value read), ``overrides``
(``--set`` applied), ``table_checks`` (``[board.firmware]`` and
``[[credits.happy_hour]]``), ``value_checks`` (each key's own check),
``cross_checks`` (the board's protocol preset and the checks of several keys),
``parsing`` (:func:`parse_config`) and ``loading`` (the search path and
:func:`load_config`). Import the names below from this package.
"""

from __future__ import annotations

from firmware_bridge.daemon.config.errors import ConfigError
from firmware_bridge.daemon.config.loading import config_search_path, load_config
from firmware_bridge.daemon.config.parsing import parse_config
from firmware_bridge.daemon.config.sections import (
    SECTIONS,
    USB_REPORTS,
    BoardConfig,
    BotConfig,
    CardsConfig,
    Config,
    CreditsConfig,
    DisplayConfig,
    HomeAssistantConfig,
    JournalConfig,
    LeaderboardConfig,
    LogConfig,
    MqttConfig,
    OperatorConfig,
    RemoteConfig,
    VisitConfig,
)

__all__ = [
    "SECTIONS",
    "USB_REPORTS",
    "BoardConfig",
    "BotConfig",
    "CardsConfig",
    "Config",
    "ConfigError",
    "CreditsConfig",
    "DisplayConfig",
    "HomeAssistantConfig",
    "JournalConfig",
    "LeaderboardConfig",
    "LogConfig",
    "MqttConfig",
    "OperatorConfig",
    "RemoteConfig",
    "VisitConfig",
    "config_search_path",
    "load_config",
    "parse_config",
]
