"""Which venue a board belongs to, and each venue's time zone (its ``day``)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_VENUE", "VenueMap", "board_id_of"]

DEFAULT_VENUE = "home"


def board_id_of(board: str) -> str:
    """The board id of a remote match player's ``board``: its last topic
    level (``oche/crown-2`` -> ``crown-2``; a bare ``crown-2`` is itself)."""
    return board.rpartition("/")[2]


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

    def venue_of_player(self, result_board: str, player_board: str | None) -> str:
        """Where a player of a result belongs: the venue of the board they
        threw at (``base/board``, remote matches), else of the result's board."""
        if player_board is None:
            return self.venue_of(result_board)
        return self.venue_of(board_id_of(player_board))

    def timezone_of(self, venue: str) -> str:
        return self.timezones.get(venue, self.timezone)
