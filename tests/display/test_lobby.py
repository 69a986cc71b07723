"""Players at the board, on the display: the lobby between games (who joined,
how, their average, and a QR code of the join link that reads back to it),
the lobby's announcements (a player joined, a card refused), the Players
step of the setup (a dart in number n picks player n: ``join`` over a real
broker), and the leaderboard's after-game lines on the game-over panel."""

from __future__ import annotations

import copy
import json
import logging
import queue
import time
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as paho
import pygame
import pytest
import segno
from paho.mqtt.publish import multiple

from display.app import DisplayApp, render_state
from display.layout import Layout
from display.lobby import (
    CARD_IN_GAME,
    CARD_UNKNOWN,
    MAX_LINES_BYTES,
    guest_name,
    line_text,
    lines_for,
    parse_lines,
    parse_lobby,
)
from display.qr import QUIET_ZONE, qr_geometry
from display.scenes import MQTT_EVENT, IdleScene, SetupScene, X01Scene
from display.scenes.base import ANNOUNCEMENT_SECONDS
from display.scenes.lobby_view import join_code_rects
from display.setup_model import PAGE_SIZE, SetupModel
from display.state_feed import StateFeed
from mqtt_contract import StateView
from mqtt_contract.lobby_payload import LobbyState, ResultLines
from tests.display.test_scenes import SMALL, FakeFeed, board, state_of, texts, visible, x01_state
from tests.mosquitto_broker import MosquittoBroker

SIZE = (1280, 720)
WAIT = 10.0
URL = "http://pub.local:8080/join/board1?code=K7PQ2M"


def lobby_player(name: str, how: str, player_id: int | None = None, **extra: Any) -> dict[str, Any]:
    """A lobby player as the daemon's state carries it."""
    return {"name": name, "player_id": player_id, "joined_by": how, "joined_at": 1.0, **extra}


def suggestion(name: str, player_id: int | None, regular: bool = True) -> dict[str, Any]:
    return {"name": name, "player_id": player_id, "regular": regular}


def idle(
    players: list[dict[str, Any]] | None = None,
    suggestions: list[dict[str, Any]] | None = None,
    url: str | None = URL,
) -> dict[str, Any]:
    """An idle state with a lobby, as a daemon with the lobby publishes it."""
    lobby = {
        "players": players or [],
        "join_code": "K7PQ2M" if url else None,
        "join_url": url,
        "suggestions": suggestions or [],
        "roster": True,
        "card_waiting": False,
    }
    return {"game": None, "phase": "idle", "board": board(), "lobby": lobby}


ANN = lobby_player("Ann", "card", 12, average=48.234)
BOB = lobby_player("Bob", "phone", 7)
REGULARS = [suggestion(name, n) for name, n in (("Ann", 12), ("Bob", 7), ("Cy", 3), ("Dee", 4))]


def key(code: int, text: str = "") -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=code, mod=0, unicode=text, scancode=0)


def mqtt(payload: dict[str, Any]) -> pygame.event.Event:
    return pygame.event.Event(MQTT_EVENT, payload=payload)


def draw(scene: Any, size: tuple[int, int] = SIZE) -> tuple[pygame.Surface, Layout]:
    """Draw ``scene``, checking that drawing changes none of what it shows."""
    surface, layout = pygame.Surface(size), Layout(*size)
    model = getattr(scene, "model", None)
    before = (scene.state, scene.lobby, scene.lines, list(scene.announcements), scene.clock)
    model_before = copy.deepcopy(vars(model)) if model is not None else None
    scene.draw(surface, layout)
    assert (scene.state, scene.lobby, scene.lines, scene.announcements, scene.clock) == before
    assert (copy.deepcopy(vars(model)) if model is not None else None) == model_before
    return surface, layout


def idle_scene(state: dict[str, Any]) -> IdleScene:
    scene = IdleScene()
    scene.set_state(state)
    scene.set_lobby(parse_lobby(state))
    return scene


