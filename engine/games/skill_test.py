"""Skill Test (practice, #13): each player throws a set number of darts at one
bed; at the end the state shows their throw spread sigma, level, best aim and
the checkout routes that suit them (docs/games/skill-test.md).

The estimate needs numpy (:mod:`engine.skill_report`). This module does not
import it: :meth:`SkillTest._skill` imports the report module the first
time a player's darts are all thrown, so ``import engine`` and a daemon that
never plays a skill test load no numpy. The report is a slow solve
(:mod:`engine.solves`): a state built while deferring has ``skill: null``
(and no estimate in ``stats``) until it is solved.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.beds import DB, Bed
from engine.errors import NotationError, OptionError
from engine.game import DARTS_PER_VISIT, Game, Reason, VisitOver
from engine.options import Option
from engine.registry import register
from engine.schema_parts import (
    BED_NOTATION_PATTERN,
    NON_NEGATIVE_INT,
    NON_NEGATIVE_NUMBER,
    every_player,
)
from engine.solves import solved
from engine.traits import Highlight, Measure

__all__ = ["DARTS_THROWN", "GEOMETRY_NAMES", "SKILL_TEST_PLAYER_SCHEMA", "SkillTest", "target_bed"]

DARTS_THROWN = VisitOver.DARTS_THROWN
"""The visit over: the player has thrown all their darts (later darts are dead)."""

GEOMETRY_NAMES = ("steel", "soft")
"""The boards the estimate can be measured on (``engine.board_geometry.GEOMETRIES``)."""


def target_bed(text: str) -> Bed:
    """The bed the ``target`` option names: ``bull`` (the centre, ``DB``) or any
    bed's notation but the miss; anything else is an OptionError naming it."""
    word = text.strip().lower()
    if word == "bull":
        return DB
    try:
        bed = Bed.parse(word)
    except NotationError:
        bed = None
    if bed is None or bed.is_miss:
        raise OptionError(
            f"option 'target': {text!r} is not a bed to aim at: "
            "bull, or S1-S20, D1-D20, T1-T20, SB, DB"
        )
    return bed


_AIM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "x_mm": {"type": "number"},
        "y_mm": {"type": "number"},
        "bed": {"type": "string", "pattern": BED_NOTATION_PATTERN},
        "expected": NON_NEGATIVE_NUMBER,
    },
    "required": ["x_mm", "y_mm", "bed", "expected"],
}

_SKILL_SCHEMA: dict[str, Any] = {
    "description": "The estimate from the player's darts, once all are thrown.",
    "type": "object",
    "properties": {
        "sigma_mm": {"description": "Throw spread (mm), maximum likelihood.", "type": "number"},
        "darts": NON_NEGATIVE_INT,
        "interval": {
            "description": "95% likelihood-ratio interval of sigma_mm.",
            "type": "array",
            "items": NON_NEGATIVE_NUMBER,
            "minItems": 2,
            "maxItems": 2,
        },
        "level": {"description": "The bot level that throws alike.", "type": "integer"},
        "geometry": {"enum": list(GEOMETRY_NAMES)},
        "best_aim": {**_AIM_SCHEMA, "description": "Most expected points per dart."},
        "best_average": NON_NEGATIVE_NUMBER,
        "checkouts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "score": {"type": "integer", "minimum": 2},
                    "aim": {
                        "description": "The bed under the plan's first aim.",
                        "type": "string",
                        "pattern": BED_NOTATION_PATTERN,
                    },
                    "aim_mm": {
                        "description": "The plan's first aim point (x, y) in mm.",
                        "type": "array",
                        "items": {"type": "number"},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    "route": {
                        "type": "array",
                        "items": {"type": "string", "pattern": BED_NOTATION_PATTERN},
                        "maxItems": DARTS_PER_VISIT,
                    },
                    "finishes": {"type": "boolean"},
                    "table": {
                        "description": "The fixed table's route (engine.checkout).",
                        "type": "array",
                        "items": {"type": "string", "pattern": BED_NOTATION_PATTERN},
                        "maxItems": DARTS_PER_VISIT,
                    },
                    "expected_darts": NON_NEGATIVE_NUMBER,
                },
                "required": [
                    "score",
                    "aim",
                    "aim_mm",
                    "route",
                    "finishes",
                    "table",
                    "expected_darts",
                ],
            },
        },
    },
    "required": [
        "sigma_mm",
        "darts",
        "interval",
        "level",
        "geometry",
        "best_aim",
        "best_average",
        "checkouts",
    ],
}

