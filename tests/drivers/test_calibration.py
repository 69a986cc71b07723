"""The calibration wizard's logic: prompt order, answers, skip, undo, resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.board_events import BUTTON_NAMES
from drivers.calibration import BOARD_ORDER, PROMPTS, Calibration, CalibrationError
from drivers.matrix_map import ButtonCell, MatrixMap, dump_map, load_map, parse_map
from engine import ALL_BEDS, DB, MISS, SB, Bed

ROWS, COLS = 10, 10


def cell_of(index: int) -> tuple[int, int]:
    row, col = divmod(index, COLS)
    return row, col


def answer_all(calibration: Calibration, dedicated: dict[str, int] | None = None) -> None:
    """Answer every prompt from the current one on: prompt i gets cell_of(i),
    or a dedicated button for the button names in ``dedicated``."""
    dedicated = dedicated or {}
    while (prompt := calibration.current) is not None:
        if prompt.button in dedicated:
            calibration.assign_button(dedicated[prompt.button])
        else:
            calibration.assign(*cell_of(prompt.index))


# ------------------------------------------------------------------ order


def test_board_order_is_the_twenty_numbers_clockwise_from_the_top() -> None:
    assert BOARD_ORDER[:3] == (20, 1, 18)
    assert BOARD_ORDER[-1] == 5
    assert sorted(BOARD_ORDER) == list(range(1, 21))


def test_82_beds_then_7_buttons() -> None:
    assert len(PROMPTS) == 89
    beds = [p.bed for p in PROMPTS[:82]]
    assert all(p.bed is None for p in PROMPTS[82:])
    assert [p.button for p in PROMPTS[82:]] == list(BUTTON_NAMES)
    assert [p.button for p in PROMPTS[82:]] == [
        "next",
        "undo",
        "miss",
        "game",
        "player",
        "start",
        "bounce",
    ]
    assert set(beds) == set(ALL_BEDS) - {MISS}
    assert [p.index for p in PROMPTS] == list(range(89))


def test_each_number_asks_inner_single_triple_outer_single_double() -> None:
    for position, number in enumerate(BOARD_ORDER):
        four = PROMPTS[4 * position : 4 * position + 4]
        assert [p.bed for p in four] == [
            Bed(number, 1),
            Bed(number, 3),
            Bed(number, 1),
            Bed(number, 2),
        ]
        assert [p.label for p in four] == [
            f"INNER SINGLE {number}",
            f"TRIPLE {number}",
            f"OUTER SINGLE {number}",
            f"DOUBLE {number}",
        ]
    assert (PROMPTS[80].bed, PROMPTS[81].bed) == (SB, DB)
    assert PROMPTS[80].label == "OUTER BULL (SB)"
    assert PROMPTS[81].label == "INNER BULL (DB)"


def test_prompt_words() -> None:
    assert PROMPTS[9].instruction == "Hit the TRIPLE 18"
    assert PROMPTS[82].instruction == "Press the NEXT button"
    assert PROMPTS[82].target == ButtonCell("next")
    assert PROMPTS[0].target == Bed(20, 1)


# ------------------------------------------------------------------ answers


def test_a_fresh_calibration_starts_at_the_first_prompt() -> None:
    calibration = Calibration()
    assert calibration.current is PROMPTS[0]
    assert calibration.position == 1
    assert calibration.progress == (0, 89)
    assert not calibration.is_done
    assert calibration.undo() is None  # nothing to undo


def test_assign_moves_on_and_records_the_cell() -> None:
    calibration = Calibration()
    assert calibration.assign(3, 7) is PROMPTS[0]
    assert calibration.current is PROMPTS[1]
    assert calibration.progress == (1, 89)
    assert calibration.answer(PROMPTS[0]) == (3, 7)
    assert calibration.to_map("b", ROWS, COLS).cells == {(3, 7): Bed(20, 1)}


def test_a_cell_taken_by_another_prompt_is_rejected_naming_it() -> None:
    calibration = Calibration()
    calibration.assign(0, 0)
    calibration.assign(0, 1)
    with pytest.raises(CalibrationError, match=r"cell 0,0 is already the INNER SINGLE 20"):
        calibration.assign(0, 0)
    assert calibration.current is PROMPTS[2]  # asked again
    assert calibration.progress == (2, 89)
    calibration.assign(0, 2)
    assert calibration.current is PROMPTS[3]


def test_a_dedicated_button_is_only_an_answer_to_a_button_prompt() -> None:
    calibration = Calibration()
    with pytest.raises(CalibrationError, match=r"button 2 is a dedicated button, not a bed"):
        calibration.assign_button(2)
    assert calibration.current is PROMPTS[0]


def test_buttons_as_cells_and_as_dedicated_buttons() -> None:
    calibration = Calibration()
    for _ in range(82):
        calibration.skip()
    assert calibration.current is PROMPTS[82]
    calibration.assign(9, 9)  # NEXT wired into the matrix
    calibration.assign_button(0)  # UNDO a dedicated button
    with pytest.raises(CalibrationError, match=r"button 0 is already the UNDO button"):
        calibration.assign_button(0)
    with pytest.raises(CalibrationError, match=r"cell 9,9 is already the NEXT button"):
        calibration.assign(9, 9)
    calibration.assign_button(5)
    matrix = calibration.to_map("b", ROWS, COLS)
    assert matrix.cells == {(9, 9): ButtonCell("next")}
    assert dict(matrix.buttons) == {0: "undo", 5: "miss"}


def test_skip_leaves_the_prompt_unanswered() -> None:
    calibration = Calibration()
    assert calibration.skip() is PROMPTS[0]
    assert calibration.current is PROMPTS[1]
    assert calibration.progress == (0, 89)
    assert calibration.missing[0] is PROMPTS[0]


def test_undo_goes_back_one_prompt_and_frees_its_cell() -> None:
    calibration = Calibration()
    calibration.assign(0, 0)
    calibration.assign(0, 1)
    assert calibration.undo() is PROMPTS[1]
    assert calibration.current is PROMPTS[1]
    assert calibration.progress == (1, 89)
    assert calibration.answer(PROMPTS[1]) is None
    calibration.assign(0, 1)  # the freed cell can be given again
    assert calibration.current is PROMPTS[2]


def test_undo_steps_back_over_a_skip_and_then_further() -> None:
    calibration = Calibration()
    calibration.assign(0, 0)
    calibration.skip()
    assert calibration.undo() is PROMPTS[1]  # the skip
    assert calibration.undo() is PROMPTS[0]
    assert calibration.progress == (0, 89)
    assert calibration.undo() is None


def test_undo_of_a_dedicated_button() -> None:
    calibration = Calibration()
    for _ in range(82):
        calibration.skip()
    calibration.assign_button(3)
    assert calibration.undo() is PROMPTS[82]
    assert calibration.owner_of_button(3) is None
    assert calibration.to_map("b", ROWS, COLS).buttons == {}


def test_a_full_calibration_is_done_and_maps_every_bed() -> None:
    calibration = Calibration()
    answer_all(calibration)
    assert calibration.is_done and calibration.is_complete
    assert calibration.current is None
    assert calibration.progress == (89, 89)
    with pytest.raises(CalibrationError):
        calibration.assign(9, 9)
    with pytest.raises(CalibrationError):
        calibration.skip()
    matrix = calibration.to_map("Bar board", ROWS, COLS)
    assert len(matrix.cells) == 89
    assert set(matrix.cells.values()) == (set(ALL_BEDS) - {MISS}) | {
        ButtonCell(name) for name in BUTTON_NAMES
    }
    assert calibration.undo() is PROMPTS[88]  # the end can be undone too
    assert not calibration.is_done


def test_walking_past_a_skip_is_done_but_not_complete() -> None:
    calibration = Calibration()
    calibration.skip()
    answer_all(calibration)
    assert calibration.is_done
    assert not calibration.is_complete
    assert calibration.missing == [PROMPTS[0]]


def test_to_map_rejects_a_cell_outside_the_matrix() -> None:
    calibration = Calibration()
    calibration.assign(12, 0)
    with pytest.raises(ValueError, match=r"cell 12,0 is outside the 10x10 matrix"):
        calibration.to_map("b", ROWS, COLS)


# ------------------------------------------------------------------ maps and resume


def test_to_map_round_trips_through_dump_map_and_load_map(tmp_path: Path) -> None:
    calibration = Calibration()
    answer_all(calibration, {"miss": 0, "start": 15})
    matrix = calibration.to_map('Bar "board" 1', ROWS, COLS)
    path = tmp_path / "board.toml"
    dump_map(matrix, path)
    loaded = load_map(path)
    assert loaded == matrix
    assert loaded.name == 'Bar "board" 1'
    assert dict(loaded.buttons) == {0: "miss", 15: "start"}
    assert loaded.cells[cell_of(82)] == ButtonCell("next")
    assert sum(1 for bed in loaded.cells.values() if bed == Bed(20, 1)) == 2


def test_from_map_of_a_complete_map_is_done(tmp_path: Path) -> None:
    calibration = Calibration()
    answer_all(calibration, {"game": 4})
    path = tmp_path / "board.toml"
    dump_map(calibration.to_map("b", ROWS, COLS), path)
    resumed = Calibration.from_map(load_map(path))
    assert resumed.is_done and resumed.is_complete
    assert resumed.progress == (89, 89)
    assert resumed.to_map("b", ROWS, COLS) == calibration.to_map("b", ROWS, COLS)


def test_resume_from_a_partial_map_continues_at_the_first_unanswered_prompt() -> None:
    matrix = parse_map(
        """
        [board]
        name = "b"
        rows = 10
        cols = 10

        [cells]
        "0,0" = "S20"
        "0,1" = "T20"
        "0,2" = "S20"
        "0,4" = "S1"
        """
    )
    resumed = Calibration.from_map(matrix)
    # Both S20 cells answer the two singles of 20; D20 was skipped.
    assert resumed.current is PROMPTS[3]
    assert resumed.progress == (4, 89)
    assert resumed.answer(PROMPTS[0]) == (0, 0)
    assert resumed.answer(PROMPTS[2]) == (0, 2)
    resumed.assign(0, 3)
    # The inner single 1 is done; its triple is next.
    assert resumed.current is PROMPTS[5]
    with pytest.raises(CalibrationError, match=r"cell 0,4 is already the INNER SINGLE 1"):
        resumed.assign(0, 4)


def test_one_single_cell_answers_only_the_inner_single() -> None:
    matrix = MatrixMap("b", ROWS, COLS, {(0, 0): Bed(20, 1), (0, 1): Bed(20, 3)})
    resumed = Calibration.from_map(matrix)
    assert resumed.current is PROMPTS[2]
    assert resumed.current.label == "OUTER SINGLE 20"


def test_skipped_prompts_are_asked_again_on_resume() -> None:
    calibration = Calibration()
    calibration.assign(0, 0)
    calibration.skip()
    calibration.assign(0, 2)
    resumed = Calibration.from_map(calibration.to_map("b", ROWS, COLS))
    assert resumed.current is PROMPTS[1]
    resumed.assign(0, 1)
    assert resumed.current is PROMPTS[3]  # the outer single was answered before


def test_undo_right_after_resume_frees_the_prompt_before() -> None:
    matrix = MatrixMap("b", ROWS, COLS, {(0, 0): Bed(20, 1), (0, 1): Bed(20, 3)})
    resumed = Calibration.from_map(matrix)
    assert resumed.undo() is PROMPTS[1]
    assert resumed.to_map("b", ROWS, COLS).cells == {(0, 0): Bed(20, 1)}


def test_resume_keeps_cells_and_buttons_no_prompt_owns() -> None:
    matrix = MatrixMap(
        "b",
        ROWS,
        COLS,
        {
            (0, 0): Bed(20, 1),
            (0, 1): Bed(20, 1),
            (0, 2): Bed(20, 1),  # a third S20 cell: kept as it is
            (5, 5): ButtonCell("lights"),
        },
        {1: "next", 2: "bonus"},
    )
    resumed = Calibration.from_map(matrix)
    assert resumed.to_map("b", ROWS, COLS) == matrix
    assert resumed.current is PROMPTS[1]
    with pytest.raises(CalibrationError, match=r"cell 5,5 is already mapped to button:lights"):
        resumed.assign(5, 5)
    with pytest.raises(CalibrationError, match=r"cell 0,2 is already mapped to S20"):
        resumed.assign(0, 2)
    while resumed.current is not None and resumed.current.button is None:
        resumed.skip()
    assert resumed.current is PROMPTS[83]  # NEXT is button 1 already
    with pytest.raises(CalibrationError, match=r"button 2 is already named 'bonus'"):
        resumed.assign_button(2)
