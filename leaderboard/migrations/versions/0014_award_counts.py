"""How many of each award a player threw (issue #26): a count per award in a
result (``result_players``) and in the player's kept totals (``player_totals``),
the figures ``award_low_ton`` ... ``award_nine_darter``
(``leaderboard.figures.AWARD_FIGURES``). The results stored before count none:
their awards were never settled, and a migration does not replay logs."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AWARD_COUNTS = (
    "award_low_ton",
    "award_high_ton",
    "award_ton_80",
    "award_hat_trick",
    "award_three_in_the_black",
    "award_three_in_a_bed",
    "award_white_horse",
    "award_5_mark",
    "award_6_mark",
    "award_7_mark",
    "award_8_mark",
    "award_9_mark",
    "award_shanghai",
    "award_nine_darter",
)
"""The figures this version adds, one per award id (``engine.awards.Award``)."""

TABLES = ("result_players", "player_totals")


def upgrade() -> None:
    """Apply this version."""
    for table in TABLES:
        for name in AWARD_COUNTS:
            op.add_column(table, sa.Column(name, sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    """Undo this version. The columns are dropped in place (SQLite 3.35 and
    later drop a column itself), as 0009's are."""
    for table in reversed(TABLES):
        for name in AWARD_COUNTS:
            op.execute(f"ALTER TABLE {table} DROP COLUMN {name}")
