"""What the screen says about a remote match (docs/remote.md), read from the
state's ``remote`` block and the players' ``board``.

Pure functions over the MQTT state, no pygame: the banners
(display/banners.py) and the attract screen (display/scenes/idle.py) draw
the words these return. Boards are named as the match names them
(``remote.boards[].name``), else by their board id.

On the board where the player who is up throws, the screen says
"Ann is throwing here"; on every other board "Ann is throwing at Pub 1".
"""

from __future__ import annotations

from display.scenes.base import State, player_label
from mqtt_contract import Phase, RemoteBoard, RemoteView

__all__ = [
    "board_name",
    "here",
    "joining_headline",
    "remote_of",
    "thrower",
    "throwing",
    "throws_elsewhere",
    "waiting_detail",
    "waiting_headline",
]


def remote_of(state: State | None) -> RemoteView | None:
    """The state's ``remote`` block, or ``None`` outside a remote match."""
    return state.remote if state is not None and state.remote.present else None


def _entry(state: State, address: str) -> RemoteBoard | None:
    boards = state.remote.boards
    return next((b for b in boards if b.board == address), None)


def board_name(state: State, address: str) -> str:
    """How the match names the board at ``address`` (``base/board``): its
    display name, else its board id."""
    entry = _entry(state, address)
    name = entry.name if entry is not None else None
    if name and name.strip():
        return name.strip()
    return address.rpartition("/")[2] or address


def here(state: State) -> str | None:
    """This board's address in the match: the host's on the host; on a guest
    the match's board with this board's id (the state's ``board.id``)."""
    remote = remote_of(state)
    if remote is None:
        return None
    host = remote.host
    if remote.role == "host":
        return host
    own = state.board.id
    if own is None:
        return None
    mine = [b.board for b in remote.boards if b.board != host and b.board.rpartition("/")[2] == own]
    return mine[0] if len(mine) == 1 else None


def thrower(state: State) -> int | None:
    """The player whose visit is on at ``remote.throwing_at``: the player to
    throw, or (between visits, in the takeout) the one whose visit ended."""
    remote = remote_of(state)
    at = remote.throwing_at if remote is not None else None
    if at is None:
        return None
    current = state.current_player
    last = state.last_visit
    ended = last.player if not state.visit and last is not None else None
    order = (ended, current) if state.phase is Phase.TAKEOUT else (current, ended)
    for index in order:
        player = state.player(index)
        if player is not None and player.board == at:
            return index
    return None


def throws_elsewhere(state: State, player: int | None) -> bool:
    """Player ``player`` throws at another board of the match than this one
    (``False`` when either board is not known)."""
    mine = here(state)
    view = state.player(player)
    if mine is None or view is None:
        return False
    return view.board is not None and view.board != mine


def throwing(state: State) -> tuple[str, str] | None:
    """The remote banner's words, ``(title, detail)``, while a visit is on
    (``remote.throwing_at`` set, the game not over); else ``None``."""
    remote = remote_of(state)
    at = remote.throwing_at if remote is not None else None
    if at is None or not state.game or state.finished:
        return None
    index = thrower(state)
    name = player_label(state, index) if index is not None else "The player who is up"
    where = board_name(state, at)
    if at == here(state):
        return f"{name} is throwing here", f"at {where}: darts on this board count"
    return f"{name} is throwing at {where}", "darts thrown at this board do not count meanwhile"


def _why_waiting(state: State, address: str) -> str:
    entry = _entry(state, address)
    if entry is None or entry.online is False:
        return "offline"
    if entry.joined is False:
        return "not joined yet"
    return "catching up"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def waiting_headline(state: State) -> str | None:
    """``Waiting for Pub 2…`` in phase ``waiting-remote`` (every board the
    match waits for, named); ``None`` in any other phase."""
    remote = remote_of(state)
    if state.phase is not Phase.WAITING_REMOTE or remote is None:
        return None
    waiting = remote.waiting
    if not waiting:
        return "Waiting for the match to go on…"
    return f"Waiting for {_names([board_name(state, w) for w in waiting])}…"


def waiting_detail(state: State) -> str:
    """Each board the match waits for and why: ``Pub 2 offline · Pub 3 not joined yet``."""
    parts = [f"{board_name(state, w)} {_why_waiting(state, w)}" for w in state.remote.waiting]
    return "  ·  ".join(parts) if parts else "the host has not said which board"


def joining_headline(state: State) -> str | None:
    """``Joining Pub 1's match…`` on a guest that has no state from its host
    yet (phase ``waiting-remote``, no game); else ``None``."""
    remote = remote_of(state)
    if remote is None or state.phase is not Phase.WAITING_REMOTE or state.game:
        return None
    host = remote.host
    name = board_name(state, host) if host is not None else "the host"
    return f"Joining {name}'s match…"
