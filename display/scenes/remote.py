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

from collections.abc import Mapping
from typing import Any

from display.scenes.base import int_or_none, player_label
from mqtt_contract import WAITING_REMOTE

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

State = Mapping[str, Any]


def remote_of(state: State | None) -> Mapping[str, Any] | None:
    """The state's ``remote`` block, or ``None`` outside a remote match."""
    remote = (state or {}).get("remote")
    return remote if isinstance(remote, Mapping) else None


def _boards(remote: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    boards = remote.get("boards")
    if not isinstance(boards, list):
        return []
    return [b for b in boards if isinstance(b, Mapping) and isinstance(b.get("board"), str)]


def _entry(state: State, address: str) -> Mapping[str, Any] | None:
    remote = remote_of(state) or {}
    return next((b for b in _boards(remote) if b["board"] == address), None)


def board_name(state: State, address: str) -> str:
    """How the match names the board at ``address`` (``base/board``): its
    display name, else its board id."""
    entry = _entry(state, address)
    name = entry.get("name") if entry is not None else None
    if isinstance(name, str) and name.strip():
        return name.strip()
    return address.rpartition("/")[2] or address


def here(state: State) -> str | None:
    """This board's address in the match: the host's on the host; on a guest
    the match's board with this board's id (the state's ``board.id``)."""
    remote = remote_of(state)
    if remote is None:
        return None
    host = remote.get("host")
    if remote.get("role") == "host":
        return host if isinstance(host, str) else None
    own = (state.get("board") or {}).get("id") if isinstance(state.get("board"), Mapping) else None
    if not isinstance(own, str):
        return None
    mine = [
        b["board"]
        for b in _boards(remote)
        if b["board"] != host and b["board"].rpartition("/")[2] == own
    ]
    return mine[0] if len(mine) == 1 else None


def thrower(state: State) -> int | None:
    """The player whose visit is on at ``remote.throwing_at``: the player to
    throw, or (between visits, in the takeout) the one whose visit ended."""
    remote = remote_of(state)
    at = remote.get("throwing_at") if remote is not None else None
    players = state.get("players")
    if not isinstance(at, str) or not isinstance(players, list):
        return None
    current = int_or_none(state.get("current_player"))
    last = state.get("last_visit")
    ended = None
    if not state.get("visit") and isinstance(last, Mapping):
        ended = int_or_none(last.get("player"))
    order = (ended, current) if state.get("phase") == "takeout" else (current, ended)
    for index in order:
        if index is not None and 0 <= index < len(players):
            player = players[index]
            if isinstance(player, Mapping) and player.get("board") == at:
                return index
    return None


def throws_elsewhere(state: State, player: int | None) -> bool:
    """Player ``player`` throws at another board of the match than this one
    (``False`` when either board is not known)."""
    players = state.get("players")
    mine = here(state)
    if player is None or mine is None or not isinstance(players, list):
        return False
    if not 0 <= player < len(players) or not isinstance(players[player], Mapping):
        return False
    board = players[player].get("board")
    return isinstance(board, str) and board != mine


def throwing(state: State) -> tuple[str, str] | None:
    """The remote banner's words, ``(title, detail)``, while a visit is on
    (``remote.throwing_at`` set, the game not over); else ``None``."""
    remote = remote_of(state)
    at = remote.get("throwing_at") if remote is not None else None
    if not isinstance(at, str) or not state.get("game") or state.get("finished"):
        return None
    index = thrower(state)
    name = player_label(state, index) if index is not None else "The player who is up"
    where = board_name(state, at)
    if at == here(state):
        return f"{name} is throwing here", f"at {where}: darts on this board count"
    return f"{name} is throwing at {where}", "darts thrown at this board do not count meanwhile"


def _why_waiting(state: State, address: str) -> str:
    entry = _entry(state, address)
    if entry is None or entry.get("online") is False:
        return "offline"
    if entry.get("joined") is False:
        return "not joined yet"
    return "catching up"


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def waiting_headline(state: State) -> str | None:
    """``Waiting for Pub 2…`` in phase ``waiting-remote`` (every board the
    match waits for, named); ``None`` in any other phase."""
    remote = remote_of(state)
    if state.get("phase") != WAITING_REMOTE or remote is None:
        return None
    waiting = [w for w in remote.get("waiting") or [] if isinstance(w, str)]
    if not waiting:
        return "Waiting for the match to go on…"
    return f"Waiting for {_names([board_name(state, w) for w in waiting])}…"


def waiting_detail(state: State) -> str:
    """Each board the match waits for and why: ``Pub 2 offline · Pub 3 not joined yet``."""
    remote = remote_of(state) or {}
    waiting = [w for w in remote.get("waiting") or [] if isinstance(w, str)]
    parts = [f"{board_name(state, w)} {_why_waiting(state, w)}" for w in waiting]
    return "  ·  ".join(parts) if parts else "the host has not said which board"


def joining_headline(state: State) -> str | None:
    """``Joining Pub 1's match…`` on a guest that has no state from its host
    yet (phase ``waiting-remote``, no game); else ``None``."""
    remote = remote_of(state)
    if remote is None or state.get("phase") != WAITING_REMOTE or state.get("game"):
        return None
    host = remote.get("host")
    name = board_name(state, host) if isinstance(host, str) else "the host"
    return f"Joining {name}'s match…"
