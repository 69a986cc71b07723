"""Two real daemons in one remote match: a host and a guest board, each on a
fake pty board with its own journal, and a watcher on each board's topics.
The brokers are the caller's: one Mosquitto, or two bridged ones."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.daemon.journal import Journal
from tests.daemon_harness import Running, Watcher, press, throw
from tests.mosquitto_broker import MosquittoBroker

__all__ = [
    "BOUNCE",
    "GUEST",
    "GUEST_AT",
    "HOST",
    "HOST_AT",
    "NEXT",
    "Pair",
    "remote_pair",
    "scores",
    "start_match",
    "thrower_board",
    "to_the_guests_visit",
]

HOST = "pub1"
GUEST = "pub2"
HOST_AT = f"oche/{HOST}"
GUEST_AT = f"oche/{GUEST}"
NEXT = 0  # the test map's NEXT button
BOUNCE = 3  # the test map's BOUNCE OUT button


@dataclass
class Pair:
    """The host and guest daemons and a watcher on each one's own broker."""

    host: Running
    guest: Running
    host_watch: Watcher
    guest_watch: Watcher

    def journal(self, which: Running) -> Journal:
        """The board's journal, opened for reading beside the running daemon."""
        return Journal(which.config.journal.resolved_path())


@dataclass
class _Through:
    """A broker as the daemon's config names it: only its URL."""

    url: str


def scores(state: dict[str, Any]) -> list[int]:
    return [player["score"] for player in state["players"]]


def thrower_board(state: dict[str, Any]) -> str | None:
    """The board whose visit is on (``remote.throwing_at``), or None."""
    remote = state.get("remote")
    return None if remote is None else remote.get("throwing_at")


@contextlib.asynccontextmanager
async def remote_pair(
    tmp_path: Path,
    host_broker: MosquittoBroker,
    guest_broker: MosquittoBroker,
    *,
    host_extra: str = "",
    guest_extra: str = "",
    takeout_s: float = 0.0,
    guest_allow: tuple[str, ...] = (HOST,),
    guest_url: str | None = None,
) -> AsyncIterator[Pair]:
    """Start the host (pub1, on ``host_broker``) and the guest (pub2, which
    allows ``guest_allow``, on ``guest_broker``, or through ``guest_url`` to
    it, e.g. a proxy a test can cut); stop both at the end."""
    (tmp_path / HOST).mkdir()
    (tmp_path / GUEST).mkdir()
    host = Running(tmp_path / HOST, host_broker, board=HOST, takeout_s=takeout_s, extra=host_extra)
    guest = Running(
        tmp_path / GUEST,
        _Through(guest_url) if guest_url else guest_broker,
        board=GUEST,
        takeout_s=takeout_s,
        extra=f"[remote]\nallow = {list(guest_allow)!r}\n{guest_extra}".replace("'", '"'),
    )
    async with (
        Watcher(host_broker.host, host_broker.port, HOST) as host_watch,
        Watcher(guest_broker.host, guest_broker.port, GUEST) as guest_watch,
    ):
        await host.start()
        await guest.start()
        try:
            await host_watch.state_where(lambda s: s["board"]["connected"])
            await guest_watch.state_where(lambda s: s["board"]["connected"])
            yield Pair(host, guest, host_watch, guest_watch)
        finally:
            await guest.stop()
            await host.stop()
            guest.board.close()
            host.board.close()


async def start_match(
    pair: Pair, start: int = 301, match: dict[str, Any] | None = None
) -> dict[str, Any]:
    """new_game on the host, x01: Ann throws at the host, Cy at the guest
    (played as a match of legs with ``match``, new_game's). Returns the
    host's state once the match is on (both boards joined) and the guest
    mirrors it."""
    # Both daemons connected to the broker: the host hears the command.
    await pair.host_watch.state_where(lambda s: s["board"]["connected"])
    await pair.guest_watch.state_where(lambda s: s["board"]["connected"])
    command: dict[str, Any] = {
        "command": "new_game",
        "game": "x01",
        "options": {"start": start},
        "players": ["Ann", {"name": "Cy", "board": GUEST}],
    }
    if match is not None:
        command["match"] = match
    response = await pair.host_watch.command(command)
    assert response["ok"], response
    state = await pair.host_watch.state_where(
        lambda s: s["phase"] == "throwing" and s.get("remote", {}).get("waiting") == []
    )
    await pair.guest_watch.state_where(
        lambda s: (
            s.get("remote", {}).get("match") == state["remote"]["match"]
            and s["phase"] == "throwing"
        )
    )
    return state


async def to_the_guests_visit(pair: Pair) -> None:
    """Ann throws 180 at the host and presses NEXT: Cy is up, at the guest."""
    await throw(pair.host.board, "T20", "T20", "T20")
    await press(pair.host.board, NEXT)
    await pair.host_watch.state_where(lambda s: thrower_board(s) == GUEST_AT)
