"""The screen side of a remote match (docs/remote.md, "On the screen").

Every state is a real one: the engine plays the game, and the daemon's keys
(``phase``, ``board``, each player's ``board`` and the ``remote`` block) are
added as the host publishes them, or as a guest mirrors them; each is checked
against the state topic's schema. Checks look at the text drawn
(``Layout.drawn_text``) and at pixels, never at the scene's internals.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

import aiomqtt
import pygame
import pytest
from jsonschema import Draft202012Validator

from display.app import DisplayApp, render_state
from display.banners import active_banners, banner_rect
from display.cues import cues_for
from display.layout import Layout
from display.scenes import MQTT_EVENT, IdleScene, X01Scene, scene_class_for, scene_for
from display.state_feed import StateFeed
from engine import game_ids, parse_event
from firmware_bridge.daemon.game_session import GameSession, SessionSetup
from mqtt_contract import NOT_YOUR_TURN, TOPICS, WAITING_REMOTE, StateView
from tests.display.test_scenes import (
    SIZE,
    SMALL,
    X01_LOG,
    FakeFeed,
    pixels,
    render,
    state_of,
    texts,
    visible,
)
from tests.mosquitto_broker import MosquittoBroker

STATE_SCHEMA = Draft202012Validator(TOPICS["state"].schema)
HOST = "oche/pub1"
GUEST = "oche/pub2"
MATCH = "3f2a9c1d5e7b4a60"
NAMES = {HOST: "Pub 1", GUEST: "Pub 2"}


def remote_block(
    role: str = "host",
    throwing_at: str | None = GUEST,
    waiting: Sequence[str] = (),
    offline: Sequence[str] = (),
    names: Mapping[str, str] = NAMES,
) -> dict[str, Any]:
    """The state's ``remote`` block of a match of Pub 1 (host) and Pub 2."""
    boards = [
        {
            "board": board,
            "name": names.get(board, ""),
            "online": board not in offline,
            "joined": board == HOST or board not in waiting or board in offline,
            "applied": 0,
        }
        for board in (HOST, GUEST)
    ]
    return {
        "match": MATCH,
        "role": role,
        "host": HOST,
        "throwing_at": throwing_at,
        "boards": boards,
        "waiting": list(waiting),
    }


def remote_state(
    state: dict[str, Any],
    seats: Sequence[str],
    role: str = "host",
    waiting: Sequence[str] = (),
    offline: Sequence[str] = (),
    names: Mapping[str, str] = NAMES,
) -> dict[str, Any]:
    """``state`` (a game state with ``phase`` and ``board``) as a remote
    match's: player i throws at ``seats[i]``; on a guest (``role`` guest) the
    state's own board is Pub 2's. Checked against the state topic's schema."""
    state = copy.deepcopy(state)
    for player, seat in zip(state["players"], seats, strict=True):
        player["board"] = seat
    current = state["current_player"]
    throwing_at = None if state["finished"] else seats[current]
    if state["phase"] == "takeout" and not state["visit"] and state.get("last_visit"):
        throwing_at = seats[state["last_visit"]["player"]]
    state["remote"] = remote_block(role, throwing_at, waiting, offline, names)
    if waiting:
        state["phase"] = WAITING_REMOTE
    if role == "guest":
        state["board"] = {**state["board"], "id": "pub2", "name": "Pub 2"}
    STATE_SCHEMA.validate(state)
    return state


def ann_and_cy(darts: Sequence[str] = (), phase: str | None = None, **kw: Any) -> dict[str, Any]:
    """X01 501 after X01_LOG, Ann (at Pub 1) to throw, Cy at Pub 2."""
    state = state_of("x01", X01_LOG, darts, players=("Ann", "Cy"), phase=phase)
    return remote_state(state, (HOST, GUEST), **kw)


def cy_up(**kw: Any) -> dict[str, Any]:
    """Ann's visit over and NEXT pressed: Cy (at Pub 2) to throw."""
    state = state_of("x01", X01_LOG + "S1 S1 S1\n", players=("Ann", "Cy"))
    assert state["current_player"] == 1
    return remote_state(state, (HOST, GUEST), **kw)


# ------------------------------------------------------------ "throwing at"


