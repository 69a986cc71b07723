"""Golden game files: a log in, the expected (partial) state out.

Each ``tests/golden/<game id>/<case>.json`` holds ``players``, optional
``teams`` ({name: [members]}) and ``options``, the ``log`` as a list of lines
(the ``oche replay`` format), a ``source`` (seed section or rule) and
``expect``: the parts of the final state JSON the case is about.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import Game, new_game
from engine.game_log import replay_log

GOLDEN_DIR = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class GoldenCase:
    path: Path
    game: str
    players: list[str]
    teams: dict[str, list[str]] | None
    options: dict[str, Any]
    log: str
    source: str
    expect: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.game}/{self.path.stem}"

    def replay(self) -> Game:
        return replay_log(new_game(self.game, self.players, self.options, self.teams), self.log)


def iter_cases() -> Iterator[GoldenCase]:
    for path in sorted(GOLDEN_DIR.glob("*/*.json")):
        data = json.loads(path.read_text("utf-8"))
        yield GoldenCase(
            path=path,
            game=path.parent.name,
            players=data["players"],
            teams=data.get("teams"),
            options=data.get("options", {}),
            log="".join(line + "\n" for line in data["log"]),
            source=data["source"],
            expect=data["expect"],
        )


def mismatches(expected: Any, actual: Any, where: str = "state") -> list[str]:
    """Where ``actual`` differs from ``expected``: dicts match on the expected
    keys only, lists must have the same length, everything else must be equal."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        found: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}.{key}: missing")
            else:
                found += mismatches(value, actual[key], f"{where}.{key}")
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {expected!r}, got {actual!r}"]
        found = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found += mismatches(e, a, f"{where}[{i}]")
        return found
    if expected != actual or type(expected) is not type(actual):
        return [f"{where}: expected {expected!r}, got {actual!r}"]
    return []


MATCH_GOLDEN = GOLDEN_DIR / "matches.json"
"""Golden matches: a game played as a match (tests/engine/test_match_golden.py)."""


@dataclass(frozen=True)
class MatchCase:
    """One golden match: the game, players, options and format, the flat
    events, and the expected final state, legs and match statistics."""

    name: str
    source: str
    game: str
    players: list[str]
    options: dict[str, Any]
    match: dict[str, Any]
    events: str
    expect: dict[str, Any]
    legs: list[dict[str, Any]]
    stats: list[dict[str, Any]]


def iter_match_cases() -> Iterator[MatchCase]:
    data = json.loads(MATCH_GOLDEN.read_text("utf-8"))
    for case in data["cases"]:
        yield MatchCase(
            name=case["name"],
            source=case["source"],
            game=case["game"],
            players=case["players"],
            options=case.get("options", {}),
            match=case["match"],
            events=" ".join(case["events"]),
            expect=case["expect"],
            legs=case["legs"],
            stats=case["stats"],
        )
