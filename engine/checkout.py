"""Checkout suggestions for X01: the darts that finish a score in one visit.

``checkout(remaining, darts, out, bull)`` answers from tables built once, on
the first lookup under each out and bull rule (a millisecond or two), so the
display can ask every frame. Under the ``fat`` bull the outer bull is the
inner bull (50, a double), so the tables leave ``SB`` out and ``DB`` stands for
either bull. The suggestion is the one players use, chosen by these rules
in turn (see docs/games/x01.md, "Checkout suggestions"):

Under ``double`` and ``master`` out, where only the last dart is special:

1. the fewest darts;
2. the fewest setup darts (all darts but the last) on a double or a bull;
3. a last dart other than ``DB`` (the inner bull is the last resort);
4. the fewest setup darts on a treble (a single is the biggest target);
5. the last dart's tier in :data:`FINISH_TIERS` (favourite doubles first);
6. the biggest setup trebles (``T20`` before ``T19``, and so on);
7. the last dart's place in :data:`FINISH_ORDER`;
8. the setup darts, in throwing order, by their place in :data:`SETUP_ORDER`.

Under ``straight`` out any dart may finish, so the order of the darts does
not matter: the fewest darts, then the fewest bulls, then the fewest trebles
and doubles (``DB`` counts as a double), then the darts sorted by
:data:`SETUP_ORDER` compared in turn (biggest trebles first); they are listed
in that order.

No suggestion ever busts: no suggested dart is a miss and an allowed last
dart scores at least 2 (1 under straight out), so every dart but the last
leaves at least that.
"""

from __future__ import annotations

from functools import cache

from engine.beds import ALL_BEDS, DB, NUMBERS, SB, Bed
from engine.x01_rules import BULL_RULES, FAT_BULL, RING_RULES

__all__ = [
    "FINISH_ORDER",
    "FINISH_TIERS",
    "MAX_DARTS",
    "SETUP_ORDER",
    "checkout",
    "checkout_text",
]

MAX_DARTS = 3
"""Darts in a visit: the most a suggestion may use."""

_HIGH_TO_LOW = tuple(reversed(NUMBERS))

SETUP_ORDER: tuple[Bed, ...] = (
    *(Bed(n, 3) for n in _HIGH_TO_LOW),
    *(Bed(n, 1) for n in _HIGH_TO_LOW),
    *(Bed(n, 2) for n in _HIGH_TO_LOW),
    SB,
    DB,
)
"""Every scoring bed (no miss), best setup dart first: trebles T20-T1, singles
S20-S1, doubles D20-D1, then the bulls."""

_FAVOURITE_DOUBLES = tuple(Bed(n, 2) for n in (20, 16, 8, 18, 12, 10))
_OTHER_EVEN_DOUBLES = tuple(Bed(n, 2) for n in (4, 2, 14, 6))
_ODD_DOUBLES = tuple(Bed(n, 2) for n in _HIGH_TO_LOW if n % 2)
_TREBLES = tuple(Bed(n, 3) for n in _HIGH_TO_LOW)

FINISH_TIERS: dict[str, tuple[tuple[Bed, ...], ...]] = {
    "double": (_FAVOURITE_DOUBLES, _OTHER_EVEN_DOUBLES, _ODD_DOUBLES, (DB,)),
    "master": (_FAVOURITE_DOUBLES, _TREBLES, _OTHER_EVEN_DOUBLES, _ODD_DOUBLES, (DB,)),
}
"""Last darts allowed under ``double`` and ``master`` out, in preference tiers:
the favourite doubles (D20, D16, D8, D18, D12, D10); under master the trebles
(T20-T1); the other even doubles (D4, D2, D14, D6: D4 halves twice); the odd
doubles (D19-D1), whose stray single leaves an odd number; the inner bull
last."""

FINISH_ORDER: dict[str, tuple[Bed, ...]] = {
    out: tuple(bed for tier in tiers for bed in tier) for out, tiers in FINISH_TIERS.items()
}
"""The allowed last darts of each tiered rule, most preferred first."""

_Route = tuple[Bed, ...]
_Best = dict[int, tuple[int, _Route]]
"""Total score -> (packed preference key, route): the lower key is preferred."""

_SETUP_RANK = {bed: rank for rank, bed in enumerate(SETUP_ORDER)}
_MAX_SCORE = MAX_DARTS * max(bed.points for bed in ALL_BEDS)

