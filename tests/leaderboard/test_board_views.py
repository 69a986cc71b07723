"""The per-game web views (leaderboard/web/board_views) render every game
from a state played by the engine through the daemon's GameSession: the
players, their scores or marks, whose turn it is (marked and in words), the
visit's darts as 1-based buttons, computer players labelled, the banners;
the TV's card; and the drawn dartboard with every bed named as the engine
writes it, each bed's marker point inside the bed."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from engine import game_ids
from engine.beds import ALL_BEDS, MISS, Bed
from engine.board_geometry import bed_at
from leaderboard.api_models import LiveBoard
from leaderboard.web.board_views import (
    bed_centre,
    board_card_html,
    dartboard_svg,
    registered_views,
    scoreboard_html,
    view_for,
)
from leaderboard.web.board_views.dartboard import BOARD_GEOMETRY
from leaderboard.web.board_views.generic import GenericView
from leaderboard.web.pages import board_columns
from mqtt_contract import StateView
from tests.goldens import iter_cases
from tests.leaderboard.board_states import live_board_state
from tests.leaderboard.html_tree import Element, parse_html
from tests.leaderboard.result_documents import play_session

CPU = {"Bob": 6}


def live(state: dict[str, Any] | None, availability: str = "online") -> LiveBoard:
    return LiveBoard(board="pub", venue="the-pub", availability=availability, state=state)  # type: ignore[arg-type]


def scoreboard(state: dict[str, Any], availability: str = "online") -> Element:
    return parse_html(str(scoreboard_html(live(state, availability))))


def test_every_game_of_the_engine_has_its_own_view() -> None:
    views = registered_views()
    assert set(views) == set(game_ids())
    assert not any(isinstance(view, GenericView) for view in views.values())
    assert isinstance(view_for("darts-golf"), GenericView)


@pytest.mark.parametrize("game_id", game_ids())
def test_each_game_s_scoreboard_shows_its_players_scores_turn_and_darts(game_id: str) -> None:
    state = live_board_state(game_id, cpu=CPU)
    view = StateView.from_json(state)
    tree = scoreboard(state)
    text = tree.text
    (section,) = tree.by_class("bv-scoreboard")
    assert section.attrs["data-game"] == game_id
    assert "Ann" in text
    assert "Bob (CPU 6)" in text  # the computer player, labelled as every screen does
    # whose turn: one element marked current, holding the player's label and the words
    up = view.current_player
    assert up is not None
    current = tree.find_all(lambda e: e.attrs.get("aria-current") == "true")
    assert len(current) == 1
    label = "Bob (CPU 6)" if view.players[up].name == "Bob" else "Ann"
    assert label in current[0].text and "(to throw)" in current[0].text
    (turn,) = tree.by_class("bv-turn")
    assert turn.text == f"{label} to throw"
    # each player's score (or the game's own figure) is shown
    for player in view.players:
        assert player.score is not None
        assert re.search(rf"\b{player.score}\b", text), (player.name, player.score)
    # the visit in progress as buttons, 1-based, only the darts thrown
    buttons = [b for b in tree.by_tag("button") if "dart" in b.classes]
    assert [b.text for b in buttons] == list(view.visit)
    assert [b.attrs["data-dart"] for b in buttons] == [str(n) for n in range(1, len(buttons) + 1)]
    for number, button in enumerate(buttons, start=1):
        assert button.attrs["aria-label"].startswith(f"Dart {number}: ")


def finished_state(game_id: str) -> dict[str, Any]:
    """The state of the first golden game of ``game_id`` that the engine
    plays to its end (tests/golden), as the board publishes it."""
    for case in iter_cases():
        if case.game == game_id:
            game = case.replay()
            if game.is_finished:
                return {**game.state(), "phase": "finished"}
    raise AssertionError(f"no golden game of {game_id} is finished")


@pytest.mark.parametrize("game_id", game_ids())
def test_each_game_s_finished_scoreboard_names_the_winner(game_id: str) -> None:
    state = finished_state(game_id)
    view = StateView.from_json(state)
    tree = scoreboard(state)
    (banner,) = tree.by_class("bv-banner-finished")
    if view.winner is not None:
        assert str(view.players[view.winner].name) in banner.text
    assert not tree.find_all(lambda e: e.attrs.get("aria-current") == "true")


def test_a_dart_button_says_the_dart_in_words() -> None:
    state = live_board_state("x01")
    state["visit"] = ["T20", "SB"]  # two darts of the visit in progress
    tree = scoreboard(state)
    buttons = [b for b in tree.by_tag("button") if "dart" in b.classes]
    assert [
        (b.attrs["data-dart"], b.attrs["data-bed"], b.attrs["aria-label"]) for b in buttons
    ] == [
        ("1", "T20", "Dart 1: treble 20"),
        ("2", "SB", "Dart 2: outer bull"),
    ]


def test_in_takeout_the_visit_just_thrown_is_on_the_board_with_a_banner() -> None:
    state = live_board_state("x01", stop_in_takeout=True)
    view = StateView.from_json(state)
    assert view.phase is not None and view.phase.value == "takeout" and not view.visit
    assert view.last_visit is not None
    tree = scoreboard(state)
    assert tree.by_class("bv-banner-takeout")
    buttons = [b for b in tree.by_tag("button") if "dart" in b.classes]
    assert [b.text for b in buttons] == list(view.last_visit.darts)


def test_cricket_shows_marks_the_pub_way_and_greys_closed_targets() -> None:
    state = live_board_state("cricket", darts=30)
    view = StateView.from_json(state)
    tree = scoreboard(state)
    symbols = {0: "", 1: "/", 2: "X", 3: "⊗"}
    rows = {
        row.attrs["data-target"]: row for row in tree.by_tag("tr") if "data-target" in row.attrs
    }
    assert list(rows) == ["20", "19", "18", "17", "16", "15", "bull"]
    assert any(view.players[0].mark(key) for key in rows), "the game made marks"
    for key, row in rows.items():
        cells = row.by_tag("td")
        marks = [min(3, player.mark(key)) for player in view.players]
        assert [cell.text for cell in cells] == [symbols[m] for m in marks]
        assert ("closed" in row.classes) is all(m == 3 for m in marks)


def test_the_tv_card_shows_cricket_marks_cpu_labels_and_whose_turn() -> None:
    state = live_board_state("cricket", darts=30, cpu=CPU)
    view = StateView.from_json(state)
    card = parse_html(str(board_card_html(live(state))))
    (article,) = card.by_tag("article")
    assert article.classes == {"board", "online"}
    assert "Pub board" in article.text
    names = [li.by_class("name")[0].text for li in article.by_tag("li")]
    assert names[1].startswith("Bob (CPU 6)")
    up = [li for li in article.by_tag("li") if "throwing" in li.classes]
    assert len(up) == 1 and "(to throw)" in up[0].text
    (marks,) = card.by_class("card-marks")
    body_rows = [tr for tr in marks.by_tag("tr") if tr.by_tag("td")]
    assert len(body_rows) == len(view.players)
    for player, row in zip(view.players, body_rows, strict=True):
        assert [td.text for td in row.by_tag("td")] == [
            ["", "/", "X", "⊗"][min(3, player.mark(key))]
            for key in ("20", "19", "18", "17", "16", "15", "bull")
        ]


def test_an_offline_board_and_a_free_board_say_so() -> None:
    tree = scoreboard(live_board_state("killer"), availability="offline")
    assert "offline" in tree.by_class("bv-banner-offline")[0].text
    idle = parse_html(str(scoreboard_html(live({"game": None, "phase": "idle"}))))
    assert "Free" in idle.text
    card = parse_html(str(board_card_html(live(None, "unknown"))))
    assert "Free" in card.text


def test_a_game_without_a_view_gets_the_generic_one_with_every_key() -> None:
    state = live_board_state("x01")
    state["game"] = "darts-golf"
    for number, player in enumerate(state["players"]):
        player["handicap"] = 3 + number
    tree = scoreboard(state)
    text = tree.text
    assert "handicap" in text and "Darts Golf" in text
    assert "Ann" in text and "Bob" in text


def test_a_team_game_names_each_player_s_team() -> None:
    teams = {"Reds": ["Ann", "Cat"], "Blues": ["Bob", "Dan"]}
    state = live_board_state("x01", players=("Ann", "Bob", "Cat", "Dan"), teams=teams)
    text = scoreboard(state).text
    assert "Ann (Reds)" in text and "Dan (Blues)" in text


def test_a_remote_match_says_where_the_player_throws_and_whom_it_waits_for() -> None:
    state = live_board_state("x01", board="pub")
    boards = [
        {"board": "oche/pub", "name": "Pub board", "online": True, "joined": True, "applied": 0},
        {"board": "oche/club", "name": "Club", "online": False, "joined": True, "applied": 3},
    ]
    remote = {"match": "m1", "role": "host", "host": "oche/pub", "boards": boards}
    state["remote"] = {**remote, "throwing_at": "oche/club", "waiting": []}
    assert (
        "Remote match: throwing at Club" in scoreboard(state).by_class("bv-banner-remote")[0].text
    )
    state["remote"] = {**remote, "throwing_at": None, "waiting": ["oche/club"]}
    state["phase"] = "waiting-remote"
    assert scoreboard(state).by_class("bv-banner-waiting")[0].text == "Waiting for Club"


@pytest.mark.parametrize(("boards", "columns"), [(1, 1), (2, 2), (4, 2), (6, 3), (12, 4), (40, 6)])
def test_the_tv_grid_is_about_as_wide_as_it_is_tall(boards: int, columns: int) -> None:
    assert board_columns(boards) == columns


def test_names_and_keys_are_escaped() -> None:
    state = live_board_state("x01")
    state["players"][0]["name"] = "<b>Ann</b>"
    html = str(scoreboard_html(live(state)))
    assert "<b>Ann" not in html and "&lt;b&gt;Ann" in html


# ----------------------------------------------------------------- dartboard


def test_the_dartboard_has_all_82_beds_named_in_the_engine_s_notation() -> None:
    svg = parse_html(str(dartboard_svg()))
    paths = [p for p in svg.by_tag("path") if "data-bed" in p.attrs]
    assert len(paths) == 82
    notations = [p.attrs["data-bed"] for p in paths]
    beds = {bed.notation for bed in ALL_BEDS if bed != MISS}
    assert set(notations) == beds  # 62 beds: the singles have two pieces each
    for notation in beds:
        assert notations.count(notation) == (
            2 if notation.startswith("S") and notation != "SB" else 1
        )
    for path in paths:
        assert path.attrs["role"] == "button" and path.attrs["tabindex"] == "0"
        assert path.attrs["aria-label"]
    assert svg.by_class("markers") and svg.by_class("markers")[0].children == []
    labels = {p.attrs["data-bed"]: p.attrs["aria-label"] for p in paths}
    assert (labels["T19"], labels["D20"], labels["SB"], labels["DB"]) == (
        "Treble 19",
        "Double 20",
        "Outer bull",
        "Bullseye",
    )


def test_each_bed_s_marker_point_is_inside_that_bed() -> None:
    svg = parse_html(str(dartboard_svg()))
    for path in (p for p in svg.by_tag("path") if "data-bed" in p.attrs):
        notation = path.attrs["data-bed"]
        x, y = float(path.attrs["data-x"]), float(path.attrs["data-y"])
        assert (x, y) == bed_centre(notation)
        assert bed_at(x, -y, BOARD_GEOMETRY) == Bed.parse(notation)  # SVG y points down


def test_the_numbers_go_round_in_the_board_s_order() -> None:
    svg = parse_html(str(dartboard_svg()))
    texts = svg.by_class("numbers")[0].by_tag("text")
    assert [int(t.text) for t in texts] == list(BOARD_GEOMETRY.numbers)
    top = texts[0]
    assert math.isclose(float(top.attrs["x"]), 0.0, abs_tol=0.01) and float(top.attrs["y"]) < 0


def test_the_last_visit_line_names_its_awards() -> None:
    """The state's ``last_visit.awards`` (T20 T20 T20 played through the
    daemon's session): the scoreboard's last-visit line says TON 80!, so a
    page opened after the award's event still shows it."""
    state = play_session("x01", ["T20 T20 T20"], options={"start": 501}).state()
    assert state["last_visit"]["awards"] == ["ton-80"]
    (line,) = scoreboard(state).by_class("bv-last")
    assert line.text == "Last visit: Ann: T20 T20 T20 (180) · TON 80!"
    state["last_visit"]["awards"] = []
    (line,) = scoreboard(state).by_class("bv-last")
    assert line.text == "Last visit: Ann: T20 T20 T20 (180)"


