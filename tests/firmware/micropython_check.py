"""A run of the board firmware that prints what it does, for comparing
MicroPython with CPython (test_micropython.py runs it under both).

Written for both interpreters: annotations only (MicroPython ignores them),
no typing at run time, no pathlib. Run it with the firmware directory as the
module path (MICROPYPATH / PYTHONPATH). It prints as it goes, keeping nothing,
so it fits a small heap. The ticks wrap inside every run, both with the
interpreter's own period (2**30 under CPython, 2**62 on the 64-bit unix port)
and with an injected 2**30, and the output must not depend on it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware_bridge.mcu import compat, debounce, frames, main
    from tests.firmware.micropython_clock import BOARD, Clock
else:
    import compat
    import debounce
    import frames
    import main
    from micropython_clock import BOARD, Clock

state = [12345]


def rnd(n: int) -> int:
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return (state[0] >> 16) % n


for case in range(30):
    native = case % 2 == 0
    diff = compat.ticks_diff if native else BOARD.diff
    add = compat.ticks_add if native else BOARD.add
    d = debounce.Debouncer(4, 1 + rnd(60), 250 + rnd(800), diff)
    start = add(0, -500)  # the ticks wrap 500 ms into the run
    raw = bytearray(4)
    for t in range(3000):
        if rnd(10) == 0:
            cell = rnd(2) * 2 + rnd(2)
            raw[cell] = 1 - raw[cell]
        for kind, cell in d.step(add(start, t), raw, sum(raw)):
            print(f"{case} {t} {frames.CELL_FRAMES[kind]} {cell // 2},{cell % 2}")
    print(f"{case} debounced {sorted(d.debounced())}")

print(f"crc {frames.crc16(b'123456789'):04X}")
for _ in range(100):
    seq = rnd(65536)
    print(frames.encode("K", seq, (rnd(1 << 30),)).decode().strip())
    line = frames.encode("C", seq, (f"scan_hz={rnd(20000)}",))[:-1]
    print(repr(frames.decode_host(line)))


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


class Host:
    pending = b""

    def read(self) -> bytes:
        data = Host.pending
        Host.pending = b""
        return data


def host_frame(body: bytes) -> bytes:
    return b"$" + body + b"*" + f"{frames.crc16(body):04X}".encode() + b"\n"


def show(line: bytes) -> None:
    print(line.decode().strip())


firmware = main.Firmware(
    main.Config((1, 2, 3), (4, 5)), pin=Pin, host=Host(), write=show, clock=Clock(wrap_after_ms=700)
)
firmware.boot()
for t in range(5000):
    if rnd(50) == 0:
        Pin.closed = {(1 + rnd(3), 4 + rnd(2))} if rnd(3) else set()
    if t == 2500:
        Host.pending = host_frame(b"C,1,debounce_ms=80") + host_frame(b"?,2") + b"bad\n"
    if t == 3000:
        Host.pending = host_frame(b"C,3,volume=3") + b"~$" + host_frame(b"C,4,scan_hz=5")
    firmware.loop(1)
