"""The board's pairing code on the display (docs/display.md, docs/phone.md):
the idle screen shows "Pair a phone", the code and a QR code of the board
page that reads back module for module; the operator menu's "Pair a phone"
page lists the paired devices and unpairs one, then all, over a real broker
and a real daemon."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame
import segno

from display.app import DisplayApp, render_state
from display.layout import Layout
from display.qr import qr_geometry
from display.scenes import IdleScene, X01Scene
from display.scenes.idle import PAIRING_STRIP
from display.scenes.operator import UNPAIR_ALL, OperatorScene
from display.scenes.pairing_view import spaced_code
from display.state_feed import StateFeed
from firmware_bridge.daemon.board_daemon import Daemon
from mqtt_contract.pairing_payload import PairedDevice, PairingState
from tests.daemon_harness import Running, Watcher, press
from tests.display.test_operator_menu import drawn, key, operator_map, shown
from tests.display.test_scenes import board, texts, visible, x01_state
from tests.mosquitto_broker import MosquittoBroker

SIZE = (1280, 720)
URL = "http://pub.local:8080/boards/board1#pair=482913"
PAIRING = PairingState(code="482913", url=URL, devices=(), updated_at=1.0)
IDLE = {"game": None, "phase": "idle", "board": board()}


def read_qr(surface: pygame.Surface, rect: pygame.Rect, text: str) -> list[list[bool]]:
    """The modules drawn in ``rect`` where :func:`display.qr.draw_qr` puts ``text``'s code."""
    geometry = qr_geometry(rect, text)
    assert geometry is not None and geometry.module >= 2
    return [
        [surface.get_at(geometry.centre(row, column))[0] < 128 for column in range(geometry.count)]
        for row in range(geometry.count)
    ]


def test_the_idle_screen_shows_the_code_and_a_qr_code_of_the_board_page() -> None:
    layout = Layout(*SIZE)
    surface = render_state(IDLE, SIZE, pairing=PAIRING, layout=layout)
    visible(layout, "Pair a phone")
    code = visible(layout, "Code 482 913")
    scene = IdleScene()
    main = scene.regions(layout)["main"]
    _, text_rect = scene.board_and_text(layout, main)
    assert code.top >= text_rect.top + text_rect.height * (1 - PAIRING_STRIP) - 1, (
        "small, at the foot"
    )
    strip_top = round(text_rect.y + text_rect.height * (1 - PAIRING_STRIP))
    strip = pygame.Rect(text_rect.x, strip_top, text_rect.width, text_rect.bottom - strip_top)
    inner = strip.inflate(0, -layout.px(4)).inflate(-layout.px(12), -layout.px(10))
    qr_rect = pygame.Rect(inner.x, inner.y, inner.height, inner.height)
    expected = [[bool(m) for m in row] for row in segno.make_qr(URL, error="m").matrix]
    assert read_qr(surface, qr_rect, URL) == expected
    for size in ((800, 480), (3840, 2160)):
        small = Layout(*size)
        render_state(IDLE, size, pairing=PAIRING, layout=small)
        assert all(small.bounds.contains(rect) for _, rect in small.drawn_text)


def test_no_web_page_no_code_and_a_game_never_shows_it() -> None:
    layout = Layout(*SIZE)
    render_state(IDLE, SIZE, pairing=PairingState(code="482913", updated_at=1.0), layout=layout)
    assert "Pair a phone" not in texts(layout), "without a page to open, no strip"
    playing = Layout(*SIZE)
    render_state(x01_state(), SIZE, pairing=PAIRING, layout=playing)
    assert not any("482" in text for text in texts(playing)), texts(playing)


def test_the_operator_page_lists_devices_and_picks_unpair_all() -> None:
    devices = tuple(
        PairedDevice(id=f"dev-{n}-abcdef", name=name, paired_at=1.0)
        for n, name in enumerate(("Ann's phone", "Bar tablet"))
    )
    scene = OperatorScene()
    scene.set_state(IDLE)
    scene.pairing = PairingState(code="482913", url=URL, devices=devices, updated_at=1.0)
    scene.process_event(key(pygame.K_6))
    layout = Layout(*SIZE)
    scene.draw(pygame.Surface(SIZE), layout)
    shown_text = texts(layout)
    for text in ("Paired: 2 devices", "Ann's phone  ·  Unpair", "Bar tablet  ·  Unpair"):
        assert text in shown_text, (text, shown_text)
    assert UNPAIR_ALL in shown_text and "Code 482 913" in shown_text


def code_of(watcher: Watcher) -> str:
    code: str = watcher.of("pairing")[-1]["code"]
    return code


async def pair(watcher: Watcher, name: str, device_id: str) -> None:
    before = len(watcher.of("pairing"))
    device = {"id": device_id, "name": name}
    response = await watcher.command(
        {"command": "pair", "code": code_of(watcher), "device": device}
    )
    assert response["ok"], response
    await watcher.count("pairing", lambda _: True, before + 1)


async def test_the_operator_menu_unpairs_a_phone_then_all_on_a_real_daemon(
    tmp_path: Path, mosquitto: MosquittoBroker, watcher: Watcher
) -> None:
    running = Running(tmp_path, mosquitto, ['lobby.web_url="http://pub.local:8080"'])
    operator_map(Path(running.config.board.map))
    running.daemon = Daemon(running.config)
    surface = pygame.Surface(SIZE)
    async with running:
        await watcher.state_where(lambda s: s["board"]["connected"])
        await watcher.wait_for("pairing", lambda p: isinstance(p, dict))
        await pair(watcher, "Ann's phone", "dev-ann-0001")
        await pair(watcher, "Bar tablet", "dev-bar-0002")
        with StateFeed(mosquitto.url, "board1", "oche") as feed:
            assert await asyncio.to_thread(feed.wait_for_state, 10.0) is not None
            app = DisplayApp(feed, SIZE)
            # The idle screen shows the board's current code (not a stale one).
            await shown(app, surface, f"Code {spaced_code(code_of(watcher))}")
            await press(running.board, 3)
            await shown(app, surface, lambda _: isinstance(app.scene, OperatorScene))
            await shown(app, surface, "Operator account: connected as anonymous")
            app.handle(key(pygame.K_6))
            await shown(app, surface, "Paired: 2 devices")
            assert "Ann's phone  ·  Unpair" in drawn(app, surface)

            app.handle(key(pygame.K_RETURN))  # the first device: Ann's phone
            await shown(app, surface, "Paired: 1 device")
            text = await shown(app, surface, "unpair: done")
            assert "Bar tablet  ·  Unpair" in text and "Ann's phone  ·  Unpair" not in text

            def listing(ids: list[str]) -> Callable[[Any], bool]:
                return lambda pairing: [d["id"] for d in pairing["devices"]] == ids

            # The display may draw the pairing list before the watcher hears it.
            await watcher.wait_for("pairing", listing(["dev-bar-0002"]))
            nobody = listing([])
            before = sum(map(nobody, watcher.of("pairing")))  # the start's empty list
            app.handle(key(pygame.K_DOWN))  # to Unpair all
            app.handle(key(pygame.K_RETURN))
            await shown(app, surface, "No phone paired")
            await watcher.count("pairing", nobody, before + 1)
            sent = app.scene.sent if isinstance(app.scene, OperatorScene) else []
            assert sent == [
                {"command": "unpair", "device": "dev-ann-0001"},
                {"command": "unpair"},
            ]
            assert not isinstance(app.scene, X01Scene)
            # Its operator link would otherwise retry the gone broker into later tests' logs.
            app.close_operator()
