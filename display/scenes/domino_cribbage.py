"""Domino Cribbage: the cribbage board, the tiles and the count.

Cribbage with a double-six domino set is played on the display, not thrown
at: a dart at number N picks the N-th tile of the hand on screen, and NEXT
says Go in the play or deals the next hand once the count is shown. So the
scene has no dartboard. It shows, top to bottom:

- the cribbage board: a peg track per player from 0 to the target, the
  front peg at the score and the back peg where it was before the last
  points (as pegs leapfrog on a real board), with each player's name,
  score, the dealer, the computer and a Go;
- what the player to move must do ("Ann: choose 2 tiles for Bob's crib");
- in the discard and the play, the hand of the player to move face up, each
  tile under its number (hit segment N, or press N), a tile that would take
  the count past 31 dimmed; the other hand face down, unless the computer
  holds it; the starter and the crib, face down; in the play the running
  count, big, and the tiles laid since it last started from zero;
- in the show (and at the end) every hand and the crib open with the
  starter, and each count's fifteens, pairs, runs and total;
- the points the last move scored ("Bob: fifteen 2, pair 2").

Keys: 1-9 pick a tile and Space or Enter says Go / deals (``n`` is the
app's NEXT key already): the scene queues the daemon's ``dart`` and
``next`` commands in its outbox. Tiles are drawn with their pips by
:func:`draw_tile`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pygame

from display.layout import COLORS, Color, Layout, split
from display.scenes.base import Scene, State, player_label
from display.scenes.registry import register_scene
from engine.cribbage_scoring import THIRTY_ONE
from engine.games.domino_cribbage import DEALT
from mqtt_contract import CountedTiles, CribbagePlayer, StateView

__all__ = [
    "HAND_SLOTS",
    "PEG_COLOURS",
    "TILE_BACK",
    "TILE_FACE",
    "DominoCribbageScene",
    "draw_tile",
    "fit_tile",
    "scoring_caption",
    "tile_ends",
]

HAND_SLOTS = DEALT
"""Tiles dealt to a hand: a hand's row has room for this many, so tiles keep
their size as the hand shrinks."""

TILE_FACE: Color = (238, 232, 214)
TILE_PIP: Color = (26, 26, 30)
TILE_EDGE: Color = (150, 140, 118)
TILE_BACK: Color = (116, 42, 52)
TILE_BACK_EDGE: Color = (186, 96, 104)
BOARD_WOOD: Color = (92, 64, 40)
BOARD_GROOVE: Color = (74, 50, 30)
BOARD_HOLE: Color = (40, 27, 16)

PEG_COLOURS: tuple[Color, Color] = ((232, 78, 64), (66, 158, 242))
"""Player 1's pegs and player 2's, as on a two-player board."""

_GROUP_GAP = 0.6
"""The space between groups of five holes on the track, in holes."""

_A, _M, _B = 0.2, 0.5, 0.8
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    0: (),
    1: ((_M, _M),),
    2: ((_A, _A), (_B, _B)),
    3: ((_A, _A), (_M, _M), (_B, _B)),
    4: ((_A, _A), (_B, _A), (_A, _B), (_B, _B)),
    5: ((_A, _A), (_B, _A), (_M, _M), (_A, _B), (_B, _B)),
    6: ((_A, _A), (_A, _M), (_A, _B), (_B, _A), (_B, _M), (_B, _B)),
}
"""Where the pips of an end go in its square, as fractions (x, y), for a
tile standing up: the six is two columns of three, along the tile."""

_DIGITS = {getattr(pygame, f"K_{n}"): n for n in range(1, 10)} | {
    getattr(pygame, f"K_KP{n}"): n for n in range(1, 10)
}
_NEXT_KEYS = (pygame.K_SPACE, pygame.K_RETURN, pygame.K_KP_ENTER)


# ------------------------------------------------------------------ tiles


def tile_ends(tile: object) -> tuple[int, int] | None:
    """The two ends of a tile in notation (``"2-5"`` is ``(2, 5)``); ``None``
    for anything that is not a double-six tile."""
    if not isinstance(tile, str):
        return None
    parts = tile.split("-")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        return None
    low, high = (int(part) for part in parts)
    return (low, high) if 0 <= low <= 6 and 0 <= high <= 6 else None


def fit_tile(rect: pygame.Rect, vertical: bool = True) -> pygame.Rect:
    """The largest tile (twice as long as wide) centred in ``rect``."""
    if vertical:
        width = min(rect.width, rect.height // 2)
        box = pygame.Rect(0, 0, width, 2 * width)
    else:
        height = min(rect.height, rect.width // 2)
        box = pygame.Rect(0, 0, 2 * height, height)
    box.center = rect.center
    return box


def _mix(colour: Color, other: Color, share: float) -> Color:
    """``colour`` with ``share`` of ``other`` mixed in."""
    r, g, b = (round(c + (o - c) * share) for c, o in zip(colour, other, strict=True))
    return (r, g, b)


def draw_tile(
    surface: pygame.Surface,
    rect: pygame.Rect,
    tile: str | None,
    face_up: bool = True,
    vertical: bool = True,
    dim: bool = False,
) -> pygame.Rect:
    """A domino in the middle of ``rect``: face up with the pips of each end
    (``tile`` in notation, the first end on top or at the left), or its back
    when ``face_up`` is false or ``tile`` is not a tile. A face-down tile
    looks the same whatever it is. ``dim`` greys a tile that cannot be
    played. Returns the tile's rect."""
    box = fit_tile(rect, vertical)
    short = min(box.width, box.height)
    if short < 3:
        return box
    radius = max(1, short // 7)
    ends = tile_ends(tile) if face_up else None
    if ends is None:
        pygame.draw.rect(surface, TILE_BACK, box, border_radius=radius)
        pygame.draw.rect(surface, TILE_BACK_EDGE, box, max(1, short // 18), border_radius=radius)
        inner = box.inflate(-short // 3, -short // 3)
        if inner.width > 2 and inner.height > 2:
            pygame.draw.rect(
                surface, TILE_BACK_EDGE, inner, max(1, short // 24), border_radius=radius // 2
            )
        return box
    face, pip, edge = TILE_FACE, TILE_PIP, TILE_EDGE
    if dim:
        face, pip, edge = (_mix(c, COLORS.background, 0.55) for c in (face, pip, edge))
    pygame.draw.rect(surface, face, box, border_radius=radius)
    pygame.draw.rect(surface, edge, box, max(1, short // 20), border_radius=radius)
    margin = round(short * 0.14)
    width = max(1, short // 22)
    if vertical:
        y = box.centery
        pygame.draw.line(surface, edge, (box.x + margin, y), (box.right - margin - 1, y), width)
    else:
        x = box.centerx
        pygame.draw.line(surface, edge, (x, box.y + margin), (x, box.bottom - margin - 1), width)
    for half, count in zip(split(box, 2, 0, vertical=vertical), ends, strict=True):
        _draw_pips(surface, half, count, vertical, pip)
    return box


def _draw_pips(
    surface: pygame.Surface, half: pygame.Rect, count: int, vertical: bool, colour: Color
) -> None:
    side = min(half.width, half.height)
    square = pygame.Rect(0, 0, round(side * 0.8), round(side * 0.8))
    square.center = half.center
    radius = max(1, round(side * 0.09))
    for fx, fy in _PIPS.get(count, ()):
        if not vertical:
            fx, fy = fy, fx
        centre = (square.x + round(fx * square.width), square.y + round(fy * square.height))
        pygame.draw.circle(surface, colour, centre, radius)


def _draw_slot(surface: pygame.Surface, layout: Layout, rect: pygame.Rect) -> None:
    """The outline of a tile not there yet (a crib still being made)."""
    box = fit_tile(rect)
    if min(box.size) >= 3:
        pygame.draw.rect(
            surface, COLORS.line, box, layout.px(2), border_radius=max(1, box.width // 7)
        )


def _slots(rect: pygame.Rect, count: int, gap: int) -> list[pygame.Rect]:
    """``count`` places for standing tiles, left to right from ``rect``'s left."""
    if count < 1:
        return []
    width = min((rect.width - gap * (count - 1)) // count, rect.height // 2 + gap)
    return [
        pygame.Rect(rect.x + index * (width + gap), rect.y, width, rect.height)
        for index in range(count)
    ]


# ------------------------------------------------------------------ state


def _player(state: State, index: int | None) -> CribbagePlayer:
    """Player ``index``'s hand and pegging (empty for no such player)."""
    player = state.player(index)
    return player.cribbage if player is not None else CribbagePlayer()


def _other(state: State, index: int | None) -> int | None:
    if index is None or len(state.players) != 2:
        return None
    return 1 - index


def _tile_value(tile: str) -> int | None:
    ends = tile_ends(tile)
    return sum(ends) if ends else None


def scoring_caption(state: State) -> str:
    """The points the last move scored, by player: ``"Bob: fifteen 2, pair 2"``
    (several players' in turn, ``·`` between them); empty when it scored none."""
    groups: list[tuple[int | None, list[str]]] = []
    for line in state.cribbage.scoring:
        player = line.player
        reason = "?" if line.reason is None else line.reason
        item = f"{reason} {'?' if line.points is None else line.points}"
        if groups and groups[-1][0] == player:
            groups[-1][1].append(item)
        else:
            groups.append((player, [item]))
    return "  ·  ".join(
        f"{player_label(state, player if player is not None else -1)}: {', '.join(items)}"
        for player, items in groups
    )


def _shows(state: State) -> list[tuple[int, str, list[str], CountedTiles | None]]:
    """What the show lays open, in counting order: the dealer's opponent's
    hand, the dealer's hand, the crib; each ``(player, what, tiles, count)``,
    ``count`` ``None`` while (or when, the game won first) it is not counted."""
    dealer = state.cribbage.dealer or 0
    counts = state.cribbage.counts
    shows: list[tuple[int, str, list[str], CountedTiles | None]] = []
    order = [(1 - dealer, "hand"), (dealer, "hand"), (dealer, "crib")]
    if len(state.players) != 2:
        order = [(dealer, "crib")]
    for player, what in order:
        counted = next((c for c in counts if c.player == player and c.what == what), None)
        if counted is not None:
            tiles = list(counted.tiles)
        elif what == "crib":
            tiles = list(state.cribbage.crib)
        else:
            held = _player(state, player)
            tiles = list(held.kept or held.hand)
        shows.append((player, what, tiles, counted))
    return shows


# ------------------------------------------------------------------ scene


@register_scene("domino-cribbage")
class DominoCribbageScene(Scene):
    show_board = False

    def subtitle(self, state: State) -> str:
        # Who the computer plays is on the board's chips; the header stays short.
        target = state.cribbage.target
        return f"first to {target}" if target is not None else ""

    def round_label(self, state: State, round_number: int) -> str:
        return f"Hand {round_number}"

    # ------------------------------------------------------------ inputs

    def process_event(self, event: pygame.event.Event) -> pygame.event.Event | None:
        """Digit keys pick a tile (the daemon's ``dart`` at that number) and
        Space or Enter is NEXT, while the game is on."""
        state = self.state or StateView()
        if event.type == pygame.KEYDOWN and state.game and not state.finished:
            if event.key in _DIGITS:
                self.outbox.append({"command": "dart", "segment": f"S{_DIGITS[event.key]}"})
                return None
            if event.key in _NEXT_KEYS:
                self.outbox.append({"command": "next"})
                return None
        return super().process_event(event)

    # ----------------------------------------------------------- geometry

    def parts(self, layout: Layout, state: State) -> dict[str, pygame.Rect]:
        """Where everything goes in a window of ``layout``'s size:
        ``pegboard`` with per player ``name<i>``, ``track<i>`` and
        ``score<i>``, and the track's ``scale``;
        ``status`` (what to do), ``caption`` (the last points), ``content``
        between them; in the discard and the play ``mover`` and ``other``
        (the hands), ``table``, ``starter``, ``crib`` and, in the play,
        ``count`` and ``count_tiles``; in the show ``show<i>`` per count."""
        main = self.regions(layout)["main"]
        gap = layout.px(12)
        parts: dict[str, pygame.Rect] = {}
        peg = pygame.Rect(main.x, main.y, main.width, round(main.height * 0.27))
        parts["pegboard"] = peg
        self._pegboard_parts(layout, peg, len(state.players), parts)
        status = pygame.Rect(main.x, peg.bottom + gap, main.width, round(main.height * 0.08))
        caption_h = round(main.height * 0.07)
        caption = pygame.Rect(main.x, main.bottom - caption_h, main.width, caption_h)
        content = pygame.Rect(
            main.x, status.bottom + gap, main.width, caption.y - gap - status.bottom - gap
        )
        parts |= {"status": status, "caption": caption, "content": content}
        stage = state.cribbage.stage
        if stage in ("show", "over"):
            rows = split(content, 3, layout.px(8), vertical=True)
            for index, row in enumerate(rows[: len(_shows(state))]):
                parts[f"show{index}"] = row
            return parts
        hands_w = round(content.width * 0.58)
        hands = pygame.Rect(content.x, content.y, hands_w, content.height)
        table = pygame.Rect(
            hands.right + gap, content.y, content.right - hands.right - gap, content.height
        )
        mover_h = round(hands.height * 0.6)
        parts["mover"] = pygame.Rect(hands.x, hands.y, hands.width, mover_h)
        parts["other"] = pygame.Rect(
            hands.x, hands.y + mover_h + gap, hands.width, hands.height - mover_h - gap
        )
        parts["table"] = table
        inner = table.inflate(-layout.px(20), -layout.px(14))
        top = (
            inner
            if stage != "play"
            else pygame.Rect(inner.x, inner.y, inner.width, round(inner.height * 0.4))
        )
        starter_w = round(top.width * 0.26)
        parts["starter"] = pygame.Rect(top.x, top.y, starter_w, top.height)
        parts["crib"] = pygame.Rect(
            top.x + starter_w + gap, top.y, top.width - starter_w - gap, top.height
        )
        if stage == "play":
            below = pygame.Rect(
                inner.x, top.bottom + gap, inner.width, inner.bottom - top.bottom - gap
            )
            count_w = round(below.width * 0.3)
            parts["count"] = pygame.Rect(below.x, below.y, count_w, below.height)
            parts["count_tiles"] = pygame.Rect(
                below.x + count_w + gap, below.y, below.width - count_w - gap, below.height
            )
        return parts

    def _pegboard_parts(
        self, layout: Layout, rect: pygame.Rect, players: int, parts: dict[str, pygame.Rect]
    ) -> None:
        inner = rect.inflate(-layout.px(20), -layout.px(12))
        rows = max(1, players)
        scale_h = round(inner.height * 0.18)
        row_h = (inner.height - scale_h) // rows
        name_w = round(inner.width * 0.24)
        score_w = round(inner.width * 0.1)
        gap = layout.px(12)
        track_x = inner.x + name_w + gap
        track_w = inner.width - name_w - score_w - 2 * gap
        y = inner.y
        for index in range(players):
            parts[f"name{index}"] = pygame.Rect(inner.x, y, name_w, row_h)
            parts[f"track{index}"] = pygame.Rect(track_x, y, track_w, row_h)
            parts[f"score{index}"] = pygame.Rect(inner.right - score_w, y, score_w, row_h)
            y += row_h
            if index == 0:
                parts["scale"] = pygame.Rect(track_x, y, track_w, scale_h)
                y += scale_h
        if "scale" not in parts:
            parts["scale"] = pygame.Rect(track_x, y, track_w, scale_h)

    # ----------------------------------------------------------- drawing

    def draw_body(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        parts = self.parts(layout, state)
        self.draw_pegboard(surface, layout, parts, state)
        self.draw_status(surface, layout, parts["status"], state)
        if state.cribbage.stage in ("show", "over"):
            for index, show in enumerate(_shows(state)):
                if f"show{index}" in parts:
                    self.draw_show(surface, layout, parts[f"show{index}"], state, *show)
        else:
            self.draw_hands(surface, layout, parts, state)
            self.draw_table(surface, layout, parts, state)
        layout.text(
            surface,
            scoring_caption(state),
            parts["caption"],
            layout.font_size(32),
            COLORS.text,
        )

    # ------------------------------------------------------- the pegboard

    def draw_pegboard(
        self,
        surface: pygame.Surface,
        layout: Layout,
        parts: Mapping[str, pygame.Rect],
        state: State,
    ) -> None:
        """The board: per player a name, a track of holes 0..target with the
        two pegs, and the score; the track's scale between the tracks."""
        layout.panel(surface, parts["pegboard"], BOARD_WOOD, COLORS.line, 1.5)
        target = max(1, state.cribbage.target or 61)
        dealer = state.cribbage.dealer
        winner = state.winner
        with layout.on(BOARD_WOOD):
            self._draw_scale(surface, layout, parts["scale"], target)
            for index, player in enumerate(state.players):
                if f"track{index}" not in parts:
                    continue
                colour = PEG_COLOURS[index % len(PEG_COLOURS)]
                self._draw_name(surface, layout, parts[f"name{index}"], state, index, dealer)
                track = parts[f"track{index}"]
                self._draw_track(surface, layout, track, target)
                score = player.score or 0
                previous = player.cribbage.previous_score
                self._draw_peg(surface, track, target, previous, _mix(colour, BOARD_WOOD, 0.45))
                self._draw_peg(surface, track, target, score, colour)
                layout.text(
                    surface,
                    str(score),
                    parts[f"score{index}"],
                    layout.font_size(64),
                    COLORS.good if winner == index else COLORS.text,
                    "right",
                )

    def _draw_name(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        index: int,
        dealer: int | None,
    ) -> None:
        """Player ``index``'s peg colour, name (marked and lit when it is their
        turn) and chips: dealer, computer, Go."""
        player = _player(state, index)
        name_rect = pygame.Rect(rect.x, rect.y, rect.width, round(rect.height * 0.6))
        chips_rect = pygame.Rect(
            rect.x, name_rect.bottom, rect.width, rect.bottom - name_rect.bottom
        )
        dot = max(2, min(name_rect.height // 5, layout.px(10)))
        pygame.draw.circle(
            surface, PEG_COLOURS[index % len(PEG_COLOURS)], (rect.x + dot, name_rect.centery), dot
        )
        turn = index == state.current_player and not state.finished
        marker_x = rect.x + 3 * dot
        if turn:
            half = dot
            pygame.draw.polygon(
                surface,
                COLORS.accent,
                [
                    (marker_x, name_rect.centery - half),
                    (marker_x + round(1.6 * half), name_rect.centery),
                    (marker_x, name_rect.centery + half),
                ],
            )
        text_rect = pygame.Rect(marker_x + 3 * dot, name_rect.y, 0, name_rect.height)
        text_rect.width = rect.right - text_rect.x
        layout.text(
            surface,
            player_label(state, index),
            text_rect,
            layout.font_size(36),
            COLORS.accent if turn else COLORS.text,
            "left",
        )
        chips = []
        if index == dealer:
            chips.append(("Dealer", COLORS.accent))
        if player.computer:
            chips.append(("Computer", COLORS.info))
        if player.go and state.cribbage.stage == "play":
            chips.append(("Go", COLORS.good))
        cells = split(chips_rect.inflate(-layout.px(4), -layout.px(6)), 3, layout.px(6))
        for (text, colour), cell in zip(chips, cells, strict=False):
            layout.panel(surface, cell, colour)
            with layout.on(colour):
                layout.text(
                    surface,
                    text,
                    cell.inflate(-layout.px(8), -layout.px(4)),
                    layout.font_size(22),
                    COLORS.background,
                )

    @staticmethod
    def _hole_x(track: pygame.Rect, target: int, hole: int) -> int:
        """The x of hole ``hole`` (0 is the start) on a track to ``target``:
        the holes go in fives, a space between the groups."""

        def units(h: int) -> float:
            return h + _GROUP_GAP * ((h + 4) // 5)

        pad = max(4, track.height // 4)
        hole = max(0, min(hole, target))
        return track.x + pad + round((track.width - 2 * pad) * units(hole) / units(target))

    def _draw_track(
        self, surface: pygame.Surface, layout: Layout, track: pygame.Rect, target: int
    ) -> None:
        groove = pygame.Rect(track.x, 0, track.width, max(4, track.height // 2))
        groove.centery = track.centery
        pygame.draw.rect(surface, BOARD_GROOVE, groove, border_radius=groove.height // 2)
        step = (track.width - track.height // 2) / max(1, target * (1 + _GROUP_GAP / 5))
        radius = max(1, round(min(step * 0.3, track.height * 0.08)))
        for hole in range(target + 1):
            x = self._hole_x(track, target, hole)
            pygame.draw.circle(surface, BOARD_HOLE, (x, track.centery), radius)
        end = self._hole_x(track, target, target)
        pygame.draw.circle(
            surface, COLORS.accent, (end, track.centery), radius + layout.px(4), layout.px(2)
        )

    def _draw_peg(
        self,
        surface: pygame.Surface,
        track: pygame.Rect,
        target: int,
        hole: int,
        colour: Color,
    ) -> None:
        x = self._hole_x(track, target, hole)
        radius = max(3, round(track.height * 0.2))
        pygame.draw.circle(surface, colour, (x, track.centery), radius)
        pygame.draw.circle(surface, COLORS.mark, (x, track.centery), radius, max(1, radius // 4))

    def _draw_scale(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, target: int
    ) -> None:
        marks = [n for n in range(10, target, 10) if target - n >= 5] + [target]
        width = max(1, self._hole_x(rect, target, 10) - self._hole_x(rect, target, 0))
        for number in marks:
            cell = pygame.Rect(0, rect.y, width, rect.height)
            cell.centerx = self._hole_x(rect, target, number)
            colour = COLORS.accent if number == target else COLORS.dim
            layout.text(surface, str(number), cell.clip(rect), layout.font_size(22), colour)

    # --------------------------------------------------------- the status

    def status_text(self, state: State) -> tuple[str, Color]:
        """What to do now, and its colour."""
        stage = state.cribbage.stage
        mover = state.current_player
        name = player_label(state, mover if mover is not None else -1)
        if stage == "over" or state.finished:
            winner = state.winner
            if winner is None:
                return "Game over", COLORS.text
            scores = [str(p.score or 0) for p in state.players]
            return f"{player_label(state, winner)} wins {'-'.join(scores)}", COLORS.good
        if stage == "show":
            return "NEXT deals the next hand", COLORS.accent
        if stage == "discard":
            owed = state.cribbage.to_discard
            dealer = state.cribbage.dealer
            whose = (
                "your"
                if dealer == mover
                else f"{player_label(state, dealer if dealer is not None else -1)}'s"
            )
            tiles = "tile" if owed == 1 else "tiles"
            return f"{name}: choose {owed} {tiles} for {whose} crib", COLORS.accent
        if stage == "play":
            hand = _player(state, mover).hand
            count = state.cribbage.count
            if hand and not any(self._fits(tile, count) for tile in hand):
                return f"{name}: no tile fits the count, NEXT says Go", COLORS.accent
            return f"{name} to play: hit a tile's number", COLORS.accent
        return "", COLORS.text

    @staticmethod
    def _fits(tile: str, count: int) -> bool:
        value = _tile_value(tile)
        return value is not None and count + value <= THIRTY_ONE

    def draw_status(
        self, surface: pygame.Surface, layout: Layout, rect: pygame.Rect, state: State
    ) -> None:
        text, colour = self.status_text(state)
        layout.text(surface, text, rect, layout.font_size(44), colour)

    # --------------------------------------------------------- the hands

    def draw_hands(
        self,
        surface: pygame.Surface,
        layout: Layout,
        parts: Mapping[str, pygame.Rect],
        state: State,
    ) -> None:
        """The hand of the player to move face up under the numbers that pick
        its tiles; the other hand face down unless the computer holds it."""
        mover = state.current_player
        other = _other(state, mover)
        stage = state.cribbage.stage
        count = state.cribbage.count
        if mover is not None:
            player = _player(state, mover)
            hand = list(player.hand)
            human = not player.computer
            hint = f"hit 1-{len(hand)}" if human and hand else ""
            if stage == "play" and human:
                hint += "  ·  NEXT: Go"
            playable = [stage != "play" or self._fits(tile, count) for tile in hand]
            self._draw_hand(
                surface,
                layout,
                parts["mover"],
                f"{player_label(state, mover)}'s hand",
                hint,
                hand,
                True,
                playable,
                numbered=human,
            )
        if other is not None:
            player = _player(state, other)
            hand = list(player.hand)
            open_hand = player.computer
            label = f"{player_label(state, other)}'s hand"
            self._draw_hand(
                surface,
                layout,
                parts["other"],
                label,
                "" if open_hand else "face down",
                hand,
                open_hand,
                [True] * len(hand),
                numbered=False,
            )

    def _draw_hand(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        label: str,
        hint: str,
        tiles: Sequence[str],
        face_up: bool,
        playable: Sequence[bool],
        numbered: bool,
    ) -> None:
        label_h = round(rect.height * (0.17 if numbered else 0.24))
        label_rect = pygame.Rect(rect.x, rect.y, rect.width, label_h)
        name_part, hint_part = split(label_rect, 2, layout.px(8))
        layout.text(surface, label, name_part, layout.font_size(30), COLORS.text, "left")
        layout.text(surface, hint, hint_part, layout.font_size(24), COLORS.dim, "right")
        body = pygame.Rect(rect.x, label_rect.bottom, rect.width, rect.bottom - label_rect.bottom)
        badge_h = round(body.height * 0.2) if numbered else 0
        tiles_rect = pygame.Rect(body.x, body.y + badge_h, body.width, body.height - badge_h)
        gap = layout.px(14)
        slots = _slots(tiles_rect, max(HAND_SLOTS, len(tiles)), gap)
        for number, (tile, slot, ok) in enumerate(
            zip(tiles, slots, playable, strict=False), start=1
        ):
            box = draw_tile(surface, slot, tile, face_up=face_up, dim=not ok)
            if numbered:
                badge = pygame.Rect(slot.x, body.y, slot.width, badge_h)
                self._draw_badge(surface, layout, badge, box, str(number), ok)

    def _draw_badge(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        tile: pygame.Rect,
        text: str,
        active: bool,
    ) -> None:
        """The number that picks a tile, in a disc above it."""
        radius = max(4, min(rect.height // 2 - layout.px(3), tile.width // 2))
        colour = COLORS.accent if active else COLORS.faint
        centre = (tile.centerx, rect.centery)
        pygame.draw.circle(surface, colour, centre, radius)
        disc = pygame.Rect(0, 0, 2 * radius, 2 * radius)
        disc.center = centre
        with layout.on(colour):
            layout.text(
                surface,
                text,
                disc.inflate(-radius // 2, -radius // 2),
                layout.font_size(34),
                COLORS.background,
            )

    # --------------------------------------------------------- the table

    def draw_table(
        self,
        surface: pygame.Surface,
        layout: Layout,
        parts: Mapping[str, pygame.Rect],
        state: State,
    ) -> None:
        """The starter and the crib (face down) and, in the play, the count."""
        layout.panel(surface, parts["table"], COLORS.panel, COLORS.line, 1.5)
        with layout.on(COLORS.panel):
            starter_rect, crib_rect = parts["starter"], parts["crib"]
            label_h = round(starter_rect.height * 0.24)
            crib = state.cribbage.crib
            tiles_rect = pygame.Rect(
                crib_rect.x, crib_rect.y + label_h, crib_rect.width, crib_rect.height - label_h
            )
            slots = _slots(tiles_rect, max(4, len(crib)), layout.px(10))
            shift = (tiles_rect.width - (slots[-1].right - slots[0].x)) // 2
            for index, slot in enumerate(slots):
                if index < len(crib):
                    draw_tile(surface, slot.move(shift, 0), crib[index], face_up=False)
                else:
                    _draw_slot(surface, layout, slot.move(shift, 0))
            dealer = state.cribbage.dealer
            owner = player_label(state, dealer if dealer is not None else -1)
            label = pygame.Rect(crib_rect.x, crib_rect.y, crib_rect.width, label_h)
            layout.text(surface, f"{owner}'s crib", label, layout.font_size(26), COLORS.dim)
            label = pygame.Rect(starter_rect.x, starter_rect.y, starter_rect.width, label_h)
            layout.text(surface, "Starter", label, layout.font_size(26), COLORS.dim)
            slot = pygame.Rect(0, tiles_rect.y, slots[0].width, tiles_rect.height)
            slot.centerx = starter_rect.centerx
            # face down (the stock's top) until the discard is done
            draw_tile(surface, slot, state.cribbage.starter)
            if "count" in parts:
                self.draw_count(surface, layout, parts, state)

    def draw_count(
        self,
        surface: pygame.Surface,
        layout: Layout,
        parts: Mapping[str, pygame.Rect],
        state: State,
    ) -> None:
        """The running count, big, who said Go, and the tiles of this count
        with the count after each (and what a tile scored)."""
        rect = parts["count"]
        label = pygame.Rect(rect.x, rect.y, rect.width, round(rect.height * 0.2))
        number = pygame.Rect(rect.x, label.bottom, rect.width, round(rect.height * 0.55))
        goes = pygame.Rect(rect.x, number.bottom, rect.width, rect.bottom - number.bottom)
        layout.text(surface, "Count", label, layout.font_size(28), COLORS.dim)
        count = state.cribbage.count
        layout.text(surface, str(count), number, layout.font_size(150), COLORS.text)
        said = [
            f"{player_label(state, index)}: Go"
            for index, player in enumerate(state.players)
            if player.cribbage.go
        ]
        layout.text(surface, "  ".join(said), goes, layout.font_size(28), COLORS.good)
        area = parts["count_tiles"]
        laid = state.cribbage.count_tiles
        if not laid:
            layout.text(surface, "A new count from 0", area, layout.font_size(26), COLORS.faint)
            return
        played = state.cribbage.played[-len(laid) :]
        tiles_h = round(area.height * 0.7)
        tiles_rect = pygame.Rect(area.x, area.y, area.width, tiles_h)
        slots = _slots(tiles_rect, max(5, len(laid)), layout.px(8))
        for index, (entry, slot) in enumerate(zip(laid, slots, strict=False)):
            box = draw_tile(surface, slot, entry.tile)
            owner = entry.player
            bar = pygame.Rect(box.x, box.bottom + layout.px(4), box.width, layout.px(5))
            pygame.draw.rect(surface, PEG_COLOURS[(owner or 0) % len(PEG_COLOURS)], bar)
            if index < len(played):
                play = played[index]
                points = play.points
                text = f"{play.count}" + (f" +{points}" if points else "")
                under = pygame.Rect(
                    slot.x - layout.px(4),
                    bar.bottom,
                    slot.width + layout.px(8),
                    area.bottom - bar.bottom,
                )
                colour = COLORS.good if points else COLORS.dim
                layout.text(surface, text, under, layout.font_size(24), colour)

    # ----------------------------------------------------------- the show

    def draw_show(
        self,
        surface: pygame.Surface,
        layout: Layout,
        rect: pygame.Rect,
        state: State,
        player: int,
        what: str,
        tiles: Sequence[str],
        counted: CountedTiles | None,
    ) -> None:
        """One count of the show: whose hand or crib, its tiles with the
        starter, its fifteens, pairs and runs, and the total."""
        layout.panel(surface, rect, COLORS.panel, COLORS.line, 1.5)
        inner = rect.inflate(-layout.px(20), -layout.px(8))
        label_w = round(inner.width * 0.18)
        tiles_w = round(inner.width * 0.36)
        total_w = round(inner.width * 0.14)
        gap = layout.px(12)
        label = pygame.Rect(inner.x, inner.y, label_w, inner.height)
        tiles_rect = pygame.Rect(label.right + gap, inner.y, tiles_w, inner.height)
        total = pygame.Rect(inner.right - total_w, inner.y, total_w, inner.height)
        breakdown = pygame.Rect(
            tiles_rect.right + gap, inner.y, total.x - gap - tiles_rect.right - gap, inner.height
        )
        with layout.on(COLORS.panel):
            name = player_label(state, player)
            layout.text(
                surface, f"{name}'s {what}", label, layout.font_size(30), COLORS.text, "left"
            )
            slots = _slots(tiles_rect, 5, layout.px(6))
            gap_before_starter = layout.px(14)
            for tile, slot in zip(tiles, slots[:4], strict=False):
                draw_tile(surface, slot, tile)
            starter = state.cribbage.starter
            if starter is not None:
                slot = slots[-1].move(gap_before_starter, 0)
                box = draw_tile(surface, slot, starter)
                pygame.draw.rect(
                    surface,
                    COLORS.accent,
                    box.inflate(layout.px(6), layout.px(6)),
                    layout.px(2),
                    border_radius=max(1, box.width // 6),
                )
            if counted is None:
                layout.text(surface, "not counted", breakdown, layout.font_size(26), COLORS.faint)
                return
            parts = (
                ("fifteens", counted.fifteens),
                ("pairs", counted.pairs),
                ("runs", counted.runs),
            )
            items = [f"{word} {points or 0}" for word, points in parts]
            layout.text(surface, "  ·  ".join(items), breakdown, layout.font_size(28), COLORS.dim)
            layout.text(
                surface,
                f"Total {counted.total or 0}",
                total,
                layout.font_size(40),
                COLORS.text,
                "right",
            )
