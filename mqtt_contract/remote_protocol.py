"""A remote match's protocol as types (docs/remote.md): what a guest forwards
(:class:`RemoteAction`, with what each does to the game), why the host does
not take an action now (:class:`RemoteRefusal`), why a guest does not join
(:class:`JoinRefusal`), why a match ended
(:class:`EndReason`), the match record the host journals (:class:`MatchRecord`),
the boards of the state's ``remote`` block (:class:`BoardEntry`) and each
channel message (:data:`RemoteMessage`, one frozen type per ``type``;
``mqtt_contract.parse_remote_message`` reads them).

Host, guest and journal share these, so a decision such as "does this action
take a dart back" is made in one place, by a property, not by each reader of a
string. Each converts to and from the JSON it has always been (``to_json``,
``from_json``; ``str`` and ``parse`` for the text forms). No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, assert_never

from mqtt_contract.topic_names import NOT_YOUR_TURN, WAITING_REMOTE, BoardAddress

__all__ = [
    "ActionMessage",
    "BoardEntry",
    "EndMessage",
    "EndReason",
    "JoinMessage",
    "JoinRefusal",
    "JoinRefusalReason",
    "JoinedMessage",
    "LeaveMessage",
    "MatchPlayer",
    "MatchRecord",
    "MessageType",
    "RefusalReason",
    "RefusedMessage",
    "RemoteAction",
    "RemoteMessage",
    "RemoteRefusal",
]


class RemoteAction(StrEnum):
    """What a guest forwards (an ``action`` message's ``action``): a hit its
    board detected, and the ``dart``, ``miss``, ``next``, ``undo``,
    ``bounce`` and ``correct`` commands and buttons."""

    HIT = "hit"
    DART = "dart"
    MISS = "miss"
    NEXT = "next"
    UNDO = "undo"
    BOUNCE = "bounce"
    CORRECT = "correct"

    @classmethod
    def parse(cls, text: object) -> RemoteAction:
        """The action named ``text``; a ValueError lists the actions."""
        for action in cls:
            if text == action.value:
                return action
        raise ValueError(f"unknown action {text!r}; actions are {', '.join(cls)}")

    @property
    def has_segment(self) -> bool:
        """It carries the bed hit (``segment``): a hit, a dart and a
        correction (which also names its ``dart``: :attr:`has_dart`)."""
        match self:
            case RemoteAction.HIT | RemoteAction.DART | RemoteAction.CORRECT:
                return True
            case RemoteAction.MISS | RemoteAction.NEXT | RemoteAction.UNDO | RemoteAction.BOUNCE:
                return False
            case _:
                assert_never(self)

    @property
    def has_dart(self) -> bool:
        """It names a dart of the visit on the board (``dart``, from 1): a correction."""
        return self is RemoteAction.CORRECT

    @property
    def throws_dart(self) -> bool:
        """It throws a new dart of the visit (three end it): a hit, a dart, a
        miss. A bounce does not: it turns the last dart into a miss, which
        stays thrown (engine ``Bounce``); nor does a correction."""
        match self:
            case RemoteAction.HIT | RemoteAction.DART | RemoteAction.MISS:
                return True
            case RemoteAction.NEXT | RemoteAction.UNDO | RemoteAction.BOUNCE | RemoteAction.CORRECT:
                return False
            case _:
                assert_never(self)

    @property
    def takes_back(self) -> bool:
        """It changes the last dart thrown (an undo takes it back, a bounce
        makes it a miss) or a dart of its visit (a correction): only the board
        that dart was thrown at may, whoever is up now."""
        match self:
            case RemoteAction.UNDO | RemoteAction.BOUNCE | RemoteAction.CORRECT:
                return True
            case RemoteAction.HIT | RemoteAction.DART | RemoteAction.MISS | RemoteAction.NEXT:
                return False
            case _:
                assert_never(self)

    @property
    def source(self) -> str:
        """Who entered its dart (a ``dart`` event's ``source``,
        ``mqtt_contract.DART_SOURCES``): the board for a hit, a person for the rest."""
        match self:
            case RemoteAction.HIT:
                return "board"
            case (
                RemoteAction.DART
                | RemoteAction.MISS
                | RemoteAction.NEXT
                | RemoteAction.UNDO
                | RemoteAction.BOUNCE
                | RemoteAction.CORRECT
            ):
                return "manual"
            case _:
                assert_never(self)


class RefusalReason(StrEnum):
    """Why the host does not take a board's input now: the token an ignored
    dart's ``reason`` carries, and that a refusal's text starts with."""

    NOT_YOUR_TURN = NOT_YOUR_TURN
    """The player who is up throws at another board (or the last dart, which
    an undo or bounce would change, was thrown at another board)."""
    WAITING_REMOTE = WAITING_REMOTE
    """The match waits for a board that is offline or has not joined."""

    @classmethod
    def of(cls, text: str) -> RefusalReason | None:
        """The remote reason an ignored input's ``reason`` gives: exactly a
        token (what an ignored hit carries) or a :class:`RemoteRefusal`'s text;
        None for any other reason (takeout, no game, ...)."""
        for reason in cls:
            if text == reason.value:
                return reason
        try:
            return RemoteRefusal.parse(text).reason
        except ValueError:
            return None


@dataclass(frozen=True)
class RemoteRefusal:
    """The host does not take an input now: ``reason`` and, in words, ``detail``
    (``Cy is throwing at Pub 2``). Its text is ``{reason}: {detail}``."""

    reason: RefusalReason
    detail: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"

    @classmethod
    def parse(cls, text: str) -> RemoteRefusal:
        """The refusal written ``text`` (``str`` of one); a ValueError when it
        does not start with a reason's token."""
        token, colon, detail = text.partition(": ")
        for reason in RefusalReason:
            if colon and token == reason.value:
                return cls(reason, detail)
        raise ValueError(f"{text!r} is no remote refusal: none of {', '.join(RefusalReason)}")


class JoinRefusalReason(StrEnum):
    """Why a guest does not join a host's match (a ``refused`` message): the
    reason a guest decides by; the message carries it in words
    (:attr:`words`, :class:`JoinRefusal`)."""

    NOT_ALLOWED = "not-allowed"
    """The host is not in the guest's ``[remote] allow`` (detail: the host)."""
    IN_ANOTHER_MATCH = "in-another-match"
    """The guest plays another host's match (detail: ``{host}'s match {id}``)."""
    HOSTING = "hosting"
    """The guest hosts a remote match of its own (no detail)."""
    NO_PLAYER_HERE = "no-player-here"
    """No player of the match throws at the guest (detail: the guest)."""
    MATCH_OVER = "match-over"
    """The match is over on the guest (detail: ``{id} is {status}``)."""

    @property
    def words(self) -> str:
        """The refusal's words, with ``{detail}`` where its detail goes: what
        the ``refused`` message's ``reason`` has always said."""
        match self:
            case JoinRefusalReason.NOT_ALLOWED:
                return "{detail} is not in [remote] allow"
            case JoinRefusalReason.IN_ANOTHER_MATCH:
                return "this board is playing {detail}; end_game there or here first"
            case JoinRefusalReason.HOSTING:
                return "this board is hosting a remote match; end_game on it first"
            case JoinRefusalReason.NO_PLAYER_HERE:
                return "no player of the match throws at {detail}"
            case JoinRefusalReason.MATCH_OVER:
                return "match {detail} on this board"
            case _:
                assert_never(self)


@dataclass(frozen=True)
class JoinRefusal:
    """A guest does not join: ``reason`` and ``detail`` (what the reason's words
    name, ``oche/pub9``; "" for a reason that names nothing). Its text, the
    ``refused`` message's ``reason``, is the reason's words with the detail in."""

    reason: JoinRefusalReason
    detail: str = ""

    def __str__(self) -> str:
        return self.reason.words.replace("{detail}", self.detail)

    @classmethod
    def parse(cls, text: str) -> JoinRefusal:
        """The refusal written ``text`` (``str`` of one); a ValueError when it is
        none of the reasons' words (another guest's own words)."""
        for reason in JoinRefusalReason:
            before, marker, after = reason.words.partition("{detail}")
            if not marker:
                if text == before:
                    return cls(reason)
                continue
            fits = len(text) >= len(before) + len(after)
            if fits and text.startswith(before) and text.endswith(after):
                return cls(reason, text[len(before) : len(text) - len(after)])
        raise ValueError(f"{text!r} is none of the words of {', '.join(JoinRefusalReason)}")


class EndReason(StrEnum):
    """Why a match ended (the ``end`` message's ``reason``)."""

    FINISHED = "finished"
    """The game was won and the host moved on (a new game, a rematch)."""
    ENDED = "ended"
    """end_game on the host."""
    LEFT = "left"
    """A guest left (end_game on a guest)."""
    REMOTE_TIMEOUT = "remote-timeout"
    """A board stayed offline longer than the host's ``[remote] offline_timeout_s``."""
    REPLACED = "replaced"
    """The host started another game over it."""


@dataclass(frozen=True)
class MatchRecord:
    """The match a host journals with its game (``games.remote``): its id, the
    host, and where each player throws (player name -> board, in the players'
    order; a player throwing at the host is listed at the host)."""

    match: str
    host: BoardAddress
    boards: Mapping[str, BoardAddress]

    def to_json(self) -> dict[str, Any]:
        """``{"match", "host", "boards": {name: "base/board"}}``, as journaled."""
        return {
            "match": self.match,
            "host": str(self.host),
            "boards": {name: str(address) for name, address in self.boards.items()},
        }

    @classmethod
    def from_json(cls, document: object, default_base: str) -> MatchRecord:
        """A journaled record; bare board ids are on ``default_base``. A
        ValueError says what is wrong."""
        if not isinstance(document, Mapping):
            raise ValueError(f"a match record is an object, not {document!r}")
        match, host, boards = (document.get(key) for key in ("match", "host", "boards"))
        if not isinstance(match, str) or not match:
            raise ValueError(f"bad match id {match!r}")
        if not isinstance(host, str):
            raise ValueError(f"its host is base/board, not {host!r}")
        if not isinstance(boards, Mapping):
            raise ValueError("its remote match has no boards")
        return cls(
            match,
            BoardAddress.parse(host, default_base),
            {str(name): BoardAddress.parse(text, default_base) for name, text in boards.items()},
        )

    def board_of(self, player: str) -> BoardAddress:
        """Where ``player`` throws (the host for a player the record does not list)."""
        return self.boards.get(player, self.host)


@dataclass(frozen=True)
class BoardEntry:
    """One board of a match as the state's ``remote.boards`` lists it: its
    address and display name, whether it is online and has joined, and the
    highest seq of its forwarded actions the host has taken (0 for the host)."""

    board: BoardAddress
    name: str
    online: bool
    joined: bool
    applied: int

    def to_json(self) -> dict[str, Any]:
        return {
            "board": str(self.board),
            "name": self.name,
            "online": self.online,
            "joined": self.joined,
            "applied": self.applied,
        }

    @classmethod
    def from_json(cls, document: object) -> BoardEntry:
        """One entry of a state's ``remote.boards``; a ValueError says what is wrong."""
        if not isinstance(document, Mapping):
            raise ValueError(f"a board entry is an object, not {document!r}")
        board, name = document.get("board"), document.get("name")
        online, joined = document.get("online"), document.get("joined")
        applied = document.get("applied")
        if not isinstance(board, str) or "/" not in board:
            raise ValueError(f"a board entry's board is base/board, not {board!r}")
        if not isinstance(name, str):
            raise ValueError(f"board {board}: its name is a string, not {name!r}")
        if not isinstance(online, bool) or not isinstance(joined, bool):
            raise ValueError(f"board {board}: online and joined are true or false")
        if isinstance(applied, bool) or not isinstance(applied, int) or applied < 0:
            raise ValueError(f"board {board}: applied is a seq (0 or more), not {applied!r}")
        return cls(BoardAddress.parse(board, ""), name, online, joined, applied)


class MessageType(StrEnum):
    """A remote channel message's ``type``: the host sends ``join`` and
    ``end``; a guest sends the others."""

    JOIN = "join"
    END = "end"
    JOINED = "joined"
    REFUSED = "refused"
    ACTION = "action"
    LEAVE = "leave"

    @property
    def from_host(self) -> bool:
        """The host sends it (a guest the others)."""
        match self:
            case MessageType.JOIN | MessageType.END:
                return True
            case MessageType.JOINED | MessageType.REFUSED | MessageType.ACTION | MessageType.LEAVE:
                return False
            case _:
                assert_never(self)


@dataclass(frozen=True)
class MatchPlayer:
    """A player of a match and the board they throw at (a ``join``'s
    ``players``, a guest's journaled match)."""

    name: str
    board: BoardAddress

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "board": str(self.board)}

    @classmethod
    def from_json(cls, document: object, default_base: str) -> MatchPlayer:
        """A player as :meth:`to_json` wrote it (a guest's journaled match); a
        bare board id is on ``default_base``. A ValueError says what is wrong."""
        if not isinstance(document, Mapping):
            raise ValueError(f"a match player is an object, not {document!r}")
        name, board = document.get("name"), document.get("board")
        if not isinstance(name, str) or not name:
            raise ValueError(f"a match player's name is a string, not {name!r}")
        if not isinstance(board, str):
            raise ValueError(f"player {name}: the board is base/board, not {board!r}")
        return cls(name, BoardAddress.parse(board, default_base))


