"""What both scoreboards, the display's pygame scenes and the leaderboard's
web board views, make of a state the same way, so the two never drift: a
player's label and whether they won, the X01 checkout route to show, a
game's options in words (X01's, Cricket's), Around the World's start and
track cells, Shanghai's rounds' targets; a match's words (legs and sets,
which leg, who throws first, the caller's "Game shot, and the first leg",
the cork, the called match's "Ann v Bob"). Pure: reads a :class:`StateView`
(neither client may import the other, both may import this)."""

from __future__ import annotations

from engine.beds import NUMBERS
from engine.checkout import checkout
from engine.game import DARTS_PER_VISIT
from engine.lineup import MAX_NAME_LENGTH
from mqtt_contract.match_payload import CallView, MatchView
from mqtt_contract.state_payload import cpu_label
from mqtt_contract.state_views import PlayerView, StateView
from mqtt_contract.topic_names import Phase

__all__ = [
    "MAX_CHECKOUT",
    "around_the_world_options",
    "call_line",
    "call_words",
    "cell_kind",
    "checkout_route",
    "cork_turn",
    "cork_words",
    "cricket_option_parts",
    "game_shot_words",
    "handicap_words",
    "is_winner",
    "leg_in_set",
    "leg_ordinal",
    "match_format_words",
    "match_position_words",
    "match_score_words",
    "match_winner_words",
    "player_label",
    "round_targets",
    "route_to_show",
    "shanghai_options",
    "short_name",
    "side_count",
    "side_label",
    "side_legs",
    "side_of",
    "starter_side",
    "starter_words",
    "target_of",
    "x01_option_parts",
]

MAX_CHECKOUT = 170
"""The highest score finished in three darts (double out): routes are shown at or below it."""


def short_name(name: object) -> str:
    """A player's or team's name as a scoreboard shows it: one that is longer
    than a board takes (sent by another client, kept from an older Oche) is
    cut to :data:`MAX_NAME_LENGTH` characters with an ellipsis."""
    text = str(name)
    return text if len(text) <= MAX_NAME_LENGTH else text[: MAX_NAME_LENGTH - 1] + "…"


def player_label(state: StateView, index: int | None) -> str:
    """The player's name as every screen shows it: ``Robo (CPU 6)`` for a
    computer player, with the team's name in a team game; ``?`` for no such player."""
    player = state.player(index)
    if player is None or index is None:
        return "?"
    name = short_name(player.name or f"Player {index + 1}")
    name = cpu_label(name, player.cpu.level if player.cpu is not None else None)
    team = state.team(player.team)
    return f"{name} ({short_name(team.name)})" if team is not None else name


def is_winner(state: StateView, index: int) -> bool:
    """Player ``index`` won: the winner, or a member of the winning team."""
    player = state.player(index)
    team = player.team if player is not None else None
    return state.winner == index or (team is not None and team == state.winner_team)


def checkout_route(
    remaining: int, darts: int = DARTS_PER_VISIT, out: str = "double"
) -> list[str] | None:
    """The suggested darts that finish ``remaining`` in at most ``darts``
    darts under the ``out`` rule, in notation (``["T20", "T20", "DB"]``),
    from ``engine.checkout``; ``None`` when there is none or above
    :data:`MAX_CHECKOUT`."""
    if not 0 < remaining <= MAX_CHECKOUT or not 1 <= darts <= DARTS_PER_VISIT:
        return None
    try:
        route = checkout(remaining, darts, out)
    except ValueError:  # an out rule the table does not know
        return None
    if not route:
        return None
    return [dart.notation for dart in route]


def route_to_show(state: StateView) -> list[str] | None:
    """The checkout route of the player to throw, or ``None``: the state's
    ``checkout`` hint (the engine's table or the player's own sigma), else
    :func:`checkout_route`; none once the visit is over, in the takeout, for
    a score not yet opened or above :data:`MAX_CHECKOUT`."""
    player = state.player(state.current_player)
    if player is None or state.finished or state.visit_over is not None:
        return None
    if state.phase is Phase.TAKEOUT or not player.opened:
        return None
    remaining = player.score
    if remaining is None or not 0 < remaining <= MAX_CHECKOUT:
        return None
    if player.has_checkout:
        hint = player.checkout
        if hint is None or not 1 <= len(hint) <= DARTS_PER_VISIT:
            return None
        return list(hint)
    darts_left = DARTS_PER_VISIT - len(state.visit)
    return checkout_route(remaining, darts_left, str(state.game_option("out")))


def handicap_words(player: PlayerView) -> str:
    """A player's handicap as every screen shows it: ``from 401`` (X01),
    ``spot 20:3 bull:2`` (Cricket); empty without one."""
    if player.start is not None:
        return f"from {player.start}"
    if player.spot_marks:
        return "spot " + " ".join(f"{key}:{count}" for key, count in player.spot_marks)
    return ""


