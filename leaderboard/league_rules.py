"""A league's rules, pure (docs/matches.md, "Leagues"): the team-match format
(an ordered list of games, each singles or pairs, each a match of a game with
its options), a fixture's line-up, a fixture's result from its games'
results, and the standings with their tie-breaks. No database, no I/O:
:mod:`leaderboard.leagues` stores what these compute."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from engine import EngineError, MatchFormat, MatchFormatError, game_class, game_ids
from engine.options import OptionValue, resolve_options

__all__ = [
    "MAX_FORMAT_GAMES",
    "MAX_TEAM_PLAYERS",
    "FixtureScore",
    "FormatGame",
    "GameKind",
    "GameScore",
    "LeagueRuleError",
    "PointsRules",
    "Standing",
    "TeamMatchFormat",
    "default_lineup",
    "fixture_score",
    "parse_format_game",
    "parse_legs",
    "parse_lineup",
    "parse_team",
    "standings",
]

MAX_FORMAT_GAMES = 30
"""The most games one fixture may have (an NDL-like night has nine to twelve)."""

_MATCH_KEYS = tuple(key.name for key in fields(MatchFormat))
"""The keys of a format game that are its match format (legs, sets, starts,
decider: read from the format, since one game is called Legs and a game id
is named in the engine only); any other key is a game option."""
_COUNTS = tuple(key.name for key in fields(MatchFormat) if key.type in ("int", "int | None"))
"""The match keys that are counts (legs and sets)."""
_LEGS = _COUNTS[0]
"""The required match key: the legs a side must win."""


class LeagueRuleError(ValueError):
    """A format, line-up, result or rule that is not one: the message names
    what was wrong and quotes it."""


class GameKind(StrEnum):
    """How many players a side fields in one game of a fixture."""

    SINGLES = "singles"
    PAIRS = "pairs"

    @property
    def players(self) -> int:
        """Players per side: 1 in singles, 2 in pairs."""
        return 1 if self is GameKind.SINGLES else 2


@dataclass(frozen=True, slots=True)
class FormatGame:
    """One game of a team match: singles or pairs, the game with its options
    (only those given, checked against the game), and its match format."""

    kind: GameKind
    game: str
    options: Mapping[str, OptionValue]
    match: MatchFormat

    def to_json(self) -> dict[str, Any]:
        """The game as stored and shown: kind, game, options, match."""
        return {
            "kind": self.kind.value,
            "game": self.game,
            "options": dict(self.options),
            "match": self.match.to_json(),
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> FormatGame:
        """Read what :meth:`to_json` wrote (checked again)."""
        return _format_game(
            str(value.get("kind")),
            str(value.get("game")),
            dict(value.get("options") or {}),
            value.get("match"),
            where="format game",
        )

    def __str__(self) -> str:
        options = "".join(f":{key}={value}" for key, value in self.options.items())
        return f"{self.kind.value}:{self.game}{options} ({self.match})"


@dataclass(frozen=True, slots=True)
class TeamMatchFormat:
    """A fixture's games in the order they are played."""

    games: tuple[FormatGame, ...]

    def __post_init__(self) -> None:
        if not self.games:
            raise LeagueRuleError("a team-match format needs at least one game (--format)")
        if len(self.games) > MAX_FORMAT_GAMES:
            raise LeagueRuleError(
                f"a team-match format has at most {MAX_FORMAT_GAMES} games, not {len(self.games)}"
            )

    def to_json(self) -> list[dict[str, Any]]:
        """The format as JSON: one object per game."""
        return [game.to_json() for game in self.games]

    @classmethod
    def from_json(cls, value: Sequence[Mapping[str, Any]]) -> TeamMatchFormat:
        """Read what :meth:`to_json` wrote."""
        return cls(tuple(FormatGame.from_json(game) for game in value))

    @classmethod
    def parse(cls, specs: Sequence[str]) -> TeamMatchFormat:
        """The format of ``--format`` texts, each ``[N*]KIND:GAME[:KEY=VALUE]...``
        (``N*`` repeats the game N times)."""
        games: list[FormatGame] = []
        for spec in specs:
            games.extend(parse_format_game(spec))
        return cls(tuple(games))

    def players_needed(self) -> int:
        """The fewest players a team needs for one fixture: the most a game
        fields (2 with a pairs game, else 1)."""
        return max(game.kind.players for game in self.games)


