"""The lobby (docs/players.md): players join the board's next game by name,
by roster id, by card and by phone; ``new_game`` without players takes them;
results carry their roster ids; a card's UID is never published, logged or
journaled. A real daemon, a real Mosquitto and the daemon's own board input
path (a board source that yields what a test taps)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from jsonschema import Draft202012Validator

from credentials.card_hash import card_hash
from drivers.board_events import BoardEvent, CardTapped, ConnectedEvent
from drivers.source import BoardSource
from firmware_bridge.daemon.board_daemon import Daemon
from mqtt_contract import TOPICS
from mqtt_contract.lobby_payload import RosterMessage, RosterPlayer
from tests.daemon.test_journal_faults import SmallFileSystem, sd_card
from tests.daemon_harness import QUIET, TIMEOUT, Running, Watcher, until
from tests.mosquitto_broker import MosquittoBroker

SECRET = "lobby-test-secret-0123456789"
WEB = "http://pub.local:8080"
ANN_UID = "04:A2:1B:3F:5C:6D:80"
"""Ann's card as a PC/SC reader prints it."""
STRANGER_UID = "0499887766554433"
"""A card no roster knows."""
OPTIONS = {"start": 301, "out": "straight"}
__all__ = ["sd_card"]  # the full SD card's fixture, used here too


class TapSource(BoardSource):
    """A board source whose events a test puts in: card taps go the board
    input's way (``BoardInput.read``), as a card reader's would."""

    name = "taps"

    def __init__(self) -> None:
        super().__init__()
        self.pending: asyncio.Queue[BoardEvent] = asyncio.Queue()

    async def _run(self) -> None:
        self._emit(ConnectedEvent("taps"))
        while True:
            self._emit(await self.pending.get())

    def tap(self, uid: str) -> None:
        self.pending.put_nowait(CardTapped(uid))


def roster(*players: RosterPlayer, updated_at: float = 1767225600.0) -> RosterMessage:
    return RosterMessage(venue="The Crown", updated_at=updated_at, players=players)


ANN = RosterPlayer(
    id=12,
    name="Ann Lee",
    cards=(card_hash(SECRET, ANN_UID),),
    average=54.2,
    mpr=2.8,
    regular=True,
)
BOB = RosterPlayer(id=14, name="Bob", average=40.0, mpr=1.4)


class Board:
    """A daemon on the taps source, with a watcher and a publisher of its
    roster; started by :meth:`start`, stopped by :meth:`stop`."""

    def __init__(self, tmp_path: Path, broker: MosquittoBroker, overrides: Sequence[str]) -> None:
        self.tmp_path, self.broker, self.overrides = tmp_path, broker, overrides
        self.taps = TapSource()
        self.running: Running | None = None

    async def start(self) -> None:
        self.taps = TapSource()
        running = Running(self.tmp_path, self.broker, self.overrides)
        running.daemon = Daemon(running.config, source=self.taps)
        await running.start()
        self.running = running

    async def stop(self) -> None:
        if self.running is not None:
            await self.running.stop()
            self.running.board.close()
            self.running = None

    async def publish_roster(self, message: RosterMessage | bytes) -> None:
        payload = message if isinstance(message, bytes) else message.payload()
        async with aiomqtt.Client(self.broker.host, self.broker.port) as client:
            await client.publish("oche/board1/roster", payload, qos=1, retain=True)


@pytest.fixture
async def board(tmp_path: Path, mosquitto: MosquittoBroker) -> AsyncIterator[Board]:
    """A board with a web page and a card secret."""
    overrides = [f'lobby.web_url="{WEB}"', f'cards.secret="{SECRET}"']
    made = Board(tmp_path, mosquitto, overrides)
    await made.start()
    try:
        yield made
    finally:
        await made.stop()


def problems(name: str, payload: Any) -> list[str]:
    """What is wrong with ``payload`` as a message of the topic ``name``."""
    validator = Draft202012Validator(TOPICS[name].schema)
    return [error.message for error in validator.iter_errors(payload)]


