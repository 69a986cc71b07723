"""A remote match across brokers, as a league night runs it: the host's
daemon on the league's Mosquitto, the guest's on the bar's, the bar bridged
to the league with the deployed bridge file (tests/bridged_brokers.py).
Whole matches, the bridge restarted mid-match, partitions in both
directions, the guest's own link dropping mid-visit (its last will), and the
host restarting: nothing lost, nothing doubled, the journals agree, and both
brokers end with each board's latest state."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from firmware_bridge.daemon.journal import Journal
from tests.bridged_brokers import BridgedBrokers
from tests.daemon.remote_pair import (
    BOUNCE,
    GUEST_AT,
    HOST,
    HOST_AT,
    NEXT,
    Pair,
    remote_pair,
    scores,
    start_match,
    thrower_board,
    to_the_guests_visit,
)
from tests.daemon_harness import TIMEOUT, Watcher, press, throw, until
from tests.mosquitto_broker import MosquittoBroker
from tests.tcp_proxy import TcpProxy


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[BridgedBrokers]:
    with BridgedBrokers(tmp_path / "brokers") as brokers:
        yield brokers


def league_and_bar(rig: BridgedBrokers) -> tuple[MosquittoBroker, MosquittoBroker]:
    assert rig.bar is not None
    return rig.league, rig.bar


def forwarded_and_taken(pair: Pair) -> tuple[list[int], int]:
    """The seqs the guest journaled as forwarded, and the last one the host
    journaled as taken, for the current match."""
    with Journal(pair.host.config.journal.resolved_path()) as journal:
        game = journal.games.latest_game(HOST)
        assert game is not None
        taken = journal.remote.remote_taken(game.id).get(GUEST_AT, 0)
    with Journal(pair.guest.config.journal.resolved_path()) as journal:
        match = journal.remote.guest_matches(limit=1)[0]
        forwarded = [action.seq for action in journal.remote.guest_untaken(match.match, 0)]
    return forwarded, taken


async def retained(broker: MosquittoBroker, topic: str) -> Any:
    """The retained message a new subscriber gets on ``topic`` (JSON or text)."""
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe(topic, qos=1)
        async with asyncio.timeout(TIMEOUT):
            async for message in client.messages:
                raw = message.payload
                text = raw.decode() if isinstance(raw, bytes) else str(raw)
                try:
                    return json.loads(text)
                except ValueError:
                    return text
    raise AssertionError(f"nothing retained on {topic}")


async def retained_until(
    broker: MosquittoBroker, topic: str, predicate: Callable[[Any], bool]
) -> Any:
    """The retained message on ``topic`` once ``predicate`` holds for it: a
    broker's copy may be stale for a moment after a partition, until the
    board replaces it."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not predicate(found := await retained(broker, topic)):
        assert asyncio.get_running_loop().time() < deadline, (broker.port, topic, found)
        await asyncio.sleep(0.1)
    return found


def stale_state(watch: Watcher, since: int) -> Iterator[bool]:
    """For each state ``watch`` got after its ``since``-th message: it is not
    the latest, [381] (a bridge's stale copy)."""
    for topic, payload in watch.messages[since:]:
        if topic.endswith("/state") and isinstance(payload, dict) and payload.get("players"):
            yield scores(payload) != [381]


async def test_a_whole_match_across_bridged_brokers_with_the_bridge_restarted_mid_match(
    tmp_path: Path, rig: BridgedBrokers
) -> None:
    league, bar = league_and_bar(rig)
    async with remote_pair(tmp_path, league, bar) as pair:
        await start_match(pair)
        await to_the_guests_visit(pair)
        await throw(pair.guest.board, "T20")
        await pair.host_watch.state_where(lambda s: s["players"][1]["score"] == 241)

        # The bar's broker restarts (its bridge with it) in the middle of Cy's visit.
        await asyncio.to_thread(rig.restart_bar)
        await rig.wait_up_async()
        await throw(pair.guest.board, "T20", "T20")
        await pair.host_watch.state_where(lambda s: scores(s) == [121, 121])
        await press(pair.guest.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == HOST_AT)
        await throw(pair.host.board, "T20", "T19", "D2")
        final = await pair.host_watch.state_where(lambda s: s["phase"] == "finished")
        assert final["players"][final["winner"]]["name"] == "Ann"
        await pair.guest_watch.state_where(lambda s: s["phase"] == "finished")

        forwarded, taken = forwarded_and_taken(pair)
        assert forwarded == list(range(1, len(forwarded) + 1))
        assert taken == forwarded[-1]  # every action the guest forwarded, taken once
        assert len(pair.host_watch.of("result")) == 1


