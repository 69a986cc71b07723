"""The headers every answer of the app carries (pages, API, static files,
errors): a Content-Security-Policy that lets the pages load only the app's
own CSS and script (no inline script, no other origin, never in a frame),
``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` for browsers
older than ``frame-ancestors``, and ``Referrer-Policy: no-referrer``."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "SecurityHeaders"]

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",  # the TV's EventSource and fragment fetches
        "manifest-src 'self'",  # the web app manifest (leaderboard/web/app_shell.py)
        "worker-src 'self'",  # the service worker, /sw.js
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
"""What a page may load: the app's own files only (``static/``), the SVG
charts inline in the page (they are markup, not images)."""

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` added to every HTTP answer
    that does not set its own (a pure ASGI wrapper, so the live stream is
    never buffered)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
