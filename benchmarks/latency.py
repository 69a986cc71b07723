"""Daemon latency: a dart on the board to its state on MQTT, against the bare
broker round trip; start-up with a long journal; the idle daemon's CPU and memory.

Everything is real: a private Mosquitto on a free loopback port (never the
machine's own 1883), ``oche run`` as a subprocess with a serial board on a
pseudo-terminal behind a symlink, and its SQLite journal in a temporary
directory (``$TMPDIR``, normally on disk, as a board's journal is). The
benchmark's MQTT clients set TCP_NODELAY, as the daemon does.

- **hit -> state**: a cricket game for two players, single 1 to 14 only (no
  cricket number, so it never ends). For each dart one ``H`` frame is written
  to the pty and the clock stops when a ``state`` message arrives whose
  players' dart count went up. After every third dart the board is in takeout:
  a NEXT button frame ends it (not timed). Split by the dart's place in the
  visit too: the daemon publishes a dart's events before its state, one
  (``dart``) for darts 1-2, three (``dart``, ``visit_end``, ``takeout``) for
  dart 3. The daemon's CPU time over the darts (NEXTs included) per dart.
- **floor**: what any design pays between a frame and a published state,
  one sample of each part after every dart (so the floor and the darts see
  the same moments of the shared machine's load): the **pty hop** (one
  ``H`` frame written to a pseudo-terminal's master until an event loop has
  read it whole on the slave side), **one SQLite commit** with the journal's
  settings (WAL, ``synchronous=FULL``: one event row inserted and committed)
  and the **bare round trip** (a QoS 1 message published by one client of the
  same broker to another that subscribes to it). The i-th samples of the
  three are added, and ``p99 hit -> state / floor`` divides by the p99 of
  those sums. The benchmark's own CPU time in those parts (the sleeps before
  them left out) is the **floor's CPU per dart**, beside the daemon's: the
  least any process pays with these libraries for one durable dart and one
  acknowledged message (the bare round trip counts a message out and one in,
  as the daemon's publish counts a message out and its PUBACK in).
- **start-up**: from launching ``oche run`` to the retained ``state`` reaching
  a client that subscribed before the launch, with an empty journal and with
  an unfinished game of 1,000 darts (plus its NEXTs) to replay. The daemon
  runs from bytecode, as an installed one does (pip compiles it): its
  ``__pycache__`` goes to the benchmark's temporary directory
  (``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says), and
  an untimed launch fills it first.
- **idle**: the daemon's CPU time over 10 s of no input (``/proc/<pid>/stat``)
  and its resident memory (``VmRSS``) after the darts.
- **a quarter of one core**: the darts and their floor again, a second daemon
  and the floor's samples each limited to a quarter of one core (a Raspberry
  Pi-class budget; ``benchmarks/cpu_limit.py`` says how, the table which
  way this machine allowed); the broker is not limited. ``--cpu-share 0``
  leaves it out.
- **instructions** (``--instructions``): the darts again (no floor), a third
  daemon under valgrind's callgrind counting the instructions it runs in user
  space over the darts only (``callgrind_control`` switches the count on and
  off around them): a figure the machine's load does not move, unlike CPU
  time on a shared machine (the system calls' kernel work is not in it). About
  thirty times slower; needs valgrind.

Self-contained (only the product's own packages, aiomqtt and a ``mosquitto``
binary), so changes to the test helpers do not move its figures.
Run from the checkout: ``make bench`` or ``python -m benchmarks.latency [--hits N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt

from benchmarks.cpu_limit import CpuLimit
from benchmarks.drivers import percentile
from benchmarks.report import print_rows
from drivers.matrix_map import MatrixMap, dump_map
from drivers.protocol import SEQ_MODULO, Button, Frame, Hit, encode_frame
from engine import ALL_BEDS, MISS, Bed
from firmware_bridge.daemon.journal import Journal

BOARD = "board1"
STATE_TOPIC = f"oche/{BOARD}/state"
COMMAND_TOPIC = f"oche/{BOARD}/cmd"
PLAYERS = ["A", "B"]
THROWN = [Bed.parse(f"S{number}") for number in range(1, 15)]
"""The beds thrown: no cricket number among them, so the game never ends."""
NEXT_BUTTON = 0
COLS = 12
BEDS = [bed for bed in ALL_BEDS if bed != MISS]
CELLS = {bed: divmod(index, COLS) for index, bed in enumerate(BEDS)}
"""The bench board's map: every bed has a cell; button 0 is NEXT."""
NODELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
TIMEOUT = 10.0
IDLE_S = 10.0
TARGET_P99_MS = 2.0
TARGET_FLOOR_RATIO = 1.5
TARGET_CPU_MS = 0.5
TARGET_STARTUP_MS = 250.0


