"""A league for the web tests' page tour (tests/leaderboard/page_tour.py):
two teams with long names, one fixture decided (two games by their match
results through the real ingest, one by hand) and one still to play, so the
league's page shows standings, finished and waiting games."""

from __future__ import annotations

import time

from sqlalchemy import select

from leaderboard import leagues
from leaderboard.database import Database
from leaderboard.league_rules import PointsRules, TeamMatchFormat
from leaderboard.models import LeagueGame, MatchCall
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import result_document

__all__ = ["LEAGUE_PAGE", "seed_league"]

LEAGUE_PAGE = "/leagues/1"
"""The seeded league's page (the tour's database is fresh: its id is 1)."""

OPENING = ["T20 T20 T20", "T20 T20 T20", "T20 T7 M", "T20 T7 M"]


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
    for (call_id, players), first_wins in zip(calls[:2], (True, False), strict=True):
        document = result_document(
            "x01",
            [*OPENING, "D20"] if first_wins else [*OPENING, "M M M", "D20"],
            players=tuple(players),
            options={"start": 301},
            board="pub",
        )
        document["call_id"] = call_id
        document["legs_won"] = [2, 1] if first_wins else [0, 2]
        ingest(database, as_payload(document), venues)
    with database.write_session() as session:
        leagues.enter_result(session, fixture_id, 3, winner="Cy", legs="2-1", now=now)
        leagues.enter_result(session, fixture_id, 4, winner="Dan", legs="2-0", now=now)
        assert session.get(MatchCall, calls[0][0]) is not None
    return league_id
