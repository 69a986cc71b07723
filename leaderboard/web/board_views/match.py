"""A match on the web views: the legs (and sets) per side, which leg of which
set, who throws first, the deciding leg and its cork, the won leg waiting
for NEXT, and a match the venue's service called to the board ("Next: Ann v
Bob"). Pure: reads a :class:`mqtt_contract.StateView` with the words of
:mod:`mqtt_contract.scoreboard`, which the display's scenes use too."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from engine import game_name
from mqtt_contract import StateView
from mqtt_contract.scoreboard import (
    call_line,
    call_words,
    cork_turn,
    leg_in_set,
    leg_ordinal,
    match_format_words,
    match_position_words,
    match_score_words,
    match_winner_words,
    side_count,
    side_label,
    side_legs,
    side_of,
    starter_side,
    starter_words,
)

__all__ = [
    "CallPanel",
    "MatchPanel",
    "SideScore",
    "call_panel",
    "leg_won_words",
    "match_banners",
    "match_panel",
    "match_turn_text",
]


@dataclass(frozen=True)
class SideScore:
    """One side's line of the match score."""

    label: str
    legs: int
    sets: int | None
    first: bool
    """This side throws (threw) first in this leg."""
    cork: str | None
    """Its dart at the bull in this round of the cork (``None``: not thrown, or no cork)."""
    cork_up: bool
    """It is this side's turn at the bull."""


@dataclass(frozen=True)
class MatchPanel:
    """What the scoreboard and the TV's card show of the match."""

    score: str
    """``Legs 1-0`` or ``Sets 1-0, legs 2-1``."""
    position: str
    """``Leg 2`` or ``Set 2, leg 3``."""
    format: str | None
    """``first to 3 legs``."""
    sides: list[SideScore]
    has_sets: bool
    decider: bool
    """This leg decides the match."""
    cork: bool
    """The deciding leg's cork is being thrown."""
    starter: str | None
    """``Ann throws first``, while the leg is on."""
    leg_won: str | None
    """``Ann wins the first leg``, while the won leg waits for NEXT."""
    winner: str | None
    """``Ann wins the match 2-0``, once it is over."""


def leg_won_words(state: StateView) -> str | None:
    """``Ann wins the first leg`` (``the set``) while a won leg waits for NEXT;
    ``None`` otherwise."""
    match = state.match
    if not match.present or not match.leg_over or match.finished:
        return None
    last = match.played[-1] if match.played else None
    winner = last.winner if last is not None else state.winner
    side = side_of(state, winner)
    if side is None:
        return "The leg is over"
    legs, _ = side_legs(match, side)
    needed = match.format.legs if match.format is not None else None
    if match.sets_won is not None and needed is not None and legs >= needed:
        return f"{side_label(state, side)} wins the set"
    return f"{side_label(state, side)} wins the {leg_ordinal(leg_in_set(match))} leg"


def match_panel(state: StateView) -> MatchPanel | None:
    """The match of ``state``, or ``None`` for a single game."""
    match = state.match
    score, position = match_score_words(state), match_position_words(state)
    if score is None or position is None:
        return None
    first, up = starter_side(state), cork_turn(match)
    cork = match.cork or ()
    sides = []
    for side in range(side_count(state)):
        legs, sets = side_legs(match, side)
        sides.append(
            SideScore(
                label=side_label(state, side),
                legs=legs,
                sets=sets,
                first=side == first and match.cork is None and not match.finished,
                cork=cork[side] if side < len(cork) else None,
                cork_up=side == up,
            )
        )
    return MatchPanel(
        score=score,
        position=position,
        format=match_format_words(state),
        sides=sides,
        has_sets=match.sets_won is not None,
        decider=match.decider and not match.finished,
        cork=match.cork is not None,
        starter=starter_words(state),
        leg_won=leg_won_words(state),
        winner=match_winner_words(state),
    )


def match_turn_text(state: StateView) -> str | None:
    """What the turn line says in a match instead of the game's own words: who
    throws at the bull in the cork, NEXT after a won leg, the match's winner;
    ``None`` when the game's words stand."""
    match = state.match
    if not match.present:
        return None
    up = cork_turn(match)
    if up is not None:
        return f"{side_label(state, up)} to throw at the bull"
    if leg_won_words(state) is not None:
        return "Remove the darts, then NEXT starts the next leg"
    return match_winner_words(state)


def match_banners(state: StateView) -> list[tuple[str, str]]:
    """The match's banners, ``(kind, text)``: the deciding leg (and its cork),
    the won leg waiting for NEXT."""
    match = state.match
    if not match.present or match.finished:
        return []
    found = []
    if match.cork is not None:
        found.append(("cork", "Deciding leg: bull for the throw"))
    elif match.decider and not match.leg_over:
        found.append(("decider", "Deciding leg"))
    won = leg_won_words(state)
    if won is not None:
        found.append(("leg-won", won))
    return found


@dataclass(frozen=True)
class CallPanel:
    """A match the venue's service called to the board, waiting to start."""

    words: str
    """``Next: Ann v Bob on Board 2``."""
    players: str
    """``Ann v Bob``."""
    title: str | None
    game: str
    """The game and the format in words: ``X01 · first to 3 legs``."""


def call_panel(state: StateView, board_name: str) -> CallPanel | None:
    """The called match waiting on the board, or ``None``."""
    call = state.call
    words, players = call_words(state, board_name), call_line(call)
    if words is None or players is None:
        return None
    game = game_name(call.game)
    if call.match is not None:
        with contextlib.suppress(ValueError):  # a format the engine refuses: the game alone
            game = f"{game} · {call.match.format()}"
    return CallPanel(words=words, players=players, title=call.title, game=game)
