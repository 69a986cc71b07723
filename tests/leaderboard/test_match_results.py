"""A match's result in the leaderboard (docs/leaderboard.md, "Matches and
legs"): re-scored leg by leg from each leg's log, its legs counted against its
format, stored as one result whose figures are the sums over its legs; legs
won and lost in every row (a single game is a match of one leg); a match
that lies about its legs refused with the reason and kept whole; revisions
and withdrawals of a match as of a game; migration 0009's legs for the games
stored before. On SQLite and PostgreSQL where a database is involved."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

import leaderboard
from engine import Game
from engine.events import END_VISIT, parse_event
from engine.game_log import replay_log
from engine.match import Match
from engine.match_format import MatchFormat
from firmware_bridge.cli.main import main
from leaderboard import queries
from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.models import Rating, Rejected, Result, ResultPlayer
from leaderboard.sample_results import (
    SimulatedPlayer,
    format_json,
    match_document,
    new_leg,
    sample_match_result,
)
from leaderboard.scoring import LegLine, RejectedResultError, score_result
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from leaderboard.web.app import create_app
from mqtt_contract.result_payload import result_document as published_result
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.result_documents import result_document
from tests.postgres_database import sqlite_or_postgres_url

__all__ = ["sqlite_or_postgres_url"]

VENUES = VenueMap()
T0 = 1_780_000_000.0
OPTIONS = {"start": 301, "out": "straight"}
FIRST_TO_2 = MatchFormat(2)

ANN_WINS = ["T20 T20 T20", "S20 S20 S20", "T20 T20 S1"]
"""Ann throws first: 180, Bob 60, Ann checks out 121 (a 6-dart leg)."""
BOB_WINS = ["S1 S1 S1", "T20 T20 T20", "S1 S1 S1", "T20 T20 S1"]
"""Ann throws first: 3, Bob 180, Ann 3, Bob checks out 121."""


def leg(moves: list[str], first_side: int = 0) -> Game:
    """A finished leg of 301 straight out between Ann and Bob."""
    game = replay_log(new_leg("x01", ["Ann", "Bob"], OPTIONS, first_side), "\n".join(moves))
    assert game.is_finished
    return game


def match(
    *legs: Game, starters: list[int] | None = None, revision: int = 1, **kwargs: Any
) -> dict[str, Any]:
    """The result of a first to 2 legs match of these legs (game key ``m-1``)."""
    document = match_document(
        legs,
        starters or [0] * len(legs),
        kwargs.pop("match_format", FIRST_TO_2),
        result_id=f"m-1.{revision}",
        board="pub-1",
        started_at=T0 - 900,
        finished_at=T0,
        revision=revision,
    )
    document["game_key"] = document["match_id"] = "m-1"
    document.update(kwargs)
    return document


def two_nil() -> dict[str, Any]:
    return match(leg(ANN_WINS), leg(ANN_WINS))


def rejected(document: Any) -> str:
    with pytest.raises(RejectedResultError) as caught:
        score_result(document)
    return caught.value.reason


def rows(db: Database, period: str = "all") -> dict[str, Any]:
    with db.session() as session:
        found = queries.leaderboard(session, "x01", period, now=T0)  # type: ignore[arg-type]
    return {row.player: row for row in found}


def count(db: Database, model: type) -> int:
    with db.session() as session:
        return int(session.execute(select(func.count()).select_from(model)).scalar_one())


# ------------------------------------------------------------------- scoring


def test_a_match_is_scored_leg_by_leg_and_its_figures_are_the_sums() -> None:
    scored = score_result(two_nil())
    assert (scored.game_key, scored.winner, scored.result) == ("m-1", 0, "checkout")
    assert scored.match_format == format_json(FIRST_TO_2)
    assert scored.legs == (LegLine(1, None, 0, 0, "checkout"), LegLine(2, None, 0, 0, "checkout"))
    ann, bob = scored.players
    assert (ann.won, ann.placement, ann.darts, ann.score) == (True, 1, 12, 0)
    assert (bob.won, bob.placement, bob.darts, bob.score) == (False, 2, 6, 241)
    assert ann.figures["points"] == 602 and ann.figures["count_180"] == 2
    assert ann.figures["first9_points"] == 602 and ann.figures["first9_darts"] == 12
    assert (ann.figures["checkouts"], ann.figures["highest_checkout"]) == (2, 121)
    assert ann.figures["leg_darts"] == 6  # the best leg's darts
    assert (ann.figures["legs_won"], ann.figures["legs_lost"]) == (2, 0)
    assert (bob.figures["legs_won"], bob.figures["legs_lost"]) == (0, 2)
    assert bob.figures["points"] == 120
    assert ann.highlight == 121.0  # the best leg's highlight (X01's: the highest checkout)
    assert [visit.leg for visit in scored.visits] == [1, 1, 1, 2, 2, 2]


def test_a_match_in_sets_counts_its_legs_sets() -> None:
    sets = MatchFormat(1, sets=2)
    document = match(leg(ANN_WINS), leg(ANN_WINS), match_format=sets)
    assert [entry["set"] for entry in document["legs"]] == [1, 2]
    assert document["sets_won"] == [2, 0]
    scored = score_result(document)
    assert [line.figures["legs_won"] for line in scored.players] == [2, 0]
    wrong = copy.deepcopy(document)
    wrong["legs"][1]["set"] = 1
    assert rejected(wrong) == "leg 2 is in set 2 by the match's format, the result says set 1"
    wrong = {**document, "sets_won": [1, 0]}
    assert rejected(wrong) == "the legs give sets won 2-0, the result claims 1-0"


def test_a_match_whose_loser_took_a_leg_places_by_legs() -> None:
    scored = score_result(match(leg(ANN_WINS), leg(BOB_WINS), leg(ANN_WINS)))
    ann, bob = scored.players
    assert [(line.won, line.placement) for line in scored.players] == [(True, 1), (False, 2)]
    assert (ann.figures["legs_won"], ann.figures["legs_lost"]) == (2, 1)
    assert (bob.figures["legs_won"], bob.figures["legs_lost"]) == (1, 2)
    assert bob.figures["checkouts"] == 1


def _leg_log(document: dict[str, Any], number: int, log: str) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    changed["legs"][number - 1]["log"] = log
    return changed


def _leg_field(document: dict[str, Any], number: int, **fields: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    changed["legs"][number - 1].update(fields)
    return changed


BAD_MATCHES: dict[str, tuple[Any, str]] = {
    "a leg's log that does not replay": (
        lambda d: _leg_log(d, 2, "T20 T20 T20\nS20 XX\n"),
        "leg 2's log does not replay: line 2, 'XX':",
    ),
    "a leg's log that does not finish it": (
        lambda d: _leg_log(d, 2, "T20 T20 T20\n"),
        "leg 2's log does not finish the leg (Ann 121, Bob 301); leg 2 claims 'checkout' "
        "with winner 0 (Ann)",
    ),
    "a leg's winner its log does not give": (
        lambda d: _leg_field(d, 1, winner=1),
        "leg 1's log gives winner 0 (Ann), leg 1 claims 1 (Bob)",
    ),
    "a leg's final score its log does not give": (
        lambda d: _leg_field(d, 1, players=[{"score": 0}, {"score": 200}]),
        "leg 1's log gives Bob a final score of 241, leg 1 claims 200",
    ),
    "a match winner the legs do not make": (
        lambda d: {**d, "winner": 1, "winner_name": "Bob"},
        "the legs give the match to 0 (Ann), the result claims 1 (Bob)",
    ),
    "legs won that do not add up": (
        lambda d: {**d, "legs_won": [2, 1]},
        "the legs give legs won 2-0, the result claims 2-1",
    ),
    "a match without legs won": (
        lambda d: {key: value for key, value in d.items() if key != "legs_won"},
        "the legs give legs won 2-0, the result claims none",
    ),
    "a leg after the match was won": (
        lambda d: {**d, "legs": [*d["legs"], {**d["legs"][1], "leg": 3}]},
        "leg 3 was played after Ann had won the match in leg 2 (legs 2-0, first to 2 legs)",
    ),
    "legs that do not finish the match": (
        lambda d: {**d, "legs": d["legs"][:1], "legs_won": [1, 0]},
        "the legs do not finish the match: legs 1-0 after 1 legs, and the match is first to 2 legs",
    ),
    "legs numbered out of order": (
        lambda d: _leg_field(d, 2, leg=3),
        "legs[1] says it is leg 3: the legs are numbered 1, 2, ... in the order played",
    ),
    "a starter who is not a player": (
        lambda d: _leg_field(d, 2, starter=2),
        "leg 2's starter is player 2, and the match has 2 players",
    ),
    "a leg listing another number of players": (
        lambda d: _leg_field(d, 1, players=[{"score": 0}]),
        "leg 1 lists 1 players, the match has 2",
    ),
    "a log beside the legs": (
        lambda d: {**d, "log": "T20\n"},
        "the result has both legs and a log: a match's result has each leg's log in its "
        "legs, and no log of its own",
    ),
    "legs without a format": (
        lambda d: {key: value for key, value in d.items() if key != "match_format"},
        "the result has legs but no match_format: a match has a format",
    ),
    "a match id that is not the game key": (
        lambda d: {**d, "match_id": "m-2"},
        "the match_id 'm-2' is not the result's game_key 'm-1': a match's id is its game's key",
    ),
    "sets won in a match without sets": (
        lambda d: {**d, "sets_won": [1, 0]},
        "the legs give sets won none, the result claims 1-0",
    ),
    "a result other than the last leg's": (
        lambda d: {**d, "result": "closed-all"},
        "the last leg ended by 'checkout', the match's result claims 'closed-all'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_MATCHES))
def test_a_match_that_does_not_add_up_is_refused_naming_why(case: str) -> None:
    change, reason = BAD_MATCHES[case]
    assert rejected(change(two_nil())).startswith(reason)


def test_a_format_that_is_not_one_and_a_single_game_with_a_format_are_refused() -> None:
    document = {**two_nil(), "match_format": {"legs": 0}}
    assert rejected(document).startswith("the result does not match the result schema")
    single = {**result_document("x01", ANN_WINS, options=OPTIONS), "match_format": {"legs": 2}}
    assert rejected(single) == (
        "the result has a match_format but no legs: a match's result lists its legs"
    )


def test_a_single_game_counts_as_a_match_of_one_leg() -> None:
    won = score_result(result_document("x01", ANN_WINS, options=OPTIONS))
    assert [(p.figures["legs_won"], p.figures["legs_lost"]) for p in won.players] == [
        (1, 0),
        (0, 1),
    ]
    assert (won.legs, won.match_format) == ((), None)
    draw = score_result(
        result_document(
            "x01",
            ["S20 M M", "S20 M M", "S1 M M"],
            players=["Ann", "Bob", "Cy"],
            options={"start": 301, "rounds": 1},
        )
    )
    assert draw.winner is None
    assert [(p.figures["legs_won"], p.figures["legs_lost"]) for p in draw.players] == [(0, 0)] * 3


# ------------------------------------------------------------------ storing


def test_importing_a_match_counts_one_match_its_legs_and_both_legs_statistics(
    database: Database,
) -> None:
    outcome = ingest(database, as_payload(two_nil()), VENUES, received_at=T0)
    assert (outcome.status, outcome.result_id) == ("imported", "m-1.1")
    assert (count(database, Result), count(database, ResultPlayer)) == (1, 2)
    assert count(database, Rating) == 2  # rated once, for the match
    for period in ("all", "day"):
        ann, bob = rows(database, period)["Ann"], rows(database, period)["Bob"]
        assert (ann.played, ann.won, ann.legs_won, ann.legs_lost) == (1, 1, 2, 0)
        assert (bob.played, bob.won, bob.legs_won, bob.legs_lost) == (1, 0, 0, 2)
        assert (ann.three_dart_average, ann.first9_average) == (150.5, 150.5)
        assert (ann.count_180, ann.count_100, ann.highest_checkout) == (2, 2, 121)
        assert (ann.best_leg_darts, ann.checkout_percent) == (6, 100.0)
        assert bob.three_dart_average == 60.0
    with database.session() as session:
        detail = queries.result_detail(session, "m-1.1")
    assert detail.match_format == format_json(FIRST_TO_2)
    assert [(leg.leg, leg.starter, leg.winner) for leg in detail.legs] == [(1, 0, 0), (2, 0, 0)]
    assert [(p.name, p.legs_won, p.legs_lost) for p in detail.result_players] == [
        ("Ann", 2, 0),
        ("Bob", 0, 2),
    ]
    assert [visit.leg for visit in detail.visits] == [1, 1, 1, 2, 2, 2]


def played_match(
    legs: list[list[str]],
    players: tuple[str, ...] = ("Ann", "Bob"),
    teams: dict[str, list[str]] | None = None,
) -> Match:
    """A first to 2 legs match of 301 straight out played through the engine's
    Match: each leg's visits (NEXT after each), NEXT between the legs."""
    played = Match("x01", list(players), OPTIONS, teams, format=FIRST_TO_2)
    for number, visits in enumerate(legs):
        if number:
            assert played.leg_over
            played.push(END_VISIT)
        for visit in visits:
            for token in visit.split():
                played.push(parse_event(token))
            if not played.leg.is_finished:
                played.push(END_VISIT)
    assert played.is_finished
    return played


