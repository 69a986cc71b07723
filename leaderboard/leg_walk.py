"""One game replayed, walked visit by visit: each player's figures
(:class:`PlayerLine`, the table of :mod:`leaderboard.figures`), the visits for
a result's breakdown, the highlight and the places; and a match's players'
figures over its legs. Pure: :mod:`leaderboard.scoring` checks a result
against its log, then walks each game (each leg of a match) here to count."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import (
    X01,
    Bed,
    Cricket,
    EndVisit,
    Game,
    PickingGame,
    Reason,
    VisitOver,
    as_thrown,
    checkout,
)
from engine.game import DARTS_PER_VISIT
from engine.traits import Family, Highlight, Measure
from leaderboard.figures import LINE_FIGURES, Aggregate, award_column
from leaderboard.match_tally import MatchTally

__all__ = ["PlayerLine", "VisitLine", "Walk", "match_lines", "player_lines", "walk_game"]


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """One player's figures in one result, replayed from its log."""

    index: int
    name: str
    team: int | None
    score: int
    won: bool
    placement: int
    darts: int
    highlight: float | None
    figures: dict[str, int | None] = field(default_factory=dict)
    """The player's figure of each of :data:`leaderboard.figures.LINE_FIGURES`,
    by its column (0, or None for a best, in a game that does not count it)."""
    board: str | None = None
    """Only in a remote match: where the player threw, ``base/board`` as the
    result gives it (None: at the result's own board)."""
    cpu_level: int | None = None
    """A computer player's level (its ``cpu`` in the result); None for a person."""
    player_id: int | None = None
    """The roster id the board joined the player with (the result's
    ``player_id``); None for a guest, a computer player, or an older board."""


@dataclass(frozen=True, slots=True)
class VisitLine:
    """One visit of the replay, for a result's breakdown."""

    player: int
    darts: tuple[str, ...]
    points: int
    marks: int
    bust: bool
    score_after: int
    leg: int = 1
    """The match's leg it was thrown in (1 in a single game)."""


# ------------------------------------------------------------------ the walk


_COUNTS = tuple(str(f.column) for f in LINE_FIGURES if f.aggregate is Aggregate.SUM)
_BESTS = tuple(str(f.column) for f in LINE_FIGURES if f.aggregate is not Aggregate.SUM)


@dataclass(slots=True)
class _Tally:
    """One player's running figures while the effective events are walked:
    ``counts`` and ``bests`` hold the figures of the table
    (:data:`leaderboard.figures.LINE_FIGURES`), the rest the walk's own."""

    darts: int = 0
    visits: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_COUNTS, 0))
    bests: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(_BESTS))
    best_visit_marks: int | None = None
    best_visit_points: int | None = None
    best_visit_total: int | None = None


@dataclass(slots=True)
class _Visit:
    """The visit being walked: who throws, what the score stood at before it."""

    player: int
    score_before: int
    scores_before: list[int]
    marks_before: int
    darts: list[str] = field(default_factory=list)
    live_darts: int = 0
    total: int = 0


@dataclass(slots=True)
class Walk:
    """What walking a finished game gave: per-player tallies, the visits, the
    engine's final state and when each side went out (``out_at``: side -> the
    number of events pushed by then)."""

    game: Game
    tallies: list[_Tally]
    visits: list[VisitLine]
    final: dict[str, Any]
    out_at: dict[int, int]


def _is_x01(game: Game) -> bool:
    return game.family is Family.COUNTDOWN


def _is_cricket(game: Game) -> bool:
    return game.family is Family.MARKS


