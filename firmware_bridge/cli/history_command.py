"""``oche history`` and ``oche export``: the games in the daemon's journal.

``oche history`` lists past games, newest first: id, start time (local),
game, status, where its result is (``stored`` by a leaderboard, ``sent`` to
the broker, ``pending``), winner, darts thrown and players (``--json`` for
everything).
Remote matches (docs/remote.md) are listed too: a game this board hosted with
each player's board, and a match it joined as a guest (its id is the match's,
its darts are in the host's journal) with the host and the winner.
``oche export GAME_ID`` prints one game as an ``oche replay`` log: a header
of comment lines naming the game, players, teams and options (see
:func:`engine.game_log.parse_log_header`) and the command that re-scores it,
then one visit per line, so

    oche export 3 | oche replay -

gives the same final state as the game had. A match (docs/matches.md) is
one entry: ``oche history`` shows its legs won beside the winner, and its
export is every leg's log, each under a line naming who threw first
(:mod:`firmware_bridge.cli.match_log`). Both read the journal at
``--journal PATH``, else the one the daemon's config names (``--config``, or
the config ``oche run`` would find), else ``$XDG_STATE_HOME/oche/journal.sqlite3``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from engine import Bed, EngineError, Game, parse_event
from engine.game_log import HEADER_MARK, format_game_log, header_json
from engine.match import Match
from engine.match_format import MatchFormat
from firmware_bridge.cli.command_support import Commands, UsageError
from firmware_bridge.cli.match_log import MATCH_KEY, format_match_log
from firmware_bridge.daemon.config import ConfigError, load_config
from firmware_bridge.daemon.journal import (
    GuestMatch,
    Journal,
    JournalError,
    JournalGame,
    default_journal_path,
)

__all__ = [
    "add_parser",
    "export_text",
    "guest_entry",
    "history_entries",
    "history_table",
    "hosted_elsewhere",
    "replay_journal_game",
    "replay_journal_match",
]


def replay_journal_match(entry: JournalGame) -> tuple[Match, list[str]]:
    """The engine match the journaled tokens give (a single game: a match of
    one leg), and a note for each token the engine refused (such a token
    changed nothing live either, so it is left out). A game, options or
    match format the engine does not know raise EngineError."""
    match_format = None if entry.match is None else MatchFormat.from_json(entry.match)
    match = Match(entry.game, entry.players, entry.options, entry.teams, match_format)
    refused: list[str] = []
    for seq, token in enumerate(entry.events, start=1):
        try:
            match.push(parse_event(token))
        except EngineError as error:
            refused.append(f"event {seq} ({token}) was refused by the engine: {error}")
    return match, refused


def replay_journal_game(entry: JournalGame) -> tuple[Game, list[str]]:
    """The engine game the journaled tokens give (a match's: its last leg),
    and the notes of :func:`replay_journal_match`."""
    match, refused = replay_journal_match(entry)
    return match.leg, refused


def _darts(match: Match) -> int:
    return sum(isinstance(event, Bed) for event in match.events)


def _winner(state: dict[str, Any]) -> str | None:
    """The winning team's or player's name, ``draw``, or None while not over
    (a match: until its last leg is won)."""
    match = state.get("match")
    if isinstance(match, dict) and not match["finished"]:
        return None
    if not state["finished"]:
        return None
    winner, team = state["winner"], state["winner_team"]
    if isinstance(match, dict):
        winner, team = match["winner"], match["winner_team"]
    if team is not None and state["teams"]:
        return str(state["teams"][team]["name"])
    if winner is not None:
        return str(state["players"][winner]["name"])
    return "draw"


def _local(timestamp: float | None, seconds: bool = False) -> str:
    if timestamp is None:
        return ""
    return time.strftime("%Y-%m-%d %H:%M" + (":%S" if seconds else ""), time.localtime(timestamp))


def _iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds")


SHORT_MATCH = 8
"""How much of a guest match's id ``oche history`` shows (``oche export`` takes it)."""


def history_entries(
    journal: Journal, limit: int = 50, board: str | None = None
) -> list[dict[str, Any]]:
    """One JSON object per game, newest first: what ``oche history --json``
    prints. ``winner`` and ``darts`` (darts thrown, undone ones not counted)
    come from replaying the game; both are None if the engine cannot. The
    remote matches this board joined as a guest are merged in by start time
    (see :func:`guest_entry`); ``role`` says which side a remote match's
    board was (``host``, ``guest``, ``None`` for a game of its own)."""
    entries = _game_entries(journal, limit, board)
    entries += [guest_entry(match) for match in journal.remote.guest_matches(limit, board)]
    entries.sort(key=lambda entry: entry["started_at"], reverse=True)  # stable: ties keep order
    return entries[:limit]


def guest_entry(match: GuestMatch) -> dict[str, Any]:
    """A match this board joined as a guest, as ``oche history --json`` lists
    it: ``id`` is the match id, ``players`` their names (``remote.boards``
    says where each threw), ``winner`` the host's final state's; ``darts`` and
    ``events`` are None (the host's journal has them), ``forwarded`` and
    ``taken`` count the actions this board sent and the host took."""
    result = match.result
    return {
        "id": match.match,
        "board": match.board,
        "game": match.game,
        "status": match.status,
        "started_at": match.joined_at,
        "started_local": _iso(match.joined_at),
        "finished_at": match.finished_at,
        "finished_local": _iso(match.finished_at),
        "players": [player["name"] for player in match.players],
        "teams": None,
        "options": match.options,
        "winner": result.get("winner") if isinstance(result, dict) else None,
        "darts": None,
        "events": None,
        "result": result,
        "role": "guest",
        "host": match.host,
        "remote": {
            "match": match.match,
            "host": match.host,
            "boards": {player["name"]: player["board"] for player in match.players},
        },
        "end_reason": match.end_reason,
        "forwarded": match.forwarded,
        "taken": match.taken,
        "delivery": None,
        "game_key": None,
        "revision": None,
    }


def _game_entries(journal: Journal, limit: int, board: str | None) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for listed in journal.games.games(limit, board):
        entry = journal.games.game(listed.id)
        winner: str | None = None
        darts: int | None = None
        legs_won: list[int] | None = None
        try:
            match, _ = replay_journal_match(entry)
        except EngineError:
            pass
        else:
            state = match.state()
            winner, darts = _winner(state), _darts(match)
            if match.format is not None:
                legs_won = list(match.legs_won())
        entries.append(
            {
                "id": entry.id,
                "board": entry.board,
                "game": entry.game,
                "status": entry.status,
                "started_at": entry.started_at,
                "started_local": _iso(entry.started_at),
                "finished_at": entry.finished_at,
                "finished_local": _iso(entry.finished_at),
                "players": entry.players,
                "teams": entry.teams,
                "options": entry.options,
                "winner": winner,
                "darts": darts,
                "events": len(entry.events),
                "result": entry.result,
                "role": "host" if entry.remote else None,
                "host": entry.remote.get("host") if entry.remote else None,
                "remote": entry.remote,
                "cpu": _computer_players(entry),
                "match": entry.match,
                "legs_won": legs_won,
                "delivery": entry.delivery,
                "game_key": entry.game_key,
                "revision": entry.revision,
            }
        )
    return entries


def _computer_players(entry: JournalGame) -> dict[str, int]:
    """The game's computer players and their levels (empty without any)."""
    players = (entry.bots or {}).get("players")
    if not isinstance(players, dict):
        return {}
    return {
        str(name): cpu["level"]
        for name, cpu in players.items()
        if isinstance(cpu, dict) and isinstance(cpu.get("level"), int)
    }


def _players_cell(entry: dict[str, Any]) -> str:
    """The players, each ``name@board`` in a remote match."""
    cpu = entry.get("cpu") or {}
    names = [f"{name} (CPU {cpu[name]})" if name in cpu else name for name in entry["players"]]
    remote = entry.get("remote")
    if not isinstance(remote, dict):
        return ", ".join(names)
    boards = remote.get("boards")
    if not isinstance(boards, dict):
        boards = {}
    where = [boards.get(name, remote.get("host")) for name in entry["players"]]
    return ", ".join(f"{label}@{board}" for label, board in zip(names, where, strict=True))


def _winner_cell(entry: dict[str, Any], unknown: str) -> str:
    """The winner, with a match's legs won (``Ann (2-1)``)."""
    winner = entry["winner"] or (unknown if entry["darts"] is None else "-")
    legs = entry.get("legs_won")
    return f"{winner} ({'-'.join(map(str, legs))})" if legs else str(winner)


def _role_cell(entry: dict[str, Any]) -> str:
    role = entry.get("role")
    if role == "guest":
        return f"guest of {entry['host']}"
    return str(role) if role else "-"


def history_table(entries: list[dict[str, Any]]) -> str:
    """The text table ``oche history`` prints (start times in local time).
    ``RESULT`` says where the game's latest result (or its withdrawal) is:
    ``stored``, ``sent`` or ``pending``. With games of several boards (boards
    sharing a journal) a ``BOARD`` column says whose each game was. With a
    remote match among the entries a ``ROLE`` column says which side this
    board was (``host``, ``guest of base/board``) and players show their board."""
    remote = any(entry.get("role") for entry in entries)
    boards = len({entry["board"] for entry in entries}) > 1
    header: tuple[str, ...] = (
        "ID",
        "STARTED",
        "GAME",
        "STATUS",
        "RESULT",
        "WINNER",
        "DARTS",
        "PLAYERS",
    )
    if remote:
        header = (*header[:-1], "ROLE", header[-1])
    if boards:
        header = (header[0], "BOARD", *header[1:])
    rows = []
    for entry in entries:
        guest = entry.get("role") == "guest"
        unknown = "-" if guest else "?"
        row: tuple[str, ...] = (
            str(entry["id"])[:SHORT_MATCH] if guest else str(entry["id"]),
            _local(entry["started_at"]),
            entry["game"],
            entry["status"],
            entry.get("delivery") or "-",
            _winner_cell(entry, unknown),
            unknown if entry["darts"] is None else str(entry["darts"]),
            _players_cell(entry),
        )
        if remote:
            row = (*row[:-1], _role_cell(entry), row[-1])
        if boards:
            row = (row[0], str(entry["board"]), *row[1:])
        rows.append(row)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    right = {header.index("ID"), header.index("DARTS")}  # the numbers

    def line(row: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        return "  ".join([*cells, row[-1]]).rstrip() + "\n"

    return "".join(line(row) for row in [header, *rows])


def _unsafe(text: str) -> bool:
    return any(not char.isprintable() for char in text)


def export_text(entry: JournalGame, journal_arg: str | None = None) -> str:
    """The ``oche replay`` log of a journaled game: a header describing it
    (which ``oche replay`` reads) and the command that re-scores it, then its
    effective events (undone darts left out) one visit per line.
    ``journal_arg`` is the ``--journal`` value to repeat in that command, if
    one was given."""
    try:
        match, refused = replay_journal_match(entry)
    except EngineError as error:
        raise UsageError(f"game {entry.id} cannot be replayed: {error}") from None
    game, state = match.leg, match.state()
    export = ["oche", "export", str(entry.id)]
    if journal_arg is not None:
        export += ["--journal", journal_arg]
    over = f", {entry.status} {_local(entry.finished_at, True)}" if entry.finished_at else ""
    lines = [
        f"{HEADER_MARK}{entry.id} on board {header_json(entry.board)}: {entry.status}",
        f"game: {game.id} ({game.name})",
        f"started: {_local(entry.started_at, True)}{over} (local time)",
        f"players: {header_json(entry.players)}",
        f"teams: {header_json(entry.teams)}",
        f"options: {header_json(game.options)}",
    ]
    if match.format is not None:  # oche replay plays the log as this match
        lines.append(f"{MATCH_KEY}: {header_json(match.format.to_json())} ({match.format})")
    if entry.bots is not None:  # who was a computer player (oche replay ignores the line)
        lines.append(f"cpu: {header_json(entry.bots.get('players'))}")
    winner = _winner(state)
    if winner is not None:
        lines.append(f"winner: {winner} ({state['result']})")
    if match.format is not None:
        lines.append(f"legs: {'-'.join(map(str, match.legs_won()))}")
    if entry.result is not None:
        lines.append(f"result: {header_json(entry.result)}")
    unsafe = _unsafe(shlex.join(export))
    rescore = f"oche export {entry.id} --journal PATH" if unsafe else shlex.join(export)
    lines.append(f"re-score: {rescore} | oche replay -")
    lines += [f"note: {note}" for note in refused]
    if not game.is_finished and game.visit:
        darts = " ".join(bed.notation for bed in game.visit)
        lines.append(f"note: the last visit ({darts}) was in progress; a replay ends it")
    header = "".join(f"# {_printable(line)}\n" for line in lines)
    if match.format is not None:
        return header + format_match_log(match, awards=True)
    return header + format_game_log(game, awards=True)


def _printable(text: str) -> str:
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


# ---------------------------------------------------------------- commands


def _journal_path(args: argparse.Namespace) -> Path:
    """``--journal``, else the journal of the daemon's config (``--config``, or
    the file ``oche run`` would find), else the default path."""
    if args.journal is not None:
        return Path(args.journal).expanduser()
    try:
        return load_config(args.config).journal.resolved_path()
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _journal(args: argparse.Namespace) -> Journal:
    path = _journal_path(args)
    if not path.is_file():
        hint = "" if args.journal is not None else " (no game has been journaled yet)"
        raise UsageError(f"no journal at {path}{hint}")
    return Journal(path)


def _history(args: argparse.Namespace) -> int:
    try:
        with _journal(args) as journal:
            entries = history_entries(journal, args.limit, args.board)
    except JournalError as error:
        raise UsageError(str(error)) from None
    if args.json:
        sys.stdout.write(json.dumps(entries, ensure_ascii=False, indent=2) + "\n")
    elif entries:
        sys.stdout.write(history_table(entries))
    else:
        where = f" on board {args.board!r}" if args.board is not None else ""
        sys.stdout.write(f"no games{where}\n")
    return 0


def _export(args: argparse.Namespace) -> int:
    wanted = str(args.game_id).strip()
    try:
        with _journal(args) as journal:
            try:
                if not wanted.isdecimal():
                    raise JournalError(f"journal {journal.path}: no game or match {wanted!r}")
                entry = journal.games.game(int(wanted))
            except JournalError as error:
                guest = journal.remote.guest_find(wanted) if wanted else None
                if guest is None:
                    raise error from None
                raise UsageError(hosted_elsewhere(guest)) from None
    except JournalError as error:
        raise UsageError(str(error)) from None
    sys.stdout.write(export_text(entry, args.journal))
    return 0


def hosted_elsewhere(match: GuestMatch) -> str:
    """Why ``oche export`` has no log of a match this board joined as a guest."""
    return (
        f"match {match.match} was hosted by {match.host}; this board ({match.board}) was a "
        "guest and journals only the actions it forwarded: the darts are in the host's "
        f"journal (run oche export there, on {match.host})"
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not 1 or more")
    return value


def _journal_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal",
        metavar="PATH",
        help="the journal file (default: the one in the daemon's config, "
        f"else {default_journal_path()})",
    )
    parser.add_argument("--config", metavar="FILE", help="the daemon's config file")


def add_parser(commands: Commands) -> None:
    history = commands.add_parser(
        "history",
        help="list past games from the journal",
        description="List the journaled games, newest first: id, start time (local), game, "
        "status, where its result is (stored by a leaderboard, sent to the broker, pending), "
        "winner, darts thrown and players, with the remote matches this board hosted or "
        "joined as a guest.",
    )
    _journal_argument(history)
    history.add_argument("--board", metavar="ID", help="only this board's games")
    history.add_argument(
        "--limit", type=_positive, default=50, metavar="N", help="at most N games (default 50)"
    )
    history.add_argument("--json", action="store_true", help="print JSON")
    history.set_defaults(run=_history)

    export = commands.add_parser(
        "export",
        help="print a journaled game as an oche replay log",
        description="Print a journaled game as a game log for 'oche replay': comment lines "
        "naming the game, players, teams, options and the command that re-scores it, then "
        "one visit per line.",
    )
    export.add_argument(
        "game_id",
        metavar="GAME_ID",
        help="the id oche history shows (a remote match joined as a guest: its match id)",
    )
    _journal_argument(export)
    export.set_defaults(run=_export)
