"""Typed, read-only views of a ``state`` payload: what a client reads of it.

:meth:`StateView.from_json` parses one state document (the ``state`` topic's
payload, :data:`TOPICS["state"].schema <mqtt_contract.TOPICS>`; docs/state.md)
once into frozen dataclasses: the board, the phase, every player with the
parts each game adds (X01's ``opened`` and ``checkout``, the cricket
family's ``marks``, Killer's ``lives``, a Domino Cribbage hand, a skill
test's report, ...), and the daemon's additions (credits, journal, a remote
match, computer players). Clients then read attributes, never string keys.

Parsing is lenient the way a scoreboard must be: a key that is missing or of
the wrong type (an older or a newer daemon's state, a hand-made one in a
test) reads as its default (``None``, ``0``, empty), never as an error, so
a display shows what it can of any state. The daemon's blocks (``board``,
``journal``, ``credits``, ``remote``, a player's ``cpu``) are the contract's
typed classes (``state_payload``), which are their schema too, read by
``json_types``' lenient :meth:`~mqtt_contract.JsonObject.read`; the game's
parts, which the engine's schema describes, are read here by hand, the same
way, until the engine's state is typed. Each part is always present (a
game's part holds its defaults in another game's state), so a reader needs
no ``None`` checks for the parts themselves. The keys a game adds that no
view names stay readable, in order, as ``extras`` (the generic scoreboard
shows them). ``from_json`` does not validate against the schema (a display
shows what it can rather than nothing); tests/test_mqtt_contract_state_views.py
checks that every state the engine and the daemon publish is valid and
parses to what it says. This module does no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.errors import UnknownGameError
from engine.games.killer import KILLER_KEY
from engine.registry import game_class
from mqtt_contract.json_types import JsonObject
from mqtt_contract.match_payload import CallView, MatchView
from mqtt_contract.state_payload import (
    BoardView,
    CpuView,
    CreditsView,
    JournalView,
    RemoteBoard,
    RemoteView,
)
from mqtt_contract.topic_names import Phase

__all__ = [
    "BoardView",
    "CheckoutAdvice",
    "CountedTiles",
    "CpuView",
    "CreditsView",
    "CribbagePlay",
    "CribbagePlayer",
    "CribbageScoring",
    "CribbageTable",
    "JournalView",
    "LastVisit",
    "PlayerView",
    "RemoteBoard",
    "RemoteView",
    "SkillReport",
    "StateView",
    "StatsView",
    "TeamView",
    "TilePlay",
]

_COMMON_PLAYER_KEYS = frozenset({"name", "score", "team", "out", "stats"})
"""The keys every game's players share (the rest are the game's own)."""


# ------------------------------------------------------------ lenient reads


def _int(value: Any) -> int | None:
    """An integer, or ``None`` for anything else (bools too)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    """A number (an int or a float, not a bool) as a float, or ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str | None:
    """A string, or ``None``."""
    return value if isinstance(value, str) else None


def _map(value: Any) -> Mapping[str, Any]:
    """An object, or an empty one."""
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> Sequence[Any]:
    """An array, or an empty one."""
    return value if isinstance(value, list | tuple) else ()


def _strings(value: Any) -> tuple[str, ...]:
    """An array's items as text (darts, tiles, boards)."""
    return tuple(str(item) for item in _list(value))


def _ints(value: Any) -> tuple[int, ...]:
    """An array's integer items."""
    return tuple(item for item in (_int(v) for v in _list(value)) if item is not None)


V = TypeVar("V", bound=JsonObject)


def _views(view: type[V], value: Any) -> tuple[V, ...]:
    """An array's objects, each read leniently as ``view`` (other items skipped)."""
    return tuple(view.read(item) for item in _list(value) if isinstance(item, Mapping))


def _counts(value: Any) -> tuple[tuple[str, int], ...]:
    """An object of counts (marks, beds) as ``(key, count)`` pairs, in order."""
    return tuple((str(key), _int(count) or 0) for key, count in _map(value).items())


