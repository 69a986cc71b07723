"""The venue's roster on real SQLite and PostgreSQL: stable ids, names unique
ignoring case and spaces, cards as keyed hashes (no UID anywhere in the
database), results attributed by ``player_id``, merges and forgets that keep
one history, the roster a board gets and a result's after-game lines."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from sqlalchemy import String, Text, inspect, select, text

from credentials.card_hash import card_hash
from leaderboard import queries, roster
from leaderboard.database import Database
from leaderboard.models import Player, PlayerCard
from leaderboard.players import FORGOTTEN_NAME, PlayerError
from leaderboard.result_lines import result_lines
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from mqtt_contract import TOPICS
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document

SECRET = "a-venue-secret-of-some-length"
UID = "04:A2:1B:3F:5C:80"
"""A card's UID: it must be found nowhere in the database."""
VENUES = VenueMap(boards={"crown-1": "The Crown", "crown-2": "The Crown"})
NOW = time.time()


def played(
    players: list[str],
    ids: list[int | None] | None = None,
    board: str = "crown-1",
    at: float = NOW - 60,
) -> dict[str, Any]:
    """An X01 301 result (the first player wins in six darts), with roster ids."""
    document = result_document(
        "x01", X01_MOVES, players=players, options={"start": 301}, finished_at=at, board=board
    )
    for line, ident in zip(document["players"], ids or [], strict=False):
        line["player_id"] = ident
    return document


def store(database: Database, document: dict[str, Any]) -> str:
    outcome = ingest(database, as_payload(document), VENUES)
    assert outcome.status == "imported", outcome.reason
    return str(document["result_id"])


def table(database: Database, venue: str | None = None) -> dict[str, Any]:
    with database.session() as session:
        return {row.player: row for row in queries.leaderboard(session, "x01", "all", venue)}


def test_players_have_stable_ids_and_names_unique_ignoring_case_and_spaces(
    database: Database,
) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES)
    bob = roster.add(database, "Bob", "The Crown", VENUES, card_hash(SECRET, UID))
    assert (ann.name, ann.venue, ann.cards, ann.games) == ("Ann", "The Crown", (), 0)
    assert bob.cards == (card_hash(SECRET, UID),)
    with pytest.raises(PlayerError, match=r"'Ann' is in the roster at The Crown already \(id"):
        roster.add(database, "  aNN ", "The Crown", VENUES)
    elsewhere = roster.add(database, "ann", "home")  # another venue: another player
    assert elsewhere.id not in (ann.id, bob.id)
    with pytest.raises(PlayerError, match="is Bob's"):
        roster.add_card(database, ann.id, card_hash(SECRET, "04a21b3f5c80"))  # the same card
    with pytest.raises(PlayerError, match="at most 64 characters"):
        roster.add(database, "x" * 65, "The Crown", VENUES)
    listed = [(e.id, e.name, e.venue) for e in roster.entries(database)]
    assert listed == [
        (ann.id, "Ann", "The Crown"),
        (bob.id, "Bob", "The Crown"),
        (elsewhere.id, "ann", "home"),
    ]
    # the same card at another venue is that venue's to give
    assert roster.add_card(database, elsewhere.id, card_hash(SECRET, UID)).cards


def test_a_result_with_player_ids_counts_for_those_players_whatever_the_names(
    database: Database,
) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES)
    bob = roster.add(database, "Bob", "The Crown", VENUES)
    # the board joined them by id; the names it shows differ from the roster's
    store(database, played(["Annie", "Robert"], [ann.id, bob.id]))
    rows = table(database)
    assert set(rows) == {"Ann", "Bob"}  # the roster's names stay
    assert (rows["Ann"].player_id, rows["Ann"].won) == (ann.id, 1)
    assert rows["Bob"].player_id == bob.id
    # an id that is no player of this venue: the line goes by its name
    stranger = roster.add(database, "Cy", "home")
    store(database, played(["Dee", "Ann"], [stranger.id, None], at=NOW - 30))
    rows = table(database)
    assert rows["Dee"].played == 1 and rows["Ann"].played == 2
    assert rows["Dee"].player_id not in (stranger.id, ann.id)


