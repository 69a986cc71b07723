"""A private Mosquitto broker for tests, on a free loopback port.

The machine may run its own Mosquitto on 1883; tests never share it. Each
broker gets its own port, config and data directory; ``stop()`` and
``start()`` let fault tests take it away and bring it back on the same port.
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["MosquittoBroker", "free_port", "mosquitto_binary", "tls_mosquitto"]


def mosquitto_binary() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()),
        None,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class MosquittoBroker:
    """One Mosquitto process. ``extra_config`` lines are appended to its config
    (e.g. password_file / acl_file for the ACL tests)."""

    def __init__(self, workdir: Path, extra_config: str = "", port: int | None = None) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise RuntimeError("mosquitto is not installed: apt-get install -y mosquitto")
        self.binary = binary
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.config = self.workdir / "mosquitto.conf"
        self.log = self.workdir / "mosquitto.log"
        allow_anonymous = "false" if "password_file" in extra_config else "true"
        self.config.write_text(
            f"listener {self.port} {self.host}\n"
            f"allow_anonymous {allow_anonymous}\n"
            "persistence false\n"
            "set_tcp_nodelay true\n"
            f"log_dest file {self.log}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
            # As root, Mosquitto would drop to the mosquitto user, which cannot
            # write its log inside pytest's private temporary directory.
            + ("user root\n" if os.geteuid() == 0 else "")
            + f"{extra_config}\n",
            "utf-8",
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.log.read_text('utf-8', 'replace')}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None


@contextlib.contextmanager
def tls_mosquitto() -> Iterator[tuple[MosquittoBroker, Path]]:
    """A Mosquitto speaking TLS only, with a throwaway self-signed certificate
    for 127.0.0.1: yields the broker (started) and the certificate, which is
    its own CA. Skips when openssl cannot make one. Mosquitto started as root
    reads its key as the mosquitto user, so the certificate lives in a
    directory everyone can read. (paho leaves the socket of a failed TLS
    handshake to the garbage collector: collected here, so its
    ResourceWarning stays in the test that caused it.)"""
    directory = Path(tempfile.mkdtemp(prefix="oche-tls-"))
    try:
        directory.chmod(0o755)
        cert, key = directory / "cert.pem", directory / "key.pem"
        openssl = subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
             "-keyout", str(key), "-out", str(cert)],
            capture_output=True,
            check=False,
        )  # fmt: skip
        if openssl.returncode != 0:
            pytest.skip(f"openssl cannot make a certificate: {openssl.stderr.decode()[-200:]}")
        cert.chmod(0o644)
        key.chmod(0o644)
        broker = MosquittoBroker(directory / "broker", f"certfile {cert}\nkeyfile {key}\n")
        (directory / "broker").chmod(0o777)
        broker.start()
        try:
            yield broker, cert
        finally:
            broker.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        gc.collect()
