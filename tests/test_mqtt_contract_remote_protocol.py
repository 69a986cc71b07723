"""The remote protocol's types (pure): every action and what it does, every
refusal reason and its text, end reasons, and the match record and board
entries round-tripping through the JSON the wire and the journal carry."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mqtt_contract import (
    DART_SOURCES,
    END_REASONS,
    NOT_YOUR_TURN,
    REMOTE_ACTIONS,
    REMOTE_TOPIC_SPEC,
    TOPICS,
    WAITING_REMOTE,
    ActionMessage,
    BoardAddress,
    BoardEntry,
    EndMessage,
    EndReason,
    JoinedMessage,
    JoinMessage,
    JoinRefusal,
    JoinRefusalReason,
    LeaveMessage,
    MatchPlayer,
    MatchRecord,
    MessageType,
    RefusalReason,
    RefusedMessage,
    RemoteAction,
    RemoteMessage,
    RemoteMessageError,
    RemoteRefusal,
    parse_remote_message,
    remote_payload,
)

# ------------------------------------------------------------------ actions

WHAT_EACH_DOES = {
    # action: (has_segment, throws_dart, takes_back, source)
    RemoteAction.HIT: (True, True, False, "board"),
    RemoteAction.DART: (True, True, False, "manual"),
    RemoteAction.MISS: (False, True, False, "manual"),
    RemoteAction.NEXT: (False, False, False, "manual"),
    RemoteAction.UNDO: (False, False, True, "manual"),
    RemoteAction.BOUNCE: (False, False, True, "manual"),
    RemoteAction.CORRECT: (True, False, True, "manual"),
}


def test_every_action_says_what_it_does() -> None:
    assert set(WHAT_EACH_DOES) == set(RemoteAction)
    for action, (segment, dart, back, source) in WHAT_EACH_DOES.items():
        assert (action.has_segment, action.throws_dart, action.takes_back) == (segment, dart, back)
        assert action.source == source and source in DART_SOURCES
        assert action.has_dart == (action is RemoteAction.CORRECT)


def test_a_bounce_is_no_new_dart_but_changes_the_last_one() -> None:
    """The guest's bounce bug: a bounce counted as a dart of the visit."""
    assert not RemoteAction.BOUNCE.throws_dart
    assert RemoteAction.BOUNCE.takes_back


@pytest.mark.parametrize("action", list(RemoteAction))
def test_an_action_is_its_wire_name(action: RemoteAction) -> None:
    assert RemoteAction.parse(str(action)) is action
    assert json.dumps(action) == json.dumps(action.value)
    assert f"{action}" == action.value


def test_the_wire_names_are_the_enum_in_order() -> None:
    assert REMOTE_ACTIONS == ("hit", "dart", "miss", "next", "undo", "bounce", "correct")
    assert tuple(RemoteAction) == REMOTE_ACTIONS


@pytest.mark.parametrize("text", ["HIT", "throw", "", None, 3, "hit "])
def test_an_unknown_action_lists_the_actions(text: object) -> None:
    with pytest.raises(ValueError, match="actions are hit, dart, miss, next, undo, bounce"):
        RemoteAction.parse(text)


@pytest.mark.parametrize("action", list(RemoteAction))
def test_an_action_message_carries_a_segment_exactly_when_the_action_has_one(
    action: RemoteAction,
) -> None:
    segment = "T20" if action.has_segment else None
    dart = 2 if action.has_dart else None
    sent = remote_payload(ActionMessage("m1", 1.0, 1, action, segment, dart))
    expected = {"type": "action", "match": "m1", "at": 1.0, "seq": 1, "action": action.value}
    assert sent == {
        **expected,
        **({} if segment is None else {"segment": segment}),
        **({} if dart is None else {"dart": dart}),
    }
    wrong = None if action.has_segment else "T20"
    with pytest.raises(ValueError, match="segment"):
        remote_payload(ActionMessage("m1", 1.0, 1, action, wrong, dart))


# ----------------------------------------------------------------- refusals


def test_the_reasons_are_the_contract_tokens() -> None:
    assert [reason.value for reason in RefusalReason] == [NOT_YOUR_TURN, WAITING_REMOTE]


@pytest.mark.parametrize("reason", list(RefusalReason))
def test_a_refusal_reads_as_its_reason_then_its_detail(reason: RefusalReason) -> None:
    refusal = RemoteRefusal(reason, "Cy is throwing at Pub 2")
    assert str(refusal) == f"{reason.value}: Cy is throwing at Pub 2"
    assert RemoteRefusal.parse(str(refusal)) == refusal