def test_the_host_says_who_is_throwing_at_which_board() -> None:
    state = cy_up()
    surface, layout = render(state)
    assert "Cy is throwing at Pub 2" in texts(layout)
    assert "darts thrown at this board do not count meanwhile" in texts(layout)
    assert active_banners(StateView.from_json(state)) == ["remote"]
    # The strip is drawn over the bottom of the scoreboard: its pixels change.
    plain = copy.deepcopy(state)
    del plain["remote"]
    without, plain_layout = render(plain)
    assert not any("is throwing" in text for text in texts(plain_layout))
    strip = banner_rect(Layout(*SIZE), "remote")
    assert pixels(surface, strip) != pixels(without, strip)


def test_the_board_where_the_player_throws_says_here_and_names_itself() -> None:
    host, host_layout = render(ann_and_cy())
    assert "Ann is throwing here" in texts(host_layout)
    assert "at Pub 1: darts on this board count" in texts(host_layout)
    _, guest_layout = render(cy_up(role="guest"))
    assert "Cy is throwing here" in texts(guest_layout)
    assert "at Pub 2: darts on this board count" in texts(guest_layout)
    _, away = render(ann_and_cy(role="guest"))
    assert "Ann is throwing at Pub 1" in texts(away)
    # "here" and "elsewhere" look different, not only read differently.
    strip = banner_rect(Layout(*SIZE), "remote")
    _, elsewhere_layout = render(cy_up())
    elsewhere, _ = render(cy_up())
    assert pixels(host, strip.inflate(-strip.width + 8, -8)) != pixels(
        elsewhere, strip.inflate(-strip.width + 8, -8)
    )
    assert "Cy is throwing at Pub 2" in texts(elsewhere_layout)


def test_a_board_without_a_name_is_named_by_its_id() -> None:
    _, layout = render(cy_up(names={HOST: "Pub 1"}))
    assert "Cy is throwing at pub2" in texts(layout)


def test_the_banner_names_the_player_mid_visit_and_a_computer_with_its_level() -> None:
    game = state_of("x01", X01_LOG, ["T20"], players=("Ann", "Cy"))
    state = remote_state(game, (HOST, GUEST))
    assert state["visit"] == ["T20"]  # Ann's first dart of the visit
    _, layout = render(state)
    assert "Ann is throwing here" in texts(layout)
    robo = copy.deepcopy(game)
    robo["players"][0].update(name="Robo", cpu={"level": 6, "sigma_mm": 20.0, "average": 50.0})
    at_guest = remote_state(robo, (HOST, GUEST), role="guest")
    assert active_banners(StateView.from_json(at_guest)) == ["remote"]  # no computer strip at Pub 2
    _, layout = render(at_guest)
    assert "Robo (CPU 6) is throwing at Pub 1" in texts(layout)
    assert active_banners(StateView.from_json(remote_state(robo, (HOST, GUEST)))) == [
        "cpu",
        "remote",
    ]


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_scene_shows_where_the_player_throws(game_id: str) -> None:
    state = state_of(game_id, players=("Ann", "Cy"))
    seats = [HOST, GUEST]
    current = state["current_player"]
    state = remote_state(state, seats, role="guest")
    name = state["players"][current]["name"]
    _, layout = render(state)
    expected = f"{name} is throwing here" if seats[current] == GUEST else None
    expected = expected or f"{name} is throwing at Pub 1"
    rect = visible(layout, expected)
    assert Layout(*SIZE).bounds.contains(rect)
    _, small = render(state, SMALL)
    visible(small, expected)


def test_the_takeout_at_another_board_shows_no_remove_darts_here() -> None:
    """Ann's third dart at Pub 1: Pub 1 asks to remove the darts; Pub 2 has
    none to remove and says where the visit is."""
    at_host = ann_and_cy(["S1", "S1", "S1"], phase="takeout")
    assert at_host["phase"] == "takeout"
    assert active_banners(StateView.from_json(at_host)) == ["takeout", "remote"]
    _, layout = render(at_host)
    remove = visible(layout, "Remove darts")
    here = visible(layout, "Ann is throwing here")
    assert remove.top >= here.bottom  # stacked: the remote strip above the takeout's
    layout_ = Layout(*SIZE)
    assert not banner_rect(layout_, "remote", 1).colliderect(banner_rect(layout_, "takeout"))
    at_guest = ann_and_cy(["S1", "S1", "S1"], phase="takeout", role="guest")
    assert active_banners(StateView.from_json(at_guest)) == ["remote"]
    _, guest_layout = render(at_guest)
    assert "Remove darts" not in texts(guest_layout)
    assert "Ann is throwing at Pub 1" in texts(guest_layout)


