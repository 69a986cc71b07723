"""Issue #21 item 8: "refused by the rules" (rejected, kept whole) apart from
"our code failed" (failed: kept whole with its traceback, not counted,
acknowledged, and stored by ``oche leaderboard rescore`` once the code is
mended). A bug cannot be summoned, so one is injected into the ingest of this
process; ``rescore`` then runs as a real ``oche`` process, without it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from leaderboard import queries, store
from leaderboard.database import Database
from leaderboard.models import Rejected
from leaderboard.scoring import ScoredResult, score_result
from leaderboard.store import MAX_RESULT_BYTES, ingest, rescore
from leaderboard.venues import VenueMap
from tests.leaderboard.conftest import as_payload
from tests.leaderboard.mqtt_harness import publish, running_ingest, wait_until
from tests.leaderboard.result_documents import result_document, simulated_document
from tests.mosquitto_broker import MosquittoBroker

OCHE = Path(sys.executable).parent / "oche"
VENUES = VenueMap()


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    yield database
    database.dispose()


def long_game() -> dict[str, Any]:
    """A whole seeded X01 game, with a key this service does not know (payloads
    are open) making it longer than the 4,096 characters once kept."""
    document = simulated_document("x01", seed=3, options={"start": 501})
    document["note"] = "a long evening at the Crown; " * 300
    assert len(as_payload(document)) > 8192
    return document


@pytest.fixture
def scoring_bug(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Re-scoring the results whose id is in the returned set raises, as a
    bug in this service would (a KeyError deep in the scoring)."""
    victims: set[str] = set()

    def buggy(document: Mapping[str, Any]) -> ScoredResult:
        if document.get("result_id") in victims:
            figures: dict[str, ScoredResult] = {}
            return figures["sigma_mm"]  # the KeyError a bug would raise
        return score_result(document)

    monkeypatch.setattr(store, "score_result", buggy)
    return victims


def rows(database: Database) -> list[Rejected]:
    with database.session() as session:
        found = session.execute(select(Rejected).order_by(Rejected.id)).scalars().all()
        session.expunge_all()
        return list(found)


def table(database: Database) -> dict[str, tuple[int, int]]:
    with database.session() as session:
        return {
            row.player: (row.played, row.won) for row in queries.leaderboard(session, "x01", "all")
        }


def oche(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OCHE), "leaderboard", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_bug_in_scoring_keeps_the_result_whole_and_rescore_stores_it_later(
    database: Database, scoring_bug: set[str]
) -> None:
    document = long_game()
    scoring_bug.add(document["result_id"])
    payload = as_payload(document)
    outcome = ingest(database, payload, VENUES)
    assert (outcome.status, outcome.result_id) == ("failed", document["result_id"])
    assert "KeyError" in (outcome.reason or "") and "oche leaderboard rescore" in (
        outcome.reason or ""
    )
    (failed,) = rows(database)
    assert (failed.status, failed.result_id) == ("failed", document["result_id"])
    assert failed.payload == payload.decode()  # whole, not its first 4,096 characters
    assert failed.error is not None
    assert "Traceback" in failed.error and "KeyError: 'sigma_mm'" in failed.error
    assert table(database) == {}  # not counted
    with database.session() as session:
        (listed,) = queries.rejected(session)
    assert (listed.result_id, listed.status) == (document["result_id"], "failed")
    # A redelivery while the bug is there is failed again, kept once.
    assert ingest(database, payload, VENUES).status == "failed"
    assert len(rows(database)) == 1

    scoring_bug.clear()  # "the upgrade": rescore runs the code as it is on disk
    done = oche("rescore", "--db", database.url, "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary == {
        "rescored": 1,
        "imported": 1,
        "replaced": 0,
        "duplicates": 0,
        "superseded": 0,
        "withdrawn": 0,
        "rejected": [],
        "failed": [],
    }
    assert rows(database) == []
    assert set(table(database)) == {"Ann", "Bob"}
    again = oche("rescore", "--db", database.url)
    assert (again.returncode, again.stdout) == (0, "no failed results to re-score\n")


