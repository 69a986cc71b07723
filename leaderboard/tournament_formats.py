"""A bar tournament's brackets as pure rules (docs/matches.md, "Tournaments"):
round robin (the circle method), single elimination and double elimination
(winners' and losers' brackets, a grand final and its reset), with byes.

Players are seed indices (0 is the top seed). A bracket is a tuple of
:class:`Slot` in play order, each fed by two :class:`Source` (a seed, a bye,
or the winner or loser of an earlier slot); :func:`resolve` folds the
decisions so far (slot key to the winning side, 0 or 1) into each slot's
players and status. Nothing here touches a database, so the brackets are
tested alone (hypothesis)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

__all__ = [
    "BYE",
    "MAX_PLAYERS",
    "Bracket",
    "Format",
    "Slot",
    "SlotState",
    "Source",
    "TournamentFormatError",
    "bracket",
    "champion",
    "resolve",
    "round_label",
    "seed_order",
]

MAX_PLAYERS = 128
"""The most players a tournament takes."""

BYE = -1
"""The player a bye stands for in :class:`SlotState` (never a seed)."""


class TournamentFormatError(ValueError):
    """A tournament that cannot be drawn: the message says why."""


class Format(StrEnum):
    """The tournament formats ``oche tournament create --format`` takes."""

    ROUND_ROBIN = "round-robin"
    SINGLE_ELIMINATION = "single-elimination"
    DOUBLE_ELIMINATION = "double-elimination"


SourceKind = Literal["seed", "bye", "winner", "loser"]
Part = Literal["round-robin", "main", "winners", "losers", "final"]
Status = Literal["waiting", "ready", "decided", "bye", "void"]


@dataclass(frozen=True, slots=True)
class Source:
    """Where a slot's side comes from: a seed, a bye, or the winner or loser of slot ``match``."""

    kind: SourceKind
    seed: int | None = None
    match: str | None = None


@dataclass(frozen=True, slots=True)
class Slot:
    """One match of a bracket: ``key`` (``R1-2``, ``W2-1``, ``L3-1``, ``GF``,
    ``GF2``), its part and round, its number in the round, its two sides'
    sources. ``reset``: played only when the losers' side won ``GF``."""

    key: str
    part: Part
    round: int
    number: int
    sides: tuple[Source, Source]
    reset: bool = False


@dataclass(frozen=True, slots=True)
class Bracket:
    """A drawn tournament: its slots in play order and, for a round robin,
    who sits each round out (round, seed)."""

    format: Format
    players: int
    slots: tuple[Slot, ...]
    sitting_out: tuple[tuple[int, int], ...] = ()

    def slot(self, key: str) -> Slot:
        """The slot ``key``; a KeyError names a key that is none."""
        for slot in self.slots:
            if slot.key == key:
                return slot
        raise KeyError(f"no match {key!r} in this tournament")


@dataclass(frozen=True, slots=True)
class SlotState:
    """A slot as the decisions so far leave it: its players (a seed,
    :data:`BYE`, or None while unknown), status (``waiting`` for a player,
    ``ready`` to play, ``decided``, ``bye``: no match, one side is a bye,
    ``void``: a reset not needed), and once known its winner and loser."""

    players: tuple[int | None, int | None]
    status: Status
    winner: int | None = None
    loser: int | None = None


def _checked_count(players: int, least: int) -> None:
    if not least <= players <= MAX_PLAYERS:
        raise TournamentFormatError(
            f"a tournament needs {least} to {MAX_PLAYERS} players, not {players}"
        )


def seed_order(size: int) -> list[int]:
    """The standard seeding of a bracket of ``size`` (a power of two), as
    seed indices in bracket order: 8 gives 1v8, 4v5, 2v7, 3v6 (0-based:
    ``[0, 7, 3, 4, 1, 6, 2, 5]``), so the top seeds meet last."""
    order = [0]
    while len(order) < size:
        total = 2 * len(order) - 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def _bracket_size(players: int) -> int:
    size = 2
    while size < players:
        size *= 2
    return size


