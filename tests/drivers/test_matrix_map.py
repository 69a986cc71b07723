"""Matrix map files: the pinned TOML format, errors that name the line, and
atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.matrix_map import ButtonCell, MapError, MatrixMap, dump_map, load_map, parse_map
from engine import Bed

GOOD = """\
[board]
name = "Bar board 1"
rows = 8
cols = 10

[cells]
"0,0" = "S20"
"0,1" = "s20"
"0,2" = "T20"
"7,9" = "button:next"

[buttons]
0 = "undo"
"""


def test_a_good_map_loads() -> None:
    matrix = parse_map(GOOD)
    assert (matrix.name, matrix.rows, matrix.cols) == ("Bar board 1", 8, 10)
    assert matrix.lookup(0, 0) == matrix.lookup(0, 1) == Bed.parse("S20")
    assert matrix.lookup(7, 9) == ButtonCell("next")
    assert matrix.lookup(5, 5) is None
    assert matrix.button_name(0) == "undo"
    assert matrix.button_name(3) == "button-3"


@pytest.mark.parametrize(
    ("change", "line", "words"),
    [
        (('"0,2" = "T20"', '"0,2" = "T21"'), 9, ["'0,2'", "T21"]),
        (('"0,2" = "T20"', '"8,2" = "T20"'), 9, ["'8,2'", "outside the 8x10"]),
        (('"0,2" = "T20"', '"0, 0" = "T20"'), 9, ["mapped twice"]),
        (('"0,2" = "T20"', '"a,b" = "T20"'), 9, ["'a,b'", "row,col"]),
        (('"0,2" = "T20"', '"0,2" = "button:Next Please"'), 9, ["button name"]),
        (('"0,2" = "T20"', '"0,2" = 20'), 9, ["20"]),
        (("rows = 8", "rows = 0"), 1, ["rows"]),
        (("[buttons]", "[buttonz]"), 12, ["buttonz"]),
        (('0 = "undo"', '16 = "undo"'), 13, ["16"]),
    ],
)
def test_bad_entries_name_the_file_line_and_key(
    change: tuple[str, str], line: int, words: list[str]
) -> None:
    text = GOOD.replace(*change)
    with pytest.raises(MapError) as caught:
        parse_map(text, "board.toml")
    message = str(caught.value)
    assert message.startswith(f"board.toml, line {line}:"), message
    for word in words:
        assert word in message


def test_missing_board_section_and_bad_toml() -> None:
    with pytest.raises(MapError, match=r"\[board\]"):
        parse_map('[cells]\n"0,0" = "S1"\n', "m.toml")
    with pytest.raises(MapError, match="not valid TOML"):
        parse_map("[board\n", "m.toml")


def test_load_map_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(MapError, match="cannot read"):
        load_map(tmp_path / "nope.toml")


def test_dump_then_load_round_trips_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    matrix = parse_map(GOOD)
    path = tmp_path / "board.toml"
    path.write_text("old contents", "utf-8")
    dump_map(matrix, path)
    again = load_map(path)
    assert again == MatrixMap(matrix.name, matrix.rows, matrix.cols, matrix.cells, matrix.buttons)
    assert [p.name for p in tmp_path.iterdir()] == ["board.toml"]


def test_dump_quotes_awkward_names(tmp_path: Path) -> None:
    matrix = MatrixMap('The "Oche" \\ bar', 2, 2, {(0, 0): Bed.parse("DB")})
    dump_map(matrix, tmp_path / "m.toml")
    assert load_map(tmp_path / "m.toml").name == 'The "Oche" \\ bar'


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.text())
def test_any_board_name_round_trips(tmp_path: Path, name: str) -> None:
    """Control characters too: the writer once escaped only backslash and quote,
    so a name with a control character gave a file load_map refused."""
    matrix = MatrixMap(
        name, 2, 2, {(0, 0): Bed.parse("DB"), (1, 1): ButtonCell("next")}, {3: "undo"}
    )
    path = tmp_path / "m.toml"
    dump_map(matrix, path)
    assert load_map(path) == matrix


def test_dump_keeps_the_mode_of_an_existing_map(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text("", "utf-8")
    path.chmod(0o640)
    dump_map(parse_map(GOOD), path)
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_new_map_is_readable_by_other_users_under_the_usual_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        dump_map(parse_map(GOOD), tmp_path / "new.toml")
    finally:
        os.umask(old)
    assert (tmp_path / "new.toml").stat().st_mode & 0o777 == 0o644


def test_a_buttons_error_points_at_the_buttons_line_not_a_number_elsewhere() -> None:
    text = GOOD.replace('0 = "undo"', '10 = "Not A Name"').replace("cols = 10", "cols = 10")
    with pytest.raises(MapError, match=r"^m\.toml, line 13:"):
        parse_map(text, "m.toml")