# ------------------------------------------------------------ the lobby


def test_the_lobby_shows_who_joined_how_and_their_average() -> None:
    scene = idle_scene(idle([ANN, BOB, lobby_player("Guest 1", "name")]))
    _, layout = draw(scene)
    shown = texts(layout)
    visible(layout, "Next game: 3 players")
    for text in ("Ann", "Bob", "Guest 1", "card", "phone", "by name", "avg 48.2"):
        assert text in shown, (text, shown)
    assert "Games" not in shown  # the lobby takes the list of games' place
    for size in (SMALL, (3840, 2160)):
        _, layout = draw(scene, size)
        assert all(Layout(*size).bounds.contains(rect) for _, rect in layout.drawn_text)


def test_the_qr_code_reads_back_to_the_join_url_with_the_code_beside_it() -> None:
    scene = idle_scene(idle([ANN]))
    surface, layout = draw(scene)
    visible(layout, "Scan to join")
    visible(layout, "Code K7PQ2M")
    board_rect, _ = scene.board_and_text(layout, scene.regions(layout)["main"])
    _, code_rect, _ = join_code_rects(layout, board_rect)
    geometry = qr_geometry(code_rect, URL)
    assert geometry is not None and geometry.module >= 2
    read = [
        [surface.get_at(geometry.centre(row, column))[0] < 128 for column in range(geometry.count)]
        for row in range(geometry.count)
    ]
    expected = [[bool(m) for m in row] for row in segno.make_qr(URL, error="m").matrix]
    assert read == expected  # the pixels are the join link's symbol, module for module
    other = [[bool(m) for m in row] for row in segno.make_qr(URL.replace("K7", "K8")).matrix]
    assert read != other
    quiet = geometry.square.inflate(-2, -2)  # the quiet zone is white all round
    for x in range(quiet.x, quiet.right, geometry.module):
        for y in (quiet.y, quiet.bottom - 1):
            assert surface.get_at((x, y))[:3] == (255, 255, 255)
    assert geometry.square.width == geometry.module * (geometry.count + 2 * QUIET_ZONE)


def test_an_unknown_card_waiting_asks_to_scan_to_link_it() -> None:
    state = idle()
    state["lobby"]["card_waiting"] = True
    _, layout = draw(idle_scene(state))
    visible(layout, "Scan to link the card you tapped")
    assert "Scan to join" not in texts(layout)


def test_without_a_lobby_or_a_web_page_the_attract_screen_is_as_before() -> None:
    plain = {"game": None, "phase": "idle", "board": board()}
    _, before = draw(idle_scene(plain))
    assert "Games" in texts(before) and "Scan to join" not in texts(before)
    _, no_url = draw(idle_scene(idle(url=None)))
    assert texts(no_url) == texts(before)  # no join link, nobody joined: nothing new
    broken = {**plain, "lobby": {"players": "Ann"}}
    with pytest.raises(ValueError, match=r"\$\.lobby\.players"):
        parse_lobby(broken)
    frame = render_state(broken, SIZE)  # a malformed lobby never breaks the screen
    assert frame.get_size() == SIZE


def test_the_lobby_redraws_the_apps_picture_when_someone_joins() -> None:
    feed = FakeFeed(idle())
    app = DisplayApp(feed, SIZE)  # type: ignore[arg-type]
    surface = pygame.Surface(SIZE)
    app.frame(surface, 0.0)
    assert isinstance(app.scene, IdleScene) and app.scene.lobby is not None
    before = pygame.image.tobytes(surface, "RGB")
    feed.show(idle([ANN]))
    app.frame(surface, 0.0)
    assert app.scene.lobby is not None and [p.name for p in app.scene.lobby.players] == ["Ann"]
    assert pygame.image.tobytes(surface, "RGB") != before


# ------------------------------------------------------- announcements


