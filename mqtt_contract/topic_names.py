"""Topic names, the board id and base rules, phases and statuses: what every
client checks a topic level against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

TOPIC_NAMES = (
    "state",
    "event",
    "availability",
    "instance",
    "cmd",
    "cmd/response",
    "result",
    "result/stored",
    "operator/cmd",
    "operator/cmd/response",
    "books",
    "roster",
    "result/lines",
    "pairing",
)
"""The topics of one board, relative to ``{base}/{board}/``. The ``operator/``
topics and ``books`` are the operator's alone (docs/credits.md): the deployed
ACL lets only an operator account write the one and read the others.
``result/stored`` is the leaderboard service's: it says which of the board's
results it has stored, so the board keeps each result until one has.
``roster`` and ``result/lines`` are the service's too: the venue's players for the
board, and the lines of its last stored game (docs/players.md). ``pairing`` is
the board's code and paired devices for the web's control (docs/phone.md):
read by its displays and the service alone."""

MAX_TOPIC_LEVEL = 64
"""The longest base level or board id, in characters."""

BOARD_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
"""A board id: one topic level of letters, digits, ``_`` and ``-`` (what Home
Assistant accepts as a discovery node id), at most 64 characters."""

_LEVEL_PATTERN = r"[^/+#\s\x00-\x1f\x7f]{1,64}"
BASE_PATTERN = rf"(?!\$){_LEVEL_PATTERN}(?:/{_LEVEL_PATTERN})*"
"""The base topic: one or more levels of 1-64 characters, no wildcards (``+``,
``#``), white space or control characters, not starting with ``$`` (reserved
for brokers)."""

COMMAND_TOPIC: re.Pattern[str] = re.compile(
    rf"^(?P<base>{BASE_PATTERN})/(?P<board>{BOARD_ID_PATTERN})/cmd$"
)
"""Parses ``{base}/{board}/cmd`` into its ``base`` and ``board`` groups. The board
is the level before ``cmd``; the base is everything before it (it may have
several levels, e.g. ``home/darts``)."""

_BASE_RE = re.compile(rf"^{BASE_PATTERN}$")
_BOARD_RE = re.compile(rf"^{BOARD_ID_PATTERN}$")
_SUBTOPIC_RE = re.compile(r"^[^/+#\s]+(?:/[^/+#\s]+)*$")

LEADERBOARD_LEVEL = "leaderboard"
"""The level under the base where the leaderboard service publishes
``{base}/leaderboard/{game}``; no board may take it as its id."""

AVAILABILITY_ONLINE = "online"
AVAILABILITY_OFFLINE = "offline"

WAITING_REMOTE = "waiting-remote"
"""The phase of a remote match while a board of it is offline or has not
joined yet; no board's darts are taken."""

NOT_YOUR_TURN = "not-your-turn"
"""The reason of a dart ignored because the player who is up throws at
another board."""

REMOTE_LEVEL = "remote"
"""The topic level between a sender's board id and a recipient's."""

MATCH_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
"""A match id: what the host draws (32 hex digits), one topic-safe token."""


class Phase(StrEnum):
    """The phases a board is in: the state's ``phase`` (published as their plain
    strings). The one list of them: the daemon, the display and the schema read it."""

    IDLE = "idle"
    THROWING = "throwing"
    TAKEOUT = "takeout"
    FINISHED = "finished"
    WAITING_REMOTE = "waiting-remote"
    """Published by the daemon while a remote match waits for a board
    (docs/remote.md); a session itself is never in it."""


PHASES = tuple(phase.value for phase in Phase)
"""The board's phase, published as ``phase`` in the state: ``waiting-remote``
while a remote match waits for a board that is offline or has not joined
(docs/remote.md)."""

BOARD_STATUSES = ("connected", "disconnected", "stuck")
"""``board.status`` in the state: ``stuck`` is connected with stuck cells masked."""

JOURNAL_STATUSES = ("ok", "full", "failing")
"""``journal.status`` in the state: the journal takes writes (``ok``), or
refuses them because its file system is full (``full``) or for another reason
(``failing``: a failing or read-only disk); then nothing is counted."""

MAX_COMMAND_BYTES = 65536
"""Longer ``cmd`` payloads are refused unread."""

MAX_COMMAND_DEPTH = 16
"""Deeper nested ``cmd`` payloads are refused (a command needs three levels)."""


