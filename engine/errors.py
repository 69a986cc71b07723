"""Errors the engine raises. All are ``ValueError`` subclasses and quote the input."""

from __future__ import annotations

__all__ = [
    "CorrectionError",
    "EngineError",
    "GameLogError",
    "GameOverError",
    "LineupError",
    "MoveError",
    "NotationError",
    "NothingToBounceError",
    "NothingToUndoError",
    "OptionError",
    "UnknownGameError",
]


class EngineError(ValueError):
    """Base of every error the rules engine raises on bad input."""


class NotationError(EngineError):
    """A dart (or other token) that is not valid notation; ``token`` is the input."""

    def __init__(self, reason: str, *, token: str) -> None:
        super().__init__(f"{token!r}: {reason}")
        self.token = token
        self.reason = reason


class UnknownGameError(EngineError):
    """A game id that is not in the registry; the message lists the valid ids."""


class OptionError(EngineError):
    """An unknown option name or a value a game does not accept."""


class LineupError(EngineError):
    """A bad list of players or teams (count, names, membership)."""


class GameOverError(EngineError):
    """A dart thrown after the game ended and its final visit was closed."""


class MoveError(EngineError):
    """A move the rules do not allow now (a tile past 31, a Go while a tile fits)."""


class NothingToUndoError(EngineError):
    """Undo asked for while no dart has been thrown."""


class NothingToBounceError(EngineError):
    """BOUNCE asked for while there is no dart of the visit to take back."""


class CorrectionError(EngineError):
    """A correction asked for with no such dart on the board to correct."""


class GameLogError(EngineError):
    """A game log that cannot be replayed: names the line, the token and why."""

    def __init__(self, line: int, token: str, reason: str) -> None:
        where = f"line {line}" + (f", {token!r}" if token else "")
        super().__init__(f"{where}: {reason}")
        self.line = line
        self.token = token
        self.reason = reason
