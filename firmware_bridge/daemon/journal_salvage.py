"""A damaged journal read back: checked, set aside, and salvaged into a fresh one.

SD cards corrupt files. A journal SQLite cannot read (a page of garbage, a
file cut short, a zeroed header: :class:`~firmware_bridge.daemon.journal.JournalDamaged`
from :meth:`Journal.open`) must not leave the board dead. At start the daemon
calls :func:`salvage_in_place`: the damaged file is renamed aside, never
changed or deleted (``journal.sqlite3.damaged-2026-12-02T011500``, its
``-wal`` with it), a fresh journal is created at the path by the normal
:class:`Journal` code, and what can be read is copied into it
(:func:`salvage_journal`, also ``oche journal salvage FILE``).

What is read comes from a copy of the damaged file (SQLite may write to what it
opens); a header SQLite does not recognise is rebuilt in the copy. Every
table of the fresh schema is copied with the columns both files have (so a
journal of an older schema, or a newer column, copies as it is), parents
before children, row by row: a table is read forward until a damaged page
stops it, then backward from its end, and the rowids between are looked up
one by one. A row whose parent was lost keeps its place with the reference
cleared where the column may be NULL (a credit line whose game was lost), and
is dropped where it may not; a result still to send whose game row was lost
brings the game back from the result itself. A game's events are all or
nothing: an unfinished game whose events cannot all be read is lost (marked
ended); a finished one gets them back from its result's log when its own
cannot be read. The books' running totals are not copied but summed again
from what was. See docs/journal.md.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import struct
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from engine import END_VISIT, MISS, Bed, EngineError, Game, MatchFormat, new_game
from engine.game_log import parse_game_log
from engine.match import Match
from firmware_bridge.daemon.journal import (
    APPLICATION_ID,
    Journal,
    JournalError,
    schema_version_of,
)
from firmware_bridge.daemon.journal.totals import BOOKS_TABLES, rebuild_books

__all__ = [
    "DAMAGED_MARK",
    "JournalCheck",
    "SalvageReport",
    "check_journal",
    "salvage_in_place",
    "salvage_journal",
    "set_aside",
]

DAMAGED_MARK = ".damaged-"
"""What a damaged journal's name gets, before the date it was set aside."""

_MAGIC = b"SQLite format 3\x00"
_PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
"""The page sizes tried for a header that was lost, the default first."""

_PROBES = 200_000
"""At most this many rowids are looked up one by one in a table's damaged stretch."""

_Row = tuple[Any, ...]


# ------------------------------------------------------------------- check


