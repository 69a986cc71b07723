"""League pairs and remote fixtures (issue #25, docs/matches.md "Leagues"):
a called match's teams (a pairs game is called as a team game), a fixture's
away board (its games are remote matches), and the boards each live call
holds (``board_claims``: its home board and a remote match's away board,
one call a board, the primary key deciding between service instances)."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

__all__ = ["branch_labels", "depends_on", "down_revision", "downgrade", "revision", "upgrade"]

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this version: the live calls' boards are claimed as they are."""
    op.add_column("match_calls", sa.Column("teams", sa.JSON(), nullable=True))
    op.add_column("league_fixtures", sa.Column("away_board", sa.String(length=200), nullable=True))
    op.create_table(
        "board_claims",
        sa.Column("board", sa.String(length=200), nullable=False),
        sa.Column("call_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["call_id"],
            ["match_calls.call_id"],
            name=op.f("fk_board_claims_call_id_match_calls"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("board", name=op.f("pk_board_claims")),
    )
    op.create_index(op.f("ix_board_claims_call_id"), "board_claims", ["call_id"], unique=False)
    calls = sa.table("match_calls", sa.column("call_id"), sa.column("board"), sa.column("status"))
    live = sa.select(calls.c.call_id, calls.c.board).where(
        calls.c.status.in_(("called", "playing")), calls.c.board.is_not(None)
    )
    claims = sa.table("board_claims", sa.column("board"), sa.column("call_id"))
    seen: set[str] = set()
    for call_id, board in op.get_bind().execute(live):
        board_id = str(board).rpartition("/")[2]
        if board_id not in seen:
            seen.add(board_id)
            op.execute(claims.insert().values(board=board_id, call_id=call_id))


def downgrade() -> None:
    """Revert this version."""
    op.drop_index(op.f("ix_board_claims_call_id"), table_name="board_claims")
    op.drop_table("board_claims")
    op.drop_column("league_fixtures", "away_board")
    op.drop_column("match_calls", "teams")