def x01_option_parts(state: StateView) -> list[str]:
    """X01's options in words: ``501``, ``double in``, ``double out``, ``10 rounds``."""
    start, ring_in, out = state.option("start"), state.option("in"), state.option("out")
    parts = ["" if start is None else str(start)]
    if ring_in not in (None, "straight"):
        parts.append(f"{ring_in} in")
    parts.append(f"{'double' if out is None else out} out")
    rounds = state.option("rounds")
    if isinstance(rounds, int) and rounds > 0:
        parts.append(f"{rounds} rounds")
    return [part for part in parts if part]


def cricket_option_parts(state: StateView) -> list[str]:
    """Cricket's options in words: the mode (``cut throat``), ``10 rounds``."""
    mode = state.option("mode")
    parts = [str("standard" if mode is None else mode).replace("-", " ")]
    rounds = state.option("rounds")
    if isinstance(rounds, int) and rounds > 0:
        parts.append(f"{rounds} rounds")
    return parts


def around_the_world_options(state: StateView) -> tuple[bool, int]:
    """Around the World's ``(multi, start)``, with the game's defaults (a
    start that is no whole number as 1)."""
    start = state.game_option("start")
    whole = isinstance(start, int) and not isinstance(start, bool)
    return bool(state.game_option("multi")), start if whole else 1


def cell_kind(number: int, target: int | None, start: int, finished_side: bool) -> str:
    """How Around the World's track cell of ``number`` looks for a side aiming
    at ``target``: ``"off"`` (below the start), ``"done"``, ``"target"`` or ``"todo"``."""
    if number < start:
        return "off"
    if finished_side:
        return "done"
    if target is None:
        return "todo"
    if number == target:
        return "target"
    return "done" if number < target else "todo"


def _count(value: object) -> int:
    """A whole number above 0 from the options, else 1."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def shanghai_options(state: StateView) -> tuple[int, int]:
    """Shanghai's ``(rounds, start)``, with the game's defaults (anything but a
    whole number above 0 as 1)."""
    return _count(state.game_option("rounds")), _count(state.game_option("start"))


def round_targets(state: StateView) -> list[int]:
    """Shanghai's target number of each round, first round first (after 20 they go on at 1)."""
    rounds, start = shanghai_options(state)
    return [(start + n - 1) % NUMBERS[-1] + 1 for n in range(rounds)]


def target_of(state: StateView) -> int:
    """The number Shanghai's round being played scores on."""
    target = state.players[0].target_number if state.players else None
    if target is not None:
        return target
    targets = round_targets(state)
    return targets[min(max((state.round or 1) - 1, 0), len(targets) - 1)]


# --- match play (docs/matches.md "On the screens") ---

_ORDINALS = [
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_TENTHS = [
    "_",
    "_",
    "twentieth",
    "thirtieth",
    "fortieth",
    "fiftieth",
    "sixtieth",
    "seventieth",
    "eightieth",
    "ninetieth",
]
_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}