# The preference keys are tuples of small numbers packed into one int, most
# significant first, so that comparing two keys is one int comparison. Each
# field has a fixed width and sits at bit _AT_<FIELD>; the setup darts' ranks
# (6 bits each, SETUP_ORDER has 62 beds) take the lowest bits.
_RANK_BITS = 6
_NO_KEY = 1 << 64  # above every key: no route yet
_AT_FINISH_RANK = _RANK_BITS * (MAX_DARTS - 1)  # rule 7: place in FINISH_ORDER
_AT_TREBLE_KEY = _AT_FINISH_RANK + _RANK_BITS  # rule 6: 20 - number, 5 bits a treble
_AT_TIER = _AT_TREBLE_KEY + 5 * (MAX_DARTS - 1)  # rule 5
_AT_TREBLE_COUNT = _AT_TIER + 3  # rule 4
_AT_IS_DB = _AT_TREBLE_COUNT + 2  # rule 3
_AT_AWKWARD = _AT_IS_DB + 1  # rule 2
_AT_DARTS = _AT_AWKWARD + 2  # rule 1


def _setups(beds: tuple[Bed, ...]) -> list[_Best]:
    """For 0, 1 and 2 darts: the best setup scoring each total, its key holding
    rules 2, 4, 6 and 8 (awkward darts, trebles, treble sizes, ranks).

    Those rules but the last do not depend on the order of the darts, and the
    order with the lowest ranks is the sorted one, so only sorted pairs are
    tried. In a sorted pair a treble comes first, so the first dart's treble
    and rank take the upper slot of their fields and the second's the lower
    one, and a pair's key is the sum of its darts' parts. ``beds``: the setup
    darts the bull rule has, in :data:`SETUP_ORDER`."""
    first_parts = []
    second_parts = []
    for rank, bed in enumerate(beds):
        common = (bed.is_double or bed.is_bull) << _AT_AWKWARD | bed.is_triple << _AT_TREBLE_COUNT
        treble = (20 - bed.number) if bed.is_triple else 0
        first_parts.append(common | treble << (_AT_TREBLE_KEY + 5) | rank << _RANK_BITS)
        second_parts.append(common | treble << _AT_TREBLE_KEY | rank)
    one: _Best = {}
    two: _Best = {}
    for i, first in enumerate(beds):
        first_key = first_parts[i]
        held = one.get(first.points)
        if held is None or first_key < held[0]:
            one[first.points] = (first_key, (first,))
        for j in range(i, len(beds)):
            second = beds[j]
            total = first.points + second.points
            key = first_key + second_parts[j]
            held = two.get(total)
            if held is None or key < held[0]:
                two[total] = (key, (first, second))
    return [{0: (0, ())}, one, two]


def _tiered_table(out: str, setups: list[_Best]) -> list[_Route | None]:
    """Best route per remaining score (the index) with up to three darts under
    ``double`` or ``master`` out: a best setup plus an allowed last dart."""
    keys = [_NO_KEY] * (_MAX_SCORE + 1)
    routes: list[_Route | None] = [None] * (_MAX_SCORE + 1)
    finishes = [
        (finish, (finish == DB) << _AT_IS_DB | tier << _AT_TIER | rank << _AT_FINISH_RANK)
        for rank, (tier, finish) in enumerate(
            (tier, finish) for tier, beds in enumerate(FINISH_TIERS[out]) for finish in beds
        )
    ]
    for count, table in enumerate(setups, start=1):
        entries = [(total, key, setup) for total, (key, setup) in table.items()]
        for finish, finish_key in finishes:
            points = finish.points
            count_key = count << _AT_DARTS | finish_key
            for total, setup_key, setup in entries:
                remaining = total + points
                key = count_key | setup_key
                if key < keys[remaining]:
                    keys[remaining] = key
                    routes[remaining] = (*setup, finish)
    return routes


