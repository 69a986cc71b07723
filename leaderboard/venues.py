"""Which venue a board belongs to, and each venue's time zone (its ``day``)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_VENUE", "VenueMap"]

DEFAULT_VENUE = "home"


@dataclass(frozen=True, slots=True)
class VenueMap:
    """Board id -> venue name; a board not listed is in ``default``. A venue's
    day runs midnight to midnight in its ``timezones`` entry (IANA name),
    else in ``timezone``."""

    boards: dict[str, str] = field(default_factory=dict)
    default: str = DEFAULT_VENUE
    timezone: str = "UTC"
    timezones: dict[str, str] = field(default_factory=dict)

    def venue_of(self, board: str) -> str:
        return self.boards.get(board, self.default)

    def timezone_of(self, venue: str) -> str:
        return self.timezones.get(venue, self.timezone)
