"""The GranBoard driver against real bleak (``BleakScanner``, ``BleakClient``)
over a fake backend: recorded notifications, the button, duplicates, unknown
notifications, battery, losing and finding the board again; the factory,
``oche monitor`` and ``oche calibrate`` with it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from drivers.board_events import (
    BatteryEvent,
    BoardEvent,
    ButtonEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
)
from drivers.calibration import PROMPTS
from drivers.factory import BoardSpec, open_board
from drivers.granboard_map import CELLS, parse_notification
from drivers.granboard_source import GranboardSource
from drivers.matrix_map import load_map, parse_map
from engine import DB, SB, Bed
from firmware_bridge.cli import calibrate_command, monitor_command
from firmware_bridge.daemon.board_daemon import Daemon
from firmware_bridge.daemon.config import ConfigError, parse_config
from mqtt_client.backoff import Backoff
from mqtt_contract import TOPICS
from tests.daemon_harness import Watcher
from tests.drivers.fake_bleak_backend import FakeGranboard
from tests.mosquitto_broker import MosquittoBroker

TIMEOUT = 10.0  # for anything that must happen: generous, for a busy machine
EVENT_SCHEMA = Draft202012Validator(TOPICS["event"].schema)
"""Longest wait for any one event, so a broken driver fails instead of hanging."""

ADDRESS = "D4:22:CD:00:12:34"
SOURCE = f"granboard:{ADDRESS}"

RECORDED_THROWS = {
    # notification: bed, as recorded from a board (one of each ring and both bulls)
    b"3.4@": "T20",
    b"3.3@": "S20",
    b"3.5@": "S20",
    b"3.6@": "D20",
    b"2.3@": "S1",
    b"11.2@": "T7",
    b"10.6@": "D14",
    b"4.6@": "D5",
    b"8.0@": "SB",
    b"4.0@": "DB",
}


class Clock:
    """A clock the test moves: duplicates are judged by it, not by real time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Board:
    """A started source and its event stream, every wait bounded by TIMEOUT."""

    def __init__(self, source: GranboardSource) -> None:
        self.source = source
        self.stream: AsyncIterator[BoardEvent] = source.events()

    async def next(self) -> BoardEvent:
        return await asyncio.wait_for(anext(self.stream), TIMEOUT)

    async def take(self, count: int) -> list[BoardEvent]:
        return [await self.next() for _ in range(count)]

    async def close(self) -> None:
        await asyncio.wait_for(self.source.close(), TIMEOUT)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def boards(clock: Clock) -> AsyncIterator[Callable[..., Board]]:
    opened: list[Board] = []

    def start(fake: FakeGranboard, **options: object) -> Board:
        options.setdefault("backoff", Backoff(0.01, 0.05))
        options.setdefault("scan_timeout", 0.1)
        source = GranboardSource(
            scanner_backend=fake.scanner_backend(),
            client_backend=fake.client_backend(),
            clock=clock,
            **options,  # type: ignore[arg-type]
        )
        board = Board(source)
        opened.append(board)
        return board

    yield start
    for board in opened:
        await board.close()


async def connected(board: Board, fake: FakeGranboard) -> None:
    assert await board.next() == ConnectedEvent(SOURCE)
    await fake.wait_subscribed()


# ---------------------------------------------------------------- the table


def test_the_table_has_82_cells_and_every_bed() -> None:
    assert len(CELLS) == 82
    beds = set(CELLS.values())
    assert beds == {Bed(n, r) for n in range(1, 21) for r in (1, 2, 3)} | {SB, DB}
    # each number has two single cells (inner and outer), one triple and one double
    for number in range(1, 21):
        rings = sorted(bed.multiplier for bed in CELLS.values() if bed.number == number)
        assert rings == [1, 1, 2, 3]


def test_notifications_parse_to_cells_and_words() -> None:
    assert parse_notification(b"3.4@").cell == (3, 4)
    assert parse_notification(b"11.2@\x00\x00").cell == (11, 2)
    assert parse_notification(b"BTN@").word == "BTN"
    junk = parse_notification(b"\xff3.4")
    assert junk.cell is None and junk.word is None


