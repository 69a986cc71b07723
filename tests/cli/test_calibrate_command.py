"""``oche calibrate`` end to end: the installed console script on a pseudo-terminal
(the builder's terminal) talking to another pseudo-terminal (the board)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import stat
import subprocess
import sys
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.calibration import PROMPTS
from drivers.matrix_map import ButtonCell, load_map
from drivers.protocol import (
    SEQ_MODULO,
    Button,
    Frame,
    Hello,
    HelloRequest,
    Hit,
    decode_frame,
    encode_frame,
)
from engine import ALL_BEDS, Bed

OCHE = Path(sys.executable).parent / "oche"
ROWS, COLS = 8, 12
TIMEOUT = 10.0
PROMPT_KEYS = re.escape("(s = skip, u = undo, q = save and quit)")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs pseudo-terminals")


def cell_of(index: int) -> tuple[int, int]:
    """The cell the simulated board reports for prompt ``index``."""
    row, col = divmod(index, COLS)
    return row, col


class Pty:
    """A pseudo-terminal whose master end the test holds; a thread collects
    everything written to the slave end."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.output = bytearray()
        self.changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:  # EIO: the slave end is closed everywhere
                data = b""
            if not data:
                time.sleep(0.05)
                continue
            with self.changed:
                self.output += data
                self.changed.notify_all()
            self.received(data)

    def received(self, data: bytes) -> None:
        """Called on the reader thread with each chunk."""

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class Terminal(Pty):
    """The builder's terminal: what the wizard prints, and keys to type."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def text(self) -> str:
        with self.changed:
            return self.output.decode("utf-8", "replace")

    def expect(
        self, pattern: str, timeout: float = TIMEOUT, anywhere: bool = False
    ) -> re.Match[str]:
        """Wait for ``pattern`` (a regex) after the last match and return it;
        ``anywhere`` searches all the output and leaves the position alone."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                text = self.output.decode("utf-8", "replace")
                match = regex.search(text, 0 if anywhere else self.seen)
                if match:
                    if not anywhere:
                        self.seen = match.end()
                    return match
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no {pattern!r} on the terminal within {timeout} s; after position "
                        f"{self.seen} it shows:\n{text[self.seen :]}"
                    )
                self.changed.wait(left)

    def expect_prompt(self, number: int, words: str) -> None:
        self.expect(rf"\[{number}/89\] {re.escape(words)} {PROMPT_KEYS}")

    def type(self, keys: str) -> None:
        self.write(keys.encode())


class Board(Pty):
    """The simulated board: answers a hello request and sends frames."""

    def __init__(self, answer_hello: bool = True) -> None:
        self.answer_hello = answer_hello
        self.requests = 0
        self.seq = 0
        self._lines = b""
        super().__init__()
        tty.setraw(self.slave)  # as a serial port: no echo, no line editing

    def received(self, data: bytes) -> None:
        self._lines += data
        *lines, self._lines = self._lines.split(b"\n")
        for line in lines:
            frame = decode_frame(line.rstrip(b"\r"))
            if isinstance(frame, HelloRequest):
                self.requests += 1
                if self.answer_hello:
                    self.seq = 0
                    self.send(Hello(0, 1, ROWS, COLS, "test-fw-1"))

    def send(self, frame: Frame) -> None:
        self.write(encode_frame(frame))

    def next_seq(self) -> int:
        self.seq = (self.seq + 1) % SEQ_MODULO
        return self.seq

    def hit(self, row: int, col: int) -> None:
        self.send(Hit(self.next_seq(), row, col))

    def hit_prompt(self, index: int) -> None:
        self.hit(*cell_of(index))

    def button(self, number: int) -> None:
        self.send(Button(self.next_seq(), number))


