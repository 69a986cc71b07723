"""The pairing's rules, pure: the board's pairing code, the browsers paired
to control it from the venue's web page, and when the code changes
(docs/phone.md). The pairing extension
(:mod:`firmware_bridge.daemon.extensions.pairing`) runs them, journals the
devices and publishes the retained ``pairing`` topic.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.daemon.game_session import Refusal
from mqtt_contract.json_types import PayloadError
from mqtt_contract.pairing_payload import PAIRING_CODE_LENGTH, PairedDevice, PairingState

__all__ = [
    "MAX_PAIRED_DEVICES",
    "MAX_WRONG_CODES",
    "PairingBook",
    "new_pairing_code",
]

MAX_WRONG_CODES = 5
"""Wrong codes in a row after which the board draws a new code (guessing one
of a million codes five at a time is hopeless)."""

MAX_PAIRED_DEVICES = 32
"""How many browsers one board keeps paired: the oldest goes for a new one."""

WRONG_CODE = "wrong pairing code: type the code the board's screen shows now"
ROTATED = (
    f"wrong pairing code, {MAX_WRONG_CODES} in a row: the board shows a new code; type that one"
)


def new_pairing_code() -> str:
    """A fresh pairing code: :data:`PAIRING_CODE_LENGTH` random digits."""
    return f"{secrets.randbelow(10**PAIRING_CODE_LENGTH):0{PAIRING_CODE_LENGTH}d}"


@dataclass
class PairingBook:
    """The code, the paired devices and the wrong codes since the last right one."""

    code: str = field(default_factory=new_pairing_code)
    devices: list[PairedDevice] = field(default_factory=list)
    wrong_codes: int = 0

    def rotate(self) -> None:
        """A new code (never the one before), the count of wrong codes reset."""
        old = self.code
        while self.code == old:
            self.code = new_pairing_code()
        self.wrong_codes = 0

    def pair(self, code: str, device_id: str, name: str, now: float) -> PairedDevice:
        """Pair ``device_id`` when ``code`` is the current code (compared in
        constant time), then draw a new code; a wrong code raises
        :class:`Refusal`, and the :data:`MAX_WRONG_CODES`-th in a row draws a
        new code too. A device paired again keeps one entry, its new name."""
        if not hmac.compare_digest(code.encode(), self.code.encode()):
            self.wrong_codes += 1
            if self.wrong_codes >= MAX_WRONG_CODES:
                self.rotate()
                raise Refusal(ROTATED)
            raise Refusal(WRONG_CODE)
        device = PairedDevice(id=device_id, name=name, paired_at=now)
        self.devices = [known for known in self.devices if known.id != device_id]
        self.devices.append(device)
        del self.devices[:-MAX_PAIRED_DEVICES]
        self.rotate()
        return device

    def unpair(self, device_id: str | None) -> list[PairedDevice]:
        """Forget ``device_id`` (``None``: every device); those forgotten. An
        id not paired raises :class:`Refusal` naming it."""
        if device_id is None:
            gone, self.devices = self.devices, []
            return gone
        gone = [device for device in self.devices if device.id == device_id]
        if not gone:
            raise Refusal(f"unpair: no paired device {device_id!r}")
        self.devices = [device for device in self.devices if device.id != device_id]
        return gone

    def state(self, url: str | None, now: float) -> PairingState:
        """The retained ``pairing`` message: the code, its page, the devices."""
        return PairingState(code=self.code, url=url, devices=tuple(self.devices), updated_at=now)

    def devices_json(self) -> list[dict[str, Any]]:
        """The paired devices as the journal keeps them."""
        return [device.to_json() for device in self.devices]

    def restore(self, kept: Any) -> list[str]:
        """Take back the devices the journal kept (:meth:`devices_json`); what
        could not be read, in words (the devices that could are taken)."""
        if kept is None:
            return []
        if not isinstance(kept, list):
            return [f"the paired devices: not a list ({type(kept).__name__})"]
        problems: list[str] = []
        devices: list[PairedDevice] = []
        for entry in kept:
            try:
                devices.append(PairedDevice.from_json(entry))
            except (PayloadError, TypeError) as error:
                problems.append(f"a paired device: {error}")
        self.devices = devices[-MAX_PAIRED_DEVICES:]
        return problems
