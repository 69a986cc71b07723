"""Which sound cues an MQTT ``event`` calls for, and what the caller says.

Pure functions over the daemon's JSON (docs/mqtt.md, docs/state.md): no
pygame, no I/O. :mod:`display.sound_bank` turns the cue names into sounds.
Every cue comes from the ``event`` payload that says what happened (the
daemon's typed events: ``dart``, ``bust``, ``visit_end``, ``takeout``,
``player_change``, ``points``, ``winner``), never from comparing states: the
event names its game where a cue depends on it (``visit_end``'s ``game``, for
X01's ton calls) and says which cricket targets it closed (``closed``).

The display gets the events of one state change together (one dart or NEXT:
they share ``at``), e.g. the third dart of a visit publishes ``dart``,
``visit_end``, ``takeout`` and ``player_change`` at once. :func:`cues_for`
maps each event to its cues; :func:`collapse` picks what to play of a batch
so cues do not pile up on each other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from display.darts import bed_of
from engine import Award, Bed, NotationError, checkout, game_class, game_ids
from engine.beds import ALL_BEDS
from engine.x01_rules import ALLOWED_MULTIPLIERS, RING_RULES
from mqtt_contract import CorkWon, LegStarted, LegWon, MatchCalled, PayloadError, StateView
from mqtt_contract.event_payload import Award as AwardEvent
from mqtt_contract.event_payload import DaemonEvent
from mqtt_contract.scoreboard import game_shot_words

__all__ = [
    "ANNOUNCEMENT_PRIORITY",
    "AWARD_CUES",
    "CUES",
    "INTERRUPTING_CALLS",
    "RING_CUES",
    "award_caller_text",
    "award_cue",
    "award_event",
    "caller_text",
    "collapse",
    "cues_for",
    "is_checkout",
    "match_caller_text",
    "number_words",
    "reachable_finish",
    "ring_cue",
    "ton_cue",
    "visit_points",
]

CUES: tuple[str, ...] = (
    "single",
    "double",
    "triple",
    "bull",
    "miss",
    "bust",
    "close",
    "player_change",
    "takeout",
    "peg",
    "ton",
    "ton40",
    "one_eighty",
    "game_shot",
    "credit",
    "hat_trick",
    "three_in_the_black",
    "three_in_a_bed",
    "white_horse",
    "marks_5",
    "marks_6",
    "marks_7",
    "marks_8",
    "marks_9",
    "shanghai_award",
    "nine_darter",
)
"""Every cue name, in the order the docs list them."""

AWARD_CUES: dict[Award, str] = {
    Award.LOW_TON: "ton",
    Award.HIGH_TON: "ton40",
    Award.TON_80: "one_eighty",
    Award.HAT_TRICK: "hat_trick",
    Award.THREE_IN_THE_BLACK: "three_in_the_black",
    Award.THREE_IN_A_BED: "three_in_a_bed",
    Award.WHITE_HORSE: "white_horse",
    Award.FIVE_MARK: "marks_5",
    Award.SIX_MARK: "marks_6",
    Award.SEVEN_MARK: "marks_7",
    Award.EIGHT_MARK: "marks_8",
    Award.NINE_MARK: "marks_9",
    Award.SHANGHAI: "shanghai_award",
    Award.NINE_DARTER: "nine_darter",
}
"""The cue of each award id (an ``award`` event).
The ton awards share the X01 ton calls' arpeggios."""

RING_CUES = frozenset({"single", "double", "triple", "bull", "miss"})
"""The cues of a dart by its ring: the immediate feedback of a hit."""

ANNOUNCEMENT_PRIORITY: tuple[str, ...] = (
    "game_shot",
    "nine_darter",
    "shanghai_award",
    "one_eighty",
    "three_in_the_black",
    "hat_trick",
    "white_horse",
    "three_in_a_bed",
    "marks_9",
    "marks_8",
    "marks_7",
    "marks_6",
    "marks_5",
    "ton40",
    "ton",
    "bust",
    "close",
    "takeout",
    "peg",
    "credit",
    "player_change",
)
"""The other cues, most important first (see :func:`collapse`)."""

# ---------------------------------------------------------------- the cues

State = StateView


_RING_CUES = {1: "single", 2: "double", 3: "triple"}


