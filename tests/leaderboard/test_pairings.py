"""The paired devices' tokens (leaderboard/pairings.py) on SQLite and
PostgreSQL: only a token's SHA-256 is kept, a token finds its pairing, a
board's list deletes the tokens of the devices it dropped (and no other
board's); migration 0008 makes the table the model says; and the API with
a board whose ``pairing`` topic was never heard trusts the database, then
refuses a device once the board's list leaves it out."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import httpx
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.models import Base, BoardPairing
from leaderboard.pairings import (
    BoardPairings,
    add_pairing,
    forget_token,
    forget_unlisted,
    new_device_id,
    pairing_of,
    token_digest,
)
from leaderboard.web.app import create_app
from mqtt_contract.pairing_payload import device_id_problem
from tests.leaderboard.web_seed import VENUES


def rows(database: Database) -> list[tuple[str, str, str, str]]:
    with database.session() as session:
        found = session.execute(select(BoardPairing).order_by(BoardPairing.id)).scalars()
        return [(r.token_hash, r.board, r.device_id, r.device_name) for r in found]


def test_only_the_token_s_digest_is_kept_and_it_finds_the_pairing(database: Database) -> None:
    device = new_device_id()
    assert device_id_problem(device) is None
    token = add_pairing(database, "pub", device, "Ann's phone", now=1000.0)
    assert len(token) >= 43
    ((digest, board, kept_device, name),) = rows(database)
    assert digest == hashlib.sha256(token.encode()).hexdigest() == token_digest(token)
    assert (board, kept_device, name) == ("pub", device, "Ann's phone")
    found = pairing_of(database, token)
    assert found is not None
    assert (found.board, found.device_id, found.device_name, found.created_at) == (
        "pub",
        device,
        "Ann's phone",
        1000.0,
    )
    assert pairing_of(database, token + "x") is None
    assert pairing_of(database, digest) is None  # the digest is no token
    assert forget_token(database, token) is True
    assert forget_token(database, token) is False
    assert rows(database) == []


def test_two_pairings_get_two_tokens(database: Database) -> None:
    first = add_pairing(database, "pub", new_device_id(), "phone")
    second = add_pairing(database, "pub", new_device_id(), "phone")
    assert first != second
    found = [pairing_of(database, token) for token in (first, second)]
    assert len({pairing.device_id for pairing in found if pairing is not None}) == 2


def test_a_board_s_list_deletes_the_tokens_of_the_devices_it_dropped(database: Database) -> None:
    kept, dropped, elsewhere = new_device_id(), new_device_id(), new_device_id()
    kept_token = add_pairing(database, "pub", kept, "kept")
    dropped_token = add_pairing(database, "pub", dropped, "dropped")
    other_token = add_pairing(database, "bar", elsewhere, "bar's")
    assert forget_unlisted(database, "pub", {kept, "someone-else"}) == [dropped]
    assert pairing_of(database, dropped_token) is None
    assert pairing_of(database, kept_token) is not None
    assert pairing_of(database, other_token) is not None
    assert forget_unlisted(database, "pub", []) == [kept]  # "Unpair all"
    assert [row[1] for row in rows(database)] == ["bar"]


def test_migration_0008_makes_the_table_the_model_says(database: Database) -> None:
    def of_pairings(item: Any, name: str | None, kind: str, *_: Any) -> bool:
        table = name if kind == "table" else item.table.name
        return table == "board_pairings"

    with database.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": of_pairings}
        )
        assert compare_metadata(context, Base.metadata) == []


async def _statuses(database: Database) -> list[int]:
    """A token's status answers: the board's list never heard, then one that
    lists the device, then one that does not (before and after the deletion)."""
    device = new_device_id()
    token = add_pairing(database, "pub", device, "Ann's phone")
    pairings = BoardPairings(database)
    app = create_app(database, LiveHub(), VENUES, pairings=pairings)
    headers = {"Authorization": f"Bearer {token}"}
    statuses = []
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lb") as client:

        async def status() -> int:
            answer = await client.get("/api/boards/pub/pairing", headers=headers)
            return answer.status_code

        statuses.append(await status())  # never heard: the database decides
        pairings.heard("pub", [device])
        await pairings.settled()
        statuses.append(await status())
        pairings.heard("pub", [new_device_id()])
        statuses.append(await status())  # refused at once, deleted or not yet
        await pairings.settled()
        statuses.append(await status())  # deleted: unknown
    return statuses


def test_the_database_decides_until_the_board_s_list_is_heard(database: Database) -> None:
    first, listed, dropped, deleted = asyncio.run(_statuses(database))
    assert (first, listed) == (200, 200)
    assert dropped in (401, 403)
    assert deleted == 401
    assert rows(database) == []
