"""The topic map: each board topic's name, retain flag, QoS and schema
(:data:`TOPICS`); the availability topic's schema and the instance message's type.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Annotated, Any

from mqtt_contract.command_payload import COMMAND_TOPIC_TEXT, RESPONSE_TOPIC, command_schema
from mqtt_contract.event_payload import event_schema
from mqtt_contract.json_types import JsonObject, Meta, object_schema, omitted, topic_schema
from mqtt_contract.lobby_payload import RESULT_LINES_TOPIC, ROSTER_TOPIC
from mqtt_contract.operator_payload import BOOKS_TOPIC, OPERATOR_TOPIC
from mqtt_contract.pairing_payload import PAIRING_TOPIC
from mqtt_contract.result_payload import RESULT_STORED_TOPIC, RESULT_TOPIC
from mqtt_contract.schema_parts import DRAFT
from mqtt_contract.state_payload import state_topic_schema
from mqtt_contract.topic_names import AVAILABILITY_OFFLINE, AVAILABILITY_ONLINE

__all__ = ["TOPICS", "InstanceMessage", "TopicSpec"]

_AVAILABILITY_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "Oche availability topic",
    "description": "A plain string, not JSON: online while the daemon is connected; "
    "offline after it stops or (last will) loses its connection.",
    "type": "string",
    "enum": [AVAILABILITY_ONLINE, AVAILABILITY_OFFLINE],
}


@dataclass(frozen=True, slots=True)
class InstanceMessage(JsonObject):
    """One ``instance`` message: which daemon holds, or asks for, the board."""

    instance: Annotated[
        str,
        Meta(
            description="Random per daemon process: two daemons never share it.",
            min_length=1,
            max_length=64,
        ),
    ]
    host: Annotated[str, Meta(description="The host name of the daemon's machine.")]
    pid: Annotated[int, Meta(description="The daemon's process id on that host.")]
    since: Annotated[
        float,
        Meta(
            description="Unix time the daemon first connected as the board (a probe: when "
            "it started to look); of two daemons, the one since earlier keeps the board."
        ),
    ]
    at: Annotated[float, Meta(description="Unix time of this message.")]
    probe: Annotated[
        bool, Meta(description="True: a daemon asking whether the board id is taken.")
    ] = omitted(default=False)

    def payload(self) -> bytes:
        """The message as published: compact JSON (``probe`` only when true)."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode("utf-8")

    def describe(self) -> str:
        """``the daemon on HOST (pid N) since YYYY-MM-DD HH:MM:SS``, local time."""
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        return f"the daemon on {self.host} (pid {self.pid}) since {since}"


def _instance_schema(defs: dict[str, Any]) -> dict[str, Any]:
    return object_schema(InstanceMessage, defs)


_INSTANCE_SCHEMA = topic_schema(
    "Oche instance topic",
    "Which daemon is the board's (one daemon per board id on a broker): retained, "
    "published by the board's daemon at every connection. A daemon about to connect as "
    "the board publishes one copy with probe true, not retained; the board's daemon "
    "answers with its own, and the newcomer stops (exit 2) naming host and pid.",
    _instance_schema,
)


@dataclass(frozen=True)
class TopicSpec:
    """One topic of a board: its name under ``{base}/{board}/``, whether the
    daemon publishes it retained, its QoS and the JSON Schema of its payload."""

    name: str
    retain: bool
    qos: int
    schema: dict[str, Any]


TOPICS: dict[str, TopicSpec] = {
    "state": TopicSpec("state", retain=True, qos=1, schema=state_topic_schema()),
    "event": TopicSpec(
        "event",
        retain=False,
        qos=1,
        schema=topic_schema(
            "Oche event topic",
            "Something that happened on the board. Events are open: clients ignore keys "
            "they do not know.",
            event_schema,
        ),
    ),
    "availability": TopicSpec("availability", retain=True, qos=1, schema=_AVAILABILITY_SCHEMA),
    "instance": TopicSpec("instance", retain=True, qos=1, schema=_INSTANCE_SCHEMA),
    "cmd": TopicSpec(
        "cmd", retain=False, qos=1, schema=topic_schema(*COMMAND_TOPIC_TEXT, command_schema)
    ),
    "cmd/response": TopicSpec(
        "cmd/response", retain=False, qos=1, schema=topic_schema(*RESPONSE_TOPIC)
    ),
    "result": TopicSpec("result", retain=False, qos=1, schema=topic_schema(*RESULT_TOPIC)),
    "result/stored": TopicSpec(
        "result/stored", retain=False, qos=1, schema=topic_schema(*RESULT_STORED_TOPIC)
    ),
    "operator/cmd": TopicSpec(
        "operator/cmd", retain=False, qos=1, schema=topic_schema(*OPERATOR_TOPIC)
    ),
    "operator/cmd/response": TopicSpec(
        "operator/cmd/response", retain=False, qos=1, schema=topic_schema(*RESPONSE_TOPIC)
    ),
    "books": TopicSpec("books", retain=True, qos=1, schema=topic_schema(*BOOKS_TOPIC)),
    "roster": TopicSpec("roster", retain=True, qos=1, schema=ROSTER_TOPIC),
    "result/lines": TopicSpec("result/lines", retain=True, qos=1, schema=RESULT_LINES_TOPIC),
    "pairing": TopicSpec("pairing", retain=True, qos=1, schema=PAIRING_TOPIC),
}
"""Topic name -> :class:`TopicSpec`, in the order of :data:`TOPIC_NAMES`."""
