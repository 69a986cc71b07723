"""X01 (301 to 1001): count down from the start to exactly zero."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from engine.awards import Award
from engine.beds import Bed
from engine.checkout_routes import RouteTable
from engine.errors import OptionError
from engine.game import DARTS_PER_VISIT, Game, Reason, VisitOver
from engine.handicap import HANDICAPS_OPTION, NO_HANDICAPS, HandicapError, parse_handicaps
from engine.options import Option
from engine.registry import register
from engine.schema_parts import (
    BED_NOTATION_PATTERN,
    NON_NEGATIVE_INT,
    NON_NEGATIVE_NUMBER,
    every_player,
)
from engine.solves import solved
from engine.traits import THREE_DART_AVERAGE, AwardFigure, Family, Highlight, Measure
from engine.x01_rules import ALLOWED_MULTIPLIERS, BULL_RULES, FAT_BULL, RING_RULES, as_scored

__all__ = [
    "CHECKOUT_SIGMA_RANGE",
    "X01",
    "parse_checkout_sigmas",
]

CHECKOUT_SIGMA_RANGE = (1.0, 400.0)
"""The spreads (mm) ``checkout_sigma_mm`` takes: the throw model's narrowest
(``engine.throw_model.MIN_SIGMA_MM``) to the widest estimate
(``engine.skill_estimate.MAX_ESTIMATE_MM``)."""

_NO_SIGMA = "none"
_COUNTERS = (
    "first9_points",
    "first9_darts",
    "checkouts",
    "checkout_darts",
    "highest_checkout",
    "count_100",
    "count_140",
    "count_180",
)
"""A player's counters a match's statistics are made of (not in the state)."""
_FIRST_NINE_VISITS = 3
_TONS = ((180, "count_180"), (140, "count_140"), (100, "count_100"))
_MAX_CHECKOUT = 170
_NINE_DARTS = 9
_NINE_DARTER_START = 501
"""A nine-darter is 501 checked out in nine darts (docs/awards.md)."""
_HIGHEST_START = 1001
"""The highest start a player's handicap may give (the game's own highest)."""


def parse_checkout_sigmas(text: str, players: int) -> tuple[float | None, ...]:
    """Each player's sigma (mm) from the ``checkout_sigma_mm`` option: ``none``
    (the fixed table for all), one number for every player, or one item per
    player in the order given, comma-separated (``none`` for a player on the
    table). Anything else is an OptionError naming it."""
    items = [item.strip().lower() for item in text.split(",")]
    if len(items) not in (1, players):
        raise OptionError(
            f"option 'checkout_sigma_mm': {text!r} has {len(items)} values; give one for "
            f"everyone or one per player ({players})"
        )
    low, high = CHECKOUT_SIGMA_RANGE
    sigmas: list[float | None] = []
    for item in items:
        if item in (_NO_SIGMA, ""):
            sigmas.append(None)
            continue
        try:
            sigma = float(item)
        except ValueError:
            sigma = float("nan")
        if not low <= sigma <= high:  # also refuses nan
            raise OptionError(
                f"option 'checkout_sigma_mm': {item!r} is not a spread in mm from {low:g} "
                f"to {high:g} (or none)"
            )
        sigmas.append(sigma)
    return tuple(sigmas * players if len(sigmas) == 1 else sigmas)


X01_PLAYER_SCHEMA: dict[str, Any] = {
    "properties": {
        "score": {"description": "Points still to score.", "minimum": 0},
        "start": {
            "description": "Only in a game with handicaps: the points this player started "
            "from (docs/games/x01.md, Handicaps).",
            "type": "integer",
            "minimum": 1,
        },
        "opened": {"description": "The side has scored its opening dart.", "type": "boolean"},
        "checkout": {
            "description": "The suggested darts to finish in the player's visit (the "
            "current player's darts left, 3 for the others), or null.",
            "oneOf": [
                {"type": "null"},
                {
                    "type": "array",
                    "items": {"type": "string", "pattern": BED_NOTATION_PATTERN},
                    "minItems": 1,
                    "maxItems": DARTS_PER_VISIT,
                },
            ],
        },
        "stats": {
            "properties": {
                "points": NON_NEGATIVE_INT,
                "points_per_dart": NON_NEGATIVE_NUMBER,
                "average": NON_NEGATIVE_NUMBER,
            },
            "required": ["points", "points_per_dart", "average"],
        },
    },
    "required": ["opened"],
}


@register
class X01(Game):
    """Each side counts down from ``start``; reaching exactly zero with the
    required finishing dart wins, anything else that passes zero busts."""

    id = "x01"
    highlight = Highlight("highest checkout", Measure.HIGHEST_CHECKOUT)
    average = THREE_DART_AVERAGE
    family = Family.COUNTDOWN
    award_figure = AwardFigure.POINTS
    round_limit_option = "rounds"
    calls_visit_points = True
    stat_ratios: ClassVar[Mapping[str, tuple[str, str, float]]] = {
        "points_per_dart": ("points", "darts", 1),
        "average": ("points", "darts", 3),
        "first9_average": ("first9_points", "first9_darts", 3),
        "checkout_percent": ("checkouts", "checkout_darts", 100),
    }
    stat_bests: ClassVar[frozenset[str]] = frozenset({"highest_checkout"})
    name = "X01"
    summary = "Count down from 301-1001 to exactly zero; double out by default."
    state_schema: ClassVar[dict[str, Any]] = every_player({"$ref": "#/$defs/x01_player"})
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {"x01_player": X01_PLAYER_SCHEMA}
    options_spec = (
        Option("start", 501, "points each side starts from", (301, 401, 501, 601, 701, 901, 1001)),
        Option("in", "straight", "dart that opens scoring", RING_RULES),
        Option("out", "double", "dart that may finish", RING_RULES),
        Option("bull", "split", "split: outer bull 25, inner 50; fat: both 50", BULL_RULES),
        Option("rounds", 0, "round limit, lowest score wins when it runs out (0: none)", minimum=0),
        Option(
            "checkout_sigma_mm",
            _NO_SIGMA,
            "checkout hints for this spread in mm (one, or one per player: 25,40); none: the table",
            offered=False,
        ),
        Option(
            HANDICAPS_OPTION,
            NO_HANDICAPS,
            "each player's own start, comma-separated (501,401; - for the game's start)",
            offered=False,
        ),
    )

    def _setup(self) -> None:
        self._starts = self._side_starts()
        sides = len(self._sides)
        self._score = list(self._starts)
        self._opened = [self.options["in"] == "straight"] * sides
        self._in_ok = ALLOWED_MULTIPLIERS[str(self.options["in"])]
        self._out_ok = ALLOWED_MULTIPLIERS[str(self.options["out"])]
        self._one_busts = self.options["out"] != "straight"
        self._bull = str(self.options["bull"])
        self._visit_points = 0
        self._points = [0] * len(self.lineup.players)
        self._sigmas = parse_checkout_sigmas(
            str(self.options["checkout_sigma_mm"]), len(self.lineup.players)
        )
        players = len(self.lineup.players)
        self._counters = [dict.fromkeys(_COUNTERS, 0) for _ in range(players)]
        self._visit_start = self._starts[self._side]
        self._visit_live_darts = 0

    def _side_starts(self) -> tuple[int, ...]:
        """Each side's start: the game's, or a player's own from ``handicaps``
        (a start from which the game can be finished, up to 1001; not in teams)."""
        start = int(self.options["start"])
        text = str(self.options[HANDICAPS_OPTION])
        handicaps = parse_handicaps(text, len(self.lineup.players))
        self._handicapped = text != NO_HANDICAPS
        if self._handicapped and self.lineup.teams:
            raise HandicapError("handicaps are per player: a team game takes none")
        lowest = 1 if self.options["out"] == "straight" else 2
        for name, handicap in zip(self.lineup.players, handicaps, strict=True):
            if handicap.marks:
                raise HandicapError(
                    f"{name!r}: X01 takes a start as a handicap, not spot marks ({handicap})"
                )
            if handicap.start is not None and not lowest <= handicap.start <= _HIGHEST_START:
                raise HandicapError(
                    f"{name!r}: a start of {handicap.start} cannot be played; "
                    f"a start is {lowest} to {_HIGHEST_START} with {self.options['out']} out"
                )
        own = [handicap.start for handicap in handicaps]
        return tuple(own[members[0]] or start for members in self._sides)

    def _on_dart(self, bed: Bed) -> None:
        side = self._side
        bed = as_scored(bed, self._bull)
        self._count_dart()
        if not self._opened[side]:
            if bed.multiplier not in self._in_ok:
                return
            self._opened[side] = True
        points = bed.points
        left = self._score[side] - points
        if (
            left < 0
            or (left == 1 and self._one_busts)
            or (left == 0 and bed.multiplier not in self._out_ok)
        ):
            self._score[side] += self._visit_points
            self._points[self._player] -= self._visit_points
            self._visit_points = 0
            self._end_visit_early(VisitOver.BUST)
            return
        self._score[side] = left
        self._visit_points += points
        self._points[self._player] += points
        if left == 0:
            counters = self._counters[self._player]
            counters["checkouts"] += 1
            counters["highest_checkout"] = max(counters["highest_checkout"], self._visit_start)
            self._count_visit()
            self._finish(side, Reason.CHECKOUT)

    def _visit_figure(self) -> int:
        return self._visit_points

    def _own_awards(self) -> Iterable[Award]:
        """A nine-darter: the thrower's side checked 501 out with its ninth dart."""
        outcome, side = self._outcome, self._side
        if outcome is None or outcome.reason != Reason.CHECKOUT:
            return ()
        members = self._sides[side]
        darts = sum(self._darts[player] for player in members)
        scored = sum(self._points[player] for player in members)
        return (Award.NINE_DARTER,) if darts == _NINE_DARTS and scored == _NINE_DARTER_START else ()

    def _on_visit_end(self) -> None:
        self._visit_points = 0
        self._count_visit()

    def _count_dart(self) -> None:
        """A live dart for the match's figures: a dart at a finish when one
        dart could check the score out (as the leaderboard counts it)."""
        from engine.checkout import checkout

        score = self._score[self._side]
        if not self._visit_live_darts:
            self._visit_start = score
        self._visit_live_darts += 1
        if checkout(score, 1, str(self.options["out"]), self._bull) is not None:
            self._counters[self._player]["checkout_darts"] += 1

    def _count_visit(self) -> None:
        """The visit's points for the first nine darts and the 100+/140+/180 counts."""
        counters = self._counters[self._player]
        points = self._visit_start - self._score[self._side]
        if self._visits[self._player] <= _FIRST_NINE_VISITS:
            counters["first9_points"] += points
            counters["first9_darts"] += self._visit_live_darts
        band = next((key for floor, key in _TONS if points >= floor), None)
        if band is not None:
            counters[band] += 1
        self._visit_live_darts = 0

    def _match_counters(self, player: int) -> dict[str, Any]:
        return dict(self._counters[player])

    def _on_round_limit(self) -> None:
        live = [s for s in range(len(self._sides)) if not self._out[s]]
        best = min(self._score[s] for s in live)
        leaders = [s for s in live if self._score[s] == best]
        self._finish(leaders[0] if len(leaders) == 1 else None, Reason.ROUND_LIMIT)

    def _side_state(self, side: int) -> dict[str, Any]:
        state: dict[str, Any] = {"score": self._score[side], "opened": self._opened[side]}
        if self._handicapped:
            state["start"] = self._starts[side]
        return state

    def state(self) -> dict[str, Any]:
        """The shared state plus each player's ``checkout`` hint."""
        state = super().state()
        for player, line in enumerate(state["players"]):
            line["checkout"] = self._checkout(player)
        return state

    def _checkout(self, player: int) -> list[str] | None:
        """The darts that finish for ``player``: from the fixed table
        (``engine.checkout``), or from the X01 plan for their
        ``checkout_sigma_mm``, in the visit in progress (the current player)
        or their next one."""
        side = self._side_of[player]
        score = self._score[side]
        if self._outcome is not None or not self._opened[side] or score > _MAX_CHECKOUT:
            return None
        current = player == self._player
        if current and not self._visit_live:
            return None
        darts = DARTS_PER_VISIT - len(self._visit) if current else DARTS_PER_VISIT
        out = str(self.options["out"])
        sigma = self._sigmas[player]
        if sigma is None or self._bull == FAT_BULL:  # the plans are solved for the split bull
            from engine.checkout import checkout

            route = checkout(score, darts, out, self._bull)
        else:
            table = solved(("checkout-routes", sigma, out), _checkout_routes, sigma, out)
            if table is None:
                return None  # being solved elsewhere (a state built in engine.solves.deferring)
            start = score + self._visit_points if current else score
            planned = table.route(score, darts, start)
            finished = planned is not None and sum(bed.points for bed in planned) == score
            route = planned if finished else None
        return [bed.notation for bed in route] if route else None

    def _player_stats(self, player: int) -> dict[str, Any]:
        darts = self._darts[player]
        points = self._points[player]
        ppd = round(points / darts, 2) if darts else 0.0
        return {
            "points": points,
            "points_per_dart": ppd,
            "average": round(3 * points / darts, 2) if darts else 0.0,
        }


def _checkout_routes(sigma_mm: float, out: str) -> RouteTable:
    """The routes of the X01 plan for ``sigma_mm`` (``engine.strategy.x01``,
    numpy: not imported here), the checkout hints' source: a slow solve,
    whose value (plain bytes) another process may send back."""
    from engine.checkout_plan import plan_for, route_table  # numpy: only with a sigma

    return route_table(plan_for(sigma_mm, out), out)
