"""The venue's roster (issue #23, docs/players.md): a player added by hand
(``oche players add``, a phone's new name) is kept though they have no game
yet (``players.registered_at``), and their cards live in ``player_cards`` as
keyed hashes (never UIDs), one player per card in a venue. Players stored
before were all seen in a game: their ``registered_at`` stays null."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.add_column("players", sa.Column("registered_at", sa.Float(), nullable=True))
    op.create_table(
        "player_cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=False),
        sa.Column("card_hash", sa.String(length=64), nullable=False),
        sa.Column("added_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_cards_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["venue_id"],
            ["venues.id"],
            name=op.f("fk_player_cards_venue_id_venues"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_cards")),
        sa.UniqueConstraint(
            "venue_id", "card_hash", name=op.f("uq_player_cards_venue_id_card_hash")
        ),
    )
    op.create_index(op.f("ix_player_cards_player_id"), "player_cards", ["player_id"])


def downgrade() -> None:
    """Undo this version."""
    op.drop_index(op.f("ix_player_cards_player_id"), table_name="player_cards")
    op.drop_table("player_cards")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("registered_at")
