"""The import rules of docs/architecture.md, read from the source: each package
imports only what its row allows, and the CLI loads the display lazily."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO

OURS = ("engine", "drivers", "firmware_bridge", "display", "leaderboard")

ALLOWED: dict[str, tuple[str, ...]] = {
    # package (a folder or a module, as a dotted name): what it may import of ours
    "engine": ("engine",),
    "drivers": ("engine", "drivers"),
    "firmware_bridge.mqtt_contract": ("engine", "firmware_bridge.mqtt_contract"),
    "firmware_bridge.secret_hash": (),
    "firmware_bridge.daemon": (
        "engine",
        "drivers",
        "firmware_bridge.daemon",
        "firmware_bridge.mqtt_contract",
        "firmware_bridge.secret_hash",
    ),
    "display": (
        "engine",
        "display",
        "firmware_bridge.mqtt_contract",
        "firmware_bridge.secret_hash",
    ),
    "leaderboard": (
        "engine",
        "leaderboard",
        "firmware_bridge.mqtt_contract",
        "firmware_bridge.secret_hash",
    ),
}


def modules(package: str) -> Iterator[Path]:
    path = REPO / package.replace(".", "/")
    yield from sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]


def imported(path: Path, top_level_only: bool = False) -> Iterator[tuple[int, str]]:
    """``(line, module)`` of each import of ours in ``path``."""
    tree = ast.parse(path.read_text("utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module in OURS:  # from firmware_bridge import x: x is a module
                names = [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name.split(".")[0] in OURS:
                yield node.lineno, name


def allowed(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_package_imports_only_what_it_may(package: str) -> None:
    found = [
        f"{path.relative_to(REPO)}:{line} imports {name}"
        for path in modules(package)
        for line, name in imported(path)
        if not allowed(name, ALLOWED[package])
    ]
    assert found == []


def test_the_bridge_package_itself_imports_nothing() -> None:
    assert list(imported(REPO / "firmware_bridge" / "__init__.py")) == []


def test_the_cli_loads_the_display_only_inside_the_commands_that_show_it() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line} imports {name} at module level"
        for path in modules("firmware_bridge.cli")
        for line, name in imported(path, top_level_only=True)
        if allowed(name, ("display",))
    ]
    assert found == []


def test_the_firmware_imports_nothing_of_the_host() -> None:
    """Its modules import each other (named as a package for mypy) and nothing else."""
    found = [
        f"{path.relative_to(REPO)}:{line} imports {name}"
        for path in modules("firmware_bridge.mcu")
        for line, name in imported(path)
        if not allowed(name, ("firmware_bridge.mcu",))
    ]
    assert found == []
