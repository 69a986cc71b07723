"""``oche calibrate``: build a board's matrix map by hitting each bed in turn.

The wizard opens the board without a matrix map, so every contact arrives as
a raw cell, and asks for the beds and buttons in the order of
:data:`drivers.calibration.PROMPTS`. Keys typed at the terminal (``s`` skip,
``u`` undo, ``q`` save and quit) are read at the same time as board events.
The map is written atomically after every change, so a crash loses nothing;
``--resume`` continues a partial map. See docs/calibration.md.

A GranBoard (``--driver granboard``) reports cells of its own 12x7 matrix and
already has a table of them: the wizard checks that each prompted bed arrives
as that bed, says where this board differs, and writes the same kind of map,
which the driver then lays over its table (``[board] map``). The board's one
button is fixed (NEXT), so the button prompts are skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import re
import signal
import sys
import termios
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from drivers.board_decoder import DARTS_CODE_PROTOCOLS
from drivers.board_events import (
    BoardEvent,
    ButtonEvent,
    ConnectedEvent,
    DisconnectedEvent,
    ErrorEvent,
    HitEvent,
    ReleasedEvent,
    StuckEvent,
)
from drivers.calibration import Calibration, CalibrationError, Prompt
from drivers.factory import BoardSpec, open_board
from drivers.granboard_map import CELLS as GRANBOARD_CELLS
from drivers.granboard_map import COLS as GRANBOARD_COLS
from drivers.granboard_map import ROWS as GRANBOARD_ROWS
from drivers.matrix_map import MapError, dump_map, load_map
from drivers.protocol import MAX_CELL, Hello
from drivers.source import BoardSource
from drivers.terminal_input import read_chunks
from firmware_bridge.cli.command_support import (
    Commands,
    UsageError,
    add_board_arguments,
    board_spec,
    quiet_board_logs,
)

__all__ = ["add_parser", "calibrate"]

DEFAULT_OUT = "board.toml"
DEFAULT_NAME = "Dartboard"
HELLO_TIMEOUT = 5.0
"""Seconds to wait for the board's hello when the matrix size is not given."""
HELLO_RETRY = 1.0
"""Seconds between hello requests while waiting."""
KEYS = "s = skip, u = undo, q = save and quit"

_DEDICATED_BUTTON = re.compile(r"^button-(\d{1,2})$")


@dataclass(frozen=True, slots=True)
class _Key:
    """A character typed at the terminal."""

    char: str


@dataclass(frozen=True, slots=True)
class _Quit:
    """Ctrl-C or a termination signal: save and stop."""

    reason: str


@dataclass(frozen=True, slots=True)
class _SourceEnded:
    """The board source stopped yielding events."""


_Input = BoardEvent | _Key | _Quit | _SourceEnded


def _say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------- terminal


def _stdin_fd() -> int | None:
    try:
        return sys.stdin.fileno() if sys.stdin is not None else None
    except (AttributeError, ValueError, OSError):
        return None


@contextlib.contextmanager
def _cbreak() -> Iterator[None]:
    """Single keys without Enter and without echo while the wizard runs, when
    standard input is a terminal; its settings are restored afterwards."""
    fd = _stdin_fd()
    if fd is None or not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


async def _read_keys(queue: asyncio.Queue[_Input]) -> None:
    """Put every typed character on ``queue`` until standard input ends."""
    fd = _stdin_fd()
    if fd is None:
        return
    async for data in read_chunks(fd):
        for char in data.decode("utf-8", "replace"):
            queue.put_nowait(_Key(char))


async def _pump(board: BoardSource, queue: asyncio.Queue[_Input]) -> None:
    async for event in board:
        queue.put_nowait(event)
    queue.put_nowait(_SourceEnded())


# ---------------------------------------------------------------- the board


