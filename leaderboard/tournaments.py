"""Bar tournaments run by the service (docs/matches.md, "Tournaments"): drawn
from :mod:`leaderboard.tournament_formats`, each match queued as a called
match (:mod:`leaderboard.match_calls`) once its players are known and free,
advanced by its result inside the ingest transaction that stores it (so once
only), walkovers for a no-show, and the standings.

A match is queued when both its players are known and neither has another
match queued or under way (so a player is never called to two boards at
once); the caller sends it to the first free board of the tournament's.
Standings: 2 points a match won (a walkover counts as won, and as played by
both, with no legs); a round robin ranks by points, then leg difference,
then legs won; an elimination by how far each player got (the champion,
the runner-up, then the round each was knocked out in), then the same."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import EngineError, game_class, game_ids
from engine.match_format import MatchFormat, MatchFormatError
from engine.options import resolve_options
from leaderboard import match_calls
from leaderboard.models import (
    MatchCall,
    PlayerRating,
    Tournament,
    TournamentMatch,
    TournamentPlayer,
    Venue,
)
from leaderboard.models import Player as RosterPlayer
from leaderboard.roster import ROSTER_NAME_LENGTH
from leaderboard.store import player_key, venue_id
from leaderboard.tournament_formats import (
    BYE,
    Bracket,
    Format,
    SlotState,
    TournamentFormatError,
    bracket,
    champion,
    resolve,
    round_label,
)
from leaderboard.venues import VenueMap
from mqtt_contract.match_payload import MatchPlay

__all__ = [
    "MAX_BOARDS",
    "MAX_TITLE",
    "OWNER_KIND",
    "POINTS_FOR_A_WIN",
    "ByeEntry",
    "MatchEntry",
    "NewTournament",
    "StandingRow",
    "TournamentError",
    "TournamentNotFoundError",
    "TournamentSummary",
    "TournamentView",
    "advance",
    "bracket_columns",
    "create",
    "listing",
    "on_tv",
    "show",
    "tv_columns",
    "venue_name",
    "walkover",
]

log = logging.getLogger(__name__)

OWNER_KIND = "tournament"
"""The ``owner_kind`` of a tournament's called matches."""

POINTS_FOR_A_WIN = 2
"""Standings points for a match won (a walkover too); a loss gives none."""

_BOARD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A board id (a topic level), as a called match's boards need it."""

MAX_BOARDS = 64
"""The most boards one tournament's matches are called to."""
MAX_TITLE = 120
"""The longest title."""
CALL_TITLE_LENGTH = 80
"""The longest title a called match has (``call_match``'s ``title``)."""
TV_HOURS = 12.0
"""A finished tournament stays on the TV this long after its last match."""
TV_TOURNAMENTS = 3
TV_COLUMNS = 5
"""The most rounds a TV's bracket slide shows at once."""
"""The most tournaments the TV shows."""


class TournamentError(ValueError):
    """A tournament that cannot be made or changed as asked: the message says why."""


class TournamentNotFoundError(LookupError):
    """No tournament with that id."""


@dataclass(frozen=True, slots=True)
class NewTournament:
    """What ``oche tournament create`` and the operator's form give."""

    format: str
    game: str
    players: Sequence[str]
    boards: Sequence[str]
    legs: int
    sets: int | None = None
    options: dict[str, object] | None = None
    title: str | None = None


MatchStatus = Literal["waiting", "ready", "queued", "called", "playing", "finished", "walkover"]


class MatchEntry(BaseModel):
    """One match of a tournament as ``show`` lists it (a bye is in ``byes`` instead)."""

    id: str = Field(description="The match's key in the bracket: R1-2, W2-1, L3-1, GF, GF2.")
    bracket: str = Field(description="round-robin, main, winners, losers or final.")
    round: int
    label: str = Field(description="The round in words: Semi-final, Losers' round 2, ...")
    players: list[str | None] = Field(description="The two players; null while not known.")
    board: str | None = None
    status: MatchStatus
    winner: str | None = None
    legs: list[int] | None = Field(default=None, description="Legs won by each player.")
    call_id: str | None = None


class ByeEntry(BaseModel):
    """A player through a round without a match (or sitting a round robin's round out)."""

    id: str | None = Field(default=None, description="The bracket slot; null in a round robin.")
    round: int
    label: str
    player: str


