"""A match's result kept with its legs (issue #25): filled by the match results work."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""


def downgrade() -> None:
    """Undo this version."""