class Wizard:
    """One ``oche calibrate`` process on a terminal and a board."""

    def __init__(self, cwd: Path, *args: str, board: Board | None = None) -> None:
        self.terminal = Terminal()
        self.board = board or Board()
        self.process = subprocess.Popen(
            [str(OCHE), "calibrate", "--port", self.board.path, *args],
            stdin=self.terminal.slave,
            stdout=self.terminal.slave,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def finish(self, timeout: float = TIMEOUT) -> tuple[int, str]:
        """Wait for the process; returns its status and standard error."""
        try:
            _, stderr = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate()
            raise AssertionError(
                f"oche calibrate did not finish; terminal:\n{self.terminal.text()}\n"
                f"stderr:\n{stderr.decode()}"
            ) from None
        return self.process.returncode, stderr.decode()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()
        elif self.process.stderr is not None:
            self.process.stderr.close()
        self.terminal.close()
        self.board.close()


@pytest.fixture
def wizards() -> Iterator[list[Wizard]]:
    started: list[Wizard] = []
    yield started
    for wizard in started:
        wizard.close()


def start(wizards: list[Wizard], cwd: Path, *args: str, board: Board | None = None) -> Wizard:
    wizard = Wizard(cwd, *args, board=board)
    wizards.append(wizard)
    return wizard


def saved_cells(path: Path) -> dict[str, str]:
    return {f"{r},{c}": str(target) for (r, c), target in load_map(path).cells.items()}


def test_the_prompt_order_matches_the_cells_the_test_uses() -> None:
    assert len(PROMPTS) == 89
    assert len({cell_of(i) for i in range(84)}) == 84
    assert all(r < ROWS for r, _ in map(cell_of, range(84)))


@pytest.mark.slow
def test_quit_then_resume_to_a_full_map(tmp_path: Path, wizards: list[Wizard]) -> None:
    out = tmp_path / "board.toml"

    # First session: the size comes from the board's hello.
    first = start(wizards, tmp_path)
    t, board = first.terminal, first.board
    t.expect(r"board says hello: firmware test-fw-1, 8x12 matrix")
    t.expect_prompt(1, "Hit the INNER SINGLE 20")
    assert board.requests >= 1
    assert load_map(out).cells == {}  # written before the first answer
    board.hit_prompt(0)
    t.expect(r"cell 0,0 = S20")
    t.expect_prompt(2, "Hit the TRIPLE 20")
    board.hit_prompt(1)
    t.expect_prompt(3, "Hit the OUTER SINGLE 20")
    assert saved_cells(out) == {"0,0": "S20", "0,1": "T20"}  # saved after every answer

    board.hit(0, 0)  # taken: asked again
    t.expect(r"cell 0,0 is already the INNER SINGLE 20; try again")
    t.expect_prompt(3, "Hit the OUTER SINGLE 20")
    board.button(0)  # a dedicated button is no bed: asked again
    t.expect(r"button 0 is a dedicated button, not a bed")
    t.expect_prompt(3, "Hit the OUTER SINGLE 20")
    board.hit_prompt(2)
    t.expect_prompt(4, "Hit the DOUBLE 20")

    t.type("s")
    t.expect(r"skipped the DOUBLE 20")
    t.expect_prompt(5, "Hit the INNER SINGLE 1")
    board.hit_prompt(4)
    t.expect_prompt(6, "Hit the TRIPLE 1")
    assert "0,4" in saved_cells(out)

    t.type("u")
    t.expect(r"undone: the INNER SINGLE 1 is asked again")
    t.expect_prompt(5, "Hit the INNER SINGLE 1")
    assert "0,4" not in saved_cells(out)
    board.hit_prompt(4)  # the freed cell can be answered again
    t.expect_prompt(6, "Hit the TRIPLE 1")
    board.hit_prompt(5)
    t.expect_prompt(7, "Hit the OUTER SINGLE 1")

    t.type("q")
    status, stderr = first.finish()
    assert (status, stderr) == (0, "")
    t.expect(r"Saved .*board\.toml: 5 of 89 mapped")
    saved = load_map(out)
    assert (saved.name, saved.rows, saved.cols) == ("Dartboard", ROWS, COLS)
    assert saved_cells(out) == {
        "0,0": "S20",
        "0,1": "T20",
        "0,2": "S20",
        "0,4": "S1",
        "0,5": "T1",
    }
    assert "D20" not in out.read_text()
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask  # not a private temp file's 0600
    out.chmod(0o640)

    # Second session: continue with the skipped double, then all the rest.
    second = start(wizards, tmp_path, "--resume", "--hello-timeout", "3")
    t, board = second.terminal, second.board
    t.expect(r"5 of 89 mapped")
    t.expect_prompt(4, "Hit the DOUBLE 20")
    t.expect(r"board connected", anywhere=True)  # the size is known: no hello to wait for
    board.hit_prompt(3)
    t.expect_prompt(7, "Hit the OUTER SINGLE 1")
    for index in range(6, 84):  # beds, then NEXT and UNDO wired into the matrix
        board.hit_prompt(index)
    for number in range(5):  # MISS, GAME, PLAYER, START and BOUNCE as dedicated buttons
        board.button(number)
    t.expect(r"Calibration complete: all 89 mapped", timeout=15)
    status, stderr = second.finish()
    assert (status, stderr) == (0, "")

    full = load_map(out)
    assert (full.rows, full.cols) == (ROWS, COLS)
    beds = [target for target in full.cells.values() if isinstance(target, Bed)]
    assert set(beds) == set(ALL_BEDS) - {Bed(0, 0)}
    assert len(beds) == 82
    assert all(beds.count(Bed(n, 1)) == 2 for n in range(1, 21))
    assert full.cells == {cell_of(i): PROMPTS[i].target for i in range(84)}
    assert full.cells[cell_of(82)] == ButtonCell("next")
    assert full.cells[cell_of(83)] == ButtonCell("undo")
    assert dict(full.buttons) == {0: "miss", 1: "game", 2: "player", 3: "start", 4: "bounce"}
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # kept on resume


def test_ctrl_c_saves_and_exits_0(tmp_path: Path, wizards: list[Wizard]) -> None:
    out = tmp_path / "my-board.toml"
    wizard = start(wizards, tmp_path, "--out", str(out), "--rows", "8", "--cols", "12")
    t = wizard.terminal
    t.expect_prompt(1, "Hit the INNER SINGLE 20")
    # The size is given, so the first prompt may come before the port is open
    # (and opening it drops anything sent before).
    t.expect(r"board connected", anywhere=True)
    wizard.board.hit(7, 11)
    t.expect_prompt(2, "Hit the TRIPLE 20")
    wizard.process.send_signal(signal.SIGINT)
    status, stderr = wizard.finish()
    assert (status, stderr) == (0, "")
    t.expect(r"Saved .*my-board\.toml: 1 of 89 mapped")
    assert saved_cells(out) == {"7,11": "S20"}


def test_no_hello_and_no_size_is_a_clear_error(tmp_path: Path, wizards: list[Wizard]) -> None:
    wizard = start(wizards, tmp_path, "--hello-timeout", "0.5", board=Board(answer_hello=False))
    status, stderr = wizard.finish()
    assert status == 2
    assert "did not report its matrix size" in stderr
    assert "--rows and --cols" in stderr
    assert not (tmp_path / "board.toml").exists()


@pytest.mark.parametrize("size", [(), ("--rows", "8", "--cols", "12")], ids=["hello", "sized"])
def test_a_missing_port_is_named_at_once(
    tmp_path: Path, wizards: list[Wizard], size: tuple[str, ...]
) -> None:
    """Once this waited for a hello and then asked for --rows and --cols (or,
    with them, waited for the board for ever)."""
    missing = tmp_path / "ttyACM9"
    wizard = start(wizards, tmp_path, "--port", str(missing), *size)
    status, stderr = wizard.finish()
    assert status == 2
    assert stderr == (
        f"oche calibrate: no serial port {missing}: is the board plugged in, and is that its "
        "port? (a Pico is usually /dev/ttyACM0, or /dev/oche-board after 'oche udev install')\n"
    )
    assert wizard.terminal.text() == ""
    assert not (tmp_path / "board.toml").exists()


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["--resume"], "does not exist"),
        ("[board]\nrows = 0\n", ["--resume"], "--resume: "),
        ("not toml [", ["--resume"], "not valid TOML"),
        ("[board]\nrows = 8\ncols = 12\n", [], "exists; use --resume"),
        (None, ["--rows", "8"], "both --rows and --cols"),
        (None, ["--rows", "0", "--cols", "8"], "outside 1-256"),
        (None, ["--map", "x.toml"], "does not read one"),
        ("[board]\nrows = 8\ncols = 12\n", ["--resume", "--rows", "8", "--cols", "10"], "8x12"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, wizards: list[Wizard], setup: str | None, args: list[str], message: str
) -> None:
    out = tmp_path / "board.toml"
    if setup is not None:
        out.write_text(setup)
    wizard = start(wizards, tmp_path, *args)
    status, stderr = wizard.finish()
    assert status == 2
    assert message in stderr
    assert wizard.terminal.text() == ""
    if setup is not None:
        assert out.read_text() == setup  # left alone
