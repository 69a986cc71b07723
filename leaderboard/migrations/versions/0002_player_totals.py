"""Each player's all-time figures per game (``player_totals``), filled from
the results already stored, so the all-time table reads a row a player."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


_SUMS = (
    "points, darts, first9_points, first9_darts, checkouts, checkout_darts, "
    "count_100, count_140, count_180, marks, count_5_marks, count_7_marks, count_9_marks"
)

FILL = (
    "INSERT INTO player_totals (player_id, game, played, won, highlight, "
    + _SUMS
    + ", highest_checkout, best_leg_darts, best_game_mpr) "
    "SELECT player_id, game, count(*), sum(CASE WHEN won THEN 1 ELSE 0 END), "
    "CASE WHEN game = 'around-the-world' THEN min(highlight) ELSE max(highlight) END, "
    + ", ".join(f"sum({name.strip()})" for name in _SUMS.split(","))
    + ", max(highest_checkout), min(leg_darts), "
    "max(CASE WHEN darts > 0 THEN marks * 3.0 / darts END) "
    "FROM result_players WHERE player_id IS NOT NULL GROUP BY player_id, game"
)
"""The totals of the results stored before this version (Around the World is
the one game whose highlight is best when lowest, as ``scoring.HIGHLIGHTS`` says)."""


def upgrade() -> None:
    """Apply this version."""
    op.create_table(
        "player_totals",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("highlight", sa.Float(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("darts", sa.Integer(), nullable=False),
        sa.Column("first9_points", sa.Integer(), nullable=False),
        sa.Column("first9_darts", sa.Integer(), nullable=False),
        sa.Column("checkouts", sa.Integer(), nullable=False),
        sa.Column("checkout_darts", sa.Integer(), nullable=False),
        sa.Column("highest_checkout", sa.Integer(), nullable=True),
        sa.Column("best_leg_darts", sa.Integer(), nullable=True),
        sa.Column("count_100", sa.Integer(), nullable=False),
        sa.Column("count_140", sa.Integer(), nullable=False),
        sa.Column("count_180", sa.Integer(), nullable=False),
        sa.Column("marks", sa.Integer(), nullable=False),
        sa.Column("best_game_mpr", sa.Float(), nullable=True),
        sa.Column("count_5_marks", sa.Integer(), nullable=False),
        sa.Column("count_7_marks", sa.Integer(), nullable=False),
        sa.Column("count_9_marks", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_totals_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "game", name=op.f("pk_player_totals")),
    )
    op.execute(FILL)


def downgrade() -> None:
    """Undo this version."""
    op.drop_table("player_totals")
