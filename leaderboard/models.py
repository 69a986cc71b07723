"""The leaderboard's tables as typed SQLAlchemy models. Every figure a ranking
needs is a real numeric column of ``result_players`` (with the result's game,
venue and time copied beside it), so tables aggregate in SQL on one index.
The figure columns of ``result_players`` and ``player_totals`` are made from
:data:`leaderboard.figures.FIGURES` (:class:`LineFigures`, :class:`TotalFigures`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import (
    DeclarativeBase,
    InstrumentedAttribute,
    Mapped,
    MappedColumn,
    mapped_column,
)

from leaderboard.figures import LINE_FIGURES, TOTAL_FIGURES, Figure

__all__ = [
    "Base",
    "BoardClaim",
    "BoardPairing",
    "League",
    "LeagueFixture",
    "LeagueGame",
    "LeagueTeam",
    "LineFigures",
    "MatchCall",
    "Player",
    "PlayerCard",
    "PlayerRating",
    "PlayerTotal",
    "Rating",
    "Rejected",
    "Result",
    "ResultPlayer",
    "Superseded",
    "TotalFigures",
    "Tournament",
    "TournamentMatch",
    "TournamentPlayer",
    "Venue",
]

NAME_LENGTH = 200
"""Longest player, venue, board or result id stored (longer ones are refused)."""


class Base(DeclarativeBase):
    """The models' base, with constraint names fixed for the migrations."""

    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(table_name)s_%(column_0_N_name)s",
            "uq": "uq_%(table_name)s_%(column_0_N_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


class Venue(Base):
    """A bar, a club or a home: where boards are (``[leaderboard.venues]``)."""

    __tablename__ = "venues"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    """IANA name: the venue's ``day`` runs midnight to midnight there (from the
    config's ``[leaderboard]``, refreshed by each stored result)."""


class Player(Base):
    """A name within a venue, with a stable id (the roster's): ``key`` is the
    name case-folded and stripped; ``name`` the most recent spelling (of the
    latest game, ``name_at``, or as the roster set it)."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("venue_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(NAME_LENGTH))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    name_at: Mapped[float] = mapped_column(Float)
    registered_at: Mapped[float | None] = mapped_column(Float, default=None)
    """When the player was added to the roster by hand (``oche players add``);
    such a player stays without a game. None: first seen in a game (and kept
    only while they have one)."""


class PlayerCard(Base):
    """A player's card as its keyed hash (``credentials.card_hash``, the
    venue's secret): never the UID. A card belongs to one player of a venue."""

    __tablename__ = "player_cards"
    __table_args__ = (UniqueConstraint("venue_id", "card_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id", ondelete="CASCADE"))
    card_hash: Mapped[str] = mapped_column(String(64))
    added_at: Mapped[float] = mapped_column(Float)


class BoardPairing(Base):
    """A browser paired to control a board from the web (docs/leaderboard.md,
    "Controlling a board"): its bearer token as a SHA-256 digest only (the
    token itself is shown to the browser once), the board it controls, and
    the device id and name the board lists on its ``pairing`` topic."""

    __tablename__ = "board_pairings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """The token's SHA-256, hex: a token is looked up by its digest."""
    board: Mapped[str] = mapped_column(String(NAME_LENGTH), index=True)
    device_id: Mapped[str] = mapped_column(String(64), unique=True)
    device_name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Float)


