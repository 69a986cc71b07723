"""A guest board's own takeout in a remote match, reckoned where the board is.

:class:`LocalTakeout` says when this board's visit is over (its third dart
forwarded, or the host's state saying so), so the board ignores its
contacts while the darts are pulled out and forwards NEXT when the takeout
is over, link up or down. Pure: the caller gives it the time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_never

from mqtt_contract import Phase, RemoteAction

__all__ = ["VISIT_DARTS", "LocalTakeout"]

VISIT_DARTS = 3


@dataclass
class LocalTakeout:
    """This board's visit in a match, as far as takeout goes."""

    visits: bool = True
    """The game is played in visits of three darts (not by picking)."""
    darts: int = 0
    """Actions that throw a dart (:attr:`~mqtt_contract.RemoteAction.throws_dart`)
    forwarded in this board's visit since the last NEXT."""
    since: float | None = None
    """This board's visit is over: its contacts are ignored (local takeout)."""

    def due(self, takeout_s: float) -> float | None:
        """When the takeout is over (``[visit] takeout_s``; 0: never by itself)."""
        if self.since is None or takeout_s <= 0:
            return None
        return self.since + takeout_s

    def reckon(self, state: dict[str, Any], ours: bool, now: float) -> None:
        """As the host's up-to-date ``state`` says it is; ``ours``: its player
        up throws at this board."""
        phase = state.get("phase")
        if phase == Phase.WAITING_REMOTE:
            return
        if ours and phase == Phase.TAKEOUT.value:
            if self.since is None:
                self.since = now
        elif ours and phase == Phase.THROWING.value:
            visit = state.get("visit")
            self.darts = len(visit) if isinstance(visit, list) else 0
            self.since = None
        else:
            self.darts, self.since = 0, None

    def forwarded(self, action: RemoteAction, ours: bool, now: float) -> None:
        """After forwarding ``action`` (``ours``: the host's last state has this
        board's player up): a NEXT starts a visit, an undo takes a dart back, a
        dart-throwing action in this board's visit counts (the third ends it),
        a bounce or a correction leaves the count as it is."""
        match action:
            case RemoteAction.NEXT:
                self.darts, self.since = 0, None
            case RemoteAction.UNDO:
                self.darts = max(0, self.darts - 1)
                self.since = None
            case (
                RemoteAction.HIT
                | RemoteAction.DART
                | RemoteAction.MISS
                | RemoteAction.BOUNCE
                | RemoteAction.CORRECT
            ):
                if action.throws_dart and self.visits and self.since is None and ours:
                    self.darts += 1
                    if self.darts >= VISIT_DARTS:
                        self.since = now
            case _:
                assert_never(action)