# -------------------------------------------------------------- the parts


@dataclass(frozen=True)
class StatsView:
    """One thrower's ``stats``: the shared figures, each game's own (``None``
    when the game does not keep it), and every figure in order (``items``)."""

    present: bool = False
    """The player has a ``stats`` object at all."""
    darts: int = 0
    visits: int = 0
    items: tuple[tuple[str, Any], ...] = ()
    """Every figure as ``(key, value)``, in the state's order."""
    average: float | None = None
    mpr: float | None = None
    marks: int | None = None
    hits: int | None = None
    points: int | None = None
    points_per_visit: float | None = None
    fives: int | None = None
    busts: int | None = None
    runs: int | None = None
    wickets_taken: int | None = None
    lives_taken: int | None = None
    legs_lost: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> StatsView:
        stats = _map(data)
        return cls(
            present=isinstance(data, Mapping),
            darts=_int(stats.get("darts")) or 0,
            visits=_int(stats.get("visits")) or 0,
            items=tuple((str(key), value) for key, value in stats.items()),
            average=_number(stats.get("average")),
            mpr=_number(stats.get("mpr")),
            marks=_int(stats.get("marks")),
            hits=_int(stats.get("hits")),
            points=_int(stats.get("points")),
            points_per_visit=_number(stats.get("points_per_visit")),
            fives=_int(stats.get("fives")),
            busts=_int(stats.get("busts")),
            runs=_int(stats.get("runs")),
            wickets_taken=_int(stats.get("wickets_taken")),
            lives_taken=_int(stats.get("lives_taken")),
            legs_lost=_int(stats.get("legs_lost")),
        )


@dataclass(frozen=True, slots=True)
class CheckoutAdvice(JsonObject):
    """A skill report's advice for one finish."""

    score: int | None = None
    aim: str = ""
    route: tuple[str, ...] = ()
    finishes: bool = False