@given(st.sampled_from(list(RefusalReason)), st.text())
def test_a_refusal_round_trips_through_its_text(reason: RefusalReason, detail: str) -> None:
    refusal = RemoteRefusal(reason, detail)
    assert RemoteRefusal.parse(str(refusal)) == refusal


@pytest.mark.parametrize(
    "text",
    ["takeout: contacts while removing darts are not scored", "not-your-turn", "waiting-remote"],
)
def test_other_text_is_no_remote_refusal(text: str) -> None:
    with pytest.raises(ValueError, match="no remote refusal"):
        RemoteRefusal.parse(text)


@pytest.mark.parametrize(
    "text",
    ["not-your-turn", "waiting-remote", "not-your-turn: Cy is throwing at Pub 2"],
)
def test_an_ignored_input_s_remote_reason_is_read_typed(text: str) -> None:
    assert RefusalReason.of(text) is RefusalReason(text.partition(":")[0])


@pytest.mark.parametrize(
    "text",
    ["takeout: contacts while removing darts are not scored", "no game", "not-your-turn:x", ""],
)
def test_another_reason_of_an_ignored_input_is_no_remote_reason(text: str) -> None:
    assert RefusalReason.of(text) is None


def _old_refusal_words(reason: JoinRefusalReason) -> tuple[JoinRefusal, str]:
    """A guest's refusal and the words its old code wrote for it (the f-strings
    of ``membership._refusal`` before the refusals were typed), for host
    ``oche/pub9``, this board ``oche/pub2``, its match ``m7`` of ``oche/pub1``."""
    sender, own, host, match, status = "oche/pub9", "oche/pub2", "oche/pub1", "m7", "finished"
    match reason:
        case JoinRefusalReason.NOT_ALLOWED:
            return JoinRefusal(reason, sender), f"{sender} is not in [remote] allow"
        case JoinRefusalReason.IN_ANOTHER_MATCH:
            old = f"this board is playing {host}'s match {match}; end_game there or here first"
            return JoinRefusal(reason, f"{host}'s match {match}"), old
        case JoinRefusalReason.HOSTING:
            return JoinRefusal(reason), "this board is hosting a remote match; end_game on it first"
        case JoinRefusalReason.NO_PLAYER_HERE:
            return JoinRefusal(reason, own), f"no player of the match throws at {own}"
        case JoinRefusalReason.MATCH_OVER:
            old = f"match {match} is {status} on this board"
            return JoinRefusal(reason, f"{match} is {status}"), old
    raise AssertionError(reason)


@pytest.mark.parametrize("reason", list(JoinRefusalReason))
def test_a_join_refusal_is_sent_in_the_words_guests_have_always_sent(
    reason: JoinRefusalReason,
) -> None:
    refusal, old = _old_refusal_words(reason)
    assert str(refusal) == old
    message = RefusedMessage.of("m1", 1, refusal)
    assert json.dumps(remote_payload(message)) == (
        '{"type": "refused", "match": "m1", "at": 1.0, "reason": ' + json.dumps(old) + "}"
    )
    again = parse_remote_message(json.dumps(remote_payload(message)).encode(), "oche")
    assert isinstance(again, RefusedMessage) and again.refusal == refusal
    assert JoinRefusal.parse(old) == refusal


_details = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 /'._-", min_size=1)


@given(st.sampled_from(list(JoinRefusalReason)), _details)
def test_a_join_refusal_round_trips_through_its_words(
    reason: JoinRefusalReason, detail: str
) -> None:
    refusal = JoinRefusal(reason, detail if "{detail}" in reason.words else "")
    assert JoinRefusal.parse(str(refusal)) == refusal


@pytest.mark.parametrize(
    "words", ["I would rather not", "this board is hosting a remote match", "oche/pub9 is busy"]
)
def test_other_words_of_a_guest_are_no_typed_refusal(words: str) -> None:
    assert RefusedMessage("m1", 1, words).refusal is None
    with pytest.raises(ValueError, match="none of the words"):
        JoinRefusal.parse(words)


def test_the_end_reasons_are_the_enum() -> None:
    assert tuple(EndReason) == END_REASONS
    assert REMOTE_TOPIC_SPEC.schema["allOf"][1]["then"]["properties"]["reason"]["enum"] == [
        *EndReason
    ]
    for reason in EndReason:
        assert remote_payload(EndMessage("m1", 0.0, reason))["reason"] == reason.value


# ------------------------------------------------------------- match record

_ids = st.from_regex(r"[a-z][a-z0-9_-]{0,11}", fullmatch=True)
_addresses = st.builds(BoardAddress, st.sampled_from(["oche", "league", "home/darts"]), _ids)
_names = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=12)


