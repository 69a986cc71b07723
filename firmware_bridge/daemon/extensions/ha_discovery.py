"""The Home Assistant discovery extension (``[homeassistant] enabled``, docs/mqtt.md).

It publishes the retained discovery messages of
:mod:`firmware_bridge.daemon.home_assistant` on every (re)connect (before the
state), when a game starts or is abandoned (the score sensors follow its
players) and when free play changes (the credits sensors come or go).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.home_assistant import discovery_messages, discovery_removals

__all__ = ["HomeAssistantDiscovery"]


class HomeAssistantDiscovery(Extension):
    """Home Assistant discovery for the current game. No I/O in the constructor."""

    CONNECT_BEFORE_STATE: ClassVar[bool] = True

    STATE_DELAY = 1.0
    """Seconds after a discovery round before the state is published again:
    Home Assistant sets up the sensors a round created a moment after their
    configuration arrives, and only then reads the state."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self._discovering = asyncio.Lock()
        self._discovered_players: int | None = None
        self._discovered_credits: bool | None = None
        """Whether the credits sensors were last published (True) or removed."""
        self._state_later: asyncio.TimerHandle | None = None
        again = self._again
        context.subscribe(core_events.GameStarted, lambda _: again())
        context.subscribe(core_events.GameAbandoned, lambda _: again())  # no score sensors
        context.subscribe(core_events.CreditsSettingsChanged, lambda _: again())

    def _again(self) -> None:
        self._context.background(self.publish())

    async def on_connect(self) -> None:
        await self.publish()

    def close(self) -> None:
        if self._state_later is not None:
            self._state_later.cancel()

    async def publish(self) -> None:
        """Home Assistant discovery for the current game's players (and the
        credits sensors while the board charges for games), then the removal
        of the score sensors the game before had and this one has not (all of
        them after a restart, when that is not known) and of the credits
        sensors on free play. One message at a time, each awaiting its PUBACK,
        and one run at a time: a new game never piles up publishes, and two
        quick games cannot interleave. A round that went through publishes the
        state :attr:`STATE_DELAY` later again, for the sensors it created
        (Home Assistant gives a new sensor no retained copy of a topic it
        already reads)."""
        context = self._context
        config = context.config
        link = context.link
        if link is None or not config.homeassistant.enabled:
            return
        async with self._discovering:
            session = context.session
            players = len(session.setup.players) if session else 0
            credits = any(context.emit(core_events.CreditsSensorsAsked()))
            prefix = config.homeassistant.discovery_prefix
            messages: list[tuple[str, dict[str, Any] | str]] = [
                *discovery_messages(
                    prefix,
                    config.mqtt.base,
                    context.board_id,
                    config.board.name,
                    players,
                    credits=credits,
                ),
                *discovery_removals(
                    prefix,
                    context.board_id,
                    players,
                    self._discovered_players,
                    credits=not credits and self._discovered_credits is not False,
                ),
            ]
            for topic, message in messages:
                if not await link.publish_raw(topic, message, retain=True):
                    # What the broker keeps is unknown.
                    self._discovered_players = self._discovered_credits = None
                    return
            self._discovered_players, self._discovered_credits = players, credits
        if self._state_later is not None:
            self._state_later.cancel()
        loop = asyncio.get_running_loop()
        self._state_later = loop.call_later(self.STATE_DELAY, context.request_state)