def test_the_visit_that_ended_the_game_shows_its_awards_on_the_scoreboard_and_the_card() -> None:
    """Ann's 121 out (T20 T7 D20, a Low Ton) ends the game: it stays the visit
    on the board, its awards the state's ``visit_awards``."""
    moves = ["T20 T20 T20", "S20 S5 S1", "T20 T7 D20"]
    state = play_session("x01", moves, options={"start": 301}).state()
    assert state["visit"] == ["T20", "T7", "D20"] and state["visit_awards"] == ["low-ton"]
    (awards,) = scoreboard(state).by_class("bv-visit-awards")
    assert awards.text == "LOW TON"
    card = parse_html(str(board_card_html(live(state))))
    (award,) = card.by_class("award")
    assert award.text == "LOW TON"
    state["visit_awards"] = []
    assert not scoreboard(state).by_class("bv-visit-awards")


def test_count_up_grid_shows_each_round_the_total_and_the_ppd() -> None:
    from engine import new_game
    from engine.game_log import replay_log

    game = replay_log(new_game("count-up", ["Ann", "Bob"]), "T20 SB DB\nS20 S1 M\n")
    tree = scoreboard({**game.state(), "phase": "playing"})
    (table,) = tree.by_class("bv-line")
    rows = [[cell.text.strip() for cell in row.children] for row in table.by_tag("tr")]
    assert rows[0][-2:] == ["Total", "PPD"]
    assert rows[1][1:2] == ["160"] and rows[1][-2:] == ["160", "53.33"]
    assert rows[2][1:2] == ["21"] and rows[2][-2:] == ["21", "7.00"]
    assert "SB and DB 50" in tree.text and "fat bull" in tree.text


