"""Tests of the pygame scoreboard client (display/)."""
