"""Re-scoring a result document from its log with the engine, and each player's
statistics from that replay. Pure: no database, no I/O. A result whose log does
not give what it claims is refused with :class:`RejectedResultError`, naming why.

Every statistic the leaderboard shows is a sum, maximum or minimum of the
per-result figures in :class:`PlayerLine` (the table of
:mod:`leaderboard.figures`), so rankings aggregate in SQL. None
is copied from the result's own ``stats``: the log is replayed once to check
it (:func:`engine.game_log.replay_log`, as ``oche replay`` does), and its
effective events once more, visit by visit, to count. A match's result is
re-scored leg by leg (each leg's log, started by its ``starter``'s side), its
legs counted against its format (:mod:`leaderboard.match_tally`), and its
figures are the sums (and bests) over its legs. docs/leaderboard.md,
"Statistics", defines each figure and each game's highlight."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from engine import EngineError, Game, Lineup, Team, game_class, new_game
from engine.game_log import replay_log
from engine.handicap import HANDICAPS_OPTION, NO_HANDICAPS, Handicap, with_handicaps
from engine.lineup import check_name
from engine.match_format import MatchFormat
from leaderboard.leg_walk import PlayerLine, VisitLine, Walk, match_lines, player_lines, walk_game
from leaderboard.match_tally import MatchTally, MatchTallyError, tally_legs
from mqtt_contract import TOPICS, base_problem, board_id_problem
from mqtt_contract.result_payload import ResultDocument, ResultLeg, handicap_json

__all__ = [
    "MAX_LOG_BOUNCES",
    "MAX_LOG_CORRECTIONS",
    "MAX_LOG_EVENTS",
    "MAX_LOG_UNDOS",
    "LegLine",
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
class LegLine:
    """One leg of a match's result as replayed: its number and set, the
    player who threw first, its winner (a player index, None for a draw) and
    how it ended."""

    leg: int
    set: int | None
    starter: int
    winner: int | None
    result: str


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
    match_format: dict[str, Any] | None = None
    """Only for a match: its format (``MatchFormat.to_json``); None for a single game."""
    legs: tuple[LegLine, ...] = ()
    """Only for a match: its legs in order; () for a single game (one leg)."""


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


def _new_game(
    game_id: str, lineup: Lineup, options: Mapping[str, Any], first_side: int = 0
) -> Game:
    """A fresh game (a match's leg: with ``first_side``'s side throwing first)."""
    try:
        return new_game(game_id, lineup, options, first_side=first_side)
    except EngineError as error:
        raise RejectedResultError(f"the engine cannot start this game: {error}") from None


def _played_options(document: Mapping[str, Any]) -> dict[str, Any]:
    """The options the game was played with: the result's, and its players'
    handicaps (``start``, ``marks``) as the ``handicaps`` option, so each
    player is re-scored from their own start (docs/leaderboard.md, Handicaps)."""
    options = dict(document.get("options") or {})
    if options.get(HANDICAPS_OPTION, NO_HANDICAPS) != NO_HANDICAPS:
        return options  # the game's own option: the players' claims are checked on replay
    try:
        handicaps = [
            Handicap.of(player.get("start"), player.get("marks")) for player in document["players"]
        ]
        if all(handicap.is_none for handicap in handicaps):
            return options
        return with_handicaps(game_class(str(document["game"])), options, handicaps)
    except EngineError as error:
        raise RejectedResultError(f"the players' handicaps cannot be played: {error}") from None


def _check_handicaps(document: Mapping[str, Any], replayed: Game) -> None:
    """Each player's ``start`` and ``marks`` in the result are the ones the game was played with."""
    for index, (claimed, played) in enumerate(
        zip(document["players"], replayed.state()["players"], strict=True)
    ):
        says = {key: claimed[key] for key in ("start", "marks") if key in claimed}
        if says != handicap_json(played):
            raise RejectedResultError(
                f"player {index} ({played['name']}) has the handicap {_short(str(says))} in the "
                f"result and {_short(str(handicap_json(played)))} in the game's options"
            )