def test_no_banner_once_the_game_is_over() -> None:
    state = state_of("x01", "T20 T20 T20\nS1 M M\nT20 T7 D20\n", options={"start": 301})
    assert state["finished"]
    finished = remote_state(state, (HOST, GUEST))
    assert finished["remote"]["throwing_at"] is None
    assert active_banners(StateView.from_json(finished)) == ["winner"]


# ----------------------------------------------------------------- waiting


def test_waiting_for_a_board_keeps_the_scoreboard_readable() -> None:
    state = cy_up(waiting=[GUEST], offline=[GUEST])
    assert scene_class_for(state) is X01Scene
    assert active_banners(StateView.from_json(state)) == ["waiting", "remote"]
    surface, layout = render(state)
    waiting = visible(layout, "Waiting for Pub 2…")
    visible(layout, "Pub 2 offline")
    window = Layout(*SIZE)
    strips = [banner_rect(window, "waiting"), banner_rect(window, "remote", 1)]
    assert strips[0].collidepoint(waiting.center)
    for score in ("181", "335", "Ann", "Cy"):  # both scores and names stay uncovered
        rect = visible(layout, score)
        assert not any(strip.colliderect(rect) for strip in strips), score
    # and they are not dimmed: the same pixels as without the wait
    going, _ = render(cy_up())
    assert pixels(surface, visible(layout, "181")) == pixels(going, visible(layout, "181"))


def test_waiting_lists_every_board_and_why() -> None:
    state = ann_and_cy(waiting=[GUEST])  # online, has not joined yet
    _, layout = render(state)
    visible(layout, "Waiting for Pub 2…")
    visible(layout, "Pub 2 not joined yet")
    two = copy.deepcopy(state)
    two["remote"]["boards"].append(
        {"board": "league/pub3", "name": "Pub 3", "online": False, "joined": True, "applied": 0}
    )
    two["remote"]["waiting"] = [GUEST, "league/pub3"]
    STATE_SCHEMA.validate(two)
    _, layout = render(two)
    visible(layout, "Waiting for Pub 2 and Pub 3…")
    visible(layout, "Pub 2 not joined yet  ·  Pub 3 offline")


def test_a_guest_before_the_hosts_state_is_joining_the_match() -> None:
    state = {
        "game": None,
        "phase": WAITING_REMOTE,
        "board": {
            "id": "pub2",
            "name": "Pub 2",
            "connected": True,
            "status": "connected",
            "stuck_cells": [],
        },
        "remote": remote_block("guest", None, waiting=[HOST], offline=[HOST]),
    }
    STATE_SCHEMA.validate(state)
    assert scene_class_for(state) is IdleScene
    assert active_banners(StateView.from_json(state)) == []
    _, layout = render(state)
    visible(layout, "Joining Pub 1's match…")
    visible(layout, "Pub 1 offline")
    visible(layout, "Pub 2: connected")
    # The guest knows only the host's address yet: its board id names it.
    bare: dict[str, Any] = copy.deepcopy(state)
    bare["remote"] = {**bare["remote"], "boards": [], "waiting": []}
    _, layout = render(bare, SMALL)
    visible(layout, "Joining pub1's match…")
    visible(layout, "waiting for the host's scoreboard")
    assert all(Layout(*SMALL).bounds.contains(rect) for _, rect in layout.drawn_text)


def test_the_display_leaves_the_setup_when_a_remote_match_starts() -> None:
    idle = {"game": None, "phase": "idle", "board": ann_and_cy(role="guest")["board"]}
    feed = FakeFeed(idle)
    app = DisplayApp(feed, SMALL)  # type: ignore[arg-type]
    surface = pygame.Surface(SMALL)
    app.frame(surface, 0.0)
    app.open_setup()
    feed.show(ann_and_cy(role="guest", waiting=[GUEST]))
    app.frame(surface, 0.0)
    assert isinstance(app.scene, X01Scene)


# ---------------------------------------------------------- oche play --join