# ---------------------------------------------------------------- notifications


async def test_all_82_cells_and_the_button_arrive_as_their_beds(
    boards: Callable[..., Board], clock: Clock
) -> None:
    fake = FakeGranboard(ADDRESS)
    board = boards(fake)
    await connected(board, fake)
    for (row, col), bed in CELLS.items():
        clock.advance(1.0)
        fake.notify(f"{row}.{col}@".encode())
        assert await board.next() == HitEvent(bed, row, col)
    clock.advance(1.0)
    fake.notify(b"BTN@")
    assert await board.next() == ButtonEvent("next")
    clock.advance(1.0)
    fake.notify(b"OUT@")
    assert await board.next() == ButtonEvent("miss")
    assert fake.writes == []  # no LED frames


async def test_a_recorded_visit_scores_as_thrown(
    boards: Callable[..., Board], clock: Clock
) -> None:
    fake = FakeGranboard(ADDRESS)
    board = boards(fake)
    await connected(board, fake)
    for payload in RECORDED_THROWS:
        clock.advance(0.8)
        fake.notify(payload)
    events = await board.take(len(RECORDED_THROWS))
    assert [e.segment.notation for e in events if isinstance(e, HitEvent) and e.segment] == list(
        RECORDED_THROWS.values()
    )


async def test_a_duplicate_notification_is_one_hit(
    boards: Callable[..., Board], clock: Clock
) -> None:
    fake = FakeGranboard(ADDRESS)
    board = boards(fake)
    await connected(board, fake)
    fake.notify(b"3.4@", b"3.4@")  # the same notification twice at once
    clock.advance(0.003)
    fake.notify(b"3.4@")  # and again a few ms later
    clock.advance(1.0)
    fake.notify(b"3.4@")  # a second dart in the same bed a second later
    clock.advance(0.002)
    fake.notify(b"BTN@", b"BTN@")
    events = await board.take(3)
    t20 = HitEvent(Bed.parse("T20"), 3, 4)
    assert events == [t20, t20, ButtonEvent("next")]
    assert board.source.duplicates == 3


async def test_unknown_notifications_are_errors_quoting_the_bytes(
    boards: Callable[..., Board], clock: Clock
) -> None:
    fake = FakeGranboard(ADDRESS)
    board = boards(fake)
    await connected(board, fake)
    fake.notify(b"5.9@")
    clock.advance(2.0)
    fake.notify(b"\x01\xfehello")
    clock.advance(2.0)
    fake.notify(b"ZAP@")
    clock.advance(2.0)
    fake.notify(b"3.4@")
    unmapped, garbage, word, hit = await board.take(4)
    assert isinstance(unmapped, ErrorEvent) and unmapped.kind == "unmapped-cell"
    assert "'5.9@'" in unmapped.message and "35 2e 39 40" in unmapped.message
    assert isinstance(garbage, ErrorEvent) and garbage.kind == "garbage"
    assert "'\\x01\\xfehello' (01 fe 68 65 6c 6c 6f)" in garbage.message  # as every bad line
    assert isinstance(word, ErrorEvent) and "'ZAP@'" in word.message
    assert hit == HitEvent(Bed.parse("T20"), 3, 4)  # the board goes on


# ---------------------------------------------------------------- finding and losing it


async def test_found_by_name_or_address_and_not_a_phone(boards: Callable[..., Board]) -> None:
    fake = FakeGranboard(ADDRESS, name="GRANBOARD3S-1234")
    by_name = boards(fake, name="granboard3s")
    assert await by_name.next() == ConnectedEvent(SOURCE)
    await by_name.close()
    by_address = boards(fake, address=ADDRESS.lower())
    assert await by_address.next() == ConnectedEvent(SOURCE)