def test_a_bad_player_id_refuses_the_result_with_the_reason(database: Database) -> None:
    for bad in (0, "12", True, 1.5):
        document = played(["Ann", "Bob"])
        document["players"][1]["player_id"] = bad
        outcome = ingest(database, as_payload(document), VENUES)
        assert outcome.status == "rejected"
        assert outcome.reason is not None and "players[1].player_id" in outcome.reason


def test_rename_and_merge_keep_one_history_and_the_cards(database: Database) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES, card_hash(SECRET, UID))
    store(database, played(["Ann", "Bob"], [ann.id, None]))
    store(database, played(["Annie", "Bob"], at=NOW - 50))  # by name: another player
    annie = next(e for e in roster.entries(database) if e.name == "Annie")
    with pytest.raises(PlayerError, match="merge them"):
        roster.rename_player(database, annie.id, "ann")
    roster.add_card(database, "annie", card_hash(SECRET, "DEADBEEF"))
    merged = roster.merge(database, "Annie", ann.id)
    assert (merged.name, merged.merged, merged.games) == ("Ann", True, 1)
    renamed = roster.rename_player(database, ann.id, "Ann Smith")
    assert not renamed.merged
    rows = table(database)
    assert (rows["Ann Smith"].player_id, rows["Ann Smith"].played) == (ann.id, 2)
    (entry,) = [e for e in roster.entries(database) if e.id == ann.id]
    assert set(entry.cards) == {card_hash(SECRET, UID), card_hash(SECRET, "DEADBEEF")}
    with pytest.raises(PlayerError, match="same player"):
        roster.merge(database, ann.id, "ann smith")


def test_forget_takes_the_cards_with_the_name(database: Database) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES, card_hash(SECRET, UID))
    store(database, played(["Ann", "Bob"], [ann.id, None]))
    roster.forget_player(database, ann.id)
    with database.session() as session:
        assert session.execute(select(PlayerCard)).first() is None
        assert session.get(Player, ann.id) is None
    assert set(table(database)) == {"Bob"}
    with database.session() as session:
        message = roster.roster_message(session, "The Crown", NOW)
    assert [p.name for p in message.players] == ["Bob"]
    assert FORGOTTEN_NAME not in {p.name for p in message.players}


def test_a_registered_player_stays_when_their_only_game_is_withdrawn(database: Database) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES)
    first = played(["Ann", "Bob"], [ann.id, None])
    store(database, first)
    withdrawal = {**first, "result_id": "withdrawal", "revision": 2, "withdrawn": True}
    withdrawal["game_key"] = first["result_id"]
    assert ingest(database, as_payload(withdrawal), VENUES).status == "withdrawn"
    names = {e.name: e.games for e in roster.entries(database)}
    assert names == {"Ann": 0}  # Bob, seen only in that game, goes


def _texts(database: Database) -> list[str]:
    """Every text value of every table (every column that holds text or JSON)."""
    found: list[str] = []
    with database.session() as session:
        inspector = inspect(session.get_bind())
        for name in inspector.get_table_names():
            for column in inspector.get_columns(name):
                if isinstance(column["type"], String | Text) or "JSON" in str(column["type"]):
                    quoted = f'"{column["name"]}"'
                    for (value,) in session.execute(text(f'SELECT {quoted} FROM "{name}"')):
                        if value is not None:
                            found.append(value if isinstance(value, str) else json.dumps(value))
    return found