def board_id_problem(board: str) -> str | None:
    """Why ``board`` cannot be a board id (:data:`BOARD_ID_PATTERN`), or ``None``."""
    if not board:
        return "must not be empty"
    if board == LEADERBOARD_LEVEL:
        return (
            f"{LEADERBOARD_LEVEL!r} is reserved: {{base}}/{LEADERBOARD_LEVEL}/ holds the "
            "leaderboard's snapshots"
        )
    if len(board) > MAX_TOPIC_LEVEL:
        return f"must be at most {MAX_TOPIC_LEVEL} characters, not {len(board)}"
    if not _BOARD_RE.match(board):
        bad = "".join(
            sorted({c for c in board if not (c.isascii() and (c.isalnum() or c in "_-"))})
        )
        return (
            f"must be letters, digits, '_' and '-' only, not {bad!r}: it is one MQTT topic "
            "level and part of Home Assistant's ids"
        )
    return None


def base_problem(base: str) -> str | None:
    """Why ``base`` cannot be a base topic (:data:`BASE_PATTERN`), or ``None``."""
    if not base:
        return "must not be empty"
    if base.startswith("$"):
        return "must not start with '$' (MQTT reserves those topics)"
    wildcards = [c for c in "+#" if c in base]
    if wildcards:
        return f"must not contain {' or '.join(repr(c) for c in wildcards)}: MQTT wildcards"
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in base):
        return "must not contain white space or control characters"
    levels = base.split("/")
    if not all(levels):
        return "must not have an empty level (a leading, trailing or double '/')"
    longest = max(len(level) for level in levels)
    if longest > MAX_TOPIC_LEVEL:
        return f"levels must be at most {MAX_TOPIC_LEVEL} characters, not {longest}"
    return None


def check_board_id(board: str) -> str:
    """``board`` if it is a board id, else a ValueError saying why."""
    problem = board_id_problem(board) if isinstance(board, str) else "must be a string"
    if problem:
        raise ValueError(f"bad board id {board!r}: {problem}")
    return board


def check_base(base: str) -> str:
    """``base`` if it is a base topic, else a ValueError saying why."""
    problem = base_problem(base) if isinstance(base, str) else "must be a string"
    if problem:
        raise ValueError(f"bad MQTT base topic {base!r}: {problem}")
    return base


def topic(base: str, board: str, name: str) -> str:
    """The full topic of ``name`` (one of :data:`TOPIC_NAMES`) for ``board``:
    ``{base}/{board}/{name}``. A ValueError names a bad base, board or name."""
    check_base(base)
    check_board_id(board)
    if name not in TOPIC_NAMES:
        raise ValueError(f"unknown topic {name!r}; topics are {', '.join(TOPIC_NAMES)}")
    return f"{base}/{board}/{name}"


def check_subtopic(subtopic: str) -> str:
    """``subtopic`` if it is one or more non-empty topic levels without wildcards."""
    if not isinstance(subtopic, str) or not _SUBTOPIC_RE.match(subtopic):
        raise ValueError(
            f"bad subtopic {subtopic!r}: non-empty levels separated by '/', "
            "no '+', '#' or white space"
        )
    return subtopic


@dataclass(frozen=True, order=True)
class BoardAddress:
    """A board anywhere on the broker: its base topic and its id. Written
    ``base/board`` (the base may have several levels: ``home/darts/pub2``);
    a bare ``board`` is on the base of whoever reads it."""

    base: str
    board: str

    def __post_init__(self) -> None:
        check_base(self.base)
        check_board_id(self.board)

    @classmethod
    def parse(cls, text: str, default_base: str) -> BoardAddress:
        """``board`` or ``base/board``; a ValueError quotes ``text`` and says why."""
        if not isinstance(text, str):
            raise ValueError(f"a board is a string like 'pub2' or 'oche/pub2', not {text!r}")
        base, slash, board = text.strip().rpartition("/")
        if not slash:
            base = default_base
        problem = board_id_problem(board)
        if problem is None and slash:
            problem = base_problem(base)
        if problem is not None:
            raise ValueError(f"bad board {text!r}: {problem}")
        return cls(base, board)

    def __str__(self) -> str:
        return f"{self.base}/{self.board}"

    def topic(self, name: str) -> str:
        """One of this board's own topics (:data:`TOPIC_NAMES`)."""
        return topic(self.base, self.board, name)