def test_join_shows_which_host_the_idle_board_waits_for() -> None:
    idle = {"game": None, "phase": "idle", "board": ann_and_cy()["board"]}
    layout = Layout(*SIZE)
    render_state(idle, SIZE, layout=layout, joining="pub1")
    visible(layout, "Waiting for pub1 to start a match")
    plain = Layout(*SIZE)
    render_state(idle, SIZE, layout=plain)
    assert "Start a game" in texts(plain)
    assert not any("pub1" in text for text in texts(plain))
    # The app passes it on to the attract screen it draws.
    app = DisplayApp(FakeFeed(idle), SMALL, joining="league/pub1")  # type: ignore[arg-type]
    surface = pygame.Surface(SMALL)
    app.frame(surface, 0.0)
    again = render_state(idle, SMALL, joining="league/pub1")
    assert pixels(surface, surface.get_rect()) == pixels(again, again.get_rect())
    other = render_state(idle, SMALL)
    assert pixels(surface, surface.get_rect()) != pixels(other, other.get_rect())


# ------------------------------------------------------- notices and sound


def test_a_dart_at_the_wrong_board_says_whose_turn_it_is() -> None:
    scene = scene_for(cy_up())
    payload = {"type": "hit", "segment": "T20", "scored": False, "reason": NOT_YOUR_TURN}
    scene.process_event(pygame.event.Event(MQTT_EVENT, payload=payload))
    layout = Layout(*SIZE)
    scene.draw(pygame.Surface(SIZE), layout)
    visible(layout, "T20 not scored: another board's turn")
    waiting = {**payload, "reason": WAITING_REMOTE}
    scene.process_event(pygame.event.Event(MQTT_EVENT, payload=waiting))
    layout = Layout(*SIZE)
    scene.draw(pygame.Surface(SIZE), layout)
    visible(layout, "T20 not scored: the remote match is waiting")


def session_events(tokens: str) -> list[dict[str, Any]]:
    """The events of a daemon game session (Ann at Pub 1, Cy at Pub 2), as
    the host publishes them."""
    session = GameSession(SessionSetup("x01", {"start": 301}, ["Ann", "Cy"]))
    return [
        event.to_json()
        for at, token in enumerate(tokens.split())
        for event in session.apply(parse_event(token), float(at))
    ]


async def test_a_guest_hears_the_cues_of_the_hosts_mirrored_events(
    mosquitto: MosquittoBroker,
) -> None:
    """A scripted host side on a real broker: what a guest's daemon publishes
    on its own topics (the host's state with the guest's board, the host's
    events) reaches the guest's display, which shows where the player throws
    and gets the same cues as a display of the host's board."""
    events = session_events("T20 T20 T20 NEXT S1 D20 S5 NEXT T20 T7 D20")
    local = [cues_for(event) for event in events]
    heard_locally = [cue for cues in local for cue in cues]
    assert {"one_eighty", "takeout", "game_shot"} <= set(heard_locally)
    guest_state = cy_up(role="guest")
    host_state = cy_up()
    feeds = {board: StateFeed(mosquitto.url, board, "oche") for board in ("pub1", "pub2")}
    for feed in feeds.values():
        feed.start()
    try:
        async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
            await client.publish("oche/pub1/state", json.dumps(host_state), qos=1, retain=True)
            await client.publish("oche/pub2/state", json.dumps(guest_state), qos=1, retain=True)
            for board, feed in feeds.items():
                assert await asyncio.to_thread(feed.wait_for_state, 10.0) is not None, board
            for event in events:
                for board in feeds:  # the host's own topic, and the guest's mirror
                    await client.publish(f"oche/{board}/event", json.dumps(event), qos=1)
            heard: dict[str, list[dict[str, Any]]] = {board: [] for board in feeds}
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 15
            while any(len(got) < len(events) for got in heard.values()):
                assert loop.time() < deadline, heard
                for board, feed in feeds.items():
                    heard[board] += feed.events()
                await asyncio.sleep(0.02)
        apps = {board: DisplayApp(feed, SMALL) for board, feed in feeds.items()}
        for app in apps.values():
            app.frame(pygame.Surface(SMALL), 0.0)
    finally:
        for feed in feeds.values():
            feed.close()
    for board, got in heard.items():
        assert got == events, board
        assert [cues_for(event) for event in got] == local, board
    guest = Layout(*SMALL)
    render_state(apps["pub2"].scene.state, SMALL, layout=guest)
    visible(guest, "Cy is throwing here")
    host = Layout(*SMALL)
    render_state(apps["pub1"].scene.state, SMALL, layout=host)
    visible(host, "Cy is throwing at Pub 2")