@dataclass(frozen=True)
class SkillReport:
    """A skill-test player's report (``skill``), once the player is done."""

    sigma_mm: float = 0.0
    interval: tuple[float, float] | None = None
    level: int | None = None
    best_aim_bed: str | None = None
    """The bed of the best scoring aim, if the report has one."""
    best_aim_mm: tuple[float, float] | None = None
    """The best aim's point (``x_mm``, ``y_mm``), if the report gives it."""
    best_average: float | None = None
    checkouts: tuple[CheckoutAdvice, ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> SkillReport | None:
        if not isinstance(data, Mapping) or _number(data.get("sigma_mm")) is None:
            return None
        numbers = [_number(v) for v in _list(data.get("interval"))]
        low_high = [n for n in numbers if n is not None]
        best = data.get("best_aim")
        best_bed: str | None = None
        best_mm: tuple[float, float] | None = None
        if isinstance(best, Mapping):
            best_bed = str(best["bed"]) if best.get("bed") else None
            x, y = _number(best.get("x_mm")), _number(best.get("y_mm"))
            best_mm = (x, y) if x is not None and y is not None else None
        return cls(
            sigma_mm=float(data["sigma_mm"]),
            interval=(low_high[0], low_high[1]) if len(low_high) == len(numbers) == 2 else None,
            level=_int(data.get("level")),
            best_aim_bed=best_bed,
            best_aim_mm=best_mm,
            best_average=_number(data.get("best_average")),
            checkouts=tuple(
                CheckoutAdvice.read(advice)
                for advice in _list(data.get("checkouts"))
                if isinstance(advice, Mapping)
            ),
        )


@dataclass(frozen=True)
class CribbagePlayer:
    """A Domino Cribbage player's part: the hand and the pegging."""

    hand: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    previous_score: int = 0
    go: bool = False
    computer: bool = False


@dataclass(frozen=True)
class PlayerView:
    """One thrower: the keys every game shares, then each game's part (its
    defaults in another game's state)."""

    index: int
    name: str | None = None
    score: int | None = None
    team: int | None = None
    out: bool = False
    stats: StatsView = field(default_factory=StatsView)
    cpu: CpuView | None = None
    """The computer player's level, ``None`` for a person."""
    board: str | None = None
    """In a remote match, the board the player throws at (``base/board``)."""
    extras: tuple[tuple[str, Any], ...] = ()
    """The keys the game adds (every key but the shared ones), in order."""
    # X01
    opened: bool = True
    checkout: tuple[str, ...] | None = None
    """The engine's checkout hint, ``None`` without one."""
    has_checkout: bool = False
    """The state carries ``checkout`` at all (an older daemon's does not)."""
    start: int | None = None
    """X01 with handicaps: the points the player started from; else ``None``."""
    # the cricket family
    marks: tuple[tuple[str, int], ...] = ()
    marks_after_visit: tuple[tuple[str, int], ...] = ()
    spot_marks: tuple[tuple[str, int], ...] = ()
    """Cricket with handicaps: the marks the player was given before the first dart."""
    # Killer, Legs
    number: int | None = None
    lives: int | None = None
    killer: bool = False
    to_beat: int | None = None
    # the number games (Around the World, Shanghai, 51 by Fives, the skill test)
    target: str | None = None
    """The target, as text (``"16"``, ``"DB"``), ``None`` without one."""
    target_number: int | None = None
    """The target when it is a number (``16``), else ``None``."""
    # Baseball
    innings_runs: tuple[int, ...] = ()
    # Count-Up, Cricket Count-Up
    round_scores: tuple[int, ...] = ()
    """Each round's points (Count-Up) or marks (Cricket Count-Up, ``round_marks``)."""
    target_marks: tuple[tuple[str, int], ...] = ()
    """Cricket Count-Up's marks per target (no limit: nothing closes)."""
    # English Cricket
    batting: bool = False
    # the skill test
    beds: tuple[tuple[str, int], ...] = ()
    skill: SkillReport | None = None
    # Domino Cribbage
    cribbage: CribbagePlayer = field(default_factory=CribbagePlayer)

    @classmethod
    def from_json(cls, index: int, data: Any) -> PlayerView:
        player = _map(data)
        target = player.get("target")
        return cls(
            index=index,
            name=None if player.get("name") is None else str(player["name"]),
            score=_int(player.get("score")),
            team=_int(player.get("team")),
            out=bool(player.get("out")),
            stats=StatsView.from_json(player.get("stats")),
            cpu=CpuView.read(player["cpu"]) if isinstance(player.get("cpu"), Mapping) else None,
            board=_text(player.get("board")),
            extras=tuple(
                (str(key), value) for key, value in player.items() if key not in _COMMON_PLAYER_KEYS
            ),
            opened=bool(player.get("opened", True)),
            checkout=_strings(player["checkout"])
            if isinstance(player.get("checkout"), list)
            else None,
            has_checkout="checkout" in player,
            start=_int(player.get("start")),
            marks=_counts(player.get("marks")),
            marks_after_visit=_counts(player.get("marks_after_visit")),
            spot_marks=_counts(player.get("spot_marks")),
            number=_int(player.get("number")),
            lives=_int(player.get("lives")),
            killer=bool(player.get(KILLER_KEY)),
            to_beat=_int(player.get("to_beat")),
            target=None if target is None or target == "" else str(target),
            target_number=_int(target),
            innings_runs=_ints(player.get("innings_runs")),
            round_scores=_ints(player.get("round_scores", player.get("round_marks"))),
            target_marks=_counts(player.get("target_marks")),
            batting=bool(player.get("batting")),
            beds=_counts(player.get("beds")),
            skill=SkillReport.from_json(player.get("skill")),
            cribbage=CribbagePlayer(
                hand=_strings(player.get("hand")),
                kept=_strings(player.get("kept")),
                previous_score=_int(player.get("previous_score")) or 0,
                go=bool(player.get("go")),
                computer=bool(player.get("computer")),
            ),
        )

    def mark(self, target: str) -> int:
        """The marks on ``target`` (``"20"``, ``"bull"``): 0 without any."""
        return dict(self.marks).get(target, 0)


@dataclass(frozen=True, slots=True)
class TeamView(JsonObject):
    """A team: its name and its players' indices, in throwing order."""

    name: str = ""
    players: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LastVisit(JsonObject):
    """The visit that ended last."""

    player: int | None = None
    darts: tuple[str, ...] = ()
    visit_over: str | None = None
    awards: tuple[str, ...] = ()
    """Its awards' ids (docs/awards.md), e.g. ``("ton-80",)``."""


@dataclass(frozen=True, slots=True)
class CribbageScoring(JsonObject):
    """A line of a Domino Cribbage score sheet: who scored, how much, why."""

    player: int | None = None
    points: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class CountedTiles:
    """A counted hand or crib of the show."""

    player: int | None = None
    what: str = ""
    tiles: tuple[str, ...] = ()
    total: int | None = None
    fifteens: int | None = None
    """The points of the fifteens, ``None`` when the count does not say."""
    pairs: int | None = None
    runs: int | None = None


@dataclass(frozen=True, slots=True)
class TilePlay(JsonObject):
    """A tile on the count: who laid it."""

    player: int | None = None
    tile: str = ""


@dataclass(frozen=True, slots=True)
class CribbagePlay(JsonObject):
    """A tile played, with the points it pegged."""

    player: int | None = None
    tile: str = ""
    points: int = 0
    count: int | None = None


@dataclass(frozen=True)
class CribbageTable:
    """Domino Cribbage's table: the deal, the count and the show."""

    stage: str | None = None
    dealer: int | None = None
    target: int | None = None
    starter: str | None = None
    crib: tuple[str, ...] = ()
    count: int = 0
    count_tiles: tuple[TilePlay, ...] = ()
    played: tuple[CribbagePlay, ...] = ()
    to_discard: int = 0
    scoring: tuple[CribbageScoring, ...] = ()
    counts: tuple[CountedTiles, ...] = ()

    @classmethod
    def from_json(cls, state: Mapping[str, Any]) -> CribbageTable:
        return cls(
            stage=_text(state.get("stage")),
            dealer=_int(state.get("dealer")),
            target=_int(state.get("target")),
            starter=_text(state.get("starter")),
            crib=_strings(state.get("crib")),
            count=_int(state.get("count")) or 0,
            count_tiles=_views(TilePlay, state.get("count_tiles")),
            played=_views(CribbagePlay, state.get("played")),
            to_discard=_int(state.get("to_discard")) or 0,
            scoring=_views(CribbageScoring, state.get("scoring")),
            counts=tuple(
                CountedTiles(
                    player=_int(c.get("player")),
                    what=str(c.get("what") or ""),
                    tiles=_strings(c.get("tiles")),
                    total=_int(c.get("total")),
                    fifteens=_int(_map(c.get("fifteens")).get("points")),
                    pairs=_int(_map(c.get("pairs")).get("points")),
                    runs=_int(_map(c.get("runs")).get("points")),
                )
                for c in _list(state.get("counts"))
                if isinstance(c, Mapping)
            ),
        )


# --------------------------------------------------------------- the state


@dataclass(frozen=True)
class StateView:
    """A whole ``state`` payload, parsed once (:meth:`from_json`)."""

    phase: Phase | None = None
    """The board's phase; ``None`` for a state without a known one."""
    game: str | None = None
    """The game id; ``None`` in phase ``idle``."""
    options: tuple[tuple[str, Any], ...] = ()
    """Every option of the game with its value, in order."""
    has_options: bool = False
    """The state carries an ``options`` object at all."""
    players: tuple[PlayerView, ...] = ()
    teams: tuple[TeamView, ...] | None = None
    current_player: int | None = None
    round: int | None = None
    visit: tuple[str, ...] = ()
    visit_over: str | None = None
    last_visit: LastVisit | None = None
    visit_awards: tuple[str, ...] = ()
    """The awards of ``visit`` once it ended the game (docs/awards.md)."""
    finished: bool = False
    winner: int | None = None
    winner_team: int | None = None
    result: str | None = None
    board: BoardView = field(default_factory=BoardView)
    journal: JournalView = field(default_factory=JournalView)
    credits: CreditsView = field(default_factory=CreditsView)
    remote: RemoteView = field(default_factory=RemoteView)
    match: MatchView = field(default_factory=MatchView)
    """The match being played (docs/matches.md); ``present`` false for one game."""
    call: CallView = field(default_factory=CallView)
    """A match the venue's service called to the board, waiting to start."""
    hand: int | None = None
    """The hand in progress, in a game of hands (Domino Cribbage)."""
    cribbage: CribbageTable = field(default_factory=CribbageTable)
    innings: int | None = None
    """English Cricket: the innings (1 or 2)."""
    wickets: int | None = None
    """English Cricket: the wickets left to the bowling side this innings."""

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> StateView:
        """The view of one state document (a parsed ``state`` payload)."""
        phase_text = document.get("phase")
        phase = next((p for p in Phase if p.value == phase_text), None)
        teams = document.get("teams")
        last = document.get("last_visit")
        options = document.get("options")
        return cls(
            phase=phase,
            game=str(document["game"]) if document.get("game") else None,
            options=tuple((str(k), v) for k, v in _map(options).items()),
            has_options=isinstance(options, Mapping),
            players=tuple(
                PlayerView.from_json(index, player)
                for index, player in enumerate(_list(document.get("players")))
            ),
            teams=_views(TeamView, teams) if isinstance(teams, list) else None,
            current_player=_int(document.get("current_player")),
            round=_int(document.get("round")),
            visit=_strings(document.get("visit")),
            visit_over=None
            if document.get("visit_over") is None
            else str(document.get("visit_over")),
            last_visit=LastVisit.read(last) if isinstance(last, Mapping) else None,
            visit_awards=_strings(document.get("visit_awards")),
            finished=bool(document.get("finished")),
            winner=_int(document.get("winner")),
            winner_team=_int(document.get("winner_team")),
            result=None if document.get("result") is None else str(document.get("result")),
            board=BoardView.read(document.get("board")),
            journal=JournalView.read(document.get("journal")),
            credits=CreditsView.read(document.get("credits")),
            remote=RemoteView.read(document.get("remote")),
            match=MatchView.read(document.get("match")),
            call=CallView.read(document.get("call")),
            hand=_int(document.get("hand")),
            cribbage=CribbageTable.from_json(document),
            innings=_int(document.get("innings")),
            wickets=_int(document.get("wickets")),
        )

    def option(self, name: str) -> Any:
        """The state's value of option ``name``, or ``None`` without one."""
        return dict(self.options).get(name)

    def game_option(self, name: str) -> Any:
        """Option ``name`` of the state's game: the state's value, else the
        engine's default for the game (``None`` for an option it does not have)."""
        value = self.option(name)
        if value is not None:
            return value
        try:
            spec = game_class(self.game or "").options_spec
        except UnknownGameError:
            return None
        return next((option.default for option in spec if option.name == name), None)

    def player(self, index: int | None) -> PlayerView | None:
        """Player ``index``, or ``None`` for no such player."""
        if index is None or not 0 <= index < len(self.players):
            return None
        return self.players[index]

    def team(self, index: int | None) -> TeamView | None:
        """Team ``index``, or ``None`` for no such team (or no teams)."""
        if self.teams is None or index is None or not 0 <= index < len(self.teams):
            return None
        return self.teams[index]
