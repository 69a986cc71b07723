"""Tournaments in the service (leaderboard/tournaments.py) on SQLite and
PostgreSQL: migration 0011 makes the tables the models say; a tournament's
matches are queued as called matches once their players are known and free;
a stored result carrying a match's ``call_id`` advances the bracket once
(inside the ingest transaction); a walkover decides a match without play and
takes its call back; the seeds follow the ratings; the standings follow the
rules docs/matches.md writes out; bad input changes nothing."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select

from leaderboard.database import Database
from leaderboard.models import Base, MatchCall, Player, PlayerRating, Tournament
from leaderboard.store import ingest, player_key, venue_id
from leaderboard.tournaments import (
    NewTournament,
    TournamentError,
    TournamentNotFoundError,
    TournamentView,
    create,
    listing,
    show,
    walkover,
)
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document
from tests.leaderboard.web_seed import VENUES
from tests.postgres_database import postgres_url

__all__ = ["postgres_url"]

FIRST_WINS = X01_MOVES
"""301: the first player checks out in their third visit."""
SECOND_WINS = ["S20 S20 S20", "T20 T20 T20", "S1 S1 S1", "T20 T7 D20"]
"""301: the second player throws 180 and checks out 121."""


def _create(database: Database, format: str, players: list[str], **given: Any) -> int:
    spec = NewTournament(
        format=format,
        game=given.pop("game", "x01"),
        players=players,
        boards=given.pop("boards", ["oche/board1"]),
        legs=given.pop("legs", 1),
        options=given.pop("options", {"start": 301}),
        **given,
    )
    with database.write_session() as session:
        return create(session, spec, VENUES, now=1000.0)


def _show(database: Database, tournament_id: int) -> TournamentView:
    with database.session() as session:
        return show(session, tournament_id)


def _match(view: TournamentView, key: str) -> Any:
    return next(match for match in view.matches if match.id == key)


def _play(
    database: Database, tournament_id: int, key: str, winner: str, legs: list[int] | None = None
) -> dict[str, Any]:
    """Store the result of match ``key`` as its board sends it (with the
    call's id), ``winner`` checking out; the document stored."""
    match = _match(_show(database, tournament_id), key)
    assert match.call_id is not None, f"{key} is not queued: {match.status}"
    side = match.players.index(winner)
    document = result_document(
        "x01",
        FIRST_WINS if side == 0 else SECOND_WINS,
        players=match.players,
        options={"start": 301},
    )
    document["call_id"] = match.call_id
    if legs is not None:
        document["legs_won"] = legs
    assert ingest(database, as_payload(document), VENUES).status == "imported"
    return document


def _statuses(view: TournamentView) -> dict[str, str]:
    return {match.id: match.status for match in view.matches}


def test_migration_0011_makes_the_tables_the_models_say(database: Database) -> None:
    tables = {"tournaments", "tournament_players", "tournament_matches"}

    def of_tournaments(item: Any, name: str | None, kind: str, *_: Any) -> bool:
        table = name if kind == "table" else item.table.name
        return table in tables

    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": of_tournaments}
        )
        assert compare_metadata(context, Base.metadata) == []


