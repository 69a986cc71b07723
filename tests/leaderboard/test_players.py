"""Players after the fact: rename (merging two names) and forget (privacy:
the player's data goes, their games stay under a replaced name)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from sqlalchemy import func, select

from leaderboard import queries
from leaderboard.database import Database
from leaderboard.models import Player, PlayerRating, Rating, Result
from leaderboard.players import FORGOTTEN_NAME, PlayerError, forget, rename
from leaderboard.sample_results import SimulatedPlayer, sample_match_result
from leaderboard.scoring import score_result
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document

VENUES = VenueMap(boards={"crown-1": "The Crown"})
T0 = 1_780_000_000.0


def play(db: Database, players: list[str], at: float, board: str = "board1") -> str:
    document = result_document(
        "x01", X01_MOVES, players=players, options={"start": 301}, finished_at=at, board=board
    )
    assert ingest(db, as_payload(document), VENUES).status == "imported"
    return str(document["result_id"])


def x01_table(db: Database) -> dict[str, Any]:
    with db.session() as session:
        return {row.player: row for row in queries.leaderboard(session, "x01", "all")}


def test_rename_merges_a_misspelt_name_into_the_real_one(database: Database) -> None:
    play(database, ["Ann", "Bob"], T0)
    play(database, ["Annn", "Bob"], T0 + 10)
    play(database, ["ann", "Cy"], T0 + 20)
    assert set(x01_table(database)) == {"ann", "Annn", "Bob", "Cy"}
    outcome = rename(database, "annn", "Ann")
    assert (outcome.name, outcome.venue, outcome.merged, outcome.games) == ("Ann", "home", True, 1)
    table = x01_table(database)
    assert set(table) == {"Ann", "Bob", "Cy"}
    assert (table["Ann"].played, table["Ann"].won) == (3, 3)
    # the ratings are those of three wins in a row, rebuilt
    fresh = Database(database.url.replace("leaderboard.sqlite3", "fresh.sqlite3"))
    if fresh.dialect == "sqlite":
        fresh.migrate()
        for index, players in enumerate([["Ann", "Bob"], ["Ann", "Bob"], ["Ann", "Cy"]]):
            play(fresh, players, T0 + 10 * index)
        assert x01_table(fresh)["Ann"].rating == table["Ann"].rating
        fresh.dispose()
    with database.session() as session:
        card = queries.player_card(session, "Ann")
    assert len(card.rating_history) == 3


def test_rename_to_a_new_name_keeps_the_ratings(database: Database) -> None:
    play(database, ["Ann", "Bob"], T0)
    before = x01_table(database)["Bob"].rating
    outcome = rename(database, "bob", "Robert")
    assert (outcome.name, outcome.merged, outcome.games) == ("Robert", False, 1)
    table = x01_table(database)
    assert set(table) == {"Ann", "Robert"}
    assert table["Robert"].rating == before


def test_rename_names_what_is_wrong(database: Database) -> None:
    play(database, ["Ann", "Bob"], T0)
    play(database, ["Ann", "Cy"], T0 + 1, board="crown-1")
    with pytest.raises(PlayerError, match="no player called 'Zed'"):
        rename(database, "Zed", "Ann")
    with pytest.raises(PlayerError, match=r"'Ann' plays at several venues \('The Crown', 'home'\)"):
        rename(database, "Ann", "Anne")
    with pytest.raises(PlayerError, match="the new name is blank"):
        rename(database, "Bob", "  ")
    assert rename(database, "Ann", "Anne", venue="The Crown").venue == "The Crown"


def test_forget_leaves_the_name_in_no_leg_of_a_match(database: Database) -> None:
    """A match's result carries every leg (its log, starter, winner and
    players' figures): after ``forget`` the name is in none of it, and the
    match still re-scores."""
    rng = random.Random(5)
    players = [SimulatedPlayer("Ann", 0.9, rng), SimulatedPlayer("Bob", 0.8, rng)]
    document = sample_match_result(rng, "board1", players, "x01", T0, legs=2)
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    forget(database, "Ann")
    with database.session() as session:
        (payload,) = session.execute(select(Result.payload)).scalars().all()
    assert len(payload["legs"]) >= 2 and "Ann" not in json.dumps(payload)
    scored = score_result(payload)
    assert [line.name for line in scored.players] == [FORGOTTEN_NAME, "Bob"]
    assert sum(line.figures["legs_won"] or 0 for line in scored.players) == len(payload["legs"])


def test_forget_deletes_the_player_and_keeps_their_games_anonymous(database: Database) -> None:
    result_id = play(database, ["Ann", "Bob"], T0)
    play(database, ["Cy", "Ann"], T0 + 10)
    outcome = forget(database, " ANN")
    assert (outcome.venue, outcome.games) == ("home", 2)
    assert set(x01_table(database)) == {"Bob", "Cy"}
    with database.session() as session:
        assert session.execute(select(Player.key)).scalars().all().count("ann") == 0
        rated = session.execute(select(func.count()).select_from(Rating)).scalar_one()
        assert rated == 0  # no one is left with an opponent to be rated against
        assert session.execute(select(func.count()).select_from(PlayerRating)).scalar_one() == 0
        payloads = [json.dumps(p) for p in session.execute(select(Result.payload)).scalars()]
        detail = queries.result_detail(session, result_id)
        with pytest.raises(queries.PlayerNotFoundError):
            queries.player_card(session, "Ann")
    assert not any("Ann" in payload for payload in payloads)
    assert detail.players == [FORGOTTEN_NAME, "Bob"]
    assert detail.winner_name == FORGOTTEN_NAME
    assert [line.name for line in detail.result_players] == [FORGOTTEN_NAME, "Bob"]
    assert x01_table(database)["Bob"].played == 1
    with pytest.raises(PlayerError):
        forget(database, "Ann")
