"""Issue #26 item 3 end to end: Count-Up and Cricket Count-Up thrown at a
real daemon on a pty board through a real Mosquitto, eight rounds to the
finish, the leaderboard service storing the results off MQTT and ranking the
players by points per dart and MPR, their soft-tip rating on the card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leaderboard import queries
from leaderboard.database import Database
from tests.daemon_harness import Running, Watcher, press, throw
from tests.leaderboard.mqtt_harness import running_ingest, wait_until
from tests.mosquitto_broker import MosquittoBroker

NEXT, MISS = 0, 2


async def play(
    running: Running, watcher: Watcher, game: str, visits: list[list[str]]
) -> dict[str, Any]:
    """A new two-player game of ``game`` with these visits (Ann's and Bob's in
    turn, eight rounds), NEXT after each; the result the board publishes."""
    await watcher.state_where(lambda s: s["board"]["connected"])
    response = await watcher.command(
        {"command": "new_game", "game": game, "players": ["Ann", "Bob"]}
    )
    assert response["ok"] is True, response
    for number, visit in enumerate(visits, start=1):
        for dart in visit:
            if dart == "M":
                await press(running.board, MISS)
            else:
                await throw(running.board, dart)
        if number < len(visits):
            await watcher.state_where(lambda s: s.get("phase") == "takeout")
            await press(running.board, NEXT)
            await watcher.state_where(
                lambda s, n=number: s.get("phase") == "throwing" and len(_thrown(s)) >= n
            )
    state = await watcher.state_where(lambda s: s.get("finished") is True and s["game"] == game)
    assert state["round"] == 8 and state["result"] == "round-limit"
    result: dict[str, Any] = await watcher.wait_for(
        "result", lambda p: isinstance(p, dict) and p.get("game") == game
    )
    return result


def _thrown(state: dict[str, Any]) -> list[int]:
    """Every round score (or marks) shown so far, over the players: one per
    visit thrown (a visit that scored nothing still shows its 0)."""
    key = "round_scores" if state["game"] == "count-up" else "round_marks"
    return [value for player in state["players"] for value in player.get(key, [])]


def ranked(database: Database, game: str) -> list[Any]:
    with database.session() as session:
        return queries.leaderboard(session, game, "all")


async def test_both_games_play_through_the_daemon_and_the_leaderboard_ranks_them(
    tmp_path: Path, mosquitto: MosquittoBroker, running: Running, watcher: Watcher
) -> None:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    async with running_ingest(mosquitto, database) as ingest:
        # Count-Up: Ann T20 SB DB (160 with the fat bull) each round, Bob S20 S20 S1 (41)
        visits = [["T20", "SB", "DB"], ["S20", "S20", "S1"]] * 8
        result = await play(running, watcher, "count-up", visits)
        assert result["winner"] == 0
        await wait_until(lambda: len(ingest.outcomes) >= 1)
        ann, bob = ranked(database, "count-up")
        assert (ann.player, ann.rank, ann.points_per_dart) == ("Ann", 1, 53.33)
        assert (bob.player, bob.rank, bob.points_per_dart) == ("Bob", 2, 13.67)

        # Cricket Count-Up: Bob out-marks Ann: T20 T19 M (6) against S20 M M (1)
        visits = [["S20", "M", "M"], ["T20", "T19", "M"]] * 8
        result = await play(running, watcher, "cricket-count-up", visits)
        assert result["winner"] == 1
        await wait_until(lambda: len(ingest.outcomes) >= 2)
        bob, ann = ranked(database, "cricket-count-up")
        assert (bob.player, bob.rank, bob.mpr) == ("Bob", 1, 6.0)
        assert (ann.player, ann.rank, ann.mpr) == ("Ann", 2, 1.0)
    assert [outcome.status for outcome in ingest.outcomes] == ["imported", "imported"]
    with database.session() as session:
        card = queries.player_card(session, "Ann")
    assert card.soft_tip_rating is not None
    # 160 points per round (level 18) and MPR 1.00 (level 1 + 1.00 / 1.30)
    assert (card.soft_tip_rating.points_per_round, card.soft_tip_rating.mpr) == (160.0, 1.0)
    assert card.soft_tip_rating.rating == round((18 + 1 + 1.0 / 1.30) / 2, 2)
