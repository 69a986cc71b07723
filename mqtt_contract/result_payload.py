"""The ``result`` and ``result/stored`` payloads: a finished game as the
leaderboard stores it (:func:`result_document`), and its answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from engine import Game, Match
from engine.game_log import format_game_log
from engine.lineup import MAX_PLAYERS
from engine.state_schema import STATE_SCHEMA
from mqtt_contract.event_payload import Timestamp
from mqtt_contract.json_types import JsonObject, Meta, object_schema, omitted
from mqtt_contract.match_payload import CALL_ID_PATTERN, MatchPlay
from mqtt_contract.state_payload import CpuView

NullableIndex = Annotated[int | None, Meta(minimum=0)]
"""An index into the result's players or teams, or null."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultPlayer(JsonObject):
    """One player of a finished game, as the leaderboard stores it."""

    name: Annotated[str, Meta(min_length=1)]
    team: Annotated[NullableIndex, Meta(description="Index into teams, or null.")] = omitted(
        null=True
    )
    score: Annotated[int, Meta(description="The side's final score.")]
    stats: Annotated[
        Mapping[str, Any] | None, Meta(description="As in the state (docs/state.md).")
    ] = omitted()
    start: Annotated[
        int | None,
        Meta(
            minimum=1,
            description="Only in an X01 game with handicaps: the points this player "
            "started from; the leaderboard re-scores the game from it.",
        ),
    ] = omitted()
    marks: Annotated[
        Mapping[str, Annotated[int, Meta(minimum=1, maximum=3)]] | None,
        Meta(
            description="Only in a Cricket game with handicaps: the player's spot marks "
            'before the first dart ({"20": 3, "bull": 2}; {} for none).'
        ),
    ] = omitted()
    board: Annotated[
        str | None,
        Meta(description="Only in a remote match: where the player threw, base/board."),
    ] = omitted()
    cpu: Annotated[
        CpuView | None,
        Meta(
            description="Only on a computer player: its level, spread and average "
            "(leaderboards rank people only)."
        ),
    ] = omitted()
    player_id: Annotated[
        int | None,
        Meta(
            minimum=1,
            description="The player's id in the venue's roster (docs/players.md): the "
            "leaderboard counts the game for that player whatever the name; null for a guest "
            "or a computer player. Absent: a board older than the lobby.",
        ),
    ] = omitted(null=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultLegPlayer(JsonObject):
    """One player in one leg of a match's result."""

    score: Annotated[int, Meta(description="The side's score at the leg's end.")]
    stats: Annotated[
        Mapping[str, Any] | None, Meta(description="The leg's statistics, as in the state.")
    ] = omitted()


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultLeg(JsonObject):
    """One leg of a match's result: its log, who threw first, who won it."""

    leg: Annotated[int, Meta(minimum=1, description="Its number in the match.")]
    set: Annotated[int | None, Meta(minimum=1, description="Its set; null: no sets.")] = omitted(
        null=True
    )
    starter: Annotated[int, Meta(minimum=0, description="The player who threw first.")]
    winner: Annotated[NullableIndex, Meta(description="The leg's winner, null for a draw.")]
    winner_team: NullableIndex = omitted(null=True)
    result: Annotated[str, Meta(description="How the leg ended: checkout, closed-all, ...")]
    log: Annotated[str, Meta(description="The leg's game log (oche replay reads it).")]
    players: Annotated[
        tuple[ResultLegPlayer, ...],
        Meta(min_items=1, max_items=MAX_PLAYERS, description="In the result's players' order."),
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultDocument(JsonObject):
    """A finished game's ``result`` payload (:func:`result_document` builds one)."""

    result_id: Annotated[
        str,
        Meta(description="Unique per finished game; the same on every redelivery.", min_length=1),
    ]
    board: Annotated[str, Meta(description="The board id.")]
    game: Annotated[str, Meta(description="The game id.", min_length=1)]
    options: Annotated[
        Mapping[str, Any] | None, Meta(description="The game's options, defaults filled in.")
    ] = omitted()
    players: Annotated[tuple[ResultPlayer, ...], Meta(min_items=1, max_items=MAX_PLAYERS)]
    teams: Annotated[
        Any,
        Meta(
            given=STATE_SCHEMA["properties"]["teams"],
            given_defs={"team": STATE_SCHEMA["$defs"]["team"]},
        ),
    ] = omitted(null=True)
    winner: Annotated[NullableIndex, Meta(description="Winning player index, null for a draw.")]
    winner_name: str | None = omitted(null=True)
    winner_team: NullableIndex = omitted(null=True)
    result: Annotated[
        str, Meta(description="How the game ended: checkout, closed-all, round-limit, ...")
    ]
    started_at: Annotated[
        Timestamp | None,
        Meta(description="Unix time in seconds (float), before 2100; null when unknown."),
    ] = omitted(null=True)
    finished_at: Timestamp
    log: Annotated[str | None, Meta(description="The game log (oche replay reads it).")] = omitted()
    match: Annotated[
        str | None, Meta(description="Only in a remote match: its id (docs/remote.md).")
    ] = omitted()
    game_key: Annotated[
        str | None,
        Meta(
            description="The game this result is of, the same in every revision (the "
            "result_id of its first). Absent: the result_id.",
            min_length=1,
        ),
    ] = omitted()
    revision: Annotated[
        int | None,
        Meta(
            description="1 for a game's first result; one more each time the game is "
            "reopened by an undo and finished again or abandoned. A consumer keeps only "
            "the highest revision of each game_key. Absent: 1.",
            minimum=1,
        ),
    ] = omitted()
    withdrawn: Annotated[
        bool | None,
        Meta(
            description="True: the game of game_key no longer counts (it was reopened "
            "after this revision's previous result and then abandoned); the rest of the "
            "document is that previous result's."
        ),
    ] = omitted()
    match_format: Annotated[
        MatchPlay | None,
        Meta(description="Only for a match (docs/matches.md): its format."),
    ] = omitted()
    match_id: Annotated[
        str | None,
        Meta(
            description="Only for a match: its id, the same in every revision (its game_key).",
            min_length=1,
        ),
    ] = omitted()
    legs: Annotated[
        tuple[ResultLeg, ...] | None,
        Meta(
            description="Only for a match: every leg played, in order. The players' stats "
            "are then the match's, over all its legs; log is absent.",
            min_items=1,
        ),
    ] = omitted()
    legs_won: Annotated[
        tuple[Annotated[int, Meta(minimum=0)], ...] | None,
        Meta(description="Only for a match: legs won per side over the whole match."),
    ] = omitted()
    sets_won: Annotated[
        tuple[Annotated[int, Meta(minimum=0)], ...] | None,
        Meta(description="Only for a match in sets: sets won per side."),
    ] = omitted()
    call_id: Annotated[
        str | None,
        Meta(
            description="Only for a match the venue's service called (call_match): the "
            "call's id, which advances its tournament or league.",
            pattern=CALL_ID_PATTERN,
        ),
    ] = omitted()
    clock_synced: Annotated[
        bool | None,
        Meta(
            description="False when the board's clock was not synchronised (a board "
            "without a real-time clock before NTP answered): started_at and finished_at "
            "are then not dates, and a leaderboard dates the game by its arrival. "
            "Absent: true."
        ),
    ] = omitted()


RESULT_TOPIC = (
    "Oche result topic",
    "A finished game, for leaderboards. Delivered at least once: the same result may arrive "
    "again (after a reconnect or a restart of the daemon); dedupe by result_id.",
    lambda defs: object_schema(ResultDocument, defs),
)
"""The ``result`` topic's title, description and schema body."""


RESULT_STORED_STATUSES = ("stored", "duplicate", "superseded", "rejected")
"""What a leaderboard did with a result it received (``result/stored``): kept it,
had it already, had a later revision of its game, or refused it (kept as
rejected, docs/leaderboard.md). Each means the service has it: the board may
let it go."""


@dataclass(frozen=True, slots=True)
class ResultStored(JsonObject):
    """A leaderboard's ``result/stored``: what it did with the result ``result_id``."""

    result_id: Annotated[str, Meta(description="The result's result_id.")]
    status: Annotated[str, Meta(enum=RESULT_STORED_STATUSES)]
    at: Annotated[Timestamp | None, Meta(description="When the service stored it.")] = omitted()

    def payload(self) -> bytes:
        """The message as published: compact JSON."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


RESULT_STORED_TOPIC = (
    "Oche result/stored topic",
    "Published by a leaderboard service after the result is in its database (committed), "
    "for every result it receives, redeliveries included. The board keeps a result in its "
    "outbox until this arrives, and sends again what is not stored whenever a leaderboard "
    "comes online.",
    lambda defs: object_schema(ResultStored, defs),
)
"""The ``result/stored`` topic's title, description and schema body."""


def handicap_json(player: Mapping[str, Any]) -> dict[str, Any]:
    """A result player's handicap keys from their state: ``start`` (X01) and
    ``marks`` (Cricket's ``spot_marks``), only in a game with handicaps."""
    handicap: dict[str, Any] = {}
    if "start" in player:
        handicap["start"] = player["start"]
    if "spot_marks" in player:
        handicap["marks"] = dict(player["spot_marks"])
    return handicap


def result_document(
    game: Game | Match,
    *,
    result_id: str,
    board: str,
    started_at: float | None,
    finished_at: float,
    cpu: Mapping[int, Mapping[str, Any]] | None = None,
    game_key: str | None = None,
    revision: int = 1,
    clock_synced: bool = True,
) -> dict[str, Any]:
    """The ``result`` payload of a finished ``game`` (its schema above): what
    the daemon publishes, and what the leaderboard's sample results imitate.
    ``cpu`` marks the computer players (seat -> their state's ``cpu``);
    ``game_key`` and ``revision`` say which game this is and how often it was
    finished again (absent: this result's id, revision 1). A :class:`Match`
    with a format gives a match's document (:func:`_match_document`); one
    without is its single game's."""
    if isinstance(game, Match):
        if game.format is not None:
            return _match_document(
                game,
                result_id=result_id,
                board=board,
                started_at=started_at,
                finished_at=finished_at,
                cpu=cpu,
                game_key=game_key,
                revision=revision,
                clock_synced=clock_synced,
            )
        game = game.leg
    state = game.state()
    players = _player_lines(state, [p["stats"] for p in state["players"]], cpu)
    return _document(
        state,
        players,
        state["winner_team"],
        {"log": format_game_log(game)},
        result_id=result_id,
        board=board,
        started_at=started_at,
        finished_at=finished_at,
        game_key=game_key,
        revision=revision,
        clock_synced=clock_synced,
    )


def _player_lines(
    state: Mapping[str, Any],
    stats: Sequence[Any],
    cpu: Mapping[int, Mapping[str, Any]] | None,
) -> list[dict[str, Any]]:
    """A result's ``players``: each seat's name, team, score and ``stats``,
    their handicap (``start``, ``marks``) and a computer player's ``cpu``."""
    players: list[dict[str, Any]] = []
    for seat, player in enumerate(state["players"]):
        line = {"name": player["name"], "team": player["team"], "score": player["score"]}
        line["stats"] = stats[seat]
        line.update(handicap_json(player))
        if cpu is not None and seat in cpu:
            line["cpu"] = dict(cpu[seat])
        players.append(line)
    return players


def _document(
    state: Mapping[str, Any],
    players: list[dict[str, Any]],
    winner_team: int | None,
    played: Mapping[str, Any],
    *,
    result_id: str,
    board: str,
    started_at: float | None,
    finished_at: float,
    game_key: str | None,
    revision: int,
    clock_synced: bool,
) -> dict[str, Any]:
    """A result's keys in the contract's order, what was ``played`` (a game's
    ``log``, a match's legs) after its times; ``clock_synced`` only when false."""
    winner = state["winner"]
    document: dict[str, Any] = {
        "result_id": result_id,
        "board": board,
        "game": state["game"],
        "options": state["options"],
        "players": players,
        "teams": state["teams"],
        "winner": winner,
        "winner_name": state["players"][winner]["name"] if winner is not None else None,
        "winner_team": winner_team,
        "result": state["result"],
        "started_at": started_at,
        "finished_at": finished_at,
        **{k: v for k, v in played.items() if k == "log"},
        "game_key": game_key or result_id,
        "revision": revision,
        **{k: v for k, v in played.items() if k != "log"},
    }
    if not clock_synced:
        document["clock_synced"] = False
    return document


def _match_document(
    match: Match,
    *,
    result_id: str,
    board: str,
    started_at: float | None,
    finished_at: float,
    cpu: Mapping[int, Mapping[str, Any]] | None,
    game_key: str | None,
    revision: int,
    clock_synced: bool,
) -> dict[str, Any]:
    """A match's ``result``: the players' statistics over every leg, the
    format, each leg (its log with the side that threw first, its winner and
    statistics), the legs and sets won; no top-level log (docs/matches.md)."""
    assert match.format is not None
    state = match.state()
    outcome = match.outcome()
    players = _player_lines(
        state, [match.stats(seat) for seat in range(len(state["players"]))], cpu
    )
    legs = []
    for record in match.legs:
        leg_state = record.game.state()
        legs.append(
            {
                "leg": record.number,
                "set": record.set,
                "starter": record.starter,
                "winner": record.outcome.winner,
                "winner_team": record.outcome.team,
                "result": str(record.outcome.reason),
                "log": format_game_log(record.game, first=True),
                "players": [
                    {"score": line["score"], "stats": line["stats"]}
                    for line in leg_state["players"]
                ],
            }
        )
    sets = match.sets_won()
    played: dict[str, Any] = dict(  # keywords: the key "legs" is a game's id too
        match_format=MatchPlay.of(replace(match.format, decider=match.decider_rule)).to_json(),
        match_id=game_key or result_id,
        legs=legs,
        legs_won=list(match.legs_won()),
    )
    if sets is not None:
        played["sets_won"] = list(sets)
    return _document(
        {**state, "winner": None if outcome is None else outcome.winner},
        players,
        None if outcome is None else outcome.team,
        played,
        result_id=result_id,
        board=board,
        started_at=started_at,
        finished_at=finished_at,
        game_key=game_key,
        revision=revision,
        clock_synced=clock_synced,
    )