class StandingRow(BaseModel):
    """A player's line in the standings (the rules: module docstring, docs/matches.md)."""

    place: int
    player: str
    seed: int = Field(description="1 is the top seed.")
    played: int
    won: int
    legs_won: int
    legs_lost: int
    points: int
    out: bool = Field(description="Knocked out (an elimination); false in a round robin.")


class TournamentSummary(BaseModel):
    """A tournament in ``oche tournament list``."""

    id: int
    title: str
    format: str
    game: str
    status: str
    players: int
    champion: str | None = None
    created_at: float


class TournamentView(TournamentSummary):
    """A tournament as ``oche tournament show --json`` and ``/api/tournaments/{id}`` give it."""

    options: dict[str, Any]
    match_format: dict[str, Any]
    boards: list[str]
    seeds: list[str] = Field(description="The players in seed order.")
    matches: list[MatchEntry]
    byes: list[ByeEntry]
    standings: list[StandingRow]
    finished_at: float | None = None


def _checked(spec: NewTournament) -> tuple[Format, dict[str, object], MatchFormat]:
    try:
        drawn = bracket(spec.format, len(spec.players))
    except TournamentFormatError as error:
        raise TournamentError(str(error)) from None
    if spec.game not in game_ids():
        raise TournamentError(f"no game {spec.game!r}; the games are: {', '.join(game_ids())}")
    given = {str(name).strip().lower(): value for name, value in (spec.options or {}).items()}
    try:
        options = resolve_options(game_class(spec.game).options_spec, given, spec.game)
        match_format = MatchFormat(spec.legs, spec.sets)
    except (EngineError, MatchFormatError) as error:
        raise TournamentError(str(error)) from None
    boards = [board.strip() for board in spec.boards]
    if not boards or any(not board for board in boards) or len(boards) > MAX_BOARDS:
        raise TournamentError(f"a tournament needs 1 to {MAX_BOARDS} boards, each named")
    if len(set(boards)) != len(boards):
        raise TournamentError("a board is named twice")
    for board in boards:
        if not _BOARD_ID.fullmatch(board.rpartition("/")[2]):
            raise TournamentError(f"{board!r} is not a board (base/board or a board id)")
    return drawn.format, {name: options[name] for name in given}, match_format


def _match_json(match_format: MatchFormat) -> dict[str, Any]:
    """A match format as ``MatchPlay`` JSON, what a call and the state carry
    (the keys left at the game's default left out)."""
    encoded: dict[str, Any] = MatchPlay.of(match_format).to_json()
    return encoded


def _entrants(names: Sequence[str]) -> list[str]:
    cleaned = [name.strip() for name in names]
    for name in cleaned:
        if not name or len(name) > ROSTER_NAME_LENGTH or "\x00" in name:
            raise TournamentError(
                f"{name!r} is not a player's name (1 to {ROSTER_NAME_LENGTH} characters)"
            )
    keys = [player_key(name) for name in cleaned]
    twice = sorted({name for name, key in zip(cleaned, keys, strict=True) if keys.count(key) > 1})
    if twice:
        raise TournamentError(f"a player is named twice: {', '.join(twice)}")
    return cleaned


def create(
    session: Session, spec: NewTournament, venues: VenueMap, now: float | None = None
) -> int:
    """Draw and store a tournament and queue its first matches; its id. The
    venue is its first board's; each player is the venue roster's by name
    (any case), else a guest. Seeds: the players' ratings in the game, the
    unrated after the rated in the order given. A TournamentError says what
    is wrong, and nothing is stored then."""
    at = time.time() if now is None else now
    chosen, options, match_format = _checked(spec)
    names = _entrants(spec.players)
    boards = [board.strip() for board in spec.boards]
    venue = venues.venue_of(boards[0].rpartition("/")[2])
    place = venue_id(session, venue, venues.timezone_of(venue))
    entrants = [_entrant(session, place, spec.game, name) for name in names]
    ranked = sorted(
        range(len(entrants)),
        key=lambda i: (entrants[i][2] is None, -(entrants[i][2] or 0.0), i),
    )
    words = chosen.value.replace("-", " ")
    title = (spec.title or "").strip() or f"{game_class(spec.game).name} {words}"
    if len(title) > MAX_TITLE:
        raise TournamentError(f"the title has at most {MAX_TITLE} characters")
    tournament = Tournament(
        title=title,
        format=chosen.value,
        game=spec.game,
        options=options,
        match_format=_match_json(match_format),
        boards=boards,
        venue_id=place,
        status="running",
        created_at=at,
    )
    session.add(tournament)
    session.flush()
    for seed, index in enumerate(ranked):
        name, player_id, rating = entrants[index]
        session.add(
            TournamentPlayer(
                tournament_id=tournament.id,
                seed=seed,
                name=name,
                player_id=player_id,
                rating=rating,
            )
        )
    for slot in bracket(chosen, len(entrants)).slots:
        session.add(TournamentMatch(tournament_id=tournament.id, key=slot.key))
    session.flush()
    _progress(session, tournament, at)
    return tournament.id


