"""Coin-mechanism pulse inputs: a pulse-width and gap filter, as a pure step.

A coin mechanism reports each coin (or each unit of its value) as a pulse on
its output line, typically 20-100 ms long. An input counts a pulse when the
line was active (at its pulse level) for at least ``min_ms`` and at most
``max_ms``, and is then idle for ``gap_ms`` without a break. An idle spell
shorter than ``gap_ms`` inside a pulse is bounce: the pulse goes on (its width
runs from its first active scan to the start of its last idle spell). So two
pulses must be at least ``gap_ms`` apart to count twice, a contact's bounce
cannot split one pulse in two, a glitch shorter than ``min_ms`` and a line
held active longer than ``max_ms`` (a jammed mechanism, a coin on a string)
count nothing. A line that is active when counting starts is not a pulse: it
must first be seen idle for ``gap_ms``.

:meth:`CoinFilter.step` takes the clock as an argument (``now_ms``, ticks that
may wrap, compared only with the ``ticks_diff`` given), as the debouncer does,
so the tests replay time tables at any scan rate. Inputs are numbered from 0
here (the wire protocol numbers them from 1). Each input keeps a running count
of its pulses, wrapping at :data:`COUNT_MODULO`, which the ``P`` frames carry.
A scan in which no pulse ends allocates nothing.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy sees the modules of firmware_bridge/mcu/ as a package
    from collections.abc import Callable, Sequence

    from firmware_bridge.mcu.compat import ticks_diff
else:  # on the board they are top-level modules
    from compat import ticks_diff

MAX_INPUTS = 2
"""Most coin inputs a board may have."""
COUNT_MODULO = 65536
"""The running count of an input wraps to 0 here."""

# An input's state (CoinFilter._state).
_START = 0  # nothing seen yet: an active line must go idle for gap_ms first
_IDLE = 1  # idle for gap_ms: armed, the next active scan starts a pulse
_ACTIVE = 2  # in a pulse since _began
_ENDING = 3  # idle since _idled: the pulse ends once that lasts gap_ms

# What an input's pulse is (CoinFilter._unseen).
_SEEN = 0  # a pulse seen to begin on an armed input: its width decides
_UNSEEN = 1  # active before the line was seen idle for gap_ms: ignored
_NONE = 2  # no pulse at all yet (idle since counting started)

_NO_PULSES = ()
_ticks_diff = ticks_diff  # the default, under a name the parameter does not hide


class CoinFilter:
    """Filters the pulses of ``inputs`` coin inputs. A raw byte of 1 means the
    line is low (as :class:`matrix_scan.ButtonReader` reads a pin): with
    ``active_low`` (the default, an open-collector output pulling the line to
    ground) a pulse is low, otherwise it is high."""

    def __init__(
        self,
        inputs: int,
        min_ms: int = 10,
        max_ms: int = 150,
        gap_ms: int = 20,
        active_low: bool = True,
        ticks_diff: "Callable[[int, int], int] | None" = None,
    ) -> None:
        self.size = inputs
        self.min_ms = min_ms
        self.max_ms = max_ms
        self.gap_ms = gap_ms
        self.active = 1 if active_low else 0
        """The raw byte of an input in a pulse."""
        self.ticks_diff = ticks_diff if ticks_diff is not None else _ticks_diff
        self.counts = [0] * inputs
        """Pulses counted per input since :meth:`reset`, wrapping at :data:`COUNT_MODULO`."""
        self.rejected = [0] * inputs
        """Pulses ignored per input (too short, too long, active at the start)."""
        self._state = bytearray(inputs)
        self._began = [0] * inputs  # tick of the pulse's first active scan
        self._idled = [0] * inputs  # tick its last idle spell began
        self._unseen = bytearray(inputs)  # _SEEN, _UNSEEN or _NONE: see reset()
        self.reset()

    def step(self, now_ms: int, raw: "bytearray | bytes") -> "Sequence[int]":
        """Take one scan of the inputs (``raw``: one byte an input, 1 for a low
        line, at ``now_ms``) and return the inputs whose pulse was counted in
        it, in input order. The result may be shared: do not change it."""
        pulses: Sequence[int] = _NO_PULSES
        active = self.active
        state = self._state
        for index in range(self.size):
            now_active = raw[index] == active
            was = state[index]
            if was == _IDLE:
                if now_active:
                    state[index] = _ACTIVE
                    self._began[index] = now_ms
                    self._unseen[index] = _SEEN
            elif was != _ENDING:  # _ACTIVE or _START (no tuple: it would allocate)
                if not now_active:
                    state[index] = _ENDING
                    self._idled[index] = now_ms
                elif was == _START:
                    state[index] = _ACTIVE
                    self._unseen[index] = _UNSEEN
            elif self.ticks_diff(now_ms, self._idled[index]) >= self.gap_ms:
                # Idle for gap_ms: the pulse ended where its idle spell began.
                state[index] = _IDLE
                if self._unseen[index] == _NONE:
                    pass  # idle since counting started: armed now
                elif self._counts(index):
                    self.counts[index] = (self.counts[index] + 1) % COUNT_MODULO
                    if pulses is _NO_PULSES:
                        pulses = [index]
                    else:
                        pulses.append(index)  # type: ignore[attr-defined]
                else:
                    self.rejected[index] += 1
                if now_active:  # the next pulse begins exactly gap_ms later
                    state[index] = _ACTIVE
                    self._began[index] = now_ms
                    self._unseen[index] = _SEEN
            elif now_active:
                state[index] = _ACTIVE  # bounce: the same pulse goes on
                if self._unseen[index] == _NONE:
                    self._unseen[index] = _UNSEEN  # too soon after counting started
        return pulses

    def _counts(self, index: int) -> bool:
        """Whether the pulse of ``index`` that just ended counts."""
        if self._unseen[index] != _SEEN:
            return False
        width = self.ticks_diff(self._idled[index], self._began[index])
        return self.min_ms <= width <= self.max_ms

    def reset(self) -> None:
        """Start counting afresh: every count 0, every line to be seen idle first."""
        for index in range(self.size):
            self._state[index] = _START
            self._unseen[index] = _NONE
            self.counts[index] = 0
            self.rejected[index] = 0
