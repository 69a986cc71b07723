"""The brackets' rules (leaderboard/tournament_formats.py), as properties over
every player count and every way the matches can go: a round robin meets
every pair once, an elimination crowns one champion in the right number of
matches, byes fall in the first round only, and in a double elimination
nobody is out before their second loss."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboard.tournament_formats import (
    BYE,
    MAX_PLAYERS,
    Bracket,
    Format,
    SlotState,
    TournamentFormatError,
    bracket,
    champion,
    resolve,
    round_label,
    seed_order,
)

COUNTS = st.integers(min_value=2, max_value=40)


def play_out(drawn: Bracket, sides: st.DataObject) -> tuple[dict[str, int], dict[str, SlotState]]:
    """Decide every ready match (the winning side drawn by hypothesis) until
    none is left; the decisions in the order made, and the final states."""
    decided: dict[str, int] = {}
    states = resolve(drawn, decided)
    while True:
        ready = [slot.key for slot in drawn.slots if states[slot.key].status == "ready"]
        if not ready:
            return decided, states
        key = sides.draw(st.sampled_from(ready))
        decided[key] = sides.draw(st.sampled_from((0, 1)))
        states = resolve(drawn, decided)


def test_the_standard_seed_order_puts_the_top_seeds_apart() -> None:
    assert seed_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    assert seed_order(2) == [0, 1]
    for size in (4, 16, 32, 64):
        order = seed_order(size)
        assert sorted(order) == list(range(size))
        # each first-round pair adds up to size - 1 (1v8, 4v5, ... 1-based)
        assert {order[i] + order[i + 1] for i in range(0, size, 2)} == {size - 1}


@given(COUNTS)
def test_a_round_robin_meets_every_pair_once_each_player_once_a_round(players: int) -> None:
    drawn = bracket("round-robin", players)
    pairs = Counter(frozenset((slot.sides[0].seed, slot.sides[1].seed)) for slot in drawn.slots)
    assert set(pairs) == {frozenset(pair) for pair in combinations(range(players), 2)}
    assert set(pairs.values()) == {1}
    rounds = players - 1 if players % 2 == 0 else players
    assert {slot.round for slot in drawn.slots} == set(range(1, rounds + 1))
    for round_number in range(1, rounds + 1):
        seen = [
            int(slot.sides[side].seed or 0)
            for slot in drawn.slots
            if slot.round == round_number
            for side in (0, 1)
        ]
        sitting = [seed for at, seed in drawn.sitting_out if at == round_number]
        assert sorted(seen + sitting) == list(range(players))
    # an odd count: each player sits out exactly one round, an even one none
    assert sorted(seed for _, seed in drawn.sitting_out) == (
        list(range(players)) if players % 2 else []
    )
    assert all(state.status == "ready" for state in resolve(drawn, {}).values())


@settings(max_examples=150)
@given(COUNTS, st.data())
def test_a_single_elimination_has_n_minus_1_matches_one_champion_byes_in_round_1(
    players: int, sides: st.DataObject
) -> None:
    drawn = bracket(Format.SINGLE_ELIMINATION, players)
    decided, states = play_out(drawn, sides)
    assert len(decided) == players - 1
    byes = [slot for slot in drawn.slots if states[slot.key].status == "bye"]
    assert {slot.round for slot in byes} <= {1}
    assert len(byes) == len(drawn.slots) + 1 - players  # the bracket's size less the players
    assert all(states[slot.key].players.count(BYE) == 1 for slot in byes)  # never bye v bye
    # byes go to the top seeds
    assert sorted(int(states[slot.key].winner or 0) for slot in byes) == list(range(len(byes)))
    assert all(state.status in ("decided", "bye") for state in states.values())
    winner = champion(drawn, states)
    assert winner is not None and 0 <= winner < players
    losses = Counter(state.loser for state in states.values() if state.status == "decided")
    assert set(losses) == set(range(players)) - {winner}
    assert set(losses.values()) == {1}


@settings(max_examples=150)
@given(COUNTS, st.data())
def test_a_double_elimination_player_is_out_after_two_losses(
    players: int, sides: st.DataObject
) -> None:
    drawn = bracket(Format.DOUBLE_ELIMINATION, players)
    decided, states = play_out(drawn, sides)
    assert all(state.status in ("decided", "bye", "void") for state in states.values())
    winner = champion(drawn, states)
    assert winner is not None and 0 <= winner < players
    losses = Counter(state.loser for state in states.values() if state.status == "decided")
    assert losses[winner] <= 1
    for player in set(range(players)) - {winner}:
        assert losses[player] == 2, f"seed {player} was out after {losses[player]} loss(es)"
    reset = states["GF2"].status == "decided"
    assert len(decided) == 2 * players - 2 + reset
    byes = {(slot.part, slot.round) for slot in drawn.slots if states[slot.key].status == "bye"}
    assert byes <= {("winners", 1), ("losers", 1), ("losers", 2)}


@given(COUNTS)
def test_a_bye_never_waits_and_nobody_plays_two_matches_at_once(players: int) -> None:
    for format in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION):
        states = resolve(bracket(format, players), {})
        ready = [state for state in states.values() if state.status == "ready"]
        seeds = [seed for state in ready for seed in state.players]
        assert len(seeds) == len(set(seeds))
        assert ready, "the first round has a match to play"


def test_the_grand_final_reset_is_played_only_when_the_losers_side_wins() -> None:
    drawn = bracket("double-elimination", 2)
    assert [slot.key for slot in drawn.slots] == ["W1-1", "GF", "GF2"]
    states = resolve(drawn, {"W1-1": 0, "GF": 0})
    assert states["GF2"].status == "void"
    assert champion(drawn, states) == 0
    states = resolve(drawn, {"W1-1": 0, "GF": 1})
    assert states["GF2"].status == "ready"
    assert champion(drawn, states) is None
    assert champion(drawn, resolve(drawn, {"W1-1": 0, "GF": 1, "GF2": 0})) == 1


def test_rounds_are_named_as_a_bar_says_them() -> None:
    drawn = bracket("single-elimination", 8)
    labels = {slot.key: round_label(drawn, slot) for slot in drawn.slots}
    assert labels["R1-1"] == "Quarter-final"
    assert labels["R2-1"] == "Semi-final"
    assert labels["R3-1"] == "Final"
    double = bracket("double-elimination", 4)
    labels = {slot.key: round_label(double, slot) for slot in double.slots}
    assert labels == {
        "W1-1": "Winners' semi-final",
        "W1-2": "Winners' semi-final",
        "W2-1": "Winners' final",
        "L1-1": "Losers' round 1",
        "L2-1": "Losers' final",
        "GF": "Grand final",
        "GF2": "Grand final reset",
    }
    assert round_label(bracket("round-robin", 3), bracket("round-robin", 3).slots[0]) == "Round 1"


@pytest.mark.parametrize(
    ("format", "players", "words"),
    [
        ("swiss", 4, "no tournament format 'swiss'"),
        ("round-robin", 1, "2 to 128 players, not 1"),
        ("single-elimination", MAX_PLAYERS + 1, f"not {MAX_PLAYERS + 1}"),
    ],
)
def test_a_tournament_that_cannot_be_drawn_says_why(format: str, players: int, words: str) -> None:
    with pytest.raises(TournamentFormatError, match=words):
        bracket(format, players)
