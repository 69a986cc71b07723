"""The installed ``oche`` console script, run as a user runs it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.cli import main as cli
from tests.engine.test_registry_options import GAME_IDS
from tests.paths import REPO

OCHE = Path(sys.executable).parent / "oche"

# 301, double out: Ann 180 then 121 out (T20 T11 D14); Bob 60 then 45.
ANN_CHECKS_OUT = """\
# Ann and Bob, 301
T20 T20 T20
S20 S20 S20
T20 T11 D14
"""


def oche(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        check=False,
    )


def ok_json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    state = json.loads(result.stdout)
    assert isinstance(state, dict)
    return state


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.log"
    path.write_text(ANN_CHECKS_OUT, encoding="utf-8")
    return path


def test_the_console_script_is_installed() -> None:
    assert OCHE.is_file()


def check_ann_checked_out(state: dict[str, Any]) -> None:
    assert state["game"] == "x01"
    assert state["options"]["start"] == 301
    assert [p["name"] for p in state["players"]] == ["Ann", "Bob"]
    assert [p["score"] for p in state["players"]] == [0, 241]
    assert state["finished"] is True
    assert state["winner"] == 0
    assert state["result"] == "checkout"


def test_replay_prints_the_final_state_as_json(log_file: Path) -> None:
    # The file last, after the options: how the usage line and most users write it.
    result = oche("replay", "x01", "-p", "Ann", "-p", "Bob", "-o", "start=301", str(log_file))
    check_ann_checked_out(ok_json(result))


def test_replay_with_the_file_before_the_options(log_file: Path) -> None:
    result = oche("replay", "x01", str(log_file), "-p", "Ann", "-p", "Bob", "-o", "start=301")
    check_ann_checked_out(ok_json(result))


def test_replay_prints_exactly_one_json_line(log_file: Path) -> None:
    result = oche("replay", "x01", str(log_file), "-p", "Ann", "-p", "Bob", "-o", "start=301")
    assert result.returncode == 0
    assert result.stdout.endswith("\n")
    assert len(result.stdout.splitlines()) == 1


def test_replay_game_in_progress(tmp_path: Path) -> None:
    path = tmp_path / "partial.log"
    path.write_text("T20 T20 T20\nS20\n", encoding="utf-8")
    state = ok_json(oche("replay", "x01", str(path), "-p", "Ann", "-p", "Bob", "-o", "start=301"))
    assert [p["score"] for p in state["players"]] == [121, 281]
    assert state["finished"] is False
    assert state["current_player"] == 0
    assert state["round"] == 2


def test_replay_reads_stdin_with_dash() -> None:
    result = oche(
        "replay", "x01", "-", "-p", "Ann", "-p", "Bob", "-o", "start=301", stdin=ANN_CHECKS_OUT
    )
    check_ann_checked_out(ok_json(result))


def test_replay_reads_stdin_with_a_dash_after_the_options() -> None:
    result = oche(
        "replay", "x01", "-p", "Ann", "-p", "Bob", "-o", "start=301", "-", stdin=ANN_CHECKS_OUT
    )
    check_ann_checked_out(ok_json(result))


def test_replay_plays_domino_cribbage_where_line_ends_are_not_events() -> None:
    log = "S1 S1 S1 S1 S1 S1 S1 S1\nNEXT NEXT\nS1 S1 S1 NEXT S1\n"  # Go, Go: seed 7's first hand
    state = ok_json(
        oche("replay", "domino-cribbage", "-p", "Ann", "-p", "Bob", "-o", "seed=7", stdin=log)
    )
    assert state["stage"] == "show"
    assert [p["score"] for p in state["players"]] == [13, 6]
    bad = oche(
        "replay", "domino-cribbage", "-o", "seed=7", "-p", "A", "-p", "B", stdin="S1 S1 S9\n"
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert "line 1, 'S9'" in bad.stderr and "1-6" in bad.stderr


def test_replay_reads_stdin_without_a_file_argument() -> None:
    state = ok_json(oche("replay", "x01", "-o", "start=301", stdin=ANN_CHECKS_OUT))
    assert [p["score"] for p in state["players"]] == [0, 241]


def test_replay_is_case_insensitive_and_honours_undo_and_comments() -> None:
    log = "t20 t20 UNDO t19  # Ann\nnext\ns20 s20 s20\n"
    state = ok_json(oche("replay", "x01", "-p", "Ann", "-p", "Bob", "-o", "start=301", stdin=log))
    assert [p["score"] for p in state["players"]] == [301 - 117, 241]


def test_replay_honours_bounce_outs() -> None:
    log = "T20 T20 T20\nM M M\nT20 T7 D20 bounce  # the checkout dart bounced out\nM M M\nD20\n"
    args = ("replay", "x01", "-p", "Ann", "-p", "Bob", "-o", "start=301")
    state = ok_json(oche(*args, stdin=log))
    assert (state["winner"], state["result"]) == (0, "checkout")
    assert state["players"][0]["stats"]["bounce_outs"] == 1
    assert state["players"][0]["stats"]["darts"] == 7


def test_replay_with_awards_prints_each_visits_awards() -> None:
    log = "T20 T20 T20\nSB DB SB\nT19 T19 T19  # Ann\nS1 S1 S1\n"
    result = oche("replay", "x01", "-p", "Ann", "-p", "Bob", "--awards", stdin=log)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "T20 T20 T20  # award: ton-80",
        "SB DB SB  # award: hat-trick",
        "T19 T19 T19  # award: three-in-a-bed",
        "S1 S1 S1  # award: three-in-a-bed",
    ]


def test_pretty_prints_a_scoreboard(log_file: Path) -> None:
    result = oche(
        "replay", "x01", str(log_file), "-p", "Ann", "-p", "Bob", "-o", "start=301", "--pretty"
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Ann" in out
    assert "Bob" in out
    assert "241" in out
    assert "Winner: Ann" in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


def test_pretty_cricket_shows_marks_and_names() -> None:
    result = oche(
        "replay", "cricket", "-p", "Ann", "-p", "Bob", "--pretty", stdin="T20 T20 D20\nS19\n"
    )
    assert result.returncode == 0, result.stderr
    assert "Ann" in result.stdout
    assert "Bob" in result.stdout
    assert "(X)" in result.stdout
    assert "100" in result.stdout
    assert "Winner:" not in result.stdout


@pytest.mark.parametrize(
    ("log", "line", "token"),
    [
        ("T21\n", 1, "T21"),
        ("T20 T20 T20\nS20 X S20\n", 2, "X"),
        ("# comment\n\nS20 S20 S20\nS1 D25\n", 4, "D25"),
    ],
)
def test_bad_token_exits_2_naming_line_and_token(
    tmp_path: Path, log: str, line: int, token: str
) -> None:
    path = tmp_path / "bad.log"
    path.write_text(log, encoding="utf-8")
    result = oche("replay", "x01", str(path), "-p", "Ann", "-p", "Bob")
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"line {line}" in result.stderr
    assert token in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_dart_after_the_game_ended_exits_2_naming_the_line() -> None:
    log = ANN_CHECKS_OUT + "S7\n"  # Ann's checkout was her third dart: the game is closed
    result = oche("replay", "x01", "-p", "Ann", "-p", "Bob", "-o", "start=301", stdin=log)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "line 5" in result.stderr
    assert "S7" in result.stderr


def test_dead_darts_after_a_win_on_the_first_dart_are_accepted() -> None:
    log = "T20 T20 T20\nM\nT19 T20 M\nM\nD2 S5 S5\n"
    state = ok_json(oche("replay", "x01", "-p", "Ann", "-p", "Bob", "-o", "start=301", stdin=log))
    assert state["winner"] == 0
    assert state["players"][0]["score"] == 0
    assert state["visit"] == ["D2", "S5", "S5"]


def test_a_fourth_dart_on_a_line_exits_2_naming_it() -> None:
    result = oche("replay", "x01", "-p", "Ann", "-p", "Bob", stdin="S1 S1\nT20 T20 T20 S19\n")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "line 2" in result.stderr
    assert "'S19'" in result.stderr
    assert "at most three darts" in result.stderr


def test_a_corrected_line_may_hold_more_than_three_tokens() -> None:
    log = "T20 T20 S5 UNDO T20\nS1 NEXT S2 S3\n"
    state = ok_json(oche("replay", "x01", "-p", "Ann", "-p", "Bob", stdin=log))
    assert [p["score"] for p in state["players"]] == [316, 500]
    assert state["current_player"] == 1


def test_undo_with_nothing_thrown_exits_2() -> None:
    result = oche("replay", "cricket", "-p", "Ann", stdin="UNDO\n")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "line 1" in result.stderr
    assert "UNDO" in result.stderr


@pytest.mark.parametrize(
    ("args", "named"),
    [
        pytest.param(("darts-golf",), ("darts-golf", *GAME_IDS), id="unknown game lists the games"),
        pytest.param(
            ("x01", "-o", "legs=3"),
            ("legs", "start", "in", "out", "rounds"),
            id="unknown option lists the options",
        ),
        pytest.param(
            ("x01", "-o", "start=300"),
            ("start", "300", "301", "501", "1001"),
            id="bad option value lists the choices",
        ),
        pytest.param(("x01", "-o", "start"), ("start",), id="option without equals"),
    ],
)
def test_bad_command_line_exits_2_naming_what_was_wrong(
    args: tuple[str, ...], named: tuple[str, ...]
) -> None:
    result = oche("replay", *args, "-p", "Ann", stdin="S20\n")
    assert result.returncode == 2
    assert result.stdout == ""
    for word in named:
        assert word in result.stderr


def test_missing_file_exits_2_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-game.log"
    result = oche("replay", "x01", str(missing), "-p", "Ann")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "no-such-game.log" in result.stderr
    assert "Traceback" not in result.stderr


def test_duplicate_players_exit_2() -> None:
    result = oche("replay", "x01", "-p", "Ann", "-p", "ann", stdin="S20\n")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "ann" in result.stderr


def test_teams_from_the_command_line() -> None:
    log = "T20 M M\nS20 M M\nT19 M M\nS19 M M\nS1 M M\n"
    state = ok_json(
        oche(
            "replay",
            "x01",
            "-t",
            "Reds=Ann,Cy",
            "-t",
            "Blues=Bob,Dee",
            "-o",
            "start=301",
            stdin=log,
        )
    )
    assert [p["name"] for p in state["players"]] == ["Ann", "Cy", "Bob", "Dee"]
    assert state["teams"] == [
        {"name": "Reds", "players": [0, 1]},
        {"name": "Blues", "players": [2, 3]},
    ]
    by_name = {p["name"]: p for p in state["players"]}
    # Reds: Ann T20, Cy T19, Ann S1. Blues: Bob S20, Dee S19.
    assert by_name["Ann"]["score"] == by_name["Cy"]["score"] == 301 - 60 - 57 - 1
    assert by_name["Bob"]["score"] == by_name["Dee"]["score"] == 301 - 20 - 19
    assert by_name["Ann"]["stats"]["visits"] == 2
    assert by_name["Cy"]["stats"]["visits"] == 1
    assert by_name["Dee"]["stats"]["visits"] == 1
    assert state["current_player"] == 2  # Bob: Blues' third visit


LONG_NAME = "Bartholomew Fitzgerald Jr"
"""25 characters: one over the 24 a board takes (``engine.lineup.MAX_NAME_LENGTH``)."""
TOO_LONG = f"player name {LONG_NAME[:24] + '…'!r} is 25 characters long; the limit is 24"


@pytest.mark.parametrize(
    ("args", "stdin", "complaint"),
    [
        pytest.param(("x01", "-p", LONG_NAME), "S20\n", TOO_LONG, id="-p"),
        pytest.param(
            ("x01", "-t", "The Longest Team Name Ever=Ann", "-t", "B=Bob"),
            "S20\n",
            "team name 'The Longest Team Name Ev…' is 26 characters long; the limit is 24",
            id="-t",
        ),
        pytest.param(
            ("-",),
            f'# Oche journal game 1 on board "b": playing\n# game: x01\n'
            f'# players: ["{LONG_NAME}"]\nS20\n',
            TOO_LONG,
            id="an exported log's header",
        ),
        pytest.param(("x01", "-p", "Ann\tB"), "S20\n", "contains a control character", id="tab"),
    ],
)
def test_replay_takes_only_names_a_board_takes(
    args: tuple[str, ...], stdin: str, complaint: str
) -> None:
    """The one name rule (24 characters, no control characters): what the
    daemon and the leaderboard refuse, ``oche replay`` refuses too."""
    result = oche("replay", *args, stdin=stdin)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert complaint in result.stderr, result.stderr


def test_teams_with_a_player_in_no_team_exit_2() -> None:
    result = oche(
        "replay", "x01", "-p", "Ann", "-p", "Bob", "-p", "Cy", "-t", "A=Ann", "-t", "B=Bob"
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Cy" in result.stderr


def test_games_lists_every_game_id() -> None:
    result = oche("games")
    assert result.returncode == 0, result.stderr
    listed = [line.split(":")[0] for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert sorted(listed) == sorted(GAME_IDS)


def test_games_json_describes_the_options() -> None:
    result = oche("games", "--json")
    assert result.returncode == 0, result.stderr
    games = {game["id"]: game for game in json.loads(result.stdout)}
    assert sorted(games) == sorted(GAME_IDS)
    x01_options = {option["name"]: option for option in games["x01"]["options"]}
    assert x01_options["start"]["default"] == 501
    assert 301 in x01_options["start"]["choices"]
    assert x01_options["rounds"]["type"] == "int"


COMMANDS = ["replay", "games", "play", "run", "display", "history", "export", "journal", "books",
            "monitor", "calibrate", "firmware", "udev", "cribbage", "leaderboard", "players",
            "league", "bot", "skill", "operator", "cards", "tournament"]  # fmt: skip


def test_plain_oche_prints_the_command_list() -> None:
    result = oche()
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("usage: oche ")
    lines = result.stdout.splitlines()
    listed = [line.split()[0] for line in lines if line[:4] == "    " and line[4] != " "]
    assert listed == COMMANDS


def test_python_m_firmware_bridge_is_the_oche_command(tmp_path: Path) -> None:
    """``python -m firmware_bridge`` runs ``oche`` (a checkout without the
    console script, or a venv whose bin is not on PATH)."""
    games = subprocess.run(
        [sys.executable, "-m", "firmware_bridge", "games"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert games.returncode == 0, games.stderr
    assert games.stdout == oche("games").stdout
    bad = subprocess.run(
        [sys.executable, "-m", "firmware_bridge", "replay", "darts-golf"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("oche replay: "), bad.stderr


def test_version() -> None:
    result = oche("--version")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"oche {metadata.version('oche')}\n"


LOADED_BY_RUN_HELP = """\
import sys
from firmware_bridge.cli.main import main
try:
    main(["--log-level", "info", "run", "--help"])
