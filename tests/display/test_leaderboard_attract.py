"""The attract mode of a bar board: leaderboard snapshots retained on a real
Mosquitto (``{base}/leaderboard/{game}``, as the leaderboard service publishes
them) show on the idle scene, page after page; a snapshot the display cannot
read is ignored with one log line and never breaks the screen."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pygame
import pytest
from paho.mqtt.publish import multiple

from display.app import DisplayApp, render_state
from display.layout import Layout
from display.leaderboards import MAX_SNAPSHOT_BYTES, Snapshot, SnapshotError, parse_snapshot
from display.scenes import IdleScene
from display.scenes.idle import PAGE_SECONDS
from display.state_feed import StateFeed
from mqtt_contract import LEADERBOARD_TOPIC
from tests.display.test_scenes import LARGE, SMALL, board, texts, visible, x01_state
from tests.mosquitto_broker import MosquittoBroker

SIZE = (1280, 720)
WAIT = 10.0
IDLE = {"game": None, "phase": "idle", "board": board()}
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim")


def row(rank: int, name: str, **extra: Any) -> dict[str, Any]:
    """A row as leaderboard.api_models serialises it."""
    return {
        "rank": rank,
        "player": name,
        "venue": "Pub",
        "played": 20 - rank,
        "won": 12 - rank,
        "win_percent": round(100 * (12 - rank) / (20 - rank), 1),
        "rating": 31.5 - rank,
        "highlight": None,
        **extra,
    }


def entry(game: str, label: str, player: str, value: float) -> dict[str, Any]:
    return {
        "game": game,
        "label": label,
        "player": player,
        "value": value,
        "result_id": "r",
        "at": 1.0,
    }


RECORDS = {
    "period": "day",
    "venue": None,
    "highest_checkout": entry("x01", "Highest checkout", "Dee", 121),
    "best_leg": entry("x01", "Best leg (darts)", "Bob", 15),
    "most_180s": None,
    "highlights": [entry("shanghai", "Most points", "Cy", 312)],
}


def bare(game: str) -> dict[str, Any]:
    """A snapshot of ``game`` with no rows (as the contract has it: every key)."""
    return {"game": game, "updated_at": 1764600000, "period": "day", "top": [], "records": RECORDS}


def x01_snapshot() -> dict[str, Any]:
    """Eleven rows (the display shows ten) with three-dart averages."""
    top = [
        row(rank, name, three_dart_average=61.25 - rank, count_180=rank % 2)
        for rank, name in enumerate(NAMES, 1)
    ]
    return {
        "game": "x01",
        "updated_at": 1764600000.5,
        "period": "day",
        "top": top,
        "records": RECORDS,
    }


def cricket_snapshot() -> dict[str, Any]:
    top = [row(1, "Bob", mpr=2.4), row(2, "Ann", mpr=1.85)]
    return {
        "game": "cricket",
        "updated_at": 1764600000,
        "period": "all",
        "top": top,
        "records": RECORDS,
    }


def publish(broker: MosquittoBroker, *messages: tuple[str, Any]) -> None:
    """Publish retained, in this order, over one connection (so they arrive in order)."""
    payloads = [
        {
            "topic": topic,
            "payload": body if isinstance(body, bytes | str) else json.dumps(body),
            "qos": 1,
            "retain": True,
        }
        for topic, body in messages
    ]
    multiple(payloads, hostname=broker.host, port=broker.port)  # type: ignore[arg-type]


@pytest.fixture
def feed(mosquitto: MosquittoBroker) -> Iterator[StateFeed]:
    with StateFeed(mosquitto.url, "board1", "oche") as started:
        yield started


def until(feed: StateFeed, done: Callable[[tuple[Snapshot, ...]], bool]) -> tuple[Snapshot, ...]:
    """The feed's snapshots once ``done`` holds for them (or after WAIT s)."""
    deadline = time.monotonic() + WAIT
    while not done(feed.leaderboards) and time.monotonic() < deadline:
        time.sleep(0.02)
    return feed.leaderboards


def connected(feed: StateFeed) -> bool:
    deadline = time.monotonic() + WAIT
    while not feed.connected and time.monotonic() < deadline:
        time.sleep(0.02)
    return feed.connected


def draw(scene: IdleScene, size: tuple[int, int] = SIZE) -> tuple[pygame.Surface, Layout]:
    surface, layout = pygame.Surface(size), Layout(*size)
    before = (scene.state, scene.leaderboards, scene.clock)
    scene.draw(surface, layout)
    assert (scene.state, scene.leaderboards, scene.clock) == before  # drawing changes nothing
    return surface, layout


