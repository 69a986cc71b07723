"""The daemon's internal event bus: what the core tells its extensions, and asks them.

These are NOT the published ``event`` payloads (those are
:mod:`mqtt_contract.event_payload`, ``DaemonEvent``): nothing here leaves
the process. Each class is a frozen value the core (or an extension) emits on
the :class:`EventBus`; each subscriber is called in the order it subscribed,
on the loop, under the daemon's lock where the emitter holds it.

A :class:`CoreEvent` says what its handlers may answer: ``CoreEvent[None]``
is a notice; ``CoreEvent[bool]`` a question (:meth:`EventBus.emit`: every
answer) or a claim (:meth:`EventBus.first`: ``True`` from the first handler
that takes it, and the core does nothing more); ``CoreEvent[Charge]`` asks
for a game's price. A
handler that refuses what the event announces raises
:class:`~firmware_bridge.daemon.game_session.Refusal` (``InputPlanned``,
``GameStarting``, ``CommandReceived``). ``StateBuilt`` and ``ResultBuilt``
carry the payload being built: their handlers add their part to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from drivers.board_events import BoardEvent
from firmware_bridge.daemon.journal import Charge
from mqtt_contract import GameCommand, RemoteAction

if TYPE_CHECKING:
    from firmware_bridge.daemon.bots import Bots
    from firmware_bridge.daemon.game_session import GameSession, SessionSetup
    from firmware_bridge.daemon.journal import JournalGame

__all__ = [
    "GAME_BUTTONS",
    "BoardInputReceived",
    "CommandReceived",
    "CoreEvent",
    "CreditsSensorsAsked",
    "CreditsSettingsChanged",
    "EventBus",
    "GameAbandoned",
    "GameFinished",
    "GameResumed",
    "GameStarted",
    "GameStarting",
    "HandicapAveragesAsked",
    "HostingAsked",
    "InputApplied",
    "InputPlanned",
    "LobbySeated",
    "MatchPausedAsked",
    "OwnTakeoutAsked",
    "PlayersAsked",
    "PresenceChanged",
    "RematchAsked",
    "RemoteMatchAsked",
    "ResultBuilt",
    "StateBuilt",
    "StatePublished",
    "TakeoutTimerAsked",
    "TakeoutWatchAsked",
    "UnpairAsked",
]

A = TypeVar("A")
A_co = TypeVar("A_co", covariant=True)
E = TypeVar("E", bound="CoreEvent[Any]")


class CoreEvent(Generic[A_co]):
    """One event of the bus; ``A`` is what a handler may answer (``None``: nothing)."""

    __slots__ = ()


class EventBus:
    """Typed publish/subscribe inside one daemon: no I/O, no queue, no task.
    :meth:`emit` calls each handler of the event's class in turn and returns
    their answers (the ``None`` ones left out); an exception a handler raises
    reaches the emitter (a :class:`Refusal` refuses what it announced)."""

    def __init__(self) -> None:
        self._subscribed: dict[type[Any], list[tuple[int, Callable[[Any], object]]]] = {}
        self._handlers: dict[type[Any], list[Callable[[Any], object]]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], object], order: int = 0) -> None:
        """Call ``handler`` with each ``kind`` emitted: by ``order``, then in
        the order subscribed (a handler that replaces what the others built,
        a remote guest's mirror of its host's state, comes last)."""
        subscribed = self._subscribed.setdefault(kind, [])
        subscribed.append((order, handler))
        subscribed.sort(key=lambda entry: entry[0])  # stable: ties keep their order
        self._handlers[kind] = [handler for _, handler in subscribed]

    def emit(self, event: CoreEvent[A]) -> list[A]:
        """Call every handler; their answers in order."""
        answers: list[A] = []
        for handler in self._handlers.get(type(event), ()):
            answer = handler(event)
            if answer is not None:
                answers.append(cast("A", answer))
        return answers

    def first(self, event: CoreEvent[A]) -> A | None:
        """Call the handlers in turn until one answers (a claim, a price);
        that answer, or ``None``. Those after it are not called."""
        for handler in self._handlers.get(type(event), ()):
            answer = handler(event)
            if answer is not None and answer is not False:
                return cast("A", answer)
        return None


# ------------------------------------------------------------------ the game


@dataclass(frozen=True)
class RemoteMatchAsked(CoreEvent[dict[str, Any]]):
    """``new_game`` named boards: the remote host answers the journal's
    ``remote`` record (nothing for a game on this board alone); a
    ``ValueError`` refuses the game."""

    setup: SessionSetup
    boards: Mapping[str, str]
    at: float


@dataclass(frozen=True)
class RematchAsked(CoreEvent[dict[str, Any]]):
    """``rematch``: the remote host answers the new match's ``remote`` record
    when the last game was a remote match."""

    at: float


@dataclass(frozen=True)
class GameStarting(CoreEvent[Charge]):
    """A game is about to start (before it is journaled): the coin-op
    extension answers its :class:`Charge`, or refuses it naming the shortfall."""

    setup: SessionSetup
    bots: Bots | None
    remote: dict[str, Any] | None
    at: float


@dataclass(frozen=True)
class GameStarted(CoreEvent[None]):
    """A game started and was journaled as ``row`` (its ``charge`` spent)."""

    row: int
    session: GameSession
    remote: dict[str, Any] | None
    charge: Charge | None
    at: float


@dataclass(frozen=True)
class GameResumed(CoreEvent[None]):
    """At start-up the board's unfinished game came back from the journal."""

    journaled: JournalGame
    at: float


@dataclass(frozen=True)
class GameFinished(CoreEvent[None]):
    """The game was won (its result journaled, in the outbox)."""

    row: int
    at: float


