"""The award moment on the display (display/award_show.py): what is drawn
over time after an ``award`` event, headless SDL; the award's sound cue and
the caller's words (display/cues.py); and the real feed on a real broker
bringing the event to the app's frame."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiomqtt
import pygame
import pytest

from display.app import DisplayApp, render_state
from display.award_show import (
    FULL_SECONDS,
    MOMENT_SECONDS,
    SHRINK_SECONDS,
    AwardShow,
    banner_rect,
    turn_rect,
)
from display.cues import AWARD_CUES, CUES, award_caller_text, caller_text, collapse, cues_for
from display.layout import Layout
from display.scenes import MQTT_EVENT, as_view
from display.sound_bank import SoundBank
from display.state_feed import StateFeed
from engine import Award
from mqtt_contract.award_words import AWARD_ORDER, award_title, ranked_awards
from tests.daemon_harness import TIMEOUT, Running, Watcher, throw
from tests.mosquitto_broker import MosquittoBroker

SIZE = (1280, 720)
FRAME = 1 / 30

STATE: dict[str, Any] = {
    "phase": "throwing",
    "game": "x01",
    "options": {"start": 501},
    "players": [{"name": "Ann", "score": 321}, {"name": "Bob", "score": 501}],
    "current_player": 1,
    "round": 2,
    "visit": [],
}
"""Ann has just thrown T20 T20 T20; Bob is to throw."""


def award(kind: str, **more: Any) -> dict[str, Any]:
    """Ann's ``award`` event as the daemon sends it (a ``None`` left out: omitted)."""
    payload = {"type": "award", "at": 100.0, "award": kind, "player": 0, "name": "Ann",
               "darts": ["T20", "T20", "T20"], "points": 180, **more}  # fmt: skip
    return {key: value for key, value in payload.items() if value is not None}


def mqtt(payload: dict[str, Any]) -> pygame.event.Event:
    return pygame.event.Event(MQTT_EVENT, payload=payload)


def frame_text(show: AwardShow, state: dict[str, Any] = STATE) -> tuple[str | None, list[str]]:
    """The moment's phase and its text, drawn over the scoreboard of ``state``."""
    surface = render_state(state, SIZE)
    layout = Layout(*SIZE)
    drawn = show.draw(surface, layout, as_view(state))
    return (drawn[0] if drawn else None), [text for text, _ in layout.drawn_text]


def test_the_moment_fills_the_screen_then_shrinks_to_a_banner_and_goes() -> None:
    show = AwardShow()
    assert show.process_event(mqtt(award("ton-80"))) is not None  # passed on to the scene
    seen: list[tuple[float, str | None, list[str]]] = []
    clock = 0.0
    while clock < MOMENT_SECONDS + 0.5:
        phase, text = frame_text(show)
        seen.append((clock, phase, text))
        show.update(FRAME)
        clock += FRAME
    full = [(at, text) for at, phase, text in seen if phase == "full"]
    assert full and all(at < FULL_SECONDS for at, _ in full)
    for _, text in full:
        assert text[:2] == ["TON 80!", "Ann  ·  T20 T20 T20  ·  180"]
        assert "Bob to throw" in text  # whose turn stays in sight
    # the screen is the award's for under two seconds, then the banner
    covered = [at for at, phase, _ in seen if phase in ("full", "shrink")]
    assert max(covered) < FULL_SECONDS + SHRINK_SECONDS <= 2.0
    banner = [(at, text) for at, phase, text in seen if phase == "banner"]
    assert banner and all(text == ["TON 80!", "Ann"] for _, text in banner)
    assert min(at for at, _ in banner) < 2.0
    assert seen[-1][1] is None and show.moment is None  # gone after MOMENT_SECONDS


def test_the_moment_animates() -> None:
    """The title pops in and the rays turn: frames of the full phase differ."""
    show = AwardShow()
    show.process_event(mqtt(award("hat-trick", darts=["SB", "DB", "SB"], points=125)))
    frames = []
    for _ in range(3):
        surface = render_state(STATE, SIZE)
        show.draw(surface, Layout(*SIZE), as_view(STATE))
        frames.append(pygame.image.tobytes(surface, "RGB"))
        show.update(0.12)
    assert len(set(frames)) == 3


