"""Card hashes: the same card read by any reader hashes the same under one
venue secret, differently under another, and no error quotes the UID."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from credentials.card_hash import (
    CardUidError,
    card_hash,
    masked_uid,
    new_card_secret,
    normalize_uid,
)
from mqtt_contract.lobby_payload import CARD_HASH_PATTERN

SECRET = "venue-secret-0123456789"


def test_a_card_read_with_separators_or_in_lower_case_is_the_same_card() -> None:
    assert card_hash(SECRET, "04:a2:1b:9c") == card_hash(SECRET, "04A21B9C")
    assert card_hash(SECRET, "04 A2 1B 9C") == card_hash(SECRET, "04-a2-1b-9c")
    assert normalize_uid("04:a2:1b:9c") == "04A21B9C"


def test_another_venue_secret_gives_another_hash() -> None:
    assert card_hash(SECRET, "0004123456") != card_hash(new_card_secret(), "0004123456")


@given(st.binary(min_size=2, max_size=20))
def test_every_hash_has_the_stored_form_and_never_holds_the_uid(uid: bytes) -> None:
    text = uid.hex()
    stored = card_hash(SECRET, text)
    assert re.match(CARD_HASH_PATTERN, stored)
    assert text.upper() not in stored.upper()


@pytest.mark.parametrize("uid", ["", "12", "not-hex-at-all", "04:A2:1B:9G"])
def test_a_bad_uid_is_refused_without_quoting_it(uid: str) -> None:
    with pytest.raises(CardUidError, match="4 to 40 hex digits") as refused:
        normalize_uid(uid)
    if uid:
        assert uid not in str(refused.value)


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(CardUidError, match="at least 16"):
        card_hash("short", "04A21B9C")


def test_a_masked_uid_shows_only_its_last_four_digits() -> None:
    assert masked_uid("04:a2:1b:9c") == "\u2022\u2022\u2022\u20221B9C"
