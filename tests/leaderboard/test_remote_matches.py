"""Results of remote matches (docs/remote.md, docs/leaderboard.md "Remote
matches"): one game played on boards in two venues, published once by the
host with each player's ``board`` and the ``match`` id. Each player counts in
their own board's venue (its table, its day), the game once (one result, one
rating update); a player board that names no board is refused with a reason.
On a SQLite file and a real PostgreSQL database, through ``ingest``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select, text

from leaderboard import queries
from leaderboard.database import Database
from leaderboard.figures import LINE_FIGURES, Aggregate
from leaderboard.live_hub import LiveHub
from leaderboard.models import Player, Rating, Rejected, Result, ResultPlayer, Venue
from leaderboard.scoring import score_result
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import STARTED_AT, result_document

VENUES = VenueMap(
    boards={"crown-1": "The Crown", "anchor-2": "The Anchor"},
    default="home",
    timezones={"The Crown": "Europe/London", "The Anchor": "Pacific/Auckland"},
)

LATE_ON_NEW_YEARS_DAY = STARTED_AT + 23.5 * 3600
"""2026-01-01 23:30 UTC: still the 1st in London, already the 2nd (12:30) in Auckland."""

NEXT_MORNING = STARTED_AT + 30 * 3600
"""2026-01-02 06:00 UTC: the 2nd in London and (19:00) in Auckland."""


def remote_x01(
    boards: Sequence[Any] = ("oche/crown-1", "league/anchor-2"),
    *,
    result_id: str = "remote-1",
    match: str | None = "match-3f",
    finished_at: float = LATE_ON_NEW_YEARS_DAY,
) -> dict[str, Any]:
    """The result the host (crown-1) publishes for a remote X01 match: Cy
    throws at The Crown and wins, Ann at The Anchor. A board of None is left
    out (the player threw at the host)."""
    document = result_document(
        "x01",
        X01_MOVES,
        players=("Cy", "Ann"),
        options={"start": 301},
        board="crown-1",
        finished_at=finished_at,
    )
    document["result_id"] = result_id
    for player, board in zip(document["players"], boards, strict=True):
        if board is not None:
            player["board"] = board
    if match is not None:
        document["match"] = match
    return document


def count(db: Database, model: type, *where: Any) -> int:
    with db.session() as session:
        query = select(func.count()).select_from(model).where(*where)
        return int(session.execute(query).scalar_one())


def table(db: Database, period: Any = "all", venue: str | None = None) -> list[tuple[Any, ...]]:
    with db.session() as session:
        rows = queries.leaderboard(session, "x01", period, venue, now=NEXT_MORNING)
    return [(row.player, row.venue, row.played, row.won) for row in rows]


def test_rescoring_keeps_each_players_board_and_the_match_id() -> None:
    scored = score_result(remote_x01())
    assert [(line.name, line.board) for line in scored.players] == [
        ("Cy", "oche/crown-1"),
        ("Ann", "league/anchor-2"),
    ]
    assert (scored.board, scored.match, scored.winner) == ("crown-1", "match-3f", 0)


def test_each_player_counts_in_their_own_venue_and_the_match_once(database: Database) -> None:
    outcome = ingest(database, as_payload(remote_x01()), VENUES)
    assert outcome.status == "imported"
    assert outcome.summary is not None
    assert (outcome.summary.venue, outcome.summary.venues, outcome.summary.match) == (
        "The Crown",
        ["The Crown", "The Anchor"],
        "match-3f",
    )
    assert ingest(database, as_payload(remote_x01()), VENUES).status == "duplicate"

    assert table(database, venue="The Crown") == [("Cy", "The Crown", 1, 1)]
    assert table(database, venue="The Anchor") == [("Ann", "The Anchor", 1, 0)]
    assert table(database) == [("Cy", "The Crown", 1, 1), ("Ann", "The Anchor", 1, 0)]
    assert count(database, Result) == 1
    assert count(database, ResultPlayer) == 2
    # rated once: one history entry a player, both from the one result
    assert count(database, Rating) == 2
    assert count(database, Rating, Rating.result_id == "remote-1") == 2
    with database.session() as session:
        players = session.execute(
            select(Venue.name, Player.name).join(Venue, Venue.id == Player.venue_id)
        ).all()
        assert sorted(tuple(row) for row in players) == [("The Anchor", "Ann"), ("The Crown", "Cy")]
        card = queries.player_card(session, "Ann")
        assert card.venue == "The Anchor"
        assert [(r.result_id, r.match) for r in card.recent] == [("remote-1", "match-3f")]
        anchor = queries.recent_results(session, venue="The Anchor")
        crown = queries.recent_results(session, venue="The Crown")
        assert [r.result_id for r in anchor] == [r.result_id for r in crown] == ["remote-1"]
        assert queries.recent_results(session, venue="home") == []


def test_each_players_day_is_their_own_venues(database: Database) -> None:
    """At 06:00 UTC on the 2nd a game finished at 23:30 UTC on the 1st is
    yesterday in London but today in Auckland: the Anchor's player has it in
    today's table, the Crown's in this week's only."""
    assert ingest(database, as_payload(remote_x01()), VENUES).status == "imported"
    assert table(database, "day") == [("Ann", "The Anchor", 1, 0)]
    assert table(database, "day", "The Crown") == []
    assert table(database, "week") == [("Cy", "The Crown", 1, 1), ("Ann", "The Anchor", 1, 0)]
    with database.session() as session:
        today = queries.records(session, "day", now=NEXT_MORNING)
        assert today.highest_checkout is None  # Cy's checkout was yesterday in London
        week = queries.records(session, "week", now=NEXT_MORNING)
        assert week.highest_checkout is not None and week.highest_checkout.player == "Cy"


