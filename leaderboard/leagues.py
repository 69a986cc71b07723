"""Leagues in the leaderboard's database (docs/matches.md, "Leagues"): a
league with its points rules, teams and team-match format; fixtures whose
singles games are each queued as a called match (:mod:`leaderboard.match_calls`,
owner ``league``) and decided by that match's result, inside the ingest's
transaction and exactly once; results entered by hand for a game not played
on Oche; and what ``oche league show`` and ``/api/leagues/{id}`` return, the
standings computed by :mod:`leaderboard.league_rules` from the games stored.

A pairs game is called as a team game (the call's ``teams``: the home pair
first). A remote fixture (``away_board``) calls each game to a home board
as a remote match, the away team's players throwing at the away board."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import MatchFormat
from leaderboard import match_calls
from leaderboard.league_rules import (
    FormatGame,
    GameKind,
    GameScore,
    LeagueRuleError,
    PointsRules,
    TeamMatchFormat,
    default_lineup,
    fixture_score,
    parse_legs,
    standings,
)
from leaderboard.models import (
    NAME_LENGTH,
    League,
    LeagueFixture,
    LeagueGame,
    LeagueTeam,
    MatchCall,
)
from leaderboard.players import PlayerError, find_player
from leaderboard.store import player_key
from mqtt_contract.match_payload import MatchPlay
from mqtt_contract.scoreboard import short_name
from mqtt_contract.topic_names import base_problem, board_id_problem

__all__ = [
    "CALL_ORDER_STEP",
    "OWNER_KIND",
    "FixtureGameView",
    "FixtureView",
    "LeagueError",
    "LeagueSummary",
    "LeagueView",
    "StandingRow",
    "TeamView",
    "add_fixture",
    "create_league",
    "enter_result",
    "find_league",
    "league_list",
    "league_view",
    "on_call_finished",
]

OWNER_KIND = "league"
"""The ``owner_kind`` of a league game's match call."""

CALL_ORDER_STEP = 0.001
"""Seconds between the queue times of a fixture's games: the caller takes the
oldest first, so they are called in the format's order."""

MAX_TITLE = 80
"""The longest title a called match shows (``call_match``'s ``title``)."""


class LeagueError(ValueError):
    """A league command that cannot be done: the message names the league,
    team, player, fixture or game that is wrong. Nothing was changed."""


class TeamView(BaseModel):
    """A team and its players, in order."""

    name: str
    players: list[str]


class FixtureGameView(BaseModel):
    """One game of a fixture: who plays it, its called match and its result."""

    number: int = Field(description="Its place in the fixture's format, from 1.")
    kind: str = Field(description="singles or pairs.")
    game: str
    options: dict[str, Any]
    match: dict[str, Any] = Field(description="Its match format (legs, sets, starts, decider).")
    home: list[str]
    away: list[str]
    status: str = Field(
        description="ready, called or playing (its called match), by-hand (waits for "
        "oche league result), cancelled, or finished."
    )
    call_id: str | None
    board: str | None = Field(description="The board its match was called to.")
    winner: str | None = Field(description="The winning team; null: not decided or a draw.")
    home_legs: int | None
    away_legs: int | None
    source: str | None = Field(description="oche (a match's result) or hand.")
    result_id: str | None


class FixtureView(BaseModel):
    """A fixture: home v away, its games and its score so far."""

    id: int
    home: str
    away: str
    date: str | None
    boards: list[str]
    away_board: str | None = Field(
        description="A remote fixture's away board: the away team throws there; null: "
        "everyone plays at the home venue."
    )
    status: str = Field(description="scheduled, playing or finished.")
    home_games: int
    away_games: int
    home_legs: int
    away_legs: int
    winner: str | None = Field(description="The winning team once finished; null: a draw.")
    games: list[FixtureGameView]


class StandingRow(BaseModel):
    """A team's line of the table."""

    rank: int
    team: str
    played: int
    won: int
    drawn: int
    lost: int
    games_for: int
    games_against: int
    legs_for: int
    legs_against: int
    points: int


class LeagueSummary(BaseModel):
    """A league in the list of leagues."""

    id: int
    name: str
    season: str
    teams: int
    fixtures: int


class LeagueView(BaseModel):
    """A league: its rules, teams, fixtures with their games, and standings."""

    id: int
    name: str
    season: str
    points: dict[str, int] = Field(description="win, draw, loss and per_game points.")
    format: list[dict[str, Any]] = Field(description="The team-match format's games, in order.")
    teams: list[TeamView]
    fixtures: list[FixtureView]
    standings: list[StandingRow]


