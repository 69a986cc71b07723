"""The import rules of docs/architecture.md, read from the source: each package
imports only what its row allows, and the CLI loads the display lazily."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import code_metrics
from tests.paths import REPO

OURS = (
    "engine",
    "drivers",
    "mqtt_contract",
    "mqtt_client",
    "credentials",
    "firmware_bridge",
    "display",
    "leaderboard",
)

ALLOWED: dict[str, tuple[str, ...]] = {
    # package (a folder or a module, as a dotted name): what it may import of ours
    "engine": ("engine",),
    # drivers take the one Backoff for their reconnects: a pure module
    "drivers": ("engine", "drivers", "mqtt_client.backoff"),
    "mqtt_contract": ("engine", "mqtt_contract"),
    "mqtt_client": ("mqtt_client", "mqtt_contract"),
    "credentials": ("credentials",),
    "firmware_bridge.daemon": (
        "engine",
        "drivers",
        "firmware_bridge.daemon",
        "mqtt_contract",
        "mqtt_client",
        "credentials",
    ),
    "display": ("engine", "display", "mqtt_contract", "mqtt_client", "credentials"),
    "leaderboard": ("engine", "leaderboard", "mqtt_contract", "mqtt_client", "credentials"),
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


def test_the_backoff_the_drivers_take_is_pure() -> None:
    """``mqtt_client.backoff`` (and the package's ``__init__``, which importing
    it runs) load no MQTT library: a driver's backoff costs nothing more."""
    found: list[str] = []
    for path in (REPO / "mqtt_client" / "backoff.py", REPO / "mqtt_client" / "__init__.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                found += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.append(node.module)
    assert set(found) <= {"__future__", "random", "collections.abc", "mqtt_client.backoff"}


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


# The house rules of docs/architecture.md that the source alone can show
# (tests/code_metrics.py measures them; `python -m tests.code_metrics -v` lists
# every place).


def test_no_object_reaches_into_another_objects_private_members() -> None:
    assert [str(f) for f in code_metrics.private_reaches()] == []


def test_no_class_of_the_bridge_is_over_400_lines() -> None:
    assert [str(f) for f in code_metrics.long_classes(400, "firmware_bridge")] == []


def test_no_module_is_over_900_lines() -> None:
    assert [str(f) for f in code_metrics.long_modules(900)] == []


def test_no_modules_import_each_other_around_a_loop() -> None:
    assert code_metrics.import_cycles() == []


DAEMON = REPO / "firmware_bridge" / "daemon"
EXTENSION_PACKAGES = ("remote_host", "remote_guest")
"""The extensions too big for one file: a package each, beside the core."""
EXTENSIONS = [
    *sorted((DAEMON / "extensions").glob("[!_]*.py")),
    *(path for package in EXTENSION_PACKAGES for path in sorted((DAEMON / package).glob("*.py"))),
]
CORE = tuple(
    f"firmware_bridge.daemon.{name}"
    for name in ("board_daemon", "board_game", "board_input", "game_commands", "publisher")
)
MAY_USE = {"operator_commands": ("coin_op",)}
"""Extensions given another extension (the operator's commands run on the coin-op's)."""


def extension_of(path: Path) -> str:
    """The extension a module is (of): ``firmware_bridge.daemon.extensions.coin_op``,
    ``firmware_bridge.daemon.remote_host``."""
    if path.parent.name == "extensions":
        return f"firmware_bridge.daemon.extensions.{path.stem}"
    return f"firmware_bridge.daemon.{path.parent.name}"


@pytest.mark.parametrize(
    "path", EXTENSIONS, ids=lambda path: str(path.relative_to(DAEMON).with_suffix(""))
)
def test_a_daemon_extension_sees_the_core_only_through_its_context(path: Path) -> None:
    own = extension_of(path)
    given = MAY_USE.get(own.rpartition(".")[2], ())
    others = {
        extension_of(other)
        for other in EXTENSIONS
        if extension_of(other).rpartition(".")[2] not in given
    } - {own}
    found = [
        f"{path.relative_to(REPO)}:{line} imports {name}"
        for line, name in imported(path)
        if allowed(name, CORE) or allowed(name, tuple(others))
    ]
    assert found == []


def test_no_top_level_packages_import_each_other_around_a_loop() -> None:
    assert code_metrics.package_cycles() == []


def test_only_the_engine_and_the_game_views_name_a_game() -> None:
    """A game id is named in ``engine/``, ``display/scenes/`` and
    ``leaderboard/web/board_views/`` only: everything else reads traits."""
    assert [str(f) for f in code_metrics.game_id_literals()] == []


def test_the_display_reads_the_state_through_typed_views() -> None:
    reads = code_metrics.state_key_reads()
    assert len(reads) <= 250, "\n".join(str(f) for f in reads)


def test_the_metrics_see_what_they_count() -> None:
    """Each measure finds the faults the tests' own code has on purpose, so a
    zero above is a real zero."""
    assert code_metrics.private_reaches("tests")
    assert code_metrics.long_modules(900, "tests")