def _entrant(
    session: Session, place: int, game: str, name: str
) -> tuple[str, int | None, float | None]:
    """A player's name as the roster spells it, their roster id and rating
    (a guest: the name as given, None, None)."""
    player = session.execute(
        select(RosterPlayer).where(
            RosterPlayer.venue_id == place, RosterPlayer.key == player_key(name)
        )
    ).scalar_one_or_none()
    if player is None:
        return name, None, None
    rating = session.execute(
        select(PlayerRating.ordinal).where(
            PlayerRating.player_id == player.id, PlayerRating.game == game
        )
    ).scalar_one_or_none()
    return player.name, player.id, rating


@dataclass
class _Loaded:
    """A tournament with its players, match rows, bracket and the bracket's states."""

    tournament: Tournament
    players: list[TournamentPlayer]
    rows: dict[str, TournamentMatch]
    drawn: Bracket
    states: dict[str, SlotState]

    def name(self, seed: int | None) -> str | None:
        return None if seed is None or seed == BYE else self.players[seed].name


def _load(session: Session, tournament: Tournament) -> _Loaded:
    players = list(
        session.execute(
            select(TournamentPlayer)
            .where(TournamentPlayer.tournament_id == tournament.id)
            .order_by(TournamentPlayer.seed)
        ).scalars()
    )
    rows = {
        row.key: row
        for row in session.execute(
            select(TournamentMatch).where(TournamentMatch.tournament_id == tournament.id)
        ).scalars()
    }
    drawn = bracket(tournament.format, len(players))
    decided = {key: row.winner for key, row in rows.items() if row.winner is not None}
    return _Loaded(tournament, players, rows, drawn, resolve(drawn, decided))


def _locked(session: Session, tournament_id: int) -> Tournament:
    """The tournament, its row locked for this transaction (PostgreSQL's
    ``FOR UPDATE``; a SQLite writer holds the whole database), so two
    service instances never advance one bracket at once."""
    found = session.execute(
        select(Tournament).where(Tournament.id == tournament_id).with_for_update()
    ).scalar_one_or_none()
    if found is None:
        raise TournamentNotFoundError(f"no tournament {tournament_id}")
    return found


def _progress(session: Session, tournament: Tournament, now: float) -> None:
    """Queue every match whose players are known and free; finish the tournament when done."""
    loaded = _load(session, tournament)
    busy: set[int] = set()
    for slot in loaded.drawn.slots:
        row = loaded.rows[slot.key]
        state = loaded.states[slot.key]
        if state.status == "ready" and row.call_id is not None:
            busy.update(seed for seed in state.players if seed is not None)
    for slot in loaded.drawn.slots:
        row = loaded.rows[slot.key]
        state = loaded.states[slot.key]
        if state.status != "ready" or row.call_id is not None:
            continue
        seeds = [seed for seed in state.players if seed is not None]
        if busy.intersection(seeds):
            continue
        busy.update(seeds)
        call = match_calls.queue_call(
            session,
            owner_kind=OWNER_KIND,
            owner_id=tournament.id,
            title=_call_title(tournament.title, round_label(loaded.drawn, slot)),
            game=tournament.game,
            options=dict(tournament.options),
            match_format=_call_format(tournament.match_format),
            players=[
                {"name": loaded.players[seed].name, "player_id": loaded.players[seed].player_id}
                for seed in seeds
            ],
            boards=list(tournament.boards),
        )
        row.call_id = call.call_id
    if _is_over(loaded) and tournament.status != "finished":
        tournament.status = "finished"
        tournament.finished_at = now
        log.debug("tournament %s (%s) is finished", tournament.id, tournament.title)