async def test_a_partition_in_both_directions_loses_and_doubles_nothing(
    tmp_path: Path, rig: BridgedBrokers
) -> None:
    league, bar = league_and_bar(rig)
    async with remote_pair(tmp_path, league, bar) as pair:
        await start_match(pair)
        await throw(pair.host.board, "T20")
        await pair.guest_watch.state_where(lambda s: s["players"][0]["score"] == 241)

        # The bar is cut off from the league. The host's side goes on: Ann's
        # darts and NEXT are taken at the host, where nobody at the bar sees them.
        rig.cut()
        await asyncio.to_thread(rig.wait_down)
        await throw(pair.host.board, "T20", "T20")
        await press(pair.host.board, NEXT)
        await pair.host_watch.state_where(lambda s: thrower_board(s) == GUEST_AT)
        # Cy throws at the bar meanwhile: registered, journaled, waiting.
        await throw(pair.guest.board, "T20", "T19")
        await until(lambda: forwarded_and_taken(pair) == ([1, 2], 0))  # journaled at the bar
        assert scores(pair.host_watch.of("state")[-1]) == [121, 301]  # not seen yet

        rig.restore()
        await rig.wait_up_async()
        # Everything crosses once: Cy's two darts are scored exactly once, and
        # the bar sees Ann's visit.
        state = await pair.host_watch.state_where(lambda s: scores(s) == [121, 184])
        await pair.guest_watch.state_where(lambda s: scores(s) == [121, 184])
        await throw(pair.guest.board, "S1")
        await pair.host_watch.state_where(lambda s: scores(s) == [121, 183])
        # What must not happen: a resend scored twice. Resends come and go
        # within resend_s; a bounded look of twice that.
        await asyncio.sleep(2 * pair.guest.config.remote.resend_s)
        assert scores(pair.host_watch.of("state")[-1]) == [121, 183]
        forwarded, taken = forwarded_and_taken(pair)
        assert forwarded == [1, 2, 3] and taken == 3
        assert state["remote"]["match"] == pair.guest_watch.of("state")[-1]["remote"]["match"]

        # Both brokers end with each board's latest state (a bridge resends its
        # stale retained copies when it comes back, long done by now; each
        # daemon replaces them within a second).
        for broker in (league, bar):
            for board in (HOST_AT, GUEST_AT):
                await retained_until(broker, f"{board}/state", lambda s: scores(s) == [121, 183])
            assert await retained(broker, f"{HOST_AT}/availability") == "online"
            assert await retained(broker, f"{GUEST_AT}/availability") == "online"


