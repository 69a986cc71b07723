"""Bar tournaments (issue #25): filled by the tournaments work."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""


def downgrade() -> None:
    """Undo this version."""