def _call_title(title: str, label: str) -> str:
    """A call's title, ``Friday Cup, semi-final``, the tournament's title cut
    short to keep it within the contract's :data:`CALL_TITLE_LENGTH`."""
    room = CALL_TITLE_LENGTH - len(label) - 2
    short = title if len(title) <= room else title[: max(0, room - 1)].rstrip() + "…"
    return f"{short}, {label.lower()}"


def _call_format(match_format: dict[str, Any]) -> MatchPlay | None:
    """A call's match format: None (a single game) for first to one leg without
    sets, which is the same match and gives a single game's result."""
    play = MatchPlay.from_json(dict(match_format))
    return None if play.legs == 1 and play.sets is None else play


def _is_over(loaded: _Loaded) -> bool:
    if loaded.drawn.format is Format.ROUND_ROBIN:
        return all(state.status == "decided" for state in loaded.states.values())
    return champion(loaded.drawn, loaded.states) is not None


def advance(session: Session, call: MatchCall) -> None:
    """A tournament's called match finished (``match_calls``' owner hook, run
    inside the ingest transaction that stored its result, once): decide its
    match by the result's winner and legs, and queue what follows."""
    row = session.execute(
        select(TournamentMatch).where(TournamentMatch.call_id == call.call_id)
    ).scalar_one_or_none()
    if row is None:
        log.warning(
            "no tournament match has the call %s: its result advances nothing", call.call_id
        )
        return
    tournament = _locked(session, row.tournament_id)
    if row.decided_by is not None:
        return  # decided already (a walkover that raced the result)
    row.legs_won = [int(legs) for legs in call.legs_won] if call.legs_won else None
    row.result_id = call.result_id
    if call.winner not in (0, 1):
        log.warning(
            "tournament %s's match %s ended without a winner: walk it over to decide it",
            tournament.id,
            row.key,
        )
        return
    row.winner = int(call.winner)
    row.decided_by = "played"
    at = time.time()
    row.decided_at = at
    _progress(session, tournament, at)


def walkover(
    session: Session, tournament_id: int, match_key: str, winner: str, now: float | None = None
) -> None:
    """Decide a match without play (a no-show): ``winner`` (either player's
    name, any case) goes through, its call is cancelled (taken back from the
    board if it was called), and what follows is queued. A TournamentError
    says why not: a match decided already, or whose players are not known."""
    at = time.time() if now is None else now
    key = match_key.strip().upper()
    call_id = session.execute(
        select(TournamentMatch.call_id).where(
            TournamentMatch.tournament_id == tournament_id, TournamentMatch.key == key
        )
    ).scalar_one_or_none()
    # the call's row first, then the tournament's: the ingest's order (its
    # result locks the call, then advance the tournament), so a walkover and
    # the match's result racing on PostgreSQL queue, never deadlock
    call = (
        session.execute(
            select(MatchCall).where(MatchCall.call_id == call_id).with_for_update()
        ).scalar_one_or_none()
        if call_id is not None
        else None
    )
    tournament = _locked(session, tournament_id)
    loaded = _load(session, tournament)
    if key not in loaded.states:
        known = ", ".join(slot.key for slot in loaded.drawn.slots)
        raise TournamentError(f"tournament {tournament_id} has no match {match_key!r} ({known})")
    state = loaded.states[key]
    row = loaded.rows[key]
    if state.status in ("decided", "bye", "void"):
        why = {"decided": "was decided already", "bye": "is a bye", "void": "is not needed"}
        raise TournamentError(f"match {key} {why[state.status]}")
    if state.status == "waiting":
        raise TournamentError(f"match {key} is waiting for its players: nobody to walk over yet")
    names = [loaded.name(seed) or "" for seed in state.players]
    sides = [side for side, name in enumerate(names) if player_key(name) == player_key(winner)]
    if not sides:
        raise TournamentError(f"{winner.strip()!r} is not in match {key} ({' v '.join(names)})")
    if call is not None and call.status not in match_calls.DONE_STATUSES:
        match_calls.cancel_call(session, call.call_id, now=at)
    row.winner = sides[0]
    row.decided_by = "walkover"
    row.legs_won = None
    row.decided_at = at
    session.flush()
    _progress(session, tournament, at)


def _status(row: TournamentMatch, state: SlotState, call: MatchCall | None) -> MatchStatus:
    if row.decided_by == "walkover":
        return "walkover"
    if row.decided_by == "played" or (call is not None and call.status == "finished"):
        return "finished"
    if state.status == "waiting":
        return "waiting"
    if call is None:
        return "ready"
    if call.status in ("called", "playing"):
        return "called" if call.status == "called" else "playing"
    return "queued"


