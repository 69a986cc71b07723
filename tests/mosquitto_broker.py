"""A private Mosquitto broker for tests, on a free loopback port.

The machine may run its own Mosquitto on 1883; tests never share it. Each
broker gets its own port, config and data directory; ``stop()`` and
``start()`` let fault tests take it away and bring it back on the same port.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

__all__ = ["MosquittoBroker", "free_port", "mosquitto_binary"]


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
