"""The matches the service calls to boards (issue #25, docs/matches.md
"Called matches"): ``match_calls`` keeps each call of a tournament or a
league, its players, the boards it may go to, the board it went to and how
far it got; a partial unique index lets one board hold one live call."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BUSY = "status IN ('called', 'playing')"


def upgrade() -> None:
    """Apply this version."""
    op.create_table(
        "match_calls",
        sa.Column("call_id", sa.String(length=64), nullable=False),
        sa.Column("owner_kind", sa.String(length=16), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=80), nullable=True),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("match_format", sa.JSON(), nullable=True),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("boards", sa.JSON(), nullable=False),
        sa.Column("board", sa.String(length=200), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("result_id", sa.String(length=200), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("legs_won", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("called_at", sa.Float(), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("call_id", name=op.f("pk_match_calls")),
    )
    op.create_index(
        op.f("ix_match_calls_status_created_at"), "match_calls", ["status", "created_at"]
    )
    op.create_index(
        op.f("ix_match_calls_owner_kind_owner_id"), "match_calls", ["owner_kind", "owner_id"]
    )
    op.create_index(
        "ix_match_calls_board_busy",
        "match_calls",
        ["board"],
        unique=True,
        sqlite_where=sa.text(_BUSY),
        postgresql_where=sa.text(_BUSY),
    )


def downgrade() -> None:
    """Undo this version."""
    op.drop_index("ix_match_calls_board_busy", table_name="match_calls")
    op.drop_index(op.f("ix_match_calls_owner_kind_owner_id"), table_name="match_calls")
    op.drop_index(op.f("ix_match_calls_status_created_at"), table_name="match_calls")
    op.drop_table("match_calls")
