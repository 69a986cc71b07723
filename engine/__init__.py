"""Oche's rules engine: pure value types, games as classes in a registry, and
the state JSON every client shows. No I/O; imports nothing else of Oche's."""

from engine.awards import Award, AwardedVisit
from engine.beds import ALL_BEDS, DB, MISS, SB, Bed
from engine.checkout import checkout, checkout_text
from engine.errors import (
    CorrectionError,
    EngineError,
    GameLogError,
    GameOverError,
    LineupError,
    NotationError,
    NothingToBounceError,
    NothingToUndoError,
    OptionError,
    UnknownGameError,
)
from engine.events import (
    BOUNCE,
    END_VISIT,
    UNDO,
    Bounce,
    Correct,
    EndVisit,
    Event,
    Undo,
    as_thrown,
    parse_event,
)
from engine.game import Game, Outcome, PickingGame, Reason, VisitOver
from engine.games import X01, Cricket, CricketShanghai
from engine.lineup import Lineup, Team
from engine.match import LegRecord, Match, MatchError
from engine.match_format import Decider, MatchFormat, MatchFormatError, Starts
from engine.options import Option, OptionValue
from engine.registry import game_class, game_ids, game_name, new_game, register
from engine.state_schema import STATE_SCHEMA

__all__ = [
    "ALL_BEDS",
    "BOUNCE",
    "DB",
    "END_VISIT",
    "MISS",
    "SB",
    "STATE_SCHEMA",
    "UNDO",
    "X01",
    "Award",
    "AwardedVisit",
    "Bed",
    "Bounce",
    "Correct",
    "CorrectionError",
    "Cricket",
    "CricketShanghai",
    "Decider",
    "EndVisit",
    "EngineError",
    "Event",
    "Game",
    "GameLogError",
    "GameOverError",
    "LegRecord",
    "Lineup",
    "LineupError",
    "Match",
    "MatchError",
    "MatchFormat",
    "MatchFormatError",
    "NotationError",
    "NothingToBounceError",
    "NothingToUndoError",
    "Option",
    "OptionError",
    "OptionValue",
    "Outcome",
    "PickingGame",
    "Reason",
    "Starts",
    "Team",
    "Undo",
    "UnknownGameError",
    "VisitOver",
    "as_thrown",
    "checkout",
    "checkout_text",
    "game_class",
    "game_ids",
    "game_name",
    "new_game",
    "parse_event",
    "register",
]
