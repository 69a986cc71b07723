"""The coin filter's time tables (coin_tables.py) replayed at every scan rate,
printed for comparing MicroPython with CPython (test_coins.py runs it under
both and derives what it must print from the tables alone).

Prints ``NAME|HZ|PERIOD|TIME:INPUT ...`` a replay, for this interpreter's own
ticks period and the boards' 2**30, the ticks wrapping 100 ms into the run.
Written for both interpreters, like micropython_check.py.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from firmware_bridge.mcu import coins, compat
    from tests.firmware import coin_tables
    from tests.firmware.micropython_clock import BOARD
else:
    import coin_tables
    import coins
    import compat
    from micropython_clock import BOARD

for name, inputs, expected in coin_tables.CASES:
    end = coin_tables.end_of(inputs, expected)
    for hz in coin_tables.SCAN_RATES:
        for label, diff, add in (
            ("native", compat.ticks_diff, compat.ticks_add),
            ("board", BOARD.diff, BOARD.add),
        ):
            counter = coins.CoinFilter(2, ticks_diff=diff)
            start = add(0, -100)
            got = coin_tables.replay(counter.step, inputs, hz, end, add, start)
            shown = " ".join(str(int(t * 4)) + ":" + str(line) for t, line in got)
            print(name + "|" + str(hz) + "|" + label + "|" + shown)
