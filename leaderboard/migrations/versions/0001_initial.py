"""The first schema: venues, players, results and their players' figures,
rejected payloads, and the rating history with each player's current rating."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.create_table(
        "rejected",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=216), nullable=False),
        sa.Column("result_id", sa.String(length=200), nullable=True),
        sa.Column("board", sa.String(length=200), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rejected")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_rejected_dedupe_key")),
    )
    op.create_index(op.f("ix_rejected_received_at"), "rejected", ["received_at"])

    op.create_table(
        "venues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_venues")),
        sa.UniqueConstraint("name", name=op.f("uq_venues_name")),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("name_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["venue_id"], ["venues.id"], name=op.f("fk_players_venue_id_venues"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("venue_id", "key", name=op.f("uq_players_venue_id_key")),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.String(length=200), nullable=False),
        sa.Column("board", sa.String(length=200), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("result", sa.String(length=64), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("winner_name", sa.String(length=200), nullable=True),
        sa.Column("started_at", sa.Float(), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.Column("visits", sa.JSON(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["venue_id"], ["venues.id"], name=op.f("fk_results_venue_id_venues")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_results")),
        sa.UniqueConstraint("result_id", name=op.f("uq_results_result_id")),
    )
    op.create_index(op.f("ix_results_finished_at"), "results", ["finished_at"])
    op.create_index(
        op.f("ix_results_game_finished_at_result_id"),
        "results",
        ["game", "finished_at", "result_id"],
    )
    op.create_index(op.f("ix_results_venue_id_finished_at"), "results", ["venue_id", "finished_at"])

    op.create_table(
        "player_ratings",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "game", name=op.f("pk_player_ratings")),
    )
    op.create_index(op.f("ix_player_ratings_game_ordinal"), "player_ratings", ["game", "ordinal"])

    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("result_pk", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.String(length=200), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["result_pk"],
            ["results.id"],
            name=op.f("fk_ratings_result_pk_results"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ratings")),
    )
    op.create_index(op.f("ix_ratings_game_at_result_id"), "ratings", ["game", "at", "result_id"])
    op.create_index(op.f("ix_ratings_player_id_game_at"), "ratings", ["player_id", "game", "at"])
    op.create_index(op.f("ix_ratings_result_pk"), "ratings", ["result_pk"])

    op.create_table(
        "result_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_pk", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=False),
        sa.Column("team", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("placement", sa.Integer(), nullable=False),
        sa.Column("darts", sa.Integer(), nullable=False),
        sa.Column("highlight", sa.Float(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("first9_points", sa.Integer(), nullable=False),
        sa.Column("first9_darts", sa.Integer(), nullable=False),
        sa.Column("checkout_darts", sa.Integer(), nullable=False),
        sa.Column("checkouts", sa.Integer(), nullable=False),
        sa.Column("highest_checkout", sa.Integer(), nullable=True),
        sa.Column("leg_darts", sa.Integer(), nullable=True),
        sa.Column("count_100", sa.Integer(), nullable=False),
        sa.Column("count_140", sa.Integer(), nullable=False),
        sa.Column("count_180", sa.Integer(), nullable=False),
        sa.Column("marks", sa.Integer(), nullable=False),
        sa.Column("count_5_marks", sa.Integer(), nullable=False),
        sa.Column("count_7_marks", sa.Integer(), nullable=False),
        sa.Column("count_9_marks", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_result_players_player_id_players"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["result_pk"],
            ["results.id"],
            name=op.f("fk_result_players_result_pk_results"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["venue_id"], ["venues.id"], name=op.f("fk_result_players_venue_id_venues")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_result_players")),
        sa.UniqueConstraint("result_pk", "seat", name=op.f("uq_result_players_result_pk_seat")),
    )
    op.create_index(
        op.f("ix_result_players_game_finished_at"), "result_players", ["game", "finished_at"]
    )
    op.create_index(
        op.f("ix_result_players_game_venue_id_finished_at"),
        "result_players",
        ["game", "venue_id", "finished_at"],
    )
    op.create_index(
        op.f("ix_result_players_player_id_game_finished_at"),
        "result_players",
        ["player_id", "game", "finished_at"],
    )


def downgrade() -> None:
    """Undo this version."""
    op.drop_index(op.f("ix_result_players_player_id_game_finished_at"), table_name="result_players")
    op.drop_index(op.f("ix_result_players_game_venue_id_finished_at"), table_name="result_players")
    op.drop_index(op.f("ix_result_players_game_finished_at"), table_name="result_players")

    op.drop_table("result_players")
    op.drop_index(op.f("ix_ratings_result_pk"), table_name="ratings")
    op.drop_index(op.f("ix_ratings_player_id_game_at"), table_name="ratings")
    op.drop_index(op.f("ix_ratings_game_at_result_id"), table_name="ratings")

    op.drop_table("ratings")
    op.drop_index(op.f("ix_player_ratings_game_ordinal"), table_name="player_ratings")

    op.drop_table("player_ratings")
    op.drop_index(op.f("ix_results_venue_id_finished_at"), table_name="results")
    op.drop_index(op.f("ix_results_game_finished_at_result_id"), table_name="results")
    op.drop_index(op.f("ix_results_finished_at"), table_name="results")

    op.drop_table("results")
    op.drop_table("players")
    op.drop_table("venues")
    op.drop_index(op.f("ix_rejected_received_at"), table_name="rejected")

    op.drop_table("rejected")