def _cue_of(bed: Bed) -> str:
    if bed.is_miss:
        return "miss"
    if bed.is_bull:
        return "bull"
    return _RING_CUES[bed.multiplier]


def ring_cue(segment: str) -> str:
    """The cue of a dart in ``segment`` (``M``, ``SB``, ``DB``, ``S20``, ``D5``,
    ``T19``), read with ``Bed.parse``; a ``ValueError`` for anything else."""
    try:
        bed = Bed.parse(segment)
    except NotationError as error:
        raise ValueError(f"not a segment: {segment!r} ({error.reason})") from error
    return _cue_of(bed)


def ton_cue(points: int) -> str | None:
    """The call for an X01 visit of ``points``: ``ton`` (100-139), ``ton40``
    (140-179), ``one_eighty`` (180), else ``None``."""
    if points >= 180:
        return "one_eighty"
    if points >= 140:
        return "ton40"
    if points >= 100:
        return "ton"
    return None


def award_event(event: Mapping[str, Any]) -> AwardEvent | None:
    """An ``award`` event payload parsed by the contract, ``None`` for any
    other payload or a malformed one (the display then shows and plays nothing)."""
    try:
        return AwardEvent.from_json(dict(event))
    except PayloadError:
        return None


def award_cue(award: str) -> str:
    """The cue of an award id (:data:`AWARD_CUES`); a ``ValueError`` for an id
    that is none (the contract's ``award`` event never carries one)."""
    return AWARD_CUES[Award(award)]


def visit_points(event: Mapping[str, Any]) -> int:
    """What an X01 ``visit_end`` scored: nothing for a bust; otherwise the
    side's score change when the daemon knows it (so darts that did not open
    a double-in game count nothing), else the face value ``total``."""
    if event.get("visit_over") == "bust":
        return 0
    change = event.get("score_change")
    if isinstance(change, int) and not isinstance(change, bool):
        return max(0, -change)
    total = event.get("total")
    return total if isinstance(total, int) and not isinstance(total, bool) else 0


def cues_for(event: Mapping[str, Any]) -> list[str]:
    """The cues for one MQTT ``event``, from the event alone.

    ============== =====================================================
    event          cues
    ============== =====================================================
    dart           by the ring (``miss``, ``bull``, ``single``, ``double``,
                   ``triple``) when ``scored``, nothing for a dead dart;
                   ``close`` when it ``closed`` a cricket target
    visit_end      X01 (``game``): ``ton`` / ``ton40`` / ``one_eighty`` by
                   the points (not for a bust or the winning visit);
                   ``close`` when it ``closed`` a target (Cricket-Shanghai)
    bust           ``bust``
    takeout        ``takeout``
    player_change  ``player_change``
    points         ``peg`` (domino cribbage scored)
    winner         ``game_shot``
    leg_won        ``game_shot`` (each leg of a match; the match's last
                   leg's ``winner`` adds nothing more)
    credits        ``credit`` when credits came in (a coin, the operator,
                   a happy-hour bonus), nothing when spent
    award          the award's own cue (:data:`AWARD_CUES`)
    others         nothing
    ============== =====================================================
    """
    kind = event.get("type")
    cues: list[str] = []
    if kind == "dart":
        bed = bed_of(event.get("segment"))
        if event.get("scored", True) is not False and bed is not None:
            cues.append(_cue_of(bed))
    elif kind == "visit_end":
        if _calls_visit_points(event) and event.get("visit_over") is None:
            ton = ton_cue(visit_points(event))
            if ton is not None:
                cues.append(ton)
    elif kind == "bust":
        cues.append("bust")
    elif kind == "takeout":
        cues.append("takeout")
    elif kind == "player_change":
        cues.append("player_change")
    elif kind == "points":
        cues.append("peg")
    elif kind in ("winner", LegWon.type):
        cues.append("game_shot")
    elif kind == AwardEvent.type:
        awarded = award_event(event)
        if awarded is not None:
            cues.append(award_cue(awarded.award))
    elif kind == "credits":
        change = event.get("change")
        if isinstance(change, int) and change > 0:
            cues.append("credit")
    if kind in ("dart", "visit_end"):
        closed = event.get("closed")
        if isinstance(closed, list) and closed:
            cues.append("close")  # one cue however many closed at once
    return cues


