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
``json_types`` (a typed payload's schema, ``from_json`` and ``to_json``, read
from its type hints), ``schema_parts``, one ``*_payload`` module per topic (its
types, or its schema where it is not typed yet: the state's, built on the
engine's), ``topics`` (the map), ``commands`` (parsing a ``cmd`` payload into
its typed command, a :data:`GameCommand`, and an ``operator/cmd`` one into an
:data:`OperatorCommand`), ``remote`` (a remote
match's messages), ``remote_protocol`` (its actions, refusals, match record
and board entries as types), ``state_views`` (a state payload parsed once into
the typed views clients read). Import every public name from here.

Adding a command: one class in ``command_payload`` (or ``operator_payload``
for the operator's), subclassing ``CommandBase`` with its name and its
arguments as annotated fields, added to ``COMMAND_CLASSES`` and the
``GameCommand`` union; its schema, its argument list and docs/mqtt.md
(``python -m tests.mqtt_doc``) follow from the class, ``commands`` checks
what the schema cannot say, and mypy then names every ``match`` on
``GameCommand`` (``assert_never``) that must handle it.
"""

from __future__ import annotations

from mqtt_contract.broker import DEFAULT_PORTS, BrokerAddress, BrokerUrlError, parse_broker_url
from mqtt_contract.command_payload import (
    COMMAND_CLASSES,
    COMMANDS,
    BounceOut,
    CommandBase,
    CommandResponse,
    CpuAverage,
    CpuPlayer,
    EndGame,
    GameCommand,
    LocalPlayer,
    Miss,
    NewGame,
    Next,
    Rematch,
    RemotePlayer,
    ThrowDart,
    Undo,
)
from mqtt_contract.commands import (
    CommandError,
    parse_command,
    parse_operator_command,
    response_payload,
)
from mqtt_contract.event_payload import (
    CREDIT_SOURCES,
    EVENT_CLASSES,
    EVENT_TYPES,
    OPERATOR_COMMANDS,
    BatteryLevel,
    BoardConnected,
    BoardDisconnected,
    Bounce,
    Bust,
    ButtonPressed,
    CreditsChanged,
    DaemonEvent,
    Dart,
    ErrorReported,
    EventTeam,
    GameOver,
    GameStarted,
    Ignored,
    PlayerChange,
    Points,
    Released,
    Stuck,
    Takeout,
    TakeoutSensed,
    Undone,
    VisitEnd,
    Winner,
    event_teams,
    parse_event_payload,
)
from mqtt_contract.json_types import JsonObject, Meta, PayloadError
from mqtt_contract.leaderboard_payload import (
    LEADERBOARD_TOP,
    LEADERBOARD_TOPIC,
    PERIODS,
    CricketFigures,
    DayRecords,
    LeaderboardRow,
    LeaderboardSnapshot,
    Period,
    RecordEntry,
    X01Figures,
    leaderboard_availability_topic,
    leaderboard_topic,
)
from mqtt_contract.operator_payload import (
    OPERATOR_CLASSES,
    AddCredits,
    Books,
    BooksSnapshot,
    OperatorCommand,
    ResetBooks,
    SetFreePlay,
    SetPrice,
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
from mqtt_contract.result_payload import RESULT_STORED_STATUSES, ResultStored, result_document
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
from mqtt_contract.topics import TOPICS, InstanceMessage, TopicSpec

__all__ = [
    "AVAILABILITY_OFFLINE",
    "AVAILABILITY_ONLINE",
    "BASE_PATTERN",
    "BOARD_ID_PATTERN",
    "BOARD_STATUSES",
    "COMMANDS",
    "COMMAND_CLASSES",
    "COMMAND_TOPIC",
    "CPU_AVERAGES",
    "CREDIT_SOURCES",
    "DART_SOURCES",
    "DEFAULT_PORTS",
    "END_REASONS",
    "EVENT_CLASSES",
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
    "OPERATOR_CLASSES",
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
    "AddCredits",
    "BatteryLevel",
    "BoardAddress",
    "BoardConnected",
    "BoardDisconnected",
    "BoardEntry",
    "BoardView",
    "Books",
    "BooksSnapshot",
    "Bounce",
    "BounceOut",
    "BrokerAddress",
    "BrokerUrlError",
    "Bust",
    "ButtonPressed",
    "CheckoutAdvice",
    "CommandBase",
    "CommandError",
    "CommandResponse",
    "CountedTiles",
    "CpuAverage",
    "CpuPlayer",
    "CpuView",
    "CreditsChanged",
    "CreditsView",
    "CribbagePlay",
    "CribbagePlayer",
    "CribbageScoring",
    "CribbageTable",
    "CricketFigures",
    "DaemonEvent",
    "Dart",
    "DayRecords",
    "EndGame",
    "EndMessage",
    "EndReason",
    "ErrorReported",
    "EventTeam",
    "GameCommand",
    "GameOver",
    "GameStarted",
    "Ignored",
    "InstanceMessage",
    "JoinMessage",
    "JoinedMessage",
    "JournalView",
    "JsonObject",
    "LastVisit",
    "LeaderboardRow",
    "LeaderboardSnapshot",
    "LeaveMessage",
    "LocalPlayer",
    "MatchPlayer",
    "MatchRecord",
    "MessageType",
    "Meta",
    "Miss",
    "NewGame",
    "Next",
    "OperatorCommand",
    "PayloadError",
    "Period",
    "Phase",
    "PlayerChange",
    "PlayerView",
    "Points",
    "RecordEntry",
    "RefusalReason",
    "RefusedMessage",
    "Released",
    "Rematch",
    "RemoteAction",
    "RemoteBoard",
    "RemoteMessage",
    "RemoteMessageError",
    "RemotePlayer",
    "RemoteRefusal",
    "RemoteView",
    "ResetBooks",
    "ResultStored",
    "SetFreePlay",
    "SetPrice",
    "SkillReport",
    "StateView",
    "StatsView",
    "Stuck",
    "Takeout",
    "TakeoutSensed",
    "TeamView",
    "ThrowDart",
    "TilePlay",
    "TopicSpec",
    "Undo",
    "Undone",
    "VisitEnd",
    "Winner",
    "X01Figures",
    "allow_problem",
    "base_problem",
    "board_id_problem",
    "check_base",
    "check_board_id",
    "check_subtopic",
    "cpu_label",
    "event_teams",
    "host_allowed",
    "invitation_filters",
    "leaderboard_availability_topic",
    "leaderboard_topic",
    "parse_broker_url",
    "parse_command",
    "parse_event_payload",
    "parse_operator_command",
    "parse_remote_message",
    "remote_payload",
    "remote_topic",
    "response_payload",
    "result_document",
    "topic",
]