def test_a_round_robin_of_three_calls_each_match_in_turn_and_ranks_by_points(
    database: Database,
) -> None:
    made = _create(database, "round-robin", ["Ann", "Bob", "Cy"], legs=2, title="Friday Cup")
    view = _show(database, made)
    assert view.seeds == ["Ann", "Bob", "Cy"]  # nobody is rated: the order given
    assert [(m.id, m.players) for m in view.matches] == [
        ("R1-1", ["Bob", "Cy"]),
        ("R2-1", ["Cy", "Ann"]),
        ("R3-1", ["Ann", "Bob"]),
    ]
    assert [(bye.round, bye.player) for bye in view.byes] == [(1, "Ann"), (2, "Bob"), (3, "Cy")]
    # only R1-1 is queued: R2-1 waits for Cy, R3-1 for Bob
    assert _statuses(view) == {"R1-1": "queued", "R2-1": "ready", "R3-1": "ready"}
    with database.session() as session:
        call = session.get(MatchCall, _match(view, "R1-1").call_id)
        assert call is not None
        assert (call.owner_kind, call.owner_id, call.title) == (
            "tournament",
            made,
            "Friday Cup, round 1",
        )
        assert call.players == [
            {"name": "Bob", "player_id": None},
            {"name": "Cy", "player_id": None},
        ]
        assert (call.game, call.options, call.boards) == ("x01", {"start": 301}, ["oche/board1"])
        assert call.match_format == {"legs": 2, "starts": "alternate"}

    _play(database, made, "R1-1", "Cy", legs=[1, 2])
    view = _show(database, made)
    assert _statuses(view) == {"R1-1": "finished", "R2-1": "queued", "R3-1": "ready"}
    assert (_match(view, "R1-1").winner, _match(view, "R1-1").legs) == ("Cy", [1, 2])
    _play(database, made, "R2-1", "Ann", legs=[0, 2])
    _play(database, made, "R3-1", "Ann", legs=[2, 1])
    view = _show(database, made)
    assert view.status == "finished"
    assert view.champion == "Ann"
    assert [row.model_dump() for row in view.standings] == [
        {"place": 1, "player": "Ann", "seed": 1, "played": 2, "won": 2, "legs_won": 4,
         "legs_lost": 1, "points": 4, "out": False},
        {"place": 2, "player": "Cy", "seed": 3, "played": 2, "won": 1, "legs_won": 2,
         "legs_lost": 3, "points": 2, "out": False},
        {"place": 3, "player": "Bob", "seed": 2, "played": 2, "won": 0, "legs_won": 2,
         "legs_lost": 4, "points": 0, "out": False},
    ]  # fmt: skip


def test_a_result_stored_again_advances_the_bracket_once(database: Database) -> None:
    made = _create(database, "single-elimination", ["Ann", "Bob", "Cy", "Dee"])
    with database.session() as session:
        call = session.get(MatchCall, _match(_show(database, made), "R1-1").call_id)
        assert call is not None and call.match_format is None  # first to 1 leg: a single game
    document = _play(database, made, "R1-1", "Ann")
    assert ingest(database, as_payload(document), VENUES).status == "duplicate"
    _play(database, made, "R1-2", "Bob")
    with database.session() as session:
        calls = session.execute(select(func.count()).select_from(MatchCall)).scalar_one()
    assert calls == 3  # two semi-finals and one final: never a second final
    view = _show(database, made)
    assert _match(view, "R2-1").players == ["Ann", "Bob"]
    _play(database, made, "R2-1", "Bob")
    view = _show(database, made)
    assert (view.status, view.champion) == ("finished", "Bob")
    assert [(row.place, row.player, row.out) for row in view.standings] == [
        (1, "Bob", False),
        (2, "Ann", True),
        (3, "Cy", True),
        (3, "Dee", True),
    ]


def _rate(database: Database, ratings: dict[str, float]) -> None:
    """Give roster players a rating in X01 (as the service keeps them)."""
    with database.write_session() as session:
        place = venue_id(session, VENUES.default)
        for name, ordinal in ratings.items():
            player = Player(venue_id=place, key=player_key(name), name=name, name_at=1.0)
            session.add(player)
            session.flush()
            session.add(
                PlayerRating(
                    player_id=player.id, game="x01", mu=ordinal, sigma=1.0, ordinal=ordinal
                )
            )


def test_an_elimination_seeds_by_rating_and_gives_the_top_seeds_the_byes(
    database: Database,
) -> None:
    _rate(database, {"Ann": 5.0, "Bob": 20.0, "Cy": 12.0})
    made = _create(database, "single-elimination", ["ann", "Bob", "Cy", "Dee", "Eve"])
    view = _show(database, made)
    # rated first by rating (the roster's spelling), then the guests as given
    assert view.seeds == ["Bob", "Cy", "Ann", "Dee", "Eve"]
    assert [(bye.id, bye.player) for bye in view.byes] == [
        ("R1-1", "Bob"),
        ("R1-3", "Cy"),
        ("R1-4", "Ann"),
    ]
    assert [(m.id, m.players, m.status) for m in view.matches] == [
        ("R1-2", ["Dee", "Eve"], "queued"),
        ("R2-1", ["Bob", None], "waiting"),
        ("R2-2", ["Cy", "Ann"], "queued"),
        ("R3-1", [None, None], "waiting"),
    ]
    assert [m.label for m in view.matches] == ["Quarter-final", "Semi-final", "Semi-final", "Final"]
    with database.session() as session:
        call = session.get(MatchCall, _match(view, "R2-2").call_id)
        assert call is not None and [p["player_id"] for p in call.players] != [None, None]


