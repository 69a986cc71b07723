"""Remote matches (docs/remote.md): a result's ``match`` id and each player's
own ``board``. Both are null for the results stored before: no board
published a remote match's result until this version."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.add_column("results", sa.Column("match", sa.String(length=200), nullable=True))
    op.add_column("result_players", sa.Column("board", sa.String(length=200), nullable=True))


def downgrade() -> None:
    """Undo this version."""
    with op.batch_alter_table("result_players") as batch:
        batch.drop_column("board")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("match")