@dataclass(frozen=True)
class JoinMessage:
    """Host -> guest: the invitation, sent again as a resync."""

    match: str
    at: float
    host: BoardAddress
    game: str
    players: tuple[MatchPlayer, ...]
    host_name: str | None = None
    options: Mapping[str, Any] | None = None
    type: ClassVar[MessageType] = MessageType.JOIN

    def to_json(self) -> dict[str, Any]:
        document = _envelope(self)
        document["host"] = str(self.host)
        if self.host_name is not None:
            document["host_name"] = self.host_name
        document["game"] = self.game
        if self.options is not None:
            document["options"] = dict(self.options)
        document["players"] = [player.to_json() for player in self.players]
        return document


@dataclass(frozen=True)
class EndMessage:
    """Host -> guest: the match is over, and why."""

    match: str
    at: float
    reason: EndReason
    type: ClassVar[MessageType] = MessageType.END

    def to_json(self) -> dict[str, Any]:
        return {**_envelope(self), "reason": self.reason.value}


@dataclass(frozen=True)
class JoinedMessage:
    """Guest -> host: it joined (or joined again, to every ``join``), and the
    highest seq it has forwarded (0: none)."""

    match: str
    at: float
    board: BoardAddress
    forwarded: int
    name: str | None = None
    type: ClassVar[MessageType] = MessageType.JOINED

    def to_json(self) -> dict[str, Any]:
        document = {**_envelope(self), "board": str(self.board)}
        if self.name is not None:
            document["name"] = self.name
        document["forwarded"] = self.forwarded
        return document


