"""``oche leaderboard serve``: the MQTT ingest, the live feed, the retained
snapshots and the HTTP app, on one event loop until cancelled."""

from __future__ import annotations

from dataclasses import dataclass, field

from leaderboard.venues import VenueMap

__all__ = ["ServiceSettings", "run_service"]


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    db_url: str
    mqtt_url: str
    base: str = "oche"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    venues: VenueMap = field(default_factory=VenueMap)
    share_group: str | None = None
    """Set: subscribe as ``$share/{group}/{base}/+/result`` (several instances)."""
    client_id: str = "oche-leaderboard"
    """The persistent session's id (clean start off): results wait at the broker."""


async def run_service(settings: ServiceSettings) -> None:
    """Run until cancelled; a lost broker or database is retried, not fatal."""
    raise NotImplementedError
