"""Secrets stored as scrypt hashes, never in clear: the operator PIN
(``[operator] pin_hash``, checked by the display) and the leaderboard's admin
password (``[leaderboard] admin_password_hash``, checked by the service).

One string holds a hash: ``scrypt$N$r$p$SALT$HASH`` (``hashlib.scrypt``, a
random 16-byte salt, SALT and HASH in unpadded URL-safe base64, the secret's
UTF-8 bytes). :func:`verify_secret` compares in constant time. Pure (no I/O)
and importing nothing of Oche's, so the display, the leaderboard, the config
and the CLI all check the same hashes the same way.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

__all__ = ["SECRET_HASH_FORM", "hash_secret", "secret_hash_problem", "verify_secret"]

SECRET_HASH_FORM = re.compile(r"scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]{11,}\$[A-Za-z0-9_-]{22,}")
"""The shape of a hash (the config checks it before :func:`secret_hash_problem` reads it whole)."""

_SCHEME = "scrypt"
_N, _R, _P = 2**14, 8, 1
"""scrypt's cost: 16 MiB and a few tens of milliseconds on a Raspberry Pi."""
_MAX_N = 2**17
"""The largest cost a stored hash may ask for (each check runs on a busy thread)."""
_KEY_BYTES = 32
_SALT_BYTES = 16


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _derive(secret: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        secret.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        dklen=length,
        maxmem=256 * n * r + 2**20,
    )


def hash_secret(secret: str, salt: bytes | None = None) -> str:
    """``secret`` hashed with a random salt (or ``salt``), as one config string."""
    salt = secrets.token_bytes(_SALT_BYTES) if salt is None else salt
    key = _derive(secret, salt, _N, _R, _P, _KEY_BYTES)
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
        raise ValueError(
            "not a hash of `oche operator pin` or `oche leaderboard admin-password` "
            "(scrypt$N$r$p$salt$hash)"
        )
    try:
        n, r, p = (int(part) for part in parts[1:4])
        salt, key = _unb64(parts[4]), _unb64(parts[5])
    except (ValueError, binascii.Error):
        raise ValueError("a hash's cost is numbers and its salt and hash base64") from None
    if n < 2 or n & (n - 1) or n > _MAX_N or not 1 <= r <= 32 or not 1 <= p <= 16:
        raise ValueError(f"a hash's cost is out of range (N a power of 2 up to {_MAX_N})")
    if len(salt) < 8 or len(key) < 16:
        raise ValueError("a hash's salt or hash is too short")
    return _Parsed(n, r, p, salt, key)


def secret_hash_problem(stored: str) -> str | None:
    """What is wrong with a stored hash, or ``None`` when it can be checked."""
    try:
        _parse(stored)
    except ValueError as error:
        return str(error)
    return None


def verify_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the one hashed in ``stored``, compared in constant
    time; False for a hash that cannot be read."""
    try:
        parsed = _parse(stored)
    except ValueError:
        return False
    key = _derive(secret, parsed.salt, parsed.n, parsed.r, parsed.p, len(parsed.key))
    return hmac.compare_digest(key, parsed.key)
