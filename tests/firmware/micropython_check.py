"""A run of the board firmware that prints what it does, for comparing
MicroPython with CPython (test_micropython.py runs it under both).

Written for both interpreters: annotations only (MicroPython ignores them),
no typing at run time, no pathlib. Run it with
the firmware directory as the module path (MICROPYPATH / PYTHONPATH).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware_bridge.mcu import compat, debounce, frames, main
else:
    import compat
    import debounce
    import frames
    import main

state = [12345]


def rnd(n: int) -> int:
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return (state[0] >> 16) % n


out: list[str] = []
for case in range(30):
    d = debounce.Debouncer(1 + rnd(60), 250 + rnd(800))
    start = compat.TICKS_PERIOD - 500 if case % 2 else 0
    cells: set[tuple[int, int]] = set()
    for t in range(3000):
        if rnd(10) == 0:
            cell = (rnd(2), rnd(2))
            if cell in cells:
                cells.discard(cell)
            else:
                cells.add(cell)
        for kind, cell in d.step(compat.ticks_add(start, t), set(cells)):
            out.append(f"{case} {t} {kind} {cell[0]},{cell[1]}")
    out.append(f"{case} debounced {sorted(d.debounced())}")

out.append(f"crc {frames.crc16(b'123456789'):04X}")
for _ in range(100):
    seq = rnd(65536)
    out.append(frames.encode("K", seq, (rnd(1 << 30),)).decode().strip())
    line = frames.encode("C", seq, (f"scan_hz={rnd(20000)}",))[:-1]
    out.append(repr(frames.decode_host(line)))


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2
    closed: "frozenset[tuple[int | None, int]] | set[tuple[int | None, int]]" = frozenset()
    driven: "int | None" = None

    def __init__(self, number: int, mode: int = -1, pull: int = -1) -> None:
        self.number = number

    def init(self, mode: int = -1, pull: int = -1, value: "int | None" = None) -> None:
        Pin.driven = self.number if mode == Pin.OUT else None

    def value(self, level: "int | None" = None) -> int:
        return 0 if (Pin.driven, self.number) in Pin.closed else 1


class Clock:
    def __init__(self) -> None:
        self.us = (compat.TICKS_PERIOD - 700) * 1000

    def ticks_ms(self) -> int:
        return (self.us // 1000) & (compat.TICKS_PERIOD - 1)

    def ticks_us(self) -> int:
        return self.us & (compat.TICKS_PERIOD - 1)

    def ticks_diff(self, end: int, start: int) -> int:
        return compat.ticks_diff(end, start)

    def ticks_add(self, ticks: int, delta: int) -> int:
        return compat.ticks_add(ticks, delta)

    def sleep_us(self, us: int) -> None:
        if us > 0:
            self.us += us


class Host:
    pending = b""

    def read(self) -> bytes:
        data = Host.pending
        Host.pending = b""
        return data


def host_frame(body: bytes) -> bytes:
    return b"$" + body + b"*" + f"{frames.crc16(body):04X}".encode() + b"\n"


sent: list[bytes] = []
firmware = main.Firmware(
    main.Config((1, 2, 3), (4, 5)), pin=Pin, host=Host(), write=sent.append, clock=Clock()
)
firmware.boot()
for t in range(5000):
    if rnd(50) == 0:
        Pin.closed = {(1 + rnd(3), 4 + rnd(2))} if rnd(3) else set()
    if t == 2500:
        Host.pending = host_frame(b"C,1,debounce_ms=80") + host_frame(b"?,2") + b"bad\n"
    if t == 3000:
        Host.pending = host_frame(b"C,3,volume=3") + host_frame(b"C,4,scan_hz=5")
    firmware.loop(1)
for line in sent:
    out.append(line.decode().strip())
print("\n".join(out))
