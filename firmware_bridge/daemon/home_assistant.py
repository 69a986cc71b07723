"""Home Assistant MQTT discovery for one board: the retained configuration
messages that make a board a device with its sensors (game, current player,
last dart, phase, the journal's health, one score per player; a coin-operated
board's credits and the day's coins while it charges for games; a match's
legs as the game sensor's attributes; an event entity firing each award,
docs/awards.md), and the
removals that clear the score sensors a smaller game no longer has and the
credits sensors of a board on free play. Pure: the discovery extension
(:mod:`firmware_bridge.daemon.extensions.ha_discovery`) publishes them.
See docs/mqtt.md (Home Assistant)."""

from __future__ import annotations

from typing import Any

from engine.awards import AWARD_IDS
from engine.lineup import MAX_PLAYERS
from mqtt_contract import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    base_problem,
    check_board_id,
    topic,
)

__all__ = [
    "AWARD_EVENT",
    "AWARD_EVENT_TEMPLATE",
    "CREDITS_SENSORS",
    "DEFAULT_DISCOVERY_PREFIX",
    "DISCOVERY_SENSORS",
    "JOURNAL_SENSOR",
    "MATCH_ATTRIBUTES",
    "UNKNOWN",
    "discovery_messages",
    "discovery_removals",
]

DEFAULT_DISCOVERY_PREFIX = "homeassistant"

UNKNOWN = "unknown"
"""What a text sensor's template renders where there is no value: Home
Assistant's unknown state, which a text sensor's state is when that is its
text. Not ``None``: Home Assistant 2024.3, for one, shows the text "None" on a
sensor without a unit, state class or device class (only a numeric sensor
takes "None" for unknown there), so the numeric credits sensors alone render it."""

# Every template reads the state through value_json.get() and tests before it
# indexes, so no state (idle, throwing, takeout, finished) makes Home Assistant
# log "Template variable warning: 'dict object' has no attribute ...".
DISCOVERY_SENSORS: dict[str, tuple[str, str, str]] = {
    # what: (name, icon, value_template over the state JSON)
    "game": ("Game", "mdi:bullseye-arrow", "{{ value_json.get('game') or 'unknown' }}"),
    "current_player": (
        "Current player",
        "mdi:account",
        "{% set players = value_json.get('players') or [] %}"
        "{% set current = value_json.get('current_player') %}"
        "{% if current is integer and current < players | length %}"
        "{{ players[current].get('name') or 'unknown' }}"
        "{% else %}unknown{% endif %}",
    ),
    "last_dart": (
        "Last dart",
        "mdi:target",
        "{% set visit = value_json.get('visit') or [] %}"
        "{% set last_visit = value_json.get('last_visit') or {} %}"
        "{% set last_darts = last_visit.get('darts') or [] %}"
        "{% if visit %}{{ visit[-1] }}"
        "{% elif last_darts %}{{ last_darts[-1] }}"
        "{% else %}unknown{% endif %}",
    ),
    "phase": ("Phase", "mdi:progress-clock", "{{ value_json.get('phase') or 'unknown' }}"),
}
"""The board-wide sensors; one ``score_<i>`` sensor per player is added."""

MATCH_ATTRIBUTES = (
    "{% set match = value_json.get('match') or {} %}"
    "{% if match %}"
    "{{ {'legs': (match.get('legs_won') or []) | join('-'), 'sets_won': match.get('sets_won'), "
    "'leg': match.get('leg'), 'set': match.get('set')} | tojson }}"
    "{% else %}{}{% endif %}"
)
"""The ``game`` sensor's attributes in a match (the state's ``match``): the
legs won per side as ``2-1`` (in this set, with sets), the sets won, and the
leg and set being played; none for a single game."""

JOURNAL_SENSOR: tuple[str, str, str, str] = (
    # name, icon, value_template, json_attributes_template
    "Journal",
    "mdi:database-check",
    "{% set journal = value_json.get('journal') or {} %}{{ journal.get('status') or 'unknown' }}",
    "{% set journal = value_json.get('journal') or {} %}"
    "{% if journal %}"
    "{{ {'message': journal.get('message'), 'salvaged': journal.get('salvaged')} | tojson }}"
    "{% else %}{}{% endif %}",
)
"""The journal's health (the state's ``journal``): ``ok``, ``full`` or
``failing``, with the line a screen shows (``message``) and a salvage's
(``salvaged``) as attributes, so a phone can say the darts are not counted."""