def _format_game(
    kind: str, game: str, options: dict[str, object], match: object, *, where: str
) -> FormatGame:
    """A checked :class:`FormatGame`; a LeagueRuleError naming ``where``."""
    kinds = ", ".join(k.value for k in GameKind)
    if kind not in {k.value for k in GameKind}:
        raise LeagueRuleError(f"{where}: the kind must be one of {kinds}, not {kind!r}")
    if game not in game_ids():
        raise LeagueRuleError(
            f"{where}: {game!r} is not a game; the games are: {', '.join(game_ids())}"
        )
    try:
        resolved = resolve_options(game_class(game).options_spec, options, game)
        match_format = MatchFormat.from_json(match)
    except (EngineError, MatchFormatError) as error:
        raise LeagueRuleError(f"{where}: {error}") from None
    given = {str(name).strip().lower() for name in options}
    chosen = {name: value for name, value in resolved.items() if name in given}
    return FormatGame(GameKind(kind), game, chosen, match_format)


def parse_format_game(spec: str) -> list[FormatGame]:
    """One ``--format`` text as its games: ``singles:x01:legs=2``,
    ``pairs:cricket:legs=3:decider=cork``, ``3*singles:x01:start=501:legs=2``.
    ``legs``, ``sets``, ``starts`` and ``decider`` are the match format
    (``legs`` required), any other KEY=VALUE a game option."""
    where = f"--format {spec!r}"
    text = spec.strip()
    count = 1
    head, star, rest = text.partition("*")
    if star:
        if not head.strip().isdigit() or not 1 <= int(head) <= MAX_FORMAT_GAMES:
            raise LeagueRuleError(
                f"{where}: the repeat before '*' must be a count from 1 to {MAX_FORMAT_GAMES}"
            )
        count, text = int(head), rest.strip()
    parts = [part.strip() for part in text.split(":")]
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise LeagueRuleError(
            f"{where}: a format game is KIND:GAME[:KEY=VALUE]..., e.g. singles:x01:legs=2"
        )
    match: dict[str, object] = {}
    options: dict[str, object] = {}
    for part in parts[2:]:
        key, equals, value = part.partition("=")
        key = key.strip().lower()
        if not equals or not key:
            raise LeagueRuleError(f"{where}: {part!r} is not KEY=VALUE")
        if key in match or key in options:
            raise LeagueRuleError(f"{where}: {key!r} is given twice")
        if key in _MATCH_KEYS:
            match[key] = _match_value(key, value.strip(), where)
        else:
            options[key] = value.strip()
    kind, game_id = parts[0].lower(), parts[1].lower()
    if _LEGS not in match:  # a mistyped option (lgs=2) is named before the legs it lacks
        _format_game(kind, game_id, options, {**match, _LEGS: 1}, where=where)
        raise LeagueRuleError(f"{where}: say how many legs a side must win, e.g. legs=2")
    game = _format_game(kind, game_id, options, match, where=where)
    return [game] * count


def _match_value(key: str, value: str, where: str) -> object:
    """A match key's text as its JSON value (legs and sets are counts)."""
    if key in _COUNTS:
        if not value.isdigit():
            raise LeagueRuleError(f"{where}: {key} must be a whole number, not {value!r}")
        return int(value)
    return value


