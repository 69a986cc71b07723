"""Remote matches through one bridge hop: the bare bridged round trip, and a
guest's hit to the host's state and the host's state to the guest's mirror.

Two private Mosquittos on free loopback ports, B (the bar, the guest's side)
running ``deploy/mosquitto/bridge-to-league.conf`` bridged to A (the league,
the host's side): the rig of tests/bridged_brokers.py, never cut here.

- **bare**: a client on B publishes a small QoS 1 message on a remote channel
  topic, a client on A answers it on the other side's channel, and the clock
  stops when the answer is back on B: two bridge crossings.
- **guest hit -> host state** and **host state -> guest mirror**: a host
  daemon (``oche run``, pub1) on A and a guest daemon (pub2,
  ``[remote] allow = ["pub1"]``) on B, each on a pty board; the guest's
  player throws S1 at x01 1001, and the clock runs from the frame written
  to the guest's pty to the host's state with the dart arriving at a client
  on A, and from there to the guest's mirrored state arriving at a client on B.

Goal: each p99 at most 3x the bare bridged round trip of the same run.
Run from the checkout: ``python -m benchmarks.remote [--samples N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiomqtt

from benchmarks.drivers import percentile
from benchmarks.latency import NEXT_BUTTON, PtyBoard, client, launch, receive, stop, write_config
from benchmarks.report import print_rows
from engine import Bed

__all__ = ["bare_round_trips", "main", "match_latencies"]

NODELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
TIMEOUT = 10.0
TARGET_RATIO = 3.0
OUT, BACK = "oche/pub2/remote/pub1", "oche/pub1/remote/pub2"


async def bare_round_trips(
    bar_port: int, league_port: int, samples: int, gap_s: float
) -> tuple[list[float], list[float]]:
    """Milliseconds from a publish on B to the answer from A arriving back on
    B (the round trip), and to the message arriving on A (one crossing)."""
    async with (
        aiomqtt.Client("127.0.0.1", bar_port, socket_options=NODELAY) as guest,
        aiomqtt.Client("127.0.0.1", league_port, socket_options=NODELAY) as host,
    ):
        await guest.subscribe(BACK, qos=1)
        await host.subscribe(OUT, qos=1)
        arrivals: dict[bytes, float] = {}

        async def answer() -> None:
            async for message in host.messages:
                if isinstance(message.payload, bytes):
                    arrivals[message.payload] = time.perf_counter()
                await host.publish(BACK, message.payload, qos=1)

        answering = asyncio.create_task(answer())
        round_trips: list[float] = []
        crossings: list[float] = []
        try:
            warm = 5
            for index in range(samples + warm):
                await asyncio.sleep(gap_s)
                token = uuid.uuid4().hex.encode()
                start = time.perf_counter()
                await guest.publish(OUT, token, qos=1)
                async with asyncio.timeout(TIMEOUT):
                    async for message in guest.messages:
                        if message.payload == token:
                            break
                if index >= warm:
                    round_trips.append((time.perf_counter() - start) * 1000)
                    crossings.append((arrivals[token] - start) * 1000)
        finally:
            answering.cancel()
            await asyncio.gather(answering, return_exceptions=True)
        return round_trips, crossings


async def match_latencies(
    workdir: Path, league_port: int, bar_port: int, samples: int, gap_s: float
) -> tuple[list[float], list[float]]:
    """Milliseconds from a hit on the guest's board to the host's state with
    it (on A), and from that state to the guest's mirror of it (on B): two
    ``oche run`` processes, the host pub1 on A and the guest pub2 on B, the
    guest's player Cy throwing S1 at x01 1001 (NEXT after each visit)."""
    host_dir, guest_dir = workdir / "host", workdir / "guest"
    host_dir.mkdir(parents=True)
    guest_dir.mkdir(parents=True)
    host_board = PtyBoard(host_dir / "board")
    guest_board = PtyBoard(guest_dir / "board")
    host_config = write_config(host_dir, league_port, host_board, board_id="pub1")
    guest_config = write_config(
        guest_dir, bar_port, guest_board, board_id="pub2", extra='[remote]\nallow = ["pub1"]\n'
    )
    processes = [
        launch(host_config, host_dir / "oche.log"),
        launch(guest_config, guest_dir / "oche.log"),
    ]
    host_state, guest_state = "oche/pub1/state", "oche/pub2/state"
    try:
        async with client(league_port) as host_side, client(bar_port) as guest_side:
            await host_side.subscribe(host_state, qos=1)
            await guest_side.subscribe(guest_state, qos=1)
            await host_side.subscribe("oche/pub1/cmd/response", qos=1)
            await receive(host_side, host_state, lambda s: s["board"]["connected"], "connected")
            command = {
                "command": "new_game",
                "id": "bench",
                "game": "x01",
                "options": {"start": 1001},
                "players": [{"name": "Cy", "board": "pub2"}],
            }
            await host_side.publish("oche/pub1/cmd", json.dumps(command), qos=1)

            def on(state: dict[str, Any]) -> bool:
                remote = state.get("remote") or {}
                return state.get("phase") == "throwing" and remote.get("waiting") == []

            _, state = await receive(host_side, host_state, on, "with the match on")
            await receive(guest_side, guest_state, on, "mirroring the match")
            score = state["players"][0]["score"]
            to_host: list[float] = []
            to_mirror: list[float] = []
            warm = 3
            for index in range(samples + warm):
                await asyncio.sleep(gap_s)
                score -= 1

                def scored(state: dict[str, Any], score: int = score) -> bool:
                    players = state.get("players") or [{}]
                    return bool(players[0].get("score") == score)

                at_host = asyncio.create_task(receive(host_side, host_state, scored, "with a dart"))
                mirrored = asyncio.create_task(
                    receive(guest_side, guest_state, scored, "mirroring a dart")
                )
                await asyncio.sleep(0)
                start = time.perf_counter()
                guest_board.hit(Bed.parse("S1"))
                (host_at, _), (mirror_at, mirror) = await asyncio.gather(at_host, mirrored)
                if index >= warm:
                    to_host.append((host_at - start) * 1000)
                    to_mirror.append((mirror_at - host_at) * 1000)
                if mirror.get("phase") == "takeout":
                    guest_board.button(NEXT_BUTTON)
                    await receive(
                        guest_side,
                        guest_state,
                        lambda s: s.get("phase") == "throwing",
                        "after NEXT",
                    )
            return to_host, to_mirror
    finally:
        for process in processes:
            stop(process)
        host_board.close()
        guest_board.close()