async def test_a_board_that_is_not_there_is_reported_once(
    boards: Callable[..., Board],
) -> None:
    fake = FakeGranboard(ADDRESS, on=False)
    board = boards(fake, name="GRANBOARD")
    event = await board.next()
    assert event == DisconnectedEvent(
        "granboard:GRANBOARD*", "no GranBoard named GRANBOARD* (is it on and in range?)"
    )
    while fake.scans < 3:  # it keeps looking, without saying so again
        await asyncio.sleep(0.01)
    fake.switch_on()
    assert await board.next() == ConnectedEvent(SOURCE)


async def test_losing_the_board_reconnects_with_backoff(
    boards: Callable[..., Board], clock: Clock
) -> None:
    fake = FakeGranboard(ADDRESS)
    backoff = Backoff(0.01, 0.05)
    board = boards(fake, backoff=backoff)
    await connected(board, fake)
    fake.switch_off()
    lost = await board.next()
    assert isinstance(lost, DisconnectedEvent) and lost.source == SOURCE
    assert "disconnected" in lost.reason
    while fake.scans < 4:  # scans on, further apart each time
        await asyncio.sleep(0.01)
    assert backoff.failures > 0
    fake.switch_on()
    await connected(board, fake)
    assert backoff.failures == 0  # the connection reset the delay
    assert fake.connects == 2
    clock.advance(1.0)
    fake.notify(b"3.6@")
    assert await board.next() == HitEvent(Bed.parse("D20"), 3, 6)
    # a link that drops and comes straight back
    fake.drop()
    assert isinstance(await board.next(), DisconnectedEvent)
    await connected(board, fake)


async def test_closing_disconnects(boards: Callable[..., Board]) -> None:
    fake = FakeGranboard(ADDRESS)
    board = boards(fake)
    await connected(board, fake)
    await board.close()
    assert fake.clients == [] and fake.disconnects == 1


async def test_a_device_without_the_service_is_not_used(boards: Callable[..., Board]) -> None:
    fake = FakeGranboard(ADDRESS, has_service=False)
    board = boards(fake, address=ADDRESS)
    event = await board.next()
    assert isinstance(event, DisconnectedEvent) and "no GranBoard service" in event.reason
    assert fake.clients == []


# ---------------------------------------------------------------- battery


async def test_battery_is_read_at_connect_and_followed(boards: Callable[..., Board]) -> None:
    fake = FakeGranboard(ADDRESS, battery=87)
    board = boards(fake)
    assert await board.take(2) == [ConnectedEvent(SOURCE), BatteryEvent(87)]
    fake.set_battery(86)
    assert await board.next() == BatteryEvent(86)
    fake.set_battery(250)
    error = await board.next()
    assert isinstance(error, ErrorEvent) and error.kind == "battery" and "fa" in error.message


async def test_battery_without_notify_is_polled(boards: Callable[..., Board]) -> None:
    fake = FakeGranboard(ADDRESS, battery=60, battery_notifies=False)
    board = boards(fake, battery_poll=0.02)
    assert await board.take(2) == [ConnectedEvent(SOURCE), BatteryEvent(60)]
    fake.battery = 59
    while (event := await board.next()) == BatteryEvent(60):
        pass
    assert event == BatteryEvent(59)


async def test_no_battery_service_means_no_battery_events(
    boards: Callable[..., Board], clock: Clock
) -> None:
    fake = FakeGranboard(ADDRESS)
    board = boards(fake)
    await connected(board, fake)
    clock.advance(1.0)
    fake.notify(b"8.0@")
    assert await board.next() == HitEvent(SB, 8, 0)
    assert fake.battery_reads == 0


# ---------------------------------------------------------------- factory, overrides, CLI


def test_the_factory_builds_it_from_the_spec(tmp_path: Path) -> None:
    path = tmp_path / "granboard.toml"
    path.write_text('[board]\nname = "gb"\nrows = 12\ncols = 7\n\n[cells]\n"3,4" = "S20"\n')
    spec = BoardSpec(driver="granboard", ble_address=ADDRESS, map_path=str(path))
    source = open_board(spec)
    assert isinstance(source, GranboardSource)
    assert source.address == ADDRESS and source.source_id == SOURCE
    assert source.table[(3, 4)] == Bed.parse("S20")  # the map overrides the table
    assert source.table[(3, 6)] == Bed.parse("D20")  # the rest is the table's
    with pytest.raises(ValueError, match="not a Bluetooth address"):
        BoardSpec(driver="granboard", ble_address="granboard").check()


