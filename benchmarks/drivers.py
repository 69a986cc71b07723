"""Board I/O speed: decoder frames per second, and the latency from a frame
written to a pseudo-terminal to the hit event coming out of the serial driver.

Run from the checkout: ``make bench`` or ``python -m benchmarks.drivers``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import time

from drivers.board_decoder import BoardDecoder
from drivers.board_events import HitEvent
from drivers.matrix_map import MatrixMap
from drivers.protocol import Hit, encode_frame
from drivers.serial_source import SerialSource
from engine import Bed

MATRIX = MatrixMap("bench", 16, 16, {(r, c): Bed(20, 3) for r in range(16) for c in range(16)})


def decoder_frames_per_second(count: int) -> float:
    """Frames/s through the decoder and the matrix map, fed in 4 KiB chunks."""
    stream = b"".join(encode_frame(Hit(i % 65536, i % 16, (i // 16) % 16)) for i in range(count))
    decoder = BoardDecoder("oche", MATRIX)
    start = time.perf_counter()
    hits = 0
    for offset in range(0, len(stream), 4096):
        hits += len(decoder.feed(stream[offset : offset + 4096]))
    elapsed = time.perf_counter() - start
    assert hits == count, (hits, count)
    return count / elapsed


async def pty_latency_ms(count: int) -> list[float]:
    """Milliseconds from ``os.write`` of a hit frame to the driver's HitEvent."""
    master, slave = os.openpty()
    source = SerialSource(os.ttyname(slave), matrix=MATRIX)
    latencies: list[float] = []
    try:
        events = source.events()
        async for event in events:  # wait until connected
            if event.type == "connected":
                break
        for i in range(count):
            frame = encode_frame(Hit(i % 65536, i % 16, 0))
            start = time.perf_counter()
            os.write(master, frame)
            async for event in events:
                if isinstance(event, HitEvent):
                    break
            latencies.append((time.perf_counter() - start) * 1000)
    finally:
        await source.close()
        os.close(master)
        os.close(slave)
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--hits", type=int, default=2_000)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}")
    print(f"decoder: {decoder_frames_per_second(args.frames):,.0f} frames/s")
    latencies = asyncio.run(pty_latency_ms(args.hits))
    print(
        f"pty write -> hit event over {len(latencies)} hits: "
        f"p50 {statistics.median(latencies):.3f} ms, p99 {percentile(latencies, 0.99):.3f} ms"
    )


if __name__ == "__main__":
    main()