class _Walker:
    """Pushes a log's effective events into a fresh game one by one and counts
    what each visit did. X01 reads only ``Game.score`` (cheap); the Cricket
    family reads the engine's state once a visit (marks, scores); the other
    games once a dart (scores, and who is out, placed in dart order)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.x01 = _is_x01(game)
        self.cricket = _is_cricket(game)
        self.counts_points = game.family is Family.POINTS
        self.cut_throat = isinstance(game, Cricket) and game.options["mode"] == "cut-throat"
        self.out_rule = str(game.options["out"]) if self.x01 else ""
        self.bull_rule = str(game.options.get("bull", "split"))
        count = len(game.lineup.players)
        self.tallies = [_Tally() for _ in range(count)]
        self.visits: list[VisitLine] = []
        self.out_at: dict[int, int] = {}
        self.snapshot: dict[str, Any] | None = None if self.x01 else game.state()
        self.visit: _Visit | None = None
        self.per_dart = not (self.x01 or self.cricket)
        self.moment = 0

    # -- snapshots of the non-X01 games

    def _scores(self) -> list[int]:
        if self.snapshot is None:
            return [self.game.score(p) for p in range(len(self.tallies))]
        return [int(player["score"]) for player in self.snapshot["players"]]

    def _marks(self, player: int) -> int:
        if self.snapshot is None or not self.cricket:
            return 0
        return int(self.snapshot["players"][player]["stats"]["marks"])

    def _take_snapshot(self) -> None:
        if self.x01:
            return
        self.snapshot = self.game.state()
        for player, entry in enumerate(self.snapshot["players"]):
            side = entry["team"] if entry["team"] is not None else player
            if entry["out"] and side not in self.out_at:
                self.out_at[side] = self.moment

    # -- visits

    def _open(self) -> _Visit:
        player = self.game.current_player
        scores = self._scores()
        self.visit = _Visit(player, scores[player], scores, self._marks(player))
        return self.visit

    def dart(self, bed: Bed) -> None:
        game = self.game
        visit = self.visit or self._open()
        live = game.visit_over is None and not game.is_finished
        if live:
            visit.live_darts += 1
            visit.total += bed.points
            if (
                self.x01
                and checkout(game.score(visit.player), 1, self.out_rule, self.bull_rule) is not None
            ):
                self.tallies[visit.player].counts["checkout_darts"] += 1
        game.dart(bed)
        self._count_awards()
        self.moment += 1
        visit.darts.append(bed.notation)
        if len(visit.darts) == DARTS_PER_VISIT:
            self._close(visit)
        elif self.per_dart:
            self._take_snapshot()

    def end_visit(self) -> None:
        self.game.end_visit()
        self._count_awards()
        if self.visit is not None:
            self._close(self.visit)

    def _count_awards(self) -> None:
        """Count the awards of the visit the last event settled (closed it, or
        ended the game on it), as the engine finds them (``Game.awarded``)."""
        awarded = self.game.awarded
        if awarded is None:
            return
        counts = self.tallies[awarded.player].counts
        for award in awarded.awards:
            counts[award_column(award)] += 1

    def finish(self) -> Walk:
        """The walk's figures, once every event is pushed."""
        if self.visit is not None:  # the game ended inside its last visit
            self._close(self.visit)
        final = self.snapshot if self.snapshot is not None else self.game.state()
        return Walk(self.game, self.tallies, self.visits, final, self.out_at)

    def _close(self, visit: _Visit) -> None:
        game = self.game
        self.visit = None
        self._take_snapshot()
        over = game.visit_over if game.is_finished else _last_over(game)
        player = visit.player
        score_after = self._scores()[player]
        tally = self.tallies[player]
        tally.visits += 1
        tally.darts += visit.live_darts
        marks = self._marks(player) - visit.marks_before if self.cricket else 0
        if self.x01:
            points = visit.score_before - score_after
            self._x01_visit(tally, visit, points)
        elif self.cut_throat:
            after = self._scores()
            points = sum(
                after[p] - visit.scores_before[p] for p in self._other_sides_players(player)
            )
        else:
            points = score_after - visit.score_before
        if self.counts_points:
            tally.counts["points"] += points
        if self.cricket:
            counts = tally.counts
            counts["marks"] += marks
            counts["count_5_marks"] += 5 <= marks <= 6
            counts["count_7_marks"] += 7 <= marks <= 8
            counts["count_9_marks"] += marks == 9
            tally.best_visit_marks = max(tally.best_visit_marks or 0, marks)
        tally.best_visit_points = max(
            points if tally.best_visit_points is None else tally.best_visit_points, points
        )
        tally.best_visit_total = max(tally.best_visit_total or 0, visit.total)
        self.visits.append(
            VisitLine(
                player, tuple(visit.darts), points, marks, over == VisitOver.BUST, score_after
            )
        )

    def _x01_visit(self, tally: _Tally, visit: _Visit, points: int) -> None:
        counts = tally.counts
        counts["points"] += points
        if tally.visits <= 3:
            counts["first9_points"] += points
            counts["first9_darts"] += visit.live_darts
        if points >= 180:
            counts["count_180"] += 1
        elif points >= 140:
            counts["count_140"] += 1
        elif points >= 100:
            counts["count_100"] += 1
        outcome = self.game.outcome()
        if outcome is not None and outcome.reason == Reason.CHECKOUT:
            counts["checkouts"] += 1
            tally.bests["highest_checkout"] = visit.score_before

    def _other_sides_players(self, player: int) -> list[int]:
        """One player of each side but ``player``'s (a side's score is shared)."""
        sides = self.game.lineup.sides
        return [members[0] for members in sides if player not in members]

    # -- games played by picking

    def pick(self, event: Bed | EndVisit) -> None:
        """One move of a game played by picking: a visit line of its own."""
        game = self.game
        player = game.current_player
        before = self._scores()[player]
        game.push(event)
        self.moment += 1
        self._take_snapshot()
        after = self._scores()[player]
        if isinstance(event, Bed):
            self.tallies[player].darts += 1
        self.tallies[player].visits += 1
        self.visits.append(VisitLine(player, (str(event),), after - before, 0, False, after))


