"""What one instance of the results service is told (:class:`ServiceSettings`):
its database, broker and account, base, HTTP address, venues, share group and
limits. A module of its own, below the service and its MQTT side, which both
read it (the service runs the ingest; the ingest and the snapshots read the
settings), so neither imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from leaderboard.live_hub import DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_CLIENT
from leaderboard.venues import VenueMap

__all__ = [
    "DB_BACKOFF_CAP",
    "DB_BACKOFF_JITTER",
    "DB_BACKOFF_START",
    "DEFAULT_CLIENT_ID",
    "ServiceSettings",
]

DEFAULT_CLIENT_ID = "oche-leaderboard"
"""``ServiceSettings.client_id`` when none is given."""

DB_BACKOFF_START = 0.2
"""Seconds before the first retry of a database that is away (the schema's
migration, a batch of results); doubles per failure up to the cap."""
DB_BACKOFF_CAP = 5.0
DB_BACKOFF_JITTER = 0.25


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """One instance's settings, from ``[leaderboard]`` and the command line."""

    db_url: str
    mqtt_url: str
    base: str = "oche"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    venues: VenueMap = field(default_factory=VenueMap)
    share_group: str | None = None
    """Set: subscribe as ``$share/{group}/{base}/+/result`` (several instances)."""
    client_id: str = DEFAULT_CLIENT_ID
    """The persistent session's id (clean start off): results wait at the broker.
    With ``share_group``, each instance needs its own: the default becomes
    ``oche-leaderboard-{hostname}`` (:func:`leaderboard.mqtt_ingest.session_client_id`)."""
    mqtt_username: str | None = None
    """Set: the broker account, in place of any user name (and password) in ``mqtt_url``."""
    mqtt_password: str | None = None
    mqtt_ca_file: str | None = None
    """The CA to verify a TLS broker (``mqtts://``, ``wss://``) with; ``None``: the system's."""
    admin_password_hash: str = ""
    """``[leaderboard] admin_password_hash``: the admin views' password; ``""``: they are off."""
    max_live_streams: int = DEFAULT_MAX_STREAMS
    """Open ``/api/live`` streams at most; past it a client gets a 503."""
    max_live_streams_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT
    """Open ``/api/live`` streams at most from one client address."""