def _straight_table(beds: tuple[Bed, ...]) -> list[_Route | None]:
    """Best route per remaining score with up to three darts, any last dart.

    The key is (darts, bulls, trebles and doubles, ranks in throwing order).
    The best order of a set of darts is the sorted one, so the best over
    ordered routes is the best set, listed sorted. The key of first dart +
    rest is the first dart's part plus the rest's, so the best route of n
    darts is a first dart plus the best route of n - 1 darts: a small dynamic
    programme."""
    narrow_shift = _RANK_BITS * MAX_DARTS
    bulls_shift = narrow_shift + 2
    routes: list[_Route | None] = [None] * (_MAX_SCORE + 1)
    previous: _Best = {0: (0, ())}
    for count in range(1, MAX_DARTS + 1):
        rank_shift = _RANK_BITS * (count - 1)
        rests = [(total, key, rest) for total, (key, rest) in previous.items()]
        keys: dict[int, int] = {}
        links: dict[int, tuple[Bed, _Route]] = {}
        for rank, first in enumerate(beds):
            points = first.points
            first_key = (
                first.is_bull << bulls_shift
                | (first.multiplier >= 2) << narrow_shift
                | rank << rank_shift
            )
            for total, rest_key, rest in rests:
                score = total + points
                key = first_key + rest_key
                if key < keys.get(score, _NO_KEY):
                    keys[score] = key
                    links[score] = (first, rest)
        previous = {score: (keys[score], (first, *rest)) for score, (first, rest) in links.items()}
        for score, (_, route) in previous.items():
            if routes[score] is None:  # fewer darts were tried first
                routes[score] = route
    return routes


def _limit_darts(table: list[_Route | None], darts: int) -> tuple[_Route | None, ...]:
    """``table`` cut to routes of at most ``darts`` darts. Fewer darts is the
    first rule, so when a route that short exists the table already holds the
    best of them; a longer route in the table means none that short exists."""
    return tuple(route if route is not None and len(route) <= darts else None for route in table)


def _setup_beds(bull: str) -> tuple[Bed, ...]:
    """The setup darts under the ``bull`` rule: no ``SB`` with the fat bull
    (it scores as ``DB``)."""
    return tuple(bed for bed in SETUP_ORDER if not (bull == FAT_BULL and bed == SB))


@cache
def _setups_once(bull: str) -> list[_Best]:
    return _setups(_setup_beds(bull))


_TABLES: dict[tuple[str, str, int], tuple[_Route | None, ...]] = {}
"""(out rule, bull rule, darts) -> route per remaining score 0-180. A rule's
tables are built on its first lookup (about a millisecond or two) and kept."""


def _build(out: str, bull: str) -> None:
    if out == "straight":
        table = _straight_table(_setup_beds(bull))
    else:
        table = _tiered_table(out, _setups_once(bull))
    for darts in range(1, MAX_DARTS + 1):
        _TABLES[out, bull, darts] = _limit_darts(table, darts)


def checkout(
    remaining: int, darts: int = MAX_DARTS, out: str = "double", bull: str = "split"
) -> tuple[Bed, ...] | None:
    """The suggested darts that finish ``remaining`` with at most ``darts``
    darts under the ``out`` rule (``straight``, ``double`` or ``master``) and
    the ``bull`` rule (``split`` or ``fat``), or ``None`` when no such finish
    exists (0 or less, above 180, 1 under double or master out, 159 and the
    other "bogey" numbers...). ``darts`` below 1 gives ``None``; above 3 (a
    visit), an unknown ``out`` or ``bull`` raises ValueError. O(1): a table
    lookup (the rule's first lookup builds its tables)."""
    table = _TABLES.get((out, bull, darts))
    if table is None:
        if out not in RING_RULES:
            raise ValueError(f"unknown out rule {out!r}; the rules are: {', '.join(RING_RULES)}")
        if bull not in BULL_RULES:
            raise ValueError(f"unknown bull rule {bull!r}; the rules are: {', '.join(BULL_RULES)}")
        if darts < 1:
            return None
        if darts > MAX_DARTS:
            raise ValueError(f"a visit has at most {MAX_DARTS} darts, not {darts}")
        _build(out, bull)
        table = _TABLES[out, bull, darts]
    if 0 < remaining < len(table):
        return table[remaining]
    return None


def checkout_text(
    remaining: int, darts: int = MAX_DARTS, out: str = "double", bull: str = "split"
) -> str:
    """:func:`checkout` as notation, e.g. ``"T20 T20 DB"``; ``""`` when none."""
    route = checkout(remaining, darts, out, bull)
    return "" if route is None else " ".join(bed.notation for bed in route)