def _last_over(game: Game) -> VisitOver | None:
    last = game.last_visit
    return None if last is None else last[2]


def walk_game(game: Game, replayed: Game) -> Walk:
    """Walk ``replayed``'s effective events (no undos; a bounced-out dart as
    the miss it scored) through ``game``, fresh."""
    walker = _Walker(game)
    picking = isinstance(game, PickingGame)
    for event in as_thrown(replayed.events):
        if picking:
            if isinstance(event, Bed | EndVisit):
                walker.pick(event)
        elif isinstance(event, Bed):
            walker.dart(event)
        elif isinstance(event, EndVisit):
            walker.end_visit()
    return walker.finish()


# ---------------------------------------------------------------- highlights

_Measure = Callable[[Walk, int], float | None]


def _stat(name: str) -> _Measure:
    """A highlight the engine counts for each player in its state's ``stats``."""

    def measure(walk: Walk, player: int) -> float | None:
        value = walk.final["players"][player]["stats"].get(name)
        return None if value is None else float(value)

    return measure


def _tally(name: str) -> _Measure:
    """A highlight the walk tallied for each player (None: no visit of theirs)."""

    def measure(walk: Walk, player: int) -> float | None:
        tally = walk.tallies[player]
        value = tally.bests[name] if name in tally.bests else getattr(tally, name)
        return None if value is None else float(value)

    return measure


def _darts_to_win(walk: Walk, player: int) -> float | None:
    """The darts the winning side threw; None for everyone else."""
    outcome = walk.game.outcome()
    if outcome is None or outcome.winner is None:
        return None
    sides = walk.game.lineup.sides
    side = next(members for members in sides if outcome.winner in members)
    if player not in side:
        return None
    return float(sum(walk.tallies[member].darts for member in side))


def _measure(highlight: Highlight) -> _Measure:
    """How the walk measures a game's highlight (``Game.highlight``)."""
    match highlight.measure:
        case Measure.STAT:
            assert highlight.stat is not None
            return _stat(highlight.stat)
        case Measure.HIGHEST_CHECKOUT:
            return _tally("highest_checkout")
        case Measure.BEST_VISIT_MARKS:
            return _tally("best_visit_marks")
        case Measure.BEST_VISIT_POINTS:
            return _tally("best_visit_points")
        case Measure.BEST_VISIT_TOTAL:
            return _tally("best_visit_total")
        case Measure.DARTS_TO_WIN:
            return _darts_to_win


# ---------------------------------------------------------------- placements


def _placements(walk: Walk) -> list[int]:
    """Each side's place: 1 for the winner (every tied side in a draw), the
    rest by the game's own order, tied sides sharing a place."""
    game = walk.game
    sides = game.lineup.sides
    outcome = game.outcome()
    winner = None
    if outcome is not None and outcome.winner is not None:
        winner = next(s for s, members in enumerate(sides) if outcome.winner in members)
    keys = [_standing(walk, side, members[0]) for side, members in enumerate(sides)]
    order = sorted((s for s in range(len(sides)) if s != winner), key=lambda s: keys[s])
    order.reverse()
    places = [1] * len(sides)
    start = 1 if winner is None else 2
    for rank, side in enumerate(order):
        previous = order[rank - 1] if rank else None
        if previous is not None and keys[previous] == keys[side]:
            places[side] = places[previous]
        else:
            places[side] = start + rank
    return places


