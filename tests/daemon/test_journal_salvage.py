"""A damaged journal (a page of random bytes in the middle, the file cut to
half, its header zeroed; every page of one table) under a real ``oche run``
and ``oche journal``: the board plays on, says so loudly, keeps the damaged
file, and salvages finished games, results still to send and the credits.
Real SQLite files, a real Mosquitto, a pty board."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine import MatchFormat, new_game, parse_event
from engine.match import Match
from firmware_bridge.daemon.journal import Charge, Finish, Journal, JournalDamaged
from firmware_bridge.daemon.journal_salvage import DAMAGED_MARK, salvage_journal
from firmware_bridge.daemon.mqtt_link import to_json
from mqtt_contract import result_document
from tests.daemon_harness import OCHE, OcheRun, Watcher, config_text, throw
from tests.drivers.pty_board import FakeBoard
from tests.mosquitto_broker import MosquittoBroker

T0 = 1_767_000_000.0
PAGE = 4096
# Ann 180, Bob 3, twice; then Ann's T20 T19 D12 checks out 141.
WINNING = ["T20", "T20", "T20", "NEXT", "S1", "S1", "S1", "NEXT"] * 2 + ["T20", "T19", "D12"]
PLAYING = ["T20", "T20", "T20", "NEXT", "S5"]  # the game in progress: Bob's first dart
FINISHED = 60
UNDELIVERED = 3
COIN_MODE = '[credits]\nmode = "coin"\n'


@dataclass(frozen=True)
class Built:
    """What the journal held before the damage."""

    credits: int
    pending: frozenset[str]
    """The result ids still to send."""
    rows: dict[str, list[tuple[Any, ...]]]
    """Every row of every table, in key order."""
    owners: dict[int, str]
    """Each page's table (or index)."""


def build_journal(path: Path) -> Built:
    """A bar's journal: 70 coins, 60 paid games won and their results (the
    last 3 not delivered yet), an operator's price and a game in progress."""
    pending: set[str] = set()
    with Journal(path) as journal:
        at = T0
        for count in range(1, 71):
            journal.ledger.record_coin("board1", 1, count, "boot-1", at, 2)
            at += 1
        for number in range(FINISHED):
            game_id = journal.games.start_game(
                "x01", {"start": 501}, ["Ann", "Bob"], None, "board1", at, charge=Charge(2)
            )
            game = new_game("x01", ["Ann", "Bob"], {"start": 501})
            started = at
            for token in WINNING:
                at += 1
                journal.games.append(game_id, token, at)
                game.push(parse_event(token))
                journal.games.note_ignored(game_id, "S5", "takeout", at)
            result = result_document(
                game,
                result_id=uuid.UUID(int=number + 1).hex,
                board="board1",
                started_at=started,
                finished_at=at,
            )
            journal.games.record(
                game_id,
                [],
                finish=Finish(
                    {"winner": result["winner"], "result": result["result"]},
                    at,
                    result["result_id"],
                    to_json(result),
                ),
            )
            if number < FINISHED - UNDELIVERED:
                journal.outbox.mark_sent(result["result_id"])  # and a leaderboard has it
                journal.outbox.mark_stored("board1", [result["result_id"]], at)
            else:
                pending.add(result["result_id"])
        game_id = journal.games.start_game(
            "x01", {"start": 501}, ["Ann", "Bob"], None, "board1", at, charge=Charge(2)
        )
        for token in PLAYING:
            at += 1
            journal.games.append(game_id, token, at)
        journal.settings.set_operator_setting("board1", "price", 1, at)
        credits = journal.ledger.credit_balance("board1")
    with sqlite3.connect(path) as connection:
        owners = dict(connection.execute("SELECT pageno, name FROM dbstat").fetchall())
    return Built(credits, frozenset(pending), table_rows(path), owners)


def table_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as connection:
        names = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {
            name: connection.execute(f'SELECT * FROM "{name}" ORDER BY 1, 2').fetchall()
            for name in names
        }


