"""What both scoreboards, the display's pygame scenes and the leaderboard's
web board views, make of a state the same way, so the two never drift: a
player's label and whether they won, the X01 checkout route to show, a
game's options in words (X01's, Cricket's), Around the World's start and
track cells, Shanghai's rounds' targets. Pure: reads a :class:`StateView`
(neither client may import the other, both may import this)."""

from __future__ import annotations

from engine.beds import NUMBERS
from engine.checkout import checkout
from engine.game import DARTS_PER_VISIT
from engine.lineup import MAX_NAME_LENGTH
from mqtt_contract.state_payload import cpu_label
from mqtt_contract.state_views import StateView
from mqtt_contract.topic_names import Phase

__all__ = [
    "MAX_CHECKOUT",
    "around_the_world_options",
    "cell_kind",
    "checkout_route",
    "cricket_option_parts",
    "is_winner",
    "player_label",
    "round_targets",
    "route_to_show",
    "shanghai_options",
    "short_name",
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
