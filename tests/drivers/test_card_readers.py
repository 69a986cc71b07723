"""Player card readers: the keyboard-wedge decoder on recorded key events, the
evdev reader through a fake device at python-evdev's API boundary (and real
evdev's open on paths that are no reader), the PC/SC reader through a fake
of pyscard's ``smartcard.scard`` (and real pyscard with no pcscd), the
reader setting, ``card:UID`` in a script and the keyboard source's card key.
A UID never reaches a log line, a repr or a JSON form."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from drivers.board_events import (
    BoardEvent,
    CardTapped,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
)
from drivers.card_pcsc import GET_UID, PcscReader
from drivers.card_readers import CardReaderSpec, open_card_reader, parse_card_reader
from drivers.card_wedge import KeyboardWedgeReader, WedgeDecoder
from drivers.errors import DriverError
from drivers.keyboard import KeyboardSource
from drivers.simulated import ScriptError, SimulatedSource, parse_script
from drivers.source import BoardSource
from mqtt_client.backoff import Backoff
from tests.daemon_harness import until
from tests.drivers.fake_evdev import FakeInputDevices, read_evtest, typed_events
from tests.drivers.fake_pcsc import FakePcsc

RECORDING = Path(__file__).parent / "recordings" / "card-wedge-taps.evtest"
TIMEOUT = 30.0
READER = "/dev/input/by-id/usb-Sycreader_RFID_Technology_Co.__Ltd_SYC_ID_IC_USB_Reader-event-kbd"
ACR122U = "ACS ACR122U PICC Interface 00 00"
UID = "04A21B3F2A"


def fast() -> Backoff:
    return Backoff(0.01, 0.05)


async def next_event(events: AsyncIterator[BoardEvent]) -> BoardEvent:
    return await asyncio.wait_for(anext(events), TIMEOUT)


def no_uid_in(caplog: pytest.LogCaptureFixture, *uids: str) -> None:
    text = "\n".join(record.getMessage() for record in caplog.records)
    for uid in uids:
        assert uid not in text and uid.lower() not in text, text


# ------------------------------------------------------------------ the event


def test_a_tap_shows_only_the_last_four_digits() -> None:
    tap = CardTapped("04:A2:1B:3F:2A")
    for shown in (repr(tap), str(tap), f"{tap}", repr([tap]), str(tap.to_json())):
        assert "3F2A" in shown and "1B" not in shown and "04A2" not in shown, shown
    assert tap.to_json() == {"type": "card", "card": "\u2022\u2022\u2022\u20223F2A"}
    assert tap.uid == "04:A2:1B:3F:2A"  # the reader's text, for the lobby to hash


# ------------------------------------------------------------------ the decoder


def test_the_recorded_taps_decode_to_their_numbers() -> None:
    decoder = WedgeDecoder()
    numbers = [n for n in map(decoder.feed, read_evtest(RECORDING)) if n is not None]
    assert numbers == ["0012345678", "04A21B3F"]
    assert decoder.dropped == 0


def test_separators_keypad_and_shift_are_read_as_a_reader_types_them() -> None:
    decoder = WedgeDecoder()
    numbers = [n for n in map(decoder.feed, typed_events("04:a2:1b:3F\n04-A2 1B\n")) if n]
    assert numbers == ["04A21B3F", "04A21B"]


def test_what_is_not_a_card_is_dropped() -> None:
    decoder = WedgeDecoder(max_gap_s=1.0)
    events = [
        *typed_events("12\n"),  # too short
        *typed_events("1" * 41 + "\n"),  # too long
        *typed_events("12XY34\n"),  # a person typing, not a reader
        *typed_events("\n"),  # Enter alone: nothing
    ]
    assert [n for n in map(decoder.feed, events) if n] == []
    assert decoder.dropped == 4  # 12, 41 ones, 12 before X, 34 after Y
    # A gap inside a number drops what came before it; the rest is a card.
    slow = [*typed_events("99", start_s=100.0), *typed_events("12345678\n", start_s=105.0)]
    assert [n for n in map(decoder.feed, slow) if n] == ["12345678"]


# ------------------------------------------------------------------ the evdev reader


async def test_a_wedge_reader_is_grabbed_and_yields_taps(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    devices = FakeInputDevices()
    device = devices.plug(READER)
    reader = KeyboardWedgeReader(READER, open_device=devices.open, backoff=fast())
    events = reader.events()
    assert await next_event(events) == ConnectedEvent(f"card reader evdev:{READER}")
    assert device.grabbed  # no keystroke reaches the display
    device.type(f"{UID}\n")
    device.feed(read_evtest(RECORDING))
    assert await next_event(events) == CardTapped(UID)
    assert await next_event(events) == CardTapped("0012345678")
    assert await next_event(events) == CardTapped("04A21B3F")
    await reader.close()
    assert not device.grabbed and device.closed
    no_uid_in(caplog, UID, "0012345678", "04A21B3F")
    assert "3F2A" in caplog.text  # the masked form is what the debug log shows


async def test_a_wedge_reader_unplugged_is_reported_once_and_reopened() -> None:
    devices = FakeInputDevices()
    device = devices.plug(READER)
    reader = KeyboardWedgeReader(READER, open_device=devices.open, backoff=fast())
    events = reader.events()
    assert isinstance(await next_event(events), ConnectedEvent)
    devices.unplug(READER)
    gone = await next_event(events)
    assert isinstance(gone, DisconnectedEvent) and "went away" in gone.reason
    assert not device.grabbed
    tries = devices.attempts
    await until(lambda: devices.attempts >= tries + 3)  # tried again, the reader still away
    back = devices.plug(READER)
    assert isinstance(await next_event(events), ConnectedEvent)  # no second DisconnectedEvent
    back.type("12345678\n")
    assert await next_event(events) == CardTapped("12345678")
    await reader.close()


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        ("missing", "does not exist: is the reader plugged in?"),
        ("denied", "no permission to read"),
        ("busy", "is grabbed by another program"),
    ],
)
async def test_a_wedge_reader_that_cannot_be_opened_says_why(setup: str, words: str) -> None:
    devices = FakeInputDevices()
    if setup != "missing":
        devices.plug(READER)
    if setup == "denied":
        devices.denied.add(READER)
    if setup == "busy":
        devices.grabbed_elsewhere.add(READER)
    reader = KeyboardWedgeReader(READER, open_device=devices.open, backoff=fast())
    events = reader.events()
    event = await next_event(events)
    assert isinstance(event, DisconnectedEvent) and READER in event.reason
    assert words in event.reason
    if setup == "denied":
        assert "usermod -aG input" in event.reason
    await reader.close()


@pytest.mark.parametrize("kind", ["missing", "not-a-device"])
async def test_real_evdev_on_a_path_that_is_no_reader(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "event7"
    if kind == "not-a-device":
        path.write_text("not an input device\n", "utf-8")
    reader = KeyboardWedgeReader(str(path), backoff=fast())
    event = await next_event(reader.events())
    assert isinstance(event, DisconnectedEvent)
    expected = "does not exist" if kind == "missing" else "cannot be opened"
    assert expected in event.reason, event.reason
    await reader.close()


# ------------------------------------------------------------------ the PC/SC reader


async def started(pcsc: FakePcsc, reader: PcscReader) -> AsyncIterator[BoardEvent]:
    events = reader.events()
    assert await next_event(events) == ConnectedEvent(reader.source_id)
    return events


async def test_a_pcsc_reader_yields_each_card_put_on_it(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    pcsc = FakePcsc()
    pcsc.plug("Some Smart Card Keyboard 01 00")
    pcsc.plug(ACR122U)
    reader = PcscReader("acr122", scard=pcsc, backoff=fast(), poll_ms=50)
    events = await started(pcsc, reader)
    uid = [0x04, 0xA2, 0x1B, 0x3F, 0x2A, 0x5C, 0x80]
    pcsc.put(ACR122U, uid)
    assert await next_event(events) == CardTapped("04A21B3F2A5C80")
    assert pcsc.transmitted == [GET_UID]
    pcsc.take(ACR122U)
    pcsc.put(ACR122U, [0xDE, 0xAD, 0xBE, 0xEF])
    assert await next_event(events) == CardTapped("DEADBEEF")
    await reader.close()
    assert pcsc.contexts_open == 0
    no_uid_in(caplog, "04A21B3F2A5C80", "DEADBEEF", "DEAD")
    assert f"reading {ACR122U}" in caplog.text


async def test_a_card_already_on_the_reader_is_no_tap() -> None:
    pcsc = FakePcsc()
    pcsc.plug(ACR122U)
    pcsc.put(ACR122U, [0x11, 0x22, 0x33, 0x44])
    reader = PcscReader(scard=pcsc, backoff=fast(), poll_ms=50)
    events = await started(pcsc, reader)
    pcsc.take(ACR122U)
    pcsc.put(ACR122U, [0x55, 0x66, 0x77, 0x88])
    assert await next_event(events) == CardTapped("55667788")
    await reader.close()


async def test_a_refused_get_uid_is_logged_and_no_tap(caplog: pytest.LogCaptureFixture) -> None:
    pcsc = FakePcsc()
    pcsc.plug(ACR122U)
    pcsc.refuses[ACR122U] = [0x6A, 0x81]
    reader = PcscReader(scard=pcsc, backoff=fast(), poll_ms=50)
    events = await started(pcsc, reader)
    with caplog.at_level(logging.WARNING, logger="drivers.card_pcsc"):
        pcsc.put(ACR122U, [0x01, 0x02, 0x03, 0x04])
        await asyncio.wait_for(_logged(caplog, "answered 6A81"), TIMEOUT)
    del pcsc.refuses[ACR122U]
    pcsc.take(ACR122U)
    pcsc.put(ACR122U, [0x0A, 0x0B, 0x0C, 0x0D])
    assert await next_event(events) == CardTapped("0A0B0C0D")  # the refused one never came
    await reader.close()


async def _logged(caplog: pytest.LogCaptureFixture, words: str) -> None:
    while words not in caplog.text:
        await asyncio.sleep(0.02)


async def test_a_pcsc_reader_unplugged_is_reported_and_found_again() -> None:
    pcsc = FakePcsc()
    pcsc.plug(ACR122U)
    reader = PcscReader(scard=pcsc, backoff=fast(), poll_ms=50)
    events = await started(pcsc, reader)
    pcsc.unplug(ACR122U)
    gone = await next_event(events)
    assert gone == DisconnectedEvent(reader.source_id, f"{ACR122U} went away")
    pcsc.plug(ACR122U)
    assert await next_event(events) == ConnectedEvent(reader.source_id)
    pcsc.put(ACR122U, [0x12, 0x34, 0x56, 0x78])
    assert await next_event(events) == CardTapped("12345678")
    await reader.close()


@pytest.mark.parametrize(
    ("readers", "wanted", "words"),
    [
        ((), "", "PC/SC: no reader is connected"),
        (("Gemalto PC Twin Reader 00 00",), "acr", "no reader's name contains 'acr'"),
    ],
)
async def test_no_matching_pcsc_reader_says_so(
    readers: tuple[str, ...], wanted: str, words: str
) -> None:
    pcsc = FakePcsc()
    for name in readers:
        pcsc.plug(name)
    reader = PcscReader(wanted, scard=pcsc, backoff=fast(), poll_ms=50)
    event = await next_event(reader.events())
    assert isinstance(event, DisconnectedEvent) and words in event.reason, event
    await reader.close()


async def test_real_pyscard_without_pcscd_says_to_start_it() -> None:
    reader = PcscReader(backoff=fast(), poll_ms=50)  # pyscard's own smartcard.scard
    event = await next_event(reader.events())
    assert isinstance(event, DisconnectedEvent)
    assert "is pcscd running?" in event.reason or "no reader is connected" in event.reason
    await reader.close()


# ------------------------------------------------------------------ [cards] reader


def test_the_reader_setting_is_parsed_or_refused() -> None:
    assert parse_card_reader("none") == CardReaderSpec()
    assert parse_card_reader(f"evdev:{READER}") == CardReaderSpec("evdev", READER)
    assert parse_card_reader("pcsc") == CardReaderSpec("pcsc")
    assert parse_card_reader("PCSC:ACR122") == CardReaderSpec("pcsc", "ACR122")
    for bad, words in [
        ("nfc", "is not a card reader"),
        ("evdev", "evdev needs the reader's input device"),
        ("evdev:event3", "evdev needs the reader's input device"),
        ("pcsc:", "write pcsc alone"),
        ("none:x", "none takes nothing"),
    ]:
        with pytest.raises(DriverError, match=words):
            parse_card_reader(bad)
    assert open_card_reader(CardReaderSpec()) is None
    assert isinstance(open_card_reader(parse_card_reader(f"evdev:{READER}")), KeyboardWedgeReader)
    assert isinstance(open_card_reader(parse_card_reader("pcsc:ACR")), PcscReader)


# ------------------------------------------------------------------ script and keyboard


async def collect(source: BoardSource) -> list[BoardEvent]:
    async def drain() -> list[BoardEvent]:
        return [event async for event in source]

    return await asyncio.wait_for(drain(), TIMEOUT)


async def test_a_script_taps_cards() -> None:
    events = await collect(SimulatedSource("card:04A21B3F T20 card:04:a2:1b:3f:2a"))
    taps = [event for event in events if isinstance(event, CardTapped)]
    assert taps == [CardTapped("04A21B3F"), CardTapped("04:a2:1b:3f:2a")]


@pytest.mark.parametrize("token", ["card:", "card:12", "card:XYZ12345", "card:" + "1" * 41])
def test_a_bad_card_token_is_refused_without_repeating_it(token: str) -> None:
    with pytest.raises(ScriptError, match="card:UID") as refused:
        parse_script(f"T20 {token}")
    uid = token.removeprefix("card:")
    assert not uid or uid not in str(refused.value)


async def test_the_keyboard_taps_the_test_card_and_any_card(tmp_path: Path) -> None:
    typed = tmp_path / "typed.txt"
    typed.write_text("card t20\ncard:0A0B0C0D card:XYZ99999\n", "utf-8")
    with typed.open("r") as stream:
        events = await collect(KeyboardSource(stream, test_card="C0FFEE02"))
    taps = [event for event in events if isinstance(event, CardTapped)]
    assert taps == [CardTapped("C0FFEE02"), CardTapped("0A0B0C0D")]
    errors = [event for event in events if isinstance(event, ErrorEvent)]
    assert len(errors) == 1 and "XYZ99999" not in errors[0].message
