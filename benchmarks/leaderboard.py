"""The leaderboard at league scale: ingest through one Mosquitto into two
service instances sharing the subscription and one PostgreSQL, the time from
publish to visible in ``/api/leaderboard``, and ``/api/leaderboard`` reads
with a league's worth of results stored.

Everything is real: a private Mosquitto on a free loopback port (never the
machine's own 1883; ``max_queued_messages 0``, so the broker queues whatever
the services have not taken yet, and ``max_inflight_messages 100``, as
docs/leaderboard.md advises, so a service's batches reach 100), a fresh PostgreSQL database on the
machine's server (``--pg``; dropped afterwards), and two ``run_service``
processes (what ``oche leaderboard serve`` runs) subscribed as
``$share/bench/oche/+/result`` with their own persistent sessions.

- **ingest**: ``--boards`` simulated boards (one MQTT connection each; 25
  regular players per board, 10 boards a venue) publish ``--results``
  engine-played X01 and Cricket results (``leaderboard.sample_results``) as
  fast as the broker acknowledges them, each board one result at a time. The
  clock runs from the first publish to the moment PostgreSQL holds them all;
  then every result must be stored exactly once (count, no duplicate id, and
  a SHA-256 of the sorted ids equal to the published ones').
- **publish -> visible**: ``--probes`` X01 results, one at a time, from a
  board of its own venue (``Probe``) with a new player each, while the other
  boards keep publishing ``--load`` results a second; the clock stops when
  ``GET /api/leaderboard?game=x01&period=all&venue=Probe`` (polled every
  5 ms, alternately on each instance) lists the new player.
- **reads**: the database is filled up to ``--read-results`` results with
  ``leaderboard.store.ingest_many`` directly, in batches of 500 (25 players a
  board: 5,000 players with 200 boards) and ``ANALYZE``d, then ``GET /api/leaderboard`` is timed
  ``--reads`` times per query over one keep-alive HTTP connection: the whole
  league's X01 table (a page of the default 100 rows, and 5,000 rows), one
  venue's, and today's Cricket.

Self-contained: only the product's packages, aiomqtt, psycopg and a
``mosquitto`` binary. Run from the checkout: ``make bench`` or
``python -m benchmarks.leaderboard [--results N] [--boards N] ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import http.client
import json
import os
import platform
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
import psycopg

from benchmarks.drivers import percentile
from benchmarks.latency import free_port, mosquitto, stop, tail, wait_listening
from leaderboard.database import Database
from leaderboard.sample_results import SAMPLE_GAMES, SimulatedPlayer, sample_result
from leaderboard.store import ingest_many
from leaderboard.venues import VenueMap

TARGET_INGEST_PER_S = 300.0
TARGET_VISIBLE_P99_MS = 1000.0
TARGET_READ_P99_MS = 50.0
PLAYERS_PER_BOARD = 25
BOARDS_PER_VENUE = 10
PROBE_BOARD = "probe-board"
PROBE_VENUE = "Probe"
TIMEOUT = 30.0

SERVE = """
import asyncio, json, logging, sys
from leaderboard.service import ServiceSettings, run_service
from leaderboard.venues import VenueMap
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")
logging.getLogger("leaderboard.mqtt_ingest").setLevel(logging.INFO)
logging.getLogger("leaderboard.mqtt_ingest").addFilter(lambda r: "rejected" not in r.getMessage())
args = json.loads(sys.argv[1])
asyncio.run(run_service(ServiceSettings(
    db_url=args["db"], mqtt_url=args["mqtt"], http_port=args["port"],
    share_group="bench", client_id=args["client_id"],
    venues=VenueMap(boards=args["venues"]))))