def _rules(league: League) -> PointsRules:
    return PointsRules(
        league.points_win, league.points_draw, league.points_loss, league.points_per_game
    )


def _format(league: League) -> TeamMatchFormat:
    return TeamMatchFormat.from_json(league.format)


def _checked_text(what: str, value: str, longest: int = NAME_LENGTH) -> str:
    clean = value.strip()
    if not clean or len(clean) > longest or any(ord(c) < 32 or ord(c) == 127 for c in clean):
        raise LeagueError(f"{what} {value!r} is not a name (1 to {longest} plain characters)")
    return clean


def _roster_player(session: Session, name: str) -> dict[str, Any]:
    """A team's player as stored: the name, and the roster's id when exactly
    one player of the roster has that name (else a guest: null)."""
    try:
        player, _venue = find_player(session, name, None)
    except PlayerError:
        return {"name": name, "player_id": None}
    return {"name": player.name, "player_id": player.id}


def create_league(
    session: Session,
    *,
    name: str,
    teams: Sequence[tuple[str, Sequence[str]]],
    team_format: TeamMatchFormat,
    rules: PointsRules,
    season: str = "",
    now: float,
) -> League:
    """A new league with its teams; a LeagueError names a name taken, a team
    given twice, a player in two teams or a team too small for the format."""
    name = _checked_text("the league's name", name)
    if session.scalar(select(League.id).where(League.name == name)) is not None:
        raise LeagueError(f"there is a league called {name!r} already")
    if len(teams) < 2:
        raise LeagueError("a league needs at least two teams (--team NAME=PLAYER,...)")
    needed = team_format.players_needed()
    seen_teams: set[str] = set()
    seen_players: dict[str, str] = {}
    for team, players in teams:
        team = _checked_text("the team", team)
        if player_key(team) in seen_teams:
            raise LeagueError(f"team {team!r} is given twice")
        seen_teams.add(player_key(team))
        if len(players) < needed:
            raise LeagueError(
                f"team {team!r} has {len(players)} player(s); the format has a pairs game, "
                f"which needs {needed}"
            )
        for player in players:
            key = player_key(_checked_text(f"team {team!r}'s player", player, 64))
            if key in seen_players:
                raise LeagueError(
                    f"{player!r} is in team {seen_players[key]!r} and team {team!r}: "
                    "a player plays for one team of a league"
                )
            seen_players[key] = team
    league = League(
        name=name,
        season=_checked_text("the season", season, 64) if season.strip() else "",
        points_win=rules.win,
        points_draw=rules.draw,
        points_loss=rules.loss,
        points_per_game=rules.per_game,
        format=team_format.to_json(),
        created_at=now,
    )
    session.add(league)
    session.flush()
    for team, players in teams:
        session.add(
            LeagueTeam(
                league_id=league.id,
                key=player_key(team),
                name=team.strip(),
                players=[_roster_player(session, player.strip()) for player in players],
            )
        )
    session.flush()
    return league


def find_league(session: Session, ref: str | int) -> League:
    """The league ``ref`` (its id, or its name in any case); a LeagueError if none."""
    if isinstance(ref, int) or (ref.strip().isascii() and ref.strip().isdigit()):  # not "¹"
        found = session.get(League, int(ref))
    else:
        found = next(
            (
                league
                for league in session.scalars(select(League))
                if player_key(league.name) == player_key(ref)
            ),
            None,
        )
    if found is None:
        raise LeagueError(f"no league {ref!r} (oche league show lists them)")
    return found


def _teams(session: Session, league: League) -> list[LeagueTeam]:
    return list(
        session.scalars(
            select(LeagueTeam).where(LeagueTeam.league_id == league.id).order_by(LeagueTeam.id)
        )
    )


def _team(session: Session, league: League, name: str) -> LeagueTeam:
    for team in _teams(session, league):
        if team.key == player_key(name):
            return team
    names = ", ".join(team.name for team in _teams(session, league))
    raise LeagueError(f"league {league.name!r} has no team {name!r}; its teams are: {names}")


def _check_boards(boards: Sequence[str]) -> list[str]:
    """The boards a fixture's games are called to, each ``board`` or ``base/board``."""
    if not boards:
        raise LeagueError("a fixture needs the boards its games are played on (--board)")
    checked: list[str] = []
    for board in boards:
        base, slash, board_id = board.strip().rpartition("/")
        problem = board_id_problem(board_id) or (base_problem(base) if slash else None)
        if problem:
            raise LeagueError(f"--board {board!r}: {problem}")
        if board.strip() not in checked:
            checked.append(board.strip())
    return checked


