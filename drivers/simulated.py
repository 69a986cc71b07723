"""A simulated board that throws darts from a script, for tests and demos.

A script is a string of tokens: dart notation (``T20``, ``SB``, ``M``),
``button:NAME`` for a board button, ``coin:N`` for one pulse of coin input
``N`` (1 or 2), ``card:UID`` for a player card tapped on a reader (4 to 40
hex digits, ``:`` or ``-`` between bytes allowed), and ``+SECONDS`` to wait
(``+1.5``). Every dart, button, coin or card also waits the source's
``delay`` first. A bad card token's error never repeats the UID.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from drivers.board_events import (
    CARD_UID,
    BoardEvent,
    ButtonEvent,
    CardTapped,
    CoinEvent,
    ConnectedEvent,
    HitEvent,
)
from drivers.errors import DriverError
from drivers.matrix_map import MatrixMap
from drivers.protocol import MAX_COIN_INPUT
from drivers.source import BoardSource
from engine import Bed, NotationError

__all__ = ["ScriptError", "ScriptStep", "SimulatedSource", "parse_script"]


class ScriptError(DriverError):
    """A simulated-board script token that is not a dart, button, coin, card or pause."""


@dataclass(frozen=True, slots=True)
class ScriptStep:
    """Wait ``pause`` seconds, then emit ``event`` (``None``: only wait)."""

    pause: float
    event: BoardEvent | None


def _cell_of(bed: Bed, matrix: MatrixMap | None) -> tuple[int | None, int | None]:
    if matrix is not None:
        for cell, target in sorted(matrix.cells.items()):
            if target == bed:
                return cell
    return None, None


def parse_script(
    script: str, delay: float = 0.0, matrix: MatrixMap | None = None
) -> list[ScriptStep]:
    """The steps of ``script``; a bad token raises :class:`ScriptError` naming it."""
    steps = []
    for token in script.split():
        if token.startswith("+"):
            try:
                seconds = float(token[1:])
            except ValueError:
                seconds = -1.0
            if not 0 <= seconds <= 3600:
                raise ScriptError(f"{token!r}: a pause is +SECONDS, 0 to 3600")
            steps.append(ScriptStep(seconds, None))
        elif token.lower().startswith("coin:"):
            number = token[len("coin:") :]
            if not (number.isascii() and number.isdigit() and 1 <= int(number) <= MAX_COIN_INPUT):
                raise ScriptError(f"{token!r}: a coin is coin:N, N from 1 to {MAX_COIN_INPUT}")
            steps.append(ScriptStep(delay, CoinEvent(int(number))))
        elif token.lower().startswith("card:"):
            uid = token[len("card:") :]
            if not CARD_UID.fullmatch(uid):
                raise ScriptError(
                    f"a card token ({len(uid)} characters after card:) is card:UID, "
                    "4 to 40 hex digits such as card:04A21B3F"
                )
            steps.append(ScriptStep(delay, CardTapped(uid)))
        elif token.lower().startswith("button:") and len(token) > len("button:"):
            steps.append(ScriptStep(delay, ButtonEvent(token[len("button:") :].lower())))
        else:
            try:
                bed = Bed.parse(token)
            except NotationError as error:
                raise ScriptError(
                    f"{token!r}: not a dart, button:NAME, coin:N, card:UID or +SECONDS "
                    f"({error.reason})"
                ) from None
            steps.append(ScriptStep(delay, HitEvent(bed, *_cell_of(bed, matrix))))
    return steps


class SimulatedSource(BoardSource):
    """Plays a script, then ends (or, with ``hold_open``, stays connected and idle)."""

    name = "simulated"

    def __init__(
        self,
        script: str,
        delay: float = 0.0,
        matrix: MatrixMap | None = None,
        hold_open: bool = False,
    ) -> None:
        super().__init__()
        self.steps = parse_script(script, delay, matrix)
        self.hold_open = hold_open

    async def _run(self) -> None:
        self._emit(ConnectedEvent(self.name))
        for step in self.steps:
            if step.pause:
                await asyncio.sleep(step.pause)
            if step.event is not None:
                self._emit(step.event)
        if self.hold_open:
            await asyncio.Event().wait()
