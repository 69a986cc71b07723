"""The leaderboard's ASGI app: one router per area under ``/api``, pages that
render only what the API returns, local static assets (no CDN)."""
