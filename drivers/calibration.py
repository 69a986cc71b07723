"""Building a matrix map by hitting each bed in turn (``oche calibrate``).

The wizard asks for every bed of the board and then for every button, in a
fixed order (:data:`PROMPTS`): for each number in board order, clockwise from
the top (:data:`BOARD_ORDER`), its inner single, triple, outer single and
double; then the outer and the inner bull; then the buttons of
:data:`~drivers.board_events.BUTTON_NAMES`. Each answer is a matrix cell (a
bed, or a button wired into the matrix, written ``button:NAME``) or, for a
button, a dedicated button of a ``B`` frame (written to ``[buttons]``).

:class:`Calibration` holds the answers and knows which prompt comes next; it
does no I/O, so the terminal wizard (``firmware_bridge.cli.calibrate_command``)
and the tests drive it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.board_events import BUTTON_NAMES
from drivers.matrix_map import ButtonCell, MatrixMap
from engine import DB, SB, Bed

__all__ = [
    "BOARD_ORDER",
    "PROMPTS",
    "Calibration",
    "CalibrationError",
    "Prompt",
]

BOARD_ORDER = (20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5)
"""The numbers of a dartboard clockwise from the top."""

Cell = tuple[int, int]


class CalibrationError(ValueError):
    """An answer the current prompt cannot take; the message says why, and the
    prompt stays the same so the wizard can ask again."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """One thing the wizard asks for: a bed (``bed``) or a button (``button``).

    ``index`` is the 0-based position in :data:`PROMPTS`; ``label`` names the
    target in words (``TRIPLE 18``, ``OUTER BULL (SB)``, ``NEXT button``).
    """

    index: int
    label: str
    bed: Bed | None = None
    button: str | None = None

    @property
    def target(self) -> Bed | ButtonCell:
        """What the answered cell maps to in the matrix map."""
        if self.bed is not None:
            return self.bed
        assert self.button is not None
        return ButtonCell(self.button)

    @property
    def instruction(self) -> str:
        """The request shown to the builder."""
        if self.bed is not None:
            return f"Hit the {self.label}"
        return f"Press the {self.label}"

    def __str__(self) -> str:
        return self.label


def _build_prompts() -> tuple[Prompt, ...]:
    targets: list[tuple[str, Bed | None, str | None]] = []
    for number in BOARD_ORDER:
        targets += [
            (f"INNER SINGLE {number}", Bed(number, 1), None),
            (f"TRIPLE {number}", Bed(number, 3), None),
            (f"OUTER SINGLE {number}", Bed(number, 1), None),
            (f"DOUBLE {number}", Bed(number, 2), None),
        ]
    targets += [("OUTER BULL (SB)", SB, None), ("INNER BULL (DB)", DB, None)]
    targets += [(f"{name.upper()} button", None, name) for name in BUTTON_NAMES]
    return tuple(
        Prompt(index, label, bed, button) for index, (label, bed, button) in enumerate(targets)
    )


PROMPTS = _build_prompts()
"""Every prompt in the order the wizard asks: 82 beds, then the 6 buttons."""


class Calibration:
    """The answers so far and the prompt being asked.

    ``assign`` / ``assign_button`` answer the current prompt and move on to the
    next prompt that has no answer yet; ``skip`` moves on without an answer (a
    skipped prompt is asked again on resume); ``undo`` takes back the last step
    of this session (or, with nothing to take back, goes back one prompt) and
    frees that prompt's answer. Cells and buttons in a resumed map that belong
    to no prompt (an extra cell, a custom button) are kept and stay taken.
    """

    def __init__(self, matrix: MatrixMap | None = None) -> None:
        """A fresh calibration, or one resumed from ``matrix`` (:meth:`from_map`)."""
        self.prompts = PROMPTS
        self._cells: dict[int, Cell] = {}
        self._buttons: dict[int, int] = {}
        self._extra_cells: dict[Cell, Bed | ButtonCell] = {}
        self._extra_buttons: dict[int, str] = {}
        self._history: list[int] = []
        self._current = 0
        if matrix is not None:
            self._resume(matrix)

    # ------------------------------------------------------------ state

    @property
    def current(self) -> Prompt | None:
        """The prompt being asked; ``None`` once every prompt has been passed."""
        return self.prompts[self._current] if self._current < len(self.prompts) else None

    @property
    def position(self) -> int:
        """The 1-based number of the current prompt (``total + 1`` when done)."""
        return self._current + 1

    @property
    def total(self) -> int:
        return len(self.prompts)

    @property
    def progress(self) -> tuple[int, int]:
        """(prompts answered, prompts in all)."""
        return len(self._cells) + len(self._buttons), len(self.prompts)

    @property
    def is_done(self) -> bool:
        """True once the last prompt has been answered or skipped."""
        return self._current >= len(self.prompts)

    @property
    def is_complete(self) -> bool:
        """True when every prompt has an answer (nothing skipped)."""
        return not self.missing

    @property
    def missing(self) -> list[Prompt]:
        """The prompts without an answer (skipped or not asked yet)."""
        return [prompt for prompt in self.prompts if not self._answered(prompt.index)]

    def answer(self, prompt: Prompt) -> Cell | int | None:
        """The cell or dedicated button index answering ``prompt``, if any."""
        if prompt.index in self._cells:
            return self._cells[prompt.index]
        return self._buttons.get(prompt.index)

    def _answered(self, index: int) -> bool:
        return index in self._cells or index in self._buttons

    def _advance(self, start: int) -> None:
        index = start
        while index < len(self.prompts) and self._answered(index):
            index += 1
        self._current = index

    def _require_current(self) -> Prompt:
        prompt = self.current
        if prompt is None:
            raise CalibrationError("every prompt has been answered or skipped")
        return prompt

    # ------------------------------------------------------------ answers

    def owner_of_cell(self, row: int, col: int) -> str | None:
        """What cell (row, col) already is, in words, or ``None`` if it is free."""
        cell = (row, col)
        for index, taken in self._cells.items():
            if taken == cell:
                return f"the {self.prompts[index].label}"
        if cell in self._extra_cells:
            return f"mapped to {self._extra_cells[cell]}"
        return None

    def owner_of_button(self, button: int) -> str | None:
        """What dedicated button ``button`` already is, in words, or ``None``."""
        for index, taken in self._buttons.items():
            if taken == button:
                return f"the {self.prompts[index].label}"
        if button in self._extra_buttons:
            return f"named {self._extra_buttons[button]!r}"
        return None

    def assign(self, row: int, col: int) -> Prompt:
        """Answer the current prompt with cell (row, col); returns that prompt.

        Raises :class:`CalibrationError` (and stays on the prompt) when the cell
        already answers another prompt or is mapped in the resumed map."""
        prompt = self._require_current()
        if row < 0 or col < 0:
            raise CalibrationError(f"cell {row},{col} is not a matrix cell")
        owner = self.owner_of_cell(row, col)
        if owner is not None:
            raise CalibrationError(f"cell {row},{col} is already {owner}")
        self._cells[prompt.index] = (row, col)
        self._history.append(prompt.index)
        self._advance(prompt.index + 1)
        return prompt

    def assign_button(self, button: int) -> Prompt:
        """Answer the current button prompt with dedicated button ``button``
        (a ``B`` frame); returns that prompt. A bed cannot be a button."""
        prompt = self._require_current()
        if prompt.button is None:
            raise CalibrationError(
                f"button {button} is a dedicated button, not a bed; hit the {prompt.label}"
            )
        owner = self.owner_of_button(button)
        if owner is not None:
            raise CalibrationError(f"button {button} is already {owner}")
        self._buttons[prompt.index] = button
        self._history.append(prompt.index)
        self._advance(prompt.index + 1)
        return prompt

    def skip(self) -> Prompt:
        """Leave the current prompt unanswered and move on; returns it."""
        prompt = self._require_current()
        self._history.append(prompt.index)
        self._advance(prompt.index + 1)
        return prompt

    def undo(self) -> Prompt | None:
        """Go back one prompt and free its answer; returns the prompt, now
        current again, or ``None`` at the first prompt (nothing to undo)."""
        if self._history:
            index = self._history.pop()
        elif self._current > 0:
            index = self._current - 1
        else:
            return None
        self._cells.pop(index, None)
        self._buttons.pop(index, None)
        self._current = index
        return self.prompts[index]

    # ------------------------------------------------------------ maps

    def to_map(self, name: str, rows: int, cols: int) -> MatrixMap:
        """The matrix map of the answers so far (and of any kept extras).
        Raises ``ValueError`` if a cell lies outside ``rows`` x ``cols``."""
        cells: dict[Cell, Bed | ButtonCell] = dict(self._extra_cells)
        for index, cell in self._cells.items():
            cells[cell] = self.prompts[index].target
        for row, col in cells:
            if not (0 <= row < rows and 0 <= col < cols):
                raise ValueError(f"cell {row},{col} is outside the {rows}x{cols} matrix")
        buttons = dict(self._extra_buttons)
        for index, button in self._buttons.items():
            name_of = self.prompts[index].button
            assert name_of is not None
            buttons[button] = name_of
        return MatrixMap(
            name, rows, cols, dict(sorted(cells.items())), dict(sorted(buttons.items()))
        )

    @classmethod
    def from_map(cls, matrix: MatrixMap) -> Calibration:
        """Resume from a (partial) map: a prompt is answered when a cell maps to
        its target. The inner and outer single of a number are the same bed, so
        the first such cell (in row, col order) answers the inner single and the
        second the outer single. The current prompt is the first unanswered one."""
        return cls(matrix)

    def _resume(self, matrix: MatrixMap) -> None:
        """Answer the prompts a (partial) map answers (see :meth:`from_map`)."""
        free: dict[Bed | ButtonCell, list[int]] = {}
        for prompt in self.prompts:
            free.setdefault(prompt.target, []).append(prompt.index)
        for cell, target in sorted(matrix.cells.items()):
            waiting = free.get(target)
            if waiting:
                self._cells[waiting.pop(0)] = cell
            else:
                self._extra_cells[cell] = target
        for button, name in sorted(matrix.buttons.items()):
            waiting = free.get(ButtonCell(name))
            if waiting:
                self._buttons[waiting.pop(0)] = button
            else:
                self._extra_buttons[button] = name
        self._advance(0)
