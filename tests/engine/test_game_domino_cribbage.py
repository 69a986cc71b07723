"""Domino cribbage (seed 003) through the game: tile notation, properties over
random legal play, the rules of the deal, the play and the count, a thousand
computer-vs-computer games, and the computer against a random player.

Positions a rule needs (a double starter, a Go, a 31, a game won in the
middle of the count) are found by a small deterministic search: random legal
play (``random.Random(seed)``) over the deals of seeds 0, 1, 2, ..., taking
the first position that shows the rule. The search fails loudly if the deal
ever stops producing one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from engine import (
    END_VISIT,
    STATE_SCHEMA,
    UNDO,
    Bed,
    EngineError,
    Event,
    Game,
    GameOverError,
    NotationError,
    NothingToUndoError,
    OptionError,
    new_game,
    parse_event,
)
from engine.cribbage_scoring import count_hand, count_points, peg_score
from engine.errors import MoveError
from engine.tiles import DOUBLE_SIX, Tile, parse_tiles

GAME = "domino-cribbage"
PLAYERS = ["Ann", "Bob"]
MAX_HAND = 6
SEARCH_SEEDS = range(300)

VALIDATOR = Draft202012Validator(STATE_SCHEMA)

PROPERTY_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ------------------------------------------------------------------ helpers


def new(seed: int = 7, computer: str = "none", target: int = 61) -> Game:
    """A game between Ann (player 0, the first dealer) and Bob."""
    return new_game(GAME, PLAYERS, {"seed": seed, "computer": computer, "target": target})


def legal_moves(game: Game) -> list[Event]:
    """Every tile pick (S1-S6) and NEXT the game would accept now (no undo)."""
    candidates: list[Event] = [Bed(number, 1) for number in range(1, MAX_HAND + 1)]
    moves: list[Event] = []
    for event in [*candidates, END_VISIT]:
        try:
            game.check(event)
        except EngineError:
            continue
        moves.append(event)
    return moves


def first_legal(game: Game) -> Event:
    """A simple fixed player: the lowest tile it may lay, else NEXT."""
    return legal_moves(game)[0]


def random_player(rng: random.Random) -> Callable[[Game], Event]:
    """The random legal player: any accepted move, uniformly."""

    def choose(game: Game) -> Event:
        return rng.choice(legal_moves(game))

    return choose


def pick(tile: str, state: dict[str, Any]) -> Bed:
    """The dart that picks ``tile`` from the hand of the player to move."""
    hand: list[str] = state["players"][state["current_player"]]["hand"]
    return Bed(hand.index(tile) + 1, 1)


def value(notation: str) -> int:
    return Tile.parse(notation).value


def play_until(
    game: Game,
    done: Callable[[dict[str, Any]], bool],
    chooser: Callable[[Game], Event] = first_legal,
    limit: int = 500,
) -> dict[str, Any]:
    """Make moves with ``chooser`` until ``done(state)``; return that state."""
    for _ in range(limit):
        state = game.state()
        if done(state):
            return state
        game.push(chooser(game))
    raise AssertionError(f"not reached in {limit} moves")


def pegging_lines(state: dict[str, Any]) -> list[tuple[int, str, int]]:
    """The scoring lines of the last move that came from the play (not the count)."""
    return [
        (line["player"], line["reason"], line["points"])
        for line in state["scoring"]
        if line["reason"] not in ("hand", "crib")
    ]


@dataclass(frozen=True)
class Step:
    """One move of a searched game: the state before and after it."""

    seed: int
    computer: str
    prefix: tuple[Event, ...]
    event: Event
    before: dict[str, Any]
    after: dict[str, Any]

    def replay(self) -> Game:
        """The game just before this move."""
        game = new(self.seed, self.computer)
        game.push_all(self.prefix)
        assert game.state() == self.before
        return game

    def __str__(self) -> str:
        log = " ".join(str(event) for event in self.prefix)
        return f"seed {self.seed}, computer {self.computer}: {log} | {self.event}"


def steps(seeds: Iterable[int], computer: str = "none") -> Iterator[Step]:
    """Every move of random legal games (``random.Random(seed)``) on these deals."""
    for seed in seeds:
        game = new(seed, computer)
        choose = random_player(random.Random(seed))
        while not game.is_finished:
            before, prefix = game.state(), game.events
            event = choose(game)
            game.push(event)
            yield Step(seed, computer, prefix, event, before, game.state())


def find_step(predicate: Callable[[Step], bool], what: str, computer: str = "none") -> Step:
    """The first move of the search that shows ``what``."""
    for step in steps(SEARCH_SEEDS, computer):
        if predicate(step):
            return step
    raise AssertionError(f"no game of seeds {SEARCH_SEEDS} shows {what}")


def is_lay(step: Step) -> bool:
    return step.before["stage"] == "play" and isinstance(step.event, Bed)


def is_go(step: Step) -> bool:
    return step.before["stage"] == "play" and step.event == END_VISIT


def mover(step: Step) -> int:
    player: int = step.before["current_player"]
    return player


def laid_tile(step: Step) -> str:
    """The tile the move laid (the first new entry of ``played``)."""
    tile: str = step.after["played"][len(step.before["played"])]["tile"]
    return tile


def first_starter(double: bool) -> int:
    """The first seed whose first starter is (or is not) a double."""
    for seed in SEARCH_SEEDS:
        game = new(seed)
        game.push_all([parse_event("S1")] * 4)
        if Tile.parse(game.state()["starter"]).is_double == double:
            return seed
    raise AssertionError(f"no seed in {SEARCH_SEEDS} turns a {'double' if double else 'plain'}")


# ------------------------------------------------------------ tile notation


@given(st.sampled_from(DOUBLE_SIX), st.booleans(), st.booleans())
def test_tile_notation_round_trips(tile: Tile, high_first: bool, spaced: bool) -> None:
    ends = (tile.high, tile.low) if high_first else (tile.low, tile.high)
    text = f" {ends[0]} - {ends[1]} " if spaced else f"{ends[0]}-{ends[1]}"
    parsed = Tile.parse(text)
    assert parsed == tile
    assert str(parsed) == parsed.notation == f"{tile.low}-{tile.high}"
    assert Tile.parse(str(parsed)) == tile
    assert parsed.value == tile.low + tile.high
    assert parsed.is_double == (tile.low == tile.high)


def test_the_double_six_set() -> None:
    assert len(DOUBLE_SIX) == len(set(DOUBLE_SIX)) == 28
    by_value = [sum(1 for tile in DOUBLE_SIX if tile.value == v) for v in range(13)]
    assert by_value == [1, 1, 2, 2, 3, 3, 4, 3, 3, 2, 2, 1, 1]
    assert sum(tile.is_double for tile in DOUBLE_SIX) == 7


@pytest.mark.parametrize(
    "text", ["1-7", "7-1", "x", "", "12", "1-2-3", "1--2", "-1-2", "a-b", "1_2", "1 2", "6-6x"]
)
def test_bad_tile_notation_is_a_value_error_quoting_it(text: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(repr(text))) as error:
        Tile.parse(text)
    assert isinstance(error.value, NotationError)
    assert error.value.token == text


@given(st.text(max_size=8))
def test_any_text_is_a_tile_or_an_error_quoting_it(text: str) -> None:
    try:
        tile = Tile.parse(text)
    except ValueError as error:
        assert repr(text) in str(error)
    else:
        assert tile in DOUBLE_SIX


def test_the_same_tile_twice_is_refused_naming_it() -> None:
    with pytest.raises(NotationError, match=r"'5-2'.*2-5 appears twice"):
        parse_tiles(["2-5", "3-3", "5-2"])


# --------------------------------------------------------------- properties


@settings(max_examples=300)
@given(st.lists(st.sampled_from(DOUBLE_SIX), min_size=5, max_size=5, unique=True))
def test_count_total_is_the_sum_of_its_parts(tiles: list[Tile]) -> None:
    counted = count_hand(tiles[:4], tiles[4])
    assert counted.total == counted.fifteen_points + counted.pair_points + counted.run_points
    assert counted.total == count_points([tile.value for tile in tiles])
    assert counted.as_json()["total"] == counted.total


def walk(
    game: Game,
    choices: Sequence[int],
    after_each: Callable[[Game], None] | None = None,
) -> list[Event]:
    """Drive ``game`` with a drawn stream: a choice >= 0 indexes the moves
    ``check`` accepts, a negative one is UNDO (when there is something to
    undo). Returns the events pushed."""
    pushed: list[Event] = []
    for choice in choices:
        if choice < 0:
            if not game.can_undo():
                continue
            event: Event = UNDO
        else:
            moves = legal_moves(game)
            if not moves:
                break
            event = moves[choice % len(moves)]
        game.push(event)
        pushed.append(event)
        if after_each is not None:
            after_each(game)
    return pushed


@st.composite
def games(draw: st.DrawFn) -> tuple[dict[str, object], list[int]]:
    """Options and a move stream (mostly picks and NEXTs, now and then UNDO)."""
    options: dict[str, object] = {
        "seed": draw(st.integers(0, 100_000)),
        "computer": draw(st.sampled_from(["none", "none", "second", "both"])),
        "target": draw(st.sampled_from([61, 61, 121])),
    }
    # Short streams find edge cases near the start; long ones play whole games.
    choice = st.integers(-2, 30)
    choices = draw(
        st.one_of(st.lists(choice, max_size=30), st.lists(choice, min_size=150, max_size=400))
    )
    return options, choices


def fresh(options: dict[str, object]) -> Game:
    return new_game(GAME, PLAYERS, options)


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(games())
def test_replay_is_deterministic(drawn: tuple[dict[str, object], list[int]]) -> None:
    options, choices = drawn
    game = fresh(options)
    pushed = walk(game, choices)
    again = fresh(options)
    again.push_all(pushed)
    assert again.state() == game.state()
    assert again.events == game.events
    from_log = fresh(options)
    from_log.push_all(game.events)  # the effective log, undos folded away
    assert from_log.state() == game.state()


def check_tiles(game: Game) -> None:
    """Every tile is a real tile and is in exactly one place."""
    state = game.state()
    players = state["players"]
    played = [entry["tile"] for entry in state["played"]]
    where = [*players[0]["hand"], *players[1]["hand"], *state["crib"], *played]
    if state["starter"] is not None:
        where.append(state["starter"])
    assert all(Tile.parse(tile).notation == tile for tile in where), where
    assert len(where) == len(set(where)), f"a tile twice: {sorted(where)}"
    assert len(where) == (12 if state["starter"] is None else 13), where
    if state["stage"] == "discard":
        assert played == [] and all(not player["kept"] for player in players)
    else:
        for number, player in enumerate(players):
            laid = [entry["tile"] for entry in state["played"] if entry["player"] == number]
            assert sorted(player["kept"]) == sorted([*player["hand"], *laid])
            assert len(player["kept"]) == 4
    count_tiles = [entry["tile"] for entry in state["count_tiles"]]
    assert count_tiles == played[len(played) - len(count_tiles) :]
    assert state["count"] == sum(value(tile) for tile in count_tiles) <= 31


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(games())
def test_no_tile_is_ever_in_two_places(drawn: tuple[dict[str, object], list[int]]) -> None:
    options, choices = drawn
    game = fresh(options)
    check_tiles(game)
    walk(game, choices, check_tiles)


REFUSABLE: tuple[Event, ...] = (
    *(parse_event(token) for token in ("S1", "S4", "S5", "S6", "T6", "D12", "S20", "SB", "DB")),
    parse_event("M"),
    END_VISIT,
    UNDO,
)


def check_refusals(game: Game) -> None:
    """Whatever ``check`` refuses, pushing it raises the same error and changes nothing."""
    for event in REFUSABLE:
        try:
            game.check(event)
        except EngineError as refused:
            before, events = game.state(), game.events
            with pytest.raises(type(refused)) as pushed:
                game.push(event)
            assert str(pushed.value) == str(refused)
            assert str(refused).strip()
            assert game.state() == before
            assert game.events == events


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(games())
def test_a_refused_move_changes_nothing(drawn: tuple[dict[str, object], list[int]]) -> None:
    options, choices = drawn
    game = fresh(options)
    check_refusals(game)
    walk(game, choices, check_refusals)


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(games())
def test_undo_equals_replay_without_the_last_event(
    drawn: tuple[dict[str, object], list[int]],
) -> None:
    options, choices = drawn
    game = fresh(options)
    walk(game, choices)
    events = game.events
    if not events:
        with pytest.raises(NothingToUndoError):
            game.undo()
        return
    game.undo()
    replayed = fresh(options)
    replayed.push_all(events[:-1])
    assert game.state() == replayed.state()
    assert game.events == events[:-1]


def check_schema(game: Game) -> None:
    state = game.state()
    errors = [error.message for error in VALIDATOR.iter_errors(state)]
    assert errors == [], errors


@pytest.mark.slow
@settings(PROPERTY_SETTINGS, max_examples=30)
@given(games())
def test_state_always_matches_the_schema(drawn: tuple[dict[str, object], list[int]]) -> None:
    options, choices = drawn
    game = fresh(options)
    check_schema(game)
    walk(game, choices, check_schema)


# ---------------------------------------------------------------- the deal


def test_options_are_checked() -> None:
    state = new(7).state()
    assert state["options"] == {"target": 61, "seed": 7, "computer": "none"}
    assert (state["target"], state["seed"]) == (61, 7)
    for bad in ({"target": 100}, {"computer": "first"}, {"seed": -1}):
        with pytest.raises(OptionError):
            new_game(GAME, PLAYERS, bad)


def test_the_same_seed_deals_the_same_tiles() -> None:
    first, again, other = new(7).state(), new(7).state(), new(8).state()
    hands = [player["hand"] for player in first["players"]]
    assert hands == [player["hand"] for player in again["players"]]
    assert hands != [player["hand"] for player in other["players"]]
    assert [len(hand) for hand in hands] == [6, 6]
    assert len(set(hands[0]) | set(hands[1])) == 12
    for hand in hands:  # shown (and picked) in order of value
        assert [value(tile) for tile in hand] == sorted(value(tile) for tile in hand)


def test_the_non_dealer_discards_first_then_the_dealer() -> None:
    game = new(7)
    state = game.state()
    assert (state["stage"], state["dealer"], state["current_player"]) == ("discard", 0, 1)
    assert state["to_discard"] == 2
    ann, bob = (player["hand"] for player in state["players"])
    game.push(parse_event("S1"))  # Bob's lowest tile
    state = game.state()
    assert (state["current_player"], state["to_discard"], state["crib"]) == (1, 1, [bob[0]])
    assert state["players"][1]["hand"] == bob[1:]
    game.push(parse_event("S1"))
    state = game.state()
    assert (state["current_player"], state["to_discard"]) == (0, 2)
    assert sorted(state["crib"]) == sorted(bob[:2])
    assert state["players"][0]["hand"] == ann  # the dealer has not discarded yet
    game.push(parse_event("S6"))  # Ann's highest two
    game.push(parse_event("S5"))
    state = game.state()
    assert state["stage"] == "play"
    assert sorted(state["crib"]) == sorted([*bob[:2], *ann[4:]])
    assert state["players"][0]["kept"] == ann[:4]
    assert state["players"][1]["kept"] == bob[2:]


def test_the_starter_is_turned_only_after_both_discards() -> None:
    game = new(7)
    dealt = {tile for player in game.state()["players"] for tile in player["hand"]}
    for _ in range(3):
        assert game.state()["starter"] is None
        game.push(parse_event("S1"))
    assert game.state()["starter"] is None
    game.push(parse_event("S1"))
    state = game.state()
    in_hands = {tile for player in state["players"] for tile in player["hand"]}
    assert in_hands | set(state["crib"]) == dealt
    assert state["starter"] is not None and state["starter"] not in dealt  # from the stock
    again = new(7)
    again.push_all([parse_event(token) for token in ("S6", "S5", "S6", "S5")])
    assert again.state()["crib"] != state["crib"]  # other discards, the same starter
    assert again.state()["starter"] == state["starter"]


def test_double_starter_gives_the_dealer_one() -> None:
    seed = first_starter(double=True)  # dealer Ann turns a double
    game = new(seed)
    for _ in range(3):
        game.push(parse_event("S1"))
        assert game.state()["scoring"] == []
    game.push(parse_event("S1"))
    state = game.state()
    assert Tile.parse(state["starter"]).is_double
    assert state["scoring"] == [{"player": 0, "points": 1, "reason": "double starter"}]
    assert [player["score"] for player in state["players"]] == [1, 0]


def test_a_plain_starter_scores_nothing() -> None:
    game = new(first_starter(double=False))
    game.push_all([parse_event("S1")] * 4)
    state = game.state()
    assert state["scoring"] == []
    assert [player["score"] for player in state["players"]] == [0, 0]


def test_the_dealers_opponent_leads() -> None:
    game = new(7)
    game.push_all([parse_event("S1")] * 4)
    state = game.state()
    assert (state["stage"], state["dealer"], state["current_player"]) == ("play", 0, 1)
    game.push(parse_event("S1"))
    assert game.state()["played"][0]["player"] == 1
    # The next hand Bob deals, so Ann discards first and leads.
    play_until(game, lambda state: state["stage"] == "show")
    game.push(END_VISIT)
    state = game.state()
    assert (state["stage"], state["dealer"], state["current_player"]) == ("discard", 1, 0)
    game.push_all([parse_event("S1")] * 2)
    assert game.state()["current_player"] == 1
    game.push_all([parse_event("S1")] * 2)
    state = game.state()
    assert (state["stage"], state["current_player"]) == ("play", 0)


def test_picks_outside_the_hand_are_refused() -> None:
    game = new(7)
    for token in ("S7", "S20", "SB", "DB", "M"):
        with pytest.raises(MoveError, match=token):
            game.check(parse_event(token))
    with pytest.raises(MoveError, match="crib"):
        game.check(END_VISIT)  # no NEXT while tiles are owed to the crib
    with pytest.raises(NothingToUndoError):
        game.check(UNDO)
    game.push(parse_event("T3"))  # any ring: the number picks the tile
    assert len(game.state()["crib"]) == 1


# ----------------------------------------------------------------- the play


def test_a_tile_past_31_is_refused_naming_the_tile_and_the_count() -> None:
    def too_big(step: Step) -> bool:
        state = step.before
        hand = state["players"][state["current_player"]]["hand"]
        return state["stage"] == "play" and any(state["count"] + value(tile) > 31 for tile in hand)

    step = find_step(too_big, "a tile that does not fit")
    game = step.replay()
    state = game.state()
    tile = next(
        tile
        for tile in state["players"][state["current_player"]]["hand"]
        if state["count"] + value(tile) > 31
    )
    bed = pick(tile, state)
    with pytest.raises(MoveError) as refused:
        game.check(bed)
    message = str(refused.value)
    assert tile in message and f"count {state['count']}" in message, message
    assert game.state() == state
    with pytest.raises(MoveError, match=re.escape(message)):
        game.push(bed)
    assert game.state() == state


def test_go_is_refused_while_a_tile_fits() -> None:
    game = new(7)
    game.push_all([parse_event("S1")] * 4)
    state = game.state()
    with pytest.raises(MoveError, match="no Go") as refused:
        game.check(END_VISIT)
    assert state["players"][1]["hand"][0] in str(refused.value)
    with pytest.raises(MoveError, match="no Go"):
        game.push(END_VISIT)
    assert game.state() == state


def test_after_go_the_other_player_plays_on() -> None:
    def first_go(step: Step) -> bool:
        return (
            is_go(step)
            and not step.before["players"][1 - mover(step)]["go"]
            and bool(step.before["players"][1 - mover(step)]["hand"])
        )

    go = find_step(first_go, "a Go")
    player = mover(go)
    hand = go.before["players"][player]["hand"]
    assert all(go.before["count"] + value(tile) > 31 for tile in hand)
    assert go.after["count"] == go.before["count"]  # the count goes on
    assert go.after["players"][player]["go"] is True
    assert go.after["current_player"] == 1 - player

    # The other player lays tile after tile while the first has said Go.
    def plays_on(step: Step) -> bool:
        player = mover(step)
        return (
            is_lay(step)
            and step.before["players"][1 - player]["go"]
            and step.after["stage"] == "play"
            and step.after["count"] == step.before["count"] + value(laid_tile(step))
            and any(
                step.after["count"] + value(tile) <= 31
                for tile in step.after["players"][player]["hand"]
            )
        )

    step = find_step(plays_on, "two tiles in a row after a Go")
    player = mover(step)
    assert step.after["current_player"] == player
    assert step.after["players"][1 - player]["go"] is True
    with pytest.raises(MoveError, match="no Go"):
        step.replay().push_all([step.event, END_VISIT])


def test_go_point_goes_to_the_last_player_to_lay() -> None:
    # Neither can play: the second Go gives the last player to lay the point.
    def second_go(step: Step) -> bool:
        return (
            is_go(step)
            and step.before["players"][1 - mover(step)]["go"]
            and step.after["stage"] == "play"
        )

    step = find_step(second_go, "a second Go")
    before, after = step.before, step.after
    last = before["count_tiles"][-1]["player"]
    assert before["count"] < 31
    assert after["scoring"] == [{"player": last, "points": 1, "reason": "go"}]
    assert after["players"][last]["score"] == before["players"][last]["score"] + 1
    assert after["players"][1 - last]["score"] == before["players"][1 - last]["score"]
    # a new count from zero, led by the player who did not lay the last tile
    assert (after["count"], after["count_tiles"]) == (0, [])
    assert [player["go"] for player in after["players"]] == [False, False]
    leader = 1 - last if after["players"][1 - last]["hand"] else last
    assert after["current_player"] == leader


def test_last_tile_point() -> None:
    def last_tile(step: Step) -> bool:
        return (
            is_lay(step)
            and step.after["stage"] == "show"
            and step.after["played"][-1]["count"] != 31
        )

    step = find_step(last_tile, "a hand played out short of 31")
    layer = step.after["played"][-1]["player"]
    lines = pegging_lines(step.after)
    assert lines[-1] == (layer, "last tile", 1)
    assert all(reason != "go" for _, reason, _ in lines)
    # the point is scored before the count
    reasons = [line["reason"] for line in step.after["scoring"]]
    assert reasons[: len(lines)] == [reason for _, reason, _ in lines]


def test_fifteen_with_the_last_tile_scores_three() -> None:
    def fifteen_last(step: Step) -> bool:
        played = step.after["played"]
        return (
            is_lay(step)
            and step.after["stage"] == "show"
            and played[-1]["count"] == 15
            and played[-1]["points"] == 2  # the fifteen alone, no pair or run
        )

    step = find_step(fifteen_last, "a hand ended by a tile making 15")
    layer = step.after["played"][-1]["player"]
    lines = pegging_lines(step.after)
    assert lines == [(layer, "fifteen", 2), (layer, "last tile", 1)]
    assert sum(points for _, _, points in lines) == 3


def test_thirty_one_with_the_last_tile_has_no_last_tile_point() -> None:
    def thirty_one(step: Step) -> bool:
        return (
            is_lay(step)
            and step.after["stage"] == "show"
            and step.after["played"][-1]["count"] == 31
        )

    step = find_step(thirty_one, "a hand ended by a tile making 31")
    layer = step.after["played"][-1]["player"]
    lines = pegging_lines(step.after)
    assert (layer, "thirty-one", 2) in lines
    assert all(reason not in ("last tile", "go") for _, reason, _ in lines)


def test_the_count_restarts_at_31_without_a_go_point() -> None:
    def thirty_one(step: Step) -> bool:
        return (
            is_lay(step)
            and step.after["stage"] == "play"
            and step.after["played"][-1]["count"] == 31
        )

    step = find_step(thirty_one, "a 31 in mid-play")
    after = step.after
    layer = mover(step)
    assert after["played"][-1]["player"] == layer
    lines = pegging_lines(after)
    assert (layer, "thirty-one", 2) in lines
    assert all(reason != "go" for _, reason, _ in lines)
    assert (after["count"], after["count_tiles"]) == (0, [])
    assert [player["go"] for player in after["players"]] == [False, False]
    leader = 1 - layer if after["players"][1 - layer]["hand"] else layer
    assert after["current_player"] == leader


def test_pairs_do_not_carry_over_a_new_count() -> None:
    def same_value_after_restart(step: Step) -> bool:
        before = step.before
        return (
            is_lay(step)
            and before["count_tiles"] == []
            and bool(before["played"])
            and value(laid_tile(step)) == value(before["played"][-1]["tile"])
        )

    step = find_step(same_value_after_restart, "a new count led with the last tile's value")
    entry = step.after["played"][len(step.before["played"])]
    assert (entry["count"], entry["points"]) == (value(entry["tile"]), 0)
    assert all(reason != "pair" for _, reason, _ in pegging_lines(step.after))


# ---------------------------------------------------------------- the count


def test_counting_order_non_dealer_dealer_crib_each_with_the_starter() -> None:
    game = new(7)
    for dealer in (0, 1):
        before = play_until(game, lambda state: state["stage"] == "play")
        state = play_until(game, lambda state: state["stage"] != "play")
        assert state["stage"] == "show", "seed 7 should not end in the first two hands"
        assert state["dealer"] == dealer
        starter = Tile.parse(state["starter"])
        players = state["players"]
        expected = [
            (1 - dealer, "hand", players[1 - dealer]["kept"]),
            (dealer, "hand", players[dealer]["kept"]),
            (dealer, "crib", state["crib"]),
        ]
        assert [(c["player"], c["what"], c["tiles"]) for c in state["counts"]] == expected
        for entry, (_, _, tiles) in zip(state["counts"], expected, strict=True):
            counted = count_hand(parse_tiles(tiles), starter)
            assert {key: entry[key] for key in counted.as_json()} == counted.as_json()
        scored = [
            (line["player"], line["reason"], line["points"])
            for line in state["scoring"]
            if line["reason"] in ("hand", "crib")
        ]
        assert scored == [
            (c["player"], c["what"], c["total"]) for c in state["counts"] if c["total"] > 0
        ]
        pegged = [before["players"][p]["stats"]["pegged"] for p in (0, 1)]
        for number, player in enumerate(players):
            counted_total = sum(c["total"] for c in state["counts"] if c["player"] == number)
            gained = player["stats"]["pegged"] - pegged[number]
            assert player["score"] == before["players"][number]["score"] + gained + counted_total
        game.push(END_VISIT)


def test_the_dealer_alternates_each_hand() -> None:
    game = new(3, computer="both")
    dealers = []
    while not game.is_finished:
        state = game.state()
        dealers.append(state["dealer"])
        assert state["hand"] == len(dealers)
        game.push(END_VISIT)
    assert len(dealers) >= 3
    assert dealers == [hand % 2 for hand in range(len(dealers))]


def test_next_after_the_count_deals_a_fresh_hand() -> None:
    game = new(7)
    shown = play_until(game, lambda state: state["stage"] == "show")
    with pytest.raises(MoveError, match="NEXT"):
        game.check(parse_event("S1"))
    game.push(END_VISIT)
    state = game.state()
    assert (state["stage"], state["hand"], state["dealer"]) == ("discard", 2, 1)
    assert (state["current_player"], state["to_discard"], state["starter"]) == (0, 2, None)
    assert state["crib"] == state["played"] == state["counts"] == state["count_tiles"] == []
    assert state["count"] == 0
    assert [len(player["hand"]) for player in state["players"]] == [6, 6]
    assert [p["score"] for p in state["players"]] == [p["score"] for p in shown["players"]]


@cache
def computer_games() -> tuple[dict[str, Any], ...]:
    """The final states of the computer-vs-computer games of seeds 0-999, NEXT
    pressed at each show."""
    finals = []
    for seed in range(1000):
        game = new(seed, computer="both")
        presses = 0
        while not game.is_finished and presses < 50:
            game.end_visit()
            presses += 1
        finals.append(game.state())
    return tuple(finals)


def first_final(predicate: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
    for state in computer_games():
        if predicate(state):
            return state
    raise AssertionError(f"no computer game shows {what}")


@pytest.mark.slow
def test_the_game_ends_the_moment_the_target_is_reached_mid_count() -> None:
    def dealer_not_counted(state: dict[str, Any]) -> bool:
        dealer = state["dealer"]
        if len(state["counts"]) != 1:
            return False
        kept = parse_tiles(state["players"][dealer]["kept"])
        would = count_hand(kept, Tile.parse(state["starter"])).total
        return bool(state["players"][dealer]["score"] + would >= 61)

    # A game the non-dealer won with the first count: the dealer's hand would
    # have reached 61 too, but it is never counted.
    state = first_final(dealer_not_counted, "the non-dealer winning on the first count")
    dealer = state["dealer"]
    winner, loser = state["players"][1 - dealer], state["players"][dealer]
    assert (state["stage"], state["finished"], state["result"]) == ("over", True, "target")
    assert state["winner"] == 1 - dealer
    assert [(c["player"], c["what"]) for c in state["counts"]] == [(1 - dealer, "hand")]
    assert state["scoring"][-1]["reason"] == "hand"
    assert winner["previous_score"] < 61 <= winner["score"]
    assert loser["score"] < 61
    assert all(line["reason"] != "crib" for line in state["scoring"])
    game = new(state["seed"], computer="both")
    while not game.is_finished:
        game.end_visit()
    for event in (END_VISIT, parse_event("S1")):
        with pytest.raises(GameOverError):
            game.push(event)
    assert game.state() == state


def test_the_crib_is_not_counted_once_the_dealers_hand_wins() -> None:
    def dealer_hand_wins(state: dict[str, Any]) -> bool:
        return len(state["counts"]) == 2 and state["winner"] == state["dealer"]

    state = first_final(dealer_hand_wins, "the dealer winning with their hand")
    dealer = state["dealer"]
    assert [(c["player"], c["what"]) for c in state["counts"]] == [
        (1 - dealer, "hand"),
        (dealer, "hand"),
    ]
    assert state["scoring"][-1] == {
        "player": dealer,
        "points": state["counts"][1]["total"],
        "reason": "hand",
    }
    assert state["players"][dealer]["previous_score"] < 61 <= state["players"][dealer]["score"]


def test_the_game_can_end_in_the_play() -> None:
    state = first_final(lambda state: state["counts"] == [], "a game won in the play")
    winner = state["players"][state["winner"]]
    assert state["stage"] == "over"
    assert winner["previous_score"] < 61 <= winner["score"]
    assert state["scoring"][-1]["reason"] not in ("hand", "crib")
    assert state["players"][1 - state["winner"]]["score"] < 61


def test_a_finished_game_reads_the_same_whichever_player_won() -> None:
    """``visit_over`` once the game is over ("win" is the mover's side winning,
    docs/state.md) must not depend on which seat won."""
    by_winner: dict[int, set[str]] = {0: set(), 1: set()}
    for state in computer_games()[:50]:
        by_winner[state["winner"]].add(state["visit_over"])
    assert by_winner[0] == by_winner[1], by_winner


def test_target_121() -> None:
    game = new(0, computer="both", target=121)
    passed_61_and_played_on = False
    while not game.is_finished:
        state = game.state()
        passed_61_and_played_on |= max(p["score"] for p in state["players"]) >= 61
        game.push(END_VISIT)
    state = game.state()
    assert passed_61_and_played_on
    assert state["target"] == 121
    scores = [player["score"] for player in state["players"]]
    assert scores[state["winner"]] >= 121 > scores[1 - state["winner"]]


# ------------------------------------------------------------- the computer


def test_computer_second_plays_bobs_moves() -> None:
    game = new(7, computer="second")
    state = game.state()
    # Bob (the non-dealer, the computer) has discarded already; Ann discards.
    assert (state["current_player"], state["to_discard"], len(state["crib"])) == (0, 2, 2)
    assert [len(p["hand"]) for p in state["players"]] == [6, 4]
    assert [p["computer"] for p in state["players"]] == [False, True]
    game.push_all([parse_event("S1")] * 2)
    state = game.state()
    assert state["stage"] == "play"
    assert state["played"][0]["player"] == 1  # Bob led without a move logged
    assert state["current_player"] == 0
    while game.state()["stage"] == "play":
        assert game.current_player == 0
        game.push(first_legal(game))
    assert all(isinstance(event, Bed) or event == END_VISIT for event in game.events)
    game.push(END_VISIT)  # Bob deals: Ann discards first, then Bob at once
    state = game.state()
    assert (state["dealer"], state["current_player"], len(state["crib"])) == (1, 0, 0)
    game.push_all([parse_event("S1")] * 2)
    state = game.state()
    assert (state["stage"], state["current_player"], state["played"]) == ("play", 0, [])
    assert len(state["crib"]) == 4


def test_computer_both_plays_each_hand_to_the_count() -> None:
    game = new(7, computer="both")
    state = game.state()
    assert state["stage"] == "show" and not game.events
    assert len(state["played"]) == 8 and len(state["counts"]) == 3
    game.push(END_VISIT)
    state = game.state()
    assert (state["hand"], state["stage"]) == (2, "show")
    assert game.events == (END_VISIT,)


def test_undo_across_a_hand_boundary_restores_the_previous_show() -> None:
    game = new(7)
    play_until(game, lambda state: state["stage"] == "show")
    shown, events = game.state(), game.events
    game.push(END_VISIT)
    game.push(parse_event("S1"))
    assert game.state()["hand"] == 2
    game.undo()
    game.undo()
    assert game.state() == shown
    assert game.events == events
    game.undo()  # and the last tile of the play comes back
    assert game.state()["stage"] == "play"

    both = new(7, computer="both")
    shown = both.state()
    both.push(END_VISIT)
    assert both.state()["hand"] == 2
    both.undo()
    assert both.state() == shown


def test_a_thousand_computer_games_end_properly() -> None:
    hands = []
    for seed, state in enumerate(computer_games()):
        assert state["finished"], f"seed {seed} did not finish in 50 hands"
        winner = state["winner"]
        scores = [player["score"] for player in state["players"]]
        assert scores[winner] >= 61 > scores[1 - winner], f"seed {seed}: {scores}"
        assert state["players"][winner]["previous_score"] < 61, f"seed {seed}"
        assert (state["stage"], state["result"]) == ("over", "target")
        hands.append(state["hand"])
    assert max(hands) <= 12, f"a game took {max(hands)} hands"


@dataclass(frozen=True)
class HandRecord:
    """One hand of a computer-vs-random game, as the final show state has it."""

    kept: tuple[tuple[str, ...], tuple[str, ...]]
    played: tuple[tuple[int, str, int], ...]
    """(player, tile, count after it) for each tile laid, in order."""


@dataclass(frozen=True)
class Decision:
    """A tile the computer laid, with what it could have laid instead."""

    hand: tuple[Tile, ...]
    count: int
    laid: tuple[int, ...]
    chosen: Tile
    opponent: tuple[Tile, ...]

    @property
    def options(self) -> list[Tile]:
        return [tile for tile in self.hand if self.count + tile.value <= 31]

    def points(self, tile: Tile) -> int:
        return peg_score([*self.laid, tile.value]).points

    def exposure(self, tile: Tile) -> float:
        """The share of the opponent's tiles that would answer ``tile`` with 15 or 31."""
        after = self.count + tile.value
        if after == 31 or not self.opponent:
            return 0.0
        hits = sum(1 for other in self.opponent if after + other.value in (15, 31))
        return hits / len(self.opponent)


