"""The bad-code limit of the phone join (leaderboard/web/join_checks.py), on
its own clock: ten bad codes in a minute shut one address out until the
oldest is a minute old; other addresses are not touched."""

from __future__ import annotations

import pytest

from leaderboard.web.join_checks import BAD_CODES_PER_MINUTE, BadCodeLimit, JoinRefusedError


def test_ten_bad_codes_shut_an_address_out_for_the_rest_of_the_minute() -> None:
    limit = BadCodeLimit()
    for second in range(BAD_CODES_PER_MINUTE):
        limit.check("10.0.0.5", now=100.0 + second)
        limit.bad("10.0.0.5", now=100.0 + second)
    with pytest.raises(JoinRefusedError) as refused:
        limit.check("10.0.0.5", now=110.0)
    assert refused.value.status == 429
    assert refused.value.retry_after == 51
    assert "try again in 51 s" in refused.value.detail
    limit.check("10.0.0.6", now=110.0)  # another address is not touched
    limit.check("10.0.0.5", now=160.5)  # the oldest bad code is over a minute old


def test_nine_bad_codes_leave_the_address_free() -> None:
    limit = BadCodeLimit()
    for second in range(BAD_CODES_PER_MINUTE - 1):
        limit.bad("10.0.0.5", now=float(second))
    limit.check("10.0.0.5", now=9.0)
