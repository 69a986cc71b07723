"""Domino cribbage (seed 003): cribbage played with a double-six set, on the
board's display. Two players; the first to 61 wins.

The game is still a deterministic function of its event log, written in the
board's own tokens: a dart at number N (any ring) picks the N-th tile of the
hand on screen, and ``NEXT`` says Go in the play or deals the next hand once
the count is shown. The deal comes from a seeded shuffle (the ``seed``
option), and the computer's moves are worked out, not logged, so the same
seed and the same picks always give the same game. Scoring lives in
engine/cribbage_scoring.py, the computer in engine/cribbage_computer.py.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar

from engine.beds import NUMBERS, Bed
from engine.cribbage_computer import choose_discards, choose_play
from engine.cribbage_scoring import THIRTY_ONE, count_hand, peg_score
from engine.errors import GameOverError, MoveError, NothingToBounceError, NothingToUndoError
from engine.events import END_VISIT, UNDO, Bounce, Correct, EndVisit, Event, Undo
from engine.game import PickingGame, Reason
from engine.options import Option
from engine.registry import register
from engine.schema_parts import NON_NEGATIVE_INT, TILE_NOTATION_PATTERN
from engine.tiles import DOUBLE_SIX, Tile
from engine.traits import Highlight, Measure

__all__ = ["COMPUTER_SEATS", "DEALT", "DISCARDS", "DominoCribbage", "Stage"]

DEALT = 6
"""Tiles dealt to each player."""

DISCARDS = 2
"""Tiles each player puts in the crib."""

SEED_MAX = 2**31 - 1
"""The largest shuffle seed."""

COMPUTER_SEATS = {"none": (), "second": (1,), "both": (0, 1)}
"""The ``computer`` option: which players the computer plays."""


def _by_value(tile: Tile) -> tuple[int, Tile]:
    """Tiles in the order a hand is shown (and picked): by value, then by ends."""
    return tile.value, tile


class Stage(StrEnum):
    """Where a hand is (published as ``stage``, a plain string)."""

    DISCARD = "discard"
    PLAY = "play"
    SHOW = "show"
    OVER = "over"


_TILES: dict[str, Any] = {"type": "array", "items": {"$ref": "#/$defs/tile"}}
_SCORING_LINE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "player": NON_NEGATIVE_INT,
        "points": {"type": "integer", "minimum": 1},
        "reason": {"type": "string", "minLength": 1},
    },
    "required": ["player", "points", "reason"],
}
_COMBINATIONS: dict[str, Any] = {
    "type": "object",
    "properties": {"points": NON_NEGATIVE_INT, "combinations": {"type": "array"}},
    "required": ["points", "combinations"],
}

DOMINO_CRIBBAGE_SCHEMA: dict[str, Any] = {
    "description": "Domino cribbage's own keys (docs/games/domino-cribbage.md).",
    "properties": {
        "stage": {"enum": [stage.value for stage in Stage]},
        "dealer": NON_NEGATIVE_INT,
        "hand": {"description": "The hand (deal) number, from 1.", "type": "integer", "minimum": 1},
        "target": {"type": "integer", "minimum": 1},
        "seed": NON_NEGATIVE_INT,
        "starter": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/tile"}]},
        "crib": {**_TILES, "maxItems": 4},
        "count": {"type": "integer", "minimum": 0, "maximum": 31},
        "count_tiles": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"player": NON_NEGATIVE_INT, "tile": {"$ref": "#/$defs/tile"}},
                "required": ["player", "tile"],
            },
        },
        "played": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "player": NON_NEGATIVE_INT,
                    "tile": {"$ref": "#/$defs/tile"},
                    "count": {"type": "integer", "minimum": 0, "maximum": 31},
                    "points": NON_NEGATIVE_INT,
                },
                "required": ["player", "tile", "count", "points"],
            },
            "maxItems": 8,
        },
        "to_discard": {"type": "integer", "minimum": 0, "maximum": 2},
        "scoring": {"type": "array", "items": _SCORING_LINE},
        "counts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "player": NON_NEGATIVE_INT,
                    "what": {"enum": ["hand", "crib"]},
                    "tiles": {**_TILES, "maxItems": 4},
                    "fifteens": _COMBINATIONS,
                    "pairs": _COMBINATIONS,
                    "runs": _COMBINATIONS,
                    "total": NON_NEGATIVE_INT,
                },
                "required": ["player", "what", "tiles", "fifteens", "pairs", "runs", "total"],
            },
            "maxItems": 3,
        },
        "players": {
            "minItems": 2,
            "maxItems": 2,
            "items": {
                "properties": {
                    "score": {"minimum": 0},
                    "previous_score": NON_NEGATIVE_INT,
                    "hand": {**_TILES, "maxItems": 6},
                    "kept": {**_TILES, "maxItems": 4},
                    "go": {"type": "boolean"},
                    "computer": {"type": "boolean"},
                    "stats": {
                        "properties": {
                            key: NON_NEGATIVE_INT
                            for key in ("pegged", "hands", "crib", "best_hand", "gos")
                        },
                        "required": ["pegged", "hands", "crib", "best_hand", "gos"],
                    },
                },
                "required": ["previous_score", "hand", "kept", "go", "computer"],
            },
        },
    },
    "required": [
        "stage",
        "dealer",
        "hand",
        "target",
        "seed",
        "starter",
        "crib",
        "count",
        "count_tiles",
        "played",
        "to_discard",
        "scoring",
        "counts",
    ],
}


@register
class DominoCribbage(PickingGame):
    """Deal six, discard two to the dealer's crib, turn the starter, peg to 31
    with Go, count hands and crib with the starter, pass the deal; the first to
    the target wins the moment the point is scored."""

    id = "domino-cribbage"
    stat_bests: ClassVar[frozenset[str]] = frozenset({"best_hand"})
    highlight = Highlight("best hand", Measure.STAT, "best_hand")
    name = "Domino Cribbage"
    summary = "Cribbage with a double-six domino set: peg to 31, count 15s, pairs, runs; 61 wins."
    state_schema: ClassVar[dict[str, Any]] = {"$ref": "#/$defs/domino_cribbage"}
    schema_defs: ClassVar[dict[str, dict[str, Any]]] = {
        "tile": {
            "description": "A domino, low end first: 0-0 to 6-6.",
            "type": "string",
            "pattern": TILE_NOTATION_PATTERN,
        },
        "domino_cribbage": DOMINO_CRIBBAGE_SCHEMA,
    }
    sides_range = (2, 2)
    teams_allowed = False
    options_spec = (
        Option("target", 61, "points that win the game", choices=(61, 121)),
        Option(
            "seed",
            0,
            "shuffle seed: the same seed deals the same tiles",
            minimum=0,
            maximum=SEED_MAX,
            per_game=True,
        ),
        Option("computer", "none", "players the computer plays", choices=tuple(COMPUTER_SEATS)),
    )

    @classmethod
    def leg_options(cls, options: Mapping[str, Any], leg: int) -> dict[str, Any]:
        """Each leg of a match shuffles with its own seed, drawn from the
        match's seed and the leg's number (leg 1 keeps the match's), so a
        replay deals every leg again the same but no two legs alike."""
        chosen = dict(options)
        if leg > 1:
            seed = random.Random(f"{options['seed']}:leg {leg}").randint(0, SEED_MAX)
            chosen["seed"] = seed
        return chosen

    # ------------------------------------------------------------ the deal

    def _setup(self) -> None:
        self._target = int(self.options["target"])
        self._computer = COMPUTER_SEATS[str(self.options["computer"])]
        self._rng = random.Random(int(self.options["seed"]))
        self._scores = [0, 0]
        self._previous = [0, 0]
        self._dealer = self._first_side  # the first side deals the first hand
        self._stats = [
            {"pegged": 0, "hands": 0, "crib": 0, "best_hand": 0, "gos": 0} for _ in range(2)
        ]
        self._scoring: list[dict[str, Any]] = []
        self._counts: list[dict[str, Any]] = []
        self._deal()
        self._play_computer()

    def _deal(self) -> None:
        stock = list(DOUBLE_SIX)
        self._rng.shuffle(stock)
        dealer = self._dealer
        order = (1 - dealer, dealer)  # the dealer's opponent is dealt first
        self._hands: list[list[Tile]] = [[], []]
        for index in range(DEALT * 2):
            self._hands[order[index % 2]].append(stock[index])
        for hand in self._hands:
            hand.sort(key=_by_value)
        self._next_starter = stock[DEALT * 2]
        self._starter: Tile | None = None
        self._crib: list[Tile] = []
        self._discarded: list[list[Tile]] = [[], []]
        self._kept: list[list[Tile]] = [[], []]
        self._count = 0
        self._laid: list[tuple[int, Tile]] = []
        self._played: list[tuple[int, Tile, int, int]] = []
        """Every tile laid this hand: (player, tile, the count after it, its points)."""
        self._go = [False, False]
        self._last_layer: int | None = None
        self._stage = Stage.DISCARD
        self._player = 1 - dealer

    # ----------------------------------------------------------- public API

    def check(self, event: Event) -> None:
        """Refuse a move the rules do not allow now, naming it; changes nothing."""
        if isinstance(event, Bounce):
            raise NothingToBounceError(self._no_bounce_reason())
        if isinstance(event, Correct):
            self._correctable(event.dart)  # refuses: no visits here
            return
        if isinstance(event, Undo):
            if not self._events:
                raise NothingToUndoError("nothing to undo: no tile has been picked")
            return
        if self._outcome is not None:
            raise GameOverError("the game is over: no more moves")
        stage, hand = self._stage, self._hands[self._player]
        if isinstance(event, EndVisit):
            if stage == Stage.DISCARD:
                raise MoveError(f"NEXT: choose {self._to_discard()} more tile(s) for the crib")
            fits = [tile for tile in hand if self._fits(tile)]
            if stage == Stage.PLAY and fits:
                raise MoveError(f"no Go: {fits[0]} fits (count {self._count}); lay a tile")
            return
        if stage == Stage.SHOW:
            raise MoveError(f"{event}: the hand is counted; press NEXT for the next deal")
        if event.number not in NUMBERS or event.number > len(hand):
            raise MoveError(f"{event}: pick a tile by hitting its number, 1-{len(hand)}")
        tile = hand[event.number - 1]
        if stage == Stage.PLAY and not self._fits(tile):
            raise MoveError(f"{event}: {tile} would take the count past 31 (count {self._count})")

    def dart(self, bed: Bed) -> None:
        """A dart at number N picks the N-th tile of the hand on screen."""
        self.check(bed)
        self._scoring = []
        tile = self._hands[self._player][bed.number - 1]
        if self._stage == Stage.DISCARD:
            self._discard(tile)
        else:
            self._lay(tile)
        self._events.append(bed)
        self._play_computer()

    def end_visit(self) -> None:
        """NEXT: Go in the play, or deal the next hand after the count."""
        self.check(END_VISIT)
        self._scoring = []
        if self._stage == Stage.SHOW:
            self._dealer = 1 - self._dealer
            self._round += 1
            self._counts = []
            self._deal()
        else:
            self._say_go()
        self._events.append(END_VISIT)
        self._play_computer()

    def undo(self) -> None:
        """Take back the last pick or NEXT (and the computer's replies to it)."""
        self.check(UNDO)
        kept = self._events[:-1]
        self._reset()
        self.push_all(kept)

    @property
    def scoring(self) -> tuple[tuple[int, int, str], ...]:
        return tuple((line["player"], line["points"], line["reason"]) for line in self._scoring)

    # ------------------------------------------------------------ the moves

    def _to_discard(self) -> int:
        """Tiles the player to move still owes the crib."""
        if self._stage != Stage.DISCARD:
            return 0
        return len(self._hands[self._player]) - (DEALT - DISCARDS)

    def _fits(self, tile: Tile) -> bool:
        return self._count + tile.value <= THIRTY_ONE

    def _discard(self, tile: Tile) -> None:
        player = self._player
        self._hands[player].remove(tile)
        self._crib.append(tile)
        self._discarded[player].append(tile)
        if len(self._hands[player]) > DEALT - DISCARDS:
            return
        if player != self._dealer:
            self._player = self._dealer
            return
        self._kept = [list(hand) for hand in self._hands]
        self._crib.sort(key=_by_value)
        starter = self._next_starter
        self._starter = starter
        self._stage = Stage.PLAY
        self._player = 1 - self._dealer
        if starter.is_double:
            self._award(self._dealer, 1, "double starter")

    def _lay(self, tile: Tile) -> None:
        player = self._player
        self._hands[player].remove(tile)
        self._count += tile.value
        self._laid.append((player, tile))
        self._last_layer = player
        score = peg_score([laid.value for _, laid in self._laid])
        self._played.append((player, tile, self._count, score.points))
        for reason, points in score.lines:
            self._award(player, points, reason, pegged=True)
        if not self._go[1 - player]:
            self._player = 1 - player
        self._advance()

    def _say_go(self) -> None:
        player = self._player
        self._go[player] = True
        self._stats[player]["gos"] += 1
        self._player = 1 - player
        self._advance()

    def _advance(self) -> None:
        """Settle the play until a player has a choice to make (or the hand is done)."""
        while self._outcome is None and self._stage == Stage.PLAY:
            hands = self._hands
            if not hands[0] and not hands[1]:
                if self._count != THIRTY_ONE and self._last_layer is not None:
                    self._award(self._last_layer, 1, "last tile", pegged=True)
                self._count_hands()
                return
            if self._count == THIRTY_ONE:
                self._restart_count()
                continue
            player = self._player
            if not hands[player]:
                self._go[player] = True
            if self._go[player] and self._go[1 - player]:
                if self._last_layer is not None:
                    self._award(self._last_layer, 1, "go", pegged=True)
                self._restart_count()
                continue
            if self._go[player]:
                self._player = 1 - player
                continue
            return

    def _restart_count(self) -> None:
        """A new count from zero; the player who did not lay the last tile leads."""
        self._count = 0
        self._laid = []
        self._go = [False, False]
        leader = 1 - (self._last_layer if self._last_layer is not None else self._dealer)
        self._player = leader if self._hands[leader] else 1 - leader

    def _count_hands(self) -> None:
        """The count: the dealer's opponent's hand, the dealer's hand, then the crib."""
        starter = self._starter
        assert starter is not None
        dealer = self._dealer
        self._stage = Stage.SHOW
        self._player = 1 - dealer
        shows = (
            (1 - dealer, "hand", self._kept[1 - dealer]),
            (dealer, "hand", self._kept[dealer]),
            (dealer, "crib", self._crib),
        )
        for player, what, tiles in shows:
            counted = count_hand(tiles, starter)
            self._counts.append(
                {
                    "player": player,
                    "what": what,
                    "tiles": [tile.notation for tile in tiles],
                    **counted.as_json(),
                }
            )
            stats = self._stats[player]
            stats["crib" if what == "crib" else "hands"] += counted.total
            if what == "hand":
                stats["best_hand"] = max(stats["best_hand"], counted.total)
            self._award(player, counted.total, what)
            if self._outcome is not None:
                self._stage = Stage.OVER
                return

    def _award(self, player: int, points: int, reason: str, pegged: bool = False) -> None:
        """Score ``points``; reaching the target wins at once, so later points are not scored."""
        if points <= 0 or self._outcome is not None:
            return
        self._previous[player] = self._scores[player]
        self._scores[player] += points
        if pegged:
            self._stats[player]["pegged"] += points
        self._scoring.append({"player": player, "points": points, "reason": reason})
        if self._scores[player] >= self._target:
            self._side = self._player = player  # the winner is the one who scored
            self._finish(player, Reason.TARGET)
            self._stage = Stage.OVER

    # ------------------------------------------------------------- computer

    def _play_computer(self) -> None:
        """Make the computer's moves until a human has a choice (or the hand is counted)."""
        while (
            self._outcome is None
            and self._stage in (Stage.DISCARD, Stage.PLAY)
            and self._player in self._computer
        ):
            player = self._player
            hand = self._hands[player]
            if self._stage == Stage.DISCARD:
                for discard in choose_discards(hand, own_crib=player == self._dealer):
                    self._discard(discard)
                continue
            laid = [tile.value for _, tile in self._laid]
            play = choose_play(hand, self._count, laid, self._unseen())
            if play is None:
                self._say_go()
            else:
                self._lay(play)

    def _unseen(self) -> list[Tile]:
        """Tiles the player to move has not seen: not theirs (held, kept or
        discarded), not the starter, not laid this hand."""
        player = self._player
        seen = {*self._hands[player], *self._kept[player], *self._discarded[player]}
        seen |= {tile for _, tile, _, _ in self._played}
        if self._starter is not None:
            seen.add(self._starter)
        return [tile for tile in DOUBLE_SIX if tile not in seen]

    # ---------------------------------------------------------------- state

    def state(self) -> dict[str, Any]:
        state = super().state()
        starter = self._starter
        state.update(
            {
                "stage": self._stage.value,
                "dealer": self._dealer,
                "hand": self._round,
                "target": self._target,
                "seed": int(self.options["seed"]),
                "starter": starter.notation if starter else None,
                "crib": [tile.notation for tile in self._crib],
                "count": self._count,
                "count_tiles": [
                    {"player": player, "tile": tile.notation} for player, tile in self._laid
                ],
                "played": [
                    {"player": player, "tile": tile.notation, "count": count, "points": points}
                    for player, tile, count, points in self._played
                ],
                "to_discard": self._to_discard(),
                "scoring": list(self._scoring),
                "counts": list(self._counts),
            }
        )
        for player, entry in enumerate(state["players"]):
            entry["hand"] = [tile.notation for tile in self._hands[player]]
            entry["kept"] = [tile.notation for tile in self._kept[player]]
            entry["previous_score"] = self._previous[player]
            entry["go"] = self._go[player]
            entry["computer"] = player in self._computer
        return state

    def _side_state(self, side: int) -> dict[str, Any]:
        return {"score": self._scores[side]}

    def _player_stats(self, player: int) -> dict[str, Any]:
        return dict(self._stats[player])