def collapse(cues: Iterable[str]) -> list[str]:
    """What to play of the cues of one batch of events (one dart or NEXT):
    the dart's ring cue first, then the single most important other cue
    (:data:`ANNOUNCEMENT_PRIORITY`), so a third dart that scores 180 plays
    ``triple`` then ``one_eighty`` rather than four sounds at once."""
    cues = list(cues)
    chosen = [cue for cue in dict.fromkeys(cues) if cue in RING_CUES][:1]
    for cue in ANNOUNCEMENT_PRIORITY:
        if cue in cues:
            chosen.append(cue)
            break
    return chosen


# ------------------------------------------------------------- the caller

INTERRUPTING_CALLS = frozenset({"winner", LegWon.type})
"""The events whose line cuts the caller's line still being spoken short
(a game shot must be said; the others are skipped while it speaks)."""

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    """British English words for ``0 <= n < 1_000_000``: ``26`` is
    ``twenty-six``, ``180`` is ``one hundred and eighty``."""
    if not 0 <= n < 1_000_000:
        raise ValueError(f"number_words takes 0-999999, not {n}")
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = f"{_ONES[hundreds]} hundred"
        return head + (f" and {number_words(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    head = f"{number_words(thousands)} thousand"
    if not rest:
        return head
    return head + (" and " if rest < 100 else " ") + number_words(rest)


_FINISHING = {
    rule: tuple(
        bed.points
        for bed in ALL_BEDS
        if not bed.is_miss and bed.multiplier in ALLOWED_MULTIPLIERS[rule]
    )
    for rule in RING_RULES
}
"""The points of the darts that may finish under each out rule (the engine's rules)."""


@cache
def _finishes(out: str) -> frozenset[int]:
    finishing = _FINISHING.get(out)
    if finishing is None:
        raise ValueError(f"unknown out rule {out!r}; the rules are: {', '.join(_FINISHING)}")
    setup = {bed.points for bed in ALL_BEDS}  # a miss: a dart not needed
    return frozenset(a + b + last for a in setup for b in setup for last in finishing)


def reachable_finish(remaining: int, out: str = "double") -> bool:
    """Whether ``remaining`` can be finished in one visit (three darts) under
    the ``out`` rule, by brute force over the beds: the last dart a double
    (``double``; the inner bull is a double), a double or treble (``master``)
    or any dart (``straight``). Double out: 2-170 except 159, 162, 163, 165,
    166, 168 and 169. :func:`is_checkout`'s fallback without ``engine.checkout``."""
    return remaining in _finishes(out)


@cache
def _engine_checkout() -> Callable[..., Any] | None:
    """``engine.checkout.checkout``; tests take it away to check the fallback."""
    return checkout


def is_checkout(remaining: int, out: str = "double") -> bool:
    """Whether an X01 side on ``remaining`` can check out in one visit under
    the game's ``out`` rule (``double``, ``master`` or ``straight``): asks
    ``engine.checkout.checkout(remaining, 3, out)`` for a route, or
    :func:`reachable_finish` where the engine has no checkout table."""
    _finishes(out)  # an unknown rule is a ValueError either way
    suggest = _engine_checkout()
    if suggest is None:
        return reachable_finish(remaining, out)
    return suggest(remaining, 3, out) is not None


def caller_text(event: Mapping[str, Any], state: State | None = None) -> str | None:
    """What the spoken caller says for ``event``, or ``None`` to stay quiet.
    ``state`` (the state after the event) gives only what is left to score.

    - ``bust``: "bust"; ``winner``: "game shot" (nothing in a match: its
      last ``leg_won`` said "Game shot, and the match").
    - A match's ``leg_won``, ``cork_won``, ``leg_started`` and a called
      match's ``match_called``: :func:`match_caller_text`.
    - ``award``: :func:`award_caller_text` ("Hat trick", "Five marks").
    - X01 ``visit_end`` (its ``game``; not bust, not the winning visit): the
      visit's points in words ("one hundred and eighty", "twenty-six", "no
      score" for 0), then, when the thrower's side is left on a checkout under
      the game's ``out`` option, "you require thirty-two".
    """
    kind = event.get("type")
    if kind == "bust":
        return "bust"
    if kind == "winner":
        return None if state is not None and state.match.present else "game shot"
    if kind in _MATCH_EVENTS:
        return match_caller_text(event, state)
    if kind == AwardEvent.type:
        return award_caller_text(event)
    if kind != "visit_end" or not _calls_visit_points(event):
        return None
    if event.get("visit_over") in ("bust", "win"):
        return None  # "bust" or "game shot" was said already
    points = visit_points(event)
    text = number_words(points) if points else "no score"
    remaining = None if state is None else _remaining(event, state)
    if state is not None and remaining is not None and not state.finished:
        out = state.option("out") or "double"
        if is_checkout(remaining, str(out)):
            text += f", you require {number_words(remaining)}"
    return text


_UNSPOKEN_AWARDS = frozenset({Award.LOW_TON, Award.HIGH_TON, Award.TON_80})
"""The ton awards: the visit's score in words says them."""
_MARK_AWARDS = {
    Award.FIVE_MARK: 5,
    Award.SIX_MARK: 6,
    Award.SEVEN_MARK: 7,
    Award.EIGHT_MARK: 8,
    Award.NINE_MARK: 9,
}


def award_caller_text(event: Mapping[str, Any]) -> str | None:
    """What the caller says for an ``award`` event: its name ("Hat trick",
    "White horse", "Seven marks"); nothing for the ton awards (the visit's
    score in words says it) or an award it does not know."""
    awarded = award_event(event)
    if awarded is None:
        return None
    award = Award(awarded.award)
    if award in _UNSPOKEN_AWARDS:
        return None
    marks = _MARK_AWARDS.get(award)
    if marks is not None:
        return f"{number_words(marks).capitalize()} marks"
    words = award.label
    return "A nine-darter" if award is Award.NINE_DARTER else words[0] + words[1:].lower()


_MATCH_EVENTS: dict[str, type[DaemonEvent]] = {
    kind.type: kind for kind in (LegWon, CorkWon, LegStarted, MatchCalled)
}
"""The match's events the caller speaks for, by ``type``."""


def match_caller_text(event: Mapping[str, Any], state: State | None = None) -> str | None:
    """What the caller says for a match's event (``None`` for another, or a
    malformed one; ``state``, the state after it, names the players):

    - ``leg_won``: "Game shot, and the first leg" (the leg's number in its
      set with sets), "Game shot, and the set", "Game shot, and the match";
    - ``cork_won``: "Ann wins the cork"; ``leg_started``: "Bob to throw
      first, game on" (names from ``state``; nothing without one);
    - ``match_called``: "Next match, Ann versus Bob".
    """
    kind = _MATCH_EVENTS.get(str(event.get("type")))
    if kind is None:
        return None
    try:
        parsed = kind.from_json(dict(event))
    except PayloadError:
        return None
    if isinstance(parsed, LegWon):
        leg = parsed.leg if parsed.set is None else max(sum(parsed.legs_won), 1)
        return game_shot_words(leg, set_won=parsed.set_won, match_won=parsed.match_won)
    if isinstance(parsed, MatchCalled):
        return "Next match, " + " versus ".join(parsed.players)
    if isinstance(parsed, CorkWon):
        name = _name(state, parsed.player)
        return None if name is None else f"{name} wins the cork"
    if isinstance(parsed, LegStarted):
        name = _name(state, parsed.starter)
        return None if name is None else f"{name} to throw first, game on"
    return None


def _name(state: State | None, index: int) -> str | None:
    """Player ``index``'s name as the caller says it, ``None`` without one."""
    player = state.player(index) if state is not None else None
    return player.name if player is not None and player.name else None


def _remaining(event: Mapping[str, Any], state: State) -> int | None:
    player = event.get("player")
    thrower = state.player(player) if isinstance(player, int) else None
    score = thrower.score if thrower is not None else None
    return score if score is not None and score > 0 else None


def _calls_visit_points(event: Mapping[str, Any]) -> bool:
    """Whether the event's game has the caller say each visit's points
    (``Game.calls_visit_points``: the 01 games)."""
    game = event.get("game")
    return isinstance(game, str) and game in game_ids() and game_class(game).calls_visit_points
