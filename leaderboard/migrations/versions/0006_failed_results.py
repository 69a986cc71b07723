""" "Our code failed" apart from "refused by the rules": each kept payload's
``status`` (``rejected``, or ``failed`` for a result re-scoring raised on,
retried by ``oche leaderboard rescore``) and a failed one's ``error`` (its
traceback). Every row kept before is ``rejected``: among them may be results
an older version failed on (their reason says "could not be re-scored"),
whose payload was cut to 4,096 characters and cannot be re-scored."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version (columns added in place)."""
    op.add_column(
        "rejected",
        sa.Column("status", sa.String(length=16), nullable=False, server_default="rejected"),
    )
    op.add_column("rejected", sa.Column("error", sa.Text(), nullable=True))
    op.create_index(op.f("ix_rejected_status"), "rejected", ["status"])


def downgrade() -> None:
    """Undo this version."""
    op.drop_index(op.f("ix_rejected_status"), table_name="rejected")
    op.drop_column("rejected", "error")
    op.drop_column("rejected", "status")
