"""``oche players``: the venue's roster in the leaderboard database
(docs/players.md). ``add`` a player (with a card), ``list`` them, ``card
add``/``card remove``, ``rename``, ``merge`` two into one and ``forget`` one
(name, ratings and cards). A player is named by name (any case) or by id.

A card's UID is hashed with the venue secret before it goes anywhere
(``credentials.card_hash``): ``OCHE_CARD_SECRET`` when set, else ``[cards]
secret`` of the config; the UID is never stored or printed. The database and
venues are ``oche leaderboard``'s (``--db``, ``--config``). A running
service sends the changed roster to the venue's boards within seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.cli.leaderboard_command import (
    cli_config,
    db_url,
    forget_and_republish,
    open_database,
    venue_map,
)
from firmware_bridge.daemon.config import Config

if TYPE_CHECKING:
    from leaderboard.roster import PlayerRef, RosterEntry

__all__ = ["CARD_SECRET_ENV", "add_parser", "card_secret", "player_ref"]

CARD_SECRET_ENV = "OCHE_CARD_SECRET"
"""The environment variable that gives the venue secret instead of the config."""


def card_secret(config: Config) -> str:
    """The venue secret cards are hashed with: ``$OCHE_CARD_SECRET``, else
    ``[cards] secret``; a UsageError when neither is set."""
    secret = os.environ.get(CARD_SECRET_ENV, "")
    if not secret:
        cards = getattr(config, "cards", None)
        secret = str(getattr(cards, "secret", "") or "")
    if not secret:
        raise UsageError(
            f"a card needs the venue's card secret: set [cards] secret in the config "
            f"(--config FILE; `oche cards secret` prints a new one) or {CARD_SECRET_ENV}"
        )
    return secret


def _hashed(args: argparse.Namespace, config: Config) -> str:
    """``--card``'s UID as its keyed hash; a UsageError that never repeats the UID."""
    from credentials.card_hash import CardUidError, card_hash

    try:
        return card_hash(card_secret(config), args.card)
    except CardUidError as error:
        raise UsageError(f"--card: {error}") from None


def player_ref(text: str) -> PlayerRef:
    """A NAME|ID argument: digits are the roster id, anything else a name."""
    stripped = text.strip()
    return int(stripped) if stripped.isdigit() else text


def _cards(entry: RosterEntry) -> str:
    count = len(entry.cards)
    return f"{count} card{'s' if count != 1 else ''}" if count else "no card"


def _line(entry: RosterEntry) -> str:
    return f"{entry.name!r} (id {entry.id}) at {entry.venue}: {_cards(entry)}"


def _run(args: argparse.Namespace) -> int:
    """Every roster sub-command: the database opened, the roster's error a UsageError."""
    from leaderboard.players import PlayerError

    config = cli_config(args)
    if args.players_command == "forget":
        return forget_and_republish(args, player_ref(args.player), "oche players")
    card = _hashed(args, config) if getattr(args, "card", None) is not None else None
    with open_database(db_url(args, config), create=args.players_command == "add") as database:
        try:
            text = _action(args, config, database, card)
        except PlayerError as error:
            raise UsageError(str(error)) from None
    sys.stdout.write(text)
    return 0


def _action(args: argparse.Namespace, config: Config, database: Any, card: str | None) -> str:
    """Do the sub-command; what it prints."""
    from leaderboard import roster

    command = args.players_command
    if command == "add":
        venues = venue_map(config)
        venue = args.venue or venues.default
        return f"added {_line(roster.add(database, args.name, venue, venues, card))}\n"
    if command == "list":
        return _listing(roster.entries(database, args.venue), args.json)
    if command == "card":
        assert card is not None  # --card is required
        if args.card_command == "add":
            entry = roster.add_card(database, player_ref(args.player), card, args.venue)
            return f"card added: {_line(entry)}\n"
        entry = roster.remove_card(database, player_ref(args.player), card, args.venue)
        return f"card removed: {_line(entry)}\n"
    if command == "rename":
        outcome = roster.rename_player(database, player_ref(args.old), args.new, args.venue)
        return f"renamed {args.old.strip()!r} to {outcome.name!r} at {outcome.venue}\n"
    outcome = roster.merge(database, player_ref(args.source), player_ref(args.into), args.venue)
    games = f"{outcome.games} game{'s' if outcome.games != 1 else ''}"
    return f"merged {args.source.strip()!r} into {outcome.name!r} at {outcome.venue} ({games})\n"


