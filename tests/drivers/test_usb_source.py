"""The USB driver against real pyusb (``usb.core.find``, ``Device``, ``Endpoint``)
over a fake backend: reports, hotplug, claiming and releasing the interface."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import libusb_package
import pytest

from drivers.board_events import (
    BoardEvent,
    ButtonEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
)
from drivers.errors import DriverError
from drivers.matrix_map import parse_map
from drivers.protocol import Hit, encode_frame
from drivers.usb_source import UsbSource
from engine import Bed
from mqtt_client.backoff import Backoff
from tests.daemon_harness import until
from tests.drivers.fake_usb_backend import FakeUsbBackend

VID, PID = 0x2E8A, 0x000A
SOURCE = "usb:2e8a:000a"
TIMEOUT = 10.0  # for anything that must happen: generous, for a busy machine
"""Longest wait for any one event, so a broken driver fails instead of hanging."""

MAP = parse_map(
    """
[board]
name = "test"
rows = 4
cols = 4

[cells]
"0,0" = "S20"
"0,2" = "T20"
"1,0" = "DB"
"3,3" = "button:next"
"""
)

S20, T20, DB = Bed.parse("S20"), Bed.parse("T20"), Bed.parse("DB")


def padded(chunk: bytes, size: int = 16) -> bytes:
    """A fixed-size HID report: ``chunk`` and NUL padding."""
    assert len(chunk) <= size
    return chunk + b"\x00" * (size - len(chunk))


class Board:
    """A started source and its event stream, every wait bounded by TIMEOUT."""

    def __init__(self, source: UsbSource) -> None:
        self.source = source
        self.stream: AsyncIterator[BoardEvent] = source.events()

    async def next(self) -> BoardEvent:
        return await asyncio.wait_for(anext(self.stream), TIMEOUT)

    async def take(self, count: int) -> list[BoardEvent]:
        return [await self.next() for _ in range(count)]

    async def close(self) -> None:
        await asyncio.wait_for(self.source.close(), TIMEOUT)


@pytest.fixture
async def boards() -> AsyncIterator[Callable[..., Board]]:
    opened: list[Board] = []

    def start(backend: FakeUsbBackend, **options: object) -> Board:
        options.setdefault("backoff", Backoff(0.01, 0.05))
        options.setdefault("poll_timeout_ms", 20)
        board = Board(UsbSource(VID, PID, backend=backend, **options))  # type: ignore[arg-type]
        opened.append(board)
        return board

    yield start
    for board in opened:
        await board.close()


def test_constructor_does_no_io_and_checks_its_settings() -> None:
    backend = FakeUsbBackend(VID, PID)
    source = UsbSource(VID, PID, backend=backend)
    assert (source.name, source.source_id, backend.finds, backend.open_handles) == (
        "usb",
        SOURCE,
        0,
        0,
    )
    with pytest.raises(DriverError, match="report format"):
        UsbSource(VID, PID, report="hid")
    with pytest.raises(DriverError, match="vendor id"):
        UsbSource(0x10000, PID)
    with pytest.raises(ValueError, match="protocol"):
        UsbSource(VID, PID, protocol="morse")


async def test_line_reports_split_and_nul_padded_become_hits(
    boards: Callable[..., Board],
) -> None:
    backend = FakeUsbBackend(VID, PID, kernel_driver=True, configured=False)
    board = boards(backend, matrix=MAP)
    first, second = encode_frame(Hit(0, 0, 2)), encode_frame(Hit(1, 0, 0))
    backend.push(
        padded(first[:5]),  # a frame split across reports, each NUL-padded
        padded(first[5:] + second[:1]),
        padded(second[1:]),
    )
    assert await board.take(3) == [
        ConnectedEvent(SOURCE),
        HitEvent(T20, 0, 2),
        HitEvent(S20, 0, 0),
    ]
    counts = board.source.decoder.counts
    assert counts["frames"] == 2
    assert counts["garbage"] == 0
    # the kernel driver was detached, the device configured, the interface claimed
    assert (backend.detaches, backend.configuration, backend.claimed) == (1, 1, {0})


async def test_line_reports_in_a_compatibility_protocol(boards: Callable[..., Board]) -> None:
    backend = FakeUsbBackend(VID, PID)
    board = boards(backend, protocol="darts-codes")
    backend.push(padded(b"32"), padded(b"0\n225\n"))
    assert await board.take(3) == [
        ConnectedEvent(SOURCE),
        HitEvent(T20),
        HitEvent(DB),
    ]


async def test_cells_reports_map_like_hit_frames(boards: Callable[..., Board]) -> None:
    backend = FakeUsbBackend(VID, PID)
    board = boards(backend, report="cells", matrix=MAP)
    backend.push(
        bytes([0, 2, 0xFF, 0xFF, 1, 0, 0xFF, 0xFF]),  # padding between and after cells
        bytes([3, 3, 0xFF, 0xFF, 0xFF, 0xFF]),
        bytes([2, 2, 0xFF, 0xFF]),  # not in the map
        bytes([9, 9]),  # off the matrix
        bytes([0, 0, 7]),  # a stray odd byte
    )
    events = await board.take(7)
    assert events[:4] == [
        ConnectedEvent(SOURCE),
        HitEvent(T20, 0, 2),
        HitEvent(DB, 1, 0),
        ButtonEvent("next"),
    ]
    assert [(type(event), getattr(event, "kind", None)) for event in events[4:]] == [
        (ErrorEvent, "unmapped-cell"),
        (ErrorEvent, "out-of-range"),
        (HitEvent, None),
    ]
    assert events[6] == HitEvent(S20, 0, 0)
    garbage = await board.next()
    assert isinstance(garbage, ErrorEvent) and garbage.kind == "garbage"
    counts = board.source.decoder.counts
    assert (counts["unmapped-cell"], counts["out-of-range"], counts["garbage"]) == (1, 1, 1)


async def test_bad_crc_is_counted_and_never_a_hit(boards: Callable[..., Board]) -> None:
    backend = FakeUsbBackend(VID, PID)
    board = boards(backend, matrix=MAP)
    backend.push(padded(b"$H,1,3,7*C66C\n"), padded(encode_frame(Hit(2, 0, 0))))
    connected, error, hit = await board.take(3)
    assert connected == ConnectedEvent(SOURCE)
    assert isinstance(error, ErrorEvent) and error.kind == "crc"
    assert hit == HitEvent(S20, 0, 0)
    assert board.source.decoder.counts["crc"] == 1


async def test_absent_device_is_reported_once_then_connects_when_plugged(
    boards: Callable[..., Board],
) -> None:
    backend = FakeUsbBackend(VID, PID, present=False)
    board = boards(backend, matrix=MAP)
    down = await board.next()
    assert isinstance(down, DisconnectedEvent) and down.source == SOURCE
    assert "not found" in down.reason
    await until(lambda: backend.finds >= 4)  # it keeps looking, quietly
    backend.replug()
    assert await board.next() == ConnectedEvent(SOURCE)
    backend.push(padded(encode_frame(Hit(0, 0, 0))))
    assert await board.next() == HitEvent(S20, 0, 0)


async def test_unplug_and_replug_mid_stream(boards: Callable[..., Board]) -> None:
    backend = FakeUsbBackend(VID, PID)
    board = boards(backend, matrix=MAP)
    assert await board.next() == ConnectedEvent(SOURCE)
    torn = encode_frame(Hit(5, 0, 2))
    backend.push(padded(torn[:7]))  # "$H,5,0," and then the board is pulled
    await until(lambda: backend.pending() == 0)
    backend.unplug()
    down = await board.next()
    assert isinstance(down, DisconnectedEvent) and "lost" in down.reason
    await until(lambda: backend.finds >= 3)
    backend.replug()
    assert await board.next() == ConnectedEvent(SOURCE)
    # the rest of the torn frame must not be glued to its start
    backend.push(padded(torn[7:]), padded(encode_frame(Hit(0, 0, 0))))
    garbage, hit = await board.take(2)
    assert isinstance(garbage, ErrorEvent) and garbage.kind == "garbage"
    assert hit == HitEvent(S20, 0, 0)
    assert board.source.decoder.counts["lost-frames"] == 0
    assert (backend.claims, backend.detaches, backend.claimed) == (2, 2, {0})


async def test_close_releases_the_interface_and_ends_iteration_promptly(
    boards: Callable[..., Board],
) -> None:
    backend = FakeUsbBackend(VID, PID)
    board = boards(backend, poll_timeout_ms=100)
    assert await board.next() == ConnectedEvent(SOURCE)
    assert (backend.claimed, backend.kernel_driver_active, backend.open_handles) == ({0}, False, 1)

    async def drain() -> list[BoardEvent]:
        return [event async for event in board.stream]

    reader = asyncio.create_task(drain())
    await until(lambda: backend.reads_in_flight > 0)
    started = time.monotonic()
    await board.close()
    assert await asyncio.wait_for(reader, TIMEOUT) == []
    assert time.monotonic() - started < 1.0
    assert backend.claimed == set()
    assert (backend.releases, backend.attaches, backend.open_handles) == (1, 1, 0)
    assert not backend.released_during_read


async def test_platform_without_kernel_driver_support(boards: Callable[..., Board]) -> None:
    backend = FakeUsbBackend(
        VID, PID, kernel_driver=False, kernel_driver_supported=False, configured=True
    )
    board = boards(backend)
    assert await board.next() == ConnectedEvent(SOURCE)
    await board.close()
    assert (backend.claims, backend.releases, backend.attaches) == (1, 1, 0)


async def test_missing_interface_is_reported_once_and_never_raises(
    boards: Callable[..., Board],
) -> None:
    backend = FakeUsbBackend(VID, PID)
    board = boards(backend, interface=1)
    down = await board.next()
    assert isinstance(down, DisconnectedEvent) and "no interface 1" in down.reason
    await until(lambda: backend.finds >= 4)
    assert board.source.source_id == SOURCE
    assert board.source._queue.empty()  # no second DisconnectedEvent
    await board.close()
    assert (backend.claims, backend.open_handles) == (0, 0)


async def test_default_backend_comes_from_libusb_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = FakeUsbBackend(VID, PID)
    monkeypatch.setattr(libusb_package, "get_libusb1_backend", lambda: backend)
    source = UsbSource(VID, PID, poll_timeout_ms=20)
    board = Board(source)
    try:
        assert await board.next() == ConnectedEvent(SOURCE)
    finally:
        await board.close()
    assert backend.finds == 1