def test_the_301_match_ann_wins_2_0_with_bob_throwing_first_in_leg_2(database: Database) -> None:
    """The issue's check: Ann wins leg 1, Bob throws first in leg 2 (the throw
    alternates), Ann wins leg 2; importing its result gives Ann one match won,
    legs 2-0, and both legs' statistics."""
    bob_first = ["S20 S20 S20", "T20 T20 T20", "S5 S5 S5", "T20 T20 S1"]
    played = played_match([ANN_WINS, bob_first])
    records = played.legs
    assert [(r.starter, r.outcome.winner) for r in records] == [(0, 0), (1, 0)]
    document = published_result(
        played, result_id="done-when", board="pub-1", started_at=T0 - 600, finished_at=T0
    )
    first_lines = [
        next(line for line in entry["log"].splitlines() if not line.startswith("#"))
        for entry in document["legs"]
    ]
    assert first_lines == ["T20 T20 T20", "S20 S20 S20"]  # Bob's visit opens leg 2
    assert ingest(database, as_payload(document), VENUES, received_at=T0).status == "imported"
    ann, bob = rows(database)["Ann"], rows(database)["Bob"]
    assert (ann.played, ann.won, ann.legs_won, ann.legs_lost) == (1, 1, 2, 0)
    assert (bob.played, bob.won, bob.legs_won, bob.legs_lost) == (1, 0, 0, 2)
    assert (ann.three_dart_average, ann.first9_average, ann.count_180) == (150.5, 150.5, 2)
    assert (ann.highest_checkout, ann.best_leg_darts, ann.checkout_percent) == (121, 6, 100.0)
    assert (bob.three_dart_average, bob.count_180) == (45.0, 0)  # 60 and 75 in 9 darts
    with database.session() as session:
        detail = queries.result_detail(session, "done-when")
    assert [(leg.leg, leg.starter, leg.winner) for leg in detail.legs] == [(1, 0, 0), (2, 1, 0)]
    assert [(v.leg, v.player) for v in detail.visits] == [
        (1, 0), (1, 1), (1, 0), (2, 1), (2, 0), (2, 1), (2, 0),
    ]  # fmt: skip