@given(_ids, _addresses, st.dictionaries(_names, _addresses, min_size=1, max_size=6))
def test_a_match_record_round_trips_as_journaled(
    match: str, host: BoardAddress, boards: dict[str, BoardAddress]
) -> None:
    record = MatchRecord(match, host, boards)
    document = record.to_json()
    again = json.loads(json.dumps(document))
    assert MatchRecord.from_json(again, "elsewhere") == record
    assert list(again["boards"]) == list(boards)  # the players' order is kept


def test_a_match_record_is_the_journal_s_json_byte_for_byte() -> None:
    host, guest = BoardAddress("oche", "board1"), BoardAddress("oche", "pub2")
    record = MatchRecord("ab12", host, {"Ann": host, "Cy": guest})
    assert json.dumps(record.to_json()) == (
        '{"match": "ab12", "host": "oche/board1", '
        '"boards": {"Ann": "oche/board1", "Cy": "oche/pub2"}}'
    )
    assert record.board_of("Cy") == guest
    assert record.board_of("Bo") == host


def test_bare_boards_of_a_record_are_on_the_default_base() -> None:
    record = MatchRecord.from_json(
        {"match": "m", "host": "board1", "boards": {"Cy": "pub2"}}, "league"
    )
    assert record.host == BoardAddress("league", "board1")
    assert record.boards == {"Cy": BoardAddress("league", "pub2")}


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (None, "is an object"),
        ([], "is an object"),
        ({"host": "oche/b", "boards": {}}, "bad match id"),
        ({"match": "", "host": "oche/b", "boards": {}}, "bad match id"),
        ({"match": "m", "boards": {}}, "host is base/board"),
        ({"match": "m", "host": "oche/b"}, "no boards"),
        ({"match": "m", "host": "oche/b", "boards": ["x"]}, "no boards"),
        ({"match": "m", "host": "oche/b", "boards": {"Cy": "a b"}}, "bad board"),
        ({"match": "m", "host": "oche/b", "boards": {"Cy": 3}}, "a board is a string"),
    ],
)
def test_a_damaged_record_says_what_is_wrong(document: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        MatchRecord.from_json(document, "oche")


# ------------------------------------------------------------- board entries

_entries = st.builds(
    BoardEntry, _addresses, st.text(max_size=20), st.booleans(), st.booleans(), st.integers(0)
)
_ENTRY_SCHEMA = TOPICS["state"].schema["properties"]["remote"]["properties"]["boards"]["items"]


@given(_entries)
def test_a_board_entry_round_trips_and_is_the_state_s(entry: BoardEntry) -> None:
    document = json.loads(json.dumps(entry.to_json()))
    assert BoardEntry.from_json(document) == entry
    Draft202012Validator(_ENTRY_SCHEMA).validate(document)
    assert list(document) == ["board", "name", "online", "joined", "applied"]


_GOOD: dict[str, Any] = {
    "board": "oche/pub2",
    "name": "Pub 2",
    "online": True,
    "joined": False,
    "applied": 3,
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"board": "pub2"}, "is base/board"),
        ({"board": None}, "is base/board"),
        ({"name": None}, "name is a string"),
        ({"online": 1}, "online and joined"),
        ({"joined": None}, "online and joined"),
        ({"applied": -1}, "applied is a seq"),
        ({"applied": True}, "applied is a seq"),
        ({"applied": 1.0}, "applied is a seq"),
    ],
)
def test_a_bad_board_entry_says_what_is_wrong(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        BoardEntry.from_json({**_GOOD, **change})
    with pytest.raises(ValueError, match="is an object"):
        BoardEntry.from_json([_GOOD])


# ------------------------------------------------------------- match players


@given(st.builds(MatchPlayer, _names.map(str.strip).filter(bool), _addresses))
def test_a_match_player_round_trips_through_its_journaled_json(player: MatchPlayer) -> None:
    assert MatchPlayer.from_json(json.loads(json.dumps(player.to_json())), "elsewhere") == player


def test_a_journaled_player_s_bare_board_is_on_the_default_base() -> None:
    player = MatchPlayer.from_json({"name": "Cy", "board": "pub2"}, "league")
    assert player == MatchPlayer("Cy", BoardAddress("league", "pub2"))


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (["Cy", "oche/pub2"], "is an object"),
        ({"name": "", "board": "oche/pub2"}, "name is a string"),
        ({"name": "Cy"}, "Cy: the board is base/board"),
        ({"name": "Cy", "board": "oche/a b"}, "bad board"),
    ],
)
def test_a_bad_journaled_player_says_what_is_wrong(document: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        MatchPlayer.from_json(document, "oche")


# ------------------------------------------------------------------ messages

_segments = st.sampled_from(["T20", "S5", "DB", "SB", "M", "D16"])
_actions = st.sampled_from(list(RemoteAction)).flatmap(
    lambda action: st.builds(
        ActionMessage,
        _ids,
        st.floats(0, 2e9),
        st.integers(1, 10**9),
        st.just(action),
        _segments if action.has_segment else st.none(),
        st.integers(1, 3) if action.has_dart else st.none(),
    )
)
_players = st.lists(st.builds(MatchPlayer, _names.map(str.strip).filter(bool), _addresses))
_messages: st.SearchStrategy[RemoteMessage] = st.one_of(
    st.builds(
        JoinMessage,
        _ids,
        st.floats(0, 2e9),
        _addresses,
        st.sampled_from(["x01", "cricket"]),
        _players.filter(lambda players: 1 <= len(players) <= 8).map(tuple),
        st.none() | st.text(min_size=1).filter(str.strip),
        st.none() | st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    ),
    st.builds(EndMessage, _ids, st.floats(0, 2e9), st.sampled_from(list(EndReason))),
    st.builds(
        JoinedMessage,
        _ids,
        st.floats(0, 2e9),
        _addresses,
        st.integers(0, 10**9),
        st.none() | st.text(min_size=1).filter(str.strip),
    ),
    st.builds(RefusedMessage, _ids, st.floats(0, 2e9), st.text(min_size=1).filter(str.strip)),
    _actions,
    st.builds(LeaveMessage, _ids, st.floats(0, 2e9)),
)


@given(_messages)
def test_a_message_round_trips_through_its_payload(message: RemoteMessage) -> None:
    payload = json.dumps(remote_payload(message)).encode()
    again = parse_remote_message(payload, "elsewhere")
    assert again == message
    assert json.dumps(again.to_json()).encode() == payload


def test_the_message_types_are_the_schema_s_in_order() -> None:
    assert [kind.value for kind in MessageType] == [
        "join",
        "end",
        "joined",
        "refused",
        "action",
        "leave",
    ]
    assert [kind for kind in MessageType if kind.from_host] == [
        MessageType.JOIN,
        MessageType.END,
    ]


def test_a_payload_is_what_the_wire_has_always_carried_byte_for_byte() -> None:
    host, guest = BoardAddress("oche", "board1"), BoardAddress("league", "pub2")
    players = (MatchPlayer("Ann", host), MatchPlayer("Cy", guest))
    join = JoinMessage("m1", 5, host, "x01", players, "Pub 1", {"start": 501})
    assert json.dumps(remote_payload(join)) == (
        '{"type": "join", "match": "m1", "at": 5.0, "host": "oche/board1", '
        '"host_name": "Pub 1", "game": "x01", "options": {"start": 501}, "players": '
        '[{"name": "Ann", "board": "oche/board1"}, {"name": "Cy", "board": "league/pub2"}]}'
    )
    joined = JoinedMessage("m1", 1, guest, 3, "Pub 2")
    assert json.dumps(remote_payload(joined)) == (
        '{"type": "joined", "match": "m1", "at": 1.0, "board": "league/pub2", '
        '"name": "Pub 2", "forwarded": 3}'
    )
    hit = ActionMessage("m1", 1, 2, RemoteAction.HIT, "T20")
    assert json.dumps(remote_payload(hit)) == (
        '{"type": "action", "match": "m1", "at": 1.0, "seq": 2, "action": "hit", "segment": "T20"}'
    )
    assert json.dumps(remote_payload(LeaveMessage("m1", 1))) == (
        '{"type": "leave", "match": "m1", "at": 1.0}'
    )
    refused = RefusedMessage.of("m1", 1, JoinRefusal(JoinRefusalReason.NOT_ALLOWED, "oche/pub9"))
    assert json.dumps(remote_payload(refused)) == (
        '{"type": "refused", "match": "m1", "at": 1.0, '
        '"reason": "oche/pub9 is not in [remote] allow"}'
    )


def test_a_message_the_contract_refuses_is_not_sent() -> None:
    with pytest.raises(RemoteMessageError, match="'reason' must be a non-empty string"):
        remote_payload(RefusedMessage("m1", 1, " "))
    with pytest.raises(RemoteMessageError, match="'seq' must be an integer >= 1"):
        remote_payload(ActionMessage("m1", 1, 0, RemoteAction.NEXT))
