"""A guest's mirror of the host: its state, its events and its availability.

:class:`HostMirror` reads the host's own ``state``, ``event`` and
``availability`` topics during a match: it republishes the events on this
board's ``event`` topic, keeps the host's last state (checked enough to
mirror it) and makes it this board's (its own ``board`` object,
``remote.role`` guest, phase ``waiting-remote`` while the host is away),
journals at once what that state says of the game's end, notes which of
this board's actions the host has taken, and keeps the local takeout as
the state says it is. Nothing is applied here: the host's state is the truth.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from firmware_bridge.daemon.extension_context import ExtensionContext
from firmware_bridge.daemon.remote_guest.joined_match import JoinedMatch, final_result
from firmware_bridge.daemon.remote_guest.membership import MatchMembership
from mqtt_contract import (
    AVAILABILITY_OFFLINE,
    AVAILABILITY_ONLINE,
    PHASES,
    BoardAddress,
    BoardEntry,
    EndReason,
    Phase,
)

__all__ = ["HostMirror"]

log = logging.getLogger(__name__)


class HostMirror:
    """The host's topics, as this board shows them. ``wake`` is set with each
    new host state (the guest's timers may move). No I/O in the constructor."""

    def __init__(
        self, context: ExtensionContext, membership: MatchMembership, wake: asyncio.Event
    ) -> None:
        self.context = context
        self.membership = membership
        self.wake = wake

    @property
    def own(self) -> BoardAddress:
        """This board, ``base/board``."""
        return self.membership.own

    def from_host(self, match: JoinedMatch, name: str, payload: bytes) -> None:
        """The host's state, event or availability (under the core's lock); a
        ValueError (or a JournalError) says why it is not taken."""
        if self.membership.match is not match:
            return
        if name == "availability":
            text = payload.decode("utf-8", "replace").strip()
            if text not in (AVAILABILITY_ONLINE, AVAILABILITY_OFFLINE):
                raise ValueError(f"availability {text[:40]!r} is neither online nor offline")
            online = text == AVAILABILITY_ONLINE
            if online != match.host_online:
                log.info("remote match %s: the host %s is %s", match.id, match.host, text)
                match.host_online = online
                self.context.request_state()
            return
        if not payload:
            return  # a retained message cleared
        try:
            document = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise ValueError(f"not JSON: {error}") from None
        if not isinstance(document, dict):
            raise ValueError(f"not a JSON object but {type(document).__name__}")
        if name == "event":
            self.context.publish("event", document)
        else:
            self._host_state(match, document)

    def _host_state(self, match: JoinedMatch, state: dict[str, Any]) -> None:
        if state.get("phase") not in PHASES:
            raise ValueError(f"phase {state.get('phase')!r} is not one of {', '.join(PHASES)}")
        if not isinstance(state.get("board"), dict) or "game" not in state:
            raise ValueError("not a board's state: it has no game or no board")
        remote = state.get("remote")
        if not isinstance(remote, dict) or remote.get("match") != match.id:
            if match.seen_state:  # the host shows another game (or none): it moved on
                finished = final_result(match.host_state) is not None
                reason = EndReason.FINISHED if finished else EndReason.ENDED
                self.membership.close(match, reason, self.context.clock())
                log.info("remote match %s: the host moved on without an end; closed", match.id)
            return
        boards = _check_state(state, remote)
        match.host_state, match.seen_state = state, True
        self._journal_result(match, final_result(state))
        applied = next((entry.applied for entry in boards if entry.board == self.own), None)
        if applied is not None and applied != match.taken:
            match.taken = applied
            self.context.journal.remote.guest_taken(match.id, applied)
        if match.taken >= match.forwarded:  # the state shows all this board has sent
            ours = remote.get("throwing_at") == str(self.own)
            match.takeout.reckon(state, ours, self.context.clock())
        self.context.request_state()
        self.wake.set()

    def _journal_result(self, match: JoinedMatch, result: dict[str, Any] | None) -> None:
        """Journal at once what the host's state says of the game's end: won
        (``finished`` with the winner, as ``oche history`` lists it), won anew
        with another result, or the win taken back (``playing`` again)."""
        if result == match.result:
            return
        if result is None:
            self.context.journal.remote.guest_reopen(match.id)
            log.info("remote match %s: the host took the win back; playing again", match.id)
        else:
            self.context.journal.remote.guest_finish(match.id, self.context.clock(), result)
            log.info("remote match %s: won by %s at the host", match.id, result["winner"])
        match.result = result

    # ------------------------------------------------------------ the mirror

    def state(self, match: JoinedMatch, state: dict[str, Any]) -> dict[str, Any]:
        """This board's ``state`` payload during ``match``: the host's, with
        this board's own ``board`` object and ``remote.role`` guest."""
        host = str(match.host)
        if match.host_state is None:
            return {
                "game": None,
                "phase": Phase.WAITING_REMOTE.value,
                "board": state["board"],
                "remote": {
                    "match": match.id,
                    "role": "guest",
                    "host": host,
                    "throwing_at": None,
                    "boards": self._boards(match),
                    "waiting": [host],
                },
            }
        mirrored = {**match.host_state, "board": state["board"]}
        remote = {**match.host_state["remote"], "role": "guest"}
        if match.host_online is False:
            mirrored["phase"] = Phase.WAITING_REMOTE.value
            waiting = [board for board in remote.get("waiting") or [] if board != host]
            remote["waiting"] = [host, *waiting]
        mirrored["remote"] = remote
        return mirrored

    def _boards(self, match: JoinedMatch) -> list[dict[str, Any]]:
        """The match's boards as this board knows them before the host's state."""
        own, host = self.own, match.host
        boards = [
            host,
            *dict.fromkeys(p.board for p in match.players if p.board != host),
        ]
        listed = []
        for board in boards:
            if board == host:
                entry = BoardEntry(board, match.host_name, bool(match.host_online), True, 0)
            elif board == own:
                name = self.context.config.board.name or own.board
                entry = BoardEntry(board, name, True, True, match.taken)
            else:
                entry = BoardEntry(board, board.board, False, False, 0)
            listed.append(entry.to_json())
        return listed


def _check_state(state: dict[str, Any], remote: dict[str, Any]) -> list[BoardEntry]:
    """Enough of the host's state to mirror it, and its boards; a ValueError
    says what is missing."""
    if state.get("game") is not None and not isinstance(state.get("players"), list):
        raise ValueError("the state has a game but no players")
    if not isinstance(remote.get("boards"), list) or not all(
        isinstance(board, dict) for board in remote["boards"]
    ):
        raise ValueError("the state's remote.boards is not a list of boards")
    if not isinstance(remote.get("waiting", []), list):
        raise ValueError("the state's remote.waiting is not a list")
    return [BoardEntry.from_json(board) for board in remote["boards"]]
