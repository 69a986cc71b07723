"""The read side: tables per game and period (each venue's own day), player
cards, result breakdowns, records, recent and rejected results; on SQLite and
PostgreSQL, over results stored by ingest."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from leaderboard import queries
from leaderboard.api_models import CountUpRow, CricketRow, LeaderboardRow, X01Row
from leaderboard.database import Database
from leaderboard.scoring import score_result
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from mqtt_contract import PERIODS
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import PLAYED_GAMES, result_document, simulated_document

VENUES = VenueMap(
    boards={"crown-1": "The Crown", "crown-2": "The Crown"},
    default="home",
    timezone="UTC",
    timezones={"The Crown": "America/New_York"},
)

NOW = datetime(2026, 3, 11, 15, 0, tzinfo=ZoneInfo("UTC")).timestamp()
"""A Wednesday afternoon (UTC; 11:00 in New York)."""


def at(text: str, zone: str = "UTC") -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).timestamp()


def store(db: Database, document: dict[str, Any], result_id: str | None = None) -> str:
    if result_id is not None:
        document["result_id"] = result_id
    outcome = ingest(db, as_payload(document), VENUES)
    assert outcome.status == "imported", outcome.reason
    return str(document["result_id"])


def x01(moves: list[str] = X01_MOVES, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("finished_at", NOW - 60)
    return result_document("x01", moves, options={"start": 301}, **kwargs)


def table(db: Database, game: str, period: str = "all", venue: str | None = None) -> list[Any]:
    with db.session() as session:
        return queries.leaderboard(session, game, period, venue, now=NOW)  # type: ignore[arg-type]


def test_an_x01_row_has_the_figures_of_the_replayed_log(database: Database) -> None:
    store(database, x01())
    ann, bob = table(database, "x01")
    assert isinstance(ann, X01Row)
    assert (ann.rank, ann.player, ann.venue, ann.played, ann.won) == (1, "Ann", "home", 1, 1)
    assert ann.win_percent == 100.0
    assert ann.three_dart_average == 150.5  # 301 points in 6 darts
    assert ann.first9_average == 150.5
    assert ann.highest_checkout == 121
    assert ann.best_leg_darts == 6
    assert ann.count_180 == 1
    assert ann.rating > bob.rating
    assert (bob.rank, bob.won, bob.three_dart_average, bob.highest_checkout) == (2, 0, 60.0, None)
    assert bob.best_leg_darts is None


def test_a_table_sums_the_figures_of_every_game_in_sql(database: Database) -> None:
    documents = [
        x01(finished_at=NOW - 300),
        x01(["S20 S20 S20", "T20 T20 T20", "S1 S1 S1", "T20 T7 D20"], finished_at=NOW - 200),
    ]
    for document in documents:
        store(database, document)
    lines = [line for d in documents for line in score_result(d).players if line.name == "Ann"]
    (ann,) = [row for row in table(database, "x01") if row.player == "Ann"]
    points, darts = (
        sum(int(line.figures["points"] or 0) for line in lines),
        sum(line.darts for line in lines),
    )
    assert ann.played == 2
    assert ann.three_dart_average == round(points / darts * 3, 2)
    checkouts = sum(int(line.figures["checkouts"] or 0) for line in lines)
    checkout_darts = sum(int(line.figures["checkout_darts"] or 0) for line in lines)
    assert ann.checkout_percent == round(checkouts / checkout_darts * 100, 2)
    assert ann.count_100 == sum(int(line.figures["count_100"] or 0) for line in lines)
    assert ann.best_leg_darts == min(line.figures["leg_darts"] or 99 for line in lines)


def test_rank_follows_the_rating_and_the_loser_is_below(database: Database) -> None:
    for index in range(3):
        store(database, x01(players=["Ann", "Bob"], finished_at=NOW - 500 + index))
    store(database, x01(players=["Cy", "Ann"], finished_at=NOW - 100))
    rows = table(database, "x01")
    assert [row.rank for row in rows] == [1, 2, 3]
    assert [row.rating for row in rows] == sorted((row.rating for row in rows), reverse=True)
    assert rows[-1].player == "Bob"
    assert {row.player: row.won for row in rows} == {"Ann": 3, "Cy": 1, "Bob": 0}


def test_cricket_rows_have_marks_per_round(database: Database) -> None:
    store(database, PLAYED_GAMES["cricket"]())
    ann = table(database, "cricket")[0]
    assert isinstance(ann, CricketRow)
    line = score_result(PLAYED_GAMES["cricket"]()).players[0]
    assert ann.mpr == round(int(line.figures["marks"] or 0) / line.darts * 3, 2)
    assert ann.best_game_mpr == ann.mpr
    assert ann.count_9_marks == line.figures["count_9_marks"]


@pytest.mark.parametrize("game", sorted(set(PLAYED_GAMES) - {"x01", "cricket"}))
def test_every_game_has_a_table_with_its_highlight(database: Database, game: str) -> None:
    document = PLAYED_GAMES[game]()
    store(database, document)
    rows = table(database, game)
    assert rows[0].player == "Ann"
    expected = {line.name: line.highlight for line in score_result(document).players}
    assert {row.player: row.highlight for row in rows} == expected
    kind = CountUpRow if game == "count-up" else LeaderboardRow
    assert all(type(row) is (CricketRow if "cricket-" in game else kind) for row in rows)


def test_the_day_is_each_venues_own_local_day(database: Database) -> None:
    # 01:30 UTC on Wednesday is still Tuesday evening in New York
    store(database, x01(board="crown-1", finished_at=at("2026-03-11T01:30")), "crown-tuesday")
    store(database, x01(board="crown-1", finished_at=at("2026-03-11T05:30")), "crown-wednesday")
    store(database, x01(board="board1", finished_at=at("2026-03-11T01:30")), "home-wednesday")
    store(database, x01(board="board1", finished_at=at("2026-03-10T23:30")), "home-tuesday")
    played = {(row.venue, row.player): row.played for row in table(database, "x01", "day")}
    assert played == {
        ("The Crown", "Ann"): 1,
        ("The Crown", "Bob"): 1,
        ("home", "Ann"): 1,
        ("home", "Bob"): 1,
    }
    crown = table(database, "x01", "day", venue="The Crown")
    assert {row.venue for row in crown} == {"The Crown"}
    assert table(database, "x01", "day", venue="Nowhere") == []
    assert sum(row.played for row in table(database, "x01", "all")) == 8


def test_week_starts_on_monday_and_month_on_the_first(database: Database) -> None:
    store(database, x01(finished_at=at("2026-03-09T00:10")))  # Monday
    store(database, x01(finished_at=at("2026-03-08T23:50")))  # Sunday before
    store(database, x01(finished_at=at("2026-02-28T12:00")))  # last month
    played = {
        period: sum(row.played for row in table(database, "x01", period) if row.player == "Ann")
        for period in PERIODS
    }
    assert played == {"day": 0, "week": 1, "month": 2, "all": 3}
    assert table(database, "x01", "day") == []


def test_a_player_card(database: Database) -> None:
    first = store(database, x01(finished_at=NOW - 900))
    store(database, PLAYED_GAMES["cricket"](), "cricket-game")
    with database.session() as session:
        card = queries.player_card(session, "  ANN ")
        with pytest.raises(queries.PlayerNotFoundError, match="no player called 'Zed'"):
            queries.player_card(session, "Zed")
        with pytest.raises(queries.PlayerNotFoundError):
            queries.player_card(session, "Ann", venue="The Crown")
    assert (card.name, card.venue) == ("Ann", "home")
    assert [stats.game for stats in card.games] == ["cricket", "x01"]
    x01_row = card.games[1].row
    assert isinstance(x01_row, X01Row)
    assert (x01_row.rank, x01_row.three_dart_average) == (1, 150.5)
    assert sorted(point.game for point in card.rating_history) == ["cricket", "x01"]
    assert all(point.rating > 0 for point in card.rating_history)  # Ann won both
    x01_points = [point for point in card.average_history if point.game == "x01"]
    assert [(point.value, point.result_id) for point in x01_points] == [(150.5, first)]
    assert [summary.result_id for summary in card.recent] == [first, "cricket-game"]
    assert card.recent[0].players == ["Ann", "Bob"]


def test_a_result_broken_down_by_visit(database: Database) -> None:
    result_id = store(database, x01(board="crown-2"))
    with database.session() as session:
        detail = queries.result_detail(session, result_id)
        with pytest.raises(queries.ResultNotFoundError, match="no result with id 'nope'"):
            queries.result_detail(session, "nope")
    assert (detail.venue, detail.board, detail.game, detail.winner) == (
        "The Crown",
        "crown-2",
        "x01",
        0,
    )
    assert detail.options["start"] == 301
    assert [(p.name, p.score, p.won, p.darts) for p in detail.result_players] == [
        ("Ann", 0, True, 6),
        ("Bob", 241, False, 3),
    ]
    assert [(v.player, v.darts, v.points, v.score_after) for v in detail.visits] == [
        (0, ["T20", "T20", "T20"], 180, 121),
        (1, ["S20", "S20", "S20"], 60, 241),
        (0, ["T20", "T7", "D20"], 121, 0),
    ]


def test_records_of_the_day_and_of_all_time(database: Database) -> None:
    old = store(database, x01(finished_at=NOW - 7 * 86400))
    today = store(
        database,
        x01(["T20 T20 T20", "S1 S1 S1", "T20 T19 D2"], players=["Bob", "Cy"]),
    )
    baseball = result_document(
        "baseball", ["S1 D1 M", "S1 M M"], options={"innings": 1}, finished_at=NOW - 10
    )
    store(database, baseball, "baseball-today")
    with database.session() as session:
        day = queries.records(session, "day", now=NOW)
        ever = queries.records(session, "all", now=NOW)
    assert day.highest_checkout is not None and ever.highest_checkout is not None
    assert (day.highest_checkout.player, day.highest_checkout.value) == ("Bob", 121.0)
    assert day.highest_checkout.result_id == today
    # a tie is the earliest: last week's 121
    assert ever.highest_checkout.result_id == old
    assert day.most_180s is not None and day.most_180s.player == "Bob"
    assert day.best_leg is not None and day.best_leg.value == 6.0
    assert {entry.game for entry in day.highlights} == {"x01", "baseball"}
    with database.session() as session:
        empty = queries.records(session, "day", venue="The Crown", now=NOW)
    assert (empty.highest_checkout, empty.best_leg, empty.most_180s, empty.highlights) == (
        None,
        None,
        None,
        [],
    )


def test_recent_results_newest_first_and_rejected_ones_apart(database: Database) -> None:
    ids = [store(database, x01(finished_at=NOW - 1000 + i), f"r{i}") for i in range(3)]
    store(database, x01(board="crown-1", finished_at=NOW), "crown")
    tampered = x01()
    tampered["players"][0]["score"] = 100
    assert ingest(database, as_payload(tampered), VENUES, received_at=NOW).status == "rejected"
    assert ingest(database, b"garbage", VENUES, received_at=NOW + 1).status == "rejected"
    with database.session() as session:
        recent = [summary.result_id for summary in queries.recent_results(session, limit=3)]
        home = queries.recent_results(session, venue="home")
        refused = queries.rejected(session)
    assert recent == ["crown", *reversed(ids[1:])]
    assert [summary.result_id for summary in home] == list(reversed(ids))
    assert [(entry.result_id, entry.received_at) for entry in refused] == [
        (None, NOW + 1),
        (tampered["result_id"], NOW),
    ]
    assert sum(row.played for row in table(database, "x01")) == 8  # never the rejected


def test_the_all_time_totals_kept_at_ingest_match_the_rows_they_add_up(
    database: Database,
) -> None:
    for seed in range(4):
        for game in ("x01", "cricket"):
            players = ("Ann", "Bob") if seed % 2 else ("Cy", "Ann")
            document = simulated_document(
                game, seed, players=players, started_at=NOW - 86400 + 3600 * seed
            )
            store(database, document)
    for moves in (
        ["T15 T18 M", "M M M", "SB"],
        ["S15 S16 S17", "M M M", "S18 S19 S20", "M M M", "SB"],
    ):
        document = result_document(
            "around-the-world", moves, options={"start": 15, "multi": True}, finished_at=NOW - 5
        )
        store(database, document)
    # the all-time rows come from player_totals, the month's from adding up the rows
    for game in ("x01", "cricket", "around-the-world"):
        assert table(database, game, "all") == table(database, game, "month"), game
    with database.session() as session:
        top = queries.leaderboard(session, "x01", "all", limit=1)
    assert top == table(database, "x01", "all")[:1]
