"""A private PostgreSQL cluster for fault tests, on a free loopback port.

The fault tests stop and restart PostgreSQL under the service; the machine's
cluster on 5432 serves every other test, so they get a cluster of their own
(``initdb`` + ``pg_ctl`` in a temporary directory, trust auth, user
``postgres``). As root, the binaries run as the ``postgres`` user, which owns
the directory."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.mosquitto_broker import free_port

__all__ = ["PrivatePostgres", "postgres_binaries"]


def postgres_binaries() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` with initdb and pg_ctl, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
    )
    for folder in reversed(found):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


class PrivatePostgres:
    """One cluster: :meth:`start`, :meth:`restart`, :meth:`stop`; ``url`` for
    SQLAlchemy (database ``postgres``)."""

    def __init__(self) -> None:
        binaries = postgres_binaries()
        if binaries is None:
            raise RuntimeError("PostgreSQL's initdb and pg_ctl are not installed")
        self.bin = binaries
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="oche-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self._as: list[str] = []
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / tool), *args],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.root,
        )

    def _options(self) -> str:
        return f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"

    def start(self) -> None:
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            self._options(),
            "-w",
            "start",
        )

    def restart(self) -> None:
        """Stop (fast: connections are cut) and start again on the same port."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        self.start()

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
