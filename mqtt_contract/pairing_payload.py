"""Who may control a board from the web (docs/phone.md): the board's pairing
code and its paired devices, on the board's retained ``pairing`` topic.

Reading a board is open on the venue's network; controlling it from the
venue's web service needs a token the service mints once a browser gave the
board's pairing code (the ``pair`` command, which the service relays). The
board is the authority on which devices are paired: the operator unpairs one
(``unpair`` on ``operator/cmd``) and the service drops its tokens when the
device leaves this list. The code is a credential: the topic is read by the
board's displays and the service alone (deploy/mosquitto/acl), never shown on
a web page or in ``state``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from mqtt_contract.json_types import JsonObject, Meta, object_schema, topic_schema
from mqtt_contract.schema_parts import LATEST_TIMESTAMP

__all__ = [
    "DEVICE_ID_PATTERN",
    "PAIRING_CODE_LENGTH",
    "PAIRING_CODE_PATTERN",
    "PAIRING_TOPIC",
    "PairedDevice",
    "PairingState",
    "device_id_problem",
    "pairing_code_problem",
]

PAIRING_CODE_LENGTH = 6
PAIRING_CODE_PATTERN = rf"^[0-9]{{{PAIRING_CODE_LENGTH}}}$"
"""A board's pairing code: six digits (a phone's number pad types it)."""
_PAIRING_CODE_RE = re.compile(PAIRING_CODE_PATTERN)

DEVICE_ID_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"
"""A paired device's id: minted by the service, random, URL-safe."""
_DEVICE_ID_RE = re.compile(DEVICE_ID_PATTERN)

Timestamp = Annotated[float, Meta(minimum=0, maximum=LATEST_TIMESTAMP)]
DeviceId = Annotated[str, Meta(pattern=DEVICE_ID_PATTERN)]
DeviceName = Annotated[
    str, Meta(min_length=1, max_length=64, description="What the device's owner called it.")
]


def pairing_code_problem(code: str) -> str | None:
    """What is wrong with ``code`` as a pairing code, or ``None``."""
    if _PAIRING_CODE_RE.match(code):
        return None
    return f"bad pairing code {code!r}: {PAIRING_CODE_LENGTH} digits"


def device_id_problem(device: str) -> str | None:
    """What is wrong with ``device`` as a paired device's id, or ``None``."""
    if _DEVICE_ID_RE.match(device):
        return None
    return f"bad device id {device!r}: 8 to 64 letters, digits, '_' or '-'"


@dataclass(frozen=True, slots=True, kw_only=True)
class PairedDevice(JsonObject):
    """A browser allowed to control the board, until the operator unpairs it."""

    json_def: ClassVar[str | None] = "paired_device"
    json_closed: ClassVar[bool] = True
    id: DeviceId
    name: DeviceName
    paired_at: Timestamp


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingState(JsonObject):
    """``{base}/{board}/pairing``: the board's current pairing code (what its
    display shows, with ``url`` as a QR code) and the devices paired so far."""

    code: Annotated[
        str,
        Meta(
            pattern=PAIRING_CODE_PATTERN,
            description="The code a browser gives to pair; a new one after each pairing "
            "and after repeated wrong codes.",
        ),
    ]
    url: Annotated[
        str | None,
        Meta(
            description="The board page with the code in it (the display's QR code); null "
            "when the board knows no web page."
        ),
    ] = None
    devices: tuple[PairedDevice, ...] = ()
    updated_at: Timestamp

    def payload(self) -> bytes:
        """The message as published: compact JSON."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


def _pairing_schema(defs: dict[str, Any]) -> dict[str, Any]:
    return object_schema(PairingState, defs)


PAIRING_TOPIC = topic_schema(
    "Oche pairing topic",
    "Published retained by the board: its pairing code and the devices paired to control "
    "it from the venue's web page. Read by the board's displays and the leaderboard "
    "service only: the code is a credential.",
    _pairing_schema,
)
"""``{base}/{board}/pairing``'s schema (the board's topic)."""
