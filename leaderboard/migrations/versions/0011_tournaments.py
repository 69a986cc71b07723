"""Bar tournaments (issue #25, docs/matches.md "Tournaments"): ``tournaments``
(format, game, options, match format, boards), ``tournament_players`` (seed
order, the roster's player or a guest) and ``tournament_matches`` (each
bracket match's called match and how it was decided)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("match_format", sa.JSON(), nullable=False),
        sa.Column("boards", sa.JSON(), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["venue_id"], ["venues.id"], name=op.f("fk_tournaments_venue_id_venues")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("rating", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_players_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_tournament_players_player_id_players"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "seed", name=op.f("pk_tournament_players")),
    )
    op.create_table(
        "tournament_matches",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=16), nullable=False),
        sa.Column("call_id", sa.String(length=64), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("legs_won", sa.JSON(), nullable=True),
        sa.Column("decided_by", sa.String(length=16), nullable=True),
        sa.Column("result_id", sa.String(length=200), nullable=True),
        sa.Column("decided_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_matches_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "key", name=op.f("pk_tournament_matches")),
        sa.UniqueConstraint("call_id", name=op.f("uq_tournament_matches_call_id")),
    )


def downgrade() -> None:
    """Undo this version."""
    op.drop_table("tournament_matches")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