def test_the_roster_carries_each_player_s_cricket_mpr_this_month(database: Database) -> None:
    """What the board suggests Cricket spot marks from, as the leaderboard's
    tables count MPR: Ann's six visits of three trebles are 9 marks each (the
    six past closing score while Bob has the number open), her two bulls 4:
    58 marks in 20 darts."""
    ann = roster.add(database, "Ann", "The Crown", VENUES)
    moves = ["T20 T20 T20", "M M M", "T19 T19 T19", "M M M", "T18 T18 T18", "M M M"]
    moves += ["T17 T17 T17", "M M M", "T16 T16 T16", "M M M", "T15 T15 T15", "M M M", "DB DB"]
    document = result_document(
        "cricket", moves, players=["Ann", "Bob"], finished_at=NOW - 60, board="crown-1"
    )
    document["players"][0]["player_id"] = ann.id
    store(database, document)
    with database.session() as session:
        message = roster.roster_message(session, "The Crown", NOW)
    players = {p.name: p for p in message.players}
    assert players["Ann"].mpr == round(58 * 3 / 20, 2)
    assert players["Bob"].mpr == 0.0 and players["Ann"].average is None


def test_no_card_uid_is_stored_in_clear(database: Database) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES, card_hash(SECRET, UID))
    roster.add_card(database, ann.id, card_hash(SECRET, "C0FFEE01"))
    store(database, played(["Ann", "Bob"], [ann.id, None]))
    texts = _texts(database)
    assert any(card_hash(SECRET, UID) in value for value in texts)  # the scan sees the cards
    uid_forms = {UID, UID.replace(":", ""), UID.replace(":", "").lower(), "C0FFEE01"}
    assert not [value for value in texts for uid in uid_forms if uid.lower() in value.lower()]


def test_the_roster_a_board_gets(database: Database) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES, card_hash(SECRET, UID))
    roster.add(database, "Zed", "The Crown", VENUES)
    store(database, played(["Ann", "Bob"], [ann.id, None]))
    store(database, played(["Old", "Bob"], at=NOW - 40 * 86400))  # long ago: no regular
    with database.session() as session:
        message = roster.roster_message(session, "The Crown", NOW)
    Draft202012Validator(TOPICS["roster"].schema).validate(message.to_json())
    players = {p.name: p for p in message.players}
    assert set(players) == {"Ann", "Bob", "Old", "Zed"}
    assert players["Ann"].cards == (card_hash(SECRET, UID),)
    assert players["Ann"].average == 150.5  # 301 in six darts
    assert players["Ann"].regular and players["Bob"].regular
    assert not players["Zed"].regular and not players["Old"].regular
    assert players["Zed"].average is None
    with database.session() as session:
        assert roster.roster_message(session, "nowhere", NOW).players == ()


def test_a_results_lines(database: Database) -> None:
    ann = roster.add(database, "Ann", "The Crown", VENUES)
    first = store(database, played(["Ann", "Bob"], [ann.id, None], at=NOW - 120))
    slow = played(["Bob", "Ann"], [None, ann.id], at=NOW - 60)  # Bob wins this time
    second = store(database, slow)
    for lines_of in (first, second):
        with database.session() as session:
            document = result_lines(session, lines_of)
        assert document is not None
        Draft202012Validator(TOPICS["result/lines"].schema).validate(document.to_json())
    with database.session() as session:
        lines = result_lines(session, first)
        again = result_lines(session, second)
        assert result_lines(session, "no-such-result") is None
    assert lines is not None and again is not None
    ann_first = lines.players[0]
    assert (ann_first.name, ann_first.player_id, ann_first.average) == ("Ann", ann.id, 150.5)
    assert ann_first.rating_change is not None and ann_first.rating_change > 0
    assert ann_first.personal_best is None  # a first game sets no best
    assert lines.players[1].player_id is not None  # Bob, by name
    bob_second, ann_second = again.players
    assert bob_second.personal_best == "personal best 3-dart average: 150.50"
    assert (ann_second.average, ann_second.month_average) == (60.0, 120.33)
    assert ann_second.rating_change is not None and ann_second.rating_change < 0
    assert ann_second.personal_best is None