@pytest.mark.parametrize(
    ("boards", "venues"),
    [
        ((None, "oche/anchor-2"), ["The Crown", "The Anchor"]),
        (("crown-1", "anchor-2"), ["The Crown", "The Anchor"]),
        (("home/darts/crown-1", "oche/garage"), ["The Crown", "home"]),
    ],
    ids=["no-board-is-the-hosts", "bare-board-ids", "unmapped-is-the-default"],
)
def test_a_players_venue_comes_from_the_last_level_of_their_board(
    database: Database, boards: Sequence[Any], venues: list[str]
) -> None:
    assert ingest(database, as_payload(remote_x01(boards)), VENUES).status == "imported"
    with database.session() as session:
        detail = queries.result_detail(session, "remote-1")
    assert [line.venue for line in detail.result_players] == venues
    assert [line.board for line in detail.result_players] == list(boards)


@pytest.mark.parametrize(
    ("board", "said"),
    [
        ("oche/", "has board 'oche/', which is not a board (base/board): its board id must"),
        ("", "has board '', which is not a board (base/board): its board id must not be empty"),
        ("oche/anchor 2", "its board id must be letters, digits, '_' and '-' only, not ' '"),
        ("+/anchor-2", "its base topic must not contain '+': MQTT wildcards"),
        ("oche//anchor-2", "its base topic must not have an empty level"),
        ("oche/leaderboard", "its board id 'leaderboard' is reserved"),
        (42, "at $.players[1].board: 42 is not of type 'string'"),
    ],
    ids=["no-id", "empty", "space", "wildcard", "empty-level", "reserved", "not-text"],
)
def test_a_player_board_that_names_no_board_is_rejected_with_why(
    database: Database, board: Any, said: str
) -> None:
    payload = as_payload(remote_x01(("oche/crown-1", board)))
    outcome = ingest(database, payload, VENUES)
    assert (outcome.status, outcome.result_id) == ("rejected", "remote-1")
    assert said in (outcome.reason or ""), outcome.reason
    if not isinstance(board, int):
        assert "player 1 (Ann)" in (outcome.reason or "")
    assert ingest(database, payload, VENUES).status == "rejected"
    with database.session() as session:
        kept = session.execute(select(Rejected.result_id, Rejected.board, Rejected.reason)).all()
    assert [tuple(row) for row in kept] == [("remote-1", "crown-1", outcome.reason)]
    assert count(database, Result) == 0
    assert count(database, Player) == 0


def test_a_remote_result_is_refused_for_what_any_result_is(database: Database) -> None:
    lying = remote_x01()
    lying["players"][1]["score"] = 0
    outcome = ingest(database, as_payload(lying), VENUES)
    assert outcome.status == "rejected"
    assert outcome.reason == "the log gives Ann a final score of 241, the result claims 0"
    too_long = remote_x01(result_id="remote-2", match="m" * 201)
    outcome = ingest(database, as_payload(too_long), VENUES)
    assert outcome.status == "rejected"
    assert outcome.reason == "match is 201 characters long, over 200"
    assert count(database, Result) == 0


