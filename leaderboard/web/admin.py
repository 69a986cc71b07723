"""The admin views' lock (``/admin/rejected``, ``/api/rejected``): HTTP Basic
with the password whose hash is ``[leaderboard] admin_password_hash`` (made by
``oche leaderboard admin-password``; :mod:`credentials.secret_hash`, the
operator PIN's scheme). Any user name is taken; only the password counts.

Without a configured hash the views are refused (403 saying how to set one),
never open. A wrong or missing password is a 401 that makes the browser ask;
:data:`MAX_FAILURES` wrong ones in a row from one address lock that address
out for :data:`LOCKOUT_SECONDS` (429). Basic sends the password with every
request, readable on the network: over a bar's LAN that is the accepted
trade-off (docs/leaderboard.md), behind a TLS proxy it is not an issue."""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from credentials.secret_hash import secret_hash_problem, verify_secret
from leaderboard.web.dependencies import Problem

__all__ = [
    "ADMIN_REALM",
    "ADMIN_RESPONSES",
    "LOCKOUT_SECONDS",
    "MAX_FAILURES",
    "AdminDep",
    "AdminGuard",
    "require_admin",
]

ADMIN_REALM = "Oche leaderboard admin"
MAX_FAILURES = 5
"""Wrong passwords in a row from one address before it is locked out."""
LOCKOUT_SECONDS = 60.0
"""How long an address that gave :data:`MAX_FAILURES` wrong passwords waits."""
_TRACKED_ADDRESSES = 1024
"""Addresses whose failures are remembered at most (the oldest are forgotten)."""

_HOW_TO_SET = (
    "set [leaderboard] admin_password_hash in the config (make the line with "
    "`oche leaderboard admin-password`) and restart the service"
)

ADMIN_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {
        "model": Problem,
        "description": "No password, or a wrong one (HTTP Basic; any user name).",
    },
    403: {
        "model": Problem,
        "description": "No admin password is configured: the admin views are off.",
    },
    429: {
        "model": Problem,
        "description": "Too many wrong passwords from this address: wait `Retry-After` s.",
    },
}
"""The admin endpoints' refusals, for the OpenAPI document."""


def _basic_password(authorization: str | None) -> str | None:
    """The password of an HTTP Basic ``Authorization`` header (UTF-8, as a
    browser sends it for a realm with ``charset="UTF-8"``), or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    _, separator, password = decoded.partition(":")
    return password if separator else None


class AdminGuard:
    """Checks the admin password against ``password_hash`` and locks out an
    address after :data:`MAX_FAILURES` wrong ones in a row (on ``clock``)."""

    def __init__(self, password_hash: str, clock: Callable[[], float] = time.monotonic) -> None:
        problem = secret_hash_problem(password_hash) if password_hash else None
        if problem is not None:
            raise ValueError(f"[leaderboard] admin_password_hash: {problem}")
        self.password_hash = password_hash
        self._clock = clock
        self._failures: dict[str, tuple[int, float]] = {}
        """By address: wrong passwords in a row, and until when it is locked out."""

    @property
    def enabled(self) -> bool:
        """An admin password is configured."""
        return bool(self.password_hash)

    def check(self, address: str, authorization: str | None) -> None:
        """Return when ``authorization`` carries the password; else raise the
        HTTPException to answer (403, 401 or 429, each saying why)."""
        if not self.enabled:
            raise HTTPException(403, f"the admin views are off: {_HOW_TO_SET}")
        now = self._clock()
        failures, locked_until = self._failures.get(address, (0, 0.0))
        if locked_until > now:
            wait = int(locked_until - now) + 1
            raise HTTPException(
                429,
                f"too many wrong admin passwords from {address}: try again in {wait} s",
                headers={"Retry-After": str(wait)},
            )
        password = _basic_password(authorization)
        if password is not None and verify_secret(password, self.password_hash):
            self._failures.pop(address, None)
            return
        if password is not None:
            failures += 1
            locked_until = now + LOCKOUT_SECONDS if failures >= MAX_FAILURES else 0.0
            self._remember(address, 0 if locked_until else failures, locked_until)
        what = "wrong admin password" if password is not None else "the admin views need a password"
        raise HTTPException(
            401,
            f"{what} (the one hashed in [leaderboard] admin_password_hash; any user name)",
            headers={"WWW-Authenticate": f'Basic realm="{ADMIN_REALM}", charset="UTF-8"'},
        )

    def _remember(self, address: str, failures: int, locked_until: float) -> None:
        self._failures.pop(address, None)
        self._failures[address] = (failures, locked_until)
        while len(self._failures) > _TRACKED_ADDRESSES:
            del self._failures[next(iter(self._failures))]


def require_admin(request: Request) -> None:
    """The admin endpoints' dependency (a plain ``def``: scrypt runs in the
    threadpool, never on the event loop)."""
    guard: AdminGuard = request.app.state.admin
    address = request.client.host if request.client else "unknown"
    guard.check(address, request.headers.get("Authorization"))


AdminDep = Annotated[None, Depends(require_admin)]
