"""The daemon's MQTT link, its receiving side: :class:`Inbox` hands each
command on ``{base}/{board}/cmd`` (and ``operator/cmd``, when the link has an
operator handler) to its handler, one at a time, in order, never a retained
one; a message on a filter :meth:`Inbox.subscribe` added goes to
``on_message``. It keeps those filters across reconnects, for the SUBSCRIBE
:class:`~firmware_bridge.daemon.mqtt_link.MqttLink` sends on each connection.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import aiomqtt

from mqtt_client.client import Client, payload_bytes

__all__ = ["Inbox"]

log = logging.getLogger("firmware_bridge.daemon.mqtt_link")


class Inbox:
    """What the link receives and where it goes; see the module docstring."""

    def __init__(
        self,
        command_topic: str,
        operator_topic: str,
        on_command: Callable[[bytes], Awaitable[None]],
        on_operator: Callable[[bytes], Awaitable[None]] | None,
        on_message: Callable[[str, bytes, bool], Awaitable[None]] | None,
    ) -> None:
        self._command_topic = command_topic
        self._operator_topic = operator_topic
        self._on_command = on_command
        self._on_operator = on_operator
        self._on_message = on_message
        self._added: set[str] = set()

    @property
    def added(self) -> frozenset[str]:
        """The filters :meth:`subscribe` added, besides the board's commands."""
        return frozenset(self._added)

    def command_filters(self) -> list[tuple[str, int]]:
        """The board's command topics and their QoS, for the SUBSCRIBE."""
        operator = [(self._operator_topic, 1)] if self._on_operator is not None else []
        return [(self._command_topic, 1), *operator]

    def added_filters(self) -> list[tuple[str, int]]:
        """The added filters and their QoS, for the SUBSCRIBE."""
        return [(extra, 1) for extra in sorted(self._added)]

    async def deliver(self, message: aiomqtt.Message) -> None:
        """Hand ``message`` to its handler; a handler's failure is logged."""
        handler, command_topic = self._on_command, self._command_topic
        if self._on_operator is not None and message.topic.matches(self._operator_topic):
            handler, command_topic = self._on_operator, self._operator_topic
        elif not message.topic.matches(self._command_topic):
            await self._other_message(message)
            return
        if message.retain:
            # A retained command would run again at every (re)connect.
            log.warning(
                "MQTT: ignored a retained command on %s (a command is never retained;"
                " clear it with: mosquitto_pub -r -n -t %s)",
                command_topic,
                command_topic,
            )
            return
        try:
            await handler(payload_bytes(message.payload))
        except Exception:
            log.exception("MQTT: a command handler failed")

    async def _other_message(self, message: aiomqtt.Message) -> None:
        """A message on one of :meth:`subscribe`'s filters, to ``on_message``."""
        if self._on_message is None:
            return
        try:
            await self._on_message(
                str(message.topic), payload_bytes(message.payload), bool(message.retain)
            )
        except Exception:
            log.exception("MQTT: a message handler failed (%s)", message.topic)

    async def subscribe(self, client: Client | None, topic_filter: str) -> None:
        """Add ``topic_filter`` (QoS 1), subscribed on ``client`` now when
        connected and on every connection after. Idempotent."""
        if topic_filter in self._added:
            return
        self._added.add(topic_filter)
        if client is not None:
            try:
                await client.subscribe(topic_filter, qos=1)
            except aiomqtt.MqttError as error:  # the reconnect subscribes again
                log.debug("MQTT: subscribe to %s failed: %s", topic_filter, str(error))

    async def unsubscribe(self, client: Client | None, topic_filter: str) -> None:
        """Drop ``topic_filter``, now on ``client`` when connected and from
        every connection after."""
        if topic_filter not in self._added:
            return
        self._added.discard(topic_filter)
        if client is not None:
            try:
                await client.unsubscribe(topic_filter)
            except aiomqtt.MqttError as error:
                log.debug("MQTT: unsubscribe from %s failed: %s", topic_filter, str(error))