@dataclass(frozen=True)
class GameAbandoned(CoreEvent[None]):
    """The game is over for good (``end_game``, a remote match ended):
    ``reason`` is one of ``mqtt_contract.END_REASONS``; the board is idle."""

    reason: str
    at: float


# ------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class BoardInputReceived(CoreEvent[bool]):
    """A board input the core does not score itself first: a hit, a game
    button, a sensed takeout, a coin, a card tapped on the card reader (a
    ``drivers.board_events.CardTapped``: the lobby takes it). A handler
    answers ``True`` when it took it (a remote guest forwards it, the coin-op
    credits the coin)."""

    event: BoardEvent
    at: float


GAME_BUTTONS = ("next", "undo", "miss", "bounce")
"""The board buttons that act on the game, by their command's name (a
:class:`CommandReceived` of a button has one of these names)."""


@dataclass(frozen=True)
class CommandReceived(CoreEvent[bool]):
    """A game command (``cmd``) or a game button as its command: ``True``
    when a handler took it (a remote guest forwards it, or refuses it; the
    lobby runs ``join`` and ``leave``). ``reply`` is what the handler adds to
    the command's response (a join's linked ``card``)."""

    command: GameCommand
    at: float
    reply: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The command's name, for logs and refusals."""
        return self.command.name


@dataclass(frozen=True)
class UnpairAsked(CoreEvent[bool]):
    """The operator's ``unpair`` (``operator/cmd``): the pairing extension
    answers ``True`` once it forgot ``device`` (``None``: every paired
    device), or raises ``Refusal`` naming a device it does not know; no
    answer: this board pairs no devices."""

    device: str | None
    at: float


@dataclass(frozen=True)
class PlayersAsked(CoreEvent[tuple[str, ...]]):
    """``new_game`` named no players: the lobby answers its players' names in
    the order they joined, or raises ``Refusal`` when it is empty."""

    at: float


@dataclass(frozen=True)
class HandicapAveragesAsked(CoreEvent[tuple[float | None, ...]]):
    """``new_game`` asked for suggested handicaps: the lobby answers each of
    ``players``' X01 average (the roster's month average; None without one),
    or with ``mpr`` their Cricket marks per round."""

    players: tuple[str, ...]
    mpr: bool = False


@dataclass(frozen=True)
class LobbySeated(CoreEvent[None]):
    """A called match's players take the lobby (``call_match``): the lobby
    holds exactly ``players`` (name, roster id or None), in their order,
    so the called game's result carries their ids; none empties it (the
    call was taken back)."""

    players: tuple[tuple[str, int | None], ...]
    at: float


@dataclass(frozen=True)
class InputPlanned(CoreEvent[None]):
    """This board's own input (a hit, a ``dart``, ``miss``, ``next``,
    ``undo`` or ``bounce``: the actions a remote guest forwards too) is about
    to be applied; a handler raises ``Refusal`` to refuse it (a hit's
    refusal text is its ignored reason)."""

    action: RemoteAction
    at: float


@dataclass(frozen=True)
class InputApplied(CoreEvent[None]):
    """An input was applied and journaled (or refused and the game rebuilt);
    ``undone``: it took a dart back (undo, bounce-out)."""

    undone: bool
    at: float


@dataclass(frozen=True)
class PresenceChanged(CoreEvent[None]):
    """A remote match's boards came or went: timers that depend on whether it
    waits (the takeout timer, the computer player) are due again."""

    at: float


# ------------------------------------------------------------------ questions


@dataclass(frozen=True)
class MatchPausedAsked(CoreEvent[bool]):
    """Whether a remote match waits for a board (no one's darts are taken)."""


@dataclass(frozen=True)
class HostingAsked(CoreEvent[bool]):
    """Whether this board hosts a remote match now (it joins no other)."""


@dataclass(frozen=True)
class TakeoutTimerAsked(CoreEvent[bool]):
    """Whether this board's takeout timer may end the visit: ``False`` from
    any handler stops it (a visit thrown at a guest board, a waiting match)."""


@dataclass(frozen=True)
class OwnTakeoutAsked(CoreEvent[bool]):
    """Whether the visit on (``finished``: the winning one) is this board's
    own player's, whose darts a sensed takeout concerns: ``False`` from any
    handler says not (a computer player's, another board's)."""

    finished: bool


@dataclass(frozen=True)
class TakeoutWatchAsked(CoreEvent[bool]):
    """Whether the takeout sensor should watch, from a handler that decides
    it alone (a remote guest in its match); no answer: the core's game decides."""


@dataclass(frozen=True)
class CreditsSensorsAsked(CoreEvent[bool]):
    """Whether Home Assistant should have the credits sensors (a board that charges now)."""


@dataclass(frozen=True)
class CreditsSettingsChanged(CoreEvent[None]):
    """The operator changed free play: what discovery publishes may change."""


# ------------------------------------------------------------------ output


@dataclass(frozen=True)
class StateBuilt(CoreEvent[None]):
    """The ``state`` payload being built (the core's game, board and journal
    blocks): handlers add their blocks to ``state`` in place (the credits,
    each computer player, the remote match) or replace it (a remote guest's
    mirror of its host)."""

    state: dict[str, Any]


@dataclass(frozen=True)
class ResultBuilt(CoreEvent[None]):
    """A finished game's ``result`` payload being built: handlers add their
    part in place (the computer players, the remote match's boards)."""

    result: dict[str, Any]
    session: GameSession


@dataclass(frozen=True)
class StatePublished(CoreEvent[None]):
    """The publish queue was sent (after every change): what follows a
    change without its own event (the takeout sensor's watch) looks again."""