def lobby(state: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = state["lobby"]
    return block


def names(state: dict[str, Any]) -> list[str]:
    return [player["name"] for player in lobby(state)["players"]]


async def ok(watcher: Watcher, payload: dict[str, Any]) -> dict[str, Any]:
    response = await watcher.command(payload)
    assert response["ok"], response
    return response


async def refused(watcher: Watcher, payload: dict[str, Any]) -> str:
    response = await watcher.command(payload)
    assert not response["ok"], response
    error: str = response["error"]
    return error


async def connected(watcher: Watcher) -> dict[str, Any]:
    return await watcher.state_where(lambda s: "lobby" in s and s["board"]["connected"])


def events(watcher: Watcher, kind: str) -> list[dict[str, Any]]:
    return [e for e in watcher.of("event") if isinstance(e, dict) and e.get("type") == kind]


async def win(watcher: Watcher, players: int) -> dict[str, Any]:
    """Play the running 301 to the first player's win; its result."""
    seen = {r["result_id"] for r in watcher.of("result") if isinstance(r, dict)}
    visits = [["T20"] * 3, *[["S1"] * 3 for _ in range(players - 1)], ["T20", "T20", "S1"]]
    for number, visit in enumerate(visits):
        if number:
            await ok(watcher, {"command": "next"})
        for segment in visit:
            await ok(watcher, {"command": "dart", "segment": segment})
    result: dict[str, Any] = await watcher.wait_for(
        "result", lambda r: isinstance(r, dict) and r["result_id"] not in seen
    )
    return result


# ------------------------------------------------------------------ joining


async def test_players_join_by_name_and_by_roster_id_and_a_game_takes_them(
    board: Board, watcher: Watcher
) -> None:
    state = await connected(watcher)
    assert lobby(state)["players"] == [] and lobby(state)["roster"] is False
    code = lobby(state)["join_code"]
    assert lobby(state)["join_url"] == f"{WEB}/join/board1?code={code}"
    assert problems("state", state) == []

    await board.publish_roster(roster(ANN, BOB))
    await watcher.state_where(lambda s: lobby(s)["roster"] is True)

    await ok(watcher, {"command": "join", "player": {"name": "Cy"}})  # a guest
    await ok(watcher, {"command": "join", "player": {"id": 14}})  # Bob, from the roster
    await ok(watcher, {"command": "join", "player": {"name": " annlee"}})  # the roster's Ann Lee
    state = await watcher.state_where(lambda s: len(lobby(s)["players"]) == 3)
    assert problems("state", state) == []
    cy, bob, ann = lobby(state)["players"]
    assert (cy["name"], cy["player_id"], cy["joined_by"]) == ("Cy", None, "name")
    assert (bob["name"], bob["player_id"], bob["joined_by"]) == ("Bob", 14, "roster")
    assert (ann["name"], ann["player_id"], ann["average"]) == ("Ann Lee", 12, 54.2)
    joined = await watcher.count("event", lambda e: e.get("type") == "joined", 3)
    assert joined == 3
    for event in events(watcher, "joined"):
        assert problems("event", event) == []
    assert lobby(state)["suggestions"][0] == {"name": "Ann Lee", "player_id": 12, "regular": True}

    # Joining again changes nothing and says nothing.
    await ok(watcher, {"command": "join", "player": {"id": 12}})
    await asyncio.sleep(QUIET)
    assert len(events(watcher, "joined")) == 3

    await ok(watcher, {"command": "new_game", "game": "x01", "options": OPTIONS})
    state = await watcher.state_where(lambda s: s["phase"] == "throwing")
    assert [p["name"] for p in state["players"]] == ["Cy", "Bob", "Ann Lee"]
    assert lobby(state)["players"] == []
    assert lobby(state)["join_code"] not in (None, code)  # a new code for the next game
    # The last players here come after the regulars.
    assert [s["name"] for s in lobby(state)["suggestions"]] == ["Ann Lee", "Cy", "Bob"]

    result = await win(watcher, 3)
    assert problems("result", result) == []
    assert [(p["name"], p["player_id"]) for p in result["players"]] == [
        ("Cy", None),
        ("Bob", 14),
        ("Ann Lee", 12),
    ]

    # A rematch keeps the players and their ids.
    await ok(watcher, {"command": "rematch"})
    await watcher.state_where(lambda s: s["phase"] == "throwing" and s["visit"] == [])
    again = await win(watcher, 3)
    assert again["result_id"] != result["result_id"]
    assert [p["player_id"] for p in again["players"]] == [None, 14, 12]


async def test_a_game_naming_its_players_gets_the_lobbys_ids_across_a_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    """A lobby player named in new_game keeps their id (journaled: a restart
    keeps it); a computer player never has one."""
    quick_bot = ["bot.dart_interval_s=0", "bot.takeout_s=0", f'cards.secret="{SECRET}"']
    made = Board(tmp_path, mosquitto, quick_bot)
    await made.start()
    try:
        await connected(watcher)
        await made.publish_roster(roster(ANN, BOB))
        await watcher.state_where(lambda s: lobby(s)["roster"] is True)
        await ok(watcher, {"command": "join", "player": {"id": 12}})
        players = ["Ann Lee", {"name": "Robo", "cpu": 1}]
        game = {"command": "new_game", "game": "x01", "options": OPTIONS, "players": players}
        await ok(watcher, game)
        await watcher.state_where(lambda s: s["phase"] == "throwing" and lobby(s)["players"] == [])
        await made.stop()
        watcher.messages.clear()  # what follows is the restarted daemon's
        await made.start()
        await watcher.state_where(lambda s: s["phase"] == "throwing" and s["board"]["connected"])
        for segment in ("T20", "T20", "T20"):
            await ok(watcher, {"command": "dart", "segment": segment})
        await ok(watcher, {"command": "next"})
        # Robo throws its visit; then it is Ann's turn again.
        await watcher.state_where(
            lambda s: s["current_player"] == 0 and s["visit"] == [] and s["phase"] == "throwing",
            timeout=TIMEOUT * 3,  # a computer player's visit on a busy machine
        )
        for segment in ("T20", "T20", "S1"):
            await ok(watcher, {"command": "dart", "segment": segment})
        result = await watcher.wait_for("result", lambda r: isinstance(r, dict))
        assert [(p["name"], p["player_id"]) for p in result["players"]] == [
            ("Ann Lee", 12),
            ("Robo", None),
        ]
        assert "cpu" in result["players"][1] and problems("result", result) == []
    finally:
        await made.stop()


async def test_a_new_game_without_players_and_an_empty_lobby_is_refused(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    error = await refused(watcher, {"command": "new_game", "game": "x01"})
    assert "no players" in error and "join" in error
    await asyncio.sleep(QUIET)
    assert watcher.of("state")[-1]["phase"] == "idle"


async def test_a_player_leaves(board: Board, watcher: Watcher) -> None:
    await connected(watcher)
    await ok(watcher, {"command": "join", "player": {"name": "Ann"}})
    await ok(watcher, {"command": "join", "player": {"name": "Bob"}})
    await ok(watcher, {"command": "leave", "player": {"name": "ANN"}})
    state = await watcher.state_where(lambda s: names(s) == ["Bob"])
    left = await watcher.wait_for("event", lambda e: e.get("type") == "left")
    assert left["player"]["name"] == "Ann" and problems("event", left) == []
    error = await refused(watcher, {"command": "leave", "player": {"name": "Cy"}})
    assert error == "leave: 'Cy' is not in the lobby" or "'Cy' is not in the lobby" in error
    assert names(state) == ["Bob"]


BAD_JOINS: list[tuple[dict[str, Any], str]] = [
    ({"command": "join"}, "join needs 'player'"),
    ({"command": "join", "player": "Ann"}, '"player" must be an object, got string'),
    ({"command": "join", "player": {}}, 'needs exactly one of "name" and "id"'),
    ({"command": "join", "player": {"name": "Ann", "id": 3}}, 'exactly one of "name" and "id"'),
    ({"command": "join", "player": {"id": "3"}}, "must be a roster id (an integer from 1)"),
    ({"command": "join", "player": {"id": 0}}, "must be a roster id (an integer from 1)"),
    ({"command": "join", "player": {"name": "  "}}, "is empty"),
    ({"command": "join", "player": {"name": "A" * 30}}, "the limit is 24"),
    ({"command": "join", "player": {"name": "Ann", "team": "Red"}}, "unknown key 'team'"),
    ({"command": "join", "player": {"name": "Ann"}, "link_card": True}, '"link_card" needs "code"'),
    ({"command": "join", "player": {"name": "Ann"}, "code": "K7PQ2"}, "bad join code"),
    ({"command": "join", "player": {"name": "Ann"}, "code": 5}, '"code" must be a string'),
    ({"command": "join", "player": {"name": "Ann"}, "seat": 2}, "unknown key 'seat' for join"),
    ({"command": "join", "player": {"id": 99}}, "no player 99 here: this board's roster has no"),
    ({"command": "join", "player": {"name": "Ann"}, "code": "AAAAAA"}, "join code expired"),
    ({"command": "leave", "player": {"id": True}}, "must be a roster id"),
]


async def test_bad_joins_are_refused_naming_the_problem_and_nothing_changes(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    await ok(watcher, {"command": "join", "player": {"name": "Bob"}})
    before = await watcher.state_where(lambda s: names(s) == ["Bob"])
    for payload, complaint in BAD_JOINS:
        error = await refused(watcher, dict(payload))
        assert complaint in error, (payload, error)
    await asyncio.sleep(QUIET)
    after = watcher.of("state")[-1]
    assert lobby(after) == lobby(before)
    assert len(events(watcher, "joined")) == 1 and events(watcher, "left") == []


async def test_a_phone_joins_with_the_current_code_only(board: Board, watcher: Watcher) -> None:
    state = await connected(watcher)
    code = lobby(state)["join_code"]
    await ok(watcher, {"command": "join", "player": {"name": "Ann"}, "code": code})
    state = await watcher.state_where(lambda s: names(s) == ["Ann"])
    assert lobby(state)["players"][0]["joined_by"] == "phone"
    wrong = "".join("B" if c != "B" else "C" for c in code)
    error = await refused(watcher, {"command": "join", "player": {"name": "Bob"}, "code": wrong})
    assert error.endswith("join code expired or not this board's")
    await ok(watcher, {"command": "new_game", "game": "x01", "options": OPTIONS})
    await watcher.state_where(lambda s: s["phase"] == "throwing")
    # The game started: the old code has expired.
    error = await refused(watcher, {"command": "join", "player": {"name": "Bob"}, "code": code})
    assert "join code expired" in error


async def test_without_a_web_page_there_is_no_join_code(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    async with Running(tmp_path, mosquitto):
        state = await watcher.state_where(lambda s: "lobby" in s)
        assert lobby(state)["join_code"] is None and lobby(state)["join_url"] is None
        error = await refused(
            watcher, {"command": "join", "player": {"name": "Ann"}, "code": "K7PQ2M"}
        )
        assert "join code expired or not this board's" in error
        # Joining by name works all the same, during a game too (for the next one).
        await ok(watcher, {"command": "new_game", "game": "x01", "players": ["Zed"]})
        await ok(watcher, {"command": "join", "player": {"name": "Ann"}})
        state = await watcher.state_where(lambda s: names(s) == ["Ann"])
        assert state["phase"] == "throwing"


# ------------------------------------------------------------------ cards


async def test_a_card_joins_its_player_and_an_unknown_card_is_refused_and_linked_by_phone(
    board: Board, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await connected(watcher)
    await board.publish_roster(roster(ANN, BOB))
    await watcher.state_where(lambda s: lobby(s)["roster"] is True)

    board.taps.tap(ANN_UID)
    state = await watcher.state_where(lambda s: names(s) == ["Ann Lee"])
    ann = lobby(state)["players"][0]
    assert (ann["player_id"], ann["joined_by"]) == (12, "card")
    joined = await watcher.wait_for("event", lambda e: e.get("type") == "joined")
    assert joined["player"]["joined_by"] == "card"

    board.taps.tap(STRANGER_UID)
    refusal = await watcher.wait_for("event", lambda e: e.get("type") == "card_refused")
    assert refusal["reason"] == "unknown"
    assert refusal["message"] == "Card not registered: ask at the bar, or scan the code"
    assert problems("event", refusal) == []
    state = await watcher.state_where(lambda s: lobby(s)["card_waiting"] is True)

    # Bob links the card from his phone: the response carries its hash.
    code = lobby(state)["join_code"]
    response = await ok(
        watcher, {"command": "join", "player": {"id": 14}, "code": code, "link_card": True}
    )
    assert response["card"] == card_hash(SECRET, STRANGER_UID)
    assert problems("cmd/response", response) == []
    state = await watcher.state_where(
        lambda s: names(s) == ["Ann Lee", "Bob"] and not lobby(s)["card_waiting"]
    )
    await ok(watcher, {"command": "leave", "player": {"id": 14}})
    await watcher.state_where(lambda s: names(s) == ["Ann Lee"])
    board.taps.tap(STRANGER_UID)  # now Bob's card, in the board's copy
    state = await watcher.state_where(lambda s: names(s) == ["Ann Lee", "Bob"])
    assert lobby(state)["players"][1]["joined_by"] == "card"

    # The UIDs are nowhere: not on any topic, in no log line, not in the journal.
    await board.stop()
    journal = b"".join(path.read_bytes() for path in board.tmp_path.glob("journal.sqlite3*"))
    published = json.dumps(watcher.messages)
    for uid in (ANN_UID, STRANGER_UID):
        for form in {uid, uid.replace(":", ""), uid.replace(":", "").lower()}:
            assert form not in published
            assert form not in caplog.text
            assert form.encode() not in journal
    assert card_hash(SECRET, STRANGER_UID).encode() in journal  # only its hash is kept


async def test_a_new_name_from_a_phone_takes_the_waiting_card_for_the_service(
    board: Board, watcher: Watcher
) -> None:
    """The service makes a new name a roster player and relays the join by
    name: the board's copy does not know it yet, yet the card goes back (the
    service stores it) and waits no more."""
    await connected(watcher)
    await board.publish_roster(roster(ANN))
    await watcher.state_where(lambda s: lobby(s)["roster"] is True)
    board.taps.tap(STRANGER_UID)
    state = await watcher.state_where(lambda s: lobby(s)["card_waiting"] is True)
    code = lobby(state)["join_code"]
    response = await ok(
        watcher, {"command": "join", "player": {"name": "Zed"}, "code": code, "link_card": True}
    )
    assert response["card"] == card_hash(SECRET, STRANGER_UID)
    state = await watcher.state_where(lambda s: names(s) == ["Zed"])
    assert lobby(state)["card_waiting"] is False
    assert lobby(state)["players"][0]["player_id"] is None  # a guest until the next roster


async def test_a_card_during_a_game_is_refused_and_never_scored(
    board: Board, watcher: Watcher
) -> None:
    await connected(watcher)
    await board.publish_roster(roster(ANN))
    await watcher.state_where(lambda s: lobby(s)["roster"] is True)
    await ok(watcher, {"command": "new_game", "game": "x01", "players": ["Zed"]})
    await ok(watcher, {"command": "dart", "segment": "T20"})
    await watcher.state_where(lambda s: s["phase"] == "throwing" and len(s["visit"]) == 1)
    board.taps.tap(ANN_UID)
    refusal = await watcher.wait_for("event", lambda e: e.get("type") == "card_refused")
    assert refusal == {**refusal, "reason": "in-game", "message": "Cards join between games"}
    await asyncio.sleep(QUIET)
    state = watcher.of("state")[-1]
    assert state["visit"] == ["T20"] and names(state) == []
    assert len(events(watcher, "dart")) == 1 and events(watcher, "hit") == []


async def test_a_board_without_a_secret_says_so(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    made = Board(tmp_path, mosquitto, [])
    await made.start()
    try:
        await connected(watcher)
        made.taps.tap(ANN_UID)
        refusal = await watcher.wait_for("event", lambda e: e.get("type") == "card_refused")
        assert refusal["reason"] == "no-secret"
    finally:
        await made.stop()


# ------------------------------------------------------------------ the roster copy


async def test_a_restart_keeps_the_lobby_and_the_roster_copy(
    board: Board, watcher: Watcher, caplog: pytest.LogCaptureFixture
) -> None:
    await connected(watcher)
    await board.publish_roster(roster(ANN, BOB))
    await watcher.state_where(lambda s: lobby(s)["roster"] is True)
    await ok(watcher, {"command": "join", "player": {"name": "Cy"}})
    state = await watcher.state_where(lambda s: names(s) == ["Cy"])
    code = lobby(state)["join_code"]

    # A bad roster is logged and ignored: the copy stays.
    caplog.set_level(logging.WARNING)
    await board.publish_roster(b'{"venue": "The Crown", "players": "everyone"}')
    await until(lambda: "a roster on oche/board1/roster ignored" in caplog.text)

    await board.stop()
    await board.publish_roster(b"")  # the service's retained roster is gone
    watcher.messages.clear()
    await board.start()
    state = await watcher.state_where(lambda s: "lobby" in s and s["board"]["connected"])
    assert names(state) == ["Cy"] and lobby(state)["join_code"] == code
    assert lobby(state)["roster"] is True
    board.taps.tap(ANN_UID)  # the card still joins, from the journal's copy
    await watcher.state_where(lambda s: names(s) == ["Cy", "Ann Lee"])
    await ok(watcher, {"command": "join", "player": {"id": 14}})
    await watcher.state_where(lambda s: names(s) == ["Cy", "Ann Lee", "Bob"])


@pytest.mark.slow
async def test_a_join_the_journal_refuses_changes_nothing(
    tmp_path: Path, sd_card: SmallFileSystem, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    journal = f'journal.path="{sd_card.path / "journal.sqlite3"}"'
    async with Running(tmp_path, mosquitto, [journal]):
        await connected(watcher)
        await ok(watcher, {"command": "join", "player": {"name": "Ann"}})
        await watcher.state_where(lambda s: names(s) == ["Ann"])
        sd_card.fill()
        error = await refused(watcher, {"command": "join", "player": {"name": "Bob"}})
        assert "journal" in error, error
        state = await watcher.state_where(lambda s: s["journal"]["status"] != "ok")
        assert names(state) == ["Ann"]
        sd_card.free()
        await watcher.state_where(lambda s: s["journal"]["status"] == "ok", timeout=TIMEOUT * 2)
        await ok(watcher, {"command": "join", "player": {"name": "Bob"}})
        state = await watcher.state_where(lambda s: names(s) == ["Ann", "Bob"])
        assert [e["player"]["name"] for e in events(watcher, "joined")] == ["Ann", "Bob"]


async def test_new_game_from_the_lobby_applies_suggested_handicaps(
    board: Board, watcher: Watcher
) -> None:
    """Issue #26: ``"handicap": "suggested"`` starts each lobby player from
    an X01 start made from their roster average (Ann 54.2, Bob 40.0); a
    guest without one starts from the game's start; in Cricket each gets
    spot marks from their roster MPR."""
    await connected(watcher)
    await board.publish_roster(roster(ANN, BOB))
    await watcher.state_where(lambda s: lobby(s)["roster"] is True)
    for player in ({"id": 12}, {"id": 14}, {"name": "Cy"}):
        await ok(watcher, {"command": "join", "player": player})
    await watcher.state_where(lambda s: len(lobby(s)["players"]) == 3)
    command = {"command": "new_game", "game": "x01", "handicap": "suggested"}
    await ok(watcher, {**command, "options": {"start": 501}})
    state = await watcher.state_where(lambda s: s["phase"] == "throwing")
    assert [(p["name"], p["start"]) for p in state["players"]] == [
        ("Ann Lee", 501),
        ("Bob", round(501 * 40.0 / 54.2)),
        ("Cy", 501),
    ]
    await watcher.command({"command": "end_game"})
    # Cricket: spot marks from the roster's month MPR (Ann 2.8, Bob 1.4: half
    # of hers, so 21 x (1 - 1.4 / 2.8) = 10 marks, the bull first, then 15 up).
    cricket = {**command, "game": "cricket", "players": ["Ann Lee", "Bob"]}
    await ok(watcher, {**cricket, "options": {}})
    state = await watcher.state_where(lambda s: s.get("game") == "cricket")
    assert state["players"][0]["spot_marks"] == {}  # the stronger gets none
    assert state["players"][1]["spot_marks"] == {"bull": 3, "15": 3, "16": 3, "17": 1}
    await watcher.command({"command": "end_game"})
    refused = await watcher.command({**command, "game": "killer", "players": ["Ann", "Bob"]})
    assert refused["ok"] is False and "takes no handicaps" in refused["error"]