def _describe_event(event: BoardEvent) -> str | None:
    """A line for an event that is not an answer, or ``None`` to stay quiet."""
    if isinstance(event, ConnectedEvent):
        return f"  board connected ({event.source})"
    if isinstance(event, DisconnectedEvent):
        return f"  board disconnected ({event.source}: {event.reason}); waiting for it"
    if isinstance(event, StuckEvent):
        return f"  cell {event.row},{event.col} is stuck closed; ignored until it opens"
    if isinstance(event, ReleasedEvent):
        return f"  cell {event.row},{event.col} opened again"
    if isinstance(event, ErrorEvent):
        return f"  board error ({event.kind}): {event.message}"
    return None


# ---------------------------------------------------------------- the wizard


@dataclass
class _Session:
    board: BoardSource
    spec: BoardSpec
    queue: asyncio.Queue[_Input]
    calibration: Calibration
    out: Path
    name: str
    rows: int | None
    cols: int | None
    hello_timeout: float
    hello: Hello | None = None
    last_disconnect: str | None = None
    granboard: bool = False
    """The board has a built-in table (a GranBoard): check it, skip the buttons."""

    # ------------------------------------------------------------ output

    def save(self) -> None:
        assert self.rows is not None and self.cols is not None
        try:
            dump_map(self.calibration.to_map(self.name, self.rows, self.cols), self.out)
        except OSError as error:
            raise UsageError(f"cannot write {self.out}: {error.strerror or error}") from None

    def prompt(self) -> None:
        current = self.calibration.current
        if current is not None:
            total = self.calibration.total
            _say(f"[{self.calibration.position}/{total}] {current.instruction} ({KEYS})")

    def resume_hint(self) -> str:
        port = f" --port {self.spec.port}" if self.spec.port else ""
        driver = " --driver granboard" if self.granboard else ""
        return f"oche calibrate{driver}{port} --out {self.out} --resume"

    def table_differences(self) -> list[str]:
        """The cells where this GranBoard's map differs from the built-in table."""
        assert self.rows is not None and self.cols is not None
        cells = self.calibration.to_map(self.name, self.rows, self.cols).cells
        return [
            f"{row}.{col} = {target} (table: {GRANBOARD_CELLS.get((row, col), 'nothing')})"
            for (row, col), target in sorted(cells.items())
            if GRANBOARD_CELLS.get((row, col)) != target
        ]

    def granboard_summary(self) -> None:
        beds = [prompt for prompt in self.calibration.prompts if prompt.bed is not None]
        missing = [prompt for prompt in self.calibration.missing if prompt.bed is not None]
        differences = self.table_differences()
        _say(f"Saved {self.out}: {len(beds) - len(missing)} of {len(beds)} beds checked.")
        if differences:
            _say(
                f"{len(differences)} beds differ from the built-in table: {', '.join(differences)}."
            )
            _say(f'The driver corrects them with this map: [board] map = "{self.out}" (or --map).')
        else:
            _say("Every bed checked arrived as the built-in table says: no map is needed.")
        if missing:
            _say(f"To check the rest: {self.resume_hint()}")

    def skip_fixed_buttons(self) -> None:
        """A GranBoard's button is not mapped: skip the button prompts."""
        skipped = False
        while (current := self.calibration.current) is not None and current.button is not None:
            self.calibration.skip()
            skipped = True
        if skipped:
            _say("  the GranBoard's button is fixed (BTN@ = NEXT): nothing to map")

    def summary(self) -> None:
        if self.granboard:
            self.granboard_summary()
            return
        done, total = self.calibration.progress
        missing = self.calibration.missing
        if not missing:
            _say(f"Calibration complete: all {total} mapped. Saved {self.out}.")
            return
        _say(f"Saved {self.out}: {done} of {total} mapped.")
        if self.calibration.is_done:
            names = ", ".join(prompt.label for prompt in missing[:6])
            more = f" and {len(missing) - 6} more" if len(missing) > 6 else ""
            _say(f"Skipped: {names}{more}.")
        _say(f"To map the rest: {self.resume_hint()}")

    # ------------------------------------------------------------ hello

    def note_hello(self) -> None:
        """Report a hello the first time it is seen and check the matrix size."""
        hello = self.board.hello
        if hello is None or hello == self.hello:
            return
        self.hello = hello
        _say(f"  board says hello: firmware {hello.firmware}, {hello.rows}x{hello.cols} matrix")
        if self.rows is not None and (hello.rows, hello.cols) != (self.rows, self.cols):
            _say(
                f"  warning: the map is {self.rows}x{self.cols} but the board reports "
                f"{hello.rows}x{hello.cols}"
            )

    def note_event(self, event: BoardEvent) -> None:
        line = _describe_event(event)
        if line is not None:
            _say(line)
        if isinstance(event, DisconnectedEvent):
            self.last_disconnect = event.reason
        elif isinstance(event, ConnectedEvent):
            self.last_disconnect = None

    async def wait_for_size(self) -> bool:
        """Wait for the board's hello to learn the matrix size; ``False`` if the
        builder quit meanwhile. No hello in time is a :class:`UsageError`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.hello_timeout
        next_request = loop.time()
        _say(f"Waiting for the board to report its matrix size ({self.hello_timeout:g} s)...")
        while (hello := self.board.hello) is None:
            now = loop.time()
            if now >= deadline:
                if self.last_disconnect:
                    raise UsageError(
                        f"the board is not connected ({self.last_disconnect}); "
                        "check that it is plugged in and that --port names it"
                    )
                raise UsageError(
                    f"the board did not report its matrix size within "
                    f"{self.hello_timeout:g} s; give --rows and --cols"
                )
            if now >= next_request:
                await self.board.request_hello()
                next_request = now + HELLO_RETRY
            try:
                item = await asyncio.wait_for(
                    self.queue.get(), min(deadline, next_request) - loop.time()
                )
            except TimeoutError:
                continue
            if isinstance(item, _Quit) or (isinstance(item, _Key) and item.char in "qQ\x04"):
                _say("Stopped before calibrating; nothing written.")
                return False
            if isinstance(item, _SourceEnded):
                raise UsageError("the board source stopped before it reported its matrix size")
            if isinstance(item, HitEvent | ButtonEvent):
                _say("  ignored: the board has not reported its matrix size yet")
            elif isinstance(item, BoardEvent):
                self.note_event(item)
        self.rows, self.cols = hello.rows, hello.cols
        self.note_hello()
        return True

    # ------------------------------------------------------------ answers

    def answered(self, prompt: Prompt, what: str) -> None:
        _say(f"  {what} = {prompt.target}")
        self.save()

    def rejected(self, error: CalibrationError) -> None:
        _say(f"  {error}; try again")
        self.prompt()

    def on_hit(self, event: HitEvent) -> None:
        assert self.rows is not None and self.cols is not None
        if event.row is None or event.col is None:
            bed = event.segment.notation if event.segment else "?"
            _say(f"  the board reported a bed ({bed}), not a cell: it needs no calibration")
            return
        if not (event.row < self.rows and event.col < self.cols):
            _say(f"  cell {event.row},{event.col} is outside the {self.rows}x{self.cols} matrix")
            self.prompt()
            return
        try:
            prompt = self.calibration.assign(event.row, event.col)
        except CalibrationError as error:
            self.rejected(error)
            return
        self.answered(prompt, f"cell {event.row},{event.col}")
        if self.granboard and event.segment != prompt.bed:
            table = event.segment.notation if event.segment else "nothing"
            _say(
                f"  {event.row}.{event.col} is {table} in the table, but here it is "
                f"{prompt.target}: the map records it"
            )
        if self.granboard:
            self.skip_fixed_buttons()
        if not self.calibration.is_done:
            self.prompt()

    def on_button(self, event: ButtonEvent) -> None:
        match = _DEDICATED_BUTTON.match(event.button)
        if match is None:
            _say(f"  button {event.button!r} is not a dedicated button number; ignored")
            return
        try:
            prompt = self.calibration.assign_button(int(match[1]))
        except CalibrationError as error:
            self.rejected(error)
            return
        self.answered(prompt, f"button {match[1]}")
        self.prompt()

    def on_key(self, char: str) -> bool:
        """Handle a typed key; ``False`` to stop."""
        key = char.lower()
        if key in ("q", "\x04"):
            return False
        if key == "s":
            skipped = self.calibration.skip()
            _say(f"  skipped the {skipped.label}")
            if self.granboard:
                self.skip_fixed_buttons()
            if not self.calibration.is_done:
                self.prompt()
        elif key == "u":
            undone = self.calibration.undo()
            if undone is None:
                _say("  nothing to undo")
            else:
                _say(f"  undone: the {undone.label} is asked again")
                self.save()
            self.prompt()
        elif not char.isspace():
            _say(f"  keys: {KEYS}")
            self.prompt()
        return True

    async def run(self) -> int:
        if (self.rows is None or self.cols is None) and not await self.wait_for_size():
            return 0
        if self.granboard:
            self.skip_fixed_buttons()
        self.save()
        done, total = self.calibration.progress
        _say(
            f"Calibrating into {self.out}: {self.rows}x{self.cols} matrix, "
            f"{done} of {total} mapped. Hit each bed as it is named."
        )
        self.prompt()
        status = 0
        while not self.calibration.is_done:
            item = await self.queue.get()
            if isinstance(item, _Quit):
                _say(f"  {item.reason}")
                break
            if isinstance(item, _SourceEnded):
                _say("  the board source stopped")
                status = 1
                break
            if isinstance(item, _Key):
                if not self.on_key(item.char):
                    break
                continue
            self.note_hello()
            if isinstance(item, HitEvent):
                self.on_hit(item)
            elif isinstance(item, ButtonEvent):
                self.on_button(item)
            else:
                self.note_event(item)
                if isinstance(item, ConnectedEvent | DisconnectedEvent):
                    self.prompt()
        self.save()
        self.summary()
        return status


# ---------------------------------------------------------------- the command


def _matrix_size(args: argparse.Namespace) -> tuple[int | None, int | None]:
    if (args.rows is None) != (args.cols is None):
        raise UsageError("give both --rows and --cols, or neither (the board then reports them)")
    rows: int | None = args.rows
    cols: int | None = args.cols
    return rows, cols


def _check_port(port: str) -> None:
    """The wizard needs the board there now: a port that does not exist is an
    error at once, not a wait for a hello that cannot come."""
    if not os.path.exists(port):
        raise UsageError(
            f"no serial port {port}: is the board plugged in, and is that its port? "
            "(a Pico is usually /dev/ttyACM0, or /dev/oche-board after 'oche udev install')"
        )


def _prepare(
    args: argparse.Namespace,
) -> tuple[BoardSpec, Calibration, str, int | None, int | None]:
    """Check the options and load a resumed map; every problem is a UsageError."""
    if args.map_path:
        raise UsageError("calibrate writes a matrix map (--out FILE); it does not read one (--map)")
    if args.driver in ("keyboard", "simulated"):
        raise UsageError(
            f"the {args.driver} driver reports beds, not matrix cells: "
            "there is nothing to calibrate"
        )
    granboard = args.driver == "granboard"
    if args.protocol in DARTS_CODE_PROTOCOLS and not granboard:
        raise UsageError(
            f"a {args.protocol} board reports beds, not matrix cells: it needs no matrix map"
        )
    spec = dataclasses.replace(board_spec(args), map_path=None)
    if spec.driver == "serial" and spec.port and "://" not in spec.port:
        _check_port(spec.port)
    rows, cols = _matrix_size(args)
    if granboard and rows is None:
        rows, cols = GRANBOARD_ROWS, GRANBOARD_COLS
    out = Path(args.out)
    if not out.parent.is_dir():
        raise UsageError(f"cannot write {out}: the folder {out.parent} does not exist")
    if out.is_dir():
        raise UsageError(f"cannot write {out}: it is a folder")
    name: str = args.name if args.name is not None else DEFAULT_NAME
    if not args.resume:
        if out.exists() and not args.force:
            raise UsageError(f"{out} exists; use --resume to continue it or --force to start over")
        return spec, Calibration(), name, rows, cols
    if not out.exists():
        raise UsageError(f"--resume: {out} does not exist; leave out --resume to start a new map")
    try:
        matrix = load_map(out)
    except MapError as error:
        raise UsageError(f"--resume: {error}") from None
    if rows is not None and (rows, cols) != (matrix.rows, matrix.cols):
        raise UsageError(
            f"--rows {rows} --cols {cols} do not match {out}, "
            f"which is a {matrix.rows}x{matrix.cols} matrix"
        )
    if args.name is None:
        name = matrix.name
    return spec, Calibration.from_map(matrix), name, matrix.rows, matrix.cols


async def calibrate(args: argparse.Namespace) -> int:
    """Run the wizard; returns the exit status."""
    spec, calibration, name, rows, cols = _prepare(args)
    board = open_board(spec)
    queue: asyncio.Queue[_Input] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    handled: list[signal.Signals] = []
    for signum, reason in ((signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, queue.put_nowait, _Quit(reason))
            handled.append(signum)
    session = _Session(
        board, spec, queue, calibration, Path(args.out), name, rows, cols, args.hello_timeout
    )
    session.granboard = spec.driver == "granboard"
    tasks: list[asyncio.Task[None]] = []
    try:
        async with board:
            tasks.append(asyncio.create_task(_pump(board, queue), name="oche-calibrate-board"))
            tasks.append(asyncio.create_task(_read_keys(queue), name="oche-calibrate-keys"))
            return await session.run()
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for signum in handled:
            loop.remove_signal_handler(signum)


def _run(args: argparse.Namespace) -> int:
    quiet_board_logs()
    with _cbreak():
        try:
            return asyncio.run(calibrate(args))
        except KeyboardInterrupt:  # before the wizard's own handler was installed
            return 0


def _matrix_dimension(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_CELL + 1:
        raise argparse.ArgumentTypeError(f"{value} is outside 1-{MAX_CELL + 1}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"{text} is outside 0-600 seconds")
    return value


def add_parser(commands: Commands) -> None:
    parser = commands.add_parser(
        "calibrate",
        help="build a matrix map by hitting each bed in turn",
        description="A terminal wizard that names each bed (and then each button) and "
        "records the matrix cell the board reports for it. Keys: s skips, u undoes, "
        "q (or Ctrl-C) saves and quits. The map is saved after every answer; "
        "--resume continues it. See docs/calibration.md.",
    )
    parser.add_argument(
        "--out", default=DEFAULT_OUT, metavar="FILE", help=f"the map to write ({DEFAULT_OUT})"
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue the map in --out where it stopped"
    )
    parser.add_argument(
        "--force", action="store_true", help="start over even if --out exists (overwrites it)"
    )
    parser.add_argument(
        "--rows", type=_matrix_dimension, help="matrix rows (default: what the board reports)"
    )
    parser.add_argument(
        "--cols", type=_matrix_dimension, help="matrix columns (default: what the board reports)"
    )
    parser.add_argument(
        "--name",
        help=f"the board's name in the map (default {DEFAULT_NAME!r}, or the resumed map's)",
    )
    parser.add_argument(
        "--hello-timeout",
        type=_seconds,
        default=HELLO_TIMEOUT,
        metavar="SECONDS",
        help=f"how long to wait for the board to report its size ({HELLO_TIMEOUT:g})",
    )
    add_board_arguments(parser)
    parser.set_defaults(run=_run)
