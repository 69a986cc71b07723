"""The one backoff: its delays double from ``start`` to ``cap``, each within
its jitter, and a reset starts again; the random source is the test's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqtt_client.backoff import Backoff

starts = st.floats(min_value=0.001, max_value=10.0)
jitters = st.floats(min_value=0.0, max_value=0.99)


@given(
    start=starts,
    growth=st.floats(min_value=1.0, max_value=1000.0),
    jitter=jitters,
    draws=st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=80),
)
def test_every_delay_lies_within_start_cap_and_jitter(
    start: float, growth: float, jitter: float, draws: list[float]
) -> None:
    cap = start * growth
    # The random source picks a point of the range it is given, as uniform does.
    picks = iter(draws)
    backoff = Backoff(start, cap, jitter, uniform=lambda a, b: a + (b - a) * next(picks))
    for failures in range(len(draws)):
        nominal = start * 2.0**failures
        delay = backoff.next_delay()
        assert min(nominal, cap) * (1 - jitter) <= delay * (1 + 1e-12)
        assert delay <= min(nominal, cap) * (1 + jitter) * (1 + 1e-12)
        assert start * (1 - jitter) <= delay * (1 + 1e-12) <= cap * (1 + jitter) * (1 + 1e-12)
    assert backoff.failures == len(draws)


@given(start=starts, growth=st.floats(min_value=1.0, max_value=1000.0), failures=st.integers(0, 50))
def test_a_reset_starts_again_at_start(start: float, growth: float, failures: int) -> None:
    backoff = Backoff(start, start * growth)
    for _ in range(failures):
        backoff.next_delay()
    backoff.reset()
    assert backoff.failures == 0
    assert backoff.next_delay() == start


def test_without_jitter_the_delays_double_to_the_cap_and_draw_nothing() -> None:
    def never(a: float, b: float) -> float:
        raise AssertionError("no jitter, no draw")

    backoff = Backoff(0.5, 30.0, uniform=never)
    assert [backoff.next_delay() for _ in range(9)] == [0.5, 1, 2, 4, 8, 16, 30, 30, 30]


def test_the_jitter_scales_the_nominal_delay() -> None:
    """The daemon's and the leaderboard's: 0.5 s doubling to 30 s, +- 25 %."""
    backoff = Backoff(0.5, 30.0, 0.25, uniform=lambda a, b: b)
    assert [backoff.next_delay() for _ in range(3)] == [0.625, 1.25, 2.5]
    backoff = Backoff(0.5, 30.0, 0.25, uniform=lambda a, b: a)
    assert [backoff.next_delay() for _ in range(3)] == [0.375, 0.75, 1.5]


def test_a_long_outage_never_overflows() -> None:
    backoff = Backoff(0.2, 5.0)
    for _ in range(5000):
        assert backoff.next_delay() <= 5.0


@pytest.mark.parametrize(
    ("start", "cap", "jitter"), [(0.0, 1.0, 0.0), (2.0, 1.0, 0.0), (0.5, 1.0, 1.0), (0.5, 1, -0.1)]
)
def test_nonsense_is_refused(start: float, cap: float, jitter: float) -> None:
    with pytest.raises(ValueError):
        Backoff(start, cap, jitter)
