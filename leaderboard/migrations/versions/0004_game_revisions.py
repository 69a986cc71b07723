"""A game finished again after an undo: each result's ``game_key`` (unique:
one counted result a game) and ``revision``, and ``superseded_results`` for
the revisions that no longer count. The results stored before are each their
own game's first revision: ``game_key`` is their ``result_id``, ``revision`` 1.

The columns are added in place (``ALTER TABLE ... ADD COLUMN``), never by
copying the table as Alembic's batch mode does on SQLite: dropping the old
``results`` with foreign keys on would cascade to every player's figures and
rating. So on SQLite ``game_key`` stays nullable in the schema (the code
always sets it); on PostgreSQL it is made NOT NULL."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.add_column("results", sa.Column("game_key", sa.String(length=200), nullable=True))
    op.add_column(
        "results", sa.Column("revision", sa.Integer(), nullable=False, server_default="1")
    )
    op.execute("UPDATE results SET game_key = result_id")
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("results", "game_key", nullable=False)
    op.create_index(op.f("uq_results_game_key"), "results", ["game_key"], unique=True)
    op.create_table(
        "superseded_results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.String(length=200), nullable=False),
        sa.Column("game_key", sa.String(length=200), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("why", sa.String(length=16), nullable=False),
        sa.Column("superseded_by", sa.String(length=200), nullable=True),
        sa.Column("board", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_superseded_results")),
        sa.UniqueConstraint("result_id", name=op.f("uq_superseded_results_result_id")),
    )
    op.create_index(
        op.f("ix_superseded_results_game_key_revision"),
        "superseded_results",
        ["game_key", "revision"],
    )


def downgrade() -> None:
    """Undo this version (the superseded revisions go; each game keeps its latest)."""
    op.drop_table("superseded_results")
    op.drop_index(op.f("uq_results_game_key"), table_name="results")
    op.drop_column("results", "revision")
    op.drop_column("results", "game_key")
