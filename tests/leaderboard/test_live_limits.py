"""Many ``/api/live`` streams against a real server (issue #21: 1,200 streams
at a 1,024 file-descriptor limit made every request time out and wrote
140 MB of tracebacks in a minute). Streams opened with raw sockets, from
several loopback addresses (127.0.0.X are all this machine): past the limits
a client gets a 503 with ``Retry-After``, other requests still answer, a
closed stream frees its slot, and the log gets one line, not one a stream.
The last tests run the real ``oche leaderboard serve`` under a 1,024-file
limit."""

from __future__ import annotations

import contextlib
import logging
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub, LiveMessage
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from tests.leaderboard.app_server import AppServer
from tests.leaderboard.polling import eventually
from tests.mosquitto_broker import MosquittoBroker, free_port

OCHE = Path(sys.executable).parent / "oche"


def send_live_request(port: int, source: str = "127.0.0.1", timeout: float = 10.0) -> socket.socket:
    """A raw connection from ``source`` that has asked for ``/api/live``."""
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        connection.bind((source, 0))
        connection.connect(("127.0.0.1", port))
        connection.sendall(b"GET /api/live HTTP/1.1\r\nHost: leaderboard\r\n\r\n")
    except OSError:
        connection.close()
        raise
    return connection


def read_head(connection: socket.socket) -> tuple[int, dict[str, str]]:
    """The status and headers of the answer on ``connection``, read up to the
    blank line only: the body stays for the next read."""
    data = b""
    while b"\r\n\r\n" not in data:
        peeked = connection.recv(4096, socket.MSG_PEEK)
        if not peeked:
            raise AssertionError(f"the server closed the connection after {data!r}")
        end = (data + peeked).find(b"\r\n\r\n")
        wanted = len(peeked) if end < 0 else end + 4 - len(data)
        data += connection.recv(wanted)
    head = data[:-4].decode("latin-1").split("\r\n")
    headers = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(head[0].split()[1]), headers


def open_stream(port: int, source: str = "127.0.0.1") -> tuple[socket.socket, int, dict[str, str]]:
    connection = send_live_request(port, source)
    status, headers = read_head(connection)
    return connection, status, headers


@pytest.fixture
def limited_server(tmp_path: Path) -> Iterator[AppServer]:
    app = create_app(
        Database(f"sqlite:///{tmp_path}/unused.sqlite3"),
        LiveHub(),
        VenueMap(),
        max_live_streams=6,
        max_live_streams_per_client=3,
    )
    server = AppServer(app)
    server.start()
    yield server
    server.stop()


def test_streams_past_the_limits_get_a_503_and_a_closed_one_frees_its_slot(
    limited_server: AppServer, caplog: pytest.LogCaptureFixture
) -> None:
    port = limited_server.port
    caplog.set_level(logging.WARNING, logger="leaderboard.web.api_live")
    opened: list[socket.socket] = []
    try:
        for _ in range(3):
            connection, status, headers = open_stream(port, "127.0.0.2")
            opened.append(connection)
            assert status == 200 and headers["content-type"].startswith("text/event-stream")
        # A fourth from the same address: that address's limit.
        refused, status, headers = open_stream(port, "127.0.0.2")
        refused.close()
        assert status == 503 and headers["retry-after"] == "30"
        for _ in range(3):
            connection, status, _ = open_stream(port, "127.0.0.3")
            opened.append(connection)
            assert status == 200
        # Six open: the service's limit, whoever asks.
        for source in ("127.0.0.4", "127.0.0.5", "127.0.0.4"):
            refused, status, _ = open_stream(port, source)
            refused.close()
            assert status == 503
        # Other requests still answer.
        assert httpx.get(f"{limited_server.url}/api/boards", timeout=10).json() == []
        # A client that leaves gives its slot back.
        opened.pop(0).close()

        def a_new_stream_is_taken() -> bool:
            connection, status, _ = open_stream(port, "127.0.0.4")
            if status == 200:
                opened.append(connection)
                return True
            connection.close()
            return False

        eventually(a_new_stream_is_taken, "the closed stream's slot to come free")
    finally:
        for connection in opened:
            connection.close()
    refusals = [r for r in caplog.records if "refused a live stream" in r.getMessage()]
    assert len(refusals) == 1, [r.getMessage() for r in refusals]  # at most one a minute
    assert refusals[0].exc_info is None
    assert "3 live streams are open from 127.0.0.2" in refusals[0].getMessage()


def read_until(connection: socket.socket, marker: bytes) -> bytes:
    """What ``connection`` gets until ``marker`` has come (the socket's timeout applies)."""
    data = b""
    while marker not in data:
        chunk = connection.recv(4096)
        assert chunk, f"the stream ended after {data!r}"
        data += chunk
    return data


def test_a_message_no_stream_can_send_is_logged_once_and_the_streams_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hub = LiveHub()
    server = AppServer(
        create_app(Database(f"sqlite:///{tmp_path}/unused.sqlite3"), hub, VenueMap())
    )
    server.start()
    caplog.set_level(logging.WARNING, logger="leaderboard.web.api_live")
    streams = []
    try:
        for _ in range(3):
            connection, status, _ = open_stream(server.port)
            assert status == 200
            read_until(connection, b": connected")  # subscribed by then
            streams.append(connection)
        circular: dict[str, object] = {"result_id": "loop"}
        circular["self"] = circular  # not JSON: every stream would fail on it
        server.call(lambda: hub.post(LiveMessage("result", circular)))
        server.call(lambda: hub.post(LiveMessage("result", {"result_id": "fine"})))
        for connection in streams:
            assert b'"fine"' in read_until(connection, b'"fine"')
    finally:
        for connection in streams:
            connection.close()
        server.stop()
    unsendable = [r for r in caplog.records if "cannot be sent" in r.getMessage()]
    assert len(unsendable) == 1 and unsendable[0].exc_info is None