async def test_the_guests_link_drops_mid_visit_and_its_darts_arrive_once(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """The guest's own connection drops (no goodbye: its last will fires): the
    host pauses; the darts the guest's board registered meanwhile are taken
    once it is back, exactly once."""
    with TcpProxy(mosquitto.host, mosquitto.port) as proxy:
        guest_url = f"mqtt://{proxy.host}:{proxy.port}"
        async with remote_pair(tmp_path, mosquitto, mosquitto, guest_url=guest_url) as pair:
            await start_match(pair)
            await to_the_guests_visit(pair)
            await throw(pair.guest.board, "T20")
            await pair.host_watch.state_where(lambda s: scores(s) == [121, 241])

            proxy.cut()
            paused = await pair.host_watch.state_where(lambda s: s["phase"] == "waiting-remote")
            assert paused["remote"]["waiting"] == [GUEST_AT]
            await throw(pair.host.board, "T20")  # Ann cannot throw meanwhile
            await pair.host_watch.wait_for(
                "event", lambda e: e.get("type") == "hit" and e.get("reason") == "waiting-remote"
            )
            await throw(pair.guest.board, "T20", "T20")  # registered while the link is down
            await until(lambda: forwarded_and_taken(pair) == ([1, 2, 3], 1))
            assert scores(pair.host_watch.of("state")[-1]) == [121, 241]

            proxy.restore()
            # The guest reconnects at its next attempt (its backoff grew
            # while the link was down): allow for it.
            await pair.host_watch.state_where(
                lambda s: s["phase"] != "waiting-remote" and scores(s) == [121, 121],
                timeout=4 * TIMEOUT,
            )
            await asyncio.sleep(2 * pair.guest.config.remote.resend_s)  # none scored twice
            assert scores(pair.host_watch.of("state")[-1]) == [121, 121]
            forwarded, taken = forwarded_and_taken(pair)
            assert forwarded == [1, 2, 3] and taken == 3


def guest_journaled(pair: Pair, segment: str) -> str | None:
    """What the guest's journal did with its board's hit ``segment`` in the
    current match: ``forwarded``, ``ignored: <reason>``, or None (not yet)."""
    with Journal(pair.guest.config.journal.resolved_path()) as journal:
        match = journal.remote.guest_matches(limit=1)[0]
        actions = journal.remote.guest_untaken(match.match, 0)
    if any(a.action == "hit" and a.segment == segment for a in actions):
        return "forwarded"
    with sqlite3.connect(pair.guest.config.journal.resolved_path()) as connection:
        row = connection.execute(
            "SELECT reason FROM ignored WHERE what = ? AND at >= ?", (segment, match.joined_at)
        ).fetchone()
    return None if row is None else f"ignored: {row[0]}"


async def test_a_bounce_while_the_link_is_down_leaves_the_third_dart_to_throw(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """A bounce-out turns the last dart into a miss that stays thrown: it is
    not another dart. With the guest's link down after T20 and S5, its BOUNCE
    and then the real third dart are journaled and forwarded, not the third
    dart dropped as takeout; once the link is back the host scores T20, the
    bounced miss and T19, and the visit is over."""
    with TcpProxy(mosquitto.host, mosquitto.port) as proxy:
        guest_url = f"mqtt://{proxy.host}:{proxy.port}"
        async with remote_pair(tmp_path, mosquitto, mosquitto, guest_url=guest_url) as pair:
            await start_match(pair)
            await to_the_guests_visit(pair)
            await throw(pair.guest.board, "T20", "S5")
            await pair.guest_watch.state_where(lambda s: scores(s) == [121, 236])

            proxy.cut()
            await pair.host_watch.state_where(lambda s: s["phase"] == "waiting-remote")
            await press(pair.guest.board, BOUNCE)
            await throw(pair.guest.board, "T19")  # the player's real third dart
            await until(lambda: guest_journaled(pair, "T19") is not None)
            assert guest_journaled(pair, "T19") == "forwarded"
            forwarded, taken = forwarded_and_taken(pair)
            assert (forwarded, taken) == ([1, 2, 3, 4], 2)  # T20, S5 taken; BOUNCE, T19 not

            proxy.restore()
            state = await pair.host_watch.state_where(
                lambda s: s["phase"] == "takeout" and thrower_board(s) == GUEST_AT,
                timeout=4 * TIMEOUT,  # the guest's reconnect backoff grew while it was cut
            )
            assert state["last_visit"]["darts"] == ["T20", "M", "T19"], state["last_visit"]
            assert scores(state) == [121, 184]
            assert state["players"][1]["stats"]["bounce_outs"] == 1
            await pair.guest_watch.state_where(
                lambda s: (s.get("last_visit") or {}).get("darts") == ["T20", "M", "T19"]
            )
            # Its visit over, the guest's board is in takeout: a pulled dart is not sent.
            await throw(pair.guest.board, "S1")
            await until(lambda: guest_journaled(pair, "S1") is not None)
            assert guest_journaled(pair, "S1") == "ignored: takeout"
            forwarded, taken = forwarded_and_taken(pair)
            assert (forwarded, taken) == ([1, 2, 3, 4], 4)


async def test_the_host_restarts_mid_match_and_the_guest_resyncs(
    tmp_path: Path, rig: BridgedBrokers
) -> None:
    league, bar = league_and_bar(rig)
    async with remote_pair(tmp_path, league, bar) as pair:
        state = await start_match(pair)
        await to_the_guests_visit(pair)
        await throw(pair.guest.board, "T20")
        await pair.guest_watch.state_where(lambda s: scores(s) == [121, 241])

        await pair.host.stop()
        await pair.guest_watch.state_where(lambda s: s["phase"] == "waiting-remote")
        await throw(pair.guest.board, "T20")  # while the host is away
        await pair.host.start()
        resumed = await pair.host_watch.state_where(
            lambda s: s.get("remote", {}).get("waiting") == [] and scores(s) == [121, 181]
        )
        assert resumed["remote"]["match"] == state["remote"]["match"]
        await pair.guest_watch.state_where(
            lambda s: s["phase"] == "throwing" and scores(s) == [121, 181]
        )
        await throw(pair.guest.board, "T20")
        await pair.host_watch.state_where(lambda s: scores(s) == [121, 121])
        forwarded, taken = forwarded_and_taken(pair)
        assert forwarded == [1, 2, 3] and taken == 3


async def test_after_a_partition_both_brokers_keep_each_boards_latest_state(
    tmp_path: Path, rig: BridgedBrokers
) -> None:
    """When the bridge comes back, each broker resends its retained copies:
    the league's copy of a bar board's state is older than the board's if it
    played on during the partition. The board publishes its latest again, so
    neither broker, nor its display, is left with the stale one."""
    league, bar = league_and_bar(rig)
    async with remote_pair(tmp_path, league, bar) as pair:
        # Each board plays a game of its own: no remote match resyncs anything.
        for watch in (pair.host_watch, pair.guest_watch):
            response = await watch.command(
                {"command": "new_game", "game": "x01", "players": ["Solo"]}
            )
            assert response["ok"], response
        await throw(pair.host.board, "T20")
        await throw(pair.guest.board, "T20")
        for watch in (pair.host_watch, pair.guest_watch):
            await watch.state_where(lambda s: bool(s.get("players")) and scores(s) == [441])
        # Both states crossed the bridge: each broker retains the other's.
        await retained_until(bar, f"{HOST_AT}/state", lambda s: scores(s) == [441])
        await retained_until(league, f"{GUEST_AT}/state", lambda s: scores(s) == [441])
        rig.cut()
        await asyncio.to_thread(rig.wait_down)
        await throw(pair.host.board, "T20")  # only the league sees this one
        await throw(pair.guest.board, "T20")  # only the bar sees this one
        for watch in (pair.host_watch, pair.guest_watch):
            await watch.state_where(lambda s: scores(s) == [381])
        since = len(pair.host_watch.messages), len(pair.guest_watch.messages)
        rig.restore()
        await rig.wait_up_async()
        # The stale copies come at the reconnect: each board's own broker gets
        # the other side's older copy of its state back (tests/test_deploy_bridge.py).
        # Wait for them (go on if none comes), then for the heal.
        for watch, start in zip((pair.host_watch, pair.guest_watch), since, strict=True):
            with contextlib.suppress(TimeoutError):
                await until(lambda w=watch, i=start: any(stale_state(w, i)))
        for broker in (league, bar):
            for board in (HOST_AT, GUEST_AT):
                await retained_until(broker, f"{board}/state", lambda s: scores(s) == [381])
        # The last state each board's display saw is its latest.
        await pair.host_watch.state_where(lambda s: scores(s) == [381])
        await pair.guest_watch.state_where(lambda s: scores(s) == [381])
