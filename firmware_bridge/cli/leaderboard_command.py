"""``oche leaderboard``: the results service and its database.

``import`` stores result documents (one JSON object per line) as the MQTT
ingest does, ``show`` prints a game's table, ``rename`` and ``forget`` change
players, ``rescore`` tries the results this service failed on again,
``serve`` runs the service (MQTT ingest and the HTTP app), ``handicap``
suggests fair handicaps from the players' figures (``leaderboard.handicaps``),
``admin-password`` hashes the admin views' password for the config
(``oche players``, the roster's commands, shares this module's database and
config helpers and its ``forget``). The
database is ``--db URL``, else ``[leaderboard] db`` of the config, else
``sqlite:///$XDG_STATE_HOME/oche/leaderboard.sqlite3``; venues come from the
config's ``[leaderboard]`` too. The leaderboard's modules (SQLAlchemy, ...)
are imported only when a sub-command runs, so ``oche run`` never loads them.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from engine import UnknownGameError, game_class, game_ids
from engine.traits import Family
from firmware_bridge.cli.command_support import Commands, UsageError, read_secret
from firmware_bridge.daemon.config import Config, ConfigError, load_config
from mqtt_contract import PERIODS, BrokerAddress, BrokerUrlError, parse_broker_url

if TYPE_CHECKING:
    from leaderboard.api_models import Row
    from leaderboard.database import Database
    from leaderboard.service import ServiceSettings
    from leaderboard.venues import VenueMap

__all__ = [
    "add_parser",
    "broker_settings",
    "cli_config",
    "db_url",
    "forget_and_republish",
    "import_lines",
    "open_database",
    "parse_http_address",
    "republish",
    "rescore_text",
    "rows_table",
    "venue_map",
]

DEFAULT_HTTP = "127.0.0.1:8080"


def cli_config(args: argparse.Namespace) -> Config:
    """The config of ``--config`` (else the search path's); its error a UsageError."""
    try:
        return load_config(args.config)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def venue_map(config: Config) -> VenueMap:
    """The board → venue map (and venues' time zones) of the config's
    ``[leaderboard]`` section: what ``import``, ``serve`` and ``oche play
    --leaderboard`` file each board's results under."""
    from leaderboard.venues import VenueMap

    section = config.leaderboard
    return VenueMap(
        boards=dict(section.venues),
        default=section.venue,
        timezone=section.timezone,
        timezones=dict(section.timezones),
    )


def db_url(args: argparse.Namespace, config: Config) -> str:
    """``--db``, else ``[leaderboard] db``, else the default SQLite file."""
    from leaderboard.database import default_url

    return str(args.db or config.leaderboard.db or default_url())


@contextmanager
def open_database(url: str, create: bool = False) -> Iterator[Database]:
    """The database at ``url``, migrated; a bad URL or an unreachable server
    is a usage error naming it. Unless ``create`` (``import``), a SQLite file
    that is not there is one too: a mistyped path must not become an empty
    database that has no games. (PostgreSQL makes no database on connecting.)"""
    from sqlalchemy.exc import SQLAlchemyError

    from leaderboard.database import Database, DatabaseUrlError

    try:
        database = Database(url)
    except DatabaseUrlError as error:
        raise UsageError(f"--db: {error}") from None
    path = database.sqlite_file
    if not create and path is not None and not path.exists():
        raise UsageError(
            f"there is no leaderboard database at {path}: check --db or [leaderboard] db "
            "(oche leaderboard import or serve creates one)"
        )
    try:
        try:
            database.migrate()
        except (SQLAlchemyError, OSError) as error:
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()
            raise UsageError(
                f"cannot open the database {url}: {reason[0] if reason else error}"
            ) from None
        yield database
    finally:
        database.dispose()


def _read_lines(path: str) -> Iterator[bytes]:
    if path == "-":
        yield from sys.stdin.buffer
        return
    try:
        with open(path, "rb") as handle:
            yield from handle
    except OSError as error:
        raise UsageError(f"cannot read {path!r}: {error.strerror}") from None


def import_lines(database: Database, lines: Iterator[bytes], venues: VenueMap) -> dict[str, Any]:
    """Store each non-blank line as a result payload; the summary ``import`` prints."""
    from leaderboard.store import ingest, summarize

    payloads = (line.strip() for line in lines)
    return summarize(ingest(database, payload, venues) for payload in payloads if payload)


def _import(args: argparse.Namespace) -> int:
    logging.getLogger("leaderboard.store").setLevel(logging.WARNING)  # the summary says it all
    config = cli_config(args)
    with open_database(db_url(args, config), create=True) as database:
        summary = import_lines(database, _read_lines(args.file), venue_map(config))
    sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
    return 0


def _number(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


_COLUMNS: dict[Family, list[tuple[str, str]]] = {
    Family.COUNTDOWN: [
        ("3DA", "three_dart_average"),
        ("FIRST9", "first9_average"),
        ("CO%", "checkout_percent"),
        ("HI-CO", "highest_checkout"),
        ("BEST", "best_leg_darts"),
        ("100+", "count_100"),
        ("140+", "count_140"),
        ("180", "count_180"),
    ],
    Family.POINTS: [("PPD", "points_per_dart")],
    Family.MARKS: [
        ("MPR", "mpr"),
        ("BEST-MPR", "best_game_mpr"),
        ("5M", "count_5_marks"),
        ("7M", "count_7_marks"),
        ("9M", "count_9_marks"),
    ],
}


def rows_table(game: str, rows: list[Row]) -> str:
    """The text table ``show`` prints: rank, player, venue, played and won
    (matches), legs won-lost, win %, rating, then the game's own figures."""
    extra = _COLUMNS.get(game_class(game).family, [("BEST", "highlight")])
    header = [
        "#", "PLAYER", "VENUE", "PLAYED", "WON", "LEGS", "WIN%", "RATING", *(h for h, _ in extra)
    ]  # fmt: skip
    body = [
        [
            str(row.rank),
            row.player,
            row.venue,
            str(row.played),
            str(row.won),
            f"{row.legs_won}-{row.legs_lost}",
            f"{row.win_percent:.1f}",
            f"{row.rating:.2f}",
            *(_number(getattr(row, key, None)) for _, key in extra),
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    text = {1, 2}  # player and venue read left to right; numbers right-aligned

    def line(cells: list[str]) -> str:
        return (
            "  ".join(
                cell.ljust(width) if i in text else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
            + "\n"
        )

    return "".join(line(cells) for cells in [header, *body])


def _show(args: argparse.Namespace) -> int:
    from leaderboard.queries import DEFAULT_TABLE_LIMIT, MAX_TABLE_LIMIT, leaderboard, venue_names

    limit = DEFAULT_TABLE_LIMIT if args.limit is None else args.limit
    if limit > MAX_TABLE_LIMIT:
        raise UsageError(f"--limit {limit} is over {MAX_TABLE_LIMIT} rows; page with --offset")
    config = cli_config(args)
    with open_database(db_url(args, config)) as database, database.session() as session:
        venues = venue_names(session)
        if args.venue is not None and args.venue not in venues:
            known = ", ".join(map(repr, venues)) or "none yet"
            raise UsageError(
                f"--venue {args.venue!r}: no games were played there; the venues are {known}"
            )
        rows = leaderboard(
            session, args.game, args.period, args.venue, limit=limit, offset=args.offset
        )
    if args.json:
        dumped = [row.model_dump(mode="json") for row in rows]
        sys.stdout.write(json.dumps(dumped, ensure_ascii=False, indent=2) + "\n")
    elif rows:
        sys.stdout.write(rows_table(args.game, rows))
    else:
        where = f" at {args.venue}" if args.venue else ""
        sys.stdout.write(f"no {args.game} games{where} in this period ({args.period})\n")
    return 0


def _rename(args: argparse.Namespace) -> int:
    from leaderboard.players import PlayerError, rename

    config = cli_config(args)
    with open_database(db_url(args, config)) as database:
        try:
            outcome = rename(database, args.old, args.new, args.venue)
        except PlayerError as error:
            raise UsageError(str(error)) from None
    games = f"{outcome.games} game{'s' if outcome.games != 1 else ''}"
    verb = "merged" if outcome.merged else "renamed"
    into = "into" if outcome.merged else "to"
    sys.stdout.write(
        f"{verb} {args.old.strip()!r} {into} {outcome.name!r} at {outcome.venue} ({games})\n"
    )
    return 0


def _forget(args: argparse.Namespace) -> int:
    return forget_and_republish(args, args.name, "oche leaderboard")


def forget_and_republish(args: argparse.Namespace, ref: str | int, command: str) -> int:
    """Forget the player ``ref`` (a name or a roster id; ``oche leaderboard
    forget`` and ``oche players forget``), say what went, and publish every
    retained snapshot again so none shows the name (``command`` says who
    writes a problem on stderr). The player's cards go with the name."""
    from leaderboard.players import FORGOTTEN_NAME, PlayerError, forget

    config = cli_config(args)
    settings = broker_settings(args, config)
    with open_database(settings.db_url) as database:
        try:
            outcome = forget(database, ref, args.venue, venue_map(config))
        except PlayerError as error:
            raise UsageError(str(error)) from None
        kept = ""
        if outcome.kept:
            kept = (
                f"; the name is gone from {outcome.kept} result{'s' if outcome.kept != 1 else ''}"
            )
            kept += " not counted (rejected, failed or superseded)"
        who = ref.strip() if isinstance(ref, str) else f"player {ref}"
        sys.stdout.write(
            f"forgot {who!r} at {outcome.venue}: their name and ratings are "
            f"deleted; {outcome.games} {'game stays' if outcome.games == 1 else 'games stay'} as "
            f"{FORGOTTEN_NAME!r}{kept}\n"
        )
        sys.stdout.flush()
        problem = republish(database, settings)
    if problem is None:
        sys.stdout.write(f"the retained snapshots are published again on {settings.mqtt_url}\n")
    else:
        sys.stderr.write(
            f"{command}: the retained snapshots on {settings.mqtt_url} may still show "
            f"the name: {problem}; `oche leaderboard serve` publishes them again when it "
            "(re)connects\n"
        )
    return 0


def broker_settings(args: argparse.Namespace, config: Config) -> ServiceSettings:
    """The database and broker a command that publishes snapshots uses, as
    ``serve`` takes them: ``--mqtt`` (else the config's ``mqtt.url``) and its
    account, ``--base`` (else ``mqtt.base``)."""
    from leaderboard.service import ServiceSettings

    mqtt_url = args.mqtt or config.mqtt.address().url
    try:
        address = parse_broker_url(mqtt_url)
    except BrokerUrlError as error:
        raise UsageError(f"--mqtt {mqtt_url!r}: {error.problem}") from None
    username, password = _credentials(address, config)
    return ServiceSettings(
        db_url=db_url(args, config),
        mqtt_url=address.url,
        base=args.base or config.mqtt.base,
        mqtt_username=username,
        mqtt_password=password,
        mqtt_ca_file=(config.mqtt.ca_file or None) if address.tls else None,
    )


def republish(database: Database, settings: ServiceSettings) -> str | None:
    """Publish every game's retained snapshot again; why not, or None."""
    import asyncio

    import aiomqtt

    from leaderboard.snapshots import republish_snapshots

    try:
        asyncio.run(republish_snapshots(database, settings))
    except (aiomqtt.MqttError, OSError, TimeoutError) as error:
        text = str(error).strip() or type(error).__name__
        return f"cannot publish to the broker ({text.splitlines()[0]})"
    return None


def _rescore(args: argparse.Namespace) -> int:
    from leaderboard.store import rescore

    logging.getLogger("leaderboard.store").setLevel(logging.CRITICAL)  # the summary says it all
    config = cli_config(args)
    with open_database(db_url(args, config)) as database:
        summary = rescore(database, venue_map(config))
    if args.json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(rescore_text(summary))
    return 0


def rescore_text(summary: dict[str, Any]) -> str:
    """``rescore``'s summary for people: what became of the failed results,
    then each one still failing or now rejected, with its reason."""
    tried = summary["rescored"]
    if not tried:
        return "no failed results to re-score\n"
    parts = [
        f"{summary['imported']} stored" if summary["imported"] else "",
        f"{summary['duplicates']} stored already" if summary["duplicates"] else "",
        f"{summary['superseded']} superseded" if summary["superseded"] else "",
        f"{summary['withdrawn']} withdrawn" if summary["withdrawn"] else "",
        f"{len(summary['rejected'])} rejected" if summary["rejected"] else "",
        f"{len(summary['failed'])} still failing" if summary["failed"] else "",
    ]
    lines = [f"re-scored {tried} failed result{'s' if tried != 1 else ''}: "]
    lines[0] += ", ".join(part for part in parts if part)
    for status in ("rejected", "failed"):
        for entry in summary[status]:
            lines.append(f"  {status} {entry['result_id'] or '(no result_id)'}: {entry['reason']}")
    return "\n".join(lines) + "\n"


def _add_rescore(actions: Commands) -> None:
    """``oche leaderboard rescore``: the failed results re-scored with this version."""
    rescoring = actions.add_parser(
        "rescore",
        help="re-score the results this service failed on (after an upgrade)",
        description="Re-score every failed result (one that re-scoring raised on: a fault "
        "of this service, not of the result, kept whole and not counted) with the code "
        "installed now: stored when it scores, rejected when the rules refuse it, failed "
        "still otherwise. Prints a summary (--json: the import summary with "
        '"rescored": N, the results tried). Refused results are not tried again: the rules '
        "refuse them whatever the version.",
    )
    rescoring.add_argument("--json", action="store_true", help="print the summary as JSON")
    _common(rescoring)
    rescoring.set_defaults(run=_rescore)


def parse_http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as host and port; a bad one is a UsageError."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise UsageError(f"--http {text!r} is not HOST:PORT, such as {DEFAULT_HTTP}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        port = int(port_text)
    except ValueError:
        raise UsageError(f"--http {text!r}: the port {port_text!r} is not a number") from None
    if not 1 <= port <= 65535:
        raise UsageError(f"--http {text!r}: the port must be 1 to 65535")
    return host, port


def _credentials(address: BrokerAddress, config: Config) -> tuple[str | None, str | None]:
    """The broker account as ``oche run`` takes it: the URL's user name and
    password when it has one, else ``[mqtt] username`` and ``password_file``."""
    if address.username is not None or not config.mqtt.username:
        return address.username, address.password
    try:
        return config.mqtt.username, config.mqtt.password()
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    config = cli_config(args)
    host, port = parse_http_address(args.http)
    if args.client_id is not None and (
        not args.client_id or any(ord(c) < 33 or ord(c) == 127 for c in args.client_id)
    ):
        raise UsageError(
            f"--client-id {args.client_id!r}: must not be empty nor contain spaces "
            "or control characters"
        )
    mqtt_url = args.mqtt or config.mqtt.address().url
    try:
        address = parse_broker_url(mqtt_url)
    except BrokerUrlError as error:
        raise UsageError(f"--mqtt {mqtt_url!r}: {error.problem}") from None
    username, password = _credentials(address, config)
    base = args.base or config.mqtt.base
    share_group = args.share_group or config.leaderboard.share_group or None
    from leaderboard.database import Database, DatabaseUrlError
    from leaderboard.service import ServiceSettings, run_service
    from leaderboard.service_settings import DEFAULT_CLIENT_ID

    database_url = db_url(args, config)
    try:
        Database(database_url)
    except DatabaseUrlError as error:
        raise UsageError(f"--db: {error}") from None
    settings = ServiceSettings(
        db_url=database_url,
        mqtt_url=mqtt_url,
        base=base,
        http_host=host,
        http_port=port,
        venues=venue_map(config),
        share_group=share_group,
        client_id=args.client_id or config.leaderboard.client_id or DEFAULT_CLIENT_ID,
        mqtt_username=username,
        mqtt_password=password,
        mqtt_ca_file=(config.mqtt.ca_file or None) if address.tls else None,
        admin_password_hash=config.leaderboard.admin_password_hash,
        max_live_streams=config.leaderboard.max_live_streams,
        max_live_streams_per_client=config.leaderboard.max_live_streams_per_client,
    )
    with suppress(KeyboardInterrupt):
        asyncio.run(run_service(settings))
    return 0


ADMIN_PASSWORD_LENGTH = 8
"""The shortest admin password: it guards the refused payloads (players' names)."""


def _admin_password(args: argparse.Namespace) -> int:
    from credentials.secret_hash import hash_secret

    password = read_secret(
        args.stdin, "Leaderboard admin password: ", "password", "oche leaderboard admin-password"
    )
    if len(password) < ADMIN_PASSWORD_LENGTH:
        raise UsageError(f"an admin password has at least {ADMIN_PASSWORD_LENGTH} characters")
    if not password.isprintable():
        raise UsageError("an admin password has no control characters")
    sys.stdout.write(f'admin_password_hash = "{hash_secret(password)}"\n')
    sys.stderr.write(
        "Put this line in the [leaderboard] section of the config (oche.toml) and restart "
        "`oche leaderboard serve`; the admin views then ask for this password (any user name).\n"
    )
    return 0


def _handicap(args: argparse.Namespace) -> int:
    from leaderboard.handicaps import NoFiguresError, handicap_report
    from leaderboard.queries import leaderboard

    try:
        game_class(args.game)
    except UnknownGameError as error:
        raise UsageError(f"--game: {error}") from None
    config = cli_config(args)
    with open_database(db_url(args, config)) as database, database.session() as session:
        rows = [row.model_dump(mode="json") for row in leaderboard(session, args.game, "all")]
    try:
        report = handicap_report(args.game, rows, args.players, args.start)
    except NoFiguresError as error:
        raise UsageError(str(error)) from None
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return 0
    figure = report["figure"]
    for line in report["players"]:
        handicap = (
            f"from {line['start']}"
            if "start" in line
            else "spot "
            + (" ".join(f"{k}:{v}" for k, v in line.get("marks", {}).items()) or "none")
        )
        sys.stdout.write(f"{line['name']:<24} {figure} {line[figure]:>6.2f}  {handicap}\n")
    sys.stdout.write(json.dumps(report["new_game"], ensure_ascii=False) + "\n")
    return 0


def _add_handicap(actions: Commands) -> None:
    """Add ``handicap``: suggested handicaps from the players' figures."""
    handicap = actions.add_parser(
        "handicap",
        help="suggest fair handicaps from the players' figures",
        description="Suggest handicaps that even out a game between PLAYERs from their "
        "all-time figures: x01 starts (the weaker player's expected darts to finish match "
        "the strongest's: start x average / best average) or cricket spot marks "
        "(21 x (1 - MPR / best MPR) marks, the bull first, then 15 upward). Prints the "
        "new_game command that plays them (docs/leaderboard.md, Handicaps).",
    )
    handicap.add_argument("--game", required=True, help="x01 or cricket")
    handicap.add_argument("players", nargs="+", metavar="PLAYER", help="the players' names")
    handicap.add_argument(
        "--start", type=int, default=501, help="x01: the stronger player's start (default 501)"
    )
    handicap.add_argument("--json", action="store_true", help="print the suggestion as JSON")
    _common(handicap)
    handicap.set_defaults(run=_handicap)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="the database: sqlite:///PATH or postgresql+psycopg://USER@HOST/DB (default: "
        "[leaderboard] db of the config, else $XDG_STATE_HOME/oche/leaderboard.sqlite3)",
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the config file whose [leaderboard] section to read"
    )


def _table_limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a row count of 1 or more")
    return value


def _table_offset(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a row count of 0 or more")
    return value


def _game(text: str) -> str:
    if text not in game_ids():
        raise argparse.ArgumentTypeError(f"{text!r} is not a game id ({', '.join(game_ids())})")
    return text


def add_parser(commands: Commands) -> None:
    """Add ``oche leaderboard`` and its sub-commands."""
    board = commands.add_parser(
        "leaderboard",
        help="the results service: import, show, rename, forget, rescore, serve, admin-password",
        description="Oche's results service: every finished game published on "
        "{base}/+/result is re-scored from its log and stored once; tables, player cards and "
        "records are served over HTTP. See docs/leaderboard.md.",
    )
    actions = board.add_subparsers(dest="leaderboard_command", required=True, metavar="ACTION")

    importing = actions.add_parser(
        "import",
        help="store result documents, one JSON object per line",
        description="Store result documents (the result topic's payload), one JSON object per "
        "line, exactly as the service stores what it receives: re-scored from the log, a "
        "result already stored counted as a duplicate, a game's later revision (finished "
        "again after an undo) in place of its earlier result, a refused one (a line that is "
        "not JSON too) kept with its reason, and one this service failed on kept to be "
        'rescored. Prints {"imported": N, "replaced": N, "duplicates": N, "superseded": N, '
        '"withdrawn": N, "rejected": [{"result_id": ..., "reason": ...}], "failed": [...]}.',
    )
    importing.add_argument("file", metavar="FILE", help="the file to read, or - for stdin")
    _common(importing)
    importing.set_defaults(run=_import)

    show = actions.add_parser(
        "show",
        help="print a game's table",
        description="Print one game's table for a period, by rank (the rating's conservative "
        "ordinal): played, won, win %, rating and the game's own figures.",
    )
    show.add_argument("--game", required=True, type=_game, help="the game id, e.g. x01")
    show.add_argument(
        "--period",
        choices=PERIODS,
        default="all",
        help="day (the venue's local day), week (from Monday), month or all (default all)",
    )
    show.add_argument("--venue", help="only this venue's players (default: every venue)")
    show.add_argument(
        "--limit",
        type=_table_limit,
        help="at most this many rows, 1 to 5000 (default 100, as GET /api/leaderboard)",
    )
    show.add_argument(
        "--offset",
        type=_table_offset,
        default=0,
        help="skip this many rows first: --offset 100 starts at rank 101 (default 0)",
    )
    show.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    _common(show)
    show.set_defaults(run=_show)

    renaming = actions.add_parser(
        "rename",
        help="rename a player, or merge one name into another",
        description="Call player OLD NEW from now on. When NEW already plays at that venue, "
        "OLD's games become NEW's and the ratings are rebuilt.",
    )
    renaming.add_argument("old", metavar="OLD", help="the name to change (any case)")
    renaming.add_argument("new", metavar="NEW", help="the name to use")
    renaming.add_argument("--venue", help="the player's venue (needed when OLD plays at several)")
    _common(renaming)
    renaming.set_defaults(run=_rename)

    forgetting = actions.add_parser(
        "forget",
        help="delete a player's data (privacy); their games stay, the name replaced",
        description="Delete a player's name, ratings and cards. Their games stay for the other "
        "players, with 'forgotten player' in place of the name (in the stored documents "
        "too, and in every result kept that does not count: rejected, failed, superseded); "
        "the ratings of those games are rebuilt. Then every game's retained snapshot is "
        "published again on the broker, so none shows the name (a broker that cannot be "
        "reached is said on stderr: the service publishes them when it reconnects).",
    )
    forgetting.add_argument("name", metavar="NAME", help="the player's name (any case)")
    forgetting.add_argument("--venue", help="the player's venue (needed when at several)")
    forgetting.add_argument(
        "--mqtt", metavar="URL", help="the service's broker (default: mqtt.url of the config)"
    )
    forgetting.add_argument("--base", help="the topics' base (default: mqtt.base of the config)")
    _common(forgetting)
    forgetting.set_defaults(run=_forget)

    _add_rescore(actions)
    _add_handicap(actions)

    serve = actions.add_parser(
        "serve",
        help="run the service: MQTT ingest, the API and the pages",
        description="Subscribe to {base}/+/result (a persistent session, or a shared "
        "subscription with --share-group), store every result once, and serve the API and "
        "the pages over HTTP until stopped.",
    )
    serve.add_argument("--mqtt", metavar="URL", help="the broker (default: mqtt.url of the config)")
    serve.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=DEFAULT_HTTP,
        help=f"where to serve HTTP (default {DEFAULT_HTTP})",
    )
    serve.add_argument("--base", help="the topics' base (default: mqtt.base of the config)")
    serve.add_argument(
        "--share-group",
        metavar="G",
        help="subscribe as $share/G/... so several services split the results",
    )
    serve.add_argument(
        "--client-id",
        metavar="ID",
        help="the MQTT client id of the service's persistent session (default: "
        "[leaderboard] client_id of the config, else oche-leaderboard; with a share group, "
        "oche-leaderboard-HOSTNAME)",
    )
    _common(serve)
    serve.set_defaults(run=_serve)

    admin = actions.add_parser(
        "admin-password",
        help="hash a password for [leaderboard] admin_password_hash",
        description="Ask for the password of the admin views (/admin/rejected, /api/rejected; "
        "at least 8 characters) and print the config line admin_password_hash = "
        '"scrypt$..." for the [leaderboard] section: the password hashed with scrypt and a '
        "random salt, as the operator PIN is. The password itself is never printed or stored. "
        "Without that line the admin views are refused.",
    )
    admin.add_argument(
        "--stdin", action="store_true", help="read the password from standard input's first line"
    )
    admin.set_defaults(run=_admin_password)