def _entries(session: Session, loaded: _Loaded) -> tuple[list[MatchEntry], list[ByeEntry]]:
    matches: list[MatchEntry] = []
    byes: list[ByeEntry] = []
    for slot in loaded.drawn.slots:
        state = loaded.states[slot.key]
        label = round_label(loaded.drawn, slot)
        if state.status == "void":
            continue
        if state.status == "bye":
            if state.winner is not None and state.winner != BYE:
                byes.append(
                    ByeEntry(
                        id=slot.key,
                        round=slot.round,
                        label=label,
                        player=loaded.name(state.winner) or "",
                    )
                )
            continue
        row = loaded.rows[slot.key]
        call = session.get(MatchCall, row.call_id) if row.call_id is not None else None
        winner = state.players[row.winner] if row.winner is not None else None
        matches.append(
            MatchEntry(
                id=slot.key,
                bracket=slot.part,
                round=slot.round,
                label=label,
                players=[loaded.name(seed) for seed in state.players],
                board=call.board if call is not None else None,
                status=_status(row, state, call),
                winner=loaded.name(winner),
                legs=list(row.legs_won) if row.legs_won is not None else None,
                call_id=row.call_id,
            )
        )
    for round_number, seed in loaded.drawn.sitting_out:
        byes.append(
            ByeEntry(
                round=round_number, label=f"Round {round_number}", player=loaded.players[seed].name
            )
        )
    return matches, byes


@dataclass
class _Tally:
    played: int = 0
    won: int = 0
    legs_won: int = 0
    legs_lost: int = 0
    out_at: int | None = None
    """The index (in play order) of the slot that knocked the player out."""


def _tallies(loaded: _Loaded) -> list[_Tally]:
    tallies = [_Tally() for _ in loaded.players]
    losses = [0] * len(loaded.players)
    double = loaded.drawn.format is Format.DOUBLE_ELIMINATION
    for index, slot in enumerate(loaded.drawn.slots):
        state = loaded.states[slot.key]
        if state.status != "decided" or state.winner is None or state.loser is None:
            continue
        row = loaded.rows[slot.key]
        winner, loser = tallies[state.winner], tallies[state.loser]
        for tally in (winner, loser):
            tally.played += 1
        winner.won += 1
        if row.legs_won is not None and len(row.legs_won) == 2 and row.winner is not None:
            won, lost = row.legs_won[row.winner], row.legs_won[1 - row.winner]
            winner.legs_won, winner.legs_lost = winner.legs_won + won, winner.legs_lost + lost
            loser.legs_won, loser.legs_lost = loser.legs_won + lost, loser.legs_lost + won
        losses[state.loser] += 1
        knocked = losses[state.loser] >= (2 if double else 1)  # the reset: a grand final too
        if loaded.drawn.format is not Format.ROUND_ROBIN and knocked:
            loser.out_at = index
    return tallies


def _standings(loaded: _Loaded) -> list[StandingRow]:
    tallies = _tallies(loaded)
    elimination = loaded.drawn.format is not Format.ROUND_ROBIN
    winner = champion(loaded.drawn, loaded.states)

    def stage(seed: int) -> tuple[int, ...]:
        if not elimination:
            return ()
        if seed == winner:
            return (3, 0)
        out_at = tallies[seed].out_at
        if out_at is None:
            return (2, 0)  # still in
        slot = loaded.drawn.slots[out_at]
        order = {"main": 0, "winners": 0, "losers": 0, "final": 1}[slot.part]
        return (1, order * 100 + slot.round)

    def key(seed: int) -> tuple[Any, ...]:
        tally = tallies[seed]
        return (
            *(-part for part in stage(seed)),
            -tally.won,
            -(tally.legs_won - tally.legs_lost),
            -tally.legs_won,
            seed,
        )

    order = sorted(range(len(loaded.players)), key=key)
    rows: list[StandingRow] = []
    for position, seed in enumerate(order, 1):
        tally = tallies[seed]
        shared = (
            elimination
            and rows
            and stage(order[position - 2]) == stage(seed)
            and stage(seed)[0] == 1
        )
        rows.append(
            StandingRow(
                place=rows[-1].place if shared else position,
                player=loaded.players[seed].name,
                seed=seed + 1,
                played=tally.played,
                won=tally.won,
                legs_won=tally.legs_won,
                legs_lost=tally.legs_lost,
                points=POINTS_FOR_A_WIN * tally.won,
                out=tally.out_at is not None,
            )
        )
    return rows