CREDITS_SENSORS: dict[str, tuple[str, str, str, str, dict[str, Any]]] = {
    # what: (name, icon, topic name, value_template, extra config)
    "credits": (
        "Credits",
        "mdi:cash-multiple",
        "state",
        "{% set credits = value_json.get('credits') or {} %}"
        "{% if credits.get('credits') is integer %}{{ credits.get('credits') }}"
        "{% else %}None{% endif %}",
        {"state_class": "measurement", "unit_of_measurement": "credits"},
    ),
    "coins_today": (
        "Coins today",
        "mdi:hand-coin",
        "state",
        "{% set credits = value_json.get('credits') or {} %}"
        "{% if credits.get('coins_today') is integer %}{{ credits.get('coins_today') }}"
        "{% else %}None{% endif %}",
        {"state_class": "total_increasing", "unit_of_measurement": "coins"},
    ),
}
"""A coin-operated board's sensors, both from the state's ``credits``: the
credits held and the coin pulses since the local midnight (Home Assistant
never reads the books, which are the operator's alone). Numbers (a unit and a
state class), so their templates give ``None`` for no value, which a numeric
sensor takes for unknown. They exist while the board charges for games: on
free play :func:`discovery_removals` removes them."""


def _player_template(index: int, found: str, missing: str) -> str:
    """A template giving ``found`` (over ``player``, the state's player ``index``)
    when the state has that player, else ``missing``."""
    return (
        "{% set players = value_json.get('players') or [] %}"
        f"{{% if players | length > {index} %}}{{% set player = players[{index}] %}}{found}"
        f"{{% else %}}{missing}{{% endif %}}"
    )


def _score_template(index: int) -> str:
    return _player_template(
        index,
        "{% set score = player.get('score') %}{{ 'unknown' if score is none else score }}",
        UNKNOWN,
    )


def _score_attributes_template(index: int) -> str:
    return _player_template(index, "{{ {'player': player.get('name')} | tojson }}", "{}")


def _check_prefix(prefix: str) -> None:
    if not isinstance(prefix, str) or base_problem(prefix) is not None:
        raise ValueError(f"bad discovery prefix {prefix!r}")


AWARD_EVENT = "award"
"""The award event entity's ``what``: ``event.oche_<board>_award``."""

AWARD_EVENT_TEMPLATE = (
    "{% if value_json.get('type') == 'award' %}"
    "{{ {'event_type': value_json.get('award'), 'player': value_json.get('player'), "
    "'name': value_json.get('name'), 'darts': value_json.get('darts'), "
    "'points': value_json.get('points'), 'marks': value_json.get('marks'), "
    "'game': value_json.get('game')} | tojson }}"
    "{% endif %}"
)
"""The award entity's template over the ``event`` topic: an ``award`` event
as Home Assistant's event payload (its ``event_type`` the award's id, the
rest attributes); any other event renders empty, which Home Assistant ignores."""


def _discovery_topic(prefix: str, board_id: str, what: str, component: str = "sensor") -> str:
    return f"{prefix}/{component}/oche_{board_id}/{what}/config"


def _object_id(board_id: str, what: str) -> str:
    """The entity id without its domain, as Home Assistant would slug it."""
    return f"oche_{board_id}_{what}".lower().replace("-", "_")