SKILL_TEST_PLAYER_SCHEMA: dict[str, Any] = {
    "properties": {
        "score": {"description": "Darts in the target bed.", "minimum": 0},
        "target": {"type": "string", "pattern": BED_NOTATION_PATTERN},
        "remaining": {"description": "Darts still to throw.", **NON_NEGATIVE_INT},
        "beds": {
            "description": "Live darts by the bed they hit.",
            "type": "object",
            "propertyNames": {"pattern": BED_NOTATION_PATTERN},
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "skill": {"oneOf": [{"type": "null"}, _SKILL_SCHEMA]},
        "stats": {
            "properties": {
                "hits": NON_NEGATIVE_INT,
                "hit_rate": NON_NEGATIVE_NUMBER,
                "sigma_mm": {"description": "skill.sigma_mm, once done.", "type": "number"},
                "sigma_low": {"description": "skill.interval[0], once done.", "type": "number"},
                "sigma_high": {"description": "skill.interval[1], once done.", "type": "number"},
                "level": {"description": "skill.level, once done.", "type": "integer"},
            },
            "required": ["hits", "hit_rate"],
        },
    },
    "required": ["target", "remaining", "beds", "skill"],
}


@register
class SkillTest(Game):
    """Each player throws ``darts`` darts at ``target``, visits of three as
    usual; a player who has thrown them all is passed over. When everyone has,
    the game ends: most darts in the target wins (a tie is a draw). Alone it
    is a practice, not a win: it ends ``practice-complete`` with no winner."""

    id = "skill-test"
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {"hit_rate": ("hits", "darts", 1)}
    highlight = Highlight("smallest spread (mm)", Measure.STAT, "sigma_mm", higher_is_better=False)
    name = "Skill Test"
    summary = "Practice: darts at one bed measure your spread, level, best aim and finishes."
    teams_allowed = False
    state_schema: ClassVar[dict[str, Any]] = every_player({"$ref": "#/$defs/skill_test_player"})
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {
        "skill_test_player": SKILL_TEST_PLAYER_SCHEMA
    }
    options_spec = (
        Option("target", "t20", "the bed to aim at: bull, or a bed such as T20, T19, D16, SB"),
        Option("darts", 30, "darts each player throws at the target", minimum=3, maximum=999),
        Option(
            "geometry",
            "soft",
            "the board the estimate is measured on: soft (the soft-tip board the bots "
            "throw at by default) or steel",
            GEOMETRY_NAMES,
        ),
    )

    def _setup(self) -> None:
        self._target = target_bed(str(self.options["target"]))
        self._quota = int(self.options["darts"])
        players = len(self.lineup.players)
        self._hits = [0] * players
        self._beds: list[Counter[Bed]] = [Counter() for _ in range(players)]
        self._done = [False] * len(self._sides)

    def _on_dart(self, bed: Bed) -> None:
        player = self._player
        self._beds[player][bed] += 1
        if bed == self._target:
            self._hits[player] += 1
        if self._darts[player] < self._quota:
            return
        self._done[self._side] = True
        if all(self._done) and len(self._hits) == 1:
            self._finish(None, Reason.PRACTICE_COMPLETE)  # alone: nothing to win
        elif all(self._done):
            best = max(self._hits)
            leaders = [p for p, hits in enumerate(self._hits) if hits == best]
            self._finish(leaders[0] if len(leaders) == 1 else None, Reason.DARTS_THROWN)
        elif len(self._visit) < DARTS_PER_VISIT:
            self._end_visit_early(DARTS_THROWN)

    def _next_side(self, current: int) -> int:
        count = len(self._sides)
        for step in range(1, count + 1):
            side = (current + step) % count
            if not self._done[side]:
                return side
        return current  # not reached: the game ends when every side is done

    def score(self, player: int) -> int:
        """Darts in the target (read without building the side's report)."""
        return self._hits[player]

    def _side_state(self, side: int) -> dict[str, Any]:
        player = self._sides[side][0]  # no teams: one player a side
        beds = self._beds[player]
        return {
            "score": self._hits[player],
            "target": self._target.notation,
            "remaining": max(0, self._quota - self._darts[player]),
            "beds": {bed.notation: beds[bed] for bed in sorted(beds, key=_bed_order)},
            "skill": self._skill(player) if self._done[side] else None,
        }

    def _skill(self, player: int) -> dict[str, Any] | None:
        """The player's report; ``None`` while it is being solved elsewhere
        (a state built in :func:`engine.solves.deferring`)."""
        target, geometry = self._target, str(self.options["geometry"])
        hits = tuple(self._beds[player].elements())  # as they are now: solved maybe later
        beds = tuple(sorted((bed.notation, n) for bed, n in self._beds[player].items()))
        found = solved(("skill-report", target, beds, geometry), _report, target, hits, geometry)
        return None if found is None else copy.deepcopy(found)

    def _player_stats(self, player: int) -> dict[str, Any]:
        """Hits and hit rate; once the player is done also the estimate's
        figures, which the daemon's result document carries (it keeps only
        each player's name, team, score and stats)."""
        darts = self._darts[player]
        hits = self._hits[player]
        stats: dict[str, Any] = {"hits": hits, "hit_rate": round(hits / darts, 2) if darts else 0.0}
        skill = self._skill(player) if self._done[self._side_of[player]] else None
        if skill is not None:
            low, high = skill["interval"]
            stats |= {
                "sigma_mm": skill["sigma_mm"],
                "sigma_low": low,
                "sigma_high": high,
                "level": skill["level"],
            }
        return stats


def _report(target: Bed, hits: tuple[Bed, ...], geometry: str) -> dict[str, Any]:
    """The report for ``hits`` (a slow solve, :mod:`engine.solves`)."""
    from engine.skill_report import skill_report  # numpy: only once a test is done

    return skill_report(target, hits, geometry)


def _bed_order(bed: Bed) -> tuple[int, int]:
    """Beds listed by number, then ring (a miss first, the bulls last)."""
    return (bed.number, bed.multiplier)