"""


# ------------------------------------------------------------------ fixtures


@contextlib.contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    """A fresh database on the server of ``admin_url``; yields its SQLAlchemy URL."""
    name = f"oche_bench_{secrets.token_hex(4)}"
    try:
        admin = psycopg.connect(admin_url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        sys.exit(f"PostgreSQL is not reachable at {admin_url}: {error} (make postgres)")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            info = admin.info
            host = info.host if info.host.startswith("/") is False else "127.0.0.1"
            yield f"postgresql+psycopg://{info.user}@{host}:{info.port}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Service:
    """One ``run_service`` process."""

    port: int
    log: Path
    process: subprocess.Popen[bytes]

    @classmethod
    def start(
        cls, workdir: Path, index: int, db: str, mqtt: str, venues: dict[str, str]
    ) -> Service:
        port = free_port()
        log = workdir / f"service-{index}.log"
        args = {
            "db": db,
            "mqtt": mqtt,
            "port": port,
            "client_id": f"bench-{index}",
            "venues": venues,
        }
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-c", SERVE, json.dumps(args)],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        return cls(port, log, process)

    def wait_ready(self) -> None:
        """HTTP answers and the MQTT side has subscribed once."""
        wait_listening(self.port, self.process, "the service", self.log)
        deadline = time.monotonic() + TIMEOUT
        while "MQTT: connected to" not in self.log.read_text("utf-8", "replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not connect: {tail(self.log)}")
            time.sleep(0.05)
        time.sleep(0.2)  # its SUBSCRIBE follows the connection

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ results


@dataclass
class League:
    """Boards, their venues and regular players, and a seeded result maker."""

    boards: int
    seed: int = 1
    made: int = 0
    rng: random.Random = field(init=False)
    start: float = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.start = time.time() - 3600.0
        self.skills = {
            board: [0.08 + 0.3 * self.rng.random() for _ in range(PLAYERS_PER_BOARD)]
            for board in range(self.boards)
        }

    def board(self, index: int) -> str:
        return f"board-{index:03d}"

    def venues(self) -> dict[str, str]:
        mapping = {self.board(b): f"Bar {b // BOARDS_PER_VENUE:02d}" for b in range(self.boards)}
        return {**mapping, PROBE_BOARD: PROBE_VENUE}

    def result(self, board: int) -> dict[str, Any]:
        """The next result of ``board``; ``finished_at`` grows with every result."""
        picks = self.rng.sample(range(PLAYERS_PER_BOARD), 2)
        players = [
            SimulatedPlayer(f"B{board:03d} Player {p:02d}", self.skills[board][p], self.rng)
            for p in picks
        ]
        self.made += 1
        game = SAMPLE_GAMES[self.made % len(SAMPLE_GAMES)]
        return sample_result(
            self.rng, self.board(board), players, game, self.start + self.made * 0.01
        )

    def probe(self, index: int) -> dict[str, Any]:
        players = [
            SimulatedPlayer(f"Probe {index:04d} {side}", 0.3, self.rng) for side in ("A", "B")
        ]
        self.made += 1
        return sample_result(self.rng, PROBE_BOARD, players, "x01", self.start + self.made * 0.01)


def encode(document: dict[str, Any]) -> bytes:
    return json.dumps(document, separators=(",", ":")).encode()


async def publish_boards(mqtt_port: int, per_board: list[list[bytes]]) -> None:
    """Each board on its own connection publishes its results one at a time."""

    async def board(index: int, payloads: list[bytes]) -> None:
        topic = f"oche/board-{index:03d}/result"
        async with aiomqtt.Client("127.0.0.1", mqtt_port, timeout=60) as client:
            for data in payloads:
                await client.publish(topic, data, qos=1)

    async with asyncio.TaskGroup() as tasks:
        for index, payloads in enumerate(per_board):
            if payloads:
                tasks.create_task(board(index, payloads))


def stored_count(db: psycopg.Connection[Any]) -> int:
    row = db.execute("SELECT count(*) FROM results").fetchone()
    return int(row[0]) if row else 0


def sha256_of(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


# ------------------------------------------------------------------ phases


@dataclass
class Figures:
    lines: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, name: str, value: str, target: str = "") -> None:
        self.lines.append((name, value, target))
        print(f"  {name:<56} {value:>12}  {target}", flush=True)


def ingest_phase(
    args: argparse.Namespace,
    league: League,
    mqtt_port: int,
    db: psycopg.Connection[Any],
    services: list[Service],
    figures: Figures,
) -> None:
    made = time.perf_counter()
    per_board: list[list[bytes]] = [[] for _ in range(league.boards)]
    published: list[str] = []
    for index in range(args.results):
        board = index % league.boards
        document = league.result(board)
        published.append(document["result_id"])
        per_board[board].append(encode(document))
    print(
        f"  ({args.results} results played by the engine in {time.perf_counter() - made:.1f} s)",
        flush=True,
    )
    cpu_before = [s.cpu_seconds() for s in services]
    started = time.perf_counter()
    asyncio.run(publish_boards(mqtt_port, per_board))
    published_in = time.perf_counter() - started
    deadline = time.monotonic() + max(120.0, args.results / 5)
    while stored_count(db) < len(published):
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {stored_count(db)} of {len(published)} results stored")
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    cpu = sum(s.cpu_seconds() for s in services) - sum(cpu_before)
    ids = [row[0] for row in db.execute("SELECT result_id FROM results")]
    distinct = len(set(ids))
    rejected = db.execute("SELECT count(*) FROM rejected").fetchone()
    figures.add("results published / stored", f"{len(published)} / {len(ids)}")
    figures.add("duplicate ids stored", f"{len(ids) - distinct}", "(0)")
    figures.add("rejected", f"{rejected[0] if rejected else 0}", "(0)")
    same = sha256_of(ids) == sha256_of(published)
    figures.add("checksum of ids (SHA-256) matches", "yes" if same else "NO", "(yes)")
    figures.add("all acknowledged by the broker in", f"{published_in:.1f} s")
    figures.add(
        "ingest, results/s",
        f"{len(published) / elapsed:.0f}",
        f"(target >= {TARGET_INGEST_PER_S:.0f})",
    )
    figures.add("service CPU per result (both), ms", f"{cpu / len(published) * 1000:.2f}")
    if not same or distinct != len(ids):
        raise SystemExit("FAILED: results lost or doubled")


def get_json(connection: http.client.HTTPConnection, path: str) -> Any:
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: HTTP {response.status}: {body[:200]!r}")
    return json.loads(body)


async def visible_phase(
    args: argparse.Namespace,
    league: League,
    mqtt_port: int,
    services: list[Service],
    figures: Figures,
) -> None:
    stop_load = asyncio.Event()

    async def load() -> None:
        async with aiomqtt.Client("127.0.0.1", mqtt_port, timeout=60) as client:
            board = 0
            while not stop_load.is_set():
                document = league.result(board % league.boards)
                await client.publish(f"oche/{document['board']}/result", encode(document), qos=1)
                board += 1
                await asyncio.sleep(1 / args.load)

    loader = asyncio.create_task(load()) if args.load > 0 else None
    connections = [http.client.HTTPConnection("127.0.0.1", s.port, timeout=10) for s in services]
    # Every probe player, not the first page: a new player may rank low.
    path = f"/api/leaderboard?game=x01&period=all&venue={PROBE_VENUE}&limit=5000"
    samples: list[float] = []
    try:
        async with aiomqtt.Client("127.0.0.1", mqtt_port, timeout=60) as client:
            for index in range(args.probes):
                document = league.probe(index)
                names = {p["name"] for p in document["players"]}
                payload = encode(document)
                sent = time.perf_counter()
                await client.publish(f"oche/{PROBE_BOARD}/result", payload, qos=1)
                deadline = time.monotonic() + TIMEOUT
                turn = 0
                while True:
                    connection = connections[turn % len(connections)]
                    turn += 1
                    rows = await asyncio.to_thread(get_json, connection, path)
                    if names <= {row["player"] for row in rows}:
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"probe {index} not visible within {TIMEOUT:g} s")
                    await asyncio.sleep(0.005)
                samples.append((time.perf_counter() - sent) * 1000)
                await asyncio.sleep(0.05)
    finally:
        stop_load.set()
        if loader is not None:
            await loader
        for connection in connections:
            connection.close()
    figures.add(
        f"publish -> visible, p50 (load {args.load:g}/s), ms", f"{percentile(samples, 0.5):.0f}"
    )
    figures.add(
        "publish -> visible, p99, ms",
        f"{percentile(samples, 0.99):.0f}",
        f"(target <= {TARGET_VISIBLE_P99_MS:.0f})",
    )


def fill_phase(
    args: argparse.Namespace, league: League, db_url: str, db: psycopg.Connection[Any]
) -> None:
    """Bring the database to ``--read-results`` with ``ingest_many`` directly
    (untimed): what the service stores, without the broker's round trips."""
    missing = args.read_results - stored_count(db)
    if missing <= 0:
        return
    started = time.perf_counter()
    database = Database(db_url)
    venues = VenueMap(boards=league.venues())
    try:
        made = 0
        while made < missing:
            chunk = [encode(league.result((made + i) % league.boards)) for i in range(500)]
            chunk = chunk[: missing - made]
            ingest_many(database, chunk, venues)
            made += len(chunk)
    finally:
        database.dispose()
    if stored_count(db) < args.read_results:
        raise RuntimeError(f"only {stored_count(db)} of {args.read_results} results stored")
    # What autovacuum does soon after a bulk load: without it the planner
    # guesses from an empty database's statistics (a table read twice as slowly).
    db.execute("ANALYZE")
    print(
        f"  (filled to {stored_count(db)} results in {time.perf_counter() - started:.0f} s)",
        flush=True,
    )