def _side(
    team: LeagueTeam, names: Sequence[str], game: FormatGame, number: int
) -> list[dict[str, Any]]:
    """The team's players ``names`` for game ``number``, as stored; a
    LeagueError names a player not in the team, one named twice, or a count
    that is not the game's."""
    if len(names) != game.kind.players:
        raise LeagueError(
            f"game {number} is {game.kind.value}: team {team.name!r} fields "
            f"{game.kind.players} player(s), not {len(names)}"
        )
    by_key = {player_key(player["name"]): player for player in team.players}
    chosen: list[dict[str, Any]] = []
    for name in names:
        player = by_key.get(player_key(name))
        if player is None:
            listed = ", ".join(player["name"] for player in team.players)
            raise LeagueError(f"game {number}: {name!r} is not in team {team.name!r} ({listed})")
        if player in chosen:
            raise LeagueError(f"game {number}: {name!r} plays twice for team {team.name!r}")
        chosen.append(player)
    return chosen


def _title(league: League, home: str, away: str, number: int) -> str:
    title = f"{league.name}: {home} v {away}, game {number}"
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"


def _call_teams(home: LeagueTeam, away: LeagueTeam, game: LeagueGame) -> list[dict[str, Any]]:
    """A pairs game's teams as its call names them: the teams' names cut to
    what a board takes (``Home`` and ``Away`` if the cut names are one)."""
    names = [short_name(home.name), short_name(away.name)]
    if player_key(names[0]) == player_key(names[1]):
        names = ["Home", "Away"]
    return [
        {"name": names[0], "players": _names(game.home_players)},
        {"name": names[1], "players": _names(game.away_players)},
    ]


def _call_players(game: LeagueGame, away_board: str | None) -> list[dict[str, Any]]:
    """A game's players as its call has them, the home side first; in a
    remote fixture the away side throws at ``away_board``."""
    away = [
        {**player, "board": away_board} if away_board is not None else dict(player)
        for player in game.away_players
    ]
    if game.kind == GameKind.PAIRS.value:  # the team game's throwing order: h1 a1 h2 a2
        home = [dict(player) for player in game.home_players]
        return [player for pair in zip(home, away, strict=True) for player in pair]
    return [*(dict(player) for player in game.home_players), *away]