def _champion_name(loaded: _Loaded) -> str | None:
    if loaded.tournament.status != "finished":
        return None
    if loaded.drawn.format is Format.ROUND_ROBIN:
        return _standings(loaded)[0].player
    return loaded.name(champion(loaded.drawn, loaded.states))


def _tournament(session: Session, tournament_id: int) -> Tournament:
    found = session.get(Tournament, tournament_id)
    if found is None:
        raise TournamentNotFoundError(f"no tournament {tournament_id}")
    return found


def show(session: Session, tournament_id: int) -> TournamentView:
    """The tournament, its matches, byes and standings (TournamentNotFoundError: none)."""
    tournament = _tournament(session, tournament_id)
    loaded = _load(session, tournament)
    matches, byes = _entries(session, loaded)
    return TournamentView(
        id=tournament.id,
        title=tournament.title,
        format=tournament.format,
        game=tournament.game,
        status=tournament.status,
        players=len(loaded.players),
        champion=_champion_name(loaded),
        created_at=tournament.created_at,
        finished_at=tournament.finished_at,
        options=dict(tournament.options),
        match_format=dict(tournament.match_format),
        boards=list(tournament.boards),
        seeds=[player.name for player in loaded.players],
        matches=matches,
        byes=byes,
        standings=_standings(loaded),
    )


def listing(
    session: Session, running_only: bool = False, limit: int = 100
) -> list[TournamentSummary]:
    """The tournaments, newest first (only the running ones with ``running_only``)."""
    query = select(Tournament).order_by(Tournament.created_at.desc(), Tournament.id.desc())
    if running_only:
        query = query.where(Tournament.status == "running")
    summaries = []
    for tournament in session.execute(query.limit(limit)).scalars():
        loaded = _load(session, tournament)
        summaries.append(
            TournamentSummary(
                id=tournament.id,
                title=tournament.title,
                format=tournament.format,
                game=tournament.game,
                status=tournament.status,
                players=len(loaded.players),
                champion=_champion_name(loaded),
                created_at=tournament.created_at,
            )
        )
    return summaries


def venue_name(session: Session, tournament_id: int) -> str:
    """The venue a tournament is played at."""
    tournament = _tournament(session, tournament_id)
    return session.execute(select(Venue.name).where(Venue.id == tournament.venue_id)).scalar_one()


def on_tv(session: Session, venue: str | None, now: float | None = None) -> list[TournamentView]:
    """What the TV's bracket slides show: the venue's (or every) running
    tournament, and those finished in the last :data:`TV_HOURS` hours, newest first."""
    since = (time.time() if now is None else now) - TV_HOURS * 3600
    query = (
        select(Tournament.id)
        .where((Tournament.status == "running") | (Tournament.finished_at >= since))
        .order_by(Tournament.created_at.desc(), Tournament.id.desc())
        .limit(TV_TOURNAMENTS)
    )
    if venue is not None:
        query = query.join(Venue, Venue.id == Tournament.venue_id).where(Venue.name == venue)
    return [show(session, found) for found in session.execute(query).scalars()]


def bracket_columns(view: TournamentView) -> list[tuple[str, list[MatchEntry]]]:
    """The matches in columns as a bracket draws them: one a round (and
    part: the winners', the losers', the final), in play order, titled."""
    columns: dict[tuple[str, int], tuple[str, list[MatchEntry]]] = {}
    for match in view.matches:
        title = match.label if match.bracket != "round-robin" else f"Round {match.round}"
        columns.setdefault((match.bracket, match.round), (title, []))[1].append(match)
    return list(columns.values())


def tv_columns(view: TournamentView) -> list[tuple[str, list[MatchEntry]]]:
    """The columns a TV has room for: the rounds being played (a match not
    decided with a player known), at most :data:`TV_COLUMNS` of them; once all
    are decided, the last ones (the final)."""
    columns = bracket_columns(view)
    open_ = [
        column
        for column in columns
        if any(
            match.status not in ("finished", "walkover") and any(match.players)
            for match in column[1]
        )
    ]
    return (open_ or columns[-2:])[:TV_COLUMNS]


match_calls.register_owner(OWNER_KIND, advance)