@contextlib.contextmanager
def client_file_limit(needed: int) -> Iterator[None]:
    """This test process may hold ``needed`` sockets (the soft limit raised)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"this process may open {hard} files, the test needs {needed}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


LIMITED_SERVE = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2])))
os.execv(sys.argv[3], sys.argv[3:])
"""
"""Run ``oche`` under a file limit (soft, hard), as systemd's default 1,024 would."""


class LimitedService:
    """``oche leaderboard serve`` in a child process under a file limit."""

    def __init__(
        self, tmp_path: Path, broker: MosquittoBroker, soft: int, hard: int, config: str = ""
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp_path / "serve.log"
        config_file = tmp_path / "oche.toml"
        config_file.write_text(config, "utf-8")
        command = [
            str(OCHE),
            "leaderboard",
            "serve",
            "--config",
            str(config_file),
            "--db",
            f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}",
            "--mqtt",
            f"mqtt://{broker.host}:{broker.port}",
            "--http",
            f"127.0.0.1:{self.port}",
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", LIMITED_SERVE, str(soft), str(hard), *command],
                stdout=log,
                stderr=subprocess.STDOUT,
            )

        def answers() -> bool:
            assert self.process.poll() is None, self.log.read_text("utf-8", "replace")
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(f"{self.url}/openapi.json", timeout=2).status_code == 200
            return False

        eventually(answers, "oche leaderboard serve to answer", timeout=60)

    def log_text(self) -> str:
        return self.log.read_text("utf-8", "replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@pytest.fixture
def service_under_limit(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> Iterator[Callable[..., LimitedService]]:
    started: list[LimitedService] = []

    def start(soft: int = 1024, hard: int = 1024, config: str = "") -> LimitedService:
        service = LimitedService(tmp_path, mosquitto, soft, hard, config)
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


@pytest.mark.slow
def test_1200_streams_at_a_1024_file_limit_leave_the_service_answering(
    service_under_limit: Callable[..., LimitedService],
) -> None:
    service = service_under_limit()  # the defaults: 200 streams, 8 per address
    started = time.monotonic()
    statuses: dict[int, int] = {}
    opened: list[socket.socket] = []
    with client_file_limit(1400):
        try:
            # 150 addresses, 8 streams each (every address within its own
            # limit), one client after another as TVs and phones come and go.
            for index in range(1200):
                connection, status, headers = open_stream(service.port, f"127.0.0.{2 + index // 8}")
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200:
                    opened.append(connection)
                    continue
                connection.close()
                assert headers.get("retry-after") == "30", (status, headers)
                assert headers.get("connection") == "close", headers
            assert statuses == {200: 200, 503: 1000}
            # With 200 streams open, every other request still answers.
            records = httpx.get(f"{service.url}/api/records", timeout=10)
            assert records.status_code == 200
            # Clients that leave make room for new ones.
            for connection in opened[:10]:
                connection.close()
            del opened[:10]

            def a_new_stream_is_taken() -> bool:
                connection, status, _ = open_stream(service.port, "127.0.1.1")
                if status == 200:
                    opened.append(connection)
                    return True
                connection.close()
                return False

            eventually(a_new_stream_is_taken, "a closed stream's slot to come free")
        finally:
            for connection in opened:
                connection.close()
    log = service.log_text()
    # One line a minute at most (a busy machine may take more than one).
    minutes = int((time.monotonic() - started) // 60)
    assert 1 <= log.count("refused a live stream") <= 1 + minutes, log[-2000:]
    assert "Traceback" not in log and len(log) < 5000, log[-2000:]


@pytest.mark.slow
def test_running_out_of_file_descriptors_logs_one_line_and_the_service_recovers(
    service_under_limit: Callable[..., LimitedService],
) -> None:
    # Limits above the file limit: the streams use up the descriptors.
    service = service_under_limit(
        config="[leaderboard]\nmax_live_streams = 5000\nmax_live_streams_per_client = 5000\n"
    )
    opened: list[socket.socket] = []
    started = time.monotonic()
    with client_file_limit(1400):
        try:
            exhausted = "cannot accept an HTTP connection"
            while len(opened) < 1200 and exhausted not in service.log_text():
                with contextlib.suppress(OSError):  # the backlog is full: try again
                    opened.append(send_live_request(service.port, timeout=2))
            eventually(
                lambda: "cannot accept an HTTP connection" in service.log_text(),
                "the service to say it ran out of file descriptors",
            )
        finally:
            for connection in opened:
                connection.close()

    def answers_again() -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{service.url}/api/records", timeout=2).status_code == 200
        return False

    eventually(answers_again, "the service to answer again", timeout=60)
    log = service.log_text()
    minutes = int((time.monotonic() - started) // 60)
    assert 1 <= log.count("cannot accept an HTTP connection") <= 1 + minutes, log[-2000:]
    assert "limit is 1024 open files" in log
    assert "Traceback" not in log and len(log) < 5000, log[-2000:]


def test_the_service_raises_its_soft_file_limit_to_the_hard_one(
    service_under_limit: Callable[..., LimitedService],
) -> None:
    service = service_under_limit(soft=1024, hard=4096)
    limits = Path(f"/proc/{service.process.pid}/limits").read_text()
    line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
    assert line.split()[3:5] == ["4096", "4096"], line