def test_retained_snapshots_show_on_the_idle_scene_page_after_page(
    mosquitto: MosquittoBroker,
) -> None:
    publish(
        mosquitto,
        ("oche/board1/state", IDLE),
        ("oche/leaderboard/x01", x01_snapshot()),
        ("oche/leaderboard/cricket", cricket_snapshot()),
    )
    with StateFeed(mosquitto.url, "board1", "oche") as feed:  # subscribes after: retained
        assert feed.wait_for_state(WAIT) is not None
        assert [s.game for s in feed.wait_for_leaderboards(2, WAIT)] == ["cricket", "x01"]
        app = DisplayApp(feed, SIZE)  # type: ignore[arg-type]
        app.sync()
    scene = app.scene
    assert isinstance(scene, IdleScene)

    _, layout = draw(scene)
    shown = texts(layout)
    assert "Cricket leaderboard" in shown and "X01 leaderboard" not in shown
    assert shown[shown.index("1") :][:7] == ["1", "Bob", "19", "11", "57.9%", "2.40", "30.5"]
    assert "MPR" in shown and "Start a game" in shown
    assert "Games: " not in " ".join(shown)  # the pages take the list of games' place

    scene.update(PAGE_SECONDS)
    _, layout = draw(scene)
    shown = texts(layout)
    assert "X01 leaderboard" in shown and "3-dart avg" in shown
    assert "60.25" in shown and "Ann" in shown and "Jo" in shown
    assert "Kim" not in shown  # the eleventh row: ten are shown
    assert visible(layout, "Ann").y < visible(layout, "Bob").y < visible(layout, "Jo").y

    scene.update(PAGE_SECONDS)
    _, layout = draw(scene)
    shown = texts(layout)
    assert "Today's records" in shown
    for record in ("Highest checkout", "121", "Dee", "Best leg (darts)", "Most points", "312"):
        assert record in shown
    assert shown.count("Highest checkout") == 1  # both snapshots carry it: shown once

    scene.update(PAGE_SECONDS)
    assert "Cricket leaderboard" in texts(draw(scene)[1])  # round again


def test_the_app_redraws_its_picture_when_the_page_turns(mosquitto: MosquittoBroker) -> None:
    """The app keeps the static picture between frames; a new page (or a new
    snapshot) is drawn all the same, with render_state's pixels."""
    publish(mosquitto, ("oche/board1/state", IDLE), ("oche/leaderboard/x01", x01_snapshot()))
    with StateFeed(mosquitto.url, "board1", "oche") as feed:
        feed.wait_for_state(WAIT)
        assert feed.wait_for_leaderboards(1, WAIT)
        app = DisplayApp(feed, SIZE)  # type: ignore[arg-type]
        screen = pygame.Surface(SIZE)
        app.frame(screen, 0.0)
        first = pygame.image.tobytes(screen, "RGB")
        app.frame(screen, PAGE_SECONDS)  # the records page
        turned = pygame.image.tobytes(screen, "RGB")
        clock = app.scene.clock
        boards = feed.leaderboards
        state = feed.state
    assert turned != first
    expected = render_state(state, SIZE, clock=clock, leaderboards=boards)
    assert pygame.image.tobytes(expected, "RGB") == turned


