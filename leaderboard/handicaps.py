"""Fair handicaps from the players' figures: an X01 start per player, or
Cricket spot marks, so the weaker player needs as many darts as the stronger.

X01: a leg from ``start`` takes about ``3 * start / average`` darts (the
three-dart average counts every dart of a leg, checkout darts included), so a
player with average ``a`` starts from ``start * a / best`` where ``best`` is
the strongest player's average. Cricket: closing everything takes 21 marks,
about ``21 / mpr`` rounds, so a player with MPR ``m`` gets ``21 * (1 - m /
best)`` marks, given on the bull first, then 15, 16, ... upward (the hardest
target first, then the numbers that score least), at most 20. The formula
is the engine's (``engine.handicap``), which the board's lobby uses too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import game_class
from engine.handicap import Handicap, cricket_spot_marks, takes_handicaps, x01_starts
from engine.traits import Family

__all__ = [
    "NoFiguresError",
    "PlayerForm",
    "Suggestion",
    "handicap_report",
    "suggest_handicaps",
]

_FIGURE = {Family.COUNTDOWN: "three_dart_average", Family.MARKS: "mpr"}
"""The figure of the leaderboard a family's handicap is made from."""


class NoFiguresError(ValueError):
    """No handicap can be suggested: a game without handicaps, or a player
    without the game's figure (the message says which)."""


@dataclass(frozen=True, slots=True)
class PlayerForm:
    """A player's figure the suggestion is made from (their X01 three-dart
    average or Cricket MPR) and their rating, as the leaderboard has them."""

    name: str
    figure: float
    rating: float | None = None


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One player's suggested handicap, with the figure it came from."""

    form: PlayerForm
    handicap: Handicap

    def player_json(self) -> dict[str, object]:
        """The player as ``new_game``'s players take it: name and handicap."""
        line: dict[str, object] = {"name": self.form.name}
        if self.handicap.start is not None:
            line["start"] = self.handicap.start
        if self.handicap.marks:
            line["marks"] = self.handicap.marks_json
        return line


def suggest_handicaps(
    forms: Sequence[PlayerForm], countdown: bool, start: int = 501
) -> tuple[Suggestion, ...]:
    """The handicaps for ``forms``: X01 starts from ``start`` (``countdown``)
    or Cricket spot marks."""
    figures = [form.figure for form in forms]
    if countdown:
        handicaps = tuple(Handicap(start=own) for own in x01_starts(figures, start))
    else:
        handicaps = cricket_spot_marks(figures)
    return tuple(
        Suggestion(form, handicap) for form, handicap in zip(forms, handicaps, strict=True)
    )


def handicap_report(
    game: str, rows: Sequence[Mapping[str, Any]], players: Sequence[str], start: int = 501
) -> dict[str, Any]:
    """The suggestion for ``players`` (two or more) from ``game``'s all-time
    table ``rows`` (as ``oche leaderboard show --json`` prints them): each
    player's figure, rating and handicap, and the ``new_game`` command that
    plays them; a :class:`NoFiguresError` says why there is none."""
    played = game_class(game)
    if not takes_handicaps(played) or played.family not in _FIGURE:
        raise NoFiguresError(f"{game} takes no handicaps: they are for x01 and cricket")
    if len(players) < 2:
        raise NoFiguresError("name two players or more: a handicap evens a game out")
    figure = _FIGURE[played.family]
    by_name = {str(row["player"]).casefold(): row for row in rows}
    forms = []
    for name in players:
        row = by_name.get(name.strip().casefold())
        if row is None or not row.get(figure):
            raise NoFiguresError(f"{name!r} has no {game} games with a {figure} to go by")
        forms.append(PlayerForm(str(row["player"]), float(row[figure]), row.get("rating")))
    suggestions = suggest_handicaps(forms, played.family is Family.COUNTDOWN, start)
    lines = [suggestion.player_json() for suggestion in suggestions]
    return {
        "game": game,
        "figure": figure,
        "players": [
            {**line, figure: s.form.figure, "rating": s.form.rating}
            for line, s in zip(lines, suggestions, strict=True)
        ],
        "new_game": {"command": "new_game", "game": game, "players": lines},
    }