def _round_robin(players: int) -> Bracket:
    """The circle method: seed 0 stays, the others rotate; with an odd count
    a bye joins and whoever meets it sits that round out."""
    _checked_count(players, 2)
    circle: list[int | None] = list(range(players))
    if players % 2:
        circle.append(None)
    count = len(circle)
    slots: list[Slot] = []
    sitting: list[tuple[int, int]] = []
    for round_number in range(1, count):
        number = 0
        for index in range(count // 2):
            first, second = circle[index], circle[count - 1 - index]
            if first is None or second is None:
                resting = second if first is None else first
                assert resting is not None
                sitting.append((round_number, resting))
                continue
            if round_number % 2 == 0 and index == 0:
                first, second = second, first  # the fixed seed does not always throw first
            number += 1
            slots.append(
                Slot(
                    f"R{round_number}-{number}",
                    "round-robin",
                    round_number,
                    number,
                    (Source("seed", seed=first), Source("seed", seed=second)),
                )
            )
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return Bracket(Format.ROUND_ROBIN, players, tuple(slots), tuple(sitting))


def _seeded_first_round(players: int, prefix: str, part: Part) -> list[Slot]:
    size = _bracket_size(players)
    order = seed_order(size)

    def source(seed: int) -> Source:
        return Source("seed", seed=seed) if seed < players else Source("bye")

    return [
        Slot(
            f"{prefix}1-{number}",
            part,
            1,
            number,
            (source(order[2 * number - 2]), source(order[2 * number - 1])),
        )
        for number in range(1, size // 2 + 1)
    ]


def _next_rounds(first: list[Slot], prefix: str, part: Part) -> list[list[Slot]]:
    """The rounds after ``first``: each slot's two winners meet in the next."""
    rounds = [first]
    while len(rounds[-1]) > 1:
        previous = rounds[-1]
        round_number = len(rounds) + 1
        rounds.append(
            [
                Slot(
                    f"{prefix}{round_number}-{number}",
                    part,
                    round_number,
                    number,
                    (
                        Source("winner", match=previous[2 * number - 2].key),
                        Source("winner", match=previous[2 * number - 1].key),
                    ),
                )
                for number in range(1, len(previous) // 2 + 1)
            ]
        )
    return rounds


def _single_elimination(players: int) -> Bracket:
    _checked_count(players, 2)
    rounds = _next_rounds(_seeded_first_round(players, "R", "main"), "R", "main")
    return Bracket(
        Format.SINGLE_ELIMINATION, players, tuple(slot for row in rounds for slot in row)
    )


def _losers_bracket(winners: list[list[Slot]]) -> list[Slot]:
    """The losers' bracket: round 1 pairs the winners' round 1 losers; then
    each winners' round's losers drop in against the losers' survivors (in
    reverse order, so two players do not meet again at once), and the
    survivors play each other, until one is left for the grand final."""
    slots: list[Slot] = []
    round_number = 0

    def play(pairs: list[tuple[Source, Source]]) -> list[Source]:
        nonlocal round_number
        round_number += 1
        made = [
            Slot(f"L{round_number}-{number}", "losers", round_number, number, pair)
            for number, pair in enumerate(pairs, 1)
        ]
        slots.extend(made)
        return [Source("winner", match=slot.key) for slot in made]

    first = [Source("loser", match=slot.key) for slot in winners[0]]
    alive = play([(first[i], first[i + 1]) for i in range(0, len(first), 2)])
    for depth, row in enumerate(winners[1:], 2):
        dropped = [Source("loser", match=slot.key) for slot in row]
        if depth % 2 == 0:
            dropped.reverse()
        alive = play(list(zip(alive, dropped, strict=True)))
        if len(alive) > 1:
            alive = play([(alive[i], alive[i + 1]) for i in range(0, len(alive), 2)])
    return slots


def _double_elimination(players: int) -> Bracket:
    _checked_count(players, 2)
    winners = _next_rounds(_seeded_first_round(players, "W", "winners"), "W", "winners")
    final = winners[-1][0]
    losers = _losers_bracket(winners) if len(winners) > 1 else []
    lower = Source("winner", match=losers[-1].key) if losers else Source("loser", match=final.key)
    grand = Slot("GF", "final", 1, 1, (Source("winner", match=final.key), lower))
    reset = Slot(
        "GF2",
        "final",
        2,
        1,
        (Source("winner", match="GF"), Source("loser", match="GF")),
        reset=True,
    )
    slots = [slot for row in winners for slot in row] + losers + [grand, reset]
    return Bracket(Format.DOUBLE_ELIMINATION, players, tuple(slots))


def bracket(format: Format | str, players: int) -> Bracket:
    """The bracket of ``format`` for ``players`` players (seeds 0..players-1);
    a TournamentFormatError names a format or count that is not one."""
    try:
        chosen = Format(format)
    except ValueError:
        names = ", ".join(f.value for f in Format)
        raise TournamentFormatError(f"no tournament format {format!r}: use {names}") from None
    if chosen is Format.ROUND_ROBIN:
        return _round_robin(players)
    if chosen is Format.SINGLE_ELIMINATION:
        return _single_elimination(players)
    return _double_elimination(players)


def _value(source: Source, states: Mapping[str, SlotState]) -> int | None:
    if source.kind == "seed":
        return source.seed
    if source.kind == "bye":
        return BYE
    assert source.match is not None
    state = states[source.match]
    return state.winner if source.kind == "winner" else state.loser


def resolve(drawn: Bracket, decided: Mapping[str, int]) -> dict[str, SlotState]:
    """Each slot's state (by key) after ``decided`` (slot key to the winning
    side, 0 or 1). A decision for a slot that is not ready is ignored."""
    states: dict[str, SlotState] = {}
    for slot in drawn.slots:
        players = (_value(slot.sides[0], states), _value(slot.sides[1], states))
        states[slot.key] = _state(slot, players, decided, states)
    return states


def _state(
    slot: Slot,
    players: tuple[int | None, int | None],
    decided: Mapping[str, int],
    states: Mapping[str, SlotState],
) -> SlotState:
    if slot.reset:
        grand = states["GF"]
        if grand.status == "decided" and grand.winner == grand.players[0]:
            return SlotState(players, "void")  # the winners' side won: no reset
    first, second = players
    if first is None or second is None:
        return SlotState(players, "waiting")
    if first == BYE or second == BYE:
        advancing = second if first == BYE else first
        return SlotState(players, "bye", winner=advancing, loser=BYE)
    side = decided.get(slot.key)
    if side not in (0, 1):
        return SlotState(players, "ready")
    return SlotState(players, "decided", winner=players[side], loser=players[1 - side])


def champion(drawn: Bracket, states: Mapping[str, SlotState]) -> int | None:
    """An elimination's winner once its last match is decided (None before,
    and for a round robin: its standings decide)."""
    if drawn.format is Format.ROUND_ROBIN:
        return None
    last = states[drawn.slots[-1].key]
    if drawn.format is Format.DOUBLE_ELIMINATION and last.status == "void":
        last = states["GF"]
    return last.winner if last.status == "decided" else None


def round_label(drawn: Bracket, slot: Slot) -> str:
    """A slot's round in words: ``Round 2``, ``Semi-final``, ``Grand final``, ..."""
    if slot.part == "round-robin":
        return f"Round {slot.round}"
    if slot.part == "final":
        return "Grand final reset" if slot.reset else "Grand final"
    rounds = max(s.round for s in drawn.slots if s.part == slot.part)
    if slot.part == "losers":
        return "Losers' final" if slot.round == rounds else f"Losers' round {slot.round}"
    names = {0: "Final", 1: "Semi-final", 2: "Quarter-final"}
    name = names.get(rounds - slot.round, f"Round {slot.round}")
    return f"Winners' {name.lower()}" if slot.part == "winners" else name
