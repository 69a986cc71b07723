"""Tests of the results service (``leaderboard/``)."""