def test_malformed_snapshots_are_ignored_with_one_log_line_each(
    feed: StateFeed, mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    assert connected(feed)  # subscribed: every message below reaches it live, in order
    bad_row = {**x01_snapshot(), "top": [{**row(1, "Ann"), "rank": "first"}]}
    bad: list[tuple[str, Any]] = [
        ("oche/leaderboard/x01", b"{not json"),
        ("oche/leaderboard/x01", [1, 2, 3]),
        ("oche/leaderboard/x01", cricket_snapshot()),  # another game's, on x01's topic
        ("oche/leaderboard/x01", bad_row),
        ("oche/leaderboard/x01", {**x01_snapshot(), "top": "Ann"}),
        ("oche/leaderboard/x01", {**x01_snapshot(), "records": {"highlights": [{"label": 1}]}}),
        ("oche/leaderboard/x01", '{"game": "x01", "updated_at": NaN, "top": []}'),
        ("oche/leaderboard/x01", b" " * (MAX_SNAPSHOT_BYTES + 1)),
    ]
    with caplog.at_level(logging.WARNING, logger="display.state_feed"):
        publish(mosquitto, ("oche/leaderboard/cricket", cricket_snapshot()))
        assert len(feed.wait_for_leaderboards(1, WAIT)) == 1
        shanghai = {**bare("shanghai"), "updated_at": 1}
        publish(mosquitto, *bad, ("oche/leaderboard/shanghai", shanghai))
        shown = feed.wait_for_leaderboards(2, WAIT)
    assert [s.game for s in shown] == ["cricket", "shanghai"]  # the bad x01 ones: none kept
    ignored = [
        r.getMessage() for r in caplog.records if "leaderboard snapshot ignored" in r.getMessage()
    ]
    assert len(ignored) == len(bad), ignored
    assert all(line.startswith("oche/leaderboard/x01: ") for line in ignored)
    assert any("top[0].rank: must be integer" in line for line in ignored)
    assert any("not the topic's 'x01'" in line for line in ignored)

    app = DisplayApp(feed, SIZE)  # type: ignore[arg-type]
    app.frame(pygame.Surface(SIZE), 0.0)  # draws: the display is still up
    assert isinstance(app.scene, IdleScene)
    assert "Cricket leaderboard" in texts(draw(app.scene)[1])
    app.scene.update(PAGE_SECONDS)
    assert {"Shanghai leaderboard", "No games yet"} <= set(texts(draw(app.scene)[1]))

    # A bad snapshot after a good one of the same game keeps the good one;
    # an empty retained message takes it away.
    publish(mosquitto, ("oche/leaderboard/cricket", b"[]"), ("oche/leaderboard/shanghai", b""))
    remaining = until(feed, lambda snapshots: len(snapshots) == 1)
    assert [s.game for s in remaining] == ["cricket"]
    assert remaining[0].rows[0].player == "Bob"


def test_the_services_own_snapshot_shows_on_the_idle_scene(
    mosquitto: MosquittoBroker, tmp_path: Path
) -> None:
    """The leaderboard service's snapshot (leaderboard.snapshots.build_snapshot,
    from a result it stored in a real SQLite file) retained on a real
    Mosquitto, read by the display: the two sides agree on the payload."""
    from leaderboard.database import Database
    from leaderboard.snapshots import build_snapshot
    from leaderboard.store import ingest
    from leaderboard.venues import VenueMap
    from tests.leaderboard.result_documents import result_document

    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    try:
        moves = ["T20 T20 T20", "S1 S1 S1", "T20 T19 S1", "S1 S1 S1", "S1 D1"]
        document = result_document("x01", moves, players=("Ann", "Bob"), options={"start": 301})
        outcome = ingest(database, json.dumps(document).encode(), VenueMap())
        assert outcome.status == "imported", outcome.reason
        snapshot = build_snapshot(database, "x01")
    finally:
        database.dispose()
    assert snapshot is not None
    publish(mosquitto, ("oche/board1/state", IDLE), ("oche/leaderboard/x01", snapshot.to_json()))
    with StateFeed(mosquitto.url, "board1", "oche") as feed:
        feed.wait_for_state(WAIT)
        assert feed.wait_for_leaderboards(1, WAIT)
        app = DisplayApp(feed, SIZE)  # type: ignore[arg-type]
        app.sync()
    shown = texts(draw(app.scene)[1])  # type: ignore[arg-type]
    assert "X01 leaderboard" in shown and "3-dart avg" in shown
    ann = shown.index("Ann")
    assert shown[ann - 1 : ann + 4] == ["1", "Ann", "1", "1", "100%"]
    assert "Bob" in shown


def test_the_snapshots_here_are_the_contracts() -> None:
    """The payloads these tests publish follow the leaderboard topic's schema
    (mqtt_contract), the one the service publishes by."""
    for document in (x01_snapshot(), cricket_snapshot()):
        document = {**document, "top": document["top"][:10]}
        jsonschema.validate(document, LEADERBOARD_TOPIC.schema)


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        (b"\xff", "not JSON"),
        ({**bare("x01"), "top": [{"rank": 1}]}, "top[0]: missing 'player'"),
        ({**bare("x01"), "top": [{**row(1, "A"), "player": ""}]}, "top[0].player: '' is shorter"),
        ({**bare("x01"), "updated_at": True}, "updated_at: must be number"),
        ({**bare("x01"), "top": [{**row(1, "A"), "won": -1}]}, "top[0].won"),
        ({**bare("x01"), "records": []}, "records: must be an object"),
        ({**bare("x01"), "records": {**RECORDS, "best_leg": 5}}, "records.best_leg"),
        ({"game": "x01", "updated_at": 1, "top": []}, "missing 'period'"),
    ],
)
def test_a_bad_snapshot_is_refused_naming_what_is_wrong(payload: Any, problem: str) -> None:
    body = payload if isinstance(payload, bytes) else json.dumps(payload)
    with pytest.raises(SnapshotError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        parse_snapshot("x01", body)


@pytest.mark.parametrize("size", [SMALL, SIZE, LARGE])
def test_the_pages_fit_every_window(size: tuple[int, int]) -> None:
    boards = tuple(
        parse_snapshot(game, json.dumps(doc))
        for game, doc in (
            ("cricket", cricket_snapshot()),
            ("x01", {**x01_snapshot(), "top": [row(1, "W" * 40, three_dart_average=99.99)] * 10}),
        )
    )
    for page in range(3):
        layout = Layout(*size)
        surface = render_state(
            IDLE, size, clock=page * PAGE_SECONDS, layout=layout, leaderboards=boards
        )
        for text, rect in layout.drawn_text:
            assert surface.get_rect().contains(rect), (text, rect)
        assert any(text.endswith(("leaderboard", "records")) for text in texts(layout))


def test_a_game_hides_the_leaderboards() -> None:
    boards = (parse_snapshot("x01", json.dumps(x01_snapshot())),)
    layout = Layout(*SIZE)
    render_state(x01_state(), SIZE, layout=layout, leaderboards=boards)
    assert "X01 leaderboard" not in texts(layout) and "Jo" not in texts(layout)