except SystemExit:
    pass
loaded = [name for name in sys.modules if name.startswith("firmware_bridge.cli.")]
print(" ".join(sorted(loaded + [name for name in sys.modules if name == "importlib.metadata"])))
"""


def test_a_command_loads_only_its_own_module() -> None:
    """Start-up: ``oche run`` imports none of the other commands' modules (nor
    their dependencies), and the version is looked up only for --version."""
    result = subprocess.run(
        [sys.executable, "-c", LOADED_BY_RUN_HELP],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == [  # after the help
        "firmware_bridge.cli.command_support",
        "firmware_bridge.cli.main",
        "firmware_bridge.cli.run_command",
        "firmware_bridge.cli.scoreboard_text",
    ]


def test_the_top_level_help_lists_every_command_before_or_after_a_command_name() -> None:
    for args in (("--help",), ("--help", "run"), ("--log-level", "debug", "--help")):
        result = oche(*args)
        assert result.returncode == 0, result.stderr
        for command in ("replay", "run", "display", "calibrate", "udev"):
            assert f"    {command} " in result.stdout, (args, command)


def test_oche_demo_is_gone_in_favour_of_play_demo() -> None:
    result = oche("demo")
    assert result.returncode == 2
    assert "invalid choice: 'demo'" in result.stderr
    root = REPO
    users = [root / "README.md", root / "Makefile", *sorted((root / "docs").rglob("*.md"))]
    assert [path.name for path in users if "oche demo" in path.read_text("utf-8")] == []


def parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, by its prog name, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield sub.prog, sub
                yield from parsers(sub)


def test_every_command_and_option_has_help() -> None:
    missing = [
        f"{prog}: description" for prog, sub in parsers(cli._parser()) if not sub.description
    ]
    missing += [
        f"{prog} {action.option_strings[-1]}"
        for prog, sub in parsers(cli._parser())
        for action in sub._actions
        if action.option_strings and not action.help
    ]
    assert missing == []


def test_no_help_text_shows_a_doubled_percent_sign() -> None:
    """argparse formats option help with ``%`` (so ``%%`` there prints one),
    but a description without ``%(prog)`` is printed as written."""
    doubled = [prog for prog, sub in parsers(cli._parser()) if "%%" in sub.format_help()]
    assert doubled == []


def test_play_help_lists_the_keys_and_the_size() -> None:
    result = oche("play", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "Keys: Esc/q quit, f fullscreen, n next, u undo, m miss, + and - volume" in text
    assert "--size WxH window or screenshot size (default 1280x720)" in text


def test_a_broken_export_header_exits_2_naming_its_line() -> None:
    log = '# Oche journal game 1 on board "b": finished\n# game: x01 (X01)\n# players: [Ann\nT20\n'
    result = oche("replay", stdin=log)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("oche replay: line 3, 'players': the header's players are")


def test_replay_without_a_game_or_a_header_exits_2() -> None:
    result = oche("replay", "-p", "Ann", stdin="T20\n")
    assert result.returncode == 2 and result.stdout == ""
    assert "which game?" in result.stderr
    typo = oche("replay", "x02", stdin="T20\n")
    assert typo.returncode == 2
    assert "'x02' is neither a game id (x01, " in typo.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--log-level", "debug", "replay", "x01", "-o", "start=301"],
        ["replay", "--log-level", "WARNING", "x01", "-o", "start=301"],
        ["udev", "print", "--log-level", "error"],  # a command of a command too
    ],
)
def test_log_level_goes_before_or_after_any_command(args: list[str], log_file: Path) -> None:
    result = oche(*args, stdin=log_file.read_text("utf-8"))
    assert result.returncode == 0, result.stderr
    assert "unrecognized" not in result.stderr


@pytest.mark.parametrize(
    "args", [["--log-level", "verbose", "games"], ["games", "--log-level", ""]]
)
def test_a_bad_log_level_is_a_usage_error(args: list[str]) -> None:
    result = oche(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "argument --log-level:" in result.stderr and "is not a log level" in result.stderr