async def run(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.bridged_brokers import BridgedBrokers

    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="oche-remote-") as temporary:
        rig = BridgedBrokers(Path(temporary))
        await asyncio.to_thread(rig.start)
        try:
            assert rig.bar is not None
            bare, crossing = await bare_round_trips(
                rig.bar.port, rig.league.port, args.samples, args.gap_ms / 1000
            )
            to_host, to_mirror = await match_latencies(
                Path(temporary) / "daemons",
                rig.league.port,
                rig.bar.port,
                args.darts,
                args.dart_gap_ms / 1000,
            )
        finally:
            await asyncio.to_thread(rig.stop)
    p50, p99 = statistics.median(bare), percentile(bare, 0.99)
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"{args.samples} samples, {args.gap_ms:g} ms between them, load {load:.2f} before the run"
    )
    goal = p99 * TARGET_RATIO
    rows = [
        ("bare bridged round trip, p50", f"{p50:.3f} ms"),
        ("bare bridged round trip, p99", f"{p99:.3f} ms"),
        ("bare crossing B -> A, p50", f"{statistics.median(crossing):.3f} ms"),
        ("bare crossing B -> A, p99", f"{percentile(crossing, 0.99):.3f} ms"),
    ]
    for name, values in (
        ("guest hit -> host state", to_host),
        ("host state -> guest mirror", to_mirror),
    ):
        high = percentile(values, 0.99)
        rows += [
            (f"{name}, p50", f"{statistics.median(values):.3f} ms"),
            (
                f"{name}, p99",
                f"{high:.3f} ms ({high / p99:.2f}x bare p99: "
                f"{'met' if high <= goal else 'missed'})",
            ),
        ]
    rows.append((f"goal: p99 <= {TARGET_RATIO:g}x bare p99", f"<= {goal:.3f} ms"))
    print_rows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=300, help="round trips")
    parser.add_argument(
        "--gap-ms", type=float, default=50.0, help="pause before each round trip (as darts)"
    )
    parser.add_argument("--darts", type=int, default=150, help="darts thrown at the guest")
    parser.add_argument("--dart-gap-ms", type=float, default=50.0, help="pause before each dart")
    args = parser.parse_args()
    if args.samples < 1 or args.darts < 1:
        parser.error("--samples and --darts must be at least 1")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
