"""Coins from the real firmware (tests/drivers/pty_firmware.py) through a
serial source: each pulse is a CoinEvent with the firmware's running count,
and a host that was away learns what it missed from the counts that follow
the hello it asks for, so the host side of docs/protocol.md ("Never losing or
doubling a pulse") counts every pulse exactly once."""

from __future__ import annotations

from collections.abc import Callable

from drivers.board_events import BoardEvent, CoinEvent, ConnectedEvent
from drivers.protocol import COUNT_MODULO
from drivers.serial_source import SerialSource
from tests.drivers.pty_board import FakeBoard
from tests.drivers.pty_firmware import FirmwareOnPty
from tests.drivers.test_serial_source import MATRIX, board, fast_backoff, running

__all__ = ["board"]  # the fixture, used by name


class Ledger:
    """The host side of the protocol, as docs/protocol.md gives it: the last
    ``(boot, count)`` per input, and the pulses each ``P`` frame adds."""

    def __init__(self) -> None:
        self.last: dict[int, tuple[str | None, int | None]] = {}
        self.pulses: dict[int, int] = {1: 0, 2: 0}

    def take(self, event: CoinEvent) -> int:
        if event.count is None:
            new = 1
        else:
            boot, count = self.last.get(event.input, (None, None))
            new = event.count if boot != event.boot or count is None else event.count - count
            new %= COUNT_MODULO
            self.last[event.input] = (event.boot, event.count)
        self.pulses[event.input] += new
        return new


def source_on(board: FakeBoard) -> SerialSource:
    return SerialSource(str(board.link), matrix=MATRIX, backoff=fast_backoff())


def is_coin(input_: int, count: int, boot: str) -> Callable[[BoardEvent], bool]:
    def match(event: BoardEvent) -> bool:
        return event == CoinEvent(input_, count, boot)

    return match


async def test_pulses_are_counted_once_across_a_host_restart_and_a_board_restart(
    board: FakeBoard,
) -> None:
    ledger = Ledger()
    async with FirmwareOnPty(board, coin_inputs=2) as device:
        first_boot = device.boot_id
        async with running(source_on(board)) as events:
            await events.next_of(ConnectedEvent)
            # The answer to the source's "?": a hello, then each input's count.
            await events.next(is_coin(2, 0, first_boot))
            device.coin(1, pulses=2)
            await events.next(is_coin(1, 2, first_boot))
            for event in events.of(CoinEvent):
                ledger.take(event)
        assert ledger.pulses == {1: 2, 2: 0}

        device.coin(1, pulses=3)  # no host reading: the daemon is down
        device.coin(2)
        assert device.counts() == [5, 1]

        async with running(source_on(board)) as events:
            await events.next_of(ConnectedEvent)
            await events.next(is_coin(1, 5, first_boot))
            await events.next(is_coin(2, 1, first_boot))
            device.restart()  # the board restarts: counts from 0, another boot id
            assert device.boot_id != first_boot
            await events.next(is_coin(2, 0, device.boot_id))
            device.coin(1)
            await events.next(is_coin(1, 1, device.boot_id))
            for event in events.of(CoinEvent):
                ledger.take(event)
    # Every pulse once, though each hello repeated the counts.
    assert ledger.pulses == {1: 2 + 3 + 1, 2: 1}
