"""``oche bot`` and ``oche skill estimate`` run as a user runs them."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from engine.beds import Bed
from engine.board_geometry import STEEL, bed_centre
from engine.throw_model import sample_beds
from tests.cli.test_cli import oche


def ok(*args: str, stdin: str | None = None) -> str:
    result = oche(*args, stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def refused(*args: str, stdin: str | None = None) -> str:
    """The one line a bad input gets; nothing on stdout, status 2."""
    result = oche(*args, stdin=stdin)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1
    return result.stderr


@pytest.mark.slow
def test_levels_json_gives_each_levels_leg_average_and_mpr() -> None:
    levels = json.loads(ok("bot", "levels", "--json"))
    assert [row["level"] for row in levels] == list(range(1, 11))
    assert set(levels[0]) == {
        "level",
        "sigma_mm",
        "leg_average",
        "visits_per_leg",
        "mpr",
        "match_mpr",
        "t20_average",
    }
    averages = [row["leg_average"] for row in levels]
    assert averages == sorted(averages)
    assert averages[0] == pytest.approx(20, abs=0.5) and averages[-1] >= 95
    assert levels[0]["visits_per_leg"] < 60
    mprs = [row["mpr"] for row in levels]
    assert mprs == sorted(mprs)
    soft = json.loads(ok("bot", "levels", "--geometry", "soft", "--json"))
    assert all(s["sigma_mm"] > st["sigma_mm"] for s, st in zip(soft, levels, strict=True))


def test_levels_prints_a_table() -> None:
    lines = ok("bot", "levels").splitlines()
    assert lines[0].split()[:5] == ["level", "leg", "avg", "visits", "MPR"]
    assert len(lines) == 11 and lines[-1].split()[0] == "10"


def test_aim_moves_off_t20_for_a_wide_throw() -> None:
    tight = json.loads(ok("bot", "aim", "--sigma", "5", "--json"))
    assert set(tight) == {"x_mm", "y_mm", "bed", "expected"}
    assert tight["bed"] == "T20" and tight["expected"] > 40
    wide = json.loads(ok("bot", "aim", "--sigma", "30", "--json"))
    assert wide["x_mm"] < 0 and wide["y_mm"] < 0  # toward T19/T7
    assert "T20" in ok("bot", "aim", "--sigma", "5")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("bot", "aim", "--sigma", "wide", "--json"), "--sigma 'wide'"),
        (("bot", "aim", "--sigma", "0"), "--sigma '0'"),
        (("bot", "heatmap", "--sigma", "-4", "--out", "x.png"), "--sigma '-4'"),
        (("bot", "heatmap", "--sigma", "20", "--out", "x.txt"), "--out 'x.txt'"),
        (("bot", "heatmap", "--sigma", "20", "--out", "/no/such/dir/x.png"), "cannot write"),
    ],
)
def test_bad_bot_input_is_one_line(args: tuple[str, ...], named: str) -> None:
    assert named in refused(*args)


def read_png(path: Path) -> np.ndarray:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat, at = b"", 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length : at + 12 + length])[0] == zlib.crc32(
            kind + body
        )
        if kind == b"IDAT":
            idat += body
        at += 12 + length
    rows = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + 3 * width)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, 3)


def test_heatmap_draws_the_hot_spot_where_the_points_are(tmp_path: Path) -> None:
    out = tmp_path / "heat.png"
    assert "T20" in ok("bot", "heatmap", "--sigma", "6", "--out", str(out), "--size", "200")
    image = read_png(out).astype(int)
    assert image.shape == (200, 200, 3)
    half = STEEL.radius * 1.08

    def pixel(x: float, y: float) -> np.ndarray:
        col = int((x + half) / (2 * half) * 200)
        row = int((half - y) / (2 * half) * 200)
        return image[row, col]

    def heat(x: float, y: float) -> int:
        red, green, _ = pixel(x, y)
        return int(red + green)

    x, y = bed_centre(Bed(20, 3))
    assert heat(x + 3, y) > heat(*bed_centre(Bed(11, 1))) + 100
    wires = (image == (235, 235, 235)).all(axis=2)
    assert wires[100, :].sum() >= 12  # the centre row crosses the rings' wires


@pytest.mark.slow
def test_skill_estimate_reads_a_file_of_beds(tmp_path: Path) -> None:
    hits = sample_beds(bed_centre(Bed(20, 3)), 15.0, 400, np.random.default_rng(400))
    path = tmp_path / "darts.txt"
    lines = [" ".join(str(bed) for bed in hits[i : i + 10]) for i in range(0, 400, 10)]
    path.write_text("# forty visits at T20\n" + "\n".join(lines) + "\n", "utf-8")
    result = json.loads(ok("skill", "estimate", "--aim", "t20", str(path)))
    assert set(result) == {"sigma_mm", "darts", "interval", "level"}
    assert result["darts"] == 400
    assert result["sigma_mm"] == pytest.approx(15.0, rel=0.10)
    assert result["interval"][0] < result["sigma_mm"] < result["interval"][1]
    from_stdin = json.loads(ok("skill", "estimate", "--aim", "T20", "-", stdin=path.read_text()))
    assert from_stdin == result


@pytest.mark.parametrize(
    ("aim", "text", "named"),
    [
        ("T20", "T20 S20\nS5 X7 S1\n", "line 2: 'X7' is not a bed"),
        ("T20", "# nothing thrown\n", "no darts"),
        ("T21", "T20\n", "--aim 'T21' is not a bed"),
        ("M", "T20\n", "not a miss"),
    ],
)
def test_bad_skill_input_is_one_line(aim: str, text: str, named: str) -> None:
    assert named in refused("skill", "estimate", "--aim", aim, "-", stdin=text)


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    assert "cannot read" in refused("skill", "estimate", "--aim", "T20", str(tmp_path / "none"))


@pytest.mark.slow
def test_simulate_prints_both_bots_figures() -> None:
    result = json.loads(
        ok("bot", "simulate", "x01", "--level", "9", "--against", "2", "--games", "20", "--json")
    )
    assert (result["game"], result["games"], result["level"], result["against"]) == (
        "x01",
        20,
        9,
        2,
    )
    assert result["win_rate"] >= 0.9 and result["opponent"]["win_rate"] <= 0.1
    assert result["three_dart_average"] > result["opponent"]["three_dart_average"]
    again = ok(
        "bot", "simulate", "x01", "--level", "9", "--against", "2", "--games", "20", "--json"
    )
    assert json.loads(again) == result  # seed 0 by default: the same games


@pytest.mark.slow
def test_simulate_solo_cricket_with_an_option_prints_mpr() -> None:
    result = json.loads(
        ok("bot", "simulate", "cricket", "--level", "6", "--games", "3", "--seed", "4",
           "-o", "mode=no-score", "--json")
    )  # fmt: skip
    assert result["against"] is None and result["win_rate"] == 1.0
    assert 1.0 < result["mpr"] < 5.0 and "three_dart_average" not in result
    text = ok("bot", "simulate", "cricket", "--level", "6", "--games", "3")
    assert "level 6, MPR" in text and "won 100.0%" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("golf", "--level", "3"), "unknown game 'golf'"),
        (("x01", "--level", "11"), "--level '11' must be from 1 to 10"),
        (("x01", "--level", "3", "--against", "x"), "--against 'x' is not a whole number"),
        (("x01", "--level", "3", "--games", "0"), "--games '0' must be from 1"),
        (("x01", "--level", "3", "-o", "start"), "option 'start' is not KEY=VALUE"),
        (("x01", "--level", "3", "-o", "start=7"), "option 'start'"),
        (("killer", "--level", "3"), "Killer needs an opponent"),
        (("domino-cribbage", "--level", "3", "--against", "4"), "played by picking"),
    ],
)
def test_simulate_refuses_bad_input_naming_it(args: tuple[str, ...], message: str) -> None:
    assert message in refused("bot", "simulate", *args)