class Result(Base):
    """One stored game, re-scored from its log; ``result_id`` is unique, and so
    is ``game_key``: of a game finished again after an undo only the highest
    revision is here (the others are :class:`Superseded`)."""

    __tablename__ = "results"
    __table_args__ = (
        Index(None, "game", "finished_at", "result_id"),
        Index(None, "venue_id", "finished_at"),
        Index(None, "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    board: Mapped[str] = mapped_column(String(NAME_LENGTH))
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id"))
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[str] = mapped_column(String(64))
    winner: Mapped[int | None] = mapped_column(Integer)
    winner_name: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    started_at: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[float] = mapped_column(Float)
    received_at: Mapped[float] = mapped_column(Float)
    visits: Mapped[list[Any]] = mapped_column(JSON)
    """The replay's visits (``scoring.VisitLine`` as lists), for the breakdown."""
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The result document as received (names replaced when a player is forgotten)."""
    match: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    """A remote match's id (the result's ``match``); None for a game on one board."""
    game_key: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    """The game this result is of (the ``result_id`` of its first result)."""
    revision: Mapped[int] = mapped_column(Integer, default=1)
    """1 for a game's first result, one more each time it was finished again."""
    match_format: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """A match's format (the result's ``match_format``); None for a single game."""
    match_legs: Mapped[list[Any] | None] = mapped_column(JSON, default=None)
    """A match's legs as replayed (``scoring.LegLine`` as objects: leg, set,
    starter, winner, result); None for a single game (one leg)."""


def _figure_column(figure: Figure, default: int | None) -> MappedColumn[Any]:
    """A figure's column: an Integer or a Float, NULL allowed for a best (a
    count is NOT NULL, ``default`` its value when an insert gives none)."""
    sql_type = Float if figure.value_type is float else Integer
    return mapped_column(sql_type, nullable=figure.nullable, default=default)


class _Figures:
    """A model whose figure columns are made from :data:`leaderboard.figures.FIGURES`:
    a mixin made with ``columns`` (by figure name) adds them to each model that
    inherits it (declarative copies a mixin's columns); :meth:`figure` reads one."""

    figure_columns: ClassVar[frozenset[str]] = frozenset()
    """The names of the figure columns."""

    def __init_subclass__(
        cls, columns: Mapping[str, MappedColumn[Any]] | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        if columns is not None:
            for name, column in columns.items():
                setattr(cls, name, column)
            cls.figure_columns = frozenset(columns)

    @classmethod
    def figure(cls, name: str) -> InstrumentedAttribute[Any]:
        """The column of the figure ``name`` (a KeyError names what is not one)."""
        if name not in cls.figure_columns:
            raise KeyError(f"{name!r} is not a figure column of {cls.__name__}")
        column: InstrumentedAttribute[Any] = getattr(cls, name)
        return column

    def figure_value(self, name: str) -> Any:
        """This row's value of the figure ``name`` (a KeyError names what is not one)."""
        type(self).figure(name)
        return getattr(self, name)


class LineFigures(
    _Figures,
    columns={str(f.column): _figure_column(f, None if f.nullable else 0) for f in LINE_FIGURES},
):
    """The figures a result stores for each player (:data:`LINE_FIGURES`), one
    column each in ``result_players``: a count 0 unless the insert gives one, a best NULL."""


class TotalFigures(_Figures, columns={f.name: _figure_column(f, None) for f in TOTAL_FIGURES}):
    """The figures a player's kept totals hold (:data:`TOTAL_FIGURES`), one
    column each in ``player_totals``."""


class ResultPlayer(LineFigures, Base):
    """One player's figures in one result (``scoring.PlayerLine``). ``player_id``
    is null for a computer player, and once the player was forgotten; ``name``
    is the spelling played under."""

    __tablename__ = "result_players"
    __table_args__ = (
        UniqueConstraint("result_pk", "seat"),
        Index(None, "game", "finished_at"),
        Index(None, "game", "venue_id", "finished_at"),
        Index(None, "player_id", "game", "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_pk: Mapped[int] = mapped_column(ForeignKey("results.id", ondelete="CASCADE"))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    game: Mapped[str] = mapped_column(String(64))
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id"))
    """The player's venue: their own board's in a remote match, else the result's."""
    board: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    """A remote match player's board (``base/board``); None at the result's board."""
    finished_at: Mapped[float] = mapped_column(Float)
    team: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    placement: Mapped[int] = mapped_column(Integer)
    darts: Mapped[int] = mapped_column(Integer)
    highlight: Mapped[float | None] = mapped_column(Float)
    cpu_level: Mapped[int | None] = mapped_column(Integer, default=None)
    """A computer player's level (the result's ``cpu``): such a line has no
    ``player_id``, so it is in no table, rating or record. None for a person
    (and for every line stored before migration 0005)."""


class PlayerTotal(TotalFigures, Base):
    """A player's all-time figures in one game: the sums, bests and worsts of
    their ``result_players`` rows, kept up to date by each stored result, so
    the all-time table reads one row a player instead of adding up every game."""

    __tablename__ = "player_totals"

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    played: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)
    highlight: Mapped[float | None] = mapped_column(Float)
    darts: Mapped[int] = mapped_column(Integer)


class Rejected(Base):
    """A payload that is not counted, with why: ``status`` ``rejected`` (the
    rules refuse it) or ``failed`` (re-scoring it raised: a fault of this
    service, tried again by ``oche leaderboard rescore``). ``dedupe_key`` (the
    result id, else a digest of the bytes) keeps a redelivered one from being
    counted twice."""

    __tablename__ = "rejected"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    dedupe_key: Mapped[str] = mapped_column(String(NAME_LENGTH + 16), unique=True)
    result_id: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    board: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    reason: Mapped[str] = mapped_column(Text)
    received_at: Mapped[float] = mapped_column(Float, index=True)
    payload: Mapped[str] = mapped_column(Text)
    """The payload as received, whole (up to ``store.MAX_RESULT_BYTES``), as
    text: bytes that are not UTF-8, and NULs, as ``\\xNN`` escapes. Rows kept
    before migration 0006 have only their first 4,096 characters."""
    status: Mapped[str] = mapped_column(String(16), default="rejected", index=True)
    """``rejected`` or ``failed``."""
    error: Mapped[str | None] = mapped_column(Text, default=None)
    """A failed one's traceback (its innermost frames); None when rejected."""


class Superseded(Base):
    """A result that does not count because its game has a later revision, kept
    for audit: ``why`` is ``superseded`` (it arrived when a revision as high was
    stored already), ``replaced`` (it counted until a higher revision came),
    ``withdrawal`` (a ``withdrawn`` revision: the game no longer counts) or
    ``withdrawn`` (it counted until its game was withdrawn)."""

    __tablename__ = "superseded_results"
    __table_args__ = (Index(None, "game_key", "revision"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    game_key: Mapped[str] = mapped_column(String(NAME_LENGTH))
    revision: Mapped[int] = mapped_column(Integer)
    why: Mapped[str] = mapped_column(String(16))
    superseded_by: Mapped[str | None] = mapped_column(String(NAME_LENGTH))
    """The ``result_id`` of the revision that counts instead (or withdrew it)."""
    board: Mapped[str] = mapped_column(String(NAME_LENGTH))
    game: Mapped[str] = mapped_column(String(64))
    finished_at: Mapped[float] = mapped_column(Float)
    received_at: Mapped[float] = mapped_column(Float)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The result document as received (names replaced when a player is forgotten)."""


class Rating(Base):
    """A player's rating in a game family after one result: the history."""

    __tablename__ = "ratings"
    __table_args__ = (
        Index(None, "game", "at", "result_id"),
        Index(None, "player_id", "game", "at"),
        Index(None, "result_pk"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(64))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    result_pk: Mapped[int] = mapped_column(ForeignKey("results.id", ondelete="CASCADE"))
    result_id: Mapped[str] = mapped_column(String(NAME_LENGTH))
    at: Mapped[float] = mapped_column(Float)
    """The result's ``finished_at``: ratings are applied in (at, result_id) order."""


class PlayerRating(Base):
    """A player's current rating in a game family (the last :class:`Rating`)."""

    __tablename__ = "player_ratings"
    __table_args__ = (Index(None, "game", "ordinal"),)

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)


# --- match calls ---


class MatchCall(Base):
    """A match the service calls to one of a venue's boards (a tournament's or
    a league's, :mod:`leaderboard.match_calls`): who plays what, where it may
    be played, and how far it got. ``status`` goes ready -> called (claimed
    for ``board``, ``call_match`` sent) -> playing -> finished, or to walkover
    / cancelled; a refused call goes back to ready. At most one call is
    called or playing on a board (the partial unique index decides)."""

    __tablename__ = "match_calls"
    __table_args__ = (
        Index(None, "status", "created_at"),
        Index(None, "owner_kind", "owner_id"),
        Index(
            "ix_match_calls_board_busy",
            "board",
            unique=True,
            sqlite_where=text("status IN ('called', 'playing')"),
            postgresql_where=text("status IN ('called', 'playing')"),
        ),
    )

    call_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner_kind: Mapped[str] = mapped_column(String(16))
    """``tournament`` or ``league``: whose ``on_finished`` a finished call runs."""
    owner_id: Mapped[int] = mapped_column(Integer)
    title: Mapped[str | None] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    match_format: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """The match's format as ``MatchPlay`` JSON; None: a single game."""
    players: Mapped[list[Any]] = mapped_column(JSON)
    """``[{"name", "player_id"}, ...]`` in the order they play (side order);
    a player with ``"board"`` throws at that board (a remote match)."""
    teams: Mapped[list[Any] | None] = mapped_column(JSON, default=None)
    """A team game's teams, ``[{"name", "players": [names]}, ...]`` in side
    order; None: every player is a side."""
    boards: Mapped[list[Any]] = mapped_column(JSON)
    """The boards it may be called to (board ids, or ``base/board``)."""
    board: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    """The board it was called to (one of ``boards``); None while ready."""
    status: Mapped[str] = mapped_column(String(16), default="ready")
    result_id: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    winner: Mapped[int | None] = mapped_column(Integer, default=None)
    """The winning side's index (a player's, or a team's); None: a draw, or not over."""
    legs_won: Mapped[list[Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[float] = mapped_column(Float)
    called_at: Mapped[float | None] = mapped_column(Float, default=None)
    finished_at: Mapped[float | None] = mapped_column(Float, default=None)


# --- tournaments ---


class Tournament(Base):
    """A bar tournament the service runs (docs/matches.md, "Tournaments"):
    its format, the game and match format every match is played in, and
    the boards its matches are called to (``base/board``)."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(NAME_LENGTH))
    format: Mapped[str] = mapped_column(String(32))
    """``round-robin``, ``single-elimination`` or ``double-elimination``."""
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    match_format: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The matches' format as ``MatchPlay`` JSON (``{"legs": 2, "starts": "alternate"}``)."""
    boards: Mapped[list[str]] = mapped_column(JSON)
    venue_id: Mapped[int] = mapped_column(ForeignKey("venues.id"))
    status: Mapped[str] = mapped_column(String(16), default="running")
    """``running`` until its last match is decided, then ``finished``."""
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, default=None)


class TournamentPlayer(Base):
    """A tournament's player in seed order (0 the top seed): the roster's
    player when the name is on it, else a guest (``player_id`` None)."""

    __tablename__ = "tournament_players"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    seed: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id", ondelete="SET NULL"), default=None
    )
    rating: Mapped[float | None] = mapped_column(Float, default=None)
    """Their rating in the game when the tournament was drawn (None: unrated)."""


class TournamentMatch(Base):
    """One match of a tournament's bracket (``tournament_formats.Slot`` by
    its key): its called match once its players were known, and how it was
    decided (``played`` or ``walkover``), by which side (0 or 1)."""

    __tablename__ = "tournament_matches"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(16), primary_key=True)
    call_id: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    winner: Mapped[int | None] = mapped_column(Integer, default=None)
    legs_won: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    decided_by: Mapped[str | None] = mapped_column(String(16), default=None)
    """``played``, ``walkover``, or None while undecided."""
    result_id: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    decided_at: Mapped[float | None] = mapped_column(Float, default=None)


# --- leagues ---


class League(Base):
    """A league's season (docs/matches.md, "Leagues"): its name, its points
    rules and its team-match format (``league_rules.TeamMatchFormat`` as JSON)."""

    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    season: Mapped[str] = mapped_column(String(64), default="")
    points_win: Mapped[int] = mapped_column(Integer, default=2)
    points_draw: Mapped[int] = mapped_column(Integer, default=1)
    points_loss: Mapped[int] = mapped_column(Integer, default=0)
    points_per_game: Mapped[int] = mapped_column(Integer, default=0)
    """Points for each game a team wins in a fixture, beside the fixture's own."""
    format: Mapped[list[Any]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)


class LeagueTeam(Base):
    """A team of a league and its players in order: a JSON list of
    ``{"name", "player_id"}`` (the roster's id, or null for a guest)."""

    __tablename__ = "league_teams"
    __table_args__ = (UniqueConstraint("league_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(NAME_LENGTH))
    """The name case-folded and stripped: two teams of a league differ in it."""
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    players: Mapped[list[Any]] = mapped_column(JSON)


class BoardClaim(Base):
    """A board a called or playing call holds (:func:`match_calls.claim_board`):
    its home board and, for a remote match, each away board. The primary key
    decides between service instances that a board is held by one call; a
    row whose call is no longer live is stale and taken over by the next claim."""

    __tablename__ = "board_claims"

    board: Mapped[str] = mapped_column(String(NAME_LENGTH), primary_key=True)
    """The board id (the last level of ``base/board``)."""
    call_id: Mapped[str] = mapped_column(
        ForeignKey("match_calls.call_id", ondelete="CASCADE"), index=True
    )


class LeagueFixture(Base):
    """One night of a league: home team v away team, its date and the boards
    its games are called to (the home venue's)."""

    __tablename__ = "league_fixtures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    home_team_id: Mapped[int] = mapped_column(ForeignKey("league_teams.id", ondelete="CASCADE"))
    away_team_id: Mapped[int] = mapped_column(ForeignKey("league_teams.id", ondelete="CASCADE"))
    date: Mapped[str | None] = mapped_column(String(32), default=None)
    boards: Mapped[list[Any]] = mapped_column(JSON)
    away_board: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    """A remote fixture's away board (``board`` or ``base/board``): its games
    are remote matches hosted by a home board, the away team at this one."""
    created_at: Mapped[float] = mapped_column(Float)


class LeagueGame(Base):
    """One game of a fixture: its place in the format, who plays it for each
    side (JSON lists of ``{"name", "player_id"}``), the called match that
    plays it (``call_id``) and, once decided, its winner (0 home, 1 away,
    null a draw) and legs, from the match's result (``source`` ``oche``) or
    entered by hand (``hand``)."""

    __tablename__ = "league_games"
    __table_args__ = (UniqueConstraint("fixture_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fixture_id: Mapped[int] = mapped_column(ForeignKey("league_fixtures.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    game: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    match_format: Mapped[dict[str, Any]] = mapped_column(JSON)
    home_players: Mapped[list[Any]] = mapped_column(JSON)
    away_players: Mapped[list[Any]] = mapped_column(JSON)
    call_id: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    status: Mapped[str] = mapped_column(String(16))
    """``called`` (queued as a match call), ``by-hand`` (waits for ``oche league
    result``) or ``finished``."""
    winner: Mapped[int | None] = mapped_column(Integer, default=None)
    home_legs: Mapped[int | None] = mapped_column(Integer, default=None)
    away_legs: Mapped[int | None] = mapped_column(Integer, default=None)
    result_id: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    source: Mapped[str | None] = mapped_column(String(16), default=None)
    finished_at: Mapped[float | None] = mapped_column(Float, default=None)
