"""Re-scoring a result document from its log with the engine, and each player's
statistics from that replay. Pure: no database, no I/O. A result whose log does
not give what it claims is refused with :class:`RejectedResultError`, naming why.

Every statistic the leaderboard shows is a sum, maximum or minimum of the
per-result figures in :class:`PlayerLine` (the table of
:mod:`leaderboard.figures`), so rankings aggregate in SQL. None
is copied from the result's own ``stats``: the log is replayed once to check
it (:func:`engine.game_log.replay_log`, as ``oche replay`` does), and its
effective events once more, visit by visit, to count. docs/leaderboard.md,
"Statistics", defines each figure and each game's highlight."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from engine import (
    X01,
    Bed,
    Cricket,
    EndVisit,
    EngineError,
    Game,
    Lineup,
    PickingGame,
    Reason,
    Team,
    VisitOver,
    as_thrown,
    checkout,
    new_game,
)
from engine.game import DARTS_PER_VISIT
from engine.game_log import replay_log
from engine.lineup import check_name
from engine.traits import Family, Highlight, Measure
from leaderboard.figures import LINE_FIGURES, Aggregate
from mqtt_contract import TOPICS, base_problem, board_id_problem

__all__ = [
    "MAX_LOG_BOUNCES",
    "MAX_LOG_CORRECTIONS",
    "MAX_LOG_EVENTS",
    "MAX_LOG_UNDOS",
    "PlayerLine",
    "RejectedResultError",
    "ScoredResult",
    "VisitLine",
    "player_board_problem",
    "score_result",
]

MAX_LOG_EVENTS = 20_000
"""A log with more tokens than this is refused unplayed: a real game has a few
hundred (a 1001 game for eight players throwing badly, a few thousand)."""

MAX_LOG_UNDOS = 50
"""A log with more ``UNDO`` tokens than this is refused unplayed. Each undo
replays the game so far, so many of them in a long log would cost minutes;
the daemon's logs have none (they list only the darts that counted)."""

MAX_LOG_BOUNCES = 200
"""A log with more ``BOUNCE`` tokens than this is refused unplayed: each
bounce-out replays the game so far, as an undo does. The daemon's logs keep
them (a bounced dart is thrown), a few in a real game."""


MAX_LOG_CORRECTIONS = 50
"""A log with more correction tokens (``CORRECT2=T19``) than this is refused
unplayed: each replays the game so far. The daemon's logs have none (a
corrected dart is written as corrected, the board's reading in a comment)."""


class RejectedResultError(ValueError):
    """A result that cannot be stored as played: not JSON, not the result
    schema, too big, or a log that does not give its claimed winner and scores.
    ``reason`` is one line for people (it quotes what was wrong)."""

    def __init__(self, reason: str, result_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result_id = result_id


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


@dataclass(frozen=True, slots=True)
class ScoredResult:
    """A result document checked against its own log."""

    result_id: str
    game_key: str
    """The game this result is of, the same in every revision (absent from the
    document: the ``result_id``)."""
    board: str
    game: str
    options: dict[str, Any]
    result: str
    winner: int | None
    started_at: float | None
    finished_at: float
    players: tuple[PlayerLine, ...]
    visits: tuple[VisitLine, ...]
    match: str | None = None
    """Only in a remote match: its id (docs/remote.md)."""
    revision: int = 1
    """How often the game was finished again (1: its first result)."""
    withdrawn: bool = False
    """The game of ``game_key`` no longer counts (reopened, then abandoned)."""


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
class _Walk:
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
        self.cut_throat = isinstance(game, Cricket) and game.options["mode"] == "cut-throat"
        self.out_rule = str(game.options["out"]) if self.x01 else ""
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
            if self.x01 and checkout(game.score(visit.player), 1, self.out_rule) is not None:
                self.tallies[visit.player].counts["checkout_darts"] += 1
        game.dart(bed)
        self.moment += 1
        visit.darts.append(bed.notation)
        if len(visit.darts) == DARTS_PER_VISIT:
            self._close(visit)
        elif self.per_dart:
            self._take_snapshot()

    def end_visit(self) -> None:
        self.game.end_visit()
        if self.visit is not None:
            self._close(self.visit)

    def finish(self) -> _Walk:
        """The walk's figures, once every event is pushed."""
        if self.visit is not None:  # the game ended inside its last visit
            self._close(self.visit)
        final = self.snapshot if self.snapshot is not None else self.game.state()
        return _Walk(self.game, self.tallies, self.visits, final, self.out_at)

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


def _walk(game: Game, replayed: Game) -> _Walk:
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

_Measure = Callable[[_Walk, int], float | None]


def _stat(name: str) -> _Measure:
    """A highlight the engine counts for each player in its state's ``stats``."""

    def measure(walk: _Walk, player: int) -> float | None:
        value = walk.final["players"][player]["stats"].get(name)
        return None if value is None else float(value)

    return measure


def _tally(name: str) -> _Measure:
    """A highlight the walk tallied for each player (None: no visit of theirs)."""

    def measure(walk: _Walk, player: int) -> float | None:
        tally = walk.tallies[player]
        value = tally.bests[name] if name in tally.bests else getattr(tally, name)
        return None if value is None else float(value)

    return measure


def _darts_to_win(walk: _Walk, player: int) -> float | None:
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


def _placements(walk: _Walk) -> list[int]:
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


def _standing(walk: _Walk, side: int, player: int) -> tuple[int, ...]:
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


# ------------------------------------------------------------------- checks

_VALIDATOR = Draft202012Validator(TOPICS["result"].schema)
_QUOTE_LIMIT = 80


def _short(text: str) -> str:
    return text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 1] + "…"


