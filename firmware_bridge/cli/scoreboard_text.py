"""A plain-text scoreboard drawn from the state JSON, for terminals and logs.

It reads only the shared state schema, so every game gets one: a column per
player, a row for the score, the marks grid for the cricket family and the
statistics.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MARK_SYMBOLS", "render_scoreboard"]

MARK_SYMBOLS = ("", "/", "X", "(X)")
"""How 0-3 marks are drawn, as on a chalk cricket board."""


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _status(state: dict[str, Any]) -> str:
    players = state["players"]
    if not state["finished"]:
        visit = " ".join(state["visit"]) or "-"
        who = players[state["current_player"]]["name"]
        return f"To throw: {who} (visit so far: {visit})"
    if state["winner"] is None:
        return f"Game over: a draw ({state['result']})"
    teams = state.get("teams")
    if teams and state.get("winner_team") is not None:
        name = teams[state["winner_team"]]["name"]
    else:
        name = players[state["winner"]]["name"]
    return f"Winner: {name} ({state['result']})"


def render_scoreboard(state: dict[str, Any]) -> str:
    """The scoreboard for one state as lines of text (ends with a newline)."""
    players = state["players"]
    options = ", ".join(f"{k}={v}" for k, v in state["options"].items())
    rows: list[list[str]] = [["", *(p["name"] for p in players)]]
    if state.get("teams"):
        rows.append(["team", *(state["teams"][p["team"]]["name"] for p in players)])
    rows.append(["score", *(_cell(p["score"]) for p in players)])
    if "marks" in players[0]:
        for key in reversed(list(players[0]["marks"])):
            rows.append([key, *(MARK_SYMBOLS[p["marks"][key]] for p in players)])
    for key in players[0]["stats"]:
        rows.append([key.replace("_", " "), *(_cell(p["stats"][key]) for p in players)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"{state['game']} ({options}), round {state['round']}"]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    lines.append(_status(state))
    return "\n".join(line.rstrip() for line in lines) + "\n"