def damage(path: Path, how: str, built: Built) -> set[str]:
    """Damage the journal ``how``; the tables (and indexes) whose pages were hit."""
    data = bytearray(path.read_bytes())
    pages = len(data) // PAGE
    if how == "page":  # a page of random bytes in the middle of the file
        hit = {pages // 2 + 1}
    elif how == "half":  # the file cut to half
        hit = set(range(pages // 2 + 1, pages + 1))
        del data[pages // 2 * PAGE :]
    elif how == "header":  # the database header zeroed
        data[:100] = bytes(100)
        hit = set()
    else:  # every page of one table
        hit = {page for page, owner in built.owners.items() if owner == how}
    noise = random.Random(21)
    for page in hit:
        if page * PAGE <= len(data):
            data[(page - 1) * PAGE : page * PAGE] = noise.randbytes(PAGE)
    path.write_bytes(bytes(data))
    return {built.owners[page] for page in hit}


@pytest.fixture(scope="module")
def sound_journal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    """The bar's journal, built once (thousands of durable commits take a while)."""
    path = tmp_path_factory.mktemp("sound") / "journal.sqlite3"
    return path, build_journal(path)


@pytest.fixture
def damaged_journal(
    tmp_path: Path, sound_journal: tuple[Path, Built], request: pytest.FixtureRequest
) -> tuple[Path, Built, set[str]]:
    """A copy of the bar's journal in ``tmp_path``, damaged as the test's parameter says."""
    sound, built = sound_journal
    path = tmp_path / "journal.sqlite3"
    shutil.copyfile(sound, path)
    hit = damage(path, request.param, built)
    with pytest.raises(JournalDamaged):
        Journal(path).open()
    return path, built, hit


def oche(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), *args], capture_output=True, text=True, timeout=120, check=False
    )


def kept_rows_are_original(salvaged: Path, built: Built) -> None:
    """Nothing salvaged is invented: every game, result and credit line the
    fresh journal has is one the journal had (a reference to a lost game cleared)."""
    rows = table_rows(salvaged)
    original_games = {row[0]: row for row in built.rows["games"]}
    for row in rows["games"]:
        assert row[0] in original_games and row[1] == original_games[row[0]][1], row
    assert {row[:5] for row in rows["outbox"]} <= {row[:5] for row in built.rows["outbox"]}
    ledger = {row[:7] + row[8:] for row in built.rows["credit_ledger"]}  # game_id left out
    assert {row[:7] + row[8:] for row in rows["credit_ledger"]} <= ledger


# ------------------------------------------------------------------- oche run


@pytest.mark.slow
@pytest.mark.parametrize("damaged_journal", ["page", "half", "header"], indirect=True)
async def test_a_damaged_journal_is_set_aside_salvaged_and_the_board_plays_on(
    tmp_path: Path,
    damaged_journal: tuple[Path, Built, set[str]],
    mosquitto: MosquittoBroker,
    watcher: Watcher,
) -> None:
    path, built, hit = damaged_journal
    damaged_bytes = path.read_bytes()
    board = FakeBoard(tmp_path / "oche-board")
    config = tmp_path / "oche.toml"
    config.write_text(config_text(tmp_path, mosquitto.url, board.link, extra=COIN_MODE), "utf-8")
    daemon = OcheRun(config)
    try:
        daemon.start()
        state = await watcher.state_where(lambda s: s["board"]["connected"])
        assert state["journal"]["status"] == "ok"
        assert state["journal"]["salvaged"].startswith("the journal was damaged: "), state
        event = await watcher.wait_for(
            "event", lambda e: e.get("type") == "error" and e["kind"] == "journal-salvaged"
        )
        [aside] = tmp_path.glob(f"journal.sqlite3{DAMAGED_MARK}*")
        assert f"set aside as {aside}" in event["message"], event
        assert aside.read_bytes() == damaged_bytes  # kept exactly as it was found

        salvaged = table_rows(path)  # read beside the running daemon
        kept_rows_are_original(path, built)
        if not hit & {"credit_ledger", "credit_ledger_by_board"}:
            assert state["credits"]["credits"] == built.credits  # no paid credit lost
        kept = {json.loads(row[3])["result_id"] for row in salvaged["outbox"]}
        sendable = kept & built.pending  # the results still to send that were read
        if not hit:
            assert sendable == built.pending
        delivered = await watcher.count(
            "result", lambda r: r.get("result_id") in sendable, at_least=len(sendable)
        )
        assert delivered == len(sendable)
        playing = [row for row in salvaged["games"] if row[8] == "playing"]
        if playing:  # its darts were all read: it resumes where it was
            assert (state["game"], state["visit"]) == ("x01", ["S5"])
            assert [p["score"] for p in state["players"]] == [321, 496]
            assert "the game plays on" in state["journal"]["salvaged"]
        else:  # lost with its darts, or with its row: said either way
            assert "lost" in state["journal"]["salvaged"], state["journal"]
            assert " lost" in event["message"], event
        if not hit:
            assert playing and len(salvaged["games"]) == FINISHED + 1
            assert len(salvaged["credit_ledger"]) == len(built.rows["credit_ledger"])

        # The board plays: a paid game starts and its darts count.
        started = await watcher.command(
            {"command": "new_game", "game": "x01", "players": ["Cy", "Di"]}
        )
        assert started["ok"], started
        state = await watcher.state_where(lambda s: s["players"][0]["name"] == "Cy")
        assert state["journal"]["salvaged"] is None  # seen: the next game clears it
        await throw(board, "T20")
        await watcher.state_where(lambda s: s.get("visit") == ["T20"])
        assert daemon.alive
    finally:
        stderr = daemon.stop()
        board.close()
    errors = daemon.clean_errors()
    assert len(errors) == 1 and "set aside as" in errors[0], stderr
    checked = oche("journal", "check", "--journal", str(path))
    assert checked.returncode == 0 and "ok" in checked.stdout, checked
    assert oche("journal", "check", "--journal", str(aside)).returncode == 1
    history = oche("history", "--journal", str(path), "--json")
    assert history.returncode == 0, history.stderr
    assert json.loads(history.stdout)[0]["players"] == ["Cy", "Di"]


# --------------------------------------------------------- what is salvaged


@pytest.mark.parametrize("damaged_journal", ["events"], indirect=True)
def test_lost_darts_come_back_from_the_results_and_the_game_in_progress_is_lost(
    tmp_path: Path, damaged_journal: tuple[Path, Built, set[str]]
) -> None:
    path, built, _ = damaged_journal
    report = salvage_journal(path, tmp_path / "salvaged.sqlite3")
    assert report.lost == [FINISHED + 1] and report.resumed == []
    assert len(report.rebuilt) == FINISHED
    with Journal(tmp_path / "salvaged.sqlite3") as journal:
        assert journal.games.game(FINISHED + 1).status == "ended"
        assert journal.ledger.credit_balance("board1") == built.credits
        assert {result_id for result_id, _ in journal.outbox.pending_results()} == built.pending
    history = oche(
        "history", "--journal", str(tmp_path / "salvaged.sqlite3"), "--json", "--limit", "99"
    )
    finished = [game for game in json.loads(history.stdout) if game["status"] == "finished"]
    assert len(finished) == FINISHED
    assert {(game["winner"], game["darts"]) for game in finished} == {("Ann", 15)}


@pytest.mark.parametrize("damaged_journal", ["games"], indirect=True)
def test_games_whose_rows_were_lost_come_back_from_their_results(
    tmp_path: Path, damaged_journal: tuple[Path, Built, set[str]]
) -> None:
    path, built, _ = damaged_journal
    report = salvage_journal(path, tmp_path / "salvaged.sqlite3")
    assert report.games == FINISHED  # the game in progress had no result to come back from
    assert report.missing == {"games": 1}
    with Journal(tmp_path / "salvaged.sqlite3") as journal:
        assert journal.ledger.credit_balance("board1") == built.credits  # its lines kept, unlinked
        assert {
            result_id for result_id, _ in journal.outbox.pending_results("board1")
        } == built.pending
        game = journal.games.game(FINISHED)
        assert (game.status, game.players, game.result) == (
            "finished",
            ["Ann", "Bob"],
            {"winner": 0, "result": "checkout"},
        )
        assert game.events == WINNING  # its own events, read in full
    kept_rows_are_original(tmp_path / "salvaged.sqlite3", built)


# ---------------------------------------------------------------- oche journal


@pytest.mark.parametrize("damaged_journal", ["page"], indirect=True)
def test_oche_journal_check_and_salvage(
    tmp_path: Path, damaged_journal: tuple[Path, Built, set[str]]
) -> None:
    path, built, _ = damaged_journal
    before = path.read_bytes()
    checked = oche("journal", "check", "--journal", str(path))
    assert checked.returncode == 1, checked
    assert f"journal {path}: damaged" in checked.stdout
    assert "oche journal salvage" in checked.stdout

    salvaged = oche("journal", "salvage", str(path))
    assert salvaged.returncode == 0, salvaged
    target = Path(f"{path}.salvaged")
    assert f"salvaged into {target}" in salvaged.stdout
    assert "credit lines" in salvaged.stdout
    assert path.read_bytes() == before  # the damaged file is only read
    again = oche("journal", "salvage", str(path))
    assert again.returncode == 2 and "already exists" in again.stderr, again
    other = tmp_path / "elsewhere.sqlite3"
    assert oche("journal", "salvage", str(path), "--output", str(other)).returncode == 0

    sound = oche("journal", "check", "--journal", str(target))
    assert sound.returncode == 0 and f"journal {target}: ok" in sound.stdout, sound
    assert "games: 61, events: " in sound.stdout
    assert oche("journal", "check", "--journal", str(tmp_path / "none")).returncode == 2
    shutil.copyfile(target, tmp_path / "copy.sqlite3")
    with sqlite3.connect(tmp_path / "copy.sqlite3") as connection:
        connection.execute("PRAGMA application_id = 7")
    foreign = oche("journal", "check", "--journal", str(tmp_path / "copy.sqlite3"))
    assert foreign.returncode == 2 and "not an Oche journal" in foreign.stderr, foreign
    assert built.credits == 70 * 2 - (FINISHED + 1) * 2


# ------------------------------------------------------- a match salvaged

CRICKET_LEG = [
    *(
        token
        for n in (20, 19, 18, 17, 16, 15)
        for token in [f"T{n}"] * 3 + ["NEXT", "M", "M", "M", "NEXT"]
    ),
    "DB",
    "DB",
]
"""A cricket leg the side throwing first closes and wins."""
MATCH_TOKENS = [*CRICKET_LEG, "NEXT", *CRICKET_LEG, "NEXT", "SB", "DB", *CRICKET_LEG]
"""First to 2: Ann starts and wins leg 1, Bob leg 2; 1-1, so a cork: Bob's
bull beats Ann's, he starts the decider and wins it."""


def played_match(tokens: list[str]) -> Match:
    played = Match("cricket", ["Ann", "Bob"], format=MatchFormat(2))
    for token in tokens:
        played.push(parse_event(token))
    return played


def test_a_match_whose_darts_were_lost_comes_back_from_its_result_legs_and_cork(
    tmp_path: Path,
) -> None:
    """The events of a finished cricket match lost with their table's pages:
    its result's legs give them back, a NEXT between legs and the decider's
    cork as its starter's bull, so the salvaged match has the same legs."""
    path = tmp_path / "journal.sqlite3"
    at = T0
    with Journal(path) as journal:
        match_format = MatchFormat(2).to_json()
        game_id = journal.games.start_game(
            "cricket", {}, ["Ann", "Bob"], None, "board1", at, match=match_format
        )
        for token in MATCH_TOKENS:
            at += 1
            journal.games.append(game_id, token, at)
        played = played_match(MATCH_TOKENS)
        assert played.is_finished
        result = result_document(
            played, result_id="match-1", board="board1", started_at=T0, finished_at=at
        )
        finish = Finish(
            {"winner": result["winner"], "result": result["result"]},
            at,
            result["result_id"],
            to_json(result),
        )
        journal.games.record(game_id, [], finish=finish)
    with sqlite3.connect(path) as connection:
        owners = dict(connection.execute("SELECT pageno, name FROM dbstat").fetchall())
    assert damage(path, "events", Built(0, frozenset(), {}, owners)) == {"events"}

    salvaged = tmp_path / "salvaged.sqlite3"
    report = salvage_journal(path, salvaged)
    assert report.rebuilt == [game_id]
    with Journal(salvaged) as journal:
        kept = journal.games.game(game_id)
    assert kept.status == "finished" and kept.match == match_format
    again = played_match(kept.events)
    assert again.is_finished
    assert [(r.starter, r.outcome.winner) for r in again.legs] == [(0, 0), (1, 1), (1, 1)]
    assert again.state()["players"] == played.state()["players"]