def _call_format(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A game's match format as a call's ``match``: the keys left at the
    game's default (null) left out, as ``MatchPlay`` writes them."""
    encoded: dict[str, Any] = MatchPlay.from_json(stored).to_json()
    return encoded


def add_fixture(
    session: Session,
    league_ref: str | int,
    *,
    home: str,
    away: str,
    boards: Sequence[str],
    date: str | None = None,
    lineup: Mapping[int, tuple[Sequence[str], Sequence[str]]] | None = None,
    away_board: str | None = None,
    now: float,
) -> LeagueFixture:
    """A fixture of ``home`` v ``away`` with every game of the league's
    format: who plays each from ``lineup`` (game number -> home names, away
    names) or the teams' players in order, each game queued as a called
    match to one of ``boards`` (a pairs game as a team game); with
    ``away_board`` each is a remote match, the away team at that board. A
    LeagueError names the team, player, board or game wrong."""
    league = find_league(session, league_ref)
    home_team, away_team = _team(session, league, home), _team(session, league, away)
    if home_team.id == away_team.id:
        raise LeagueError(f"team {home_team.name!r} cannot play itself")
    checked_boards = _check_boards(boards)
    if away_board is not None:
        (away_board,) = _check_boards([away_board])
        if match_calls.board_id_of(away_board) in map(match_calls.board_id_of, checked_boards):
            raise LeagueError(f"--remote {away_board!r} is one of the home boards (--board)")
    if date is not None:
        date = _checked_text("--date", date, 32)
    games = _format(league).games
    given = dict(lineup or {})
    for number in given:
        if not 1 <= number <= len(games):
            raise LeagueError(
                f"--lineup: the format has games 1 to {len(games)}, there is no game {number}"
            )
    try:
        home_order = default_lineup([p["name"] for p in home_team.players], games)
        away_order = default_lineup([p["name"] for p in away_team.players], games)
    except LeagueRuleError as error:
        raise LeagueError(str(error)) from None
    fixture = LeagueFixture(
        league_id=league.id,
        home_team_id=home_team.id,
        away_team_id=away_team.id,
        date=date,
        boards=checked_boards,
        away_board=away_board,
        created_at=now,
    )
    rows: list[LeagueGame] = []
    for number, game in enumerate(games, start=1):
        home_names, away_names = given.get(number, (home_order[number - 1], away_order[number - 1]))
        rows.append(
            LeagueGame(
                number=number,
                kind=game.kind.value,
                game=game.game,
                options=dict(game.options),
                match_format=game.match.to_json(),
                home_players=_side(home_team, home_names, game, number),
                away_players=_side(away_team, away_names, game, number),
                status="called",
            )
        )
    session.add(fixture)
    session.flush()
    for row in rows:
        row.fixture_id = fixture.id
        if row.status == "called":
            try:
                call = match_calls.queue_call(
                    session,
                    owner_kind=OWNER_KIND,
                    owner_id=fixture.id,
                    title=_title(league, home_team.name, away_team.name, row.number),
                    game=row.game,
                    options=row.options,
                    match_format=_call_format(row.match_format),
                    players=_call_players(row, away_board),
                    teams=_call_teams(home_team, away_team, row)
                    if row.kind == GameKind.PAIRS.value
                    else None,
                    boards=checked_boards,
                    now=now + (row.number - 1) * CALL_ORDER_STEP,
                )
            except match_calls.CallError as error:
                raise LeagueError(f"game {row.number}: {error}") from None
            row.call_id = call.call_id
        session.add(row)
    session.flush()
    return fixture


def _decide(
    game: LeagueGame,
    winner: int | None,
    legs: tuple[int, int],
    *,
    source: str,
    result_id: str | None,
    now: float,
) -> None:
    game.status = "finished"
    game.winner = winner
    game.home_legs, game.away_legs = legs
    game.source = source
    game.result_id = result_id
    game.finished_at = now


def on_call_finished(session: Session, call: MatchCall) -> None:
    """A league game's match finished (run by the ingest, inside the
    transaction that stores its result, the call's row locked): the game
    takes the match's winner and legs (side 0 the home player, or for pairs
    the home team, the call's first). A game decided already (by hand)
    keeps its result."""
    game = session.scalar(
        select(LeagueGame).where(LeagueGame.call_id == call.call_id).with_for_update()
    )
    if game is None or game.status == "finished":
        return
    legs_won = list(call.legs_won or [0, 0])
    winner = call.winner if call.winner in (0, 1) else None
    finished = call.finished_at if call.finished_at is not None else 0.0
    legs = (int(legs_won[0]), int(legs_won[1])) if len(legs_won) >= 2 else (0, 0)
    _decide(game, winner, legs, source="oche", result_id=call.result_id, now=finished)


def _fixture_game(session: Session, fixture_id: int, number: int) -> LeagueGame:
    fixture = session.get(LeagueFixture, fixture_id)
    if fixture is None:
        raise LeagueError(f"no fixture {fixture_id} (oche league show LEAGUE lists them)")
    game = session.scalar(
        select(LeagueGame)
        .where(LeagueGame.fixture_id == fixture_id, LeagueGame.number == number)
        .with_for_update()
    )
    if game is None:
        count = session.scalar(
            select(LeagueGame.number)
            .where(LeagueGame.fixture_id == fixture_id)
            .order_by(LeagueGame.number.desc())
            .limit(1)
        )
        raise LeagueError(f"fixture {fixture_id} has games 1 to {count}, not {number}")
    return game


def enter_result(
    session: Session, fixture_id: int, number: int, *, winner: str, legs: str, now: float
) -> LeagueGame:
    """Game ``number`` of the fixture, won by ``winner`` (a player of it, any
    case) with ``legs`` (``W-L``, the winner's first), entered by hand: for a
    game not played on Oche. Its called match, if not started, is cancelled;
    a game decided already, or being played, is refused."""
    game = _fixture_game(session, fixture_id, number)
    if game.status == "finished":
        raise LeagueError(
            f"fixture {fixture_id} game {number} is decided already "
            f"({'by hand' if game.source == 'hand' else 'by its match on Oche'})"
        )
    call = session.get(MatchCall, game.call_id) if game.call_id is not None else None
    if call is not None and call.status == "playing":
        raise LeagueError(
            f"fixture {fixture_id} game {number} is being played on {call.board}: "
            "its result comes from the board"
        )
    sides = (
        [player_key(p["name"]) for p in game.home_players],
        [player_key(p["name"]) for p in game.away_players],
    )
    side = next((index for index, keys in enumerate(sides) if player_key(winner) in keys), None)
    if side is None:
        playing = ", ".join(p["name"] for p in [*game.home_players, *game.away_players])
        raise LeagueError(
            f"--winner {winner!r} does not play fixture {fixture_id} game {number} ({playing})"
        )
    try:
        won, lost = parse_legs(legs, MatchFormat.from_json(game.match_format))
    except LeagueRuleError as error:
        raise LeagueError(str(error)) from None
    if call is not None and call.status in ("ready", "called"):
        match_calls.cancel_call(session, call.call_id, why="cancelled", now=now)
    _decide(
        game,
        side,
        (won, lost) if side == 0 else (lost, won),
        source="hand",
        result_id=None,
        now=now,
    )
    return game


def _names(players: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(player["name"]) for player in players]


def _game_view(game: LeagueGame, call: MatchCall | None, home: str, away: str) -> FixtureGameView:
    status = game.status
    if status == "called":
        status = call.status if call is not None else "ready"
    winner = None if game.winner is None else (home, away)[game.winner]
    return FixtureGameView(
        number=game.number,
        kind=game.kind,
        game=game.game,
        options=dict(game.options),
        match=dict(game.match_format),
        home=_names(game.home_players),
        away=_names(game.away_players),
        status=status,
        call_id=game.call_id,
        board=call.board if call is not None else None,
        winner=winner if game.status == "finished" else None,
        home_legs=game.home_legs,
        away_legs=game.away_legs,
        source=game.source,
        result_id=game.result_id,
    )


def _score(game: LeagueGame) -> GameScore | None:
    if game.status != "finished":
        return None
    return GameScore(game.winner, game.home_legs or 0, game.away_legs or 0)


def league_view(session: Session, ref: str | int) -> LeagueView:
    """The league ``ref`` as ``show`` prints it and the API returns it."""
    league = find_league(session, ref)
    teams = _teams(session, league)
    team_names = {team.id: team.name for team in teams}
    fixtures = list(
        session.scalars(
            select(LeagueFixture)
            .where(LeagueFixture.league_id == league.id)
            .order_by(LeagueFixture.id)
        )
    )
    games = list(
        session.scalars(
            select(LeagueGame)
            .where(LeagueGame.fixture_id.in_([fixture.id for fixture in fixtures]))
            .order_by(LeagueGame.fixture_id, LeagueGame.number)
        )
    )
    call_ids = [game.call_id for game in games if game.call_id is not None]
    calls = {
        call.call_id: call
        for call in session.scalars(select(MatchCall).where(MatchCall.call_id.in_(call_ids)))
    }
    views: list[FixtureView] = []
    scored = []
    for fixture in fixtures:
        home, away = team_names[fixture.home_team_id], team_names[fixture.away_team_id]
        mine = [game for game in games if game.fixture_id == fixture.id]
        score = fixture_score([_score(game) for game in mine])
        scored.append((fixture.id, home, away, score))
        game_views = [_game_view(game, calls.get(game.call_id or ""), home, away) for game in mine]
        started = score.decided > 0 or any(v.status in ("called", "playing") for v in game_views)
        views.append(
            FixtureView(
                id=fixture.id,
                home=home,
                away=away,
                date=fixture.date,
                boards=list(fixture.boards),
                away_board=fixture.away_board,
                status="finished" if score.complete else "playing" if started else "scheduled",
                home_games=score.home_games,
                away_games=score.away_games,
                home_legs=score.home_legs,
                away_legs=score.away_legs,
                winner=None if score.winner is None else (home, away)[score.winner],
                games=game_views,
            )
        )
    rules = _rules(league)
    table = standings([team.name for team in teams], scored, rules)
    return LeagueView(
        id=league.id,
        name=league.name,
        season=league.season,
        points={
            "win": rules.win,
            "draw": rules.draw,
            "loss": rules.loss,
            "per_game": rules.per_game,
        },
        format=[dict(game) for game in league.format],
        teams=[TeamView(name=team.name, players=_names(team.players)) for team in teams],
        fixtures=views,
        standings=[
            StandingRow(
                rank=row.rank,
                team=row.team,
                played=row.played,
                won=row.won,
                drawn=row.drawn,
                lost=row.lost,
                games_for=row.games_for,
                games_against=row.games_against,
                legs_for=row.legs_for,
                legs_against=row.legs_against,
                points=row.points,
            )
            for row in table
        ],
    )


def league_list(session: Session) -> list[LeagueSummary]:
    """Every league, newest first, with how many teams and fixtures it has."""
    leagues = list(session.scalars(select(League).order_by(League.id.desc())))
    summaries = []
    for league in leagues:
        teams = len(_teams(session, league))
        fixtures = len(
            list(
                session.scalars(
                    select(LeagueFixture.id).where(LeagueFixture.league_id == league.id)
                )
            )
        )
        summaries.append(
            LeagueSummary(
                id=league.id, name=league.name, season=league.season, teams=teams, fixtures=fixtures
            )
        )
    return summaries


match_calls.register_owner(OWNER_KIND, on_call_finished)
