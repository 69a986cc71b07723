"""Oche's MQTT contract: the broker address, topics, payload schemas and
commands. The daemon, its config loader and the display all read URLs, bases
and board ids here, so what one takes, the others take. Home Assistant
discovery is the daemon's (firmware_bridge/daemon/home_assistant.py).

Every board publishes under ``{base}/{board}/`` (zigbee2mqtt style)::

    {base}/{board}/state          retained, QoS 1: the game state plus "board" and "phase"
    {base}/{board}/event          QoS 1: one message per thing that happened
    {base}/{board}/availability   retained, QoS 1: "online" / "offline" (plain strings)
    {base}/{board}/instance       retained, QoS 1: which daemon is the board's (host, pid)
    {base}/{board}/cmd            QoS 1: commands to the board (JSON objects)
    {base}/{board}/cmd/response   QoS 1: the answer to each command
    {base}/{board}/result         QoS 1: finished games, at least once (dedupe by result_id)
    {base}/{board}/result/stored  QoS 1, from a leaderboard: this result is in its database

The leaderboard service (``oche leaderboard serve``) publishes two topics of its
own, outside every board's subtree (so ``leaderboard`` is not a board id)::

    {base}/leaderboard/{game}     retained, QoS 1: the game's top 10 and the day's records
    {base}/leaderboard/availability/{instance}   retained: "online" / "offline"

:data:`TOPICS` maps each topic name to its retain flag, QoS and the JSON Schema
(draft 2020-12) of its payload; ``docs/mqtt.md`` prints those schemas. This
module is pure: it does no I/O. :mod:`firmware_bridge.daemon.mqtt_link` moves the
bytes.

Its own top-level package, so the daemon, the display, the leaderboard and the
CLI all import it and it imports none of them (only ``engine``). One module per
part: ``topic_names`` (levels, board ids, bases, phases), ``broker`` (URLs),
``schema_parts``, one ``*_payload`` module per topic's schema, ``topics`` (the
map), ``commands`` (parsing), ``remote`` (a remote match's messages),
``remote_protocol`` (its actions, refusals, match record and board entries as
types), ``state_views`` (a state payload parsed into the typed views clients
read). Import every public name from here.
"""

from __future__ import annotations

from mqtt_contract.broker import DEFAULT_PORTS, BrokerAddress, BrokerUrlError, parse_broker_url
from mqtt_contract.command_payload import COMMANDS
from mqtt_contract.commands import (
    Command,
    CommandError,
    parse_command,
    parse_operator_command,
    response_payload,
)
from mqtt_contract.event_payload import CREDIT_SOURCES, EVENT_TYPES, OPERATOR_COMMANDS
from mqtt_contract.leaderboard_payload import (
    LEADERBOARD_TOP,
    LEADERBOARD_TOPIC,
    PERIODS,
    Period,
    leaderboard_availability_topic,
    leaderboard_topic,
)
from mqtt_contract.remote import (
    END_REASONS,
    GUEST_MESSAGE_TYPES,
    HOST_MESSAGE_TYPES,
    MAX_REMOTE_BYTES,
    REMOTE_ACTIONS,
    REMOTE_MESSAGE_TYPES,
    REMOTE_TOPIC,
    REMOTE_TOPIC_SPEC,
    RemoteMessageError,
    allow_problem,
    host_allowed,
    invitation_filters,
    parse_remote_message,
    remote_payload,
    remote_topic,
)
from mqtt_contract.remote_protocol import (
    ActionMessage,
    BoardEntry,
    EndMessage,
    EndReason,
    JoinedMessage,
    JoinMessage,
    LeaveMessage,
    MatchPlayer,
    MatchRecord,
    MessageType,
    RefusalReason,
    RefusedMessage,
    RemoteAction,
    RemoteMessage,
    RemoteRefusal,
)
from mqtt_contract.result_payload import RESULT_STORED_STATUSES, result_document
from mqtt_contract.schema_parts import LATEST_TIMESTAMP
from mqtt_contract.state_payload import CPU_AVERAGES, DART_SOURCES, cpu_label
from mqtt_contract.state_views import (
    BoardView,
    CheckoutAdvice,
    CountedTiles,
    CpuView,
    CreditsView,
    CribbagePlay,
    CribbagePlayer,
    CribbageScoring,
    CribbageTable,
    JournalView,
    LastVisit,
    PlayerView,
    RemoteBoard,
    RemoteView,
    SkillReport,
    StateView,
    StatsView,
    TeamView,
    TilePlay,
)
from mqtt_contract.topic_names import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    BASE_PATTERN,
    BOARD_ID_PATTERN,
    BOARD_STATUSES,
    COMMAND_TOPIC,
    JOURNAL_STATUSES,
    LEADERBOARD_LEVEL,
    MATCH_ID_PATTERN,
    MAX_COMMAND_BYTES,
    MAX_TOPIC_LEVEL,
    NOT_YOUR_TURN,
    PHASES,
    REMOTE_LEVEL,
    TOPIC_NAMES,
    WAITING_REMOTE,
    BoardAddress,
    Phase,
    base_problem,
    board_id_problem,
    check_base,
    check_board_id,
    check_subtopic,
    topic,
)
from mqtt_contract.topics import TOPICS, TopicSpec