def _check_schema(document: Mapping[str, Any]) -> None:
    if _VALIDATOR.is_valid(document):
        return
    error = best_match(_VALIDATOR.iter_errors(document))
    where = error.json_path
    raise RejectedResultError(
        f"the result does not match the result schema at {where}: {_short(error.message)}"
    )


def _lineup(document: Mapping[str, Any]) -> Lineup:
    players = document["players"]
    raw_teams = document.get("teams") or []
    try:
        # The names a board takes (the new_game command checks them the same way).
        names = tuple(check_name(str(player["name"])) for player in players)
        teams = tuple(
            Team(check_name(str(team["name"]), "team name"), tuple(team["players"]))
            for team in raw_teams
        )
        lineup = Lineup(names, teams)
    except EngineError as error:
        raise RejectedResultError(f"the players and teams cannot play: {error}") from None
    side_of = {member: index for index, team in enumerate(lineup.teams) for member in team.members}
    for index, player in enumerate(players):
        claimed = player.get("team")
        expected = side_of.get(index)
        if claimed != expected:
            raise RejectedResultError(
                f"player {index} ({names[index]}) is in team {expected} by the teams list, "
                f"the result says team {claimed}"
            )
    return lineup


def _new_game(document: Mapping[str, Any], lineup: Lineup) -> Game:
    try:
        return new_game(str(document["game"]), lineup, document.get("options") or {})
    except EngineError as error:
        raise RejectedResultError(f"the engine cannot start this game: {error}") from None


def _check_log_size(log: str) -> None:
    tokens = 0
    undos = 0
    bounces = 0
    corrections = 0
    for line in log.splitlines():
        words = line.split("#", 1)[0].split()
        tokens += len(words)
        undos += sum(1 for word in words if word.upper() == "UNDO")
        bounces += sum(1 for word in words if word.upper() == "BOUNCE")
        corrections += sum(1 for word in words if word.upper().startswith("CORRECT"))
    if tokens > MAX_LOG_EVENTS:
        raise RejectedResultError(
            f"the log has {tokens} tokens, more than the {MAX_LOG_EVENTS} a game can have"
        )
    if undos > MAX_LOG_UNDOS:
        raise RejectedResultError(
            f"the log has {undos} UNDO tokens, more than {MAX_LOG_UNDOS}: a result's log "
            "lists only the darts that counted"
        )
    if bounces > MAX_LOG_BOUNCES:
        raise RejectedResultError(
            f"the log has {bounces} BOUNCE tokens, more than {MAX_LOG_BOUNCES} a game can have"
        )
    if corrections > MAX_LOG_CORRECTIONS:
        raise RejectedResultError(
            f"the log has {corrections} correction tokens, more than {MAX_LOG_CORRECTIONS}: "
            "a result's log writes a corrected dart as corrected"
        )


def _name(names: Sequence[str], index: int | None) -> str | None:
    if index is None:
        return None
    return names[index] if 0 <= index < len(names) else "no such player"


def _who(names: Sequence[str], index: int | None) -> str:
    """A player index for a reason: ``1 (Bob)``, or the words for no winner."""
    if index is None:
        return "no winner (a draw)"
    return f"{index} ({_name(names, index)})"


def _check_claims(document: Mapping[str, Any], game: Game) -> None:
    """The replayed game must be over, with the claimed winner, result and scores."""
    names = game.lineup.players
    outcome = game.outcome()
    claimed_winner = document["winner"]
    if outcome is None:
        scores = ", ".join(f"{name} {game.score(i)}" for i, name in enumerate(names))
        ended = document["result"] == "ended"
        why = (
            "the result says 'ended': a game abandoned with end_game is not a finished game"
            if ended
            else f"the result claims {document['result']!r} with winner "
            f"{_who(names, claimed_winner)}"
        )
        raise RejectedResultError(f"the log does not finish the game ({scores}); {why}")
    if outcome.winner != claimed_winner:
        raise RejectedResultError(
            f"the log gives winner {_who(names, outcome.winner)}, "
            f"the result claims {_who(names, claimed_winner)}"
        )
    claimed_name = document.get("winner_name")
    if claimed_name is not None and claimed_name != _name(names, outcome.winner):
        raise RejectedResultError(
            f"the result names the winner {_short(str(claimed_name))!r}, "
            f"the log's winner is {_who(names, outcome.winner)}"
        )
    if "winner_team" in document and document["winner_team"] != outcome.team:
        raise RejectedResultError(
            f"the log gives winning team {outcome.team}, "
            f"the result claims {document['winner_team']}"
        )
    if document["result"] != str(outcome.reason):
        raise RejectedResultError(
            f"the log ends the game by {str(outcome.reason)!r}, "
            f"the result claims {_short(str(document['result']))!r}"
        )
    for index, player in enumerate(document["players"]):
        score = game.score(index)
        if player["score"] != score:
            raise RejectedResultError(
                f"the log gives {names[index]} a final score of {score}, "
                f"the result claims {player['score']}"
            )