def test_a_pairs_match_counts_the_legs_for_both_players_of_each_team() -> None:
    """Ann and Cy against Bob and Dee: team B's Bob throws first in leg 2."""
    bob_first = ["S20 S20 S20", "T20 T20 T20", "S5 S5 S5", "T20 T20 S1"]
    played = played_match(
        [ANN_WINS, bob_first],
        players=("Ann", "Bob", "Cy", "Dee"),
        teams={"A": ["Ann", "Cy"], "B": ["Bob", "Dee"]},
    )
    records = played.legs
    assert [record.starter for record in records] == [0, 1]
    document = published_result(
        played, result_id="pairs", board="pub-1", started_at=None, finished_at=T0
    )
    scored = score_result(document)
    assert [(line.name, line.team, line.won) for line in scored.players] == [
        ("Ann", 0, True),
        ("Bob", 1, False),
        ("Cy", 0, True),
        ("Dee", 1, False),
    ]
    assert [(p.figures["legs_won"], p.figures["legs_lost"]) for p in scored.players] == [
        (2, 0),
        (0, 2),
        (2, 0),
        (0, 2),
    ]
    assert [p.figures["points"] for p in scored.players] == [360, 120, 242, 15]
    assert rejected({**document, "winner_team": 1}) == (
        "the legs give winning team 0, the result claims 1"
    )


