"""Player cards as keyed hashes: a card's UID is a credential, so no journal,
database, log or MQTT payload keeps it in clear (docs/players.md).

The board hashes a tap and the leaderboard hashes a registered card with the
same venue secret (``[cards] secret``); equal hashes are the same card. A UID
is read the way readers print it: hex bytes (``04:A2:1B:...``, PC/SC) or the
decimal number a keyboard-wedge reader types; separators and case do not
count. Pure (no I/O) and importing nothing of Oche's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

__all__ = [
    "CARD_HASH_PREFIX",
    "MIN_SECRET_LENGTH",
    "CardUidError",
    "card_hash",
    "masked_uid",
    "new_card_secret",
    "normalize_uid",
]

CARD_HASH_PREFIX = "hmac-sha256$"
"""What every stored card starts with (``mqtt_contract.lobby_payload.CARD_HASH_PATTERN``)."""

MIN_SECRET_LENGTH = 16
"""The shortest venue secret accepted, in characters."""

_SEPARATORS = re.compile(r"[\s:\-.]")
_UID = re.compile(r"^[0-9A-F]{4,40}$")


class CardUidError(ValueError):
    """A card UID or secret that cannot be used; the message says why (never the UID itself)."""


def normalize_uid(uid: str) -> str:
    """``uid`` without separators (spaces, ``:``, ``-``, ``.``), upper case:
    the form that is hashed. A CardUidError when it is not 4-40 hex digits."""
    text = _SEPARATORS.sub("", uid).upper()
    if not _UID.match(text):
        raise CardUidError(
            f"a card UID is 4 to 40 hex digits (separators allowed); got {len(uid)} characters "
            "that are not"
        )
    return text


def card_hash(secret: str, uid: str) -> str:
    """The stored form of the card ``uid`` under the venue ``secret``:
    ``hmac-sha256$`` and the HMAC-SHA256 in unpadded URL-safe base64."""
    if len(secret) < MIN_SECRET_LENGTH:
        raise CardUidError(f"the card secret must be at least {MIN_SECRET_LENGTH} characters")
    digest = hmac.new(secret.encode(), normalize_uid(uid).encode(), hashlib.sha256).digest()
    return CARD_HASH_PREFIX + base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def masked_uid(uid: str) -> str:
    """``uid`` as a person may see it: all but its last four digits hidden
    (``••••3F2A``), for a terminal that shows a tap."""
    text = _SEPARATORS.sub("", uid).upper()
    return "\u2022" * 4 + text[-4:]


def new_card_secret() -> str:
    """A fresh venue secret (43 URL-safe characters) for ``[cards] secret``."""
    return secrets.token_urlsafe(32)
