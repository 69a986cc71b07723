"""The game setup being made on the display, as electronic boards do it.

:class:`SetupModel` is pure (no pygame, no I/O): it holds the choice being
made, step by step (game, then its options one at a time, then the number of
players, then a last look with the teams and the start), and builds the
``new_game`` command (docs/mqtt.md) when asked to start. Every step offers a
short numbered list of choices; :meth:`SetupModel.select` picks the n-th one,
so a dart in any bed of number n (single, double or treble) picks choice n
(:func:`segment_number`). The board's buttons map to :meth:`SetupModel.press`:
GAME goes to the game step or on to the next game, PLAYER adds a player
(8 wraps to 1), NEXT confirms the highlighted choice and START sends.

With a daemon that holds a lobby (the state's ``lobby``, docs/players.md)
the number of players gives way to the ``lobby`` step, **Players**: the
lobby's suggestions (the venue's regulars, then the last players at this
board) and whoever joined already, as a numbered list, :data:`PAGE_SIZE` a
page (PLAYER turns the page), then "Guest" and "Done". Picking a player
returns a ``join`` command (``{"id": n}`` for a roster player, else
``{"name": ...}``), picking one who joined returns ``leave``, "Guest" joins
the next free ``Guest n``; the lobby itself is the daemon's, so what the
list shows as joined is what the state says. "Done" goes on to the last
look with the lobby's players, or, with nobody in the lobby, to the number
of players as before. The game then starts with ``new_game`` without
``players`` (the daemon takes the lobby's, with their player ids), or with
the players' names when teams or a computer opponent are chosen.

The last look also offers a computer opponent: the ``computer`` step lists
levels 1-10 (a dart in bed n picks level n) and "None"; with a level, the
last player is the computer (``{"name": "Computer", "cpu": n}`` in the
command, docs/bots.md). A game played by picking (domino cribbage, which has
its own ``computer`` option) does not offer it.

Only lineups the chosen game takes can be chosen (``Game.takes_lineup``):
Domino Cribbage keeps two players and no teams, English Cricket with more
than two players is played in two teams. A count the game does not take is
shown but refused with the game's rule.

The command is checked with the engine (``engine.new_game``) before it is
returned, so the daemon gets only a game it will start. ``per_game``
options (a shuffle seed) are neither offered nor sent: the daemon draws a
fresh value for each game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from display.darts import bed_of
from display.lobby import guest_name, in_lobby, lobby_names, name_key
from engine import EngineError, Option, OptionValue, PickingGame, game_class, game_ids, new_game
from engine.beds import NUMBERS
from engine.bot_targets import LEVELS, TARGET_AVERAGES
from engine.lineup import MAX_PLAYERS
from mqtt_contract.lobby_payload import LobbyState

__all__ = [
    "BUTTONS",
    "INT_STEPS",
    "MAX_NAME",
    "PAGE_SIZE",
    "STEPS",
    "Choice",
    "Pick",
    "SetupModel",
    "offered_options",
    "option_values",
    "segment_number",
]

STEPS = ("game", "options", "lobby", "players", "confirm", "computer")
"""The steps of a setup, in order (``lobby`` only with a daemon that holds a
lobby, ``players`` without one or with an empty lobby; ``computer`` is
reached from ``confirm`` and goes back to it)."""

PAGE_SIZE = 6
"""Players a page of the ``lobby`` step lists (then "Guest" and "Done": eight tiles)."""

COMPUTER_NAME = "Computer"
"""The computer player's name, unless its seat was given a name."""

BUTTONS = ("game", "player", "start", "next")
"""The board buttons the setup answers to."""

INT_STEPS = (0, 5, 10, 15, 20, 25, 30)
"""The values offered for a whole-number option without choices (``rounds``)."""

MAX_NAME = 16
"""The longest player name typed on the display."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One numbered tile: its label, a smaller detail line, and whether it
    is the current value (drawn marked)."""

    label: str
    detail: str = ""
    current: bool = False


@dataclass(frozen=True, slots=True)
class Pick:
    """A player the ``lobby`` step offers: a suggestion, or one who joined."""

    name: str
    player_id: int | None
    regular: bool
    joined: bool

    def ref(self) -> dict[str, object]:
        """The player as ``join`` and ``leave`` name one: by roster id, else by name."""
        return {"id": self.player_id} if self.player_id is not None else {"name": self.name}


def segment_number(segment: object) -> int | None:
    """The number of a bed in notation (``S5``, ``D5`` and ``T5`` are 5);
    ``None`` for a miss, the bulls and anything else."""
    bed = bed_of(segment)
    return bed.number if bed is not None and bed.number in NUMBERS else None