@pytest.mark.parametrize("game", ["x01", "cricket"])
def test_sample_matches_score_as_their_legs_say(game: str) -> None:
    rng = random.Random(25)
    players = [SimulatedPlayer("Ann", 0.5, rng), SimulatedPlayer("Bob", 0.4, rng)]
    for _ in range(3):
        document = sample_match_result(rng, "pub-1", players, game, T0, legs=3)
        scored = score_result(document)
        assert [line.figures["legs_won"] for line in scored.players] == document["legs_won"]
        assert max(document["legs_won"]) == 3
        starters = [entry["starter"] for entry in document["legs"]]
        assert starters[:2] == [0, 1]  # the throw alternates
        assert sum(line.darts for line in scored.players) == sum(
            player["stats"]["darts"] for entry in document["legs"] for player in entry["players"]
        )


def test_a_leg_replayed_from_another_starter_is_refused() -> None:
    """Leg 2's log is Bob's visit first: said to be started by Ann, it gives
    Ann Bob's darts, and the leg no longer ends as claimed."""
    bob_first = ["S20 S20 S20", "T20 T20 T20", "S5 S5 S5", "T20 T20 S1"]
    document = match(leg(ANN_WINS), leg(bob_first, first_side=1), starters=[0, 1])
    assert score_result(document).legs[1].starter == 1
    assert rejected(_leg_field(document, 2, starter=0)).startswith("leg 2's log ")