def test_a_walkover_decides_a_match_cancels_its_call_and_a_late_result_changes_nothing(
    database: Database,
) -> None:
    made = _create(database, "single-elimination", ["Ann", "Bob", "Cy", "Dee"])
    view = _show(database, made)
    semi = _match(view, "R1-1")
    with database.write_session() as session:
        walkover(session, made, "r1-1", "ann")
    view = _show(database, made)
    assert (_match(view, "R1-1").status, _match(view, "R1-1").winner) == ("walkover", "Ann")
    with database.session() as session:
        call = session.get(MatchCall, semi.call_id)
        assert call is not None and call.status == "walkover"
    # the no-show's match was played after all: its result counts, the bracket stays
    late = result_document("x01", SECOND_WINS, players=semi.players, options={"start": 301})
    late["call_id"] = semi.call_id
    assert ingest(database, as_payload(late), VENUES).status == "imported"
    assert _match(_show(database, made), "R1-1").winner == "Ann"
    ann = next(row for row in _show(database, made).standings if row.player == "Ann")
    assert (ann.played, ann.won, ann.legs_won, ann.legs_lost, ann.points) == (1, 1, 0, 0, 2)


@pytest.mark.parametrize(
    ("key", "winner", "words"),
    [
        ("R9-9", "Ann", "has no match 'R9-9'"),
        ("R1-1", "Cy", "'Cy' is not in match R1-1 (Ann v Dee)"),
        ("R2-1", "Ann", "R2-1 is waiting for its players"),
    ],
)
def test_a_walkover_that_cannot_be_says_why_and_changes_nothing(
    database: Database, key: str, winner: str, words: str
) -> None:
    made = _create(database, "single-elimination", ["Ann", "Bob", "Cy", "Dee"])
    before = _show(database, made)
    refused = pytest.raises(TournamentError, match=re.escape(words))
    with refused, database.write_session() as session:
        walkover(session, made, key, winner)
    assert _show(database, made) == before


def test_a_decided_match_is_not_walked_over_again(database: Database) -> None:
    made = _create(database, "round-robin", ["Ann", "Bob"])
    _play(database, made, "R1-1", "Bob")
    refused = pytest.raises(TournamentError, match="R1-1 was decided already")
    with refused, database.write_session() as session:
        walkover(session, made, "R1-1", "Ann")
    with pytest.raises(TournamentNotFoundError), database.write_session() as session:
        walkover(session, made + 1, "R1-1", "Ann")


def test_a_double_elimination_of_three_runs_to_a_champion_through_the_losers_bracket(
    database: Database,
) -> None:
    made = _create(database, "double-elimination", ["Ann", "Bob", "Cy"])
    view = _show(database, made)
    assert [(bye.id, bye.player) for bye in view.byes] == [("W1-1", "Ann")]
    assert _statuses(view) == {
        "W1-2": "queued",
        "W2-1": "waiting",
        "L1-1": "waiting",
        "L2-1": "waiting",
        "GF": "waiting",
        "GF2": "waiting",
    }
    _play(database, made, "W1-2", "Cy")  # Bob drops to the losers' bracket (L1-1 is his bye)
    _play(database, made, "W2-1", "Ann")  # Cy drops
    assert _match(_show(database, made), "L2-1").players == ["Bob", "Cy"]
    _play(database, made, "L2-1", "Bob")  # Cy's second loss: out
    _play(database, made, "GF", "Bob")  # Ann's first loss: the reset is played
    view = _show(database, made)
    assert view.status == "running"
    assert _match(view, "GF2").players == ["Bob", "Ann"]
    assert {row.player for row in view.standings if not row.out} == {"Ann", "Bob"}
    _play(database, made, "GF2", "Ann")
    view = _show(database, made)
    assert (view.status, view.champion) == ("finished", "Ann")
    assert [(row.place, row.player, row.played, row.won) for row in view.standings] == [
        (1, "Ann", 3, 2),
        (2, "Bob", 4, 2),
        (3, "Cy", 3, 1),
    ]