def _check_log_size(log: str, leg: int | None = None) -> None:
    """A log too big to replay cheaply is refused unplayed (a match's: each leg's)."""
    the_log = "the log" if leg is None else f"leg {leg}'s log"
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
            f"{the_log} has {tokens} tokens, more than the {MAX_LOG_EVENTS} a game can have"
        )
    if undos > MAX_LOG_UNDOS:
        raise RejectedResultError(
            f"{the_log} has {undos} UNDO tokens, more than {MAX_LOG_UNDOS}: a result's log "
            "lists only the darts that counted"
        )
    if bounces > MAX_LOG_BOUNCES:
        raise RejectedResultError(
            f"{the_log} has {bounces} BOUNCE tokens, more than {MAX_LOG_BOUNCES} a game can have"
        )
    if corrections > MAX_LOG_CORRECTIONS:
        raise RejectedResultError(
            f"{the_log} has {corrections} correction tokens, more than {MAX_LOG_CORRECTIONS}: "
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


def _check_claims(claims: Mapping[str, Any], game: Game, leg: int | None = None) -> None:
    """The replayed game (a match's ``leg``: its log) must be over, with the
    claimed winner, result and scores."""
    names = game.lineup.players
    outcome = game.outcome()
    claimed_winner = claims["winner"]
    the_log, what, ends = "the log", "the result", "the game"
    if leg is not None:
        the_log, what, ends = f"leg {leg}'s log", f"leg {leg}", "the leg"
    if outcome is None:
        scores = ", ".join(f"{name} {game.score(i)}" for i, name in enumerate(names))
        ended = claims["result"] == "ended"
        why = (
            f"{what} says 'ended': a game abandoned with end_game is not a finished game"
            if ended
            else f"{what} claims {claims['result']!r} with winner {_who(names, claimed_winner)}"
        )
        raise RejectedResultError(f"{the_log} does not finish {ends} ({scores}); {why}")
    if outcome.winner != claimed_winner:
        raise RejectedResultError(
            f"{the_log} gives winner {_who(names, outcome.winner)}, "
            f"{what} claims {_who(names, claimed_winner)}"
        )
    claimed_name = claims.get("winner_name")
    if claimed_name is not None and claimed_name != _name(names, outcome.winner):
        raise RejectedResultError(
            f"{what} names the winner {_short(str(claimed_name))!r}, "
            f"{the_log}'s winner is {_who(names, outcome.winner)}"
        )
    if "winner_team" in claims and claims["winner_team"] != outcome.team:
        raise RejectedResultError(
            f"{the_log} gives winning team {outcome.team}, {what} claims {claims['winner_team']}"
        )
    if claims["result"] != str(outcome.reason):
        raise RejectedResultError(
            f"{the_log} ends {ends} by {str(outcome.reason)!r}, "
            f"{what} claims {_short(str(claims['result']))!r}"
        )
    for index, player in enumerate(claims["players"]):
        score = game.score(index)
        if player["score"] != score:
            raise RejectedResultError(
                f"{the_log} gives {names[index]} a final score of {score}, "
                f"{what} claims {player['score']}"
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


def _replayed(
    document: Mapping[str, Any],
    lineup: Lineup,
    log: str,
    first_side: int,
    leg: ResultLeg | None,
) -> Walk:
    """One game (a match's ``leg``) replayed from ``log`` and walked: the log
    refused when it is too big, does not replay or does not give what the
    result (the leg) claims."""
    number = None if leg is None else leg.leg
    replayed = _new_game(str(document["game"]), lineup, _played_options(document), first_side)
    _check_log_size(log, number)
    try:
        replay_log(replayed, log)
    except EngineError as error:
        the_log = "the log" if number is None else f"leg {number}'s log"
        raise RejectedResultError(f"{the_log} does not replay: {error}") from None
    _check_claims(document if leg is None else leg.to_json(), replayed, number)
    _check_handicaps(document, replayed)
    fresh = _new_game(replayed.id, lineup, replayed.options, first_side)
    return walk_game(fresh, replayed)


def _score(document: Mapping[str, Any]) -> ScoredResult:
    if not isinstance(document, Mapping):
        raise RejectedResultError(f"the result is a JSON {type(document).__name__}, not an object")
    _check_schema(document)
    finished_at = _timestamp(document, "finished_at")
    assert finished_at is not None  # required by the schema
    started_at = _timestamp(document, "started_at")
    lineup = _lineup(document)
    boards = _player_boards(document, lineup.players)
    extras = (boards, _cpu_levels(document), _roster_ids(document))
    result_id = str(document["result_id"])
    game_key = str(document.get("game_key") or document.get("match_id") or result_id)
    match_legs = ResultDocument.read(dict(document)).legs  # read as the schema checked it
    if match_legs is not None:
        game, options, lines, visits, legs, played = _score_match(
            document, match_legs, lineup, extras
        )
        if document.get("match_id") not in (None, game_key):
            raise RejectedResultError(
                f"the match_id {_short(str(document['match_id']))!r} is not the result's "
                f"game_key {_short(game_key)!r}: a match's id is its game's key"
            )
    else:
        log = document.get("log")
        if log is None:
            raise RejectedResultError("the result has no log, so it cannot be re-scored")
        if document.get("match_format") is not None:
            raise RejectedResultError(
                "the result has a match_format but no legs: a match's result lists its legs"
            )
        walk = _replayed(document, lineup, log, 0, None)
        game, options = walk.game.id, dict(walk.game.options)
        lines, visits, legs, played = player_lines(walk, *extras), tuple(walk.visits), (), None
    return ScoredResult(
        result_id=result_id,
        game_key=game_key,
        board=str(document["board"]),
        game=game,
        options=options,
        result=str(document["result"]),
        winner=document["winner"],
        started_at=started_at,
        finished_at=finished_at,
        players=lines,
        visits=visits,
        match=document.get("match"),
        revision=int(document.get("revision", 1)),
        withdrawn=document.get("withdrawn") is True,
        match_format=played,
        legs=legs,
    )


_Extras = tuple[Sequence[str | None], Sequence[int | None], Sequence[int | None]]
"""Each player's board, computer level and roster id (:func:`_player_lines`)."""


def _score_match(
    document: Mapping[str, Any],
    match_legs: Sequence[ResultLeg],
    lineup: Lineup,
    extras: _Extras,
) -> tuple[
    str, dict[str, Any], tuple[PlayerLine, ...], tuple[VisitLine, ...], tuple[LegLine, ...], Any
]:
    """A match's result re-scored leg by leg: the game, its options, each
    player's figures over the legs, every visit, the legs and the format."""
    if document.get("log") is not None:
        raise RejectedResultError(
            "the result has both legs and a log: a match's result has each leg's log "
            "in its legs, and no log of its own"
        )
    raw_format = document.get("match_format")
    if raw_format is None:
        raise RejectedResultError("the result has legs but no match_format: a match has a format")
    try:
        match_format = MatchFormat.from_json(raw_format)
    except EngineError as error:
        raise RejectedResultError(f"the match_format is not a match's format: {error}") from None
    sides = lineup.sides
    side_of = {player: side for side, members in enumerate(sides) for player in members}
    walks: list[Walk] = []
    legs: list[LegLine] = []
    for number, leg in enumerate(match_legs, start=1):
        _check_leg_heading(leg, number, len(lineup.players))
        walks.append(_replayed(document, lineup, leg.log, side_of[leg.starter], leg))
        legs.append(LegLine(number, leg.set, leg.starter, leg.winner, leg.result))
    side_names = [lineup.players[members[0]] for members in sides]
    if lineup.teams:
        side_names = [team.name for team in lineup.teams]
    winners = [None if leg.winner is None else side_of[leg.winner] for leg in legs]
    try:
        tally = tally_legs(match_format, winners, side_names)
    except MatchTallyError as error:
        raise RejectedResultError(error.reason) from None
    _check_match_claims(document, lineup, walks, legs, tally)
    per_leg = [player_lines(walk, *extras) for walk in walks]
    lines = match_lines(per_leg, walks, tally)
    visits = tuple(
        VisitLine(v.player, v.darts, v.points, v.marks, v.bust, v.score_after, number)
        for number, walk in enumerate(walks, start=1)
        for v in walk.visits
    )
    first = walks[0].game
    played = {key: value for key, value in match_format.to_json().items() if value is not None}
    return first.id, dict(first.options), lines, visits, tuple(legs), played


def _check_leg_heading(leg: ResultLeg, number: int, players: int) -> None:
    """A leg's number, starter and winner must be this match's (the replay checks the rest)."""
    if leg.leg != number:
        raise RejectedResultError(
            f"legs[{number - 1}] says it is leg {leg.leg}: the legs are numbered "
            "1, 2, ... in the order played"
        )
    for key, value in (("starter", leg.starter), ("winner", leg.winner)):
        if value is not None and value >= players:
            raise RejectedResultError(
                f"leg {number}'s {key} is player {value}, and the match has {players} players"
            )
    if len(leg.players) != players:
        raise RejectedResultError(
            f"leg {number} lists {len(leg.players)} players, the match has {players}"
        )


def _check_match_claims(
    document: Mapping[str, Any],
    lineup: Lineup,
    walks: Sequence[Walk],
    legs: Sequence[LegLine],
    tally: MatchTally,
) -> None:
    """The match's own claims (its legs and sets per side, each leg's set, the
    winner, how it ended and the final scores) must be what its legs give."""
    names = lineup.players
    claimed = document.get("legs_won")
    if claimed is None or tuple(claimed) != tally.legs_won:
        raise RejectedResultError(
            f"the legs give legs won {_score_words(tally.legs_won)}, "
            f"the result claims {'none' if claimed is None else _score_words(claimed)}"
        )
    sets = document.get("sets_won")
    if (None if sets is None else tuple(sets)) != tally.sets_won:
        given = "none" if tally.sets_won is None else _score_words(tally.sets_won)
        raise RejectedResultError(
            f"the legs give sets won {given}, "
            f"the result claims {'none' if sets is None else _score_words(sets)}"
        )
    for leg, in_set in zip(legs, tally.set_of_leg, strict=True):
        if leg.set != in_set:
            raise RejectedResultError(
                f"leg {leg.leg} is in set {in_set} by the match's format, "
                f"the result says set {leg.set}"
            )
    winner = lineup.sides[tally.winner][0]
    winner_team = tally.winner if lineup.teams else None
    if document["winner"] != winner:
        raise RejectedResultError(
            f"the legs give the match to {_who(names, winner)}, "
            f"the result claims {_who(names, document['winner'])}"
        )
    claimed_name = document.get("winner_name")
    if claimed_name is not None and claimed_name != names[winner]:
        raise RejectedResultError(
            f"the result names the winner {_short(str(claimed_name))!r}, "
            f"the legs' winner is {_who(names, winner)}"
        )
    if "winner_team" in document and document["winner_team"] != winner_team:
        raise RejectedResultError(
            f"the legs give winning team {winner_team}, the result claims {document['winner_team']}"
        )
    if document["result"] != legs[-1].result:
        raise RejectedResultError(
            f"the last leg ended by {legs[-1].result!r}, the match's result claims "
            f"{_short(str(document['result']))!r}"
        )
    for index, player in enumerate(document["players"]):
        score = walks[-1].game.score(index)
        if player["score"] != score:
            raise RejectedResultError(
                f"the last leg gives {names[index]} a final score of {score}, "
                f"the result claims {player['score']}"
            )


def _score_words(counts: Sequence[object]) -> str:
    return "-".join(str(count) for count in counts)


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
