"""The operator PIN: hashed for ``[operator] pin_hash``, checked on the display.

A PIN is 4 to 12 digits. It is stored as one string, never in clear:
``scrypt$N$r$p$SALT$HASH`` (:mod:`credentials.secret_hash`, which the
leaderboard's admin password shares). ``oche operator pin`` makes it; the
display's operator menu checks a PIN typed on it against it in constant time
(:func:`verify_pin`). :class:`PinGate` counts wrong PINs and locks the entry
for a while after :data:`MAX_TRIES` of them.

It imports nothing of pygame, so the CLI may use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from credentials.secret_hash import hash_secret, secret_hash_problem, verify_secret

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


def check_pin(pin: str) -> str:
    """``pin`` when it is 4 to 12 digits; a :class:`ValueError` saying what is wrong."""
    low, high = PIN_LENGTHS
    if not pin.isascii() or not pin.isdigit():
        raise ValueError("a PIN is digits only (0-9)")
    if not low <= len(pin) <= high:
        raise ValueError(f"a PIN is {low} to {high} digits, this one has {len(pin)}")
    return pin


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """``pin`` (checked by :func:`check_pin`) hashed with a random salt, as the
    one string ``[operator] pin_hash`` holds."""
    return hash_secret(check_pin(pin), salt)


def pin_hash_problem(stored: str) -> str | None:
    """What is wrong with a stored PIN hash, or ``None`` when it can be checked."""
    return secret_hash_problem(stored)


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN hashed in ``stored``; compared in constant
    time. False for a PIN that is not digits or a hash that cannot be read."""
    try:
        check_pin(pin)
    except ValueError:
        return False
    return verify_secret(pin, stored)


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