def discovery_messages(
    prefix: str,
    base: str,
    board_id: str,
    board_name: str,
    player_count: int,
    credits: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """Home Assistant MQTT discovery: ``(topic, config)`` pairs to publish
    retained. One device per board with the sensors game, current_player,
    last_dart, phase, journal and score_0 .. score_<player_count - 1>, all reading the
    state topic and unavailable while the availability topic says offline.
    They are text sensors (no state_class, no unit): a score is not a
    measurement to keep long-term statistics of. A board that charges for
    games (``credits``) also gets the numeric sensors of :data:`CREDITS_SENSORS`."""
    _check_prefix(prefix)
    if not 0 <= player_count <= MAX_PLAYERS:
        raise ValueError(f"player_count must be 0 to {MAX_PLAYERS}, got {player_count}")
    state_topic = topic(base, board_id, "state")
    availability_topic = topic(base, board_id, "availability")
    device = {
        "identifiers": [f"oche_{board_id}"],
        "name": board_name,
        "manufacturer": "Oche",
        "model": "Soft-tip dartboard",
    }
    match_attributes = {
        "json_attributes_topic": state_topic,
        "json_attributes_template": MATCH_ATTRIBUTES,
    }
    sensors: list[tuple[str, str, str, str, dict[str, Any]]] = [
        (what, name, icon, template, match_attributes if what == "game" else {})
        for what, (name, icon, template) in DISCOVERY_SENSORS.items()
    ]
    name, icon, template, attributes = JOURNAL_SENSOR
    sensors.append(
        (
            "journal",
            name,
            icon,
            template,
            {"json_attributes_topic": state_topic, "json_attributes_template": attributes},
        )
    )
    for index in range(player_count):
        sensors.append(
            (
                f"score_{index}",
                f"Player {index + 1} score",
                "mdi:scoreboard",
                _score_template(index),
                {
                    "json_attributes_topic": state_topic,
                    "json_attributes_template": _score_attributes_template(index),
                },
            )
        )
    if credits:
        for what, (name, icon, source, template, extra) in CREDITS_SENSORS.items():
            sensors.append(
                (
                    what,
                    name,
                    icon,
                    template,
                    {"state_topic": topic(base, board_id, source), **extra},
                )
            )
    messages = []
    for what, name, icon, template, extra in sensors:
        config: dict[str, Any] = {
            "name": name,
            "unique_id": f"oche_{board_id}_{what}",
            # Each version takes the key it knows: default_entity_id from
            # Home Assistant 2025.10 on (which then does not warn about
            # object_id); object_id before (whose discovery schemas drop
            # unknown keys such as default_entity_id); 2026.4 removed
            # object_id and ignores it.
            "default_entity_id": f"sensor.{_object_id(board_id, what)}",
            "object_id": _object_id(board_id, what),
            "has_entity_name": True,
            "icon": icon,
            "state_topic": state_topic,
            "value_template": template,
            **extra,
            "availability_topic": availability_topic,
            "payload_available": AVAILABILITY_ONLINE,
            "payload_not_available": AVAILABILITY_OFFLINE,
            "qos": 1,
            "device": device,
            "origin": {"name": "Oche"},
        }
        messages.append((_discovery_topic(prefix, board_id, what), config))
    messages.append(_award_event(prefix, base, board_id, device))
    return messages


def _award_event(
    prefix: str, base: str, board_id: str, device: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The discovery of the event entity that fires once per award a visit
    earns (``ton-80``, ``hat-trick``, ...), read from the ``event`` topic."""
    config: dict[str, Any] = {
        "name": "Award",
        "unique_id": f"oche_{board_id}_{AWARD_EVENT}",
        "default_entity_id": f"event.{_object_id(board_id, AWARD_EVENT)}",
        "object_id": _object_id(board_id, AWARD_EVENT),
        "has_entity_name": True,
        "icon": "mdi:trophy",
        "state_topic": topic(base, board_id, "event"),
        "event_types": list(AWARD_IDS),
        "value_template": AWARD_EVENT_TEMPLATE,
        "availability_topic": topic(base, board_id, "availability"),
        "payload_available": AVAILABILITY_ONLINE,
        "payload_not_available": AVAILABILITY_OFFLINE,
        "qos": 1,
        "device": device,
        "origin": {"name": "Oche"},
    }
    return _discovery_topic(prefix, board_id, AWARD_EVENT, "event"), config


def discovery_removals(
    prefix: str,
    board_id: str,
    player_count: int,
    previous_count: int | None = None,
    *,
    credits: bool = False,
) -> list[tuple[str, str]]:
    """``(topic, "")`` pairs to publish retained: the empty payload removes the
    score sensors of players ``player_count`` .. ``previous_count - 1`` (those a
    smaller game no longer has) and, with ``credits``, the sensors of
    :data:`CREDITS_SENSORS` (a board gone to free play). ``previous_count`` None
    (not known, e.g. after a restart) clears every score sensor a board could
    have had from ``player_count`` on; removing a sensor that never existed
    does nothing."""
    _check_prefix(prefix)
    check_board_id(board_id)
    if not 0 <= player_count <= MAX_PLAYERS:
        raise ValueError(f"player_count must be 0 to {MAX_PLAYERS}, got {player_count}")
    previous = MAX_PLAYERS if previous_count is None else previous_count
    if not 0 <= previous <= MAX_PLAYERS:
        raise ValueError(f"previous_count must be 0 to {MAX_PLAYERS}, got {previous_count}")
    removed = [f"score_{index}" for index in range(player_count, previous)]
    if credits:
        removed.extend(CREDITS_SENSORS)
    return [(_discovery_topic(prefix, board_id, what), "") for what in removed]