def offered_options(spec: Sequence[Option]) -> tuple[Option, ...]:
    """The options of ``spec`` the setup offers: all but the ``per_game`` ones
    (choosing a shuffle seed from a few tiles would only ever deal the same
    few games; left out, the daemon deals each game from a fresh seed) and
    those not ``offered`` (a measured spread comes from elsewhere)."""
    return tuple(option for option in spec if not option.per_game and option.offered)


def option_values(option: Option) -> tuple[OptionValue, ...]:
    """The values the setup offers for ``option``: its choices; off and on
    for a flag; a few round numbers within its bounds for a whole number;
    else its default only. The default is always among them."""
    if option.choices:
        values: tuple[OptionValue, ...] = option.choices
    elif isinstance(option.default, bool):
        values = (False, True)
    elif isinstance(option.default, int):
        low = option.minimum if option.minimum is not None else 0
        high = option.maximum if option.maximum is not None else max(INT_STEPS)
        values = tuple(v for v in INT_STEPS if low <= v <= high) or (low,)
    else:
        values = (option.default,)
    if option.default not in values:
        values = (option.default, *values)
    return values


def value_text(value: OptionValue) -> str:
    """An option value as a tile's label."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


class SetupModel:
    """The setup in progress. ``step`` is one of :data:`STEPS`; ``highlight``
    the 0-based index of the highlighted choice; ``error`` the engine's
    word when the last start was refused."""

    def __init__(self, games: Sequence[str] | None = None) -> None:
        self.games: tuple[str, ...] = tuple(games) if games is not None else game_ids()
        if not self.games:
            raise ValueError("no games to set up")
        self.step = "game"
        self.highlight = 0
        self.game = self.games[0]
        self.options: dict[str, OptionValue] = {}
        self.option_index = 0
        self.player_count = 2
        self.names = [f"Player {i + 1}" for i in range(MAX_PLAYERS)]
        self.teams = False
        self.computer: int | None = None
        """The computer opponent's level (it is the last player), or ``None``."""
        self.lobby: LobbyState | None = None
        """The daemon's lobby (the state's), ``None`` for a daemon without one."""
        self.page = 0
        """The page of the ``lobby`` step's list."""
        self.error: str | None = None
        self._reset_options()

    # ------------------------------------------------------------- views

    @property
    def spec(self) -> tuple[Option, ...]:
        """The chosen game's options the setup offers (see :func:`offered_options`)."""
        return offered_options(game_class(self.game).options_spec)

    @property
    def current_option(self) -> Option | None:
        """The option being chosen in the options step."""
        spec = self.spec
        return spec[self.option_index] if 0 <= self.option_index < len(spec) else None

    @property
    def teams_allowed(self) -> bool:
        """Two teams are possible: two or more players, and the game takes teams."""
        return self.player_count >= 2 and self._takes(self.player_count, teams=True)

    def count_allowed(self, count: int) -> bool:
        """The game takes ``count`` players, alone or in two teams."""
        return self._takes(count, teams=False) or (count >= 2 and self._takes(count, teams=True))

    @property
    def computer_allowed(self) -> bool:
        """A computer opponent is possible: two or more players (with the
        lobby's players: one or more, the computer joins them), in a game
        thrown at the board."""
        if issubclass(game_class(self.game), PickingGame):
            return False
        if self.from_lobby:
            return len(self.lobby_players()) < MAX_PLAYERS
        return self.player_count >= 2

    @property
    def from_lobby(self) -> bool:
        """The players are the lobby's: the daemon holds one, and someone joined it."""
        return bool(self.lobby_players())

    def lobby_players(self) -> tuple[str, ...]:
        """The names of the players in the daemon's lobby, in the order they joined."""
        return lobby_names(self.lobby, MAX_PLAYERS)

    def picks(self) -> tuple[Pick, ...]:
        """Whom the ``lobby`` step lists: the lobby's suggestions, then the
        players who joined without being among them (a guest, a phone's new name)."""
        lobby = self.lobby
        if lobby is None:
            return ()
        picks = [
            Pick(s.name, s.player_id, s.regular, in_lobby(lobby, s.name, s.player_id) is not None)
            for s in lobby.suggestions
        ]
        shown = {(p.player_id, name_key(p.name)) for p in picks}
        ids = {p.player_id for p in picks if p.player_id is not None}
        for player in lobby.players:
            known = player.player_id in ids or (player.player_id, name_key(player.name)) in shown
            if not known:
                picks.append(Pick(player.name, player.player_id, False, True))
        return tuple(picks)

    @property
    def pages(self) -> int:
        """How many pages the ``lobby`` step's list takes (at least one)."""
        return max(1, -(-len(self.picks()) // PAGE_SIZE))

    def page_picks(self) -> tuple[Pick, ...]:
        """The players on the ``lobby`` step's current page."""
        page = min(self.page, self.pages - 1)
        return self.picks()[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]

    def set_lobby(self, lobby: LobbyState | None) -> None:
        """The daemon's lobby as the latest state has it: the players follow it."""
        self.lobby = lobby
        if self.step == "lobby" and lobby is None:
            self._go("players")  # the daemon went (or is an older one)
        self._fit_lineup()

    @property
    def computer_level(self) -> int | None:
        """The computer opponent's level when it plays (:attr:`computer` and allowed)."""
        return self.computer if self.computer_allowed else None

    def players(self) -> list[str]:
        """The names of the players, in order: the lobby's (and the computer
        after them), or those typed (an empty name is the default; the
        computer's seat defaults to "Computer")."""
        if self.from_lobby:
            joined = list(self.lobby_players())
            return [*joined, COMPUTER_NAME] if self.computer_level is not None else joined
        names = [self.names[i].strip() or f"Player {i + 1}" for i in range(self.player_count)]
        last = self.player_count - 1
        if self.computer_level is not None and names[last] == f"Player {last + 1}":
            names[last] = COMPUTER_NAME  # a seat nobody named
        return names

    def team_members(self) -> dict[str, list[str]]:
        """Two teams, the players alternating (1, 3, ... and 2, 4, ...); empty without teams."""
        if not (self.teams and self.teams_allowed):
            return {}
        players = self.players()
        return {"Team 1": players[0::2], "Team 2": players[1::2]}

    def title(self) -> str:
        """What the current step asks."""
        if self.step == "game":
            return "Choose a game"
        if self.step == "options":
            option = self.current_option
            return f"{option.name.capitalize()}: {option.help}" if option else "Options"
        if self.step == "players":
            return "How many players?"
        if self.step == "lobby":
            pages = f" (page {min(self.page, self.pages - 1) + 1} of {self.pages})"
            return "Players: throw at your number" + (pages if self.pages > 1 else "")
        if self.step == "computer":
            return "Play against the computer: which level?"
        return "Ready? Start the game"

    def choices(self) -> list[Choice]:
        """The numbered choices of the current step (choice n is ``[n - 1]``)."""
        if self.step == "game":
            return [
                Choice(
                    game_class(g).name, _options_line(game_class(g).options_spec), g == self.game
                )
                for g in self.games
            ]
        if self.step == "options":
            option = self.current_option
            if option is None:
                return []
            chosen = self.options.get(option.name, option.default)
            return [
                Choice(value_text(v), "default" if v == option.default else "", v == chosen)
                for v in option_values(option)
            ]
        if self.step == "players":
            return [
                Choice(
                    str(n),
                    ("player" if n == 1 else "players")
                    if self.count_allowed(n)
                    else "not for this game",
                    n == self.player_count,
                )
                for n in range(1, MAX_PLAYERS + 1)
            ]
        if self.step == "lobby":
            return self._lobby_choices()
        if self.step == "computer":
            return [
                Choice(f"Level {n}", f"average {average:g}", n == self.computer)
                for n, average in zip(LEVELS, TARGET_AVERAGES, strict=True)
            ] + [Choice("None", "people only", self.computer is None)]
        teams = "2 teams" if self.teams and self.teams_allowed else "off"
        if not game_class(self.game).teams_allowed:
            teams_detail = "not for this game"
        else:
            teams_detail = "players alternate" if self.teams_allowed else "2+ players"
        level = self.computer_level
        if not self.computer_allowed:
            computer_detail = "not for this game" if self.player_count >= 2 else "2+ players"
        else:
            computer_detail = f"plays as {self.players()[-1]}" if level else "choose a level"
        return [
            Choice("Start", "throw the first dart after"),
            Choice(f"Teams: {teams}", teams_detail),
            Choice("Players", ", ".join(self.players())),
            Choice(f"Computer: {f'level {level}' if level else 'off'}", computer_detail),
        ]

    def summary(self) -> list[tuple[str, str]]:
        """The choices so far as ``(what, value)`` pairs, for the summary bar."""
        items = [("Game", game_class(self.game).name)]
        items += [(name, value_text(value)) for name, value in self.options.items()]
        if self.from_lobby:
            items.append(("Players", ", ".join(self.players())))
        else:
            items.append(("Players", str(self.player_count)))
        if self.teams and self.teams_allowed:
            items.append(("Teams", "2"))
        if self.computer_level is not None:
            items.append(("Computer", f"level {self.computer_level}"))
        return items

    # ------------------------------------------------------------ inputs

    def select(self, number: int) -> dict[str, Any] | None:
        """Pick choice ``number`` (1-based) of the current step; a number
        beyond the choices is ignored. Returns the ``new_game`` command when
        the pick starts the game, else ``None``."""
        choices = self.choices()
        if not 1 <= number <= len(choices):
            return None
        index = number - 1
        self.highlight = index
        self.error = None
        if self.step == "game":
            if self.games[index] != self.game:
                self.game = self.games[index]
                self._reset_options()
            self._go("options" if self.spec else self._players_step())
        elif self.step == "lobby":
            return self._pick_player(index)
        elif self.step == "options":
            option = self.current_option
            if option is not None:
                self.options[option.name] = option_values(option)[index]
            if self.option_index + 1 < len(self.spec):
                self.option_index += 1
                self.highlight = self._chosen_index()
            else:
                self._go(self._players_step())
        elif self.step == "players":
            if not self.count_allowed(index + 1):
                self.error = f"{game_class(self.game).name} is for {self._rule()}"
                return None
            self.player_count = index + 1
            self._fit_lineup()
            self._go("confirm")
        elif self.step == "computer":
            self.computer = LEVELS[index] if index < len(LEVELS) else None
            self._go("confirm")
        else:
            if index == 0:
                return self.start()
            if index == 1:
                self.teams = not self.teams and self.teams_allowed
                self._fit_lineup()
            elif index == 2:
                self._go(self._players_step())
            elif not self.computer_allowed:
                self.error = (
                    f"{game_class(self.game).name} has no computer opponent here"
                    if self.player_count >= 2
                    else "a computer opponent needs 2 or more players"
                )
            else:
                self._go("computer")
        return None

    def next_item(self) -> None:
        """Highlight the next choice (wrapping)."""
        count = len(self.choices())
        self.highlight = (self.highlight + 1) % count if count else 0

    def previous_item(self) -> None:
        """Highlight the previous choice (wrapping)."""
        count = len(self.choices())
        self.highlight = (self.highlight - 1) % count if count else 0

    def confirm(self) -> dict[str, Any] | None:
        """Pick the highlighted choice (see :meth:`select`)."""
        return self.select(self.highlight + 1)

    def back(self) -> bool:
        """One step back (the previous option, or the previous step); ``False``
        at the first step, where there is nothing to go back to."""
        self.error = None
        if self.step == "game":
            return False
        if self.step == "options" and self.option_index > 0:
            self.option_index -= 1
            self.highlight = self._chosen_index()
            return True
        if self.step == "lobby" or (self.step == "players" and self.lobby is None):
            if self.spec:
                self._go("options", len(self.spec) - 1)
            else:
                self._go("game")
            return True
        if self.step == "players" or (self.step == "confirm" and self.from_lobby):
            self._go("lobby" if self.lobby is not None else "players")
            return True
        if self.step == "computer":
            self._go("confirm")
            return True
        previous = STEPS[STEPS.index(self.step) - 1]
        if previous == "options" and not self.spec:
            previous = "game"
        self._go(previous)
        return True

    def press(self, button: str) -> dict[str, Any] | None:
        """A board button (``game``, ``player``, ``start``, ``next``; any
        case). Returns the ``new_game`` command when it starts the game."""
        name = button.strip().lower()
        if name == "game":
            if self.step != "game":
                self._go("game")
            else:
                self.highlight = (self.highlight + 1) % len(self.games)
                if self.games[self.highlight] != self.game:
                    self.game = self.games[self.highlight]
                    self._reset_options()
            return None
        if name == "player" and self.step == "lobby":
            self.next_page()
            return None
        if name == "player":
            count = self.player_count
            for _ in range(MAX_PLAYERS):
                count = count % MAX_PLAYERS + 1
                if self.count_allowed(count):
                    break
            self.player_count = count
            self._fit_lineup()
            if self.step == "players":
                self.highlight = self.player_count - 1
            return None
        if name == "start":
            return self.start()
        if name == "next":
            return self.confirm()
        return None

    def join_by_name(self, name: str) -> dict[str, Any] | None:
        """The ``join`` command for a name typed in the Players step (at most
        :data:`MAX_NAME` characters; a name the roster knows joins as that
        player, the daemon's to find), or ``None`` for an empty one."""
        name = " ".join(name.split())[:MAX_NAME]
        return {"command": "join", "player": {"name": name}} if name else None

    def next_page(self) -> None:
        """The ``lobby`` step's next page of players (the last wraps to the first)."""
        self.page = (min(self.page, self.pages - 1) + 1) % self.pages
        self.highlight = 0

    def set_name(self, index: int, text: str) -> None:
        """Name player ``index`` (0-based); at most :data:`MAX_NAME` characters.
        An empty name stands for the default ``Player n``."""
        if 0 <= index < MAX_PLAYERS:
            self.names[index] = text[:MAX_NAME]

    def start(self) -> dict[str, Any] | None:
        """The ``new_game`` command for the choices made, or ``None`` (and
        :attr:`error` set) when the engine refuses them."""
        try:
            command = self.new_game_command()
        except EngineError as error:
            self.error = str(error)
            return None
        self.error = None
        return command

    def new_game_command(self) -> dict[str, Any]:
        """The ``new_game`` command (docs/mqtt.md) for the choices made:
        ``game``, every offered option's value, the players (the last one a
        computer player ``{"name", "cpu": level}`` with a computer opponent) and,
        with teams, the two teams; with the lobby's players alone, no
        ``players`` (the daemon takes its lobby's, with their ids). Checked
        with ``engine.new_game``: raises :class:`engine.EngineError` when the
        engine would refuse it."""
        players = self.players()
        options = {
            option.name: self.options.get(option.name, option.default) for option in self.spec
        }
        teams = self.team_members()
        new_game(self.game, players, options, teams or None)
        level = self.computer_level
        command: dict[str, Any] = {"command": "new_game", "game": self.game, "options": options}
        if not (self.from_lobby and level is None and not teams):
            command["players"] = (
                [*players[:-1], {"name": players[-1], "cpu": level}] if level else players
            )
        if teams:
            command["teams"] = teams
        return command

    # ---------------------------------------------------------- internal

    def _reset_options(self) -> None:
        """A new game: its options at their defaults, and a lineup it takes."""
        self.options = {option.name: option.default for option in self.spec}
        self.option_index = 0
        self._fit_lineup()

    def _players_step(self) -> str:
        """Who plays: the lobby's Players step with a daemon that holds one, else how many."""
        return "lobby" if self.lobby is not None else "players"

    def _lobby_choices(self) -> list[Choice]:
        picks = self.page_picks()
        choices = [
            Choice(
                pick.name,
                "joined: again to leave"
                if pick.joined
                else ("regular" if pick.regular else "played here lately"),
                pick.joined,
            )
            for pick in picks
        ]
        joined = self.lobby_players()
        guest = guest_name(joined)
        done = f"{len(joined)} joined: {', '.join(joined)}" if joined else "then how many players"
        return [*choices, Choice("Guest", f"joins as {guest}"), Choice("Done", done)]

    def _pick_player(self, index: int) -> dict[str, Any] | None:
        """Tile ``index`` of the Players step: a player joins or leaves, a guest joins, or done."""
        picks = self.page_picks()
        if index < len(picks):
            pick = picks[index]
            return {"command": "leave" if pick.joined else "join", "player": pick.ref()}
        if index == len(picks):
            return {"command": "join", "player": {"name": guest_name(self.lobby_players())}}
        self._go("confirm" if self.from_lobby else "players")
        return None

    def _takes(self, count: int, teams: bool) -> bool:
        return game_class(self.game).takes_lineup(count, 2 if teams else 0)

    def _rule(self) -> str:
        return game_class(self.game).lineup_rule()

    def _fit_lineup(self) -> None:
        """Keep the player count and teams to what the game takes: the
        smallest count it takes when the current one does not, no teams when
        it refuses them, and two teams when only teams fit the count. With
        the lobby's players the count is theirs (and the computer's): a count
        the game does not take is the engine's to refuse at the start."""
        if self.from_lobby:
            self.player_count = len(self.players())
        elif not self.count_allowed(self.player_count):
            self.player_count = next(n for n in range(1, MAX_PLAYERS + 1) if self.count_allowed(n))
        if self.teams and not self.teams_allowed:
            self.teams = False
        if not self._takes(self.player_count, teams=False):
            self.teams = True

    def _go(self, step: str, option_index: int = 0) -> None:
        self.step = step
        self.option_index = option_index
        self.highlight = self._chosen_index()

    def _chosen_index(self) -> int:
        if self.step == "lobby":  # Done once someone joined: NEXT goes on
            return len(self.choices()) - 1 if self.from_lobby else 0
        for index, choice in enumerate(self.choices()):
            if choice.current:
                return index
        return 0


def _options_line(spec: tuple[Option, ...]) -> str:
    return ", ".join(
        f"{option.name} {value_text(option.default)}" for option in offered_options(spec)
    )
