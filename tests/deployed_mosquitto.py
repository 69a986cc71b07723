"""Mosquitto as Debian and Ubuntu install it, running files of ``deploy/mosquitto/``.

Debian's ``/etc/mosquitto/mosquitto.conf`` sets the pid file, persistence and
logging and then reads ``/etc/mosquitto/conf.d``, where docs/deploy.md installs
``oche.conf`` and ``bridge-to-league.conf``. :class:`InstalledMosquitto` writes
that main file (:data:`DEBIAN_MOSQUITTO_CONF`, its paths in the test's
directory) and the given ``conf.d`` files, and nothing else: no listener of the
test's own comes before the deployed files (one would hide a setting that makes
Mosquitto open a default listener), so the broker listens exactly where they
say, which :meth:`InstalledMosquitto.listening` reads back from ``/proc``.

:func:`deployed_oche_conf` is ``deploy/mosquitto/oche.conf`` exactly as shipped
but for its paths and its listeners' port numbers (each listener keeps its
address, or its lack of one).
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.mosquitto_broker import MosquittoBroker, free_port
from tests.paths import REPO

__all__ = [
    "DEBIAN_MOSQUITTO_CONF",
    "MOSQUITTO_CONF",
    "InstalledMosquitto",
    "deployed_oche_conf",
    "make_certificates",
    "mosquitto_passwd_binary",
    "write_password_file",
    "written_listeners",
]

MOSQUITTO_CONF = REPO / "deploy" / "mosquitto" / "oche.conf"

DEBIAN_MOSQUITTO_CONF = """\
# Place your local configuration in /etc/mosquitto/conf.d/
#
# A full description of the configuration file is at
# /usr/share/doc/mosquitto/examples/mosquitto.conf.example

pid_file /run/mosquitto/mosquitto.pid

persistence true
persistence_location /var/lib/mosquitto/

log_dest file /var/log/mosquitto/mosquitto.log

include_dir /etc/mosquitto/conf.d
"""
"""Debian 12's ``/etc/mosquitto/mosquitto.conf`` (package mosquitto 2.0.11)."""

WILDCARDS = ("0.0.0.0", "::")


def mosquitto_passwd_binary() -> str | None:
    found = shutil.which("mosquitto_passwd")
    if found is None and Path("/usr/bin/mosquitto_passwd").exists():
        found = "/usr/bin/mosquitto_passwd"
    return found


def write_password_file(path: Path, accounts: dict[str, str]) -> None:
    """``path`` made by ``mosquitto_passwd`` with ``accounts`` (name -> password)."""
    binary = mosquitto_passwd_binary()
    assert binary is not None, "needs mosquitto_passwd"
    for index, (account, secret) in enumerate(accounts.items()):
        create = ["-c"] if index == 0 else []
        subprocess.run(
            [binary, *create, "-b", str(path), account, secret],
            check=True,
            capture_output=True,
            timeout=30,
        )


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1 and localhost:
    ``(ca, certificate, key)``; skips the test without openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs openssl to make a test CA for the TLS listeners")
    ca_key, ca, key, csr, cert = (
        directory / name for name in ("ca.key", "ca.crt", "server.key", "server.csr", "server.crt")
    )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    extensions = directory / "server.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n", "utf-8")
    for command in (
        [
            "req",
            "-x509",
            *ec,
            "-keyout",
            ca_key,
            "-out",
            ca,
            "-days",
            "2",
            "-subj",
            "/CN=Oche test CA",
        ],
        ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=localhost"],
        [
            *("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial"),
            *("-out", cert, "-days", "2", "-extfile", extensions),
        ],
    ):
        subprocess.run([openssl, *map(str, command)], check=True, capture_output=True, timeout=30)
    return ca, cert, key


def deployed_oche_conf(paths: dict[str, Path]) -> tuple[str, dict[str, int]]:
    """``deploy/mosquitto/oche.conf`` with each of ``paths`` (as written in the
    file -> here) replaced and each ``listener PORT [ADDRESS]`` given a free
    port instead of PORT; nothing else changes. Returns the text and the
    shipped port -> the port here."""
    config = MOSQUITTO_CONF.read_text("utf-8")
    for path, local in paths.items():
        assert path in config, path
        config = config.replace(path, str(local))
    ports: dict[str, int] = {}

    def relisten(match: re.Match[str]) -> str:
        ports[match.group(1)] = free_port()
        return f"listener {ports[match.group(1)]}{match.group(2)}"

    config = re.sub(r"^listener (\d+)((?: \S+)?)$", relisten, config, flags=re.MULTILINE)
    active = "".join(line for line in config.splitlines() if not line.startswith("#"))
    assert "/etc/" not in active, "a path of oche.conf was not given"
    return config, ports


