"""One board's game as players feel it: visits, takeout, NEXT, MISS, UNDO, BOUNCE.

A :class:`GameSession` wraps an engine game and adds the board's *phase*:
``throwing`` while darts score, ``takeout`` after a visit ends (contacts made
while pulling darts out are never scored) until NEXT or the takeout timer, and
``finished``. Everything it accepts is a journal event (a dart, ``NEXT``,
``UNDO``, ``BOUNCE`` or a correction ``CORRECT2=T19``, journaled as its
token); :meth:`apply` is the only way the game changes, live and when a
journal is replayed after a crash, so the phase and the state come back
exactly as they were. It returns typed events
(the contract's, :mod:`mqtt_contract.event_payload`) built from what the game did. No I/O:
the clock is passed in.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine import (
    BOUNCE,
    END_VISIT,
    MISS,
    UNDO,
    Bed,
    Bounce,
    Correct,
    EndVisit,
    EngineError,
    Event,
    Game,
    Option,
    Outcome,
    PickingGame,
    Undo,
    VisitOver,
    game_class,
)
from engine.game import DARTS_PER_VISIT
from engine.games.cricket import MarksGame
from engine.match import Match
from engine.match_format import MatchFormat
from firmware_bridge.daemon.match_play import CORK_REFUSAL, MatchMark, crossed, leg_won
from mqtt_contract import (
    Award,
    Bust,
    Corrected,
    DaemonEvent,
    Dart,
    GameOver,
    Phase,
    PlayerChange,
    Points,
    Takeout,
    Undone,
    VisitEnd,
    Winner,
)
from mqtt_contract import Bounce as BouncedOut

__all__ = [
    "Before",
    "GameSession",
    "PickingPlay",
    "PlayStyle",
    "Refusal",
    "SessionSetup",
    "VisitPlay",
    "play_style",
]


class Refusal(ValueError):
    """Input the session will not take now (no game, visit over, nothing to undo
    or to bounce out)."""


@dataclass(frozen=True)
class SessionSetup:
    """What a game was started with; also what ``rematch`` starts again
    (a match with the same format)."""

    game: str
    options: Mapping[str, Any]
    players: Sequence[str]
    teams: Mapping[str, Sequence[str]] | None = None
    match: MatchFormat | None = None
    """A match's format (``new_game``'s ``match``); ``None``: a single game."""

    def on_board(self, geometry: str) -> SessionSetup:
        """This setup measured on the board's ``geometry`` (``[bot] geometry``):
        a game with a ``geometry`` option not given (the skill test) gets it,
        so its estimate is on the board the bots throw at; the journal keeps
        the options the game started with, so a replay measures the same."""
        spec = game_class(self.game).options_spec
        if "geometry" in self.options or not any(o.name == "geometry" for o in spec):
            return self
        return dataclasses.replace(self, options={**self.options, "geometry": geometry})

    def shuffled(self) -> SessionSetup:
        """This setup with a fresh random value for each ``per_game`` option
        not given (domino cribbage's shuffle ``seed``): each new game and each
        rematch deals differently, and the journal, which keeps the options a
        game started with, still replays it exactly."""
        drawn = {
            option.name: _draw(option)
            for option in game_class(self.game).options_spec
            if option.per_game and option.name not in self.options
        }
        return dataclasses.replace(self, options={**self.options, **drawn}) if drawn else self


def _draw(option: Option) -> int:
    low = option.minimum or 0
    high = option.maximum if option.maximum is not None else 2**31 - 1
    return low + secrets.randbelow(high - low + 1)


class Before(NamedTuple):
    """The game just before an event: whose turn, darts thrown in the visit,
    why the visit stopped scoring, whether the game was over and how."""

    player: int
    thrown: int
    over: VisitOver | None
    finished: bool
    outcome: Outcome | None = None


class PlayStyle:
    """How a kind of game is played on the board; :class:`GameSession` picks
    one at construction (:func:`play_style`) and asks it, never the game's kind."""

    quiet_takeout = False
    """True while a NEXT's misses close a visit: the player holds their darts."""

    def miss(self) -> list[Event]:
        """The events for MISS, or a :class:`Refusal`."""
        raise NotImplementedError

    def next(self, phase: Phase) -> list[Event]:
        """The events for NEXT while the game is on."""
        raise NotImplementedError

    def bounce(self, phase: Phase) -> list[Event]:
        """The events for BOUNCE, or a :class:`Refusal`."""
        raise NotImplementedError

    def before(self, event: Event, before: Before) -> None:
        """Note what ``event`` will need once applied."""

    def caused(self, event: Event, before: Before, now: float) -> list[DaemonEvent]:
        """What the applied ``event`` did, before the phase and turn settle."""
        raise NotImplementedError

    def phase_after(self, event: Event, phase: Phase) -> Phase:
        """The phase after ``event``, the game still on."""
        raise NotImplementedError


class VisitPlay(PlayStyle):
    """A game thrown in three-dart visits: a visit ends after its third dart
    (then takeout: contacts are not scored until NEXT or the timer) or at NEXT,
    whose darts not thrown are misses."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.quiet_takeout = False
        self._start_score: int | None = None
        marking = game if isinstance(game, MarksGame) else None
        # The cricket family's marks, on the event that moves them.
        self._dart_marks = marking if marking and not marking.marks_per_visit else None
        self._visit_marks = marking if marking and marking.marks_per_visit else None

    def miss(self) -> list[Event]:
        return [MISS]

    def next(self, phase: Phase) -> list[Event]:
        if phase == Phase.TAKEOUT:
            return [END_VISIT]
        # The darts not thrown are misses; the player has their darts in hand
        # already, so the misses that close the visit do not announce a takeout.
        self.quiet_takeout = True
        misses: list[Event] = [MISS] * (DARTS_PER_VISIT - len(self.game.visit))
        return [*misses, END_VISIT]

    def bounce(self, phase: Phase) -> list[Event]:
        # The last dart of the visit on the board: in takeout too (the engine
        # passed the turn at the third dart), but not once NEXT passed it.
        game = self.game
        if phase == Phase.THROWING and not game.visit and game.can_undo():
            raise Refusal(
                "no dart to take back as a bounce-out: the visit has ended; "
                "UNDO takes back darts of an earlier visit"
            )
        try:
            game.check(BOUNCE)
        except EngineError as error:
            raise Refusal(str(error)) from None
        return [BOUNCE]

    def before(self, event: Event, before: Before) -> None:
        if isinstance(event, Undo):
            self._start_score = None  # the visit it reopens may have begun earlier
        elif isinstance(event, Bed) and not before.thrown:
            self._start_score = self.game.score(before.player)

    def caused(self, event: Event, before: Before, now: float) -> list[DaemonEvent]:
        if isinstance(event, Bed):
            return self._dart_events(event, before, now)
        if isinstance(event, EndVisit) and before.thrown:
            ended = [self._visit_end(before.player, now)] if self.game.visit_over is None else []
            return ended + self._awards(now)
        return []

    def phase_after(self, event: Event, phase: Phase) -> Phase:
        game = self.game
        if isinstance(event, EndVisit):
            return Phase.THROWING
        if isinstance(event, Bed) and (not game.visit or game.visit_over):
            return Phase.TAKEOUT
        if isinstance(event, Undo):
            return Phase.TAKEOUT if game.visit_over else Phase.THROWING
        if isinstance(event, Bounce | Correct):  # a visit it closes is in takeout again
            return Phase.TAKEOUT if not game.visit or game.visit_over else Phase.THROWING
        return phase

    def _dart_events(self, bed: Bed, before: Before, now: float) -> list[DaemonEvent]:
        """The dart, and the bust and visit end it caused."""
        player, over = before.player, before.over
        number = before.thrown + 1
        marks, closed = _marks_of(self._dart_marks)
        events: list[DaemonEvent] = [
            Dart(now, player, bed.notation, bed.points, number, over is None, marks, closed)
        ]
        if self.game.visit_over == VisitOver.BUST and over != VisitOver.BUST:
            events.append(Bust(now, player))
        if number == DARTS_PER_VISIT or not self.game.visit:
            events.append(self._visit_end(player, now))
        return events + self._awards(now)

    def _awards(self, now: float) -> list[DaemonEvent]:
        """An ``award`` for each award of the visit the event just settled
        (closed, or ended the game on); none for other events, so an undo or
        a replay never announces one again."""
        game = self.game
        awarded = game.awarded
        if awarded is None:
            return []
        darts = tuple(bed.notation for bed in awarded.darts)
        name = game.lineup.players[awarded.player]
        return [
            Award(
                now, str(award), awarded.player, name, darts, awarded.points, awarded.marks, game.id
            )
            for award in awarded.awards
        ]

    def _visit_end(self, player: int, now: float) -> VisitEnd:
        """The visit just ended (or, once the game is over, the one still shown)."""
        game = self.game
        last = game.last_visit if not game.visit else None
        darts, over = (last[1], last[2]) if last else (game.visit, game.visit_over)
        start = self._start_score
        marks, closed = _marks_of(self._visit_marks)
        return VisitEnd(
            now,
            player,
            tuple(bed.notation for bed in darts),
            0 if over == VisitOver.BUST else sum(bed.points for bed in darts),
            None if start is None else game.score(player) - start,
            None if over is None else str(over),
            game.id,
            marks,
            closed,
        )


def _marks_of(game: MarksGame | None) -> tuple[int | None, tuple[str, ...] | None]:
    """The event's ``marks`` and ``closed``: what ``game``'s last event did to
    the marks (none scored, none closed when it moved none); both ``None`` for
    a game whose marks this event does not carry."""
    if game is None:
        return None, None
    marked = game.marked
    return (marked.marks, marked.closed) if marked is not None else (0, ())


class PickingPlay(PlayStyle):
    """A game played by picking (:class:`~engine.PickingGame`): no visits, so
    no takeout and no MISS; NEXT is the game's own move (Go, the next deal)."""

    def __init__(self, game: PickingGame) -> None:
        self.game = game

    def miss(self) -> list[Event]:
        raise Refusal(f"{self.game.name} has no misses: hit a number to pick, NEXT for Go")

    def bounce(self, phase: Phase) -> list[Event]:
        raise Refusal(f"{self.game.name} has no bounce-outs: a dart picks; UNDO takes a pick back")

    def next(self, phase: Phase) -> list[Event]:
        try:
            self.game.check(END_VISIT)
        except EngineError as error:
            raise Refusal(str(error)) from None
        return [END_VISIT]

    def caused(self, event: Event, before: Before, now: float) -> list[DaemonEvent]:
        return [Points(now, *line) for line in self.game.scoring]

    def phase_after(self, event: Event, phase: Phase) -> Phase:
        return Phase.THROWING


def play_style(game: Game) -> PlayStyle:
    """The way ``game`` is played on the board: by picking or in visits."""
    return PickingPlay(game) if isinstance(game, PickingGame) else VisitPlay(game)


class GameSession:
    """A game in progress on one board, with its phase and takeout timer."""

    def __init__(self, setup: SessionSetup, coalesce_ms: int = 30, takeout_s: float = 0.0) -> None:
        self.setup = setup
        self.match = Match(setup.game, setup.players, setup.options, setup.teams, setup.match)
        """The match (a single game: a match of one leg); :attr:`game` is its leg."""
        self.coalesce_s = coalesce_ms / 1000
        self.takeout_s = takeout_s
        self.phase = Phase.THROWING
        self.takeout_deadline: float | None = None
        self._last_hit_at: float | None = None
        self.play = play_style(self.game)
        self.applied = 0
        """Journal events applied so far (a computer player's dart is drawn from it)."""

    @property
    def game(self) -> Game:
        """The leg in progress, or just won: what the board's input drives."""
        return self.match.leg

    @property
    def is_finished(self) -> bool:
        """The game is over: a single game's end, a match's last leg won."""
        return self.match.is_finished

    # ------------------------------------------------------------- planning
    # Board and command input becomes journal events here; nothing changes yet.

    def plan_hit(self, bed: Bed, now: float) -> list[Event]:
        """Events for a dart the board detected; a :class:`Refusal` says why it
        is not scored (takeout, finished, a bounce within ``coalesce_ms``)."""
        if self.phase == Phase.TAKEOUT:
            raise Refusal("takeout: contacts while removing darts are not scored")
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over")
        last = self._last_hit_at
        if last is not None and 0 <= now - last < self.coalesce_s:
            raise Refusal(f"a second contact within {self.coalesce_s * 1000:g} ms: one dart")
        self._check(bed)
        self._last_hit_at = now
        return [bed]

    def plan_manual_dart(self, bed: Bed) -> list[Event]:
        """Events for a dart entered by hand (a dead segment): no coalescing."""
        self._require_throwing("a dart")
        self._check(bed)
        return [bed]

    def plan_miss(self) -> list[Event]:
        """MISS: a dart that missed the board or bounced out."""
        self._require_throwing("a miss")
        return self.play.miss()

    def plan_next(self) -> list[Event]:
        """NEXT: end takeout, or end the visit early (unthrown darts are misses);
        Go or the next deal in a game played by picking."""
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over: start a new game or a rematch")
        if self.match.cork is not None:
            raise Refusal(CORK_REFUSAL)
        if self.match.leg_over:
            return [END_VISIT]  # the next leg (or its cork)
        return self.play.next(self.phase)

    def plan_bounce(self) -> list[Event]:
        """BOUNCE: the last dart of the visit bounced out; it becomes a miss
        counted as a bounce-out (a win or bust it made is taken back, so a
        bounced winning dart reopens the game). A :class:`Refusal` when the
        visit on the board has no dart to take back."""
        if self.match.cork is not None:
            raise Refusal(CORK_REFUSAL)
        return self.play.bounce(self.phase)

    def plan_correct(self, dart: int, bed: Bed) -> list[Event]:
        """CORRECT: dart ``dart`` (1-based) of the visit on the board (the
        visit in progress, in takeout the visit just thrown, once finished the
        final one) really hit ``bed``. A :class:`Refusal` says why not: no
        visit on the board, no such dart, the dart is ``bed`` already."""
        if self.match.cork is not None:
            raise Refusal(CORK_REFUSAL)
        game = self.game
        if self.phase == Phase.THROWING and not game.visit and game.on_board():
            raise Refusal(
                "no visit on the board to correct; UNDO takes back darts of an earlier visit"
            )
        correction = Correct(dart, bed)
        try:
            game.check(correction)
        except EngineError as error:
            raise Refusal(str(error)) from None
        if game.on_board()[dart - 1] == bed:
            raise Refusal(f"dart {dart} counts as {bed.notation} already: nothing to correct")
        return [correction]

    def plan_undo(self) -> list[Event]:
        """UNDO: the last dart back, in a match across a leg's start too."""
        if not self.match.can_undo():
            raise Refusal("nothing to undo: no dart has been thrown")
        return [UNDO]

    def due(self, now: float) -> list[Event]:
        """Events the takeout timer owes at ``now`` (``NEXT`` once it ran out)."""
        deadline = self.takeout_deadline
        if self.phase == Phase.TAKEOUT and deadline is not None and now >= deadline:
            return [END_VISIT]
        return []

    def _check(self, event: Bed) -> None:
        """A dart the game would refuse (a domino past 31) is refused here,
        before it is journaled."""
        try:
            self.match.check(event)
        except EngineError as error:
            raise Refusal(str(error)) from None

    def _require_throwing(self, what: str) -> None:
        if self.phase == Phase.TAKEOUT:
            raise Refusal(f"the visit is over: press NEXT before {what}")
        if self.phase == Phase.FINISHED:
            raise Refusal("the game is over")

    # -------------------------------------------------------------- applying

    def apply(self, event: Event, now: float) -> list[DaemonEvent]:
        """Apply one journal event; returns the events it caused (MQTT ``event``
        payloads). The same events in the same order always give the same game
        and phase."""
        match, game = self.match, self.game
        before = Before(
            self._up(), len(game.visit), game.visit_over, game.is_finished, game.outcome()
        )
        mark = MatchMark.of(match)
        self.play.before(event, before)
        events: list[DaemonEvent] = []
        if isinstance(event, Undo):
            match.push(event)
            events.append(Undone(now, self._up()))
        elif isinstance(event, Bounce):
            taken = game.bounceable()
            match.push(event)
            assert taken is not None  # the push raised otherwise
            events.append(BouncedOut(now, taken[0], taken[1].notation))
        elif isinstance(event, Correct):
            events += self._correct(event, before, now)
        else:
            match.push(event)
        if mark.crossed(match):
            self.play = play_style(self.game)  # another leg: its own visits
            events += crossed(match, mark, event, now)
        else:
            events += self.play.caused(event, before, now)
        events += self._settle(event, before, mark, now)
        self.applied += 1
        return events

    def _correct(self, event: Correct, before: Before, now: float) -> list[DaemonEvent]:
        """Apply a correction: the ``corrected`` event, and the bust it makes."""
        game, player = self.game, self.thrower()
        self.match.check(event)
        was = game.on_board()[event.dart - 1]
        self.match.push(event)
        events: list[DaemonEvent] = [
            Corrected(now, player, event.dart, was.notation, event.bed.notation)
        ]
        if game.visit_over == VisitOver.BUST and before.over != VisitOver.BUST:
            events.append(Bust(now, player))
        return events

    def _up(self) -> int:
        """Who throws next: the cork's thrower during a cork, else the leg's player up."""
        cork = self.match.cork_thrower
        return self.game.current_player if cork is None else cork

    def thrower(self) -> int:
        """The player whose visit is on the board: the one throwing (a cork
        dart's thrower during a cork), or in takeout the one whose visit just
        ended (the turn has passed already unless the visit stopped early,
        e.g. a bust)."""
        game = self.game
        last = game.last_visit
        if self.phase == Phase.TAKEOUT and not game.visit and last is not None:
            return last[0]
        return self._up()

    def _phase_after(self, event: Event, mark: MatchMark) -> Phase:
        """The phase after ``event``: finished at the match's end, takeout
        after a won leg (NEXT starts the next), throwing during a cork."""
        match = self.match
        if match.is_finished:
            return Phase.FINISHED
        if match.leg_over:
            return Phase.TAKEOUT
        if match.cork is not None or mark.cork_thrower is not None:
            return Phase.THROWING
        return self.play.phase_after(event, self.phase)

    def _settle(
        self, event: Event, before: Before, mark: MatchMark, now: float
    ) -> list[DaemonEvent]:
        """The phase after ``event``, and the events its change causes."""
        game, play, match = self.game, self.play, self.match
        old = self.phase
        events: list[DaemonEvent] = []
        self.phase = self._phase_after(event, mark)
        if self.phase == Phase.TAKEOUT and old != Phase.TAKEOUT:
            self.takeout_deadline = now + self.takeout_s if self.takeout_s > 0 else None
            if not play.quiet_takeout:
                events.append(Takeout(now, before.player))
        if isinstance(event, EndVisit):
            play.quiet_takeout = False
        elif self.phase != Phase.TAKEOUT:
            self.takeout_deadline = None
        up = self._up()
        if up != before.player and not game.is_finished:
            events.append(PlayerChange(now, up, before.player))
        if game is not mark.leg:
            return events  # a leg starting, or reopened: no outcome is new
        outcome = game.outcome()
        # A bounce-out or a correction may re-decide a finished game (the last
        # dart of a round-limited game): announce the new outcome.
        redecided = isinstance(event, Bounce | Correct) and outcome != before.outcome
        if outcome is not None and (not before.finished or redecided):
            won = leg_won(match, mark, now)
            if won is not None:
                events.append(won)
            final = match.outcome()
            if final is not None:
                if final.winner is not None:
                    events.append(Winner(now, final.winner, final.team))
                events.append(GameOver(now, str(final.reason), final.winner))
        return events

    # ---------------------------------------------------------------- views

    def state(self) -> dict[str, Any]:
        """The engine's state JSON (a match's: the leg's, with its ``match``
        block) plus the board phase."""
        return {**self.match.state(), "phase": self.phase.value}
