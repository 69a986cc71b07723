"""The player card's SVG line chart: a path through every point in time
order, y from 0, labels escaped, and a readable frame without points."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from leaderboard.web.charts import line_chart, nice_ceiling

SVG = "{http://www.w3.org/2000/svg}"
DAY = 86400.0


def coordinates(svg: str) -> list[tuple[float, float]]:
    path = ET.fromstring(svg).find(f"{SVG}path")
    assert path is not None
    return [
        (float(x), float(y)) for x, y in re.findall(r"[ML]([\d.]+),([\d.]+)", path.get("d", ""))
    ]


def test_the_line_joins_the_points_in_time_order_and_higher_is_up() -> None:
    svg = line_chart(
        [(3 * DAY, 60.0), (DAY, 40.0), (2 * DAY, 50.0)], title="X01", y_label="3-dart average"
    )
    points = coordinates(svg)
    assert len(points) == 3
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    assert xs == sorted(xs) and len(set(xs)) == 3
    assert ys[0] > ys[1] > ys[2]  # 40, 50, 60: SVG y grows downwards
    assert len(ET.fromstring(svg).findall(f"{SVG}circle")) == 3


def test_the_axis_starts_at_zero_and_ends_on_a_round_number() -> None:
    svg = line_chart([(DAY, 45.5), (2 * DAY, 61.0)], title="X01", y_label="average")
    ticks = [
        text.text for text in ET.fromstring(svg).iter(f"{SVG}text") if text.get("class") == "tick"
    ]
    assert ticks[0] == "0" and "100" in ticks
    assert [nice_ceiling(v) for v in (0, 0.3, 1, 1.2, 3, 61, 180)] == [1, 0.5, 1, 2, 5, 100, 200]


def test_labels_are_escaped_so_a_player_name_cannot_inject_markup() -> None:
    svg = line_chart([(DAY, 1.0)], title='<script>alert("x")</script>', y_label="a & b")
    assert "<script>" not in svg
    root = ET.fromstring(svg)  # still well-formed XML
    assert root.find(f"{SVG}title") is not None
    assert root.find(f"{SVG}title").text == '<script>alert("x")</script>'  # type: ignore[union-attr]


def test_one_point_is_drawn_as_a_dot_in_the_middle() -> None:
    svg = line_chart([(DAY, 20.0)], title="Cricket", y_label="MPR")
    assert len(coordinates(svg)) == 1
    assert len(ET.fromstring(svg).findall(f"{SVG}circle")) == 1


def test_no_points_gives_a_frame_that_says_so() -> None:
    svg = line_chart([], title="Cricket", y_label="MPR")
    root = ET.fromstring(svg)
    assert root.find(f"{SVG}path") is None
    assert any(text.text == "no games yet" for text in root.iter(f"{SVG}text"))
