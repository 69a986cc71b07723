"""One daemon per board id on a broker: the board's retained ``instance``
message, the check a daemon makes before it first connects as the board, and
what a connected daemon does when another one uses its board id.

Two daemons with the same board id (a copied config) ask for the same client
id, and a broker drops a client when another connects with its id: without
this, both reconnect for ever, the board's availability flaps and their
retained states overwrite each other. So each daemon (one :class:`BoardClaim`
per :class:`~firmware_bridge.daemon.mqtt_link.MqttLink`) has an instance id,
random, which it publishes with its host and pid, retained, on
``{base}/{board}/instance`` at every connection before it says ``online``.

**Before its first connection** (:meth:`BoardClaim.check`, on a connection of
its own under another client id, which knocks nobody off) a daemon subscribes
to the board's ``instance`` and ``availability``, publishes one probe
(``probe`` true, not retained) and, once the probe comes back (the retained
copies come before it), decides:

- no instance retained, or one of a daemon that is gone (on this host, its
  pid is not running; in this process, not running): the board is free;
- the board is ``online``: its daemon answers the probe by publishing its own
  instance again, and the check raises :class:`BoardIdTaken` (``oche run``
  exits 2 naming the other daemon's host and pid). Without an answer it waits
  until ``availability`` says ``offline`` (the broker publishes the last will
  of a daemon that vanished once its keepalive runs out) or the ``grace``
  passes, and takes the board;
- the board is ``offline`` under another daemon's instance (it stopped or
  died): free, unless the check's own connection is dropped within
  :attr:`BoardClaim.KICK_WAIT` while the broker is still there. A broker that
  makes each account's name its client id (deploy/mosquitto/oche.conf) gave
  the check the board's client id: it knocked the daemon of a shared account
  off (the will said ``offline``), and that daemon came back and knocked the
  check off.

**While connected**, every instance message not its own is judged
(:meth:`BoardClaim.judge`): a probe is answered; a cleared or unreadable copy
is replaced; a retained copy older than this daemon's first connection is
stale; another daemon's instance otherwise means two daemons hold the board,
and the one that connected first (``since``, then the instance id) keeps it:
the other stops with :class:`BoardIdTaken` without saying ``offline``.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt

from mqtt_contract import AVAILABILITY_OFFLINE, AVAILABILITY_ONLINE, InstanceMessage

__all__ = [
    "BoardClaim",
    "BoardIdTaken",
    "Instance",
    "Verdict",
    "broker_reachable",
    "parse_instance",
]

log = logging.getLogger(__name__)

_RUNNING: set[str] = set()
"""The instance ids of this process's claims that have connected as their
board and not been released: a retained instance of this host and pid that is
not here belongs to a daemon of this process that stopped."""


Instance = InstanceMessage
"""One ``instance`` message (the contract's type): who holds, or asks for, the board."""


def parse_instance(payload: bytes) -> Instance | None:
    """The instance ``payload`` holds, or None (empty, not JSON, wrong fields)."""
    try:
        return Instance.from_json(json.loads(payload))
    except (ValueError, RecursionError):  # PayloadError is a ValueError
        return None


class BoardIdTaken(Exception):
    """Another daemon holds this board id on the broker; the message names it
    and the way out. ``oche run`` exits 2 with it."""

    def __init__(self, board: str, holder: Instance) -> None:
        self.board = board
        self.holder = holder
        super().__init__(
            f"board id {board} is already used by {holder.describe()}: give this board "
            "another id (board.id / --set board.id=...)"
        )


class Verdict(enum.Enum):
    """What a connected daemon does about an instance message (:meth:`BoardClaim.judge`)."""

    IGNORE = "ignore"
    """Its own echo, or a stale copy its announcement has replaced."""
    REASSERT = "reassert"
    """Publish its own instance again: an answer to a probe, a cleared or
    unreadable copy, a daemon that connected after it."""
    YIELD = "yield"
    """Another daemon connected first and holds the board: stop."""


class BoardClaim:
    """This daemon's instance and its rules for one board; see the module docstring."""

    KICK_WAIT = 5.0
    """Seconds the check waits, when another daemon's instance is retained and
    the board is offline, for its connection to be knocked off."""
    ECHO_TIMEOUT = 5.0
    """Seconds the check waits for its own probe to come back. Past it the
    broker does not let this account read or write the instance topic (an ACL
    from before it): the check is skipped, with a warning."""

    def __init__(self, board: str, clock: Callable[[], float] = time.time) -> None:
        self.board = board
        self.clock = clock
        self.instance = secrets.token_hex(8)
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.since: float | None = None
        """When this daemon first connected as the board (None: not yet)."""
        self._warned: set[str] = set()

    def _message(self, probe: bool = False) -> Instance:
        now = self.clock()
        since = now if self.since is None else self.since
        return Instance(self.instance, self.host, self.pid, since, now, probe)

    def announcement(self) -> bytes:
        """This daemon's instance message, to publish retained at every
        connection (the first sets :attr:`since`) and when :meth:`judge` says
        :attr:`Verdict.REASSERT`."""
        if self.since is None:
            self.since = self.clock()
            _RUNNING.add(self.instance)
        return self._message().payload()

    def release(self) -> None:
        """This daemon stopped: a later daemon of this process may take the board."""
        _RUNNING.discard(self.instance)

    # ------------------------------------------------------------ connected

    def judge(self, payload: bytes, retained: bool) -> tuple[Verdict, Instance | None]:
        """What to do about an instance message received while connected as
        the board (``retained``: a copy the broker kept, not a live one)."""
        other = parse_instance(payload)
        if other is None:
            return Verdict.REASSERT, None
        if other.instance == self.instance:
            return Verdict.IGNORE, None
        if other.probe:
            self._warn_once(other, f"{other.describe()} asked for board {self.board}: answered")
            return Verdict.REASSERT, other
        if retained and (self.since is None or other.at < self.since):
            return Verdict.IGNORE, other  # from before this daemon: replaced already
        if self.since is not None and (other.since, other.instance) < (self.since, self.instance):
            return Verdict.YIELD, other
        self._warn_once(
            other, f"{other.describe()} connected as board {self.board} too; this one keeps it"
        )
        return Verdict.REASSERT, other

    def _warn_once(self, other: Instance, text: str) -> None:
        if other.instance not in self._warned:
            self._warned.add(other.instance)
            log.warning("MQTT: %s (give that board another id)", text)

    # ---------------------------------------------------------------- check

    async def check(
        self,
        client: aiomqtt.Client,
        instance_topic: str,
        availability_topic: str,
        grace: float,
        reachable: Callable[[], Awaitable[bool]],
    ) -> None:
        """Before the first connection as the board, on ``client`` (connected
        under a client id of its own): return when the board is free, raise
        :class:`BoardIdTaken` when another daemon holds it. ``reachable`` tells
        whether the broker still takes connections after ``client``'s was
        dropped; a drop otherwise (and any other MqttError) is raised."""
        look = _Look(availability_topic)
        try:
            await client.subscribe([(instance_topic, 1), (availability_topic, 1)])
            probe = self._message(probe=True)
            await client.publish(instance_topic, probe.payload(), qos=1)
            try:
                async with asyncio.timeout(self.ECHO_TIMEOUT):
                    while not look.echoed:
                        self._read(look, await anext(client.messages))
            except TimeoutError:
                log.warning(
                    "MQTT: the broker did not return this board's probe on %s within %.0f s: "
                    "its ACL must let this account read and write that topic "
                    "(docs/deploy.md); not checking whether board id %s is taken",
                    instance_topic,
                    self.ECHO_TIMEOUT,
                    self.board,
                )
                return
            holder = look.holder
            if holder is None or not self._may_be_running(holder):
                log.debug("MQTT: board %s is free (it was %s)", self.board, holder)
                return
            online = look.availability == AVAILABILITY_ONLINE
            wait = grace if online else self.KICK_WAIT
            log.debug(
                "MQTT: board %s is %s under %s: waiting up to %.1f s",
                self.board,
                look.availability,
                holder.describe(),
                wait,
            )
            try:
                async with asyncio.timeout(wait):
                    while not (online and look.availability == AVAILABILITY_OFFLINE):
                        self._read(look, await anext(client.messages))
            except TimeoutError:
                if online:
                    log.warning(
                        "MQTT: %s says board %s is online but did not answer in %.0f s: "
                        "taking the board",
                        holder.describe(),
                        self.board,
                        wait,
                    )
        except aiomqtt.MqttError:
            # Knocked off while the broker is there: by the daemon that holds
            # the board, back under the client id this check was given.
            holder = look.holder
            if holder is not None and self._may_be_running(holder) and await reachable():
                raise BoardIdTaken(self.board, holder) from None
            raise

    def _read(self, look: _Look, message: aiomqtt.Message) -> None:
        """One message of the check into ``look``; raises BoardIdTaken for an
        answer (another daemon's instance, published now)."""
        if message.topic.matches(look.availability_topic):
            look.availability = _text(message.payload)
            return
        other = parse_instance(_data(message.payload))
        if other is None:
            return
        if other.instance == self.instance:
            look.echoed = True  # everything retained came before it
        elif not other.probe and not message.retain:
            raise BoardIdTaken(self.board, other)
        elif not other.probe and not look.echoed:
            look.holder = other

    def _may_be_running(self, holder: Instance) -> bool:
        """False when ``holder`` is known to be gone: a daemon of this process
        that stopped, or of this host whose pid is not running."""
        if holder.host != self.host:
            return True
        if holder.pid == self.pid:
            return holder.instance in _RUNNING
        try:
            os.kill(holder.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # a process of another user
        return True


@dataclass
class _Look:
    """What the check has read: the retained instance and availability, and
    whether its own probe came back."""

    availability_topic: str
    holder: Instance | None = None
    availability: str | None = None
    echoed: bool = False


def _data(payload: Any) -> bytes:
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    return b"" if payload is None else str(payload).encode("utf-8")


def _text(payload: Any) -> str:
    return _data(payload).decode("utf-8", "replace")


async def broker_reachable(host: str, port: int, timeout: float = 2.0) -> bool:
    """Whether ``host:port`` takes a TCP connection (no MQTT: it knocks nobody off)."""
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True
