"""What the house rules measure in the product's source (docs/architecture.md):
reaches into other objects' private members, class and module sizes, import
cycles between modules and between top-level packages, game ids named outside
the engine, and the display's string-key reads of the state. Read with ``ast``,
never by importing; ``python -m tests.code_metrics`` prints every figure."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.paths import REPO

__all__ = [
    "GAME_VIEW_FOLDERS",
    "PRODUCT",
    "Finding",
    "game_id_literals",
    "import_cycles",
    "long_classes",
    "long_modules",
    "package_cycles",
    "private_reaches",
    "product_modules",
    "state_key_reads",
]

PRODUCT = (
    "engine",
    "drivers",
    "mqtt_contract",
    "mqtt_client",
    "credentials",
    "firmware_bridge",
    "display",
    "leaderboard",
)
"""The top-level packages of the product (tests and benchmarks aside)."""

GAME_VIEW_FOLDERS = (
    REPO / "display" / "scenes",
    REPO / "leaderboard" / "web" / "board_views",
)
"""The clients' one view per game (the pygame scenes and the web's views),
the only places outside ``engine/`` that may name a game id."""


@dataclass(frozen=True)
class Finding:
    """One place in the source: ``path:line what``."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.what}"


def product_modules(*packages: str) -> Iterator[Path]:
    """Every ``.py`` file of ``packages`` (all of :data:`PRODUCT` by default)."""
    for package in packages or PRODUCT:
        folder = REPO / package
        if folder.is_dir():
            yield from sorted(folder.rglob("*.py"))


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text("utf-8"), filename=str(path))


def private_reaches(*packages: str) -> list[Finding]:
    """``x._name`` where ``x`` is not ``self``, ``cls`` or ``super()``: a reach into
    another object's (or module's) private member. Dunders are public."""
    found: list[Finding] = []
    for path in product_modules(*packages):
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.Attribute):
                continue
            name = node.attr
            if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if (
                isinstance(owner, ast.Call)
                and isinstance(owner.func, ast.Name)
                and owner.func.id == "super"
            ):
                continue
            found.append(Finding(_rel(path), node.lineno, f"reaches {ast.unparse(node)}"))
    return found


def long_classes(limit: int, *packages: str) -> list[Finding]:
    """Classes of more than ``limit`` lines."""
    found: list[Finding] = []
    for path in product_modules(*packages):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found.append(Finding(_rel(path), node.lineno, f"{node.name}: {length} lines"))
    return found


def long_modules(limit: int, *packages: str) -> list[Finding]:
    """Modules of more than ``limit`` lines, the leaderboard's migrations aside."""
    found: list[Finding] = []
    for path in product_modules(*packages):
        if "migrations" in path.parts:
            continue
        length = len(path.read_text("utf-8").splitlines())
        if length > limit:
            found.append(Finding(_rel(path), 1, f"{length} lines"))
    return found


def _imports(path: Path, known: set[str]) -> Iterator[tuple[int, str]]:
    """Every module of ours that ``path`` imports, anywhere in it (inside
    functions and ``TYPE_CHECKING`` blocks too), as known dotted names."""
    package = _dotted(path) if path.name == "__init__.py" else _dotted(path).rpartition(".")[0]
    for node in ast.walk(_tree(path)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                yield node.lineno, name


def _graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    paths = list(product_modules(*packages))
    known = {_dotted(path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        me = _dotted(path)
        graph[me] = {name for _, name in _imports(path, known) if name != me}
        # importing a.b.c runs a/__init__ and a/b/__init__ first: not an edge we count
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def import_cycles(*packages: str) -> list[list[str]]:
    """Groups of modules that import each other, directly or around a loop;
    a package's ``__init__`` importing its own modules is not a loop with them."""
    graph = _graph(packages or PRODUCT)
    for module, targets in graph.items():
        # a package's __init__ re-exporting its modules is how a package is made
        targets -= {t for t in targets if t.startswith(module + ".")}
    return _cycles(graph)


def package_cycles() -> list[list[str]]:
    """Groups of top-level packages that import each other (through any module)."""
    graph = _graph(PRODUCT)
    top: dict[str, set[str]] = {}
    for module, targets in graph.items():
        mine = module.split(".")[0]
        top.setdefault(mine, set()).update(t.split(".")[0] for t in targets)
    for mine, targets in top.items():
        targets.discard(mine)
    return _cycles(top)


def _game_ids() -> set[str]:
    folder = REPO / "engine" / "games"
    ids: set[str] = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if (
                        isinstance(item, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "id" for t in item.targets)
                        and isinstance(item.value, ast.Constant)
                        and isinstance(item.value.value, str)
                    ):
                        ids.add(item.value.value)
    return ids


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of every docstring's constant (a docstring may name a game)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for index, item in enumerate(body):
                # a module, class or function docstring, or an attribute's docstring
                is_text = isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant)
                after = index == 0 or isinstance(body[index - 1], ast.Assign | ast.AnnAssign)
                if is_text and after:
                    found.add(id(item.value))
    return found


def game_id_literals() -> list[Finding]:
    """String constants equal to a registered game id, outside ``engine/``,
    ``display/scenes/`` and the web's per-game views,
    ``leaderboard/web/board_views/`` (docstrings aside)."""
    ids = _game_ids()
    found: list[Finding] = []
    for path in product_modules(*(p for p in PRODUCT if p != "engine")):
        if any(path.is_relative_to(folder) for folder in GAME_VIEW_FOLDERS):
            continue
        tree = _tree(path)
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in ids
                and id(node) not in docs
            ):
                found.append(Finding(_rel(path), node.lineno, f"names the game {node.value!r}"))
    return found


def state_key_reads() -> list[Finding]:
    """``x["key"]`` and ``x.get("key")`` reads in ``display/``: how the display
    reads a state that is not parsed into typed views."""
    found: list[Finding] = []
    for path in product_modules("display"):
        for node in ast.walk(_tree(path)):
            key: object = None
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.slice, ast.Constant)
            ):
                key = node.slice.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                key = node.args[0].value
            if isinstance(key, str):
                found.append(Finding(_rel(path), node.lineno, f"reads [{key!r}]"))
    return found


def main() -> None:
    """Print every figure, with the places behind it."""
    report = {
        "private reaches": [str(f) for f in private_reaches()],
        "classes over 400 lines in firmware_bridge/": [
            str(f) for f in long_classes(400, "firmware_bridge")
        ],
        "modules over 900 lines": [str(f) for f in long_modules(900)],
        "module import cycles": [" <-> ".join(c) for c in import_cycles()],
        "top-level package cycles": [" <-> ".join(c) for c in package_cycles()],
        "game-id literals": [str(f) for f in game_id_literals()],
        "display state-key reads": [str(f) for f in state_key_reads()],
    }
    verbose = "-v" in sys.argv
    for title, lines in report.items():
        print(f"{title}: {len(lines)}")
        if verbose:
            for line in lines:
                print(f"    {line}")


if __name__ == "__main__":
    main()