def leg_ordinal(number: int) -> str:
    """``number`` as the caller says it: ``first``, ``second``, ``twenty-fifth``
    (words up to 99, then ``101st``; anything below 1 as ``first``)."""
    number = max(number, 1)
    if number < len(_ORDINALS):
        return _ORDINALS[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENTHS[tens] if ones == 0 else f"{_TENS[tens]}-{_ORDINALS[ones]}"
    suffix = "th" if number % 100 in (11, 12, 13) else _SUFFIXES.get(number % 10, "th")
    return f"{number}{suffix}"


def side_count(state: StateView) -> int:
    """How many sides play: the teams in a team game, else the players."""
    return len(state.teams) if state.teams is not None else len(state.players)


def side_of(state: StateView, player: int | None) -> int | None:
    """The side player ``player`` plays for (their team, else themselves);
    ``None`` for no such player."""
    view = state.player(player)
    if view is None or player is None:
        return None
    if state.teams is not None:
        return view.team
    return player


def side_label(state: StateView, side: int) -> str:
    """A side's name: the team's in a team game, else the player's label."""
    team = state.team(side)
    if state.teams is not None:
        return short_name(team.name) if team is not None else "?"
    return player_label(state, side)


def side_legs(match: MatchView, side: int) -> tuple[int, int | None]:
    """Side ``side``'s ``(legs, sets)``: legs in this set (with sets) or in the
    match, sets ``None`` without sets; 0 for a side the lists leave out."""
    legs = match.legs_won[side] if 0 <= side < len(match.legs_won) else 0
    if match.sets_won is None:
        return legs, None
    return legs, match.sets_won[side] if 0 <= side < len(match.sets_won) else 0


def _score(counts: tuple[int, ...]) -> str:
    return "-".join(str(count) for count in counts) if counts else "0-0"


def match_score_words(state: StateView) -> str | None:
    """The match's score: ``Legs 1-0``, with sets ``Sets 1-0, legs 2-1``
    (``Legs 1-0-2`` with three sides); ``None`` for a single game."""
    match = state.match
    if not match.present:
        return None
    legs = f"egs {_score(match.legs_won)}"
    if match.sets_won is None:
        return "L" + legs
    return f"Sets {_score(match.sets_won)}, l{legs}"


def leg_in_set(match: MatchView) -> int:
    """This leg's number in its set (in the match without sets), from 1: the
    legs before it in the same set, from ``played`` (from the legs won when
    the state lists none)."""
    if match.sets_won is None and match.set is None:
        return max(match.leg, 1)
    if match.played:
        earlier = [leg for leg in match.played if leg.set == match.set and leg.leg < match.leg]
        return len(earlier) + 1
    done = sum(match.legs_won)
    return max(done if match.leg_over else done + 1, 1)


def match_position_words(state: StateView) -> str | None:
    """Which leg is played: ``Leg 3``, with sets ``Set 2, leg 3`` (the leg of
    the set); ``None`` for a single game."""
    match = state.match
    if not match.present:
        return None
    if match.set is None:
        return f"Leg {max(match.leg, 1)}"
    return f"Set {match.set}, leg {leg_in_set(match)}"


def match_format_words(state: StateView) -> str | None:
    """The format in words, ``first to 3 legs`` or ``first to 2 sets of 3
    legs``; ``None`` for a single game or a format the state leaves out."""
    match = state.match
    if not match.present or match.format is None:
        return None
    try:
        return str(match.format.format())
    except ValueError:  # a format an older or newer board sent that the engine refuses
        return None


def starter_side(state: StateView) -> int | None:
    """The side that throws (threw) first in this leg; ``None`` for a single game."""
    if not state.match.present:
        return None
    return side_of(state, state.match.starter)


def starter_words(state: StateView) -> str | None:
    """``Ann throws first`` for the leg in play (no words once it is won,
    while its cork is thrown, or in a single game)."""
    match = state.match
    if not match.present or match.finished or match.leg_over or match.cork is not None:
        return None
    if state.player(match.starter) is None:
        return None
    return f"{player_label(state, match.starter)} throws first"


def game_shot_words(leg: int, *, set_won: bool = False, match_won: bool = False) -> str:
    """What the caller says at a leg's end: ``Game shot, and the first leg``,
    ``Game shot, and the set``, ``Game shot, and the match`` (``leg`` the
    leg's number in its set, as :func:`leg_in_set` counts)."""
    if match_won:
        return "Game shot, and the match"
    if set_won:
        return "Game shot, and the set"
    return f"Game shot, and the {leg_ordinal(leg)} leg"


def match_winner_words(state: StateView) -> str | None:
    """``Ann wins the match 2-1`` (legs, or sets with sets) once the match is
    over; ``None`` before, for a draw or a single game."""
    match = state.match
    if not match.present or not match.finished or match.winner is None:
        return None
    side = side_of(state, match.winner)
    if side is None:
        return None
    counts = match.sets_won if match.sets_won is not None else match.legs_won
    return f"{side_label(state, side)} wins the match {_score(counts)}"


def cork_turn(match: MatchView) -> int | None:
    """The side to throw at the bull in a deciding leg's cork (the first
    without a dart this round); ``None`` when no cork is being thrown."""
    if match.cork is None:
        return None
    return next((side for side, bed in enumerate(match.cork) if bed is None), None)


def cork_words(state: StateView) -> str | None:
    """``Bull for the throw: Ann to throw`` while the cork is thrown; ``None`` otherwise."""
    side = cork_turn(state.match)
    if side is None:
        return None
    return f"Bull for the throw: {side_label(state, side)} to throw"


def call_line(call: CallView) -> str | None:
    """The called match's sides, ``Ann v Bob`` (a team game's ``Ann & Cy v
    Bob & Dee``; a side throwing at another board ``Bob (at pub2)``);
    ``None`` without a call."""
    if not call.present or not call.players:
        return None
    boards = {player.name: player.board for player in call.players}
    sides = (
        [list(team.players) for team in call.teams]
        if call.teams
        else [[player.name] for player in call.players]
    )
    words = []
    for side in sides:
        side_words = " & ".join(short_name(name) for name in side)
        away = {boards.get(name) for name in side}
        if len(away) == 1 and None not in away:
            side_words += f" (at {str(away.pop()).rpartition('/')[2]})"
        words.append(side_words)
    return " v ".join(words)


def call_words(state: StateView, board_name: str | None = None) -> str | None:
    """``Next: Ann v Bob on Board 2`` (without ``board_name``: ``Next: Ann v
    Bob``); ``None`` without a called match."""
    line = call_line(state.call)
    if line is None:
        return None
    return f"Next: {line}" + (f" on {board_name}" if board_name else "")
