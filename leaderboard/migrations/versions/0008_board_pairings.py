"""Browsers paired to control a board from the web (issue #24,
docs/leaderboard.md): ``board_pairings`` keeps each paired device's bearer
token as its SHA-256 digest (never the token), the board it controls and the
device's id and name as the board lists them on its ``pairing`` topic."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.create_table(
        "board_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("board", sa.String(length=200), nullable=False),
        sa.Column("device_id", sa.String(length=64), nullable=False),
        sa.Column("device_name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_board_pairings")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_board_pairings_token_hash")),
        sa.UniqueConstraint("device_id", name=op.f("uq_board_pairings_device_id")),
    )
    op.create_index(op.f("ix_board_pairings_board"), "board_pairings", ["board"])


def downgrade() -> None:
    """Undo this version."""
    op.drop_index(op.f("ix_board_pairings_board"), table_name="board_pairings")
    op.drop_table("board_pairings")
