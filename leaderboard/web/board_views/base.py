"""What every game's web view shares: :class:`GameView` (the hooks a game's
view fills, as :class:`display.scenes.base.Scene` has them for the pygame
scoreboard), the seats (a player as the board shows them: the label with
``(CPU 6)``, whose turn, out, won), the darts in words for a screen reader,
the visit on the board and the banners. Pure: reads a
:class:`mqtt_contract.StateView`, renders nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine import EngineError
from engine.beds import Bed
from engine.x01_rules import as_scored
from leaderboard.web.board_views.match import match_banners, match_turn_text
from mqtt_contract import Phase, PlayerView, StateView
from mqtt_contract.award_words import award_title, ranked_awards
from mqtt_contract.scoreboard import is_winner, player_label, short_name

__all__ = [
    "Banner",
    "GameView",
    "Seat",
    "VisitDart",
    "banners",
    "bed_of",
    "bed_words",
    "format_value",
    "is_winner",
    "last_visit_text",
    "player_label",
    "points_of",
    "seats",
    "turn_text",
    "visit_awards_text",
    "visit_on_board",
]

_RINGS = {1: "single", 2: "double", 3: "treble"}


def format_value(value: Any) -> str:
    """A figure or game key as text: floats with one decimal, a dash for none."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    if value is None:
        return "-"
    if isinstance(value, Mapping):
        return " ".join(f"{key} {format_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(format_value(item) for item in value)
    return str(value)


def bed_of(notation: str) -> Bed | None:
    """The bed a dart's notation names, ``None`` for text that is no bed."""
    try:
        return Bed.parse(notation)
    except EngineError:
        return None


def bed_words(notation: str) -> str:
    """A dart as a screen reader says it: ``treble 20``, ``outer bull``, ``miss``."""
    bed = bed_of(notation)
    if bed is None:
        return notation
    if bed.is_miss:
        return "miss"
    if bed.is_bull:
        return "outer bull" if bed.multiplier == 1 else "bullseye"
    return f"{_RINGS[bed.multiplier]} {bed.number}"


def points_of(darts: Sequence[str], bull: str = "split") -> int:
    """The face points of darts in notation (text that is no bed counts 0),
    the outer bull 50 under the ``fat`` bull (X01's, Count-Up's ``bull`` option)."""
    beds = (bed_of(dart) for dart in darts)
    return sum(as_scored(bed, bull).points for bed in beds if bed is not None)


def _bull(state: StateView) -> str:
    """The game's ``bull`` option (``split`` for a game without one)."""
    return str(state.option("bull") or "split")


@dataclass(frozen=True)
class Seat:
    """One player as the scoreboard shows them."""

    index: int
    player: PlayerView
    label: str
    up: bool
    """The player to throw (the game still on)."""
    won: bool
    out: bool
    first: bool = False
    """In a match: the player throws (threw) first in this leg."""


def seats(state: StateView) -> list[Seat]:
    """Every player of the state, in seat order."""
    return [
        Seat(
            index=index,
            player=player,
            label=player_label(state, index),
            up=index == state.current_player and not state.finished,
            won=state.finished and is_winner(state, index),
            out=player.out,
            first=_starts(state, index),
        )
        for index, player in enumerate(state.players)
    ]


def _starts(state: StateView, index: int) -> bool:
    """Player ``index`` throws first in this leg of a match (no marker during a cork, nor after)."""
    match = state.match
    return match.present and match.starter == index and match.cork is None and not match.finished


@dataclass(frozen=True)
class VisitDart:
    """A dart of the visit on the board: its 1-based number, notation and words."""

    number: int
    notation: str
    words: str
    points: int


def visit_on_board(state: StateView) -> tuple[list[VisitDart], int | None]:
    """The visit on the board and whose it is: the visit in progress, or in
    takeout (and once finished) the visit just thrown."""
    darts: Sequence[str] = state.visit
    player = state.current_player
    last = state.last_visit
    if not darts and last is not None and state.phase in (Phase.TAKEOUT, Phase.FINISHED):
        darts, player = last.darts, last.player
    return [
        VisitDart(number, dart, bed_words(dart), points_of([dart], _bull(state)))
        for number, dart in enumerate(darts, start=1)
    ], player


def turn_text(state: StateView) -> str:
    """Whose turn it is, in words (for everyone, and for a screen reader)."""
    in_match = match_turn_text(state)
    if in_match is not None:
        return in_match
    if state.finished:
        winners = [player_label(state, i) for i in range(len(state.players)) if is_winner(state, i)]
        if state.winner_team is not None and state.team(state.winner_team) is not None:
            team = state.team(state.winner_team)
            assert team is not None
            return f"Game over: {short_name(team.name)} win"
        return f"Game over: {winners[0]} wins" if winners else "Game over: a draw"
    if state.current_player is None or not state.players:
        return ""
    name = player_label(state, state.current_player)
    if state.phase is Phase.TAKEOUT:
        return f"Takeout: {name} next, press NEXT once the darts are out"
    return f"{name} to throw"


def visit_awards_text(state: StateView) -> str:
    """The awards of the visit on the board (:func:`visit_on_board`), named as
    every screen names them, the headline first (``TON 80!``); ``""`` for none:
    the visit that ended the game (``visit_awards``), or in takeout and once
    finished the visit just thrown (``last_visit.awards``)."""
    awards: tuple[str, ...] = ()
    if state.visit:
        awards = state.visit_awards
    elif state.last_visit is not None and state.phase in (Phase.TAKEOUT, Phase.FINISHED):
        awards = state.last_visit.awards
    return " + ".join(award_title(award) for award in ranked_awards(awards))


def last_visit_text(state: StateView) -> str | None:
    """The visit that ended last: ``Ann: T20 T20 S5 (105)``, a bust said so,
    its awards after it (``Ann: T20 T20 T20 (180) · TON 80!``)."""
    last = state.last_visit
    if last is None or not last.darts or last.player is None:
        return None
    total = "bust" if last.visit_over == "bust" else str(points_of(last.darts, _bull(state)))
    text = f"{player_label(state, last.player)}: {' '.join(last.darts)} ({total})"
    awards = " + ".join(award_title(award) for award in ranked_awards(last.awards))
    return f"{text} · {awards}" if awards else text


@dataclass(frozen=True)
class Banner:
    """A line above the scoreboard: what the board is doing besides the game."""

    kind: str
    """``offline``, ``takeout``, ``bust``, ``remote``, ``waiting``, ``finished``; in a
    match ``cork``, ``decider``, ``leg-won``."""
    text: str


def _board_name(state: StateView, address: str) -> str:
    entry = next((b for b in state.remote.boards if b.board == address), None)
    if entry is not None and entry.name:
        return entry.name
    return address.rsplit("/", 1)[-1]


def banners(state: StateView, availability: str) -> list[Banner]:
    """The banners for ``state`` on a board whose daemon is ``availability``."""
    found: list[Banner] = []
    if availability == "offline":
        found.append(Banner("offline", "Board offline: showing its last state"))
    remote = state.remote
    if state.phase is Phase.WAITING_REMOTE and remote.present:
        names = [_board_name(state, w) for w in remote.waiting]
        text = f"Waiting for {', '.join(names)}" if names else "Waiting for the remote match"
        found.append(Banner("waiting", text))
    elif remote.present and remote.throwing_at and state.game and not state.finished:
        found.append(
            Banner("remote", f"Remote match: throwing at {_board_name(state, remote.throwing_at)}")
        )
    elif remote.present:
        found.append(Banner("remote", "Remote match"))
    in_match = match_banners(state)
    found.extend(Banner(kind, text) for kind, text in in_match)
    leg_won = any(kind == "leg-won" for kind, _ in in_match)
    if state.phase is Phase.TAKEOUT and not leg_won:
        found.append(Banner("takeout", "Takeout: remove the darts, then NEXT"))
    if state.visit_over == "bust" or (
        state.phase is Phase.TAKEOUT
        and not state.visit
        and state.last_visit is not None
        and state.last_visit.visit_over == "bust"
    ):
        found.append(Banner("bust", "Bust"))
    if state.finished and not leg_won:
        found.append(Banner("finished", turn_text(state)))
    return found


class GameView:
    """One game's web view: the template of its scoreboard's body and the
    hooks it reads. The base is the generic scoreboard's behaviour."""

    template: ClassVar[str] = "board_views/generic.html"
    """The body of the board page's scoreboard (under templates/)."""
    card_template: ClassVar[str | None] = None
    """What the TV's card adds under its players (the cricket marks), if anything."""

    def subtitle(self, state: StateView) -> str:
        """The options, after the game's name."""
        return " · ".join(f"{key} {format_value(value)}" for key, value in state.options)

    def round_label(self, state: StateView) -> str:
        """What the header says about the round."""
        return "" if state.round is None else f"Round {state.round}"

    def context(self, state: StateView) -> Mapping[str, Any]:
        """What the game's template reads beyond the seats and the state."""
        return {}

    def card_score(self, state: StateView, seat: Seat) -> str:
        """The figure the TV's card shows beside a player: the score."""
        return format_value(seat.player.score)
