"""The operator PIN: hashed for ``[operator] pin_hash``, checked on the display.

A PIN is 4 to 12 digits. It is stored as one string, never in clear:
``scrypt$N$r$p$SALT$HASH`` (``hashlib.scrypt``, a random 16-byte salt, SALT
and HASH in unpadded URL-safe base64). ``oche operator pin`` makes it; the
display's operator menu checks a PIN typed on it against it in constant time
(:func:`verify_pin`). :class:`PinGate` counts wrong PINs and locks the entry
for a while after :data:`MAX_TRIES` of them.

It imports nothing of pygame, so the CLI may use it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "LOCKOUT_SECONDS",
    "MAX_TRIES",
    "PIN_LENGTHS",
    "PinGate",
    "check_pin",
    "hash_pin",
    "pin_hash_problem",
    "verify_pin",
]

PIN_LENGTHS = (4, 12)
"""The shortest and the longest PIN, in digits."""
MAX_TRIES = 3
"""Wrong PINs in a row before the entry locks."""
LOCKOUT_SECONDS = 30.0
"""How long the PIN entry stays locked after :data:`MAX_TRIES` wrong PINs."""

_SCHEME = "scrypt"
_N, _R, _P = 2**14, 8, 1
"""scrypt's cost: 16 MiB and a few tens of milliseconds on a Raspberry Pi."""
_MAX_N = 2**17
"""The largest cost a stored hash may ask for (the display checks it on its own thread)."""
_KEY_BYTES = 32
_SALT_BYTES = 16


def check_pin(pin: str) -> str:
    """``pin`` when it is 4 to 12 digits; a :class:`ValueError` saying what is wrong."""
    low, high = PIN_LENGTHS
    if not pin.isascii() or not pin.isdigit():
        raise ValueError("a PIN is digits only (0-9)")
    if not low <= len(pin) <= high:
        raise ValueError(f"a PIN is {low} to {high} digits, this one has {len(pin)}")
    return pin


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _derive(pin: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        pin.encode("ascii"), salt=salt, n=n, r=r, p=p, dklen=length, maxmem=256 * n * r + 2**20
    )


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """``pin`` (checked by :func:`check_pin`) hashed with a random salt, as the
    one string ``[operator] pin_hash`` holds."""
    salt = secrets.token_bytes(_SALT_BYTES) if salt is None else salt
    key = _derive(check_pin(pin), salt, _N, _R, _P, _KEY_BYTES)
    return f"{_SCHEME}${_N}${_R}${_P}${_b64(salt)}${_b64(key)}"


@dataclass(frozen=True)
class _Parsed:
    n: int
    r: int
    p: int
    salt: bytes
    key: bytes


def _parse(stored: str) -> _Parsed:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != _SCHEME:
        raise ValueError("not a PIN hash of `oche operator pin` (scrypt$N$r$p$salt$hash)")
    try:
        n, r, p = (int(part) for part in parts[1:4])
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except (ValueError, binascii.Error):
        raise ValueError("a PIN hash's cost is numbers and its salt and hash base64") from None
    if n < 2 or n & (n - 1) or n > _MAX_N or not 1 <= r <= 32 or not 1 <= p <= 16:
        raise ValueError(f"a PIN hash's cost is out of range (N a power of 2 up to {_MAX_N})")
    if len(salt) < 8 or len(key) < 16:
        raise ValueError("a PIN hash's salt or hash is too short")
    return _Parsed(n, r, p, salt, key)


def pin_hash_problem(stored: str) -> str | None:
    """What is wrong with a stored PIN hash, or ``None`` when it can be checked."""
    try:
        _parse(stored)
    except ValueError as error:
        return str(error)
    return None


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN hashed in ``stored``; compared in constant
    time. False for a PIN that is not digits or a hash that cannot be read."""
    try:
        parsed = _parse(stored)
        check_pin(pin)
    except ValueError:
        return False
    key = _derive(pin, parsed.salt, parsed.n, parsed.r, parsed.p, len(parsed.key))
    return hmac.compare_digest(key, parsed.key)


@dataclass
class PinGate:
    """The PIN entry's guard: checks a PIN against ``pin_hash`` and, after
    :data:`MAX_TRIES` wrong ones in a row, refuses every PIN for
    :data:`LOCKOUT_SECONDS` (on ``clock``, monotonic seconds)."""

    pin_hash: str
    clock: Callable[[], float] = time.monotonic
    tries: int = MAX_TRIES
    lockout_s: float = LOCKOUT_SECONDS
    failures: int = field(default=0, init=False)
    locked_until: float = field(default=0.0, init=False)

    @property
    def enabled(self) -> bool:
        """A PIN is configured and readable: the key may open the PIN entry."""
        return bool(self.pin_hash) and pin_hash_problem(self.pin_hash) is None

    def locked_for(self) -> float:
        """Seconds the entry stays locked (0: it takes PINs)."""
        return max(0.0, self.locked_until - self.clock())

    def tries_left(self) -> int:
        return self.tries - self.failures

    def check(self, pin: str) -> bool:
        """Whether ``pin`` opens the menu; a wrong one counts toward the
        lockout, and any PIN while locked is refused unchecked."""
        if self.locked_for() > 0 or not self.enabled:
            return False
        if verify_pin(pin, self.pin_hash):
            self.failures = 0
            return True
        self.failures += 1
        if self.failures >= self.tries:
            self.failures = 0
            self.locked_until = self.clock() + self.lockout_s
        return False