def test_a_match_that_does_not_add_up_is_kept_whole_as_rejected(database: Database) -> None:
    payload = as_payload({**two_nil(), "legs_won": [1, 1]})
    outcome = ingest(database, payload, VENUES, received_at=T0)
    assert (outcome.status, outcome.result_id) == ("rejected", "m-1.1")
    assert outcome.reason == "the legs give legs won 2-0, the result claims 1-1"
    assert count(database, Result) == 0
    with database.session() as session:
        kept = session.execute(select(Rejected)).scalar_one()
    assert kept.payload.encode() == payload
    assert (kept.status, kept.reason) == ("rejected", outcome.reason)
    assert rows(database) == {}


def test_a_match_finished_again_counts_once_with_its_latest_legs(database: Database) -> None:
    ingest(database, as_payload(two_nil()), VENUES, received_at=T0)
    reopened = match(leg(ANN_WINS), leg(BOB_WINS), leg(BOB_WINS), revision=2)
    outcome = ingest(database, as_payload(reopened), VENUES, received_at=T0 + 60)
    assert (outcome.status, outcome.replaced) == ("imported", "m-1.1")
    ann, bob = rows(database)["Ann"], rows(database)["Bob"]
    assert (ann.played, ann.won, ann.legs_won, ann.legs_lost) == (1, 0, 1, 2)
    assert (bob.played, bob.won, bob.legs_won, bob.legs_lost) == (1, 1, 2, 1)
    assert count(database, Rating) == 2
    withdrawn = {**reopened, "result_id": "m-1.3", "revision": 3, "withdrawn": True}
    outcome = ingest(database, as_payload(withdrawn), VENUES, received_at=T0 + 120)
    assert outcome.status == "withdrawn"
    assert rows(database) == {}
    assert count(database, Rating) == 0


