"""The lobby extension: the players who joined the board's next game (docs/players.md).

It runs ``join`` and ``leave`` (``CommandReceived``), adds ``lobby`` to
every state (``StateBuilt``), seats a called match's players
(``LobbySeated``), answers a ``new_game`` without players with
the lobby's (``PlayersAsked``), empties the lobby and draws a new join code
as a game starts (``GameStarted``), and gives each result player their
roster ``player_id`` (``ResultBuilt``). A card tap (``CardTapped``, claimed
on ``BoardInputReceived``, never scored) is hashed with ``[cards] secret``
(:func:`credentials.card_hash.card_hash`) and looked up in the board's copy
of its venue's roster (``{base}/{board}/roster``, retained by the
leaderboard service). A card's UID is never logged, published or journaled:
only its keyed hash. The lobby, the roster copy and the game's player ids
are kept in the journal's settings store, so a restart keeps them. The
rules themselves are :mod:`firmware_bridge.daemon.lobby_book`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator
from dataclasses import replace

from credentials.card_hash import CardUidError, card_hash
from drivers.board_events import CardTapped
from firmware_bridge.daemon import core_events
from firmware_bridge.daemon.extension_context import Extension, ExtensionContext
from firmware_bridge.daemon.game_session import Refusal
from firmware_bridge.daemon.journal import JournalError
from firmware_bridge.daemon.lobby_book import LobbyBook, new_join_code
from mqtt_contract import CardRefused, ErrorReported, Join, Leave, PlayerJoined, PlayerLeft, topic
from mqtt_contract.lobby_payload import JoinedBy, LobbyPlayer, LobbyState, RosterMessage

__all__ = ["CARD_WAIT_S", "UNKNOWN_CARD", "Lobby"]

log = logging.getLogger(__name__)

CARD_WAIT_S = 120.0
"""How long a card the roster does not know waits to be linked from a phone (``link_card``)."""

UNKNOWN_CARD = "Card not registered: ask at the bar, or scan the code"
IN_GAME_CARD = "Cards join between games"
NO_SECRET_CARD = "Cards are not set up on this board ([cards] secret)"
EXPIRED_CODE = "join code expired or not this board's"


class Lobby(Extension):
    """The board's lobby, its roster copy and its card taps. No I/O in the constructor."""

    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self.book = LobbyBook()
        self._game_ids: dict[str, int | None] = {}
        """The running (or last) game's players' roster ids, by name."""
        self._waiting_card: tuple[str, float] | None = None
        """The last card the roster did not know (its hash) and when it was tapped."""
        self._card_timer: asyncio.TimerHandle | None = None
        self._rematch_at: float | None = None
        # First on commands and board input: join, leave and a card are the
        # lobby's whatever else is on (a remote match queues for the next game).
        context.subscribe(core_events.CommandReceived, self._command, order=-1)
        context.subscribe(core_events.BoardInputReceived, self._board_input, order=-1)
        context.subscribe(core_events.PlayersAsked, lambda _: self._players())
        context.subscribe(core_events.HandicapAveragesAsked, self._averages)
        context.subscribe(core_events.RematchAsked, self._rematch_asked)
        context.subscribe(core_events.GameStarted, self._started)
        context.subscribe(core_events.LobbySeated, self._seated)
        context.subscribe(core_events.StateBuilt, self._state)
        context.subscribe(core_events.ResultBuilt, self._result)

    @property
    def _roster_topic(self) -> str:
        config = self._context.config
        return topic(config.mqtt.base, self._context.board_id, "roster")

    # ------------------------------------------------------------ lifecycle

    def opened(self) -> None:
        """Take back the lobby, the roster copy and the game's ids from the journal."""
        settings, board = self._context.journal.settings, self._context.board_id
        problems = self.book.restore(
            settings.lobby_value(board, "players"), settings.lobby_value(board, "roster")
        )
        for problem in problems:
            log.error("the journal's lobby: %s; not taken back", problem)
        ids = settings.lobby_value(board, "game_ids")
        if isinstance(ids, dict):
            self._game_ids = {
                str(name): pid if type(pid) is int else None for name, pid in ids.items()
            }
        if not self._context.config.lobby.web_url:
            self.book.join_code = None
        elif self.book.join_code is None:
            self.book.join_code = new_join_code()

    async def on_connect(self) -> None:
        link = self._context.link
        if link is not None:
            await link.subscribe(self._roster_topic)

    async def on_message(self, topic: str, payload: bytes, retain: bool) -> bool:
        if topic != self._roster_topic:
            return False
        if not payload:
            log.info("the roster on %s was cleared; the board keeps its copy", topic)
            return True
        try:
            roster = RosterMessage.from_json(json.loads(payload))
        except (ValueError, RecursionError) as error:  # a PayloadError is a ValueError
            log.warning("a roster on %s ignored: %s", topic, _short(error))
            return True
        async with self._context.lock:
            self._take_roster(roster)
        return True

    def close(self) -> None:
        if self._card_timer is not None:
            self._card_timer.cancel()

    # ------------------------------------------------------------ commands

    def _command(self, received: core_events.CommandReceived) -> bool | None:
        command = received.command
        if not isinstance(command, Join | Leave):
            return None
        with self._as_it_was_unless_journaled():
            self._run(command, received)
        return True

    @contextlib.contextmanager
    def _as_it_was_unless_journaled(self) -> Iterator[None]:
        """A change the journal refuses is undone: the lobby and the roster
        copy stay as the journal has them (the JournalError goes on)."""
        players, roster = list(self.book.players), self.book.roster
        try:
            yield
        except JournalError:
            self.book.players, self.book.roster = players, roster
            raise

    def _run(self, command: Join | Leave, received: core_events.CommandReceived) -> None:
        """``join`` or ``leave``."""
        now = received.at
        ref = command.player
        if isinstance(command, Leave):
            left = self.book.remove(ref)
            self._keep()
            self._context.publish_event(PlayerLeft(now, left))
            return
        code = command.code
        if code is not None and code != self.book.join_code:
            raise Refusal(EXPIRED_CODE)
        joined_by = (
            JoinedBy.PHONE if code else JoinedBy.ROSTER if ref.id is not None else JoinedBy.NAME
        )
        entrant = self.book.entrant(ref, joined_by, now)
        added = self.book.add(entrant)
        waiting = self._card_waiting(now)
        if command.link_card and waiting is not None:
            # A name the board's copy does not know yet (the service made the
            # player a moment ago) still takes the card: the service stores it
            # for that player, and its next roster brings it to the copy.
            if entrant.player_id is not None:
                self.book.link_card(entrant.player_id, waiting)
                self._keep_roster()
            self._waiting_card = None
            received.reply["card"] = waiting
            log.info("a card was linked to %s (player %s)", entrant.name, entrant.player_id)
        self._keep()
        if added:
            self._context.publish_event(PlayerJoined(now, entrant))

    def _players(self) -> tuple[str, ...] | None:
        """``new_game`` without players: the lobby's, in the order they joined."""
        return tuple(player.name for player in self.book.players) or None

    def _seated(self, seated: core_events.LobbySeated) -> None:
        """A called match's players: they are the lobby now (a roster
        player's average from the board's copy), kept in the journal."""
        players = []
        for name, player_id in seated.players:
            known = self.book.roster_player(player_id) if player_id is not None else None
            players.append(
                LobbyPlayer(
                    name=name,
                    player_id=player_id,
                    joined_by=JoinedBy.ROSTER if player_id is not None else JoinedBy.NAME,
                    joined_at=seated.at,
                    average=known.average if known is not None else None,
                )
            )
        with self._as_it_was_unless_journaled():
            self.book.players = players
            self._keep()

    def _rematch_asked(self, asked: core_events.RematchAsked) -> None:
        self._rematch_at = asked.at

    # ------------------------------------------------------------ cards

    def _board_input(self, received: core_events.BoardInputReceived) -> bool | None:
        """A card tap is the lobby's, always: it joins a player or says why not."""
        if not isinstance(received.event, CardTapped):
            return None
        with self._as_it_was_unless_journaled():
            self.tapped(received.event, received.at)
        return True

    def tapped(self, tap: CardTapped, now: float) -> None:
        """A card tapped on the board's reader: its player joins, or a ``card_refused``."""
        secret = self._context.config.cards.secret
        if not secret:
            log.warning(
                "a card was tapped (%s) but [cards] secret is not set: no card joins", tap.masked
            )
            self._refuse_card("no-secret", NO_SECRET_CARD, now)
            return
        session = self._context.session
        if session is not None and not session.is_finished:
            self._refuse_card("in-game", IN_GAME_CARD, now)
            return
        try:
            card = card_hash(secret, tap.uid)
        except CardUidError:
            log.warning("a card tap was not a card number (%s); ignored", tap.masked)
            self._refuse_card("unknown", UNKNOWN_CARD, now)
            return
        try:
            entrant = self.book.card_entrant(card, now)
        except Refusal as refusal:
            self._context.publish_event(ErrorReported(now, "refused", str(refusal)))
            return
        if entrant is None:
            log.info("a card the roster does not know was tapped (%s)", tap.masked)
            self._waiting_card = (card, now)
            self._expire_card_later()
            self._refuse_card("unknown", UNKNOWN_CARD, now)
            return
        try:
            added = self.book.add(entrant)
        except Refusal as refusal:
            self._context.publish_event(ErrorReported(now, "refused", str(refusal)))
            return
        log.info("a card joined %s (player %s)", entrant.name, entrant.player_id)
        if added:
            self._keep()
            self._context.publish_event(PlayerJoined(now, entrant))

    def _refuse_card(self, reason: str, message: str, now: float) -> None:
        self._context.publish_event(CardRefused(now, reason, message))

    def _card_waiting(self, now: float) -> str | None:
        """The unknown card tapped in the last :data:`CARD_WAIT_S`, if any."""
        if self._waiting_card is None or now - self._waiting_card[1] >= CARD_WAIT_S:
            return None
        return self._waiting_card[0]

    def _expire_card_later(self) -> None:
        """Publish the state once the waiting card no longer waits (``card_waiting`` false)."""
        if self._card_timer is not None:
            self._card_timer.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._card_timer = loop.call_later(CARD_WAIT_S, self._context.request_state)

    # ------------------------------------------------------------ the game

    def _started(self, started: core_events.GameStarted) -> None:
        """A game started: its players' ids kept (the lobby's; a rematch's
        the last game's), the lobby emptied, a new join code."""
        bots = self._context.bots
        rematch = self._rematch_at == started.at
        ids: dict[str, int | None] = {}
        for name in started.session.game.lineup.players:
            waiting = self.book.waiting(name)
            if bots is not None and name in bots.players:
                ids[name] = None
            elif waiting is not None:
                ids[name] = waiting.player_id
            else:
                ids[name] = self._game_ids.get(name) if rematch else None
        self._game_ids, self._rematch_at = ids, None
        self.book.played(
            [(name, pid) for name, pid in ids.items() if bots is None or name not in bots.players]
        )
        if self._context.config.lobby.web_url:
            self.book.join_code = new_join_code()
        self._waiting_card = None
        try:
            self._keep()
            self._context.journal.settings.keep_lobby_value(
                self._context.board_id, "game_ids", ids, started.at
            )
        except JournalError as error:  # the game is journaled: it starts all the same
            log.error("the lobby was not journaled as the game started: %s", error)

    def _result(self, built: core_events.ResultBuilt) -> None:
        """Each result player's roster id: null for a guest or a computer player."""
        for player in built.result["players"]:
            cpu = "cpu" in player
            player["player_id"] = None if cpu else self._game_ids.get(player["name"])

    # ------------------------------------------------------------ the state

    def _averages(self, asked: core_events.HandicapAveragesAsked) -> tuple[float | None, ...]:
        """Each player's month figure the handicaps come from (X01 average, or
        with ``mpr`` Cricket MPR): the lobby's average, else the roster's."""
        book = self.book
        figures: list[float | None] = []
        for name in asked.players:
            waiting = book.waiting(name)
            known = book.roster_named(name)
            if waiting is not None and waiting.player_id is not None:
                known = book.roster_player(waiting.player_id) or known
            if asked.mpr:
                figures.append(None if known is None else known.mpr)
            elif waiting is not None and waiting.average is not None:
                figures.append(waiting.average)
            else:
                figures.append(None if known is None else known.average)
        return tuple(figures)

    def _state(self, built: core_events.StateBuilt) -> None:
        book, config = self.book, self._context.config
        code = book.join_code if config.lobby.web_url else None
        url = config.lobby.join_url(self._context.board_id, code) if code else None
        state = LobbyState(
            players=tuple(book.players),
            join_code=code,
            join_url=url,
            suggestions=book.suggestions(),
            roster=book.roster is not None,
            card_waiting=self._card_waiting(self._context.clock()) is not None,
        )
        built.state["lobby"] = state.to_json()

    def _take_roster(self, roster: RosterMessage) -> None:
        """The service's roster for this board: kept, and the lobby's averages from it."""
        self.book.roster = roster
        for index, player in enumerate(self.book.players):
            known = self.book.roster_player(player.player_id) if player.player_id else None
            if known is not None and known.average != player.average:
                self.book.players[index] = replace(player, average=known.average)
        self._keep_roster()
        self._keep()
        log.info("roster of %s: %d players", roster.venue, len(roster.players))
        self._context.request_state()

    def _keep_roster(self) -> None:
        """Journal the roster copy (a card works while the service is down)."""
        if self.book.roster is not None:
            self._context.journal.settings.keep_lobby_value(
                self._context.board_id, "roster", self.book.roster.to_json(), self._context.clock()
            )

    def _keep(self) -> None:
        """Journal the lobby (its players, join code and recent players)."""
        self._context.journal.settings.keep_lobby_value(
            self._context.board_id, "players", self.book.to_json(), self._context.clock()
        )


def _short(error: BaseException) -> str:
    """An error's text, at most 200 characters (a bad roster may be long)."""
    text = str(error)
    return text if len(text) <= 200 else text[:200] + "…"