__all__ = [
    "AVAILABILITY_OFFLINE",
    "AVAILABILITY_ONLINE",
    "BASE_PATTERN",
    "BOARD_ID_PATTERN",
    "BOARD_STATUSES",
    "COMMANDS",
    "COMMAND_TOPIC",
    "CPU_AVERAGES",
    "CREDIT_SOURCES",
    "DART_SOURCES",
    "DEFAULT_PORTS",
    "END_REASONS",
    "EVENT_TYPES",
    "GUEST_MESSAGE_TYPES",
    "HOST_MESSAGE_TYPES",
    "JOURNAL_STATUSES",
    "LATEST_TIMESTAMP",
    "LEADERBOARD_LEVEL",
    "LEADERBOARD_TOP",
    "LEADERBOARD_TOPIC",
    "MATCH_ID_PATTERN",
    "MAX_COMMAND_BYTES",
    "MAX_REMOTE_BYTES",
    "MAX_TOPIC_LEVEL",
    "NOT_YOUR_TURN",
    "OPERATOR_COMMANDS",
    "PERIODS",
    "PHASES",
    "REMOTE_ACTIONS",
    "REMOTE_LEVEL",
    "REMOTE_MESSAGE_TYPES",
    "REMOTE_TOPIC",
    "REMOTE_TOPIC_SPEC",
    "RESULT_STORED_STATUSES",
    "TOPICS",
    "TOPIC_NAMES",
    "WAITING_REMOTE",
    "ActionMessage",
    "BoardAddress",
    "BoardEntry",
    "BoardView",
    "BrokerAddress",
    "BrokerUrlError",
    "CheckoutAdvice",
    "Command",
    "CommandError",
    "CountedTiles",
    "CpuView",
    "CreditsView",
    "CribbagePlay",
    "CribbagePlayer",
    "CribbageScoring",
    "CribbageTable",
    "EndMessage",
    "EndReason",
    "JoinMessage",
    "JoinedMessage",
    "JournalView",
    "LastVisit",
    "LeaveMessage",
    "MatchPlayer",
    "MatchRecord",
    "MessageType",
    "Period",
    "Phase",
    "PlayerView",
    "RefusalReason",
    "RefusedMessage",
    "RemoteAction",
    "RemoteBoard",
    "RemoteMessage",
    "RemoteMessageError",
    "RemoteRefusal",
    "RemoteView",
    "SkillReport",
    "StateView",
    "StatsView",
    "TeamView",
    "TilePlay",
    "TopicSpec",
    "allow_problem",
    "base_problem",
    "board_id_problem",
    "check_base",
    "check_board_id",
    "check_subtopic",
    "cpu_label",
    "host_allowed",
    "invitation_filters",
    "leaderboard_availability_topic",
    "leaderboard_topic",
    "parse_broker_url",
    "parse_command",
    "parse_operator_command",
    "parse_remote_message",
    "remote_payload",
    "remote_topic",
    "response_payload",
    "result_document",
    "topic",
]
