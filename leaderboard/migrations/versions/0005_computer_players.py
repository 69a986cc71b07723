"""Computer players (the result's ``cpu``): each line's ``cpu_level``. Null for
every line stored before, whose results did not mark their computer players:
those stay as they were (every name a person)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.add_column("result_players", sa.Column("cpu_level", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Undo this version (in place: no copy of the table)."""
    op.drop_column("result_players", "cpu_level")