def player_board_problem(board: str) -> str | None:
    """Why a player's ``board`` (``base/board``, or a bare board id) names no
    board, or None."""
    base, slash, ident = board.rpartition("/")
    problem = board_id_problem(ident)
    if problem is not None:
        return f"its board id {problem}"
    if slash:
        problem = base_problem(base)
        if problem is not None:
            return f"its base topic {problem}"
    return None


def _player_boards(document: Mapping[str, Any], names: Sequence[str]) -> tuple[str | None, ...]:
    """Each player's ``board`` (remote matches), checked: a board that is not
    ``base/board`` cannot be placed in a venue, so the result is refused."""
    boards: list[str | None] = []
    for index, player in enumerate(document["players"]):
        board = player.get("board")
        if board is not None:
            problem = player_board_problem(board)
            if problem is not None:
                raise RejectedResultError(
                    f"player {index} ({names[index]}) has board {_short(board)!r}, which is "
                    f"not a board (base/board): {problem}"
                )
        boards.append(board)
    return tuple(boards)


def _timestamp(document: Mapping[str, Any], key: str) -> float | None:
    value = document.get(key)
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number):
        raise RejectedResultError(f"{key} is {value!r}, not a time")
    return number


# ------------------------------------------------------------------- scoring


def score_result(document: Mapping[str, Any]) -> ScoredResult:
    """Replay ``document`` (a parsed result payload) and return its figures.
    Anything wrong with it raises :class:`RejectedResultError` with the reason
    and, when the document has one, its ``result_id``."""
    result_id = document.get("result_id") if isinstance(document, Mapping) else None
    try:
        return _score(document)
    except RejectedResultError as error:
        error.result_id = result_id if isinstance(result_id, str) else None
        raise


def _score(document: Mapping[str, Any]) -> ScoredResult:
    if not isinstance(document, Mapping):
        raise RejectedResultError(f"the result is a JSON {type(document).__name__}, not an object")
    _check_schema(document)
    log = document.get("log")
    if log is None:
        raise RejectedResultError("the result has no log, so it cannot be re-scored")
    finished_at = _timestamp(document, "finished_at")
    assert finished_at is not None  # required by the schema
    started_at = _timestamp(document, "started_at")
    lineup = _lineup(document)
    boards = _player_boards(document, lineup.players)
    replayed = _new_game(document, lineup)
    _check_log_size(log)
    try:
        replay_log(replayed, log)
    except EngineError as error:
        raise RejectedResultError(f"the log does not replay: {error}") from None
    _check_claims(document, replayed)
    walk = _walk(type(replayed)(lineup, replayed.options), replayed)
    result_id = str(document["result_id"])
    return ScoredResult(
        result_id=result_id,
        game_key=str(document.get("game_key") or result_id),
        board=str(document["board"]),
        game=replayed.id,
        options=dict(replayed.options),
        result=str(document["result"]),
        winner=document["winner"],
        started_at=started_at,
        finished_at=finished_at,
        players=_player_lines(walk, boards, _cpu_levels(document), _roster_ids(document)),
        visits=tuple(walk.visits),
        match=document.get("match"),
        revision=int(document.get("revision", 1)),
        withdrawn=document.get("withdrawn") is True,
    )


def _cpu_levels(document: Mapping[str, Any]) -> tuple[int | None, ...]:
    """Each player's computer level (its ``cpu`` object, checked by the
    schema), None for a person."""
    return tuple(
        int(player["cpu"]["level"]) if "cpu" in player else None for player in document["players"]
    )


def _roster_ids(document: Mapping[str, Any]) -> tuple[int | None, ...]:
    """Each player's roster id (``player_id``: an integer of 1 or more, or
    null or absent for a guest); anything else refuses the result."""
    ids: list[int | None] = []
    for seat, player in enumerate(document["players"]):
        value = player.get("player_id")
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            raise RejectedResultError(
                f"players[{seat}].player_id is {_short(repr(value))}: a roster id is an "
                "integer of 1 or more, or null"
            )
        ids.append(value)
    return tuple(ids)


def _player_lines(
    walk: _Walk,
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
                    figures={**tally.counts, **tally.bests, "leg_darts": leg_darts},
                    board=boards[player],
                    cpu_level=cpu_levels[player],
                    player_id=None if cpu_levels[player] is not None else roster_ids[player],
                )
            )
    lines.sort(key=lambda line: line.index)
    return tuple(lines)
