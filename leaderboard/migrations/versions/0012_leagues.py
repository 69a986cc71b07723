"""Leagues, teams, fixtures (issue #25, docs/matches.md "Leagues"): a
league's points rules and team-match format, its teams with their players,
its fixtures (home v away, date, boards) and each fixture's games with who
plays them, the match call that plays each and, once decided, its result."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version."""
    op.create_table(
        "leagues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("season", sa.String(length=64), nullable=False),
        sa.Column("points_win", sa.Integer(), nullable=False),
        sa.Column("points_draw", sa.Integer(), nullable=False),
        sa.Column("points_loss", sa.Integer(), nullable=False),
        sa.Column("points_per_game", sa.Integer(), nullable=False),
        sa.Column("format", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leagues")),
        sa.UniqueConstraint("name", name=op.f("uq_leagues_name")),
    )
    op.create_table(
        "league_teams",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["league_id"],
            ["leagues.id"],
            name=op.f("fk_league_teams_league_id_leagues"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_teams")),
        sa.UniqueConstraint("league_id", "key", name=op.f("uq_league_teams_league_id_key")),
    )
    op.create_table(
        "league_fixtures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("home_team_id", sa.Integer(), nullable=False),
        sa.Column("away_team_id", sa.Integer(), nullable=False),
        sa.Column("date", sa.String(length=32), nullable=True),
        sa.Column("boards", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["league_id"],
            ["leagues.id"],
            name=op.f("fk_league_fixtures_league_id_leagues"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["home_team_id"],
            ["league_teams.id"],
            name=op.f("fk_league_fixtures_home_team_id_league_teams"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["away_team_id"],
            ["league_teams.id"],
            name=op.f("fk_league_fixtures_away_team_id_league_teams"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_fixtures")),
    )
    op.create_index(op.f("ix_league_fixtures_league_id"), "league_fixtures", ["league_id"])
    op.create_table(
        "league_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("fixture_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("match_format", sa.JSON(), nullable=False),
        sa.Column("home_players", sa.JSON(), nullable=False),
        sa.Column("away_players", sa.JSON(), nullable=False),
        sa.Column("call_id", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("home_legs", sa.Integer(), nullable=True),
        sa.Column("away_legs", sa.Integer(), nullable=True),
        sa.Column("result_id", sa.String(length=200), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["fixture_id"],
            ["league_fixtures.id"],
            name=op.f("fk_league_games_fixture_id_league_fixtures"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_games")),
        sa.UniqueConstraint("call_id", name=op.f("uq_league_games_call_id")),
        sa.UniqueConstraint("fixture_id", "number", name=op.f("uq_league_games_fixture_id_number")),
    )


def downgrade() -> None:
    """Undo this version."""
    op.drop_table("league_games")
    op.drop_index(op.f("ix_league_fixtures_league_id"), table_name="league_fixtures")
    op.drop_table("league_fixtures")
    op.drop_table("league_teams")
    op.drop_table("leagues")