def _standing(walk: Walk, side: int, player: int) -> tuple[int, ...]:
    """A side's key in the final order, bigger is better: still in beats out
    (out later beats out sooner), then the game's score the way it counts."""
    entry = walk.final["players"][player]
    score = int(entry["score"])
    out = walk.out_at.get(side)
    alive = (1, 0) if out is None else (0, out)
    game = walk.game
    if isinstance(game, X01):
        return (*alive, -score)
    if isinstance(game, Cricket):
        marks = sum(entry["marks"].values())
        mode = game.options["mode"]
        if mode == "cut-throat":
            return (*alive, -score, marks)
        if mode == "no-score":
            return (*alive, marks)
        return (*alive, score, marks)
    return (*alive, score)


def player_lines(
    walk: Walk,
    boards: Sequence[str | None],
    cpu_levels: Sequence[int | None],
    roster_ids: Sequence[int | None],
) -> tuple[PlayerLine, ...]:
    game = walk.game
    outcome = game.outcome()
    assert outcome is not None
    sides = game.lineup.sides
    places = _placements(walk)
    measure = _measure(game.highlight)
    lines = []
    for side, members in enumerate(sides):
        won = outcome.winner is not None and outcome.winner in members
        for player in members:
            tally = walk.tallies[player]
            leg_darts = None
            if tally.counts["checkouts"] and not game.lineup.teams:
                leg_darts = tally.darts
            lines.append(
                PlayerLine(
                    index=player,
                    name=game.lineup.players[player],
                    team=side if game.lineup.teams else None,
                    score=game.score(player),
                    won=won,
                    placement=places[side],
                    darts=tally.darts,
                    highlight=measure(walk, player),
                    figures={
                        **tally.counts,
                        **tally.bests,
                        "leg_darts": leg_darts,
                        "legs_won": int(won),
                        "legs_lost": int(not won and outcome.winner is not None),
                    },
                    board=boards[player],
                    cpu_level=cpu_levels[player],
                    player_id=None if cpu_levels[player] is not None else roster_ids[player],
                )
            )
    lines.sort(key=lambda line: line.index)
    return tuple(lines)


def match_lines(
    per_leg: Sequence[Sequence[PlayerLine]], walks: Sequence[Walk], tally: MatchTally
) -> tuple[PlayerLine, ...]:
    """Each player's figures over the match's legs: counts added up, bests the
    best of the legs', the highlight the best leg's; won by the match's winner,
    placed by sets and legs won, scored as the last leg ended."""
    sides = walks[0].game.lineup.sides
    higher = walks[0].game.highlight.higher_is_better
    keys = [
        ((tally.sets_won or ())[side : side + 1], tally.legs_won[side])
        for side in range(len(sides))
    ]
    places = [1 + sum(1 for other in keys if other > key) for key in keys]
    lines = []
    for player, last in enumerate(per_leg[-1]):
        mine = [leg[player] for leg in per_leg]
        figures: dict[str, int | None] = {}
        for figure in LINE_FIGURES:
            column = str(figure.column)
            values = [line.figures[column] for line in mine]
            known = [value for value in values if value is not None]
            if figure.aggregate is Aggregate.SUM:
                figures[column] = sum(known)
            else:
                best = max if figure.aggregate is Aggregate.MAX else min
                figures[column] = best(known) if known else None
        highlights = [line.highlight for line in mine if line.highlight is not None]
        side = next(s for s, members in enumerate(sides) if player in members)
        lines.append(
            PlayerLine(
                index=player,
                name=last.name,
                team=last.team,
                score=last.score,
                won=side == tally.winner,
                placement=places[side],
                darts=sum(line.darts for line in mine),
                highlight=(max if higher else min)(highlights) if highlights else None,
                figures=figures,
                board=last.board,
                cpu_level=last.cpu_level,
                player_id=last.player_id,
            )
        )
    return tuple(lines)