@dataclass(frozen=True, slots=True)
class PointsRules:
    """What a fixture earns a team: ``win``, ``draw`` or ``loss`` points, plus
    ``per_game`` points for each game it won (0 by default: many leagues count
    only the fixture; some add a point a game)."""

    win: int = 2
    draw: int = 1
    loss: int = 0
    per_game: int = 0

    def __post_init__(self) -> None:
        for name in ("win", "draw", "loss", "per_game"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
                raise LeagueRuleError(f"points for a {name} must be 0 to 100, not {value!r}")

    def points(self, games_won: int, games_lost: int) -> int:
        """What a fixture of ``games_won`` to ``games_lost`` earns."""
        if games_won > games_lost:
            base = self.win
        elif games_won < games_lost:
            base = self.loss
        else:
            base = self.draw
        return base + self.per_game * games_won


@dataclass(frozen=True, slots=True)
class GameScore:
    """One decided game of a fixture: ``winner`` 0 home, 1 away, None a draw;
    legs each side won."""

    winner: int | None
    home_legs: int
    away_legs: int

    def __post_init__(self) -> None:
        if self.winner not in (0, 1, None):
            raise LeagueRuleError(f"a game's winner is home (0) or away (1), not {self.winner!r}")
        if min(self.home_legs, self.away_legs) < 0:
            raise LeagueRuleError("legs won cannot be negative")


@dataclass(frozen=True, slots=True)
class FixtureScore:
    """A fixture's result from its games: games and legs each side won, and
    whether every game is decided (only a complete fixture counts in the
    standings)."""

    home_games: int
    away_games: int
    home_legs: int
    away_legs: int
    decided: int
    games: int

    @property
    def complete(self) -> bool:
        """Every game of the fixture has its result."""
        return self.decided == self.games

    @property
    def winner(self) -> int | None:
        """0 home, 1 away, None a draw (or not complete)."""
        if not self.complete or self.home_games == self.away_games:
            return None
        return 0 if self.home_games > self.away_games else 1


def fixture_score(games: Sequence[GameScore | None]) -> FixtureScore:
    """The fixture's score from each game's result (None: not played yet)."""
    decided = [game for game in games if game is not None]
    return FixtureScore(
        home_games=sum(1 for game in decided if game.winner == 0),
        away_games=sum(1 for game in decided if game.winner == 1),
        home_legs=sum(game.home_legs for game in decided),
        away_legs=sum(game.away_legs for game in decided),
        decided=len(decided),
        games=len(games),
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """One team's line of the table (``rank`` shared by teams tied on points,
    game difference and leg difference)."""

    team: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    games_for: int = 0
    games_against: int = 0
    legs_for: int = 0
    legs_against: int = 0
    points: int = 0
    rank: int = 0

    @property
    def game_difference(self) -> int:
        """Games won less games lost."""
        return self.games_for - self.games_against

    @property
    def leg_difference(self) -> int:
        """Legs won less legs lost."""
        return self.legs_for - self.legs_against

    def order_key(self) -> tuple[int, int, int]:
        """What ranks a team: points, then game difference, then leg difference."""
        return (self.points, self.game_difference, self.leg_difference)


@dataclass
class _Line:
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    games_for: int = 0
    games_against: int = 0
    legs_for: int = 0
    legs_against: int = 0
    points: int = 0
    counted: set[int] = field(default_factory=set)

    def add(self, ours: tuple[int, int], theirs: tuple[int, int], rules: PointsRules) -> None:
        (games_won, legs_won), (games_lost, legs_lost) = ours, theirs
        self.played += 1
        self.won += games_won > games_lost
        self.drawn += games_won == games_lost
        self.lost += games_won < games_lost
        self.games_for += games_won
        self.games_against += games_lost
        self.legs_for += legs_won
        self.legs_against += legs_lost
        self.points += rules.points(games_won, games_lost)


def standings(
    teams: Sequence[str],
    fixtures: Iterable[tuple[int, str, str, FixtureScore]],
    rules: PointsRules,
) -> list[Standing]:
    """The table: every team, each complete fixture (``(id, home, away,
    score)``) counted once for each of its two teams, ranked by points, then
    game difference, then leg difference (teams equal on all three share a
    rank and are listed by name)."""
    if len(set(teams)) != len(teams):
        raise LeagueRuleError("a team is named twice")
    lines = {team: _Line() for team in teams}
    for fixture_id, home, away, score in fixtures:
        if home == away:
            raise LeagueRuleError(f"fixture {fixture_id}: {home!r} cannot play itself")
        for team in (home, away):
            if team not in lines:
                raise LeagueRuleError(f"fixture {fixture_id}: {team!r} is not a team of the league")
            if fixture_id in lines[team].counted:
                raise LeagueRuleError(f"fixture {fixture_id} is given twice")
            lines[team].counted.add(fixture_id)
        if not score.complete:
            continue
        home_side = (score.home_games, score.home_legs)
        away_side = (score.away_games, score.away_legs)
        lines[home].add(home_side, away_side, rules)
        lines[away].add(away_side, home_side, rules)
    table = [
        Standing(
            team,
            line.played,
            line.won,
            line.drawn,
            line.lost,
            line.games_for,
            line.games_against,
            line.legs_for,
            line.legs_against,
            line.points,
        )
        for team, line in lines.items()
    ]
    table.sort(key=lambda row: row.team.casefold())
    table.sort(key=Standing.order_key, reverse=True)
    ranked: list[Standing] = []
    for place, row in enumerate(table, start=1):
        tied = ranked and ranked[-1].order_key() == row.order_key()
        rank = ranked[-1].rank if tied else place
        ranked.append(replace(row, rank=rank))
    return ranked


def default_lineup(players: Sequence[str], games: Sequence[FormatGame]) -> list[tuple[str, ...]]:
    """Who plays each game when no line-up is given: the team's players in
    order, each game taking the next one (two for pairs), from the top again
    when the list runs out; a pair is never one player twice."""
    if not players:
        raise LeagueRuleError("a team has no players")
    lineup: list[tuple[str, ...]] = []
    cursor = 0
    for game in games:
        if game.kind.players > len(players):
            raise LeagueRuleError(
                f"a {game.kind.value} game needs {game.kind.players} players; "
                f"the team has {len(players)}"
            )
        chosen = tuple(players[(cursor + i) % len(players)] for i in range(game.kind.players))
        cursor = (cursor + game.kind.players) % len(players)
        lineup.append(chosen)
    return lineup


def parse_legs(text: str, match: MatchFormat) -> tuple[int, int]:
    """``--legs W-L`` of a result entered by hand: the winner's legs first.
    Without sets the winner has the match's ``legs`` and the loser fewer."""
    won, dash, lost = text.strip().partition("-")
    if not dash or not won.strip().isdigit() or not lost.strip().isdigit():
        raise LeagueRuleError(f"--legs {text!r}: give the legs as WON-LOST, e.g. 2-1")
    legs = (int(won), int(lost))
    if match.sets is None and (legs[0] != match.legs or legs[1] >= match.legs):
        raise LeagueRuleError(
            f"--legs {text!r}: in a match {match} the winner has {match.legs} and the loser fewer"
        )
    if match.sets is not None and legs[0] < match.sets * match.legs:
        raise LeagueRuleError(
            f"--legs {text!r}: in a match {match} the winner won at least "
            f"{match.sets * match.legs} legs"
        )
    return legs


MAX_TEAM_PLAYERS = 24
"""The most players one team may have."""


def parse_team(spec: str) -> tuple[str, list[str]]:
    """``--team "Lions=Ann,Bob,Cy"`` as the team's name and its players in
    order; a player named twice, a blank name or no player is refused."""
    name, equals, members = spec.partition("=")
    name = name.strip()
    if not equals or not name:
        raise LeagueRuleError(f"--team {spec!r}: give a team as NAME=PLAYER,PLAYER,...")
    players = [member.strip() for member in members.split(",")]
    if not any(players):
        raise LeagueRuleError(f"--team {spec!r}: team {name!r} has no players")
    if not all(players):
        raise LeagueRuleError(f"--team {spec!r}: a player's name is blank")
    if len(players) > MAX_TEAM_PLAYERS:
        raise LeagueRuleError(f"--team {spec!r}: a team has at most {MAX_TEAM_PLAYERS} players")
    seen: set[str] = set()
    for player in players:
        if player.casefold() in seen:
            raise LeagueRuleError(f"--team {spec!r}: {player!r} is named twice")
        seen.add(player.casefold())
    return name, players


def parse_lineup(spec: str) -> tuple[int, list[str], list[str]]:
    """``--lineup GAME=HOME:AWAY``: the game's number (from 1) and the names
    each side fields in it (a pair as ``Ann,Bob``)."""
    number, equals, sides = spec.partition("=")
    home, colon, away = sides.partition(":")
    if not equals or not colon or not number.strip().isdigit() or int(number) < 1:
        raise LeagueRuleError(
            f"--lineup {spec!r}: give a game's players as GAME=HOME:AWAY, e.g. 1=Ann:Dan "
            "or 4=Ann,Bob:Dan,Eve"
        )
    home_players = [name.strip() for name in home.split(",")]
    away_players = [name.strip() for name in away.split(",")]
    if not all(home_players) or not all(away_players):
        raise LeagueRuleError(f"--lineup {spec!r}: a player's name is blank")
    return int(number), home_players, away_players