def test_rescore_keeps_what_still_fails_and_rejects_what_the_rules_refuse(
    database: Database, scoring_bug: set[str]
) -> None:
    fine = result_document(
        "x01", ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"], options={"start": 301}
    )
    tampered = {**fine, "result_id": "tampered", "winner": 1}
    stuck = {**fine, "result_id": "stuck"}
    scoring_bug.update({"tampered", "stuck"})
    for document in (tampered, stuck):
        assert ingest(database, as_payload(document), VENUES).status == "failed"
    scoring_bug.discard("tampered")
    summary = rescore(database, VENUES)  # in this process: "stuck" still meets the bug
    assert summary["rescored"] == 2 and summary["imported"] == 0
    assert [entry["result_id"] for entry in summary["rejected"]] == ["tampered"]
    assert "winner" in summary["rejected"][0]["reason"]
    assert [entry["result_id"] for entry in summary["failed"]] == ["stuck"]
    assert sorted((row.result_id, row.status) for row in rows(database)) == [
        ("stuck", "failed"),
        ("tampered", "rejected"),
    ]
    rejected_row = next(row for row in rows(database) if row.status == "rejected")
    assert rejected_row.error is None
    done = oche("rescore", "--db", database.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "re-scored 1 failed result: 1 stored\n"


def test_what_the_rules_refuse_is_rejected_and_kept_whole(database: Database) -> None:
    document = {**long_game(), "result_id": "claims-the-wrong-winner"}
    document["winner"] = 1 - document["winner"]
    document["winner_name"] = document["players"][document["winner"]]["name"]
    payload = as_payload(document)
    outcome = ingest(database, payload, VENUES)
    assert outcome.status == "rejected"
    oversized = b"[" + b" " * MAX_RESULT_BYTES + b"]"
    assert ingest(database, oversized, VENUES).status == "rejected"
    assert ingest(database, b'{"bad": "\xff\xfe"}', VENUES).status == "rejected"
    kept = {row.result_id or row.reason[:20]: row for row in rows(database)}
    whole = kept["claims-the-wrong-winner"]
    assert (whole.status, whole.payload, whole.error) == ("rejected", payload.decode(), None)
    (big,) = [row for row in kept.values() if "over the limit" in row.reason]
    assert len(big.payload) == MAX_RESULT_BYTES  # whole up to the limit the ingest reads
    (bad,) = [row for row in kept.values() if "not UTF-8" in row.reason]
    assert bad.payload == '{"bad": "\\xff\\xfe"}'  # undecodable bytes kept, as escapes


async def test_a_failed_result_is_acknowledged_and_the_results_behind_it_are_stored(
    mosquitto: MosquittoBroker, database: Database, scoring_bug: set[str]
) -> None:
    documents = [
        result_document(
            "x01",
            ["T20 T20 T20", "S1 S1 S1", "T20 T11 D14"],
            options={"start": 301},
            finished_at=1_780_000_000.0 + n,
        )
        for n in range(3)
    ]
    scoring_bug.add(documents[0]["result_id"])
    async with running_ingest(mosquitto, database) as running:
        await publish(mosquitto, [("oche/board1/result", as_payload(d)) for d in documents])
        await wait_until(lambda: len(running.outcomes) == 3)
    assert [outcome.status for outcome in running.outcomes] == ["failed", "imported", "imported"]
    assert table(database) == {"Ann": (2, 2), "Bob": (2, 0)}
    # Acknowledged: the broker has nothing more for the service's session.
    async with running_ingest(mosquitto, database) as again:
        await publish(mosquitto, [("oche/board1/result", as_payload(documents[1]))])
        await wait_until(lambda: len(again.outcomes) >= 1)
    assert [outcome.status for outcome in again.outcomes] == ["duplicate"]
