"""The journal's storage failing under a real ``oche run``: its file system
filling up mid-game (a real tmpfs of a few hundred KiB, filled by a file),
with darts from a pty board and from MQTT, a real Mosquitto and real SQLite."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from firmware_bridge.daemon.journal import Journal
from mqtt_contract import TOPICS
from tests.daemon_harness import OcheRun, Watcher, config_text, press, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker
from tests.paths import REPO

FULL = "the journal is full: darts are not counted"


class SmallFileSystem:
    """A tmpfs of ``size`` bytes mounted at ``path`` (root only): an SD card
    that fills up. :meth:`fill` takes every free byte, :meth:`free` gives
    them back."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.size = size
        self._filler = path / f"filler-{uuid.uuid4().hex}"

    def mount(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={self.size}", "tmpfs", str(self.path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True, check=False)

    def fill(self) -> None:
        """Write until the file system says ENOSPC, in ever smaller pieces."""
        descriptor = os.open(self._filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for chunk in (65536, 4096, 512, 1):
                while True:
                    try:
                        os.write(descriptor, b"\0" * chunk)
                    except OSError as error:
                        assert error.errno == errno.ENOSPC, error
                        break
        finally:
            os.close(descriptor)
        assert shutil.disk_usage(self.path).free < 4096

    def free(self) -> None:
        self._filler.unlink()


@pytest.fixture
def sd_card(tmp_path: Path) -> Iterator[SmallFileSystem]:
    card = SmallFileSystem(tmp_path / "sd", 512 * 1024)
    card.mount()
    try:
        yield card
    finally:
        card.unmount()


def errors(watcher: Watcher, kind: str) -> list[dict[str, Any]]:
    return [e for e in watcher.of("event") if e.get("type") == "error" and e["kind"] == kind]


def journal_config(
    tmp_path: Path, card: SmallFileSystem, url: str, board: FakeBoard, **options: Any
) -> Path:
    """The daemon's config, its journal on ``card``."""
    config = tmp_path / "oche.toml"
    text = config_text(tmp_path, url, board.link, **options)
    journal = str(card.path / "journal.sqlite3")
    config.write_text(text.replace(str(tmp_path / "journal.sqlite3"), journal), "utf-8")
    return config


@pytest.mark.slow
async def test_a_full_disk_refuses_darts_says_so_and_goes_on_when_space_returns(
    tmp_path: Path, sd_card: SmallFileSystem, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    journal = sd_card.path / "journal.sqlite3"
    daemon = OcheRun(journal_config(tmp_path, sd_card, mosquitto.url, board))
    try:
        daemon.start()
        await watcher.state_where(lambda s: s["board"]["connected"])
        assert watcher.of("state")[-1]["journal"] == {
            "status": "ok",
            "message": None,
            "salvaged": None,
        }
        started = await watcher.command(
            {"command": "new_game", "game": "x01", "players": ["Ann", "Bob"]}
        )
        assert started["ok"], started
        await throw(board, "T20")
        await watcher.state_where(lambda s: s.get("visit") == ["T20"])

        sd_card.fill()
        await throw(board, "T19")  # a dart at the board
        refused = await watcher.wait_for(
            "event", lambda e: e.get("type") == "error" and e["kind"] == "journal-full"
        )
        assert refused["message"].startswith("T19 refused: the journal is full"), refused
        state = await watcher.state_where(lambda s: s["journal"]["status"] == "full")
        assert state["journal"]["message"] == FULL
        assert (state["visit"], state["players"][0]["score"]) == (["T20"], 441)

        answer = await watcher.command({"command": "dart", "segment": "S5"})  # over MQTT
        assert answer["ok"] is False and "the journal is full" in answer["error"], answer
        await press(board, 0)  # NEXT: two misses and the visit's end, refused as one
        await watcher.count("event", lambda e: e.get("kind") == "journal-full", at_least=3)
        assert daemon.alive, daemon.stop()
        state = watcher.of("state")[-1]
        assert (state["visit"], state["current_player"], state["journal"]["status"]) == (
            ["T20"],
            0,
            "full",
        )

        sd_card.free()  # no input needed: the daemon finds out by itself
        state = await watcher.state_where(lambda s: s["journal"]["status"] == "ok", timeout=30)
        assert state["journal"]["message"] is None
        await throw(board, "T19")
        state = await watcher.state_where(lambda s: s.get("visit") == ["T20", "T19"])
        assert state["players"][0]["score"] == 501 - 60 - 57
        assert (await watcher.command({"command": "dart", "segment": "S5"}))["ok"]
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
    finally:
        stderr = daemon.stop()
        board.close()
    errors_logged = daemon.clean_errors()
    assert len(errors_logged) == 1 and "journal" in errors_logged[0], stderr
    assert len([line for line in stderr.splitlines() if "journal writes again" in line]) == 1
    validator = Draft202012Validator(TOPICS["state"].schema)
    for payload in watcher.of("state"):
        assert not list(validator.iter_errors(payload)), payload
    with Journal(journal) as reopened:  # consistent: exactly the darts that were counted
        [game] = reopened.games.games()
        assert reopened.games.game(game.id).events == ["T20", "T19", "S5"]
    with sqlite3.connect(journal) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.slow
async def test_the_takeout_timer_and_a_computer_player_wait_for_a_full_journal(
    tmp_path: Path, sd_card: SmallFileSystem, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    board = FakeBoard(tmp_path / "oche-board")
    bot = "[bot]\ndart_interval_s = 3.0\ntakeout_s = 0.5\n"
    config = journal_config(tmp_path, sd_card, mosquitto.url, board, takeout_s=3.0, extra=bot)
    daemon = OcheRun(config)
    try:
        daemon.start()
        await watcher.state_where(lambda s: s["board"]["connected"])
        started = await watcher.command(
            {"command": "new_game", "game": "x01", "players": ["Ann", {"name": "Robo", "cpu": 5}]}
        )
        assert started["ok"], started
        await throw(board, "T20", "T20", "T20")
        await watcher.state_where(lambda s: s.get("phase") == "takeout")
        sd_card.fill()  # the takeout timer's NEXT, 3 s on, finds the journal full
        state = await watcher.state_where(lambda s: s["journal"]["status"] == "full")
        assert state["phase"] == "takeout"
        sd_card.free()
        state = await watcher.state_where(
            lambda s: s["journal"]["status"] == "ok" and s.get("phase") == "throwing", timeout=30
        )
        assert state["current_player"] == 1

        await watcher.wait_for("event", lambda e: e.get("source") == "cpu")  # Robo's first dart
        sd_card.fill()  # his next one, 3 s on, finds the journal full
        state = await watcher.state_where(lambda s: s["journal"]["status"] == "full")
        assert state["current_player"] == 1 and 1 <= len(state["visit"]) < 3, state
        sd_card.free()
        state = await watcher.state_where(  # Robo finishes his visit and presses NEXT himself
            lambda s: (
                s["journal"]["status"] == "ok"
                and s.get("phase") == "throwing"
                and s.get("current_player") == 0
            ),
            timeout=30,
        )
        assert len(state["last_visit"]["darts"]) == 3
        assert daemon.alive
    finally:
        stderr = daemon.stop()
        board.close()
    errors_logged = daemon.clean_errors()
    assert len(errors_logged) == 2, stderr  # once for each time the journal filled up


def test_a_start_on_a_full_disk_exits_to_be_started_again(
    tmp_path: Path, sd_card: SmallFileSystem, mosquitto: MosquittoBroker
) -> None:
    """A board that boots with its SD card full cannot journal a dart: `oche run`
    says why and exits 75 (a temporary failure), not 2, which oche@.service
    never restarts: the board plays again once space returns."""
    board = FakeBoard(tmp_path / "oche-board")
    config = journal_config(tmp_path, sd_card, mosquitto.url, board)
    sd_card.fill()
    daemon = OcheRun(config)
    daemon.start()
    assert daemon.process is not None
    daemon.process.wait(timeout=60)
    stderr = daemon.stop()
    assert daemon.returncode == 75, stderr
    assert "trying again later" in stderr and "Traceback" not in stderr, stderr
    unit = (REPO / "deploy" / "systemd" / "oche@.service").read_text("utf-8")
    assert "RestartPreventExitStatus=2\n" in unit and "Restart=on-failure" in unit