def reads_phase(
    args: argparse.Namespace, services: list[Service], db: psycopg.Connection[Any], figures: Figures
) -> None:
    players = db.execute("SELECT count(*) FROM players").fetchone()
    results = stored_count(db)
    figures.add("results / players stored", f"{results} / {players[0] if players else 0}")
    connection = http.client.HTTPConnection("127.0.0.1", services[0].port, timeout=30)
    queries = {
        "whole league, X01, all time": "/api/leaderboard?game=x01&period=all",
        "whole league, X01, all time, limit 5000": (
            "/api/leaderboard?game=x01&period=all&limit=5000"
        ),
        "one venue, X01, all time": "/api/leaderboard?game=x01&period=all&venue=Bar%2000",
        "whole league, Cricket, today": "/api/leaderboard?game=cricket&period=day",
    }
    try:
        for label, path in queries.items():
            rows = len(get_json(connection, path))  # warm
            samples = []
            for _ in range(args.reads):
                started = time.perf_counter()
                get_json(connection, path)
                samples.append((time.perf_counter() - started) * 1000)
            figures.add(f"GET {label} ({rows} rows), p50 ms", f"{percentile(samples, 0.5):.1f}")
            figures.add(
                f"GET {label}, p99 ms",
                f"{percentile(samples, 0.99):.1f}",
                f"(target <= {TARGET_READ_P99_MS:.0f})",
            )
    finally:
        connection.close()


