"""Ratings: OpenSkill Plackett-Luce per game family, teams as groups, applied
in finished_at order whatever order results arrive in; the history is kept."""

from __future__ import annotations

import random
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import select

from leaderboard import queries
from leaderboard.database import Database
from leaderboard.models import Player, PlayerRating, Rating
from leaderboard.store import ingest, ingest_many
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import PLAYED_GAMES, result_document

T0 = 1_780_000_000.0


def x01(players: list[str], finished_at: float, result_id: str) -> dict[str, Any]:
    document = result_document(
        "x01", X01_MOVES, players=players, options={"start": 301}, finished_at=finished_at
    )
    document["result_id"] = result_id
    return document


def ratings(db: Database, game: str = "x01") -> dict[str, tuple[float, float]]:
    with db.session() as session:
        rows = session.execute(
            select(Player.name, PlayerRating.mu, PlayerRating.sigma)
            .join(PlayerRating, PlayerRating.player_id == Player.id)
            .where(PlayerRating.game == game)
        ).all()
    return {name: (round(mu, 9), round(sigma, 9)) for name, mu, sigma in rows}


def history(db: Database) -> list[tuple[str, str, float]]:
    with db.session() as session:
        rows = session.execute(
            select(Player.name, Rating.result_id, Rating.ordinal)
            .join(Player, Player.id == Rating.player_id)
            .order_by(Rating.at, Rating.result_id, Player.name)
        ).all()
    return [(name, result_id, round(ordinal, 9)) for name, result_id, ordinal in rows]


def test_a_win_is_rated_as_openskill_rates_it(database: Database) -> None:
    ingest(database, as_payload(x01(["Ann", "Bob"], T0, "g1")), VenueMap())
    model = PlackettLuce()
    [[ann], [bob]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])
    assert ratings(database) == {
        "Ann": (round(ann.mu, 9), round(ann.sigma, 9)),
        "Bob": (round(bob.mu, 9), round(bob.sigma, 9)),
    }
    with database.session() as session:
        rows = queries.leaderboard(session, "x01", "all")
    assert [(row.player, row.rating) for row in rows] == [
        ("Ann", round(ann.ordinal(), 2)),
        ("Bob", round(bob.ordinal(), 2)),
    ]


def test_late_results_give_the_ratings_of_the_played_order(tmp_path: Any) -> None:
    rng = random.Random(5)
    names = ["Ann", "Bob", "Cy", "Dee"]
    documents = []
    for index in range(12):
        pair = rng.sample(names, 2)
        # two results finishing in the same second are taken by result id
        documents.append(x01(pair, T0 + 60 * (index // 2), f"g{index:02d}"))
    in_order = Database(f"sqlite:///{tmp_path}/in-order.sqlite3")
    shuffled = Database(f"sqlite:///{tmp_path}/shuffled.sqlite3")
    batches = Database(f"sqlite:///{tmp_path}/batches.sqlite3")
    for db in (in_order, shuffled, batches):
        db.migrate()
    for document in documents:
        assert ingest(in_order, as_payload(document), VenueMap()).status == "imported"
    arrival = documents[:]
    rng.shuffle(arrival)
    for document in arrival:
        assert ingest(shuffled, as_payload(document), VenueMap()).status == "imported"
    for start in range(0, 12, 5):  # shuffled batches, some late for the ones before
        chunk = [as_payload(document) for document in arrival[start : start + 5]]
        assert {o.status for o in ingest_many(batches, chunk, VenueMap())} == {"imported"}
    assert ratings(shuffled) == ratings(in_order) == ratings(batches)
    assert history(shuffled) == history(in_order) == history(batches)
    assert len(history(in_order)) == 24
    for db in (in_order, shuffled, batches):
        db.dispose()


def test_a_late_result_is_rated_at_its_place_on_postgresql_too(database: Database) -> None:
    venues = VenueMap()
    ingest(database, as_payload(x01(["Ann", "Bob"], T0 + 100, "later")), venues)
    ingest(database, as_payload(x01(["Bob", "Ann"], T0, "earlier")), venues)
    model = PlackettLuce()
    ann, bob = model.rating(), model.rating()
    [[bob], [ann]] = model.rate([[bob], [ann]], ranks=[1, 2])
    [[ann], [bob]] = model.rate([[ann], [bob]], ranks=[1, 2])
    assert ratings(database) == {
        "Ann": (round(ann.mu, 9), round(ann.sigma, 9)),
        "Bob": (round(bob.mu, 9), round(bob.sigma, 9)),
    }
    assert [(name, rid) for name, rid, _ in history(database)] == [
        ("Ann", "earlier"),
        ("Bob", "earlier"),
        ("Ann", "later"),
        ("Bob", "later"),
    ]


def test_teams_are_rated_as_groups(database: Database) -> None:
    document = result_document(
        "cricket",
        [
            "T20 T19 T18",
            "M M M",
            "M M M",
            "M M M",
            "T17 T16 T15",
            "M M M",
            "M M M",
            "M M M",
            "DB SB",
        ],
        players=["Ann", "Bob", "Cy", "Dee"],
        teams={"Reds": ["Ann", "Cy"], "Blues": ["Bob", "Dee"]},
    )
    assert ingest(database, as_payload(document), VenueMap()).status == "imported"
    model = PlackettLuce()
    reds, blues = model.rate(
        [[model.rating(), model.rating()], [model.rating(), model.rating()]], ranks=[1, 2]
    )
    rated = ratings(database, "cricket")
    assert rated["Ann"] == rated["Cy"] == (round(reds[0].mu, 9), round(reds[0].sigma, 9))
    assert rated["Bob"] == rated["Dee"] == (round(blues[0].mu, 9), round(blues[0].sigma, 9))


def test_each_game_family_has_its_own_ratings(database: Database) -> None:
    ingest(database, as_payload(x01(["Ann", "Bob"], T0, "x")), VenueMap())
    ingest(database, as_payload(PLAYED_GAMES["killer"]()), VenueMap())
    assert ratings(database, "x01") == ratings(database, "killer")
    ingest(database, as_payload(x01(["Bob", "Ann"], T0 + 1, "y")), VenueMap())
    assert ratings(database, "x01") != ratings(database, "killer")


def test_a_solo_game_rates_no_one(database: Database) -> None:
    document = result_document(
        "x01", ["T20 T20 T20", "T20 T7 D20"], players=["Ann"], options={"start": 301}
    )
    assert ingest(database, as_payload(document), VenueMap()).status == "imported"
    assert ratings(database) == {}
    with database.session() as session:
        (row,) = queries.leaderboard(session, "x01", "all")
    assert (row.player, row.played, row.rating) == ("Ann", 1, 0.0)