def _listing(found: list[RosterEntry], as_json: bool) -> str:
    """``list``'s output: a table, or JSON (cards as a count: no hash, no UID)."""
    if as_json:
        rows: list[dict[str, Any]] = [
            {
                "id": entry.id,
                "name": entry.name,
                "venue": entry.venue,
                "cards": len(entry.cards),
                "games": entry.games,
            }
            for entry in found
        ]
        return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    if not found:
        return "no players yet (oche players add NAME)\n"
    header = ["ID", "NAME", "VENUE", "CARDS", "GAMES"]
    body = [[str(e.id), e.name, e.venue, str(len(e.cards)), str(e.games)] for e in found]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    return "".join(
        "  ".join(
            cell.ljust(width) if column in (1, 2) else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        + "\n"
        for row in [header, *body]
    )


def _common(parser: argparse.ArgumentParser, venue_help: str) -> None:
    parser.add_argument("--venue", help=venue_help)
    parser.add_argument(
        "--db",
        metavar="URL",
        help="the leaderboard database: sqlite:///PATH or postgresql+psycopg://USER@HOST/DB "
        "(default: [leaderboard] db of the config, else $XDG_STATE_HOME/oche/leaderboard.sqlite3)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the config whose [leaderboard] and [cards] sections to read",
    )
    parser.set_defaults(run=_run)


_WHICH = "the player's venue (needed when the name plays at several)"
_PLAYER = "the player's name (any case) or roster id"
_CARD = (
    "the card's UID as the reader prints it (hex, separators allowed); hashed with the "
    f"venue secret ([cards] secret or {CARD_SECRET_ENV}), never stored"
)


def add_parser(commands: Commands) -> None:
    """Add ``oche players`` and its sub-commands."""
    players = commands.add_parser(
        "players",
        help="the venue's roster: add, list, card, rename, merge, forget",
        description="The players of a venue, with stable ids and their cards (as keyed "
        "hashes), in the leaderboard database. A running service sends the roster to the "
        "venue's boards. See docs/players.md.",
    )
    actions = players.add_subparsers(dest="players_command", required=True, metavar="ACTION")

    adding = actions.add_parser(
        "add",
        help="add a player (and a card)",
        description="Add NAME to the venue's roster (names are unique in a venue, case and "
        "spaces ignored), with a card when --card is given.",
    )
    adding.add_argument("name", metavar="NAME", help="the player's name (at most 64 characters)")
    adding.add_argument("--card", metavar="UID", help=_CARD)
    _common(adding, "the venue (default: [leaderboard] venue of the config, else home)")

    listing = actions.add_parser(
        "list",
        help="list the roster",
        description="Every player: id, name, venue, how many cards and games. No card is shown.",
    )
    listing.add_argument("--json", action="store_true", help="print the players as a JSON list")
    _common(listing, "only this venue's players")

    card = actions.add_parser(
        "card",
        help="add or remove a player's card",
        description="Give a player a card, or take one away; the UID is hashed with the "
        "venue secret and never stored.",
    )
    cards = card.add_subparsers(dest="card_command", required=True, metavar="ACTION")
    for action, text in (("add", "give the player a card"), ("remove", "take a card away")):
        one = cards.add_parser(action, help=text, description=f"{text[0].upper()}{text[1:]}.")
        one.add_argument("player", metavar="NAME|ID", help=_PLAYER)
        one.add_argument("--card", metavar="UID", required=True, help=_CARD)
        _common(one, _WHICH)

    renaming = actions.add_parser(
        "rename",
        help="rename a player (keeps their games)",
        description="Call the player NEW from now on; their games, ratings and cards stay "
        "theirs. Refused when NEW is another player: merge them.",
    )
    renaming.add_argument("old", metavar="NAME|ID", help=_PLAYER)
    renaming.add_argument("new", metavar="NEW", help="the new name")
    _common(renaming, _WHICH)

    merging = actions.add_parser(
        "merge",
        help="make two players of a venue one",
        description="FROM's games, ratings (rebuilt) and cards become INTO's; FROM goes.",
    )
    merging.add_argument("source", metavar="FROM", help=_PLAYER)
    merging.add_argument("into", metavar="INTO", help=_PLAYER)
    _common(merging, _WHICH)

    forgetting = actions.add_parser(
        "forget",
        help="delete a player's data (privacy): name, ratings and cards",
        description="As `oche leaderboard forget`: the player's name, ratings and cards are "
        "deleted; their games stay for the others as 'forgotten player'; the retained "
        "snapshots are published again.",
    )
    forgetting.add_argument("player", metavar="NAME|ID", help=_PLAYER)
    forgetting.add_argument(
        "--mqtt", metavar="URL", help="the service's broker (default: mqtt.url of the config)"
    )
    forgetting.add_argument("--base", help="the topics' base (default: mqtt.base of the config)")
    _common(forgetting, _WHICH)
