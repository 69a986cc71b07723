"""A power cut between a coin's pulse and its credit: 50 ``kill -9`` of a
real ``oche run`` process, its serial board a pseudo-terminal sending the
wire protocol's coin frames (``$P,seq,input,count,boot``: the firmware's
running pulse count), while coins drop; then the journal's books against the
coins dropped: none lost, none counted twice. Real Mosquitto, real SQLite."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tty
from pathlib import Path

from drivers.protocol import Coin, encode_frame
from tests.daemon_harness import TIMEOUT, Watcher, config_text
from tests.mosquitto_broker import MosquittoBroker

KILLS = 50
OCHE = Path(sys.executable).parent / "oche"


def credited(journal: Path) -> dict[int, int]:
    """Pulses the journal credited, per coin input."""
    if not journal.exists():
        return {}
    with sqlite3.connect(journal, timeout=10) as db:
        try:
            rows = db.execute(
                "SELECT coin_input, sum(pulses) FROM credit_ledger WHERE source = 'coin' "
                "GROUP BY coin_input"
            ).fetchall()
        except sqlite3.OperationalError:  # not created yet
            return {}
    return {int(coin_input): int(pulses) for coin_input, pulses in rows}


async def test_kill_9_between_pulse_and_credit_loses_and_doubles_no_coin(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    config = tmp_path / "oche.toml"
    extra = '[credits]\nmode = "coin"\ncredits_per_pulse = [1, 2]\n'
    config.write_text(config_text(tmp_path, mosquitto.url, Path(port), extra=extra), "utf-8")
    journal = tmp_path / "journal.sqlite3"
    rng = random.Random(15)
    counts = {1: 0, 2: 0}
    dropped = {1: 0, 2: 0}
    boot = "0A0B0C0D"
    cut = 0
    env = {k: v for k, v in os.environ.items() if k not in ("OCHE_CONFIG", "JOURNAL_STREAM")}

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(OCHE), "run", "--config", str(config)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def send_count(coin_input: int) -> None:
        """The firmware's coin frame for ``coin_input`` (its seq is the next
        frame's: it uses none up)."""
        os.write(master, encode_frame(Coin(0, coin_input, counts[coin_input], boot)))

    def drop(coin_input: int) -> None:
        """A coin on ``coin_input``: the firmware counts it and sends its total.
        While no daemon has the port open the frame is lost (opening the port
        flushes what was waiting), as on a real serial line."""
        counts[coin_input] += 1
        dropped[coin_input] += 1
        send_count(coin_input)

    def answer_hello_requests() -> None:
        """As the firmware does: a host's ``?`` (sent each time it opens the
        port) is answered with every coin input's running count."""
        try:
            data = os.read(master, 4096)
        except OSError:
            return
        for _ in range(data.count(b"$?")):
            for coin_input in counts:
                send_count(coin_input)

    os.set_blocking(master, False)
    asyncio.get_running_loop().add_reader(master, answer_hello_requests)

    async def settled() -> None:
        """Until the journal has credited every pulse the firmware counted."""
        while credited(journal) != {k: v for k, v in dropped.items() if v}:
            assert all(credited(journal).get(k, 0) <= v for k, v in dropped.items())
            await asyncio.sleep(0.05)

    try:
        for kill in range(KILLS):
            if kill == KILLS // 2:
                # The board restarts (after the daemon has everything of its
                # first run): its counts start again from 0 under a new boot.
                daemon = start()
                try:
                    drop(1)
                    drop(2)
                    await asyncio.wait_for(settled(), TIMEOUT)
                    daemon.send_signal(signal.SIGTERM)
                    daemon.wait(TIMEOUT)
                finally:
                    if daemon.poll() is None:
                        daemon.kill()
                        daemon.wait(TIMEOUT)
                boot, counts = "1A2B3C4D", {1: 0, 2: 0}
            watcher.messages.clear()
            daemon = start()
            try:
                await watcher.wait_for("availability", lambda p: p == "online")
                frozen = kill % 5 == 0
                if frozen:
                    # The power goes the instant the pulses arrive: the daemon
                    # stops dead with their frames waiting, unread, on its port.
                    daemon.send_signal(signal.SIGSTOP)
                for _ in range(rng.randint(1, 3)):
                    drop(rng.choice((1, 2)))
                if not frozen:
                    await asyncio.sleep(rng.uniform(0, 0.02))  # the pulse may or may not be in
                daemon.send_signal(signal.SIGKILL)
                daemon.wait(TIMEOUT)
            finally:
                if daemon.poll() is None:
                    daemon.kill()
            if credited(journal) != {k: v for k, v in dropped.items() if v}:
                cut += 1  # killed with a pulse sent and not credited yet
            # Pulses dropped while the daemon is down: the firmware counts them
            # (their frames are lost; the next open's "?" brings the counts).
            if rng.random() < 0.3:
                drop(rng.choice((1, 2)))
            assert all(credited(journal).get(k, 0) <= v for k, v in dropped.items()), kill

        # Back up: the next coin's count carries every pulse it missed.
        daemon = start()
        try:
            await watcher.wait_for("availability", lambda p: p == "online")
            drop(1)
            drop(2)
            await asyncio.wait_for(settled(), TIMEOUT * 3)
            await asyncio.sleep(0.3)  # nothing more comes: no pulse is counted twice
            assert credited(journal) == dropped
            daemon.send_signal(signal.SIGTERM)
            assert daemon.wait(TIMEOUT) == 0
        finally:
            if daemon.poll() is None:
                daemon.kill()
    finally:
        asyncio.get_running_loop().remove_reader(master)
        os.close(master)
        os.close(slave)

    assert cut > 0, "no kill came between a pulse and its credit"
    with sqlite3.connect(journal) as db:
        balance = db.execute("SELECT sum(change) FROM credit_ledger").fetchone()[0]
    assert balance == dropped[1] * 1 + dropped[2] * 2
