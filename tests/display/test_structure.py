"""The display's structure: a scene module per game named after its id, no
import cycles inside ``display/``, and drawing that leaves every module's
globals as they were (draw writes no module caches)."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import pygame
import pytest

import display
import display.dartboard
import display.scenes
from display.app import DisplayApp
from display.cues import cues_for
from display.layout import Layout
from display.scenes import SetupScene
from display.scenes.base import Scene
from display.scenes.cricket import ROWS
from display.scenes.cricket_shanghai import BULL_STAGES, ELEMENTS, STAGES
from display.scenes.registry import registered_scenes, scene_class_for, scene_for
from display.setup_model import segment_number
from display.sprites import SHARED_SPRITES, Sprites
from engine import game_ids, new_game, parse_event
from engine.games.cricket import MARKS_KEYS
from tests.display.test_scenes import FakeFeed

DISPLAY = Path(display.__file__).parent
SIZES = ((800, 480), (1920, 1080))
BOARD = {"id": "pub", "name": "Pub", "connected": True, "status": "connected", "stuck_cells": []}


def module_name(path: Path) -> str:
    parts = path.relative_to(DISPLAY.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def display_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(DISPLAY.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The display modules ``path`` imports anywhere in it (functions too):
    ``from display.scenes import x01`` is an edge to ``display.scenes.x01``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return {module for module in found if module in modules and module != name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that ends where it starts, or ``None``."""
    done: set[str] = set()
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(module: str) -> list[str] | None:
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target in on_stack:
                return [*stack[stack.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        on_stack.discard(module)
        done.add(module)
        return None

    for module in sorted(graph):
        if module not in done:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def test_display_modules_import_each_other_without_cycles() -> None:
    modules = display_modules()
    graph = {name: imports_of(name, path, set(modules)) for name, path in modules.items()}
    assert "display.scenes.base" in graph["display.scenes.x01"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def game_state(game_id: str) -> dict[str, Any]:
    """A real state of ``game_id`` a few darts in (the daemon's keys added)."""
    options = {"seed": 11} if game_id == "domino-cribbage" else None
    game = new_game(game_id, ["Ann", "Bob"], options)
    for dart in ("S1", "T20", "D19", "SB"):
        try:
            game.push(parse_event(dart))
        except ValueError:
            break
    return {**game.state(), "phase": "throwing", "board": dict(BOARD)}


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_has_a_scene_module_named_after_it(game_id: str) -> None:
    module = f"display.scenes.{game_id.replace('-', '_')}"
    assert module in sys.modules or importlib.import_module(module)
    scene = scene_class_for(game_state(game_id))
    assert scene.__module__ == module
    assert registered_scenes()[game_id] is scene


def test_every_registered_scene_is_for_a_game_of_the_engine() -> None:
    assert set(registered_scenes()) == set(game_ids())


def snapshot(module: ModuleType) -> dict[str, tuple[Any, Any]]:
    """Every global of ``module`` and, for a mutable container, a shallow copy of it."""
    copies: dict[str, tuple[Any, Any]] = {}
    for name, value in vars(module).items():
        if isinstance(value, dict):
            copies[name] = (value, list(value.items()))
        elif isinstance(value, list | set | bytearray):
            copies[name] = (value, list(value))
        else:
            copies[name] = (value, None)
    return copies


def same(before: dict[str, tuple[Any, Any]], after: dict[str, tuple[Any, Any]]) -> list[str]:
    """The globals that differ: another object, or a container with other items."""
    changed = []
    for name in before.keys() | after.keys():
        if name not in before or name not in after:
            changed.append(name)
            continue
        (old, old_items), (new, new_items) = before[name], after[name]
        if old is not new or old_items != new_items:
            changed.append(name)
    return sorted(changed)


def scene_makers() -> Iterator[tuple[str, Callable[[], Scene]]]:
    for game_id in game_ids():
        yield game_id, partial(scene_for, game_state(game_id))
    unknown = {**game_state("x01"), "game": "darts-golf"}
    yield "generic", lambda: scene_for(unknown)
    yield "idle", lambda: scene_for({"game": None, "phase": "idle", "board": dict(BOARD)})
    yield "waiting", lambda: scene_for(None)
    yield "setup", SetupScene


def test_drawing_every_scene_leaves_the_module_globals_alone() -> None:
    """Draw writes no module caches: every global of the scene modules and the
    dartboard is the same object, with the same items, after drawing each
    scene at two sizes (and drawing them again) as before."""
    modules = [
        module
        for name, module in sorted(sys.modules.items())
        if name.startswith("display.scenes") or name == "display.dartboard"
    ]
    before = {module.__name__: snapshot(module) for module in modules}
    for _ in range(2):
        for _, make in scene_makers():
            for size in SIZES:
                scene = make()
                scene.update(0.4)
                scene.draw(pygame.Surface(size), Layout(*size))
    changed = {
        module.__name__: same(before[module.__name__], snapshot(module)) for module in modules
    }
    assert {name: names for name, names in changed.items() if names} == {}


BAD_DARTS = ["T20", "X9", 5]
"""Darts as a broken or hostile client could publish them: only T20 is one."""


@pytest.mark.parametrize("game_id", game_ids())
def test_darts_the_engine_cannot_read_never_break_a_scene(game_id: str) -> None:
    """The display reads darts with Bed.parse; what it cannot read shows as
    it came, worth nothing, and the scene still draws."""
    state = game_state(game_id)
    state["visit"] = list(BAD_DARTS)
    state["last_visit"] = {"player": 0, "darts": [None, "S99", "m"], "visit_over": None}
    layout = Layout(1280, 720)
    scene_for(state).draw(pygame.Surface((1280, 720)), layout)
    shown = [text for text, _ in layout.drawn_text]
    if scene_class_for(state).show_board:
        assert "X9" in shown and "60" in shown


def test_a_dart_event_the_engine_cannot_read_has_no_cue() -> None:
    assert cues_for({"type": "dart", "segment": "X3", "scored": True}) == []
    assert cues_for({"type": "dart", "segment": "S99", "scored": True}) == []
    assert cues_for({"type": "dart", "segment": "t20", "scored": True}) == ["triple"]
    assert segment_number("S99") is None and segment_number(" d7 ") == 7


def test_the_cricket_grid_and_boxes_are_the_engines_targets_and_chains() -> None:
    assert sorted(key for key, _ in ROWS) == sorted(MARKS_KEYS)
    assert (STAGES, BULL_STAGES, ELEMENTS) == (("S", "D", "T"), ("25", "25", "50"), 21)


def test_a_scene_keeps_its_pictures_in_the_sprites_it_was_given() -> None:
    """The dartboard, the lit beds and Cricket-Shanghai's boxes go to the
    scene's own render cache (the app gives every scene its own one), not to
    a module's."""
    state = game_state("cricket-shanghai")
    shared = {kind: SHARED_SPRITES.count(kind) for kind in ("board", "bed", "box")}
    sprites = Sprites()
    scene = scene_for(state, sprites)
    assert scene.sprites is sprites
    scene.draw(pygame.Surface((1280, 720)), Layout(1280, 720))
    assert sprites.count("board") == 1 and sprites.count("bed") >= 1 and sprites.count("box") > 0
    assert {kind: SHARED_SPRITES.count(kind) for kind in shared} == shared
    app = DisplayApp(FakeFeed(state), (800, 480))  # type: ignore[arg-type]
    app.frame(pygame.Surface((800, 480)), 0.1)
    assert app.scene.sprites is app.sprites and app.sprites.count("board") == 1
