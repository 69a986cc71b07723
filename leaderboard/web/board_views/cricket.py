"""Cricket: the marks grid, a row per target (20 down to 15, then the bull)
and a column per player, marks the pub way (``/`` one, ``X`` two, ``⊗``
closed), a target every side has closed greyed; the points above and the
marks per round below. The TV's card shows the same marks, small.
:mod:`leaderboard.web.board_views.cricket_shanghai` reuses the grid."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.beds import BULL
from engine.games.cricket import CRICKET_TARGETS, MARKS_KEYS, MARKS_TO_CLOSE
from leaderboard.web.board_views.base import GameView, format_value
from leaderboard.web.board_views.registry import register_view
from mqtt_contract import PlayerView, StateView
from mqtt_contract.scoreboard import cricket_option_parts, handicap_words

__all__ = ["BULL_KEY", "ROWS", "CricketView", "MarkCell", "MarksRow", "mark_count", "marks_rows"]

BULL_KEY = MARKS_KEYS[CRICKET_TARGETS.index(BULL)]
"""The bull's key in ``marks``."""

ROWS: tuple[tuple[str, str], ...] = (
    *((key, key) for key in reversed(MARKS_KEYS) if key != BULL_KEY),
    (BULL_KEY, "Bull"),
)
"""The grid's rows top to bottom: ``(marks key, label)``."""

SYMBOLS = ("", "/", "X", "⊗")
"""How 0 to 3 marks are written."""


def mark_count(marks: Mapping[str, int], target: str) -> int:
    """The marks on ``target``, 0 to :data:`MARKS_TO_CLOSE`."""
    return max(0, min(MARKS_TO_CLOSE, marks.get(target, 0)))


@dataclass(frozen=True)
class MarkCell:
    """One player's marks on one target."""

    count: int
    pending: int
    """The marks the visit in progress will make (Cricket-Shanghai's), else ``count``."""

    @property
    def symbol(self) -> str:
        return SYMBOLS[self.count]

    @property
    def words(self) -> str:
        if self.count >= MARKS_TO_CLOSE:
            return "closed"
        return (
            "no marks" if self.count == 0 else f"{self.count} mark{'s' if self.count > 1 else ''}"
        )

    @property
    def boxes(self) -> list[str]:
        """Each stage box: ``done``, ``pending`` or ``open``."""
        return [
            "done" if stage < self.count else "pending" if stage < self.pending else "open"
            for stage in range(MARKS_TO_CLOSE)
        ]


@dataclass(frozen=True)
class MarksRow:
    """A target's row: its key, label, whether every side closed it, the cells."""

    key: str
    label: str
    closed: bool
    cells: list[MarkCell]


def _cell(player: PlayerView, key: str) -> MarkCell:
    count = mark_count(dict(player.marks), key)
    after = dict(player.marks_after_visit)
    return MarkCell(count, mark_count(after, key) if after else count)


def marks_rows(state: StateView) -> list[MarksRow]:
    """The grid: one row per target of :data:`ROWS`."""
    rows = []
    for key, label in ROWS:
        cells = [_cell(player, key) for player in state.players]
        closed = bool(cells) and all(cell.count >= MARKS_TO_CLOSE for cell in cells)
        rows.append(MarksRow(key, label, closed, cells))
    return rows


@register_view("cricket")
class CricketView(GameView):
    template = "board_views/cricket.html"
    card_template = "board_views/card_marks.html"

    def subtitle(self, state: StateView) -> str:
        return " · ".join(cricket_option_parts(state))

    def footer(self, player: PlayerView) -> str:
        """Under a player's column: the marks per round, and spot marks given."""
        handicap = handicap_words(player)
        if not player.stats.present:
            return handicap
        mpr = f"MPR {format_value(player.stats.mpr or 0.0)}"
        return f"{mpr} · {handicap}" if handicap else mpr

    def context(self, state: StateView) -> Mapping[str, Any]:
        return {
            "rows": marks_rows(state),
            "footers": [self.footer(player) for player in state.players],
            "boxes": False,
        }