def run(args: argparse.Namespace) -> None:
    print(
        f"leaderboard at league scale: {args.boards} boards, {args.results} results, "
        f"2 instances, PostgreSQL; {platform.python_version()}, {os.cpu_count()} cores",
        flush=True,
    )
    league = League(args.boards)
    figures = Figures()
    with (
        tempfile.TemporaryDirectory(prefix="oche-bench-leaderboard-") as tmp,
        mosquitto(Path(tmp), "max_queued_messages 0\nmax_inflight_messages 100\n") as mqtt_port,
        postgres_database(args.pg) as db_url,
    ):
        workdir = Path(tmp)
        services: list[Service] = []
        try:
            for index in (1, 2):
                services.append(
                    Service.start(
                        workdir, index, db_url, f"mqtt://127.0.0.1:{mqtt_port}", league.venues()
                    )
                )
            for service in services:
                service.wait_ready()
            libpq = db_url.replace("postgresql+psycopg://", "postgresql://")
            with psycopg.connect(libpq, autocommit=True) as db:
                print("ingest:", flush=True)
                ingest_phase(args, league, mqtt_port, db, services, figures)
                print("publish -> visible in /api/leaderboard:", flush=True)
                asyncio.run(visible_phase(args, league, mqtt_port, services, figures))
                print("reads:", flush=True)
                fill_phase(args, league, db_url, db)
                reads_phase(args, services, db, figures)
        finally:
            for service in services:
                stop(service.process)
            for service in services:
                problems = [
                    line
                    for line in service.log.read_text("utf-8", "replace").splitlines()
                    if line.startswith(("ERROR", "CRITICAL", "Traceback"))
                ]
                if problems:
                    print(f"  service log {service.log.name}: {problems[:3]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200, help="simulated boards")
    parser.add_argument("--results", type=int, default=20_000, help="results to ingest")
    parser.add_argument("--probes", type=int, default=100, help="publish -> visible samples")
    parser.add_argument(
        "--load", type=float, default=100.0, help="other results a second during the probes"
    )
    parser.add_argument(
        "--read-results", type=int, default=100_000, help="results stored for the reads"
    )
    parser.add_argument("--reads", type=int, default=200, help="GETs per read query")
    parser.add_argument(
        "--pg",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL server's admin URL (the benchmark creates and drops its database)",
    )
    run(parser.parse_args())


if __name__ == "__main__":
    main()
