"""A match's result kept with its legs (issue #25): each player's legs won and
lost in a result (``result_players``) and in their totals (``player_totals``),
the figures ``legs_won`` and ``legs_lost``; a result's match format and legs
(``results.match_format``, ``results.legs``). The results stored before are
single games, each a match of one leg: its winner's side won one, every other
side's players lost one, a draw neither."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LEG_FIGURES = ("legs_won", "legs_lost")
"""The two figures this version adds (``leaderboard.figures.FIGURES``)."""

FILL_LINES = (
    "UPDATE result_players SET "
    "legs_won = CASE WHEN won THEN 1 ELSE 0 END, "
    "legs_lost = CASE WHEN NOT won AND EXISTS (SELECT 1 FROM results "
    "WHERE results.id = result_players.result_pk AND results.winner IS NOT NULL) "
    "THEN 1 ELSE 0 END"
)
"""The legs of the lines stored before: one-leg matches (a draw has no winner)."""

FILL_TOTALS = "UPDATE player_totals SET " + ", ".join(
    f"{name} = COALESCE((SELECT sum({name}) FROM result_players AS r "
    "WHERE r.player_id = player_totals.player_id AND r.game = player_totals.game), 0)"
    for name in LEG_FIGURES
)
"""The kept totals of those lines."""


def upgrade() -> None:
    """Apply this version."""
    for table in ("result_players", "player_totals"):
        for name in LEG_FIGURES:
            op.add_column(table, sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    op.add_column("results", sa.Column("match_format", sa.JSON(), nullable=True))
    op.add_column("results", sa.Column("legs", sa.JSON(), nullable=True))
    op.execute(FILL_LINES)
    op.execute(FILL_TOTALS)


def downgrade() -> None:
    """Undo this version. The columns are dropped in place (SQLite 3.35 and
    later drop a column itself): a batch copy of ``results`` on SQLite would
    drop the table, and with it every line and rating its foreign keys cascade to."""
    for table, names in (
        ("results", ("legs", "match_format")),
        ("player_totals", LEG_FIGURES),
        ("result_players", LEG_FIGURES),
    ):
        for name in names:
            op.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
