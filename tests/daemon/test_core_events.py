"""The daemon's internal bus: handlers in order, answers collected or the first taken."""

from __future__ import annotations

from firmware_bridge.daemon.core_events import (
    CommandReceived,
    EventBus,
    MatchPausedAsked,
    StateBuilt,
)
from mqtt_contract import Next


def test_handlers_run_by_order_then_as_subscribed_and_their_answers_come_back() -> None:
    bus = EventBus()
    seen: list[str] = []
    bus.subscribe(StateBuilt, lambda e: seen.append("last"), order=1)
    bus.subscribe(StateBuilt, lambda e: seen.append("first"))
    bus.subscribe(StateBuilt, lambda e: seen.append("second"))
    assert bus.emit(StateBuilt({})) == []  # append answers None: nothing collected
    assert seen == ["first", "second", "last"]
    bus.subscribe(MatchPausedAsked, lambda e: False)
    bus.subscribe(MatchPausedAsked, lambda e: True)
    assert bus.emit(MatchPausedAsked()) == [False, True]


def test_first_stops_at_the_handler_that_takes_the_event() -> None:
    bus = EventBus()
    called: list[str] = []

    def declines(event: CommandReceived) -> None:
        called.append("declines")

    def takes(event: CommandReceived) -> bool:
        called.append("takes")
        return True

    def never(event: CommandReceived) -> bool:
        called.append("never")
        return True

    for handler in (declines, takes, never):
        bus.subscribe(CommandReceived, handler)
    assert bus.first(CommandReceived(Next(), 0.0)) is True
    assert called == ["declines", "takes"]
    assert EventBus().first(CommandReceived(Next(), 0.0)) is None