def test_the_api_gives_a_results_match_and_each_players_board_and_venue(
    tmp_path: Path,
) -> None:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    assert ingest(database, as_payload(remote_x01()), VENUES).status == "imported"
    alone = result_document("x01", X01_MOVES, options={"start": 301}, board="anchor-2")
    alone["result_id"] = "alone-1"
    assert ingest(database, as_payload(alone), VENUES).status == "imported"
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        remote = client.get("/api/results/remote-1").json()
        single = client.get("/api/results/alone-1").json()
        recent = client.get("/api/players/Ann", params={"venue": "The Anchor"}).json()
        page = client.get("/results/remote-1").text
    database.dispose()
    assert "remote match: The Crown v The Anchor" in page
    # each name links to the player's card in their own venue
    ann = 'href="/players/Ann?venue=The%20Anchor">Ann</a> <span class="where">at The Anchor'
    assert ann in page
    assert 'href="/players/Cy?venue=The%20Crown">Cy</a>' in page
    assert (remote["board"], remote["venue"], remote["match"]) == (
        "crown-1",
        "The Crown",
        "match-3f",
    )
    assert remote["venues"] == ["The Crown", "The Anchor"]
    assert [(p["name"], p["board"], p["venue"]) for p in remote["result_players"]] == [
        ("Cy", "oche/crown-1", "The Crown"),
        ("Ann", "league/anchor-2", "The Anchor"),
    ]
    # a game on one board: no match, no boards, its one venue
    assert (single["match"], single["venues"]) == (None, ["The Anchor"])
    assert [(p["board"], p["venue"]) for p in single["result_players"]] == [
        (None, "The Anchor"),
        (None, "The Anchor"),
    ]
    # Ann of The Anchor: her game there and the remote match are one player's
    assert [r["result_id"] for r in recent["recent"]] == ["remote-1", "alone-1"]


def test_upgrading_keeps_earlier_results_without_a_match_or_boards(
    sqlite_or_postgres_url: str,
) -> None:
    db = Database(sqlite_or_postgres_url)
    db.migrate("0002")
    # the figures revision 0002 had: later revisions add their own (legs_won, ...)
    had = {c["name"] for c in inspect(db.engine).get_columns("result_players")}
    figures = [
        str(f.column) for f in LINE_FIGURES if f.aggregate is Aggregate.SUM and str(f.column) in had
    ]
    assert "points" in figures and "legs_won" not in figures
    with db.write_session() as session:  # ids from the sequences, as ingest's would be
        session.execute(text("INSERT INTO venues (name, timezone) VALUES ('home', 'UTC')"))
        session.execute(
            text(
                "INSERT INTO players (venue_id, key, name, name_at) "
                "SELECT id, 'ann', 'Ann', 0 FROM venues"
            )
        )
        session.execute(
            text(
                "INSERT INTO results (result_id, board, venue_id, game, options, result, "
                "finished_at, received_at, visits, payload) SELECT 'old', 'b', id, 'x01', "
                "'{}', 'checkout', 0, 0, '[]', '{}' FROM venues"
            )
        )
        session.execute(
            text(
                "INSERT INTO result_players (result_pk, player_id, seat, name, game, venue_id, "
                "finished_at, score, won, placement, darts, highlight, highest_checkout, "
                f"leg_darts, {', '.join(figures)}) SELECT results.id, players.id, 0, 'Ann', "
                "'x01', players.venue_id, 0, 0, true, 1, 12, 40, 40, 12, "
                f"{', '.join('1' for _ in figures)} FROM results, players"
            )
        )
    db.migrate()
    assert ingest(db, as_payload(remote_x01()), VENUES).status == "imported"
    with db.session() as session:
        old = queries.result_detail(session, "old")
        new = queries.result_detail(session, "remote-1")
    db.dispose()
    assert (old.match, [p.board for p in old.result_players]) == (None, [None])
    assert (new.match, [p.board for p in new.result_players]) == (
        "match-3f",
        ["oche/crown-1", "league/anchor-2"],
    )
