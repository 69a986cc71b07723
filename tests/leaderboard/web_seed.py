"""Results for the web tests (API, pages, schemathesis, README screenshots),
stored through the real path: daemon-made documents (result_documents) handed
to ``leaderboard.store.ingest``. Every game finished today, a minute apart, so
the TV's ``day`` tables show them whatever the hour."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from credentials.secret_hash import hash_secret
from leaderboard.database import Database
from leaderboard.store import ingest
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import X01_MOVES, as_payload
from tests.leaderboard.result_documents import result_document, simulated_document

__all__ = [
    "ADMIN_PASSWORD",
    "ADMIN_PASSWORD_HASH",
    "LINEUPS",
    "TRICKY_NAME",
    "VENUES",
    "Seeded",
    "seed",
    "seed_history",
]

VENUES = VenueMap(boards={"pub": "The Crown", "corner": "The Crown"}, default="home")

ADMIN_PASSWORD = "s3cret admin Zoë"
"""The admin views' password of the web tests (not ASCII: browsers send UTF-8)."""
ADMIN_PASSWORD_HASH = hash_secret(ADMIN_PASSWORD)
"""Its ``[leaderboard] admin_password_hash``."""

TRICKY_NAME = '<b>Zoë</b> & "co"'
"""A player name that is markup: pages must show it as text."""


@dataclass
class Seeded:
    """What :func:`seed` stored: result ids by label, and the refused payload's reason."""

    result_ids: dict[str, str] = field(default_factory=dict)
    rejected_reason: str = ""


def _store(database: Database, document: dict[str, Any], finished_at: float) -> str:
    document["finished_at"] = finished_at
    outcome = ingest(database, as_payload(document), VENUES)
    assert outcome.status == "imported", outcome
    assert outcome.result_id is not None
    return outcome.result_id


LINEUPS = (("Ann", "Cy"), ("Bob", TRICKY_NAME), ("Cy", TRICKY_NAME), ("Ann", "Bob"))
"""Who plays the simulated games, in turn (even games X01, odd ones Cricket)."""


def seed(
    database: Database,
    now: float | None = None,
    games: int = 6,
    lineups: tuple[tuple[str, str], ...] = LINEUPS,
) -> Seeded:
    """Ann beats Bob at X01 (a 6-dart 301 leg: 180, then T20 T7 D20 for 121), then
    ``games`` simulated X01 and Cricket games among Ann, Bob, Cy and the tricky
    name, and one payload that is not JSON (rejected)."""
    now = time.time() if now is None else now
    start_of_day = now - now % 86400
    step = min(60.0, (now - start_of_day) / (games + 2))  # all inside today (UTC)
    at = start_of_day + step
    seeded = Seeded()
    document = result_document("x01", X01_MOVES, options={"start": 301}, board="pub")
    seeded.result_ids["x01"] = _store(database, document, at)
    for number in range(games):
        at += step
        game = "x01" if number % 2 == 0 else "cricket"
        players = lineups[number % len(lineups)]
        board = "corner" if number % 3 else "pub"
        document = simulated_document(
            game,
            number,
            players=players,
            skill=0.5,
            board=board,
            options={"start": 301} if game == "x01" else None,
        )
        seeded.result_ids[f"{game}-{number}"] = _store(database, document, at)
    refused = ingest(database, b"this is not JSON", VENUES, received_at=now)
    assert refused.status == "rejected" and refused.reason
    seeded.rejected_reason = refused.reason
    return seeded


def seed_history(database: Database, now: float | None = None, days: int = 14) -> None:
    """One simulated X01 game a day for the ``days`` before today, Ann against
    Bob, Cy or Dee, getting better day by day: a player card with a chart."""
    now = time.time() if now is None else now
    opponents = ("Bob", "Cy", "Dee")
    for day in range(days, 0, -1):
        skill = 0.3 + 0.3 * (days - day) / days
        players = ("Ann", opponents[day % len(opponents)])
        document = simulated_document(
            "x01", 100 + day, players=players, skill=skill, options={"start": 501}, board="pub"
        )
        _store(database, document, now - day * 86400)