def written_listeners(config: str) -> dict[int, str | None]:
    """Each active ``listener PORT [ADDRESS]`` line of ``config``: port -> address
    (None: every address)."""
    found: dict[int, str | None] = {}
    for match in re.finditer(r"^listener (\d+)(?: (\S+))?$", config, flags=re.MULTILINE):
        found[int(match.group(1))] = match.group(2)
    return found


def _hex_address(text: str) -> str:
    """An address of /proc/net/tcp or tcp6 (kernel byte order, in hex) as text."""
    raw = bytes.fromhex(text)
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw[::-1]))
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    return str(ipaddress.IPv6Address(words))


class InstalledMosquitto(MosquittoBroker):
    """Mosquitto started with :data:`DEBIAN_MOSQUITTO_CONF` and ``conf_d`` (file
    name -> text) in its ``conf.d``, as a Debian machine runs it. ``port`` is the
    listener of those files that tests connect to (and :meth:`start` waits for);
    ``persistence`` False turns Debian's persistence off (a line at the end of
    the main file). :meth:`start` returns once every listener of ``conf_d``
    takes connections."""

    def __init__(
        self, workdir: Path, conf_d: dict[str, str], port: int, *, persistence: bool = True
    ) -> None:
        super().__init__(workdir, port=port)
        self.written: dict[int, str | None] = {}
        """Every listener the ``conf.d`` files write: port -> address (None: all)."""
        for text in conf_d.values():
            self.written.update(written_listeners(text))
        assert port in self.written, f"no listener {port} in the conf.d files"
        conf_dir = workdir / "conf.d"
        conf_dir.mkdir(exist_ok=True)
        for stale in conf_dir.iterdir():
            stale.unlink()
        for name, text in conf_d.items():
            (conf_dir / name).write_text(text, "utf-8")
        store = workdir / "store"
        store.mkdir(exist_ok=True)
        main = DEBIAN_MOSQUITTO_CONF
        for debian, here in {
            "/run/mosquitto/mosquitto.pid": workdir / "mosquitto.pid",
            "/var/lib/mosquitto/": f"{store}/",
            "/var/log/mosquitto/mosquitto.log": self.log,
            "/etc/mosquitto/conf.d": conf_dir,
        }.items():
            main = main.replace(debian, str(here))
        if not persistence:
            main += "persistence false\n"
        if os.geteuid() == 0:
            # As root Mosquitto drops to the mosquitto user, which cannot write
            # inside pytest's private temporary directory.
            main += "user root\n"
        self.config.write_text(main, "utf-8")

    def start(self, timeout: float = 10.0) -> None:
        super().start(timeout)
        deadline = time.monotonic() + timeout
        for port in self.written:
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        break
                except OSError:
                    if self.process is not None and self.process.poll() is not None:
                        raise RuntimeError(
                            f"mosquitto exited: {self.log.read_text('utf-8', 'replace')}"
                        ) from None
                    assert time.monotonic() < deadline, f"nothing listens on {port}"
                    time.sleep(0.05)

    def listening(self) -> set[tuple[str, int]]:
        """The ``(address, port)`` of every TCP socket the broker process listens on."""
        if self.process is None or self.process.poll() is not None:
            raise AssertionError(
                f"mosquitto is not running: {self.log.read_text('utf-8', 'replace')}"
            )
        proc = Path(f"/proc/{self.process.pid}")
        inodes = set()
        for fd in (proc / "fd").iterdir():
            try:
                target = os.readlink(fd)
            except FileNotFoundError:  # closed meanwhile (a client's connection)
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
        found = set()
        for table in ("tcp", "tcp6"):
            lines = (proc / "net" / table).read_text("ascii").splitlines()[1:]
            for line in lines:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and inode in inodes:  # 0A: LISTEN
                    address, port = local.split(":")
                    found.add((_hex_address(address), int(port, 16)))
        return found

    def assert_listens_only(self) -> None:
        """The broker listens on exactly the ports the ``conf.d`` files write,
        each on its address or, where none is written, on the wildcard
        addresses only."""
        listening, written = self.listening(), self.written
        ports = {port for _, port in listening}
        assert ports == set(written), (
            f"Mosquitto listens on {sorted(listening)}; the files write {written}"
        )
        for address, port in listening:
            allowed = WILDCARDS if written[port] is None else (written[port],)
            assert address in allowed, f"port {port} on {address}, written {written[port]}"