# ------------------------------------------------------------------ fixtures


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()),
        None,
    )
    if found is None:
        sys.exit("mosquitto is not installed (make mosquitto, or apt-get install mosquitto)")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, process: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited: {tail(log)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"{what} did not listen on {port} within {TIMEOUT:g} s")


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text("utf-8", "replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextlib.contextmanager
def mosquitto(workdir: Path, extra_config: str = "") -> Iterator[int]:
    """A private Mosquitto on a free loopback port; yields the port.
    ``extra_config`` adds lines to its config file."""
    port = free_port()
    config, log = workdir / "mosquitto.conf", workdir / "mosquitto.log"
    config.write_text(
        f"listener {port} 127.0.0.1\n"
        "allow_anonymous true\n"
        "persistence false\n"
        "set_tcp_nodelay true\n"
        f"{extra_config}"
        f"log_dest file {log}\n"
        "log_type error\nlog_type warning\n" + ("user root\n" if os.geteuid() == 0 else ""),
        "utf-8",
    )
    process = subprocess.Popen(
        [mosquitto_binary(), "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(port, process, "mosquitto", log)
        yield port
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


class PtyBoard:
    """A board at the end of a pseudo-terminal; the daemon opens :attr:`link`."""

    def __init__(self, link: Path) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo or line editing before the daemon configures it
        os.set_blocking(self.master, False)
        self.link = link
        link.symlink_to(os.ttyname(self.slave))
        self.seq = 0

    def send(self, frame: Frame) -> None:
        data = encode_frame(frame)
        if os.write(self.master, data) != len(data):  # a pty takes a frame whole
            raise RuntimeError("short write to the pty")

    def next_seq(self) -> int:
        seq, self.seq = self.seq, (self.seq + 1) % SEQ_MODULO
        return seq

    def hit(self, bed: Bed) -> None:
        self.send(Hit(self.next_seq(), *CELLS[bed]))

    def button(self, index: int) -> None:
        self.send(Button(self.next_seq(), index))

    def drain(self) -> None:
        """Discard what the daemon sent (its hello request)."""
        with contextlib.suppress(BlockingIOError, OSError):
            while os.read(self.master, 4096):
                pass

    def close(self) -> None:
        self.link.unlink(missing_ok=True)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def write_config(
    workdir: Path, port: int, board: PtyBoard, board_id: str = BOARD, extra: str = ""
) -> Path:
    map_path = workdir / "board-map.toml"
    cells = {cell: bed for bed, cell in CELLS.items()}
    rows = (len(BEDS) + COLS - 1) // COLS
    dump_map(MatrixMap("bench board", rows, COLS, cells, {NEXT_BUTTON: "next"}), map_path)
    path = workdir / "oche.toml"
    path.write_text(
        f"""
[board]
id = "{board_id}"
name = "Bench board"
driver = "serial"
port = "{board.link}"
map = "{map_path}"

[mqtt]
url = "mqtt://127.0.0.1:{port}"

[visit]
takeout_s = 0
coalesce_ms = 0

[journal]
path = "{workdir / "journal.sqlite3"}"
{extra}
""",
        "utf-8",
    )
    return path


def oche_binary() -> str:
    beside = Path(sys.executable).parent / "oche"
    found = str(beside) if beside.exists() else shutil.which("oche")
    if found is None:
        sys.exit("oche is not installed: run make bench (it installs the checkout into .venv)")
    return found


def launch(
    config: Path, log: Path, profile: Path | None = None, under: tuple[str, ...] = ()
) -> subprocess.Popen[bytes]:
    """``oche run``; under cProfile, writing its statistics to ``profile`` on
    exit; ``under`` runs it under another command (callgrind). Its bytecode is
    cached beside the config (see the module docstring)."""
    command = [*under, oche_binary(), "run", "--config", str(config)]
    if profile is not None:
        command = [sys.executable, "-m", "cProfile", "-o", str(profile), *command]
    environment = {
        key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
    }
    environment["PYTHONPYCACHEPREFIX"] = str(config.parent.parent / "pycache")
    with log.open("ab") as output:
        return subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
        )


# ------------------------------------------------------------------- MQTT


def client(port: int) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", port, socket_options=NODELAY)


async def receive(
    subscriber: aiomqtt.Client,
    topic: str,
    predicate: Callable[[Any], bool],
    why: str,
    timeout: float = TIMEOUT,
) -> tuple[float, Any]:
    """``(perf_counter at arrival, JSON payload)`` of the next message on
    ``topic`` that satisfies ``predicate``."""
    try:
        async with asyncio.timeout(timeout):
            async for message in subscriber.messages:
                arrived = time.perf_counter()
                if str(message.topic) != topic or not isinstance(message.payload, bytes):
                    continue
                if not message.payload:
                    continue
                payload = json.loads(message.payload)
                if predicate(payload):
                    return arrived, payload
    except TimeoutError:
        raise RuntimeError(f"no message on {topic} {why} within {timeout:g} s") from None
    raise RuntimeError("the subscriber was disconnected")


def darts(state: dict[str, Any]) -> int:
    """Darts thrown in the state's game (-1 without a game)."""
    if not state.get("game"):
        return -1
    return sum(int(player["stats"]["darts"]) for player in state["players"])


def more_darts_than(count: int) -> Callable[[Any], bool]:
    return lambda state: darts(state) > count


def numbered(n: int) -> Callable[[Any], bool]:
    return lambda payload: payload["n"] == n


# --------------------------------------------------------------- measures


class Floor:
    """What any design pays, one sample of each part at a time: taken between
    the darts, the floor and the darts see the same moments of the shared
    machine's load. Each sample starts after ``gap_s`` of idle, as a dart does."""

    ROUND_TRIP_TOPIC = "bench/round-trip"

    def __init__(self, port: int, journal: Path, gap_s: float, limit: CpuLimit | None) -> None:
        self.port, self.journal, self.gap_s = port, journal, gap_s
        self.limit = limit
        self.pty: list[float] = []
        self.commit: list[float] = []
        self.bare: list[float] = []
        self.cpu_ms = 0.0
        """The benchmark process's CPU time (ms) spent in the samples' parts,
        the sleeps before them left out: the floor's own CPU."""
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Floor:
        stack = self._stack
        # The pty hop: one H frame from the master to an event loop's read of
        # all of it on the slave side (raw mode, as the serial driver sets it).
        self._master, self._slave = os.openpty()
        stack.callback(os.close, self._master)
        stack.callback(os.close, self._slave)
        tty.setraw(self._slave)
        os.set_blocking(self._slave, False)
        self._frame = encode_frame(Hit(0, 0, 0))
        self._received = bytearray()
        self._whole: asyncio.Future[float] | None = None
        loop = asyncio.get_running_loop()
        loop.add_reader(self._slave, self._readable)
        stack.callback(loop.remove_reader, self._slave)
        # One SQLite commit of one event row, with the journal's schema and
        # settings (WAL, synchronous=FULL), on the journal's disk.
        with Journal(self.journal) as journal:
            self._game = journal.games.start_game(
                "cricket", {}, list(PLAYERS), None, BOARD, time.time()
            )
        self._connection = sqlite3.connect(self.journal, isolation_level=None)
        stack.callback(self._connection.close)
        self._connection.execute("PRAGMA journal_mode = WAL")
        self._connection.execute("PRAGMA synchronous = FULL")
        # The bare round trip: a small QoS 1 message from one client of the
        # broker to another subscribed to it.
        self._subscriber = await stack.enter_async_context(client(self.port))
        self._publisher = await stack.enter_async_context(client(self.port))
        await self._subscriber.subscribe(self.ROUND_TRIP_TOPIC, qos=1)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    def _readable(self) -> None:
        self._received.extend(os.read(self._slave, 4096))
        whole = self._whole
        if len(self._received) >= len(self._frame) and whole is not None and not whole.done():
            whole.set_result(time.perf_counter())

    async def sample(self) -> None:
        """One sample of each part (under :attr:`limit`, when there is one)."""
        with self.limit.confining() if self.limit is not None else contextlib.nullcontext():
            await self._sample()

    async def _sample(self) -> None:
        await asyncio.sleep(self.gap_s)
        self._received.clear()
        self._whole = asyncio.get_running_loop().create_future()
        cpu = time.process_time()
        start = time.perf_counter()
        os.write(self._master, self._frame)
        self.pty.append((await asyncio.wait_for(self._whole, TIMEOUT) - start) * 1000)
        self.cpu_ms += (time.process_time() - cpu) * 1000

        await asyncio.sleep(self.gap_s)
        cpu = time.process_time()
        start = time.perf_counter()
        self._connection.execute("BEGIN IMMEDIATE")
        self._connection.execute(
            "INSERT INTO events (game_id, seq, token, at) VALUES (?, ?, ?, ?)",
            (self._game, len(self.commit) + 1, "S1", time.time()),
        )
        self._connection.execute("COMMIT")
        self.commit.append((time.perf_counter() - start) * 1000)
        self.cpu_ms += (time.process_time() - cpu) * 1000

        await asyncio.sleep(self.gap_s)
        n = len(self.bare)
        cpu = time.process_time()
        start = time.perf_counter()
        sending = asyncio.ensure_future(
            self._publisher.publish(self.ROUND_TRIP_TOPIC, json.dumps({"n": n}).encode(), qos=1)
        )
        arrived, _ = await receive(self._subscriber, self.ROUND_TRIP_TOPIC, numbered(n), f"n={n}")
        await sending
        self.bare.append((arrived - start) * 1000)
        self.cpu_ms += (time.process_time() - cpu) * 1000

    def sums(self) -> list[float]:
        """The i-th samples of the three parts added: the floor of the i-th dart."""
        return [a + b + c for a, b, c in zip(self.pty, self.commit, self.bare, strict=True)]

    @property
    def cpu_per_dart_ms(self) -> float:
        return self.cpu_ms / max(len(self.commit), 1)


class Instructions:
    """The instructions a daemon runs in user space between :meth:`start` and
    :meth:`stop`, counted by valgrind's callgrind (see the module docstring)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.total = 0

    @staticmethod
    def available() -> bool:
        """Whether valgrind and its ``callgrind_control`` are installed."""
        return (
            shutil.which("valgrind") is not None and shutil.which("callgrind_control") is not None
        )

    def under(self) -> tuple[str, ...]:
        """The command the daemon runs under: callgrind, counting nothing yet."""
        return (
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={self.out}",
        )

    def start(self, pid: int) -> None:
        subprocess.run(["callgrind_control", "-i", "on", str(pid)], check=True, capture_output=True)

    def stop(self, pid: int) -> None:
        """Stop counting and read the count from callgrind's dump."""
        subprocess.run(
            ["callgrind_control", "-i", "off", str(pid)], check=True, capture_output=True
        )
        subprocess.run(["callgrind_control", "-d", str(pid)], check=True, capture_output=True)
        for dump in sorted(self.out.parent.glob(f"{self.out.name}.*")):  # the dumps: out.1, ...
            for line in dump.read_text("utf-8", "replace").splitlines():
                if line.startswith("totals:"):
                    self.total += int(line.split()[1])


def prepare_journal(path: Path, count: int) -> None:
    """An unfinished cricket game of ``count`` darts with a NEXT after each visit,
    as the daemon journals them."""
    now = time.time()
    with Journal(path) as journal:
        game = journal.games.start_game("cricket", {}, list(PLAYERS), None, BOARD, now)
        for i in range(count):
            journal.games.append(game, THROWN[i % len(THROWN)].notation, now)
            if i % 3 == 2 and i < count - 1:
                journal.games.append(game, "NEXT", now)


async def startup_ms(workdir: Path, port: int, journal_darts: int, runs: int) -> list[float]:
    """Milliseconds from launching ``oche run`` to its retained state reaching a
    client subscribed before the launch, ``runs`` times on the same journal."""
    workdir.mkdir()
    board = PtyBoard(workdir / "oche-board")
    try:
        config = write_config(workdir, port, board)
        if journal_darts:
            prepare_journal(workdir / "journal.sqlite3", journal_darts)
        times: list[float] = []
        for attempt in range(runs + 1):  # the first fills the bytecode cache: not timed
            async with client(port) as subscriber:
                # No retained state from an earlier run: an empty payload deletes it.
                await subscriber.publish(STATE_TOPIC, b"", qos=1, retain=True)
                await subscriber.subscribe(STATE_TOPIC, qos=1)
                start = time.perf_counter()
                process = launch(config, workdir / "daemon.log")
                try:
                    arrived, state = await receive(
                        subscriber, STATE_TOPIC, lambda s: True, "after the launch", 30.0
                    )
                    want = journal_darts if journal_darts else -1
                    if darts(state) != want:
                        raise RuntimeError(f"resumed with {darts(state)} darts, not {want}")
                    if attempt:
                        times.append((arrived - start) * 1000)
                finally:
                    stop(process)
            board.drain()
        return times
    finally:
        board.close()


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of ``pid`` (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid``."""
    return sum(cpu_times(pid))


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class HitResults:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.cpu_per_dart_ms = 0.0
        self.system_per_dart_ms = 0.0
        self.idle_cpu_percent = 0.0
        self.rss_mib = 0.0


async def hit_to_state(
    workdir: Path,
    port: int,
    hits: int,
    gap_s: float,
    floor: Floor | None,
    profile: Path | None = None,
    idle_s: float = IDLE_S,
    limit: CpuLimit | None = None,
    instructions: Instructions | None = None,
) -> HitResults:
    """The hit -> state latencies, each dart followed by one sample of the
    floor (none without ``floor``), then (``idle_s`` > 0) the idle CPU and
    memory of the same daemon; with ``limit``, the daemon is limited from its
    launch; with ``instructions``, it runs under callgrind, which counts the
    darts' instructions."""
    wait = TIMEOUT if instructions is None else 60.0  # callgrind: about 30x slower
    workdir.mkdir()
    board = PtyBoard(workdir / "oche-board")
    results = HitResults()
    log = workdir / "daemon.log"
    try:
        config = write_config(workdir, port, board)
        async with client(port) as watch:
            await watch.publish(STATE_TOPIC, b"", qos=1, retain=True)  # the start-up runs' state
            await watch.subscribe(STATE_TOPIC, qos=1)
            process = launch(config, log, profile, instructions.under() if instructions else ())
            if limit is not None:
                limit.add(process.pid)
            try:
                await receive(
                    watch, STATE_TOPIC, lambda s: s["board"]["connected"], "board connected", wait
                )
                command = {"command": "new_game", "game": "cricket", "players": PLAYERS}
                await watch.publish(COMMAND_TOPIC, json.dumps(command).encode(), qos=1)
                await receive(
                    watch,
                    STATE_TOPIC,
                    lambda s: s["game"] == "cricket" and s["phase"] == "throwing" and darts(s) == 0,
                    "for the new game",
                    wait,
                )
                user_before, system_before = cpu_times(process.pid)
                if instructions is not None:
                    instructions.start(process.pid)
                for thrown in range(hits):
                    await asyncio.sleep(gap_s)
                    start = time.perf_counter()
                    board.hit(THROWN[thrown % len(THROWN)])
                    arrived, state = await receive(
                        watch,
                        STATE_TOPIC,
                        more_darts_than(thrown),
                        f"for dart {thrown + 1}",
                        wait,
                    )
                    results.latencies.append((arrived - start) * 1000)
                    if darts(state) != thrown + 1:
                        raise RuntimeError(f"dart {thrown + 1}: the state shows {darts(state)}")
                    if state["phase"] == "takeout":
                        board.button(NEXT_BUTTON)
                        await receive(
                            watch,
                            STATE_TOPIC,
                            lambda s: s["phase"] == "throwing",
                            f"after NEXT (dart {thrown + 1})",
                            wait,
                        )
                    elif state["phase"] != "throwing":
                        raise RuntimeError(f"dart {thrown + 1}: phase {state['phase']}")
                    board.drain()
                    if floor is not None:
                        await floor.sample()
                if instructions is not None:
                    instructions.stop(process.pid)
                user, system = cpu_times(process.pid)
                results.cpu_per_dart_ms = (
                    (user + system - user_before - system_before) / hits * 1000
                )
                results.system_per_dart_ms = (system - system_before) / hits * 1000
                if idle_s <= 0:
                    return results
                idle_start = cpu_seconds(process.pid)
                await asyncio.sleep(idle_s)
                results.idle_cpu_percent = (cpu_seconds(process.pid) - idle_start) / idle_s * 100
                results.rss_mib = rss_mib(process.pid)
            except BaseException:
                print(f"daemon log:\n{tail(log)}", file=sys.stderr)
                raise
            finally:
                stop(process)
    finally:
        board.close()
    return results


# ------------------------------------------------------------------- main


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def dart_rows(hits: HitResults, floor: Floor, prefix: str = "") -> list[tuple[str, str]]:
    """The figures the targets read, against the floor of the same run:
    p99 hit -> state and the daemon's CPU per dart, each over the floor's."""
    hit_p99, floor_p99 = percentile(hits.latencies, 0.99), percentile(floor.sums(), 0.99)
    cpu_ratio = hits.cpu_per_dart_ms / max(floor.cpu_per_dart_ms, 1e-9)
    return [
        (f"{prefix}hit -> state, p50 / p99", f"{statistics.median(hits.latencies):.3f} / "
         f"{hit_p99:.3f} ms"),
        (f"{prefix}floor (pty + commit + bare), p99", f"{floor_p99:.3f} ms"),
        (f"{prefix}p99 hit -> state / floor", f"{hit_p99 / floor_p99:.1f}x"),
        (
            f"{prefix}daemon CPU per dart / floor CPU per dart",
            f"{hits.cpu_per_dart_ms:.2f} / {floor.cpu_per_dart_ms:.2f} ms = {cpu_ratio:.1f}x",
        ),
        (
            f"{prefix}target both <= {TARGET_FLOOR_RATIO:g}x the floor",
            verdict(hit_p99 / floor_p99 <= TARGET_FLOOR_RATIO and cpu_ratio <= TARGET_FLOOR_RATIO),
        ),
    ]  # fmt: skip


async def run(args: argparse.Namespace) -> None:
    gap_s = args.gap_ms / 1000
    load = os.getloadavg()[0]  # other work on the machine moves the tail
    limited: tuple[HitResults, Floor] | None = None
    instructions: Instructions | None = None
    limit = CpuLimit.best(args.cpu_share, f"oche-latency-{os.getpid()}")
    try:
        with tempfile.TemporaryDirectory(prefix="oche-latency-") as temporary:
            workdir = Path(temporary)
            with mosquitto(workdir) as port:
                empty = await startup_ms(workdir / "start-empty", port, 0, args.starts)
                resumed = await startup_ms(workdir / "start-1000", port, 1000, args.starts)
                async with Floor(port, workdir / "floor.sqlite3", gap_s, None) as floor:
                    hits = await hit_to_state(
                        workdir / "hits", port, args.hits, gap_s, floor, args.profile, args.idle_s
                    )
                if args.cpu_share > 0:
                    async with Floor(port, workdir / "floor-q.sqlite3", gap_s, limit) as quarter:
                        darts_q = await hit_to_state(
                            workdir / "hits-q", port, args.hits, gap_s, quarter, None, 0, limit
                        )
                    limited = darts_q, quarter
                if args.instructions:
                    instructions = Instructions(workdir / "callgrind.out")
                    await hit_to_state(
                        workdir / "hits-i", port, args.instructions_hits, gap_s, None, None, 0,
                        None, instructions,
                    )  # fmt: skip
    finally:
        limit.close()
    pty, commit, bare = floor.pty, floor.commit, floor.bare

    hit_p50, hit_p99 = statistics.median(hits.latencies), percentile(hits.latencies, 0.99)
    bare_p50, bare_p99 = statistics.median(bare), percentile(bare, 0.99)
    sums = floor.sums()
    floor_p50, floor_p99 = statistics.median(sums), percentile(sums, 0.99)
    ratio = hit_p99 / floor_p99
    startup_resumed = statistics.median(resumed)
    # The state of a visit's last dart is queued behind three events (dart,
    # visit_end, takeout), the others' behind one (dart).
    early = [ms for i, ms in enumerate(hits.latencies) if i % 3 != 2]
    third = hits.latencies[2::3] or [float("nan")]
    rows = [
        ("hit -> state, p50", f"{hit_p50:.3f} ms"),
        ("hit -> state, p99", f"{hit_p99:.3f} ms"),
        ("hit -> state, max", f"{max(hits.latencies):.3f} ms"),
        (
            "  darts 1-2 of a visit, p50 / p99",
            f"{statistics.median(early):.3f} / {percentile(early, 0.99):.3f} ms",
        ),
        (
            "  dart 3 of a visit, p50 / p99",
            f"{statistics.median(third):.3f} / {percentile(third, 0.99):.3f} ms",
        ),
        ("pty hop, p50 / p99", f"{statistics.median(pty):.3f} / {percentile(pty, 0.99):.3f} ms"),
        (
            "SQLite commit, p50 / p99",
            f"{statistics.median(commit):.3f} / {percentile(commit, 0.99):.3f} ms",
        ),
        ("bare broker round trip, p50", f"{bare_p50:.3f} ms"),
        ("bare broker round trip, p99", f"{bare_p99:.3f} ms"),
        ("floor (pty + commit + bare), p50", f"{floor_p50:.3f} ms"),
        ("floor (pty + commit + bare), p99", f"{floor_p99:.3f} ms"),
        ("p99 hit -> state / p99 bare", f"{hit_p99 / bare_p99:.1f}x"),
        ("p99 hit -> state / floor", f"{ratio:.1f}x"),
        (
            f"target p99 <= {TARGET_P99_MS:g} ms",
            verdict(hit_p99 <= TARGET_P99_MS),
        ),
        (f"target p99 / floor <= {TARGET_FLOOR_RATIO:g}x", verdict(ratio <= TARGET_FLOOR_RATIO)),
        (
            "daemon CPU per dart (incl. NEXTs), of it system",
            f"{hits.cpu_per_dart_ms:.2f} ms, {hits.system_per_dart_ms:.2f} ms",
        ),
        (
            "floor CPU per dart (pty read, commit, one QoS 1 message out and in)",
            f"{floor.cpu_per_dart_ms:.2f} ms",
        ),
        (
            "daemon CPU / floor CPU",
            f"{hits.cpu_per_dart_ms / max(floor.cpu_per_dart_ms, 1e-9):.1f}x",
        ),
        (
            f"target CPU per dart <= {TARGET_CPU_MS:g} ms",
            verdict(hits.cpu_per_dart_ms <= TARGET_CPU_MS),
        ),
        (
            f"start-up, empty journal (median of {args.starts})",
            f"{statistics.median(empty):.0f} ms",
        ),
        (
            f"start-up, 1,000-dart journal (median of {args.starts})",
            f"{startup_resumed:.0f} ms",
        ),
        (
            f"target start-up (1,000 darts) <= {TARGET_STARTUP_MS:g} ms",
            verdict(startup_resumed <= TARGET_STARTUP_MS),
        ),
        (f"idle CPU over {args.idle_s:g} s", f"{hits.idle_cpu_percent:.2f} %"),
        ("idle RSS (VmRSS)", f"{hits.rss_mib:.1f} MiB"),
    ]
    if limited is not None:
        rows.append((f"{args.cpu_share:g} of one core, by", limit.how))
        rows.extend(dart_rows(*limited, prefix=f"{args.cpu_share:g} core: "))
    if instructions is not None:
        inputs = args.instructions_hits + args.instructions_hits // 3  # a NEXT every third dart
        rows.append(
            (
                f"daemon instructions per input (callgrind, {args.instructions_hits} darts "
                "and their NEXTs)",
                f"{instructions.total / inputs:,.0f}",
            )
        )
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"{args.hits} hits, {args.gap_ms:g} ms between them, load {load:.2f} before the run"
    )
    print_rows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", type=int, default=2_000, help="darts (and bare round trips)")
    parser.add_argument(
        "--gap-ms",
        type=float,
        default=5.0,
        help="pause before each dart and round trip, so each starts from idle",
    )
    parser.add_argument("--starts", type=int, default=3, help="launches per start-up measure")
    parser.add_argument(
        "--idle-s", type=float, default=IDLE_S, help="seconds the idle CPU is measured over"
    )
    parser.add_argument(
        "--cpu-share",
        type=float,
        default=0.25,
        metavar="SHARE",
        help="run the darts again with the daemon and the floor limited to this share "
        "of one core (0: not)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the daemon's instructions per input under valgrind's callgrind "
        "(a third daemon; slow)",
    )
    parser.add_argument(
        "--instructions-hits",
        type=int,
        default=300,
        metavar="N",
        help="darts thrown under callgrind (default 300)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="run the hit -> state daemon under cProfile, its statistics to FILE "
        "(the latencies are then slower than without)",
    )
    args = parser.parse_args()
    if args.hits < 1 or args.starts < 1 or args.idle_s <= 0 or not 0 <= args.cpu_share <= 1:
        parser.error(
            "--hits and --starts must be at least 1, --idle-s more than 0, --cpu-share from 0 to 1"
        )
    if args.instructions and not Instructions.available():
        parser.error("--instructions needs valgrind (callgrind_control beside it)")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