def test_the_banner_leaves_the_scoreboard_visible() -> None:
    """In the banner phase everything outside the banner is the scoreboard's own picture."""
    show = AwardShow()
    show.process_event(mqtt(award("white-horse", darts=["T20", "T19", "T18"], points=None)))
    show.update(FULL_SECONDS + SHRINK_SECONDS + 0.1)
    plain = render_state(STATE, SIZE)
    shown = render_state(STATE, SIZE)
    show.draw(shown, Layout(*SIZE), as_view(STATE))
    below = pygame.Rect(0, banner_rect(Layout(*SIZE)).bottom + 1, SIZE[0], SIZE[1] // 2)
    assert pygame.image.tobytes(plain.subsurface(below), "RGB") == pygame.image.tobytes(
        shown.subsurface(below), "RGB"
    )


def test_one_visits_awards_make_one_moment_the_headline_first() -> None:
    """A Shanghai (S20 D20 T20, 120) is a Low Ton too: the feat is the headline."""
    shanghai = {"darts": ["S20", "D20", "T20"], "points": 120}
    show = AwardShow()
    show.process_event(mqtt(award("low-ton", **shanghai)))
    show.update(0.05)
    show.process_event(mqtt(award("shanghai", **shanghai)))
    _, text = frame_text(show)
    assert text[:3] == ["SHANGHAI!", "Ann  ·  S20 D20 T20  ·  120", "+ LOW TON"]
    # the next visit's award is a moment of its own
    show.update(2.0)
    show.process_event(mqtt(award("5-mark", darts=["T20", "D19", "M"], points=None, marks=5)))
    _, text = frame_text(show)
    assert text[:2] == ["5 MARKS", "Ann  ·  T20 D19 M  ·  5 marks"]


def test_no_turn_strip_when_no_game_runs_and_other_events_pass() -> None:
    show = AwardShow()
    assert show.process_event(mqtt({"type": "dart", "segment": "T20"})) is not None
    assert show.moment is None
    show.process_event(mqtt(award("nine-darter")))
    over = {**STATE, "finished": True, "phase": "finished", "winner": 0}
    _, text = frame_text(show, over)
    assert "NINE-DARTER!" in text and not any(t.endswith("to throw") for t in text)
    show.process_event(mqtt({"type": "award"}))  # no id: ignored
    assert show.moment is not None and show.moment.awards == ("nine-darter",)


def test_the_turn_strip_is_where_the_takeout_strip_would_be() -> None:
    layout = Layout(*SIZE)
    assert turn_rect(layout).bottom <= SIZE[1]
    assert turn_rect(layout).width == SIZE[0]


def test_award_names() -> None:
    assert [award_title(a) for a in ("ton-80", "hat-trick", "white-horse", "7-mark")] == [
        "TON 80!",
        "HAT TRICK",
        "WHITE HORSE",
        "7 MARKS",
    ]
    assert award_title("bed-and-breakfast") == "BED AND BREAKFAST"
    assert award_title("nine-darter") == "NINE-DARTER!"
    assert ranked_awards(["low-ton", "three-in-a-bed", "nine-darter", "low-ton", "x"]) == [
        "nine-darter",
        "three-in-a-bed",
        "low-ton",
        "x",
    ]


# ------------------------------------------------------------------ sound


@pytest.mark.parametrize("kind", AWARD_ORDER)
def test_every_award_has_its_cue(kind: Award) -> None:
    assert cues_for(award(str(kind))) == [AWARD_CUES[kind]]
    assert AWARD_CUES[kind] in CUES


def test_an_award_the_contract_does_not_know_is_neither_played_nor_shown() -> None:
    """A newer daemon's award id, or a malformed award event: silence, no moment."""
    for payload in (award("bed-and-breakfast"), award("ton-80", player="Ann")):
        assert cues_for(payload) == []
        assert caller_text(payload) is None
        show = AwardShow()
        show.process_event(mqtt(payload))
        assert show.moment is None


def test_the_award_cue_wins_over_the_visits_ton_call() -> None:
    """T20 T20 T20: the third dart's treble, then the Ton 80's fanfare; SB DB
    SB in X01 (125, a ton call) plays the hat trick instead."""
    visit_end = {"type": "visit_end", "game": "x01", "score_change": -125, "total": 125}
    batch = [*cues_for({"type": "dart", "segment": "SB"}), *cues_for(visit_end)]
    assert collapse(batch) == ["bull", "ton"]
    batch += cues_for(award("hat-trick"))
    assert collapse(batch) == ["bull", "hat_trick"]
    batch = ["triple", "one_eighty", "nine_darter", "game_shot"]
    assert collapse(batch) == ["triple", "game_shot"]  # the nine-darter's own shot
    assert collapse(["double", "nine_darter", "ton"]) == ["double", "nine_darter"]


def test_the_award_sounds_play_silently_without_audio() -> None:
    bank = SoundBank()
    bank.init()
    for kind in AWARD_ORDER:
        bank.play(AWARD_CUES[kind])  # the dummy driver: silent or real, never an error
    bank.close()


def test_the_caller_names_the_awards_that_are_not_a_score() -> None:
    assert caller_text(award("hat-trick")) == "Hat trick"
    assert award_caller_text(award("white-horse")) == "White horse"
    assert award_caller_text(award("9-mark")) == "Nine marks"
    assert award_caller_text(award("three-in-a-bed")) == "Three in a bed"
    assert award_caller_text(award("three-in-the-black")) == "Three in the black"
    assert award_caller_text(award("nine-darter")) == "A nine-darter"
    assert award_caller_text(award("ton-80")) is None  # "one hundred and eighty" says it
    assert award_caller_text(award("bed-and-breakfast")) is None


# --------------------------------------------------------- the real feed


async def test_the_feed_brings_the_award_to_the_apps_frame(mosquitto: MosquittoBroker) -> None:
    """A state and an award event published on a real broker: the app's
    frames show the moment, then the banner, Bob's turn in sight throughout."""
    surface = pygame.Surface(SIZE)
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as daemon:
        await daemon.publish("oche/board1/state", json.dumps(STATE), qos=1, retain=True)
        with StateFeed(mosquitto.url, "board1", "oche") as feed:
            assert await asyncio.to_thread(feed.wait_for_state, 5.0) is not None
            app = DisplayApp(feed, SIZE)
            app.frame(surface, 0.0)
            await daemon.publish("oche/board1/event", json.dumps(award("ton-80")), qos=1)
            deadline = time.monotonic() + TIMEOUT
            while app.awards.moment is None:
                assert time.monotonic() < deadline, "the award never reached the display"
                app.frame(surface, 0.0)
                await asyncio.sleep(0.02)
            layout = Layout(*SIZE)
            phase = app.awards.draw(surface, layout, app.scene.state)
            assert phase is not None and phase[0] == "full"
            assert {"TON 80!", "Bob to throw"} <= {text for text, _ in layout.drawn_text}
            app.frame(surface, FULL_SECONDS + SHRINK_SECONDS)
            assert app.awards.phase() == "banner"


async def test_a_ton_80_thrown_at_the_daemon_gets_its_moment_on_the_display(
    running: Running, watcher: Watcher, mosquitto: MosquittoBroker
) -> None:
    """T20 T20 T20 at a real daemon: its ``award`` event reaches the display
    through the real feed; the frames show TON 80! with Bob's turn in sight,
    then the banner, and the scoreboard again."""
    await watcher.state_where(lambda s: s["board"]["connected"])
    started = await watcher.command(
        {"command": "new_game", "game": "x01", "options": {"start": 501}, "players": ["Ann", "Bob"]}
    )
    assert started["ok"], started
    surface = pygame.Surface(SIZE)
    with StateFeed(mosquitto.url, "board1", "oche") as feed:
        assert await asyncio.to_thread(feed.wait_for_state, 5.0) is not None
        app = DisplayApp(feed, SIZE)
        app.frame(surface, 0.0)
        await throw(running.board, "T20", "T20", "T20")
        event = await watcher.wait_for("event", lambda e: e.get("type") == "award")
        assert (event["award"], event["name"], event["points"]) == ("ton-80", "Ann", 180)
        deadline = time.monotonic() + TIMEOUT
        while app.awards.moment is None:
            assert time.monotonic() < deadline, "the award never reached the display"
            app.frame(surface, 0.0)
            await asyncio.sleep(0.02)
        await watcher.state_where(lambda s: s["last_visit"] and s["last_visit"]["awards"])
        while app.scene.state is None or app.scene.state.last_visit is None:
            assert time.monotonic() < deadline, "the state after the visit never came"
            app.frame(surface, 0.0)  # the clock held: the moment waits
            await asyncio.sleep(0.02)
        assert app.scene.state.last_visit.awards == ("ton-80",)
        seen: list[tuple[str | None, set[str]]] = []
        for _ in range(round((MOMENT_SECONDS + 0.5) / 0.25)):
            layout = Layout(*SIZE)
            drawn = app.awards.draw(surface, layout, app.scene.state)
            seen.append((drawn[0] if drawn else None, {text for text, _ in layout.drawn_text}))
            app.frame(surface, 0.25)
        full = [text for phase, text in seen if phase == "full"]
        assert full and all({"TON 80!", "Ann  ·  T20 T20 T20  ·  180"} <= text for text in full)
        assert all(any(t.endswith(" to throw") for t in text) for text in full)
        assert [phase for phase, _ in seen].count("full") <= round(FULL_SECONDS / 0.25)
        assert "banner" in [phase for phase, _ in seen]
        assert seen[-1][0] is None
