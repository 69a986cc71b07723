"""Adds two statistics to the leaderboard the way docs/leaderboard.md says, in a
process of its own (``python -m tests.leaderboard.new_statistic DB_FOLDER``):
step 1, a line each in ``FIGURES`` (``leaderboard/figures.py`` loaded with the
lines added); step 3, the migration, done as Alembic operations from what the
migrated database lacks. It prints, as JSON, what the rest of the leaderboard
made of them: the columns, the row model's fields, the stored result's line
and the API's rows (all time: the kept totals; today: the sums), for
``tests/leaderboard/test_figures.py``."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

__all__ = ["ADDED_LINES", "main"]

ANCHOR = '    Figure("count_180", _SUM, _X01),\n'
"""The line of ``FIGURES`` the new ones go after (the X01 rows' last count)."""

ADDED_LINES = (
    '    Figure("count_60", _SUM, _X01),\n'
    '    Figure("best_game_average", _MAX, _X01, None, Ratio("points", "darts", 3)),\n'
)
"""A count each result stores (the replay's walk does not count it: 0) and a
best of one result's three-dart average (made of stored figures)."""


def _load_figures_with_added_lines() -> None:
    """Put ``leaderboard.figures`` with :data:`ADDED_LINES` in ``sys.modules``,
    before anything of the leaderboard imports it."""
    import leaderboard

    path = Path(leaderboard.__file__).with_name("figures.py")
    source = path.read_text(encoding="utf-8")
    if ANCHOR not in source:
        raise SystemExit(f"{path}: no line {ANCHOR.strip()!r} to add the statistics after")
    module = types.ModuleType("leaderboard.figures")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module
    exec(compile(source.replace(ANCHOR, ANCHOR + "".join(ADDED_LINES)), path, "exec"), vars(module))


def _migrate_what_is_missing(database: Any) -> list[list[str]]:
    """Step 3: compare the migrated database with the models and add each
    missing column of ``result_players`` and ``player_totals`` (what the
    migration would do); returns the differences found, as [what, table, column]."""
    import sqlalchemy as sa
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    from leaderboard.models import Base

    found: list[list[str]] = []
    with database.engine.begin() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        operations = Operations(context)
        for difference in compare_metadata(context, Base.metadata):
            table = difference[2] if difference[0] == "add_column" else None
            if table not in ("result_players", "player_totals"):
                continue
            column = difference[3]
            found.append([difference[0], table, column.name])
            operations.add_column(
                table, sa.Column(column.name, column.type, nullable=column.nullable)
            )
    return found


def main(folder: str) -> None:
    """Add the statistics, store the web tests' results and print what came of it."""
    _load_figures_with_added_lines()
    from leaderboard import queries
    from leaderboard.api_models import X01Row
    from leaderboard.database import Database
    from leaderboard.models import PlayerTotal, ResultPlayer
    from tests.leaderboard.web_seed import seed

    def column(model: Any, name: str) -> dict[str, Any] | None:
        found = model.__table__.c.get(name)
        if found is None:
            return None
        default = found.default.arg if found.default is not None else None
        return {"type": str(found.type), "nullable": found.nullable, "default": default}

    database = Database(f"sqlite:///{folder}/leaderboard.sqlite3")
    database.migrate()
    migrated = _migrate_what_is_missing(database)
    seed(database, games=0)
    with database.session() as session:
        rows = queries.leaderboard(session, "x01", "all")
        day_rows = queries.leaderboard(session, "x01", "day")
        lines = session.query(ResultPlayer).filter(ResultPlayer.game == "x01").all()
        report = {
            "line_columns": {n: column(ResultPlayer, n) for n in ("count_60", "best_game_average")},
            "total_columns": {n: column(PlayerTotal, n) for n in ("count_60", "best_game_average")},
            "x01_row_fields": list(X01Row.model_fields)[-3:],
            "migrated": migrated,
            "stored_count_60": sorted(line.count_60 for line in lines),
            "api_rows": [row.model_dump(mode="json") for row in rows],
            "api_day_rows": [row.model_dump(mode="json") for row in day_rows],
        }
    database.dispose()
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
