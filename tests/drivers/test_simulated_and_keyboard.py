"""The simulated board (scripts for tests and demos) and the keyboard source,
driven through the same async interface every driver has."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers.board_events import (
    BoardEvent,
    ButtonEvent,
    CoinEvent,
    ConnectedEvent,
    ErrorEvent,
    HitEvent,
)
from drivers.keyboard import KeyboardSource
from drivers.matrix_map import parse_map
from drivers.simulated import ScriptError, SimulatedSource, parse_script
from drivers.source import BoardSource
from engine import Bed

OCHE = Path(sys.executable).parent / "oche"


async def collect(source: BoardSource, timeout: float = 5.0) -> list[BoardEvent]:
    async def drain() -> list[BoardEvent]:
        return [event async for event in source]

    return await asyncio.wait_for(drain(), timeout)


async def test_a_script_plays_darts_buttons_and_pauses_in_order() -> None:
    source = SimulatedSource("T20 +0.2 button:NEXT sb m")
    started = time.monotonic()
    events = await collect(source)
    assert time.monotonic() - started >= 0.2
    assert events == [
        ConnectedEvent("simulated"),
        HitEvent(Bed.parse("T20")),
        ButtonEvent("next"),
        HitEvent(Bed.parse("SB")),
        HitEvent(Bed.parse("M")),
    ]


async def test_hits_carry_the_cell_from_a_map() -> None:
    matrix = parse_map('[board]\nrows = 2\ncols = 2\n[cells]\n"1,1" = "T20"\n')
    events = await collect(SimulatedSource("T20 S5", matrix=matrix))
    assert events[1:] == [HitEvent(Bed.parse("T20"), 1, 1), HitEvent(Bed.parse("S5"))]


def test_per_dart_delay_applies_to_darts_and_buttons() -> None:
    steps = parse_script("S1 button:undo +2", delay=0.5)
    assert [step.pause for step in steps] == [0.5, 0.5, 2.0]


async def test_a_script_inserts_coins_on_either_input() -> None:
    events = await collect(SimulatedSource("coin:1 T20 COIN:2 coin:1"))
    assert events == [
        ConnectedEvent("simulated"),
        CoinEvent(1),
        HitEvent(Bed.parse("T20")),
        CoinEvent(2),
        CoinEvent(1),
    ]
    assert CoinEvent(1).to_json() == {"type": "coin", "input": 1, "count": None, "boot": None}


@pytest.mark.parametrize("token", ["coin:", "coin:0", "coin:3", "coin:x", "coin:01x"])
def test_a_bad_coin_token_is_named_with_the_inputs(token: str) -> None:
    with pytest.raises(ScriptError, match=rf"'{token}': a coin is coin:N, N from 1 to 2"):
        parse_script(f"S1 {token}")


@pytest.mark.parametrize("token", ["T21", "+abc", "+-1", "button:", "hello"])
def test_a_bad_script_token_is_named(token: str) -> None:
    with pytest.raises(ScriptError, match=repr(token).replace("+", r"\+")):
        parse_script(f"S1 {token} S2")


async def test_hold_open_keeps_the_source_until_closed() -> None:
    source = SimulatedSource("S1", hold_open=True)
    seen: list[BoardEvent] = []

    async def read() -> None:
        async for event in source:
            seen.append(event)

    reader = asyncio.create_task(read())
    await asyncio.sleep(0.1)
    assert not reader.done()
    await source.close()
    await asyncio.wait_for(reader, 2)
    assert seen == [ConnectedEvent("simulated"), HitEvent(Bed.parse("S1"))]


async def test_keyboard_reads_darts_and_buttons_from_a_pipe() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as stream:
        source = KeyboardSource(stream)
        os.write(write_fd, b"t20 NEXT\nundo bogus db\n")
        os.close(write_fd)
        events = await collect(source)
    assert events[:5] == [
        ConnectedEvent("keyboard"),
        HitEvent(Bed.parse("T20")),
        ButtonEvent("next"),
        ButtonEvent("undo"),
        events[4],
    ]
    assert isinstance(events[4], ErrorEvent) and "'bogus'" in events[4].message
    assert events[5:] == [HitEvent(Bed.parse("DB"))]


async def test_keyboard_c_is_a_coin_on_input_1() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as stream:
        source = KeyboardSource(stream)
        os.write(write_fd, b"c C t20\nc2\n")
        os.close(write_fd)
        events = await collect(source)
    assert events[:4] == [ConnectedEvent("keyboard"), CoinEvent(1), CoinEvent(1), events[3]]
    assert events[3] == HitEvent(Bed.parse("T20"))
    assert isinstance(events[4], ErrorEvent) and "c (a coin)" in events[4].message


def test_oche_monitor_prints_a_scripted_coin() -> None:
    result = subprocess.run(
        [str(OCHE), "monitor", "--driver", "simulated", "--script", "coin:2"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == {
        "type": "coin",
        "input": 2,
        "count": None,
        "boot": None,
    }


def test_oche_monitor_prints_one_json_object_per_event() -> None:
    result = subprocess.run(
        [str(OCHE), "monitor", "--driver", "simulated", "--script", "T20 button:next M"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines == [
        {"type": "connected", "source": "simulated"},
        {"type": "hit", "segment": "T20", "row": None, "col": None},
        {"type": "button", "button": "next"},
        {"type": "hit", "segment": "M", "row": None, "col": None},
    ]


def test_oche_monitor_names_a_bad_script_token_and_exits_2() -> None:
    result = subprocess.run(
        [str(OCHE), "monitor", "--driver", "simulated", "--script", "T20 Q7"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 2
    assert "'Q7'" in result.stderr
    assert result.stdout == ""


def test_oche_monitor_serial_without_a_port_is_a_usage_error() -> None:
    result = subprocess.run(
        [str(OCHE), "monitor"], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 2
    assert "port" in result.stderr


def test_oche_monitor_keyboard_reads_a_file_or_dev_null_on_stdin(tmp_path: Path) -> None:
    typed = tmp_path / "typed.txt"
    typed.write_text("t20 next\nsb", "utf-8")
    for stdin in (typed, Path(os.devnull)):
        with stdin.open("rb") as handle:
            result = subprocess.run(
                [str(OCHE), "monitor", "--driver", "keyboard"],
                stdin=handle,
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        types = [json.loads(line)["type"] for line in result.stdout.splitlines()]
        expected = ["connected", "hit", "button", "hit"] if stdin == typed else ["connected"]
        assert types == expected
