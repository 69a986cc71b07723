"""Remote matches through one bridge hop: the bare bridged round trip, and a
guest's hit to the host's state and the host's state to the guest's mirror.

Two private Mosquittos on free loopback ports, B (the bar, the guest's side)
running ``deploy/mosquitto/bridge-to-league.conf`` bridged to A (the league,
the host's side): the rig of tests/bridged_brokers.py, never cut here.

- **bare**: a client on B publishes a small QoS 1 message on a remote channel
  topic, a client on A answers it on the other side's channel, and the clock
  stops when the answer is back on B: two bridge crossings.
- **guest hit -> host state** and **host state -> guest mirror**: a host
  Daemon (pub1) on A and a guest Daemon (pub2, ``[remote] allow = ["pub1"]``)
  on B, the guest's board a pty FakeBoard. Skipped, with the reason, when no
  ``remote`` block appears in the host's state within 10 s (the remote match
  is not there yet).

Goal: each p99 at most 3x the bare bridged round trip of the same run.
Run from the checkout: ``python -m benchmarks.remote [--samples N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import aiomqtt

from benchmarks.drivers import percentile

__all__ = ["bare_round_trips", "main"]

NODELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
TIMEOUT = 10.0
TARGET_RATIO = 3.0
OUT, BACK = "oche/pub2/remote/pub1", "oche/pub1/remote/pub2"


async def bare_round_trips(
    bar_port: int, league_port: int, samples: int, gap_s: float
) -> list[float]:
    """Milliseconds from a publish on B to the answer from A arriving back on B."""
    async with (
        aiomqtt.Client("127.0.0.1", bar_port, socket_options=NODELAY) as guest,
        aiomqtt.Client("127.0.0.1", league_port, socket_options=NODELAY) as host,
    ):
        await guest.subscribe(BACK, qos=1)
        await host.subscribe(OUT, qos=1)

        async def answer() -> None:
            async for message in host.messages:
                await host.publish(BACK, message.payload, qos=1)

        answering = asyncio.create_task(answer())
        results: list[float] = []
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
                    results.append((time.perf_counter() - start) * 1000)
        finally:
            answering.cancel()
            await asyncio.gather(answering, return_exceptions=True)
        return results


async def remote_match(rig_dir: Path) -> str:
    """The daemons' measures, or why they cannot run yet."""
    try:
        from firmware_bridge.daemon import remote_host  # noqa: F401
    except ImportError as error:  # pragma: no cover - the seam is on main
        return f"skipped: {error}"
    return (
        "skipped: to be measured once the host and guest daemons play a remote match "
        "(no remote block within 10 s is the signal; not wired in this benchmark yet)"
    )


async def run(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.bridged_brokers import BridgedBrokers

    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="oche-remote-") as temporary:
        rig = BridgedBrokers(Path(temporary))
        await asyncio.to_thread(rig.start)
        try:
            assert rig.bar is not None
            bare = await bare_round_trips(
                rig.bar.port, rig.league.port, args.samples, args.gap_ms / 1000
            )
            daemons = await remote_match(Path(temporary))
        finally:
            await asyncio.to_thread(rig.stop)
    p50, p99 = statistics.median(bare), percentile(bare, 0.99)
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, "
        f"{args.samples} samples, {args.gap_ms:g} ms between them, load {load:.2f} before the run"
    )
    rows = [
        ("bare bridged round trip, p50", f"{p50:.3f} ms"),
        ("bare bridged round trip, p99", f"{p99:.3f} ms"),
        ("guest hit -> host state", daemons),
        ("host state -> guest mirror", daemons),
        (f"goal: p99 <= {TARGET_RATIO:g}x bare p99", f"<= {p99 * TARGET_RATIO:.3f} ms"),
    ]
    width = max(len(name) for name, _ in rows) + 2
    print(f"{'measure':<{width}}result")
    for name, value in rows:
        print(f"{name:<{width}}{value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=300, help="round trips")
    parser.add_argument("--gap-ms", type=float, default=5.0, help="pause before each sample")
    args = parser.parse_args()
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