@dataclass(frozen=True)
class Match:
    winner: int
    hands: tuple[HandRecord, ...]


@cache
def computer_against_random(games: int = 200) -> tuple[Match, ...]:
    """Ann plays uniformly random legal moves; Bob is the computer."""
    matches = []
    for seed in range(games):
        game = new(seed, computer="second")
        choose = random_player(random.Random(seed))
        hands: list[HandRecord] = []
        recorded = 0
        while True:
            state = game.state()
            if state["stage"] in ("show", "over") and recorded < state["hand"] and state["played"]:
                kept = tuple(tuple(p["kept"]) for p in state["players"])
                played = tuple((e["player"], e["tile"], e["count"]) for e in state["played"])
                hands.append(HandRecord((kept[0], kept[1]), played))
                recorded = state["hand"]
            if game.is_finished:
                break
            game.push(choose(game))
        matches.append(Match(state["winner"], tuple(hands)))
    return tuple(matches)


def decisions(hand: HandRecord, player: int) -> Iterator[Decision]:
    """Every tile ``player`` laid in the hand, with the position it was laid in."""
    hands = [[Tile.parse(tile) for tile in kept] for kept in hand.kept]
    count = 0
    laid: list[int] = []
    for who, notation, after in hand.played:
        tile = Tile.parse(notation)
        if after - tile.value != count:  # a new count began (after a 31 or a go)
            count, laid = 0, []
        if who == player:
            yield Decision(tuple(hands[who]), count, tuple(laid), tile, tuple(hands[1 - who]))
        hands[who].remove(tile)
        laid.append(tile.value)
        count = after


def computer_decisions() -> list[Decision]:
    return [
        decision
        for match in computer_against_random()
        for hand in match.hands
        for decision in decisions(hand, 1)
    ]


@pytest.mark.slow
def test_the_computer_beats_a_random_player() -> None:
    matches = computer_against_random()
    wins = sum(match.winner == 1 for match in matches)
    assert wins >= 0.75 * len(matches), f"the computer won {wins} of {len(matches)}"


def test_the_computer_leaves_fewer_fifteens_and_thirty_ones_than_a_random_choice() -> None:
    """The domino form of card cribbage's "never leave 5 or 21": tile values
    run 0-12 (only two tiles are worth 10), so almost any count can be
    answered with 15 or 31. Over the computer's choices with
    an alternative, the share of the opponent's actual tiles that would answer
    with 15 or 31 is clearly lower than a uniformly random legal tile's."""
    chosen = alternative = 0.0
    choices = 0
    for decision in computer_decisions():
        options = decision.options
        if len(options) < 2:
            continue
        choices += 1
        chosen += decision.exposure(decision.chosen)
        alternative += sum(decision.exposure(tile) for tile in options) / len(options)
    assert choices > 1000
    assert chosen < 0.9 * alternative, (chosen / choices, alternative / choices)
