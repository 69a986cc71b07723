"""The computer player of domino cribbage: pure, deterministic choices from
what that player can see (its own tiles, the starter, the tiles laid).

Discard: keep the four tiles whose expected count, averaged over every
starter still unseen, plus the expected value of the two discards in the crib
(added when it is the computer's crib, taken away when it is the opponent's),
is highest. Play: lay the tile that scores most now minus what the
opponent's reply is expected to score (leaving 15 or 31, a pair or a run for
them costs), so it avoids handing over easy points.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence

from engine.cribbage_scoring import THIRTY_ONE, count_points, peg_score
from engine.tiles import DOUBLE_SIX, Tile

__all__ = ["choose_discards", "choose_play", "discard_value"]


def discard_value(
    kept: Sequence[Tile], discards: Sequence[Tile], own_crib: bool, unseen: Sequence[Tile]
) -> float:
    """Expected hand count plus (or minus) the discards' crib count, over the starters."""
    kept_values = [tile.value for tile in kept]
    crib_values = [tile.value for tile in discards]
    sign = 1 if own_crib else -1
    total = 0
    for starter in unseen:
        total += count_points([*kept_values, starter.value])
        total += sign * count_points([*crib_values, starter.value])
    return total / len(unseen) if unseen else 0.0


def choose_discards(hand: Sequence[Tile], own_crib: bool) -> tuple[Tile, Tile]:
    """The two tiles of a six-tile hand to put in the crib."""
    unseen = [tile for tile in DOUBLE_SIX if tile not in hand]
    best: tuple[float, tuple[Tile, Tile]] | None = None
    for first, second in itertools.combinations(hand, 2):
        kept = [tile for tile in hand if tile not in (first, second)]
        value = discard_value(kept, (first, second), own_crib, unseen)
        if best is None or value > best[0]:
            best = (value, (first, second))
    if best is None:
        raise ValueError(f"a hand of {len(hand)} tiles has no two to discard")
    return best[1]


def choose_play(
    hand: Sequence[Tile], count: int, laid: Sequence[int], unseen: Collection[Tile]
) -> Tile | None:
    """The tile to lay at ``count`` (``laid``: the values since the count
    started), or ``None`` when none fits and the computer says Go."""
    best: tuple[float, int, Tile] | None = None
    for tile in hand:
        total = count + tile.value
        if total > THIRTY_ONE:
            continue
        values = [*laid, tile.value]
        gain = float(peg_score(values).points)
        replies = [other for other in unseen if total + other.value <= THIRTY_ONE]
        if replies and total < THIRTY_ONE:
            gain -= sum(peg_score([*values, other.value]).points for other in replies) / len(unseen)
        key = (gain, tile.value, tile)
        if best is None or key[:2] > best[:2]:
            best = key
    return best[2] if best else None