def test_cricket_count_up_grid_shows_marks_mpr_and_the_thrower_s_targets() -> None:
    from engine import new_game
    from engine.game_log import replay_log

    game = replay_log(new_game("cricket-count-up", ["Ann", "Bob"]), "T20 D19 S18\nSB DB M\n")
    tree = scoreboard({**game.state(), "phase": "playing"})
    (table,) = tree.by_class("bv-line")
    rows = [[cell.text.strip() for cell in row.children] for row in table.by_tag("tr")]
    assert rows[0][-2:] == ["Total", "MPR"]
    assert rows[1][-2:] == ["6", "6.00"] and rows[2][-2:] == ["3", "3.00"]
    assert "20:3 19:2 18:1 17:0 16:0 15:0 Bull:0" in tree.text


def test_the_x01_and_cricket_views_show_each_handicap() -> None:
    """Issue #26: the board page shows a handicap on the player's card."""
    x01 = live_board_state("x01", options={"handicaps": "501,401"})
    assert "from 401" in scoreboard(x01).text and "from 501" in scoreboard(x01).text
    cricket = live_board_state("cricket", options={"handicaps": "-,20:3 bull:2"})
    assert "spot 20:3 bull:2" in scoreboard(cricket).text


def test_the_tv_card_shows_each_handicap() -> None:
    state = live_board_state("x01", options={"handicaps": "501,401"})
    card = parse_html(str(board_card_html(live(state))))
    assert "from 401" in card.text
