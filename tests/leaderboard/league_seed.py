"""A league for the web tests' page tour (tests/leaderboard/page_tour.py):
two teams with long names, one fixture decided (two games by their match
results through the real ingest, one by hand) and one still to play, so the
league's page shows standings, finished and waiting games."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select

from engine.events import END_VISIT, parse_event
from engine.match import Match
from engine.match_format import MatchFormat
from leaderboard import leagues
from leaderboard.database import Database
from leaderboard.league_rules import PointsRules, TeamMatchFormat
from leaderboard.models import LeagueGame, MatchCall
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from mqtt_contract.result_payload import result_document
from tests.leaderboard.conftest import as_payload

__all__ = ["LEAGUE_PAGE", "match_result", "seed_league"]

LEAGUE_PAGE = "/leagues/1"
"""The seeded league's page (the tour's database is fresh: its id is 1)."""

WINNER_STARTS = ["T20 T20 T20", "S20 S20 S20", "T20 T7 D20"]
"""A leg of 301 its starter wins: 180, 60, then 121 out (T20 T7 D20)."""
LOSER_STARTS = ["S1 S1 S1", "T20 T20 T20", "S1 S1 S1", "T20 T7 D20"]
"""A leg of 301 its starter loses: 3, 180, 3, then 121 out."""


def seed_league(database: Database, venues: VenueMap) -> int:
    """The tour's league; its id."""
    now = time.time()
    with database.write_session() as session:
        league = leagues.create_league(
            session,
            name="Thursday Night Darts League",
            season="2026/27",
            teams=[
                ("Crown Arrows Wanderers", ["Maximilian-Alexander", "Bob", "Cy"]),
                ("Tigers", ["Dan", "Eve", "Fay"]),
            ],
            team_format=TeamMatchFormat.parse(
                ["3*singles:x01:start=301:legs=2", "pairs:cricket:legs=2"]
            ),
            rules=PointsRules(),
            now=now,
        )
        played = leagues.add_fixture(
            session,
            league.id,
            home="Crown Arrows Wanderers",
            away="Tigers",
            boards=["oche/pub"],
            date="2026-12-03",
            now=now,
        )
        leagues.add_fixture(
            session, league.id, home="Tigers", away="Crown Arrows Wanderers",
            boards=["oche/pub", "oche/corner"], date="2026-12-10", now=now,
        )  # fmt: skip
        calls = [
            (game.call_id, [p["name"] for p in game.home_players + game.away_players])
            for game in session.scalars(
                select(LeagueGame)
                .where(LeagueGame.fixture_id == played.id)
                .order_by(LeagueGame.number)
            )
            if game.call_id is not None
        ]
        league_id, fixture_id = league.id, played.id
    for (call_id, players), legs in zip(calls[:2], ([0, 1, 0], [1, 1]), strict=True):
        ingest(database, as_payload(match_result(players, legs, call_id=call_id)), venues)
    with database.write_session() as session:
        leagues.enter_result(session, fixture_id, 3, winner="Cy", legs="2-1", now=now)
        leagues.enter_result(session, fixture_id, 4, winner="Dan", legs="2-0", now=now)
        assert session.get(MatchCall, calls[0][0]) is not None
    return league_id


def match_result(
    players: Sequence[str],
    leg_winners: Sequence[int],
    *,
    call_id: str,
    board: str = "pub",
    finished_at: float | None = None,
    teams: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The result a board sends for a called match of 301, first to 2 legs,
    between ``players``: played through the engine's :class:`Match` and
    built by the contract's ``result_document`` as the daemon does, each leg
    won by the side ``leg_winners`` names (the throw alternating), with the
    call's ``call_id``; with ``teams`` a team game (pairs), a winner a team."""
    match_format = MatchFormat(2)
    match = Match("x01", list(players), {"start": 301}, teams, format=match_format)
    for winner in leg_winners:
        starter_side = next(
            side for side, members in enumerate(match.lineup.sides) if match.starter in members
        )
        visits = WINNER_STARTS if starter_side == winner else LOSER_STARTS
        for visit in visits:
            for token in visit.split():
                match.push(parse_event(token))
            if not match.leg.is_finished:
                match.push(END_VISIT)
        if not match.is_finished:
            match.push(END_VISIT)  # NEXT: the next leg
    assert match.is_finished, "the leg winners do not finish the match"
    finished = time.time() if finished_at is None else finished_at
    document = result_document(
        match,
        result_id=str(uuid.uuid4()),
        board=board,
        started_at=finished - 600.0,
        finished_at=finished,
    )
    document["call_id"] = call_id
    return document
