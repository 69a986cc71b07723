"""The pairing's rules alone (firmware_bridge/daemon/pairing_book.py): codes,
wrong codes in a row, devices paired again, the oldest dropped, what is kept."""

from __future__ import annotations

import pytest

from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.pairing_book import (
    MAX_PAIRED_DEVICES,
    MAX_WRONG_CODES,
    PairingBook,
    new_pairing_code,
)
from mqtt_contract.pairing_payload import pairing_code_problem


def other_than(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def test_codes_are_six_digits_and_a_rotation_never_repeats_the_last() -> None:
    codes = {new_pairing_code() for _ in range(200)}
    assert all(pairing_code_problem(code) is None for code in codes)
    assert len(codes) > 150, "random: hardly ever the same"
    book = PairingBook(code="000000")
    for _ in range(50):
        before = book.code
        book.rotate()
        assert book.code != before


def test_a_right_code_pairs_once_and_a_wrong_run_draws_a_new_code() -> None:
    book = PairingBook()
    first = book.code
    device = book.pair(first, "dev-ann-0001", "Ann's phone", 5.0)
    assert (device.id, device.name, device.paired_at) == ("dev-ann-0001", "Ann's phone", 5.0)
    assert book.code != first
    with pytest.raises(Refusal, match="wrong pairing code"):
        book.pair(first, "dev-bob-0002", "Bob", 6.0)
    code = book.code
    for _ in range(MAX_WRONG_CODES - 2):
        with pytest.raises(Refusal, match=r"^wrong pairing code: type"):
            book.pair(other_than(code), "dev-bob-0002", "Bob", 6.0)
    assert book.code == code and book.wrong_codes == MAX_WRONG_CODES - 1
    with pytest.raises(Refusal, match="new code"):
        book.pair(other_than(code), "dev-bob-0002", "Bob", 6.0)
    assert book.code != code and book.wrong_codes == 0
    assert [d.id for d in book.devices] == ["dev-ann-0001"]


def test_a_device_paired_again_keeps_one_entry_and_the_oldest_goes_when_full() -> None:
    book = PairingBook()
    book.pair(book.code, "dev-ann-0001", "Ann", 1.0)
    book.pair(book.code, "dev-ann-0001", "Ann's new name", 2.0)
    assert [(d.id, d.name) for d in book.devices] == [("dev-ann-0001", "Ann's new name")]
    for n in range(MAX_PAIRED_DEVICES):
        book.pair(book.code, f"dev-{n:04d}-xx", f"Phone {n}", 3.0 + n)
    assert len(book.devices) == MAX_PAIRED_DEVICES
    assert "dev-ann-0001" not in {d.id for d in book.devices}


def test_unpair_one_unknown_or_all() -> None:
    book = PairingBook()
    book.pair(book.code, "dev-ann-0001", "Ann", 1.0)
    book.pair(book.code, "dev-bob-0002", "Bob", 2.0)
    with pytest.raises(Refusal, match="dev-cy-0003"):
        book.unpair("dev-cy-0003")
    assert [d.id for d in book.unpair("dev-ann-0001")] == ["dev-ann-0001"]
    assert [d.id for d in book.unpair(None)] == ["dev-bob-0002"]
    assert book.devices == [] and book.unpair(None) == []


def test_the_devices_kept_come_back_and_a_damaged_one_is_named() -> None:
    book = PairingBook()
    book.pair(book.code, "dev-ann-0001", "Ann", 1.0)
    kept = book.devices_json()
    again = PairingBook()
    assert again.restore([*kept, {"id": "x", "name": "bad"}]) != []
    assert again.devices == book.devices
    assert PairingBook().restore(None) == []
    assert PairingBook().restore({"not": "a list"}) == ["the paired devices: not a list (dict)"]