async def test_an_override_map_changes_a_cell(boards: Callable[..., Board]) -> None:
    matrix = parse_map(
        '[board]\nname = "gb"\nrows = 12\ncols = 7\n\n'
        '[cells]\n"3,4" = "T3"\n"8,1" = "button:undo"\n'
    )
    fake = FakeGranboard(ADDRESS)
    board = boards(fake, matrix=matrix)
    await connected(board, fake)
    fake.notify(b"3.4@")
    assert await board.next() == HitEvent(Bed.parse("T3"), 3, 4)
    board.source.clock = lambda: 5000.0
    fake.notify(b"8.1@")  # a cell the table leaves empty
    assert await board.next() == ButtonEvent("undo")


def build_parser() -> argparse.ArgumentParser:
    """The real ``monitor`` and ``calibrate`` command lines."""
    parser = argparse.ArgumentParser(prog="oche")
    commands = parser.add_subparsers()
    monitor_command.add_parser(commands)
    calibrate_command.add_parser(commands)
    return parser


@pytest.fixture
def fake_radio(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGranboard]:
    """The fake board as the default bleak backends, as the CLI builds the source."""
    fake = FakeGranboard(ADDRESS)
    monkeypatch.setattr(GranboardSource, "scanner_backend", fake.scanner_backend())
    monkeypatch.setattr(GranboardSource, "client_backend", fake.client_backend())
    yield fake


async def _wait_for_output(capsys: pytest.CaptureFixture[str], lines: int) -> list[str]:
    seen: list[str] = []
    async with asyncio.timeout(TIMEOUT):
        while len(seen) < lines:
            seen += capsys.readouterr().out.splitlines()
            await asyncio.sleep(0.01)
    return seen


async def test_monitor_prints_the_boards_events(
    fake_radio: FakeGranboard, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["monitor", "--driver", "granboard", "--ble-name", "gran"])
    task = asyncio.create_task(monitor_command.monitor(args))
    try:
        await fake_radio.wait_subscribed()
        fake_radio.notify(b"3.4@")
        await asyncio.sleep(0.2)  # past the duplicate window of real time
        fake_radio.notify(b"BTN@")
        lines = await _wait_for_output(capsys, 3)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert lines == [
        f'{{"type": "connected", "source": "{SOURCE}"}}',
        '{"type": "hit", "segment": "T20", "row": 3, "col": 4}',
        '{"type": "button", "button": "next"}',
    ]


def _table_cells_by_prompt() -> dict[str, tuple[int, int]]:
    """The table's cell for each bed prompt of the wizard (``TRIPLE 20``: 3,4)."""
    labels = ("INNER SINGLE", "TRIPLE", "OUTER SINGLE", "DOUBLE")
    cells = list(CELLS)
    by_label = {"OUTER BULL (SB)": cells[-2], "INNER BULL (DB)": cells[-1]}
    for number in range(1, 21):
        for label, cell in zip(labels, cells[(number - 1) * 4 : number * 4], strict=True):
            by_label[f"{label} {number}"] = cell
    return by_label


async def _wait_until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.01)