def test_the_grand_final_is_the_last_match_when_the_winners_side_wins_it(
    database: Database,
) -> None:
    made = _create(database, "double-elimination", ["Ann", "Bob"])
    _play(database, made, "W1-1", "Ann")
    _play(database, made, "GF", "Ann")
    view = _show(database, made)
    assert (view.status, view.champion) == ("finished", "Ann")
    assert "GF2" not in _statuses(view)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"format": "swiss"}, "no tournament format 'swiss'"),
        ({"players": ["Ann"]}, "2 to 128 players, not 1"),
        ({"players": ["Ann", "ann "]}, "named twice: Ann, ann"),
        ({"players": ["Ann", ""]}, "not a player's name"),
        ({"game": "chess"}, "no game 'chess'"),
        ({"options": {"start": 7}}, "start"),
        ({"options": {"colour": "red"}}, "no option 'colour'"),
        ({"legs": 0}, "legs"),
        ({"boards": []}, "1 to 64 boards"),
        ({"boards": ["oche/board1", "oche/board1"]}, "a board is named twice"),
        ({"boards": ["oche/board 1"]}, "not a board"),
        ({"title": "x" * 121}, "at most 120 characters"),
    ],
)
def test_a_tournament_that_cannot_be_made_says_why_and_stores_nothing(
    database: Database, given: dict[str, Any], words: str
) -> None:
    arguments: dict[str, Any] = {
        "format": "round-robin",
        "game": "x01",
        "players": ["Ann", "Bob"],
        "boards": ["oche/board1"],
        "legs": 1,
        "options": {"start": 301},
        **given,
    }
    refused = pytest.raises(TournamentError, match=re.escape(words))
    with refused, database.write_session() as session:
        create(session, NewTournament(**arguments), VENUES)
    with database.session() as session:
        assert session.execute(select(func.count()).select_from(Tournament)).scalar_one() == 0
        assert session.execute(select(func.count()).select_from(MatchCall)).scalar_one() == 0
        assert listing(session) == []


def _race(database: Database, made: int, document: dict[str, Any], winner: str) -> list[str]:
    """Store ``document`` and walk its match R1-2 over to ``winner`` at once,
    on two connections; what each said (``imported``, ``walkover`` or the refusal)."""
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def result() -> None:
        start.wait()
        outcomes.append(ingest(database, as_payload(document), VENUES).status)

    def walk() -> None:
        start.wait()
        try:
            with database.write_session() as session:
                walkover(session, made, "R1-2", winner)
            outcomes.append("walkover")
        except TournamentError as error:
            outcomes.append(str(error))

    threads = [threading.Thread(target=result), threading.Thread(target=walk)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return outcomes


def test_a_walkover_racing_the_match_s_result_on_postgresql_decides_it_once(
    postgres_url: str,
) -> None:
    """Two connections at once, as two service instances (or the operator
    and the ingest) would be: the result and the walkover of one match; the
    database's locks decide, one wins, neither deadlocks, the final is queued once."""
    database = Database(postgres_url)
    database.migrate()
    try:
        for _ in range(4):
            made = _create(database, "single-elimination", ["Ann", "Bob", "Cy"])
            semi = _match(_show(database, made), "R1-2")
            document = result_document(
                "x01", FIRST_WINS, players=semi.players, options={"start": 301}
            )
            document["call_id"] = semi.call_id
            # the result says the first player won, the walkover the second
            outcomes = _race(database, made, document, str(semi.players[1]))
            view = _show(database, made)
            semi_after = _match(view, "R1-2")
            assert "imported" in outcomes
            if "walkover" in outcomes:
                assert (semi_after.status, semi_after.winner) == ("walkover", semi.players[1])
            else:
                assert "match R1-2 was decided already" in outcomes
                assert (semi_after.status, semi_after.winner) == ("finished", semi.players[0])
            final = _match(view, "R2-1")
            assert (final.players[1], final.status) == (semi_after.winner, "queued")
            with database.session() as session:
                queued = session.execute(
                    select(func.count()).select_from(MatchCall).where(MatchCall.owner_id == made)
                ).scalar_one()
            assert queued == 2
    finally:
        database.dispose()