def _downgrade(database: Database, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(leaderboard.__file__).parent / "migrations"))
    with database.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


def test_migration_0009_gives_the_games_stored_before_their_one_leg(database: Database) -> None:
    """The games stored before 0009 (taken back to 0008 and up again) get the
    legs a one-leg match gives: the winner one won, the others one lost, a draw none."""
    won = result_document("x01", ANN_WINS, options=OPTIONS, finished_at=T0)
    draw = result_document(
        "x01", ["S20 M M", "S20 M M"], options={"start": 301, "rounds": 1}, finished_at=T0 + 1
    )
    draw["result_id"] = draw["game_key"] = "draw"
    for document in (won, draw):
        assert ingest(database, as_payload(document), VENUES).status == "imported"
    before = {name: (row.legs_won, row.legs_lost) for name, row in rows(database).items()}
    assert before == {"Ann": (1, 0), "Bob": (0, 1)}
    _downgrade(database, "0008")
    database.migrate()
    after = {name: (row.legs_won, row.legs_lost) for name, row in rows(database).items()}
    assert after == before
    with database.session() as session:
        lines = session.execute(
            select(ResultPlayer.figure("legs_won"), ResultPlayer.figure("legs_lost")).order_by(
                ResultPlayer.id
            )
        ).all()
    assert [tuple(line) for line in lines] == [(1, 0), (0, 1), (0, 0), (0, 0)]


def test_oche_leaderboard_import_of_a_match_and_show_json_give_its_legs(
    sqlite_or_postgres_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OCHE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    results = tmp_path / "results.jsonl"
    bad = {**two_nil(), "result_id": "bad", "legs_won": [1, 1]}
    results.write_bytes(as_payload(two_nil()) + b"\n" + as_payload(bad) + b"\n")
    db = ["--db", sqlite_or_postgres_url]
    assert main(["leaderboard", "import", str(results), *db]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["imported"] == 1
    assert summary["rejected"] == [
        {"result_id": "bad", "reason": "the legs give legs won 2-0, the result claims 1-1"}
    ]
    assert main(["leaderboard", "show", "--game", "x01", "--period", "all", "--json", *db]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [
        (row["player"], row["played"], row["won"], row["legs_won"], row["legs_lost"])
        for row in shown
    ] == [("Ann", 1, 1, 2, 0), ("Bob", 1, 0, 0, 2)]
    assert (shown[0]["three_dart_average"], shown[0]["count_180"]) == (150.5, 2)


def test_the_api_rows_the_player_page_and_the_result_give_the_legs(database: Database) -> None:
    ingest(database, as_payload(two_nil()), VENUES, received_at=T0)
    with TestClient(create_app(database, LiveHub(), VENUES)) as client:
        table = client.get("/api/leaderboard", params={"game": "x01", "period": "all"}).json()
        assert [(row["player"], row["legs_won"], row["legs_lost"]) for row in table] == [
            ("Ann", 2, 0),
            ("Bob", 0, 2),
        ]
        card = client.get("/api/players/Bob").json()
        assert (card["games"][0]["row"]["legs_won"], card["games"][0]["row"]["legs_lost"]) == (0, 2)
        result = client.get("/api/results/m-1.1").json()
        assert [leg["winner"] for leg in result["legs"]] == [0, 0]
        page = client.get("/players/Ann").text
        assert 'data-label="Legs">2-0</td>' in page