def test_a_player_joining_is_announced_and_the_banner_slides_in_then_goes() -> None:
    scene = idle_scene(idle())
    assert scene.process_event(mqtt({"type": "joined", "player": ANN})) is None
    _, first = draw(scene)
    visible(first, "Ann joined with their card")
    visible(first, "avg 48.2")
    scene.update(0.1)
    _, sliding = draw(scene)
    scene.update(1.0)
    _, settled = draw(scene)
    assert (
        visible(sliding, "Ann joined with their card").y
        < visible(settled, "Ann joined with their card").y
    )
    scene.process_event(mqtt({"type": "joined", "player": BOB}))
    _, both = draw(scene)
    visible(both, "Bob joined by phone")
    scene.update(ANNOUNCEMENT_SECONDS)
    _, later = draw(scene)
    assert "Ann joined with their card" not in texts(later)
    visible(later, "Bob joined by phone")
    scene.process_event(mqtt({"type": "left", "player": BOB}))
    _, left = draw(scene)
    visible(left, "Bob left the next game")


def test_card_refusals_say_why_between_games_and_during_one() -> None:
    scene = idle_scene(idle())
    event = {"type": "card_refused", "reason": "unknown", "message": "whatever the daemon says"}
    scene.process_event(mqtt(event))
    _, layout = draw(scene)
    visible(layout, CARD_UNKNOWN)
    assert CARD_UNKNOWN == "Card not registered: ask at the bar, or scan the code"

    game = X01Scene()
    game.set_state(x01_state(darts=["T20"]))
    refused = {"type": "card_refused", "reason": "in-game", "message": "Cards join between games"}
    assert game.process_event(mqtt(refused)) is None
    _, layout = draw(game)
    visible(layout, CARD_IN_GAME)
    assert CARD_IN_GAME == "Cards join between games"
    game.process_event(mqtt({"type": "joined", "player": {"name": ""}}))  # unreadable: no word
    assert len(game.announcements) == 1


# ---------------------------------------------------------- the setup


def lobby_of(state: dict[str, Any]) -> LobbyState:
    lobby = parse_lobby(state)
    assert lobby is not None
    return lobby


def at_players(state: dict[str, Any]) -> SetupModel:
    """A setup at X01's Players step, with ``state``'s lobby."""
    model = SetupModel()
    model.set_lobby(lobby_of(state))
    model.select(model.games.index("x01") + 1)
    while model.step == "options":
        model.confirm()
    assert model.step == "lobby"
    return model


def test_the_players_step_lists_suggestions_and_a_dart_picks_player_n() -> None:
    model = at_players(idle(suggestions=[*REGULARS, suggestion("Walk In", None, False)]))
    labels = [choice.label for choice in model.choices()]
    assert labels == ["Ann", "Bob", "Cy", "Dee", "Walk In", "Guest", "Done"]
    assert model.choices()[0].detail == "regular"
    assert model.choices()[4].detail == "played here lately"
    assert model.select(3) == {"command": "join", "player": {"id": 3}}
    assert model.select(5) == {"command": "join", "player": {"name": "Walk In"}}
    assert model.select(6) == {"command": "join", "player": {"name": "Guest 1"}}
    assert model.step == "lobby"  # joining is the daemon's: the list waits for its state


def test_a_joined_player_is_marked_and_picking_them_again_leaves() -> None:
    state = idle([ANN, lobby_player("Guest 1", "name")], REGULARS)
    model = at_players(state)
    choices = model.choices()
    assert [c.label for c in choices] == ["Ann", "Bob", "Cy", "Dee", "Guest 1", "Guest", "Done"]
    assert choices[0].current and not choices[1].current and choices[4].current
    assert model.highlight == len(choices) - 1  # NEXT goes on once someone joined
    assert model.select(1) == {"command": "leave", "player": {"id": 12}}
    assert model.select(5) == {"command": "leave", "player": {"name": "Guest 1"}}
    assert model.select(6) == {"command": "join", "player": {"name": "Guest 2"}}
    assert guest_name(["Guest 1", "guest 2"]) == "Guest 3"


