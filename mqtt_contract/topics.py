"""The topic map: each board topic's name, retain flag, QoS and schema
(:data:`TOPICS`), and the two small plain-string topics' schemas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqtt_contract.command_payload import command_schema, response_schema
from mqtt_contract.event_payload import event_schema
from mqtt_contract.json_types import topic_schema
from mqtt_contract.operator_payload import books_schema, operator_schema
from mqtt_contract.result_payload import result_schema, result_stored_schema
from mqtt_contract.schema_parts import DRAFT
from mqtt_contract.state_payload import state_topic_schema
from mqtt_contract.topic_names import AVAILABILITY_OFFLINE, AVAILABILITY_ONLINE

_AVAILABILITY_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "Oche availability topic",
    "description": "A plain string, not JSON: online while the daemon is connected; "
    "offline after it stops or (last will) loses its connection.",
    "type": "string",
    "enum": [AVAILABILITY_ONLINE, AVAILABILITY_OFFLINE],
}


_INSTANCE_SCHEMA: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "Oche instance topic",
    "description": "Which daemon is the board's (one daemon per board id on a broker): "
    "retained, published by the board's daemon at every connection. A daemon about to "
    "connect as the board publishes one copy with probe true, not retained; the board's "
    "daemon answers with its own, and the newcomer stops (exit 2) naming host and pid.",
    "type": "object",
    "properties": {
        "instance": {
            "description": "Random per daemon process: two daemons never share it.",
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
        },
        "host": {"description": "The host name of the daemon's machine.", "type": "string"},
        "pid": {"description": "The daemon's process id on that host.", "type": "integer"},
        "since": {
            "description": "Unix time the daemon first connected as the board (a probe: "
            "when it started to look); of two daemons, the one since earlier keeps the board.",
            "type": "number",
        },
        "at": {"description": "Unix time of this message.", "type": "number"},
        "probe": {
            "description": "True: a daemon asking whether the board id is taken.",
            "type": "boolean",
        },
    },
    "required": ["instance", "host", "pid", "since", "at"],
}


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
    "cmd": TopicSpec("cmd", retain=False, qos=1, schema=command_schema()),
    "cmd/response": TopicSpec("cmd/response", retain=False, qos=1, schema=response_schema()),
    "result": TopicSpec("result", retain=False, qos=1, schema=result_schema()),
    "result/stored": TopicSpec("result/stored", retain=False, qos=1, schema=result_stored_schema()),
    "operator/cmd": TopicSpec("operator/cmd", retain=False, qos=1, schema=operator_schema()),
    "operator/cmd/response": TopicSpec(
        "operator/cmd/response", retain=False, qos=1, schema=response_schema()
    ),
    "books": TopicSpec("books", retain=True, qos=1, schema=books_schema()),
}
"""Topic name -> :class:`TopicSpec`, in the order of :data:`TOPIC_NAMES`."""
