"""The leaderboard's Alembic migrations, run in code by ``Database.migrate``."""
