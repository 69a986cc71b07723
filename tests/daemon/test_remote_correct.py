"""A correction in a remote match (docs/remote.md): the guest forwards its
``correct`` as an action with its dart, the host takes it like any action
and re-scores the visit; the other board cannot correct a dart it did not
throw. Two real daemons on one Mosquitto (tests/daemon/remote_pair.py)."""

from __future__ import annotations

from pathlib import Path

from tests.daemon.remote_pair import HOST, remote_pair, scores, start_match, to_the_guests_visit
from tests.daemon_harness import throw
from tests.mosquitto_broker import MosquittoBroker


async def test_a_guests_correction_is_taken_by_the_host(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    async with remote_pair(tmp_path, mosquitto, mosquitto) as pair:
        match = (await start_match(pair))["remote"]["match"]
        await to_the_guests_visit(pair)
        await throw(pair.guest.board, "T20", "S19")
        await pair.host_watch.state_where(lambda s: s["visit"] == ["T20", "S19"])
        # Ann's board may not correct Cy's visit: refused, nothing changes.
        refused = await pair.host_watch.command({"command": "correct", "dart": 2, "segment": "T19"})
        assert not refused["ok"] and refused["error"].startswith("not-your-turn"), refused
        # Cy's board corrects it: forwarded, taken by the host, shown on both boards.
        correcting = {"command": "correct", "dart": 2, "segment": "T19"}
        assert (await pair.guest_watch.command(correcting))["ok"]
        state = await pair.host_watch.state_where(lambda s: s["visit"] == ["T20", "T19"])
        assert scores(state) == [121, 301 - 117]
        assert state["phase"] == "throwing"
        mirrored = await pair.guest_watch.state_where(lambda s: s["visit"] == ["T20", "T19"])
        assert scores(mirrored) == [121, 184]
        event = await pair.guest_watch.wait_for("event", lambda e: e.get("type") == "corrected")
        assert (event["player"], event["dart"], event["from"], event["to"]) == (1, 2, "S19", "T19")
        # A correction the host refuses (no dart 3 yet) is said and changes nothing.
        assert (await pair.guest_watch.command({**correcting, "dart": 3}))["ok"]  # forwarded
        error = await pair.host_watch.wait_for(
            "event", lambda e: e.get("type") == "error" and "no dart 3" in e.get("message", "")
        )
        assert error["kind"] == "refused"
        assert scores(pair.host_watch.of("state")[-1]) == [121, 184]
    with pair.journal(pair.guest) as journal:
        forwarded = journal.remote.guest_untaken(match, 0)
    corrections = [action for action in forwarded if action.action == "correct"]
    assert [(a.dart, a.segment) for a in corrections] == [(2, "T19"), (3, "T19")]
    with pair.journal(pair.host) as journal:
        latest = journal.games.latest_game(HOST)
    assert latest is not None and "CORRECT2=T19" in latest.events