def test_tab_types_a_name_to_join_and_enter_sends_it() -> None:
    scene = SetupScene(at_players(idle(suggestions=REGULARS)))
    scene.set_lobby(scene.model.lobby)
    scene.process_event(key(pygame.K_TAB))
    for letter in "Zoe  K":
        scene.process_event(key(0, letter))
    scene.process_event(key(pygame.K_BACKSPACE))
    _, layout = draw(scene)
    assert any(text.startswith("Type a name to join: Zoe") for text in texts(layout))
    assert scene.outbox == []  # letters are the name's, not picks
    scene.process_event(key(pygame.K_RETURN))
    assert scene.outbox == [{"command": "join", "player": {"name": "Zoe"}}]
    scene.process_event(key(pygame.K_TAB))
    scene.process_event(key(pygame.K_ESCAPE))  # stops typing, stays in the setup
    scene.process_event(key(pygame.K_RETURN))
    assert scene.typed is None and len(scene.outbox) == 2  # Enter: the highlighted tile
    assert scene.model.join_by_name("   ") is None


def test_the_buttons_turn_the_pages_of_a_long_list() -> None:
    names = [f"Player{n:02}" for n in range(1, 15)]
    model = at_players(idle(suggestions=[suggestion(n, i) for i, n in enumerate(names, 1)]))
    assert model.pages == 3 and "page 1 of 3" in model.title()
    assert [c.label for c in model.choices()][:PAGE_SIZE] == names[:PAGE_SIZE]
    model.press("player")
    assert "page 2 of 3" in model.title()
    assert model.select(1) == {"command": "join", "player": {"id": PAGE_SIZE + 1}}
    model.press("player")
    assert [c.label for c in model.choices()] == [*names[2 * PAGE_SIZE :], "Guest", "Done"]
    model.press("PLAYER")
    assert "page 1 of 3" in model.title()


def test_done_starts_with_the_lobbys_players_or_counts_them_as_before() -> None:
    model = at_players(idle([ANN, BOB], REGULARS))
    assert model.select(len(model.choices())) is None  # Done
    assert model.step == "confirm" and model.players() == ["Ann", "Bob"]
    assert ("Players", "Ann, Bob") in model.summary()
    command = model.confirm()  # Start
    assert command == {"command": "new_game", "game": "x01", "options": command["options"]}
    assert "players" not in command  # the daemon takes its lobby's, with their ids
    model.back()
    assert model.step == "lobby"

    empty = at_players(idle(suggestions=REGULARS))
    empty.select(len(empty.choices()))  # Done with nobody in the lobby: how many, as before
    assert empty.step == "players"
    empty.select(2)
    start = empty.select(1)
    assert start is not None and start["players"] == ["Player 1", "Player 2"]


def test_teams_or_a_computer_with_the_lobby_send_the_names() -> None:
    model = at_players(idle([ANN], REGULARS))
    model.select(len(model.choices()))
    model.select(4)  # Computer
    model.select(6)  # level 6
    assert model.players() == ["Ann", "Computer"]
    command = model.select(1)
    assert command is not None
    assert command["players"] == ["Ann", {"name": "Computer", "cpu": 6}]


def test_an_older_daemon_without_a_lobby_keeps_the_count_step() -> None:
    model = SetupModel()
    model.select(model.games.index("x01") + 1)
    while model.step == "options":
        model.confirm()
    assert model.step == "players"
    model.set_lobby(lobby_of(idle()))
    model.back()
    model.confirm()
    assert model.step == "lobby"
    model.set_lobby(None)  # the lobby went: back to counting
    assert model.step == "players"


def test_the_players_step_is_drawn_without_changing_anything() -> None:
    scene = SetupScene(at_players(idle([ANN], REGULARS)))
    scene.set_state(idle([ANN], REGULARS))
    scene.set_lobby(lobby_of(idle([ANN], REGULARS)))
    _, layout = draw(scene)
    for text in ("Ann", "Bob", "Guest", "Done", "joined: again to leave"):
        assert text in texts(layout), (text, texts(layout))
    scene.process_event(mqtt({"type": "hit", "segment": "D2", "scored": False}))
    assert scene.outbox == [{"command": "join", "player": {"id": 7}}]
    assert not scene.sent  # a join is not the start


