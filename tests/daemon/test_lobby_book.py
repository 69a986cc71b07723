"""The lobby's rules alone (firmware_bridge/daemon/lobby_book.py): who a
``join`` names, names that clash, a full lobby, suggestions, what is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.board_events import CardTapped
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import Journal
from firmware_bridge.daemon.lobby_book import LobbyBook, name_key, new_join_code
from mqtt_contract.lobby_payload import (
    JOIN_CODE_LENGTH,
    LOBBY_SUGGESTIONS,
    JoinedBy,
    PlayerRef,
    RosterMessage,
    RosterPlayer,
    join_code_problem,
)

CARD = "hmac-sha256$" + "A" * 43


def book_with_roster(*players: RosterPlayer) -> LobbyBook:
    return LobbyBook(roster=RosterMessage(venue="The Crown", updated_at=1.0, players=players))


def test_names_compare_without_case_and_spaces_and_codes_are_readable() -> None:
    assert name_key(" Ann  Lee ") == name_key("annlee") == "annlee"
    codes = {new_join_code() for _ in range(50)}
    assert len(codes) > 45  # drawn, not fixed
    assert all(len(c) == JOIN_CODE_LENGTH and join_code_problem(c) is None for c in codes)


def test_a_name_the_roster_knows_joins_as_that_player_and_a_guest_has_no_id() -> None:
    book = book_with_roster(RosterPlayer(id=3, name="Ann Lee", average=50.5))
    ann = book.entrant(PlayerRef(name="ANNLEE"), JoinedBy.NAME, 10.0)
    assert (ann.name, ann.player_id, ann.average, ann.joined_by) == ("Ann Lee", 3, 50.5, "name")
    guest = book.entrant(PlayerRef(name="Cy"), JoinedBy.NAME, 10.0)
    assert guest.player_id is None
    with pytest.raises(Refusal, match="no player 9 here: this board's roster has no such"):
        book.entrant(PlayerRef(id=9), JoinedBy.ROSTER, 10.0)
    with pytest.raises(Refusal, match="has no roster yet"):
        LobbyBook().entrant(PlayerRef(id=3), JoinedBy.ROSTER, 10.0)


def test_a_roster_name_too_long_for_a_game_is_refused_at_the_join() -> None:
    book = book_with_roster(RosterPlayer(id=4, name="A" * 40))
    with pytest.raises(Refusal, match="the limit is 24: rename them in the roster"):
        book.entrant(PlayerRef(id=4), JoinedBy.ROSTER, 1.0)


def test_the_lobby_takes_each_player_once_refuses_a_clash_and_holds_eight() -> None:
    book = book_with_roster(RosterPlayer(id=3, name="Ann"))
    roster_ann = book.entrant(PlayerRef(id=3), JoinedBy.ROSTER, 1.0)
    assert book.add(roster_ann) is True
    assert book.add(roster_ann) is False  # again: nothing changes
    guest_ann = LobbyBook().entrant(PlayerRef(name="ann"), JoinedBy.NAME, 2.0)
    with pytest.raises(Refusal, match="another Ann is in the lobby"):
        book.add(guest_ann)
    for n in range(7):
        book.add(book.entrant(PlayerRef(name=f"P{n}"), JoinedBy.NAME, 3.0))
    with pytest.raises(Refusal, match="the lobby is full: a game has 8 players at most"):
        book.add(book.entrant(PlayerRef(name="Late"), JoinedBy.NAME, 4.0))
    assert book.remove(PlayerRef(id=3)).name == "Ann"
    with pytest.raises(Refusal, match="player 3 is not in the lobby"):
        book.remove(PlayerRef(id=3))


def test_cards_are_found_by_hash_and_a_linked_card_joins_at_once() -> None:
    book = book_with_roster(RosterPlayer(id=3, name="Ann"), RosterPlayer(id=4, name="Bob"))
    assert book.card_entrant(CARD, 1.0) is None
    book.link_card(4, CARD)
    bob = book.card_entrant(CARD, 2.0)
    assert bob is not None and (bob.player_id, bob.joined_by) == (4, "card")
    book.link_card(4, CARD)  # twice: kept once
    assert book.roster is not None and book.roster.players[1].cards == (CARD,)


def test_suggestions_are_the_regulars_then_the_recent_players_each_once() -> None:
    book = book_with_roster(
        RosterPlayer(id=1, name="Reg", regular=True),
        RosterPlayer(id=2, name="Occasional"),
    )
    book.played([("Cy", None), ("Reg", 1)])
    book.played([("Dee", None), ("Cy", None)])
    assert [(s.name, s.regular) for s in book.suggestions()] == [
        ("Reg", True),
        ("Dee", False),
        ("Cy", False),
    ]
    for n in range(LOBBY_SUGGESTIONS + 5):
        book.played([(f"P{n}", None)])
    assert len(book.suggestions()) == LOBBY_SUGGESTIONS


def test_what_is_kept_comes_back_and_a_damaged_copy_is_named() -> None:
    book = book_with_roster(RosterPlayer(id=3, name="Ann", cards=(CARD,)))
    book.add(book.entrant(PlayerRef(name="Ann"), JoinedBy.NAME, 5.0))
    book.join_code = "K7PQ2M"
    assert book.roster is not None
    again = LobbyBook()
    assert again.restore(book.to_json(), book.roster.to_json()) == []
    assert again == book
    damaged = LobbyBook()
    problems = damaged.restore({"players": [{"name": 5}]}, {"venue": "X"})
    assert len(problems) == 2 and damaged.players == [] and damaged.roster is None


def test_a_card_tap_never_shows_its_uid() -> None:
    tap = CardTapped("04:A2:1B:3F:5C:6D:80")
    for shown in (repr(tap), str(tap), str(tap.to_json())):
        assert "04A21B" not in shown.replace(":", "")
        assert "5C6D" not in shown and "6D80" in shown
    assert tap.uid == "04:A2:1B:3F:5C:6D:80"  # the reader's text, for the hash


def test_the_journal_keeps_the_lobbys_values_apart_from_the_operators(tmp_path: Path) -> None:
    with Journal(tmp_path / "journal.sqlite3") as journal:
        settings = journal.settings
        settings.set_operator_setting("b1", "price", 2, 1.0)
        settings.keep_lobby_value("b1", "players", {"players": []}, 2.0)
        settings.keep_lobby_value("b1", "players", {"players": [], "join_code": None}, 3.0)
        assert settings.operator_settings("b1") == {"price": 2}
        assert settings.lobby_value("b1", "players") == {"players": [], "join_code": None}
        assert settings.lobby_value("b1", "roster") is None
        assert settings.lobby_value("b2", "players") is None
