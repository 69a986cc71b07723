"""A board's called matches, pure (docs/matches.md, "Called matches"): the
call waiting to be started, the call whose game is being played (by the
game's journal row), and the calls already started here, so a ``call_match``
sent again changes nothing. The match-calls extension
(:mod:`firmware_bridge.daemon.extensions.match_calls`) runs these rules,
journals the book and publishes what it changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from firmware_bridge.daemon.game_session import Refusal
from mqtt_contract import CallMatch
from mqtt_contract.json_types import PayloadError
from mqtt_contract.match_payload import CallView

__all__ = ["STARTED_KEPT", "CallBook", "busy_refusal"]

STARTED_KEPT = 32
"""How many started calls the book remembers (a resend of one is a no-op)."""


def busy_refusal(call_id: str, doing: str) -> Refusal:
    """The refusal of a call a busy board cannot take; it starts with
    ``busy`` so the service knows to try another board."""
    return Refusal(f"busy: {doing}; call {call_id} not taken")


@dataclass(frozen=True, slots=True)
class Pending:
    """A call waiting on this board for a dart or NEXT."""

    command: CallMatch
    called_at: float

    def view(self) -> CallView:
        """The state's ``call`` block."""
        command = self.command
        return CallView(
            present=True,
            call_id=command.call_id,
            title=command.title,
            game=command.game,
            options=command.options,
            match=command.match,
            players=command.players,
            teams=command.teams,
            called_at=self.called_at,
        )


@dataclass
class CallBook:
    """The board's calls: ``pending`` (waiting), ``playing`` (the call id and
    journal row of the game it started) and ``started`` (the calls started
    here, the latest last)."""

    pending: Pending | None = None
    playing: tuple[str, int] | None = None
    started: list[str] = field(default_factory=list)

    def take(self, command: CallMatch, busy: str | None, now: float) -> Literal["new", "same"]:
        """A ``call_match``: ``same`` when it is the call waiting or one
        started here already (nothing changes), ``new`` when it now waits; a
        :func:`busy_refusal` when ``busy`` (what the board is doing: a game in
        progress) or another call waits."""
        call_id = command.call_id
        if call_id in self.started or (self.pending and self.pending.command.call_id == call_id):
            return "same"
        if busy is not None:
            raise busy_refusal(call_id, busy)
        if self.pending is not None:
            raise busy_refusal(call_id, f"call {self.pending.command.call_id} waits on this board")
        self.pending = Pending(command, now)
        return "new"

    def cancel(self, call_id: str) -> bool:
        """``cancel_call``: True when that call was waiting (it no longer
        does); a call started already plays on, an unknown one is no change."""
        if self.pending is None or self.pending.command.call_id != call_id:
            return False
        self.pending = None
        return True

    def start(self, row: int) -> CallMatch:
        """The waiting call's game started as journal row ``row``: it plays."""
        assert self.pending is not None
        command = self.pending.command
        self.pending = None
        self.playing = (command.call_id, row)
        self.started = [*(c for c in self.started if c != command.call_id), command.call_id]
        self.started = self.started[-STARTED_KEPT:]
        return command

    def call_of(self, row: int | None) -> str | None:
        """The call id of the game of journal row ``row``, if a call started it."""
        if self.playing is not None and row is not None and self.playing[1] == row:
            return self.playing[0]
        return None

    def abandoned(self, row: int | None) -> str | None:
        """The game of ``row`` was ended unplayed: its call (if one) is
        forgotten as started, so the service's next ``call_match`` of it calls
        it again. The call id, or None."""
        call_id = self.call_of(row)
        if call_id is not None:
            self.playing = None
            self.started = [c for c in self.started if c != call_id]
        return call_id

    # ----------------------------------------------------------- keeping

    def to_json(self) -> dict[str, Any]:
        """What the journal keeps."""
        pending = self.pending
        return {
            "pending": None
            if pending is None
            else {"command": pending.command.to_json(), "called_at": pending.called_at},
            "playing": None if self.playing is None else list(self.playing),
            "started": list(self.started),
        }

    def restore(self, kept: Any) -> list[str]:
        """Take back :meth:`to_json`'s JSON; what could not be read, in words."""
        if not isinstance(kept, dict):
            return [] if kept is None else ["not an object"]
        problems: list[str] = []
        pending = kept.get("pending")
        if isinstance(pending, dict):
            try:
                command = CallMatch.from_json(pending.get("command"))
                called_at = pending.get("called_at")
                at = float(called_at) if isinstance(called_at, int | float) else 0.0
                self.pending = Pending(command, at)
            except PayloadError as error:
                problems.append(f"the waiting call: {error}")
        playing = kept.get("playing")
        if (
            isinstance(playing, list)
            and len(playing) == 2
            and isinstance(playing[0], str)
            and type(playing[1]) is int
        ):
            self.playing = (playing[0], playing[1])
        started = kept.get("started")
        if isinstance(started, list):
            self.started = [c for c in started if isinstance(c, str)][-STARTED_KEPT:]
        return problems