# ------------------------------------------------- over a real broker


class Commands:
    """The commands published on the board's ``cmd`` topic, as the daemon would get them."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2)
        self.client.on_message = lambda _c, _u, message: self.received.put(
            json.loads(message.payload)
        )
        self.client.connect(broker.host, broker.port)
        self.client.subscribe("oche/board1/cmd", qos=1)
        self.client.loop_start()

    def next(self) -> dict[str, Any]:
        return self.received.get(timeout=WAIT)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def commands(mosquitto: MosquittoBroker) -> Iterator[Commands]:
    watcher = Commands(mosquitto)
    yield watcher
    watcher.close()


def publish(broker: MosquittoBroker, *messages: tuple[str, Any, bool]) -> None:
    """Publish ``(topic, body, retained)`` in order over one connection."""
    multiple(
        [
            {
                "topic": t,
                "payload": b if isinstance(b, bytes) else json.dumps(b),
                "qos": 1,
                "retain": r,
            }
            for t, b, r in messages
        ],
        hostname=broker.host,
        port=broker.port,
    )


def wait_until(done: Any, app: DisplayApp | None = None) -> None:
    deadline = time.monotonic() + WAIT
    surface = pygame.Surface(SMALL)
    while not done():
        assert time.monotonic() < deadline, "timed out"
        if app is not None:
            app.frame(surface, 0.02)
        time.sleep(0.02)


def test_a_dart_in_number_n_sends_join_for_player_n_over_the_broker(
    mosquitto: MosquittoBroker, commands: Commands
) -> None:
    publish(mosquitto, ("oche/board1/state", idle(suggestions=REGULARS), True))
    with StateFeed(mosquitto.url, "board1", "oche") as feed:
        wait_until(lambda: feed.connected and feed.lobby is not None)
        app = DisplayApp(feed, SMALL)
        app.frame(pygame.Surface(SMALL), 0.0)
        app.open_setup()
        assert isinstance(app.scene, SetupScene)
        app.scene.model.select(app.scene.model.games.index("x01") + 1)
        while app.scene.model.step == "options":
            app.scene.model.confirm()
        hit = {"type": "hit", "segment": "T4", "scored": False, "reason": "no game", "at": 1.0}
        publish(mosquitto, ("oche/board1/event", hit, False))
        wait_until(lambda: not commands.received.empty(), app)
        command = commands.next()
        assert command["command"] == "join" and command["player"] == {"id": 4}
        assert command["id"].startswith("display-")

        joined = {"type": "joined", "player": lobby_player("Dee", "roster", 4), "at": 2.0}
        publish(
            mosquitto,
            ("oche/board1/state", idle([lobby_player("Dee", "roster", 4)], REGULARS), True),
            ("oche/board1/event", joined, False),
        )
        wait_until(lambda: bool(app.scene.announcements), app)
        assert app.scene.model.choices()[3].current  # the state says Dee joined
        _, layout = draw(app.scene, SMALL)
        visible(layout, "Dee joined")
        app.handle(key(pygame.K_SPACE, " "))
        start = commands.next()
        assert start["command"] == "new_game" and "players" not in start


# ---------------------------------------------------------- after a game


def finished_x01() -> dict[str, Any]:
    log = "T20 T20 T20\nS1 S1 S1\nT20 T20 T20\nS1 S1 S1\nT20 T19 D12\n"
    state = state_of("x01", log, options={"start": 501})
    assert state["finished"]
    return state


def lines(game: str = "x01", **first: Any) -> dict[str, Any]:
    ann = {"seat": 0, "name": "Ann", "player_id": 12, "average": 97.3, "month_average": 61.25}
    ann |= {"rating_change": 1.42, "personal_best": "best leg: 9 darts"}
    bob = {"seat": 1, "name": "bob", "player_id": None, "average": 3.0}
    return {"result_id": "r1", "game": game, "at": 2.0, "players": [{**ann, **first}, bob]}


def test_the_game_over_panel_shows_each_players_line() -> None:
    state = finished_x01()
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    result = ResultLines.from_json(lines())
    view = StateView.from_json(state)
    assert sorted(lines_for(view, result)) == [0, 1]
    layout = Layout(*SIZE)
    with_lines = render_state(state, SIZE, layout=layout, lines=result)
    ann = "this game 97.3  ·  month 61.2  ·  rating +1.4  ·  personal best: best leg: 9 darts"
    assert line_text(result.players[0]) == ann
    visible(layout, ann)
    visible(layout, "this game 3.0")
    plain = Layout(*SIZE)
    without = render_state(state, SIZE, layout=plain)
    assert ann not in texts(plain) and "Ann wins!" in texts(plain)
    assert pygame.image.tobytes(with_lines, "RGB") != pygame.image.tobytes(without, "RGB")
    for other in (lines(game="cricket"), lines(name="Somebody")):
        layout = Layout(*SIZE)
        render_state(state, SIZE, layout=layout, lines=ResultLines.from_json(other))
        assert ann not in texts(layout)  # another game's lines, or another player's


def test_the_feed_keeps_the_lines_of_the_finished_game_only(
    mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    finished = finished_x01()
    publish(
        mosquitto,
        ("oche/board1/state", finished, True),
        ("oche/board1/result/lines", lines(), True),
    )
    with StateFeed(mosquitto.url, "board1", "oche") as feed:
        wait_until(lambda: feed.lines is not None)
        assert feed.lines is not None and feed.lines.result_id == "r1"
        app = DisplayApp(feed, SIZE)
        surface = pygame.Surface(SIZE)
        app.frame(surface, 0.0)
        assert app.scene.lines is feed.lines
        caplog.set_level(logging.WARNING, logger="display.state_feed")
        publish(mosquitto, ("oche/board1/result/lines", b'{"game": 3}', False))
        publish(mosquitto, ("oche/board1/state", x01_state(darts=["T20"]), True))
        wait_until(lambda: feed.lines is None)  # a game runs: the last game's lines go
        assert any("result lines ignored" in r.getMessage() for r in caplog.records)
        huge = json.dumps({**lines(), "pad": "x" * MAX_LINES_BYTES}).encode()
        with pytest.raises(ValueError, match="more than"):
            parse_lines(huge)
        publish(mosquitto, ("oche/board1/result/lines", lines(), True))  # late, during a game
        publish(mosquitto, ("oche/board1/state", finished, True))
        serial = feed.state_serial
        publish(mosquitto, ("oche/board1/state", finished, True))
        wait_until(lambda: feed.state_serial > serial)
        assert feed.lines is None
        publish(mosquitto, ("oche/board1/result/lines", b"", True))  # clean up the retained


def test_the_feed_reads_the_lobby_and_logs_a_malformed_one_once(
    mosquitto: MosquittoBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="display.state_feed")
    with StateFeed(mosquitto.url, "board1", "oche") as feed:
        wait_until(lambda: feed.connected)
        publish(mosquitto, ("oche/board1/state", idle([ANN]), True))
        wait_until(lambda: feed.lobby is not None)
        assert feed.lobby is not None and feed.lobby.players[0].name == "Ann"
        broken = {**idle(), "lobby": {"players": [{"name": "Ann"}]}}
        for _ in range(3):
            serial = feed.state_serial
            publish(mosquitto, ("oche/board1/state", broken, True))
            wait_until(lambda serial=serial: feed.state_serial > serial)
        assert feed.lobby is None and feed.view is not None  # the state still shows
        warnings = [r.getMessage() for r in caplog.records if "lobby ignored" in r.getMessage()]
        assert len(warnings) == 1 and "joined_by" in warnings[0]
