"""The leaderboard API's JSON, as pydantic models: what ``/api/...`` returns,
what ``oche leaderboard show --json`` prints and what the pages render. The
queries build these; the routers and templates only pass them on. The rows'
figures are made from :data:`leaderboard.figures.FIGURES` (:data:`ROW_MODELS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel, Field, create_model

from engine.traits import Family
from leaderboard.figures import row_figures
from mqtt_contract import Period

__all__ = [
    "ROW_MODELS",
    "AveragePoint",
    "CommandTaken",
    "CountUpRow",
    "CpuLevel",
    "CpuPlayers",
    "CricketRow",
    "DeviceInfo",
    "GameCatalogue",
    "GameEntry",
    "GameOptionEntry",
    "LeaderboardRow",
    "LegSummary",
    "LiveBoard",
    "Paired",
    "PairingStatus",
    "Period",
    "PlayerCard",
    "PlayerGameStats",
    "RatingPoint",
    "RecordEntry",
    "Records",
    "RejectedEntry",
    "ResultDetail",
    "ResultPlayer",
    "ResultSummary",
    "Row",
    "SoftTipRatingCard",
    "VisitBreakdown",
    "X01Row",
]


class LeaderboardRow(BaseModel):
    """One player in one game's table, ordered by rank (the rating's ordinal).
    ``played`` and ``won`` count matches (a single game is a match of one leg),
    ``legs_won`` and ``legs_lost`` their legs."""

    rank: int
    player: str
    player_id: int = Field(description="The player's stable id in the venue's roster.")
    venue: str
    played: int
    won: int
    legs_won: int = Field(0, description="Legs won over the matches played.")
    legs_lost: int = Field(0, description="Legs another side won over the matches played.")
    win_percent: float
    rating: float
    highlight: float | None = None


def _row_model(name: str, family: Family) -> type[LeaderboardRow]:
    """The row model of a family of games: :class:`LeaderboardRow` and a field
    for each of its figures (:func:`row_figures`, in the table's order); a count
    is an int, a best or a ratio None until there is one (every field required)."""
    fields: dict[str, Any] = {
        figure.name: (figure.value_type | None if figure.nullable else figure.value_type, ...)
        for figure in row_figures(family)
    }
    return create_model(name, __base__=LeaderboardRow, __module__=__name__, **fields)


X01Row = _row_model("X01Row", Family.COUNTDOWN)
CricketRow = _row_model("CricketRow", Family.MARKS)
CountUpRow = _row_model("CountUpRow", Family.POINTS)

ROW_MODELS: dict[Family, type[LeaderboardRow]] = {
    Family.COUNTDOWN: X01Row,
    Family.MARKS: CricketRow,
    Family.POINTS: CountUpRow,
    Family.PLAIN: LeaderboardRow,
}
"""The row model of each family of games."""

if TYPE_CHECKING:
    Row: TypeAlias = LeaderboardRow
    """To a type checker every row is a :class:`LeaderboardRow` (the figures are
    made at import, read by name)."""
else:
    Row = X01Row | CricketRow | CountUpRow | LeaderboardRow
    """A row of any family: the union pydantic validates, serialises and
    writes into the OpenAPI document (``anyOf``)."""


class PlayerGameStats(BaseModel):
    """A player's figures in one game over all time (the player card)."""

    game: str
    row: Row
    awards: dict[str, int] = Field(
        default_factory=dict,
        description="How many of each award (its id: `ton-80`, `hat-trick`) the player "
        "threw in this game, the awards thrown only, best first.",
    )


class RatingPoint(BaseModel):
    game: str
    at: float
    rating: float


class AveragePoint(BaseModel):
    """One result's average for the card's chart: three-dart average in X01,
    marks per round in Cricket, the highlight elsewhere."""

    game: str
    at: float
    value: float
    result_id: str


class ResultSummary(BaseModel):
    """A stored result in a line. ``board`` and ``venue`` are where it was
    played (a remote match's host); ``venues`` adds its players' own venues,
    and ``match`` is a remote match's id (docs/leaderboard.md, "Remote matches").
    ``cpu_levels`` gives each of ``players`` its computer level (None: a person)."""

    result_id: str
    board: str
    venue: str
    game: str
    finished_at: float
    players: list[str]
    winner_name: str | None
    result: str
    venues: list[str] = Field(default_factory=list)
    match: str | None = None
    cpu_levels: list[int | None] = Field(default_factory=list)


class SoftTipRatingCard(BaseModel):
    """A player's soft-tip rating (1-18, like DARTSLIVE's) with its flight
    and the figures it is made of: Count-Up's points per round and Cricket
    Count-Up's MPR (null: no games of that kind)."""

    rating: float
    flight: str
    points_per_round: float | None
    mpr: float | None


class PlayerCard(BaseModel):
    name: str
    venue: str
    games: list[PlayerGameStats]
    rating_history: list[RatingPoint]
    average_history: list[AveragePoint]
    recent: list[ResultSummary]
    soft_tip_rating: SoftTipRatingCard | None = None
    """From the player's Count-Up and Cricket Count-Up games; null without any."""


class ResultPlayer(BaseModel):
    """One player's line in a result; ``venue`` is the table they count in,
    ``board`` where they threw in a remote match (``base/board``; else null),
    ``cpu_level`` a computer player's level (null: a person)."""

    name: str
    team: int | None
    score: int
    won: bool
    darts: int
    highlight: float | None
    legs_won: int = 0
    legs_lost: int = 0
    venue: str | None = None
    board: str | None = None
    cpu_level: int | None = None


class VisitBreakdown(BaseModel):
    player: int
    darts: list[str]
    points: int
    marks: int
    bust: bool
    score_after: int
    leg: int = Field(1, description="The match's leg it was thrown in (1 in a single game).")


class LegSummary(BaseModel):
    """One leg of a match: its number and set, who threw first and who won it
    (player indexes; winner null for a drawn leg), how it ended."""

    leg: int
    set: int | None
    starter: int
    winner: int | None
    result: str


class ResultDetail(ResultSummary):
    options: dict[str, object]
    started_at: float | None
    winner: int | None
    result_players: list[ResultPlayer]
    visits: list[VisitBreakdown]
    match_format: dict[str, object] | None = Field(
        None, description="A match's format (docs/matches.md); null for a single game."
    )
    legs: list[LegSummary] = Field(
        default_factory=list, description="A match's legs in order; empty for a single game."
    )


class RecordEntry(BaseModel):
    """One record: who set it, the value, and the game it came from."""

    game: str
    label: str
    player: str
    value: float
    result_id: str
    at: float
    award: str | None = Field(
        default=None, description="For a most-awards record: the award's id (`hat-trick`)."
    )


class Records(BaseModel):
    period: Period
    venue: str | None
    highest_checkout: RecordEntry | None
    best_leg: RecordEntry | None
    most_180s: RecordEntry | None
    highlights: list[RecordEntry]
    most_awards: list[RecordEntry] = Field(
        default_factory=list,
        description="For each award thrown in the period, who threw it most often "
        "(in any game; `game` is that player's latest such game's), best award first.",
    )


class RejectedEntry(BaseModel):
    """A payload that is not counted: ``rejected`` (the rules refuse it) or
    ``failed`` (this service failed on it; ``oche leaderboard rescore``)."""

    result_id: str | None
    board: str | None
    reason: str
    received_at: float
    status: Literal["rejected", "failed"] = "rejected"


class LiveBoard(BaseModel):
    """A board as the TV page shows it: its last state and availability."""

    board: str
    venue: str
    availability: Literal["online", "offline", "unknown"]
    state: dict[str, object] | None


class DeviceInfo(BaseModel):
    """A browser paired to control a board: the id the service minted, the name its owner gave."""

    id: str
    name: str


class Paired(BaseModel):
    """A pairing the board took: the token (shown this once: the service keeps
    its SHA-256 only) to send as ``Authorization: Bearer TOKEN``."""

    token: str
    board: str
    device: DeviceInfo


class PairingStatus(BaseModel):
    """What a token is: paired to ``board`` as ``device`` since ``paired_at``."""

    paired: Literal[True]
    board: str
    device: DeviceInfo
    paired_at: float


class CommandTaken(BaseModel):
    """The board took the command."""

    ok: Literal[True]


class GameOptionEntry(BaseModel):
    """One option of a game as a setup form offers it: ``type`` is ``bool``,
    ``int`` or ``str`` (the type of ``default``); ``choices`` or the bounds say
    what it takes."""

    name: str
    type: Literal["bool", "int", "str"]
    default: bool | int | str
    help: str
    choices: list[bool | int | str]
    minimum: int | None
    maximum: int | None


class GameEntry(BaseModel):
    """A game a board plays, for a setup form: its options and the lineups it
    takes (``sides_min`` to ``sides_max`` players, or teams when ``teams``)."""

    id: str
    name: str
    summary: str
    options: list[GameOptionEntry]
    lineup: str = Field(description='The lineups in words: "2 to 8 players or teams".')
    sides_min: int
    sides_max: int
    max_players: int
    teams: bool


class CpuLevel(BaseModel):
    """A computer player's level and the three-dart average it is built for."""

    level: int
    average: float


class CpuPlayers(BaseModel):
    """The computer players a ``new_game`` may have: ``{"cpu": LEVEL}`` or
    ``{"cpu": {"average": A}}`` with A from ``average_min`` to ``average_max``."""

    levels: list[CpuLevel]
    average_min: float
    average_max: float


class GameCatalogue(BaseModel):
    """``GET /api/games``: every game, and the computer players."""

    games: list[GameEntry]
    cpu: CpuPlayers