@dataclass(frozen=True)
class RefusedMessage:
    """Guest -> host: it will not join, and why (in words: an Oche guest's are a
    :class:`JoinRefusal`'s, :meth:`of`; the host takes any words)."""

    match: str
    at: float
    reason: str
    type: ClassVar[MessageType] = MessageType.REFUSED

    @classmethod
    def of(cls, match: str, at: float, refusal: JoinRefusal) -> RefusedMessage:
        """The message refusing ``match`` for ``refusal``."""
        return cls(match, at, str(refusal))

    @property
    def refusal(self) -> JoinRefusal | None:
        """The typed refusal its words are, None for words of another kind."""
        try:
            return JoinRefusal.parse(self.reason)
        except ValueError:
            return None

    def to_json(self) -> dict[str, Any]:
        return {**_envelope(self), "reason": self.reason}


@dataclass(frozen=True)
class ActionMessage:
    """Guest -> host: one forwarded action, ``seq`` 1, 2, ... per guest and
    match; ``segment`` exactly when the action :attr:`~RemoteAction.has_segment`,
    ``dart`` (1 to 3) exactly when it :attr:`~RemoteAction.has_dart`."""

    match: str
    at: float
    seq: int
    action: RemoteAction
    segment: str | None = None
    dart: int | None = None
    type: ClassVar[MessageType] = MessageType.ACTION

    def to_json(self) -> dict[str, Any]:
        document = {**_envelope(self), "seq": self.seq, "action": self.action.value}
        if self.segment is not None:
            document["segment"] = self.segment
        if self.dart is not None:
            document["dart"] = self.dart
        return document


@dataclass(frozen=True)
class LeaveMessage:
    """Guest -> host: end_game on the guest; the host ends the match."""

    match: str
    at: float
    type: ClassVar[MessageType] = MessageType.LEAVE

    def to_json(self) -> dict[str, Any]:
        return _envelope(self)


RemoteMessage = (
    JoinMessage | EndMessage | JoinedMessage | RefusedMessage | ActionMessage | LeaveMessage
)
"""One checked remote channel message: a ``match`` statement over its type
names every kind."""


def _envelope(message: RemoteMessage) -> dict[str, Any]:
    """What every message starts with: ``type``, ``match``, ``at``."""
    return {"type": message.type.value, "match": message.match, "at": float(message.at)}