async def test_calibrate_checks_each_bed_and_records_the_differences(
    fake_radio: FakeGranboard, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """This board's T20 and inner S5 cells are swapped against the table: the
    wizard says so, and the map it writes puts them right for the driver."""
    out = tmp_path / "granboard.toml"
    cells = _table_cells_by_prompt()
    cells["TRIPLE 20"], cells["INNER SINGLE 5"] = (5, 1), (3, 4)
    output: list[str] = []

    def said(text: str) -> bool:
        output.append(capsys.readouterr().out)
        return text in "".join(output)

    args = build_parser().parse_args(["calibrate", "--driver", "granboard", "--out", str(out)])
    task = asyncio.create_task(calibrate_command.calibrate(args))
    try:
        await fake_radio.wait_subscribed()
        for prompt in PROMPTS:
            if prompt.bed is None:
                break
            await _wait_until(lambda: said(f"] Hit the {prompt.label} "))  # noqa: B023
            row, col = cells[prompt.label]
            fake_radio.notify(f"{row}.{col}@".encode())
            answer = f"cell {row},{col} = {prompt.target}"
            await _wait_until(lambda: said(answer))  # noqa: B023
        status = await asyncio.wait_for(task, TIMEOUT)
    finally:
        task.cancel()
    said("")
    text = "".join(output)
    assert status == 0
    assert "3.4 is T20 in the table, but here it is T20" not in text
    assert "5.1 is S5 in the table, but here it is T20: the map records it" in text
    assert "3.4 is T20 in the table, but here it is S5: the map records it" in text
    assert "the GranBoard's button is fixed" in text
    assert "82 of 82 beds checked" in text
    assert "2 beds differ from the built-in table" in text
    matrix = load_map(out)
    assert (matrix.rows, matrix.cols) == (12, 7)
    assert len(matrix.cells) == 82
    assert matrix.cells[(3, 4)] == Bed.parse("S5")
    assert matrix.cells[(5, 1)] == Bed.parse("T20")
    # the driver, given the map, now reads this board right
    source = open_board(BoardSpec(driver="granboard", map_path=str(out)))
    assert isinstance(source, GranboardSource)
    assert source.table[(5, 1)] == Bed.parse("T20") and source.table[(3, 4)] == Bed.parse("S5")


def test_the_config_checks_the_ble_settings() -> None:
    good = parse_config(
        '[board]\ndriver = "granboard"\nble_address = "d4:22:cd:00:12:34"\nble_name = "GRAN"\n',
        "test.toml",
    )
    spec = good.board.spec()
    assert (spec.driver, spec.ble_address, spec.ble_name) == (
        "granboard",
        "d4:22:cd:00:12:34",
        "GRAN",
    )
    with pytest.raises(ConfigError) as caught:
        parse_config('[board]\ndriver = "granboard"\nble_address = "my board"\n', "test.toml")
    assert len(caught.value.errors) == 1
    assert "board.ble_address" in caught.value.errors[0]
    assert "not a Bluetooth address" in caught.value.errors[0]


async def test_the_daemon_publishes_the_boards_battery_and_connection(
    tmp_path: Path, fake_radio: FakeGranboard
) -> None:
    """The real daemon on a real broker, reading the fake GranBoard."""
    fake_radio.battery = 87
    broker = MosquittoBroker(tmp_path / "mosquitto")
    broker.start()
    try:
        config = parse_config(
            f'[board]\nid = "board1"\ndriver = "granboard"\nble_address = "{ADDRESS}"\n\n'
            f'[mqtt]\nurl = "{broker.url}"\n\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n',
            "test.toml",
        )
        async with Watcher("127.0.0.1", broker.port) as watcher:
            daemon = asyncio.create_task(Daemon(config).run())
            try:
                # events sent before the daemon reached the broker are dropped (by
                # design): wait for its state, then change the battery
                await watcher.wait_for("state", lambda p: True)
                await fake_radio.wait_subscribed()
                fake_radio.set_battery(42)
                battery = await watcher.wait_for(
                    "event", lambda p: p.get("type") == "battery" and p["percent"] == 42
                )
                assert list(EVENT_SCHEMA.iter_errors(battery)) == []
                # the board goes away and comes back: both are events, and the
                # level is read again at the new connection
                fake_radio.drop()
                lost = await watcher.wait_for(
                    "event", lambda p: p.get("type") == "board_disconnected"
                )
                assert lost["source"] == SOURCE
                await watcher.wait_for("event", lambda p: p.get("type") == "board_connected")
                again = await watcher.count(
                    "event", lambda p: p.get("type") == "battery" and p["percent"] == 42, 2
                )
                assert again == 2 and fake_radio.battery_reads == 2
            finally:
                daemon.cancel()
                await asyncio.gather(daemon, return_exceptions=True)
    finally:
        broker.stop()