@dataclass(frozen=True)
class JournalCheck:
    """What :func:`check_journal` found: SQLite's ``problems`` (none for a
    sound file), the schema version and the rows of each table (where they
    could be counted)."""

    path: Path
    problems: tuple[str, ...]
    schema_version: int | None
    rows: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_journal(path: Path) -> JournalCheck:
    """Check the journal at ``path`` without writing to it (safe while the
    daemon runs): SQLite's full ``integrity_check``, and the rows of each
    table. A file that is not an Oche journal (another program's database, a
    newer Oche's) is a :class:`JournalError`; a missing one too."""
    if not path.is_file():
        raise JournalError(f"journal {path}: no such file")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise JournalError(f"journal {path}: cannot open: {error}") from None
    try:
        try:
            version = schema_version_of(connection, path)
            problems = [str(row[0]) for row in connection.execute("PRAGMA integrity_check(20)")]
        except sqlite3.Error as error:
            return JournalCheck(path, (str(error),), None)
        if problems != ["ok"]:
            return JournalCheck(path, tuple(problems), version)
        rows = {}
        for table in _tables(connection):
            rows[table] = int(connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
        return JournalCheck(path, (), version, rows)
    finally:
        connection.close()


# ----------------------------------------------------------------- salvage


@dataclass
class SalvageReport:
    """What :func:`salvage_journal` read from ``source`` into ``target``."""

    source: Path
    target: Path
    problems: list[str] = field(default_factory=list)
    """What SQLite said of the damaged file (a few lines)."""
    copied: dict[str, int] = field(default_factory=dict)
    """Rows copied, per table."""
    dropped: dict[str, int] = field(default_factory=dict)
    """Rows read but not kept (their parent lost, a constraint broken), per table."""
    unreadable: list[str] = field(default_factory=list)
    """Tables that could not be read to the end: rows of theirs may be lost."""
    missing: dict[str, int] = field(default_factory=dict)
    """Of those, the rows the damaged file's own counter says it had and
    could not be read (at most: a reopened game's result leaves a gap)."""
    rebuilt: list[int] = field(default_factory=list)
    """Finished games whose events came back from their result's log."""
    resumed: list[int] = field(default_factory=list)
    """Unfinished games with all their events: they play on."""
    lost: list[int] = field(default_factory=list)
    """Unfinished games whose events could not all be read: ended."""
    games: int = 0
    results_to_send: int = 0
    credit_lines: int = 0
    failed: str | None = None
    """Why nothing could be salvaged (the fresh journal is empty), or ``None``."""

    @property
    def credits_whole(self) -> bool:
        """Every credit line was read and kept (the credits held are as they were)."""
        return "credit_ledger" not in self.unreadable and not self.dropped.get("credit_ledger")

    def summary(self) -> str:
        """What was salvaged and what was lost, in one line (the daemon's log)."""
        if self.failed is not None:
            return f"nothing could be salvaged ({self.failed}): the journal starts empty"
        parts = [
            f"salvaged {_count(self.games, 'game')}, "
            f"{_count(self.results_to_send, 'result')} still to send and "
            f"{_count(self.credit_lines, 'credit line')}"
        ]
        parts += [f"the game in progress ({game_id}) plays on" for game_id in self.resumed]
        parts += [
            f"the game in progress ({game_id}) is lost: its darts were damaged"
            for game_id in self.lost
        ]
        if self.rebuilt:
            parts.append(f"{_count(len(self.rebuilt), 'finished game')}: darts from the result")
        if self.missing:
            lost = [
                _count(n, _ROWS.get(table, f"{table} row")) for table, n in self.missing.items()
            ]
            parts.append(f"lost, unreadable: up to {', '.join(lost)}")
        elif self.unreadable:
            parts.append(f"rows may be missing from {', '.join(self.unreadable)}")
        dropped = sum(self.dropped.values())
        if dropped:
            parts.append(f"{_count(dropped, 'row')} dropped (their game was lost)")
        return "; ".join(parts)

    def screen_line(self) -> str:
        """What a screen says (the state's ``journal.salvaged``): short."""
        if self.failed is not None:
            return "nothing could be saved"
        saved = _count(self.games, "game")
        words = f"{saved} and the credits saved" if self.credits_whole else f"{saved} saved"
        if self.lost:
            return f"{words}; the game was lost"
        if self.missing.get("games"):
            return f"{words}; {_count(self.missing['games'], 'game')} lost"
        if self.resumed:
            return f"{words}; the game plays on"
        return words


_ROWS = {
    "games": "game",
    "outbox": "result",
    "credit_ledger": "credit line",
    "ignored": "ignored contact",
    "books_resets": "books reset",
}
"""What a row of a table is, in the report's words."""


def _count(number: int, what: str) -> str:
    return f"{number} {what}{'' if number == 1 else 's'}"


def _ids(ids: Sequence[int]) -> str:
    return ", ".join(str(i) for i in ids)


def set_aside(path: Path, now: float) -> Path:
    """Rename the journal at ``path`` (and its ``-wal`` and ``-shm``) to
    ``<name>.damaged-<local date and time>``, never over another file; the new path."""
    stamp = datetime.fromtimestamp(now).strftime("%Y-%m-%dT%H%M%S")
    aside = path.with_name(f"{path.name}{DAMAGED_MARK}{stamp}")
    number = 1
    while any(Path(f"{aside}{suffix}").exists() for suffix in ("", "-wal", "-shm")):
        number += 1
        aside = path.with_name(f"{path.name}{DAMAGED_MARK}{stamp}-{number}")
    for suffix in ("-wal", "-shm", ""):  # the database last: a crash leaves it findable
        side = Path(f"{path}{suffix}")
        if side.exists():
            side.rename(f"{aside}{suffix}")
    return aside


def salvage_in_place(path: Path, now: float) -> SalvageReport:
    """The daemon's start on a damaged journal: set it aside (:func:`set_aside`)
    and salvage it into a fresh journal at ``path``. Should the salvage fail,
    the fresh journal is left empty (the damaged file is kept all the same)."""
    aside = set_aside(path, now)
    try:
        return salvage_journal(aside, path)
    except Exception as error:  # a bug here must not leave the board without a journal
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with Journal(path):
            pass
        report = SalvageReport(aside, path, failed=f"{type(error).__name__}: {error}")
        report.unreadable.append("every table")
        return report


def salvage_journal(source: Path, target: Path) -> SalvageReport:
    """Read what can be read of the journal ``source`` (never written to)
    into a fresh journal at ``target``, which must not exist yet."""
    if target.exists():
        raise JournalError(f"journal {target}: already exists; salvage writes a new journal")
    if not source.is_file():
        raise JournalError(f"journal {source}: no such file")
    report = SalvageReport(source, target)
    with tempfile.TemporaryDirectory(prefix="oche-salvage-") as scratch:
        copy = _readable_copy(source, Path(scratch))
        reader = sqlite3.connect(copy, isolation_level=None)
        try:
            report.problems = _problems(reader)
            with Journal(target):  # the fresh schema, as the daemon makes it
                pass
            writer = sqlite3.connect(target, isolation_level=None)
            try:
                writer.execute("PRAGMA foreign_keys = ON")
                writer.execute("BEGIN IMMEDIATE")
                _copy_all(reader, writer, report)
                writer.execute("COMMIT")
            finally:
                writer.close()
        finally:
            reader.close()
    with Journal(target) as salvaged:  # opens: the fresh journal is sound
        report.games = len(salvaged.games.games(limit=1 << 30))
        report.results_to_send = len(salvaged.outbox.pending_results())
    return report


# ------------------------------------------------------- reading the damage


def _readable_copy(source: Path, scratch: Path) -> Path:
    """A copy of ``source`` (and its ``-wal``) SQLite can open: with a header
    rebuilt when SQLite does not recognise the file's."""
    copy = scratch / "damaged.sqlite3"
    shutil.copyfile(source, copy)
    wal = Path(f"{source}-wal")
    if wal.is_file():
        shutil.copyfile(wal, f"{copy}-wal")
    if not _opens(copy):
        _rebuild_header(copy, Path(f"{copy}-wal"))
    return copy


def _opens(path: Path) -> bool:
    """SQLite reads ``path``'s header and schema (whatever else is damaged)."""
    try:
        connection = sqlite3.connect(path)
        try:
            names = {str(row[0]) for row in connection.execute("SELECT name FROM sqlite_master")}
        finally:
            connection.close()
    except sqlite3.Error:
        return False
    return "games" in names


def _rebuild_header(path: Path, wal: Path) -> None:
    """Write a database header into ``path``'s first 100 bytes (its page 1's
    b-tree, the schema, starts after them), trying each page size (the
    write-ahead log's first) until SQLite reads the schema."""
    sizes = list(_PAGE_SIZES)
    if wal.is_file():
        with wal.open("rb") as log:
            head = log.read(32)
        if len(head) == 32 and struct.unpack(">I", head[8:12])[0] in _PAGE_SIZES:
            sizes.insert(0, struct.unpack(">I", head[8:12])[0])
    original = path.read_bytes()[:100]
    for size in sizes:
        with path.open("r+b") as file:
            file.write(_header(size, path.stat().st_size // size, wal.is_file()))
        if _opens(path):
            return
    with path.open("r+b") as file:
        file.write(original)


def _header(page_size: int, pages: int, wal: bool) -> bytes:
    """A database header for a file of ``pages`` pages of ``page_size``
    (https://www.sqlite.org/fileformat.html#the_database_header); the free
    list is left empty, which reading does not need."""
    version = 2 if wal else 1
    return (
        _MAGIC
        + struct.pack(">H", 1 if page_size == 65536 else page_size)
        + bytes([version, version, 0, 64, 32, 32])
        + struct.pack(">IIIIIIIIIIII", 1, pages, 0, 0, 1, 4, 0, 0, 1, 0, 0, APPLICATION_ID)
        + bytes(20)
        + struct.pack(">II", 1, 3_040_000)
    )


def _problems(reader: sqlite3.Connection) -> list[str]:
    try:
        found = [str(row[0]) for row in reader.execute("PRAGMA quick_check(10)")]
    except sqlite3.Error as error:
        return [str(error)]
    return [] if found == ["ok"] else found


def _tables(connection: sqlite3.Connection) -> list[str]:
    """The journal's tables, SQLite's own left out."""
    rows = connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid"
    ).fetchall()
    return [str(name) for (name,) in rows]


@dataclass(frozen=True)
class _Table:
    """A table of the fresh schema: its columns, key and parents."""

    name: str
    columns: tuple[str, ...]
    nullable: frozenset[str]
    key: tuple[str, ...]
    """The primary key of a WITHOUT ROWID table; ``("rowid",)`` otherwise."""
    parents: dict[str, tuple[str, str]]
    """Column -> (parent table, parent column)."""


def _schema(connection: sqlite3.Connection) -> list[_Table]:
    """The tables of ``connection``'s journal, parents before children."""
    tables: dict[str, _Table] = {}
    for name in _tables(connection):
        info = connection.execute(f'PRAGMA table_info("{name}")').fetchall()
        sql = connection.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()[0]
        keyed = sorted((int(row[5]), str(row[1])) for row in info if int(row[5]) > 0)
        without_rowid = "WITHOUT ROWID" in str(sql).upper()
        parents = {
            str(row[3]): (str(row[2]), str(row[4]))
            for row in connection.execute(f'PRAGMA foreign_key_list("{name}")')
        }
        tables[name] = _Table(
            name,
            tuple(str(row[1]) for row in info),
            frozenset(str(row[1]) for row in info if not row[3] and not row[5]),
            tuple(column for _, column in keyed) if without_rowid else ("rowid",),
            parents,
        )
    ordered: list[_Table] = []
    while tables:
        ready = [
            t
            for t in tables.values()
            if all(parent not in tables or parent == t.name for parent, _ in t.parents.values())
        ]
        for table in ready or list(tables.values()):  # a cycle: as they come
            ordered.append(tables.pop(table.name))
    return ordered


def _scan(
    reader: sqlite3.Connection, sql: str, parameters: Sequence[Any] = ()
) -> tuple[list[_Row], bool]:
    """The rows ``sql`` gives until a damaged page stops it, and whether it
    read to the end."""
    rows: list[_Row] = []
    try:
        for row in reader.execute(sql, parameters):
            rows.append(tuple(row))
    except sqlite3.Error:
        return rows, False
    return rows, True


def _read_rows(
    reader: sqlite3.Connection, table: _Table, columns: Sequence[str], highest: int | None
) -> tuple[list[_Row], bool]:
    """Every row of ``table`` that can be read, as ``(key..., columns...)``
    in key order, and whether nothing was in the way."""
    key = ", ".join(f'"{c}"' if c != "rowid" else "rowid" for c in table.key)
    selected = ", ".join([key, *(f'"{c}"' for c in columns)])
    base = f'SELECT {selected} FROM "{table.name}" NOT INDEXED'
    forward, complete = _scan(reader, f"{base} ORDER BY {key}")
    if complete:
        return forward, True
    backward, _ = _scan(reader, f"{base} ORDER BY {_descending(table.key)}")
    width = len(table.key)
    rows = {row[:width]: row for row in forward}
    rows.update((row[:width], row) for row in backward)
    if table.key == ("rowid",):
        low = int(forward[-1][0]) if forward else 0
        high = int(backward[-1][0]) if backward else max(highest or 0, low) + 1
        for rowid in range(low + 1, min(high, low + 1 + _PROBES)):
            found, _ = _scan(reader, f"{base} WHERE rowid = ?", (rowid,))
            rows.update((row[:width], row) for row in found)
    return [rows[k] for k in sorted(rows, key=_sortable)], False


def _descending(key: Sequence[str]) -> str:
    return ", ".join(f'"{c}" DESC' if c != "rowid" else "rowid DESC" for c in key)


def _sortable(key: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    """A key that sorts whatever types a damaged row's key has."""
    return tuple((0, value) if isinstance(value, int | float) else (1, str(value)) for value in key)


# ------------------------------------------------------------------ copying


def _copy_all(
    reader: sqlite3.Connection, writer: sqlite3.Connection, report: SalvageReport
) -> None:
    """Copy every table (events last, game by game), then the sequences;
    the books' running totals are summed again from what was copied."""
    sequences = _sequences(reader)
    found = _readable_tables(reader)
    for table in _schema(writer):
        if table.name in ("events", *BOOKS_TABLES) or table.name not in found:
            continue
        columns = _shared_columns(reader, writer, table)
        rows, complete = _read_rows(reader, table, columns, sequences.get(table.name))
        if not complete:
            report.unreadable.append(table.name)
        width = len(table.key)
        for row in rows:
            values = dict(zip(columns, row[width:], strict=True))
            if _insert(writer, table, values):
                report.copied[table.name] = report.copied.get(table.name, 0) + 1
            else:
                report.dropped[table.name] = report.dropped.get(table.name, 0) + 1
    if "events" in found:
        _copy_events(reader, writer, report)
    for name in report.unreadable:
        kept = int(writer.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
        if sequences.get(name, 0) > kept:
            report.missing[name] = sequences[name] - kept
    for name, seq in sequences.items():
        writer.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name))
        writer.execute(
            "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS "
            "(SELECT 1 FROM sqlite_sequence WHERE name = ?)",
            (name, seq, name),
        )
    report.credit_lines = report.copied.get("credit_ledger", 0)
    rebuild_books(writer)


def _readable_tables(reader: sqlite3.Connection) -> set[str]:
    try:
        return set(_tables(reader))
    except sqlite3.Error:
        return set()


def _sequences(reader: sqlite3.Connection) -> dict[str, int]:
    """The damaged file's AUTOINCREMENT counters (what it read of them)."""
    rows, _ = _scan(reader, "SELECT name, seq FROM sqlite_sequence")
    return {str(name): int(seq) for name, seq in rows if isinstance(seq, int)}


def _shared_columns(
    reader: sqlite3.Connection, writer: sqlite3.Connection, table: _Table
) -> list[str]:
    """The fresh table's columns the damaged one has too, in the fresh order."""
    try:
        old = {str(row[1]) for row in reader.execute(f'PRAGMA table_info("{table.name}")')}
    except sqlite3.Error:
        return []
    return [column for column in table.columns if column in old]


def _insert(writer: sqlite3.Connection, table: _Table, values: dict[str, Any]) -> bool:
    """Insert one row: where a parent was lost, with the reference cleared
    if the column may be NULL, or with the parent brought back from the row
    (a result's game); ``False`` when it cannot be kept."""
    for _attempt in range(2):
        names = list(values)
        quoted = ", ".join(f'"{name}"' for name in names)
        marks = ", ".join("?" for _ in names)
        sql = f'INSERT INTO "{table.name}" ({quoted}) VALUES ({marks})'
        try:
            writer.execute(sql, [values[n] for n in names])
            return True
        except sqlite3.IntegrityError:
            pass
        except sqlite3.Error:
            return False
        repaired = False
        for column, (parent, parent_column) in table.parents.items():
            value = values.get(column)
            if value is None or _exists(writer, parent, parent_column, value):
                continue
            if column in table.nullable:
                values = {**values, column: None}
                repaired = True
            elif table.name == "outbox" and parent == "games":
                repaired = _game_from_result(writer, value, values.get("payload"))
        if not repaired:
            return False
    return False


def _exists(writer: sqlite3.Connection, table: str, column: str, value: Any) -> bool:
    found = writer.execute(f'SELECT 1 FROM "{table}" WHERE "{column}" = ?', (value,)).fetchone()
    return found is not None


def _game_from_result(writer: sqlite3.Connection, game_id: Any, payload: Any) -> bool:
    """Bring back the finished game ``game_id`` from its result (the outbox's
    payload names the game, board, players, teams, options, times, winner,
    and a match's format)."""
    try:
        result = json.loads(payload)
        players = [str(player["name"]) for player in result["players"]]
        teams = result.get("teams")
        teams_json = (
            None
            if not teams
            else json.dumps({t["name"]: [players[i] for i in t["players"]] for t in teams})
        )
        finished = float(result["finished_at"])
        started = result.get("started_at")
        row = (
            int(game_id),
            str(result["game"]),
            json.dumps(result["options"]),
            json.dumps(players),
            teams_json,
            str(result["board"]),
            finished if started is None else float(started),
            finished,
            json.dumps({"winner": result["winner"], "result": result["result"]}),
        )
        match_format = result.get("match_format")
        writer.execute(
            "INSERT INTO games (id, game, options, players, teams, board, started_at, "
            "finished_at, status, result, match) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'finished', ?, ?)",
            (*row, None if match_format is None else json.dumps(match_format)),
        )
    except (ValueError, TypeError, KeyError, IndexError, sqlite3.Error):
        return False
    return True


def _copy_events(
    reader: sqlite3.Connection, writer: sqlite3.Connection, report: SalvageReport
) -> None:
    """Each salvaged game's events, all or none: an unfinished game without
    them all is ended (lost); a finished one takes its result's log instead."""
    games = writer.execute(
        "SELECT id, game, options, players, teams, status, started_at, match FROM games ORDER BY id"
    ).fetchall()
    copied = dropped = 0
    for game_id, game, options, players, teams, status, started_at, match in games:
        rows, complete = _scan(
            reader,
            "SELECT seq, token, at FROM events NOT INDEXED WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        complete = complete and [row[0] for row in rows] == list(range(1, len(rows) + 1))
        if not complete and status == "finished":
            setup = _Setup(game, options, players, teams, match)
            rebuilt = _events_from_result(writer, game_id, setup)
            if rebuilt is not None:
                rows, complete = rebuilt, True
                report.rebuilt.append(int(game_id))
        if not complete:
            dropped += len(rows)
            if status == "playing":
                last = max([float(row[2]) for row in rows], default=float(started_at))
                writer.execute(
                    "UPDATE games SET status = 'ended', finished_at = ? WHERE id = ?",
                    (last, game_id),
                )
                report.lost.append(int(game_id))
            continue
        try:
            writer.executemany(
                "INSERT INTO events (game_id, seq, token, at) VALUES (?, ?, ?, ?)",
                [(game_id, seq, token, at) for seq, token, at in rows],
            )
        except sqlite3.Error:
            dropped += len(rows)
            continue
        copied += len(rows)
        if status == "playing":
            report.resumed.append(int(game_id))
    report.copied["events"] = copied
    if dropped:
        report.dropped["events"] = dropped


@dataclass(frozen=True)
class _Setup:
    """A journaled game's set-up as its ``games`` row keeps it (JSON texts)."""

    game: str
    options: str
    players: str
    teams: str | None
    match: str | None


def _events_from_result(
    writer: sqlite3.Connection, game_id: int, setup: _Setup
) -> list[_Row] | None:
    """A finished game's events from its result's log (the effective events:
    undone darts left out), replayed to its finish; a match's from its legs'
    logs, a NEXT between legs; ``None`` without them."""
    found = writer.execute(
        "SELECT payload, created_at FROM outbox WHERE game_id = ? ORDER BY id DESC LIMIT 1",
        (game_id,),
    ).fetchone()
    if found is None:
        return None
    try:
        result = json.loads(found[0])
        players = json.loads(setup.players)
        options = json.loads(setup.options)
        teams = None if setup.teams is None else json.loads(setup.teams)
        if setup.match is None:
            engine_game = new_game(setup.game, players, options, teams)
            tokens = list(_tokens_to_finish(engine_game, result["log"]))
            finished = engine_game.is_finished
        else:
            match_format = MatchFormat.from_json(json.loads(setup.match))
            played = Match(setup.game, players, options, teams, format=match_format)
            tokens = list(_match_tokens(played, result["legs"]))
            finished = played.is_finished
    except (ValueError, TypeError, KeyError, EngineError):
        return None
    if not finished:
        return None
    at = float(found[1])
    return [(seq, token, at) for seq, token in enumerate(tokens, start=1)]


def _match_tokens(played: Match, legs: Sequence[dict[str, Any]]) -> Iterator[str]:
    """A match's tokens from its result's legs: each leg's log to its finish
    and a NEXT after it. A result keeps no cork darts: a leg a cork decided
    gets one thrown again as the leg's starter's bull against the others' misses."""
    for number, leg in enumerate(legs):
        if number:
            played.push(END_VISIT)
            yield str(END_VISIT)
        while (thrower := played.cork_thrower) is not None:
            cork_dart = Bed(25, 2) if thrower == int(leg["starter"]) else MISS
            played.push(cork_dart)
            yield cork_dart.notation
        yield from _tokens_to_finish(played, str(leg["log"]))


def _tokens_to_finish(target: Game | Match, log: str) -> Iterator[str]:
    """The log's tokens the engine takes, up to the game's finish (a match's:
    up to the finish of the leg in progress)."""
    for logged in parse_game_log(log):
        if (target.leg if isinstance(target, Match) else target).is_finished:
            return
        try:
            target.push(logged.event)
        except EngineError:
            continue
        yield str(logged.event)
