"""Layers and cycles: no module imports a higher layer, and nothing imports itself in a loop.

The layer order is written once, in ``docs/architecture.md``: each ``### N. name (`path`, ...)``
heading is a layer, lowest first, with the packages (``acworld_env/x/``) and modules
(``acworld_env/x.py``) it holds. Imports are read with ``ast`` from every module of the package,
wherever they appear (top level, inside functions, under ``TYPE_CHECKING``). An
``"acworld_env.x.y:attr"`` entry-point string must not point up either, but it makes no import
cycle: it is resolved at run time, which is how a name table names what registers into it.
Importing ``a.b.c`` is an edge to ``a.b.c`` only (not to the packages ``a`` and ``a.b`` it
initialises on the way), issue 13 §2.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "acworld_env"
DOC = ROOT / "docs" / "architecture.md"

ALLOWED_UPWARD: dict[tuple[str, str], str] = {}
"""(importing module, imported module) -> why this upward import is tolerated for now (name the issue)."""

_HEADING = re.compile(r"^### (\d+)\. (\w+) \((.+)\)\s*$")
_ENTRY_POINT = re.compile(r"^(acworld_env(?:\.\w+)+):\w+$")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _layers() -> list[tuple[str, list[str]]]:
    """``[(layer name, [module or package names])]`` from the doc's headings, lowest first."""
    layers = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = _HEADING.match(line)
        if m is None:
            continue
        assert int(m[1]) == len(layers) + 1, f"layer headings are numbered 1, 2, ... in order: {line!r}"
        paths = re.findall(r"`([^`]+)`", m[3])
        assert paths, f"a layer heading names its paths in backticks: {line!r}"
        layers.append((m[2], [p.rstrip("/").removesuffix(".py").replace("/", ".") for p in paths]))
    return layers


LAYERS = _layers()


def _layer_of(module: str) -> int | None:
    """Index of the layer holding ``module``: an exact module first, else the longest package prefix."""
    best, best_len = None, -1
    for i, (_, names) in enumerate(LAYERS):
        for name in names:
            if name.endswith(".__init__"):
                if module == name.removesuffix(".__init__"):
                    return i
            elif module == name:
                return i
            elif module.startswith(name + ".") and len(name) > best_len:
                best, best_len = i, len(name)
    return best


def _resolve(module: str, path: Path, level: int, target: str | None) -> str:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    if level:
        base = package.split(".")
        base = base[: len(base) - (level - 1)]
        return ".".join(base + ([target] if target else []))
    return target or ""


def _existing(name: str) -> str | None:
    """``name`` or its longest prefix that is a module of the package."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> list[tuple[str, int, bool]]:
    """``[(imported module, line, is an entry-point string)]`` for every import of ours in ``module``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno, False) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in MODULES else base, node.lineno, False))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            m = _ENTRY_POINT.match(node.value)
            if m:
                found.append((m[1], node.lineno, True))
    out = []
    for name, line, entry_point in found:
        if name == "acworld_env" or name.startswith("acworld_env."):
            target = _existing(name)
            if target is not None and target != module:
                out.append((target, line, entry_point))
    return out


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _unit(module: str) -> str:
    """The top-level package or module of ``module`` (``acworld_env.scoring``, ``acworld_env.market``)."""
    return ".".join(module.split(".")[:2])


def test_the_doc_names_layers_and_paths_that_exist():
    assert [name for name, _ in LAYERS][:2] == ["core", "protocol"] and LAYERS[-1][0] == "apps", LAYERS
    for _, names in LAYERS:
        for name in names:
            path = ROOT / name.replace(".", "/")
            assert path.is_dir() or path.with_suffix(".py").is_file(), (
                f"docs/architecture.md names {name!r}, which is not a module or package")


def test_every_module_belongs_to_a_layer():
    homeless = sorted(m for m in MODULES if _layer_of(m) is None)
    assert not homeless, f"add these to a layer heading in docs/architecture.md: {homeless}"


def test_no_module_imports_a_higher_layer():
    upward = []
    for module, imports in GRAPH.items():
        mine = _layer_of(module)
        for target, line, _ in imports:
            theirs = _layer_of(target)
            if mine is None or theirs is None or theirs <= mine or (module, target) in ALLOWED_UPWARD:
                continue
            upward.append(f"{MODULES[module].relative_to(ROOT)}:{line}: {module} ({LAYERS[mine][0]}) imports "
                          f"{target} ({LAYERS[theirs][0]})")
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_allowed_upward_imports_still_exist():
    stale = [pair for pair in ALLOWED_UPWARD if pair[1] not in {t for t, _, _ in GRAPH.get(pair[0], [])}]
    assert not stale, f"remove these from ALLOWED_UPWARD, the import is gone: {stale}"


def test_no_cycle_between_packages():
    edges: dict[str, set[str]] = defaultdict(set)
    for module, imports in GRAPH.items():
        for target, _, entry_point in imports:
            if _unit(target) != _unit(module) and not entry_point:
                edges[_unit(module)].add(_unit(target))
    assert not _cycles(edges), f"packages that import each other: {_cycles(edges)}"


def test_no_cycle_between_modules():
    edges = {module: {t for t, _, entry_point in imports if not entry_point} for module, imports in GRAPH.items()}
    assert not _cycles(edges), f"modules that import each other: {_cycles(edges)}"


def test_the_checks_see_imports():  # guards the parsing above against finding nothing
    assert any(t == "acworld_env.market" for t, _, _ in GRAPH["acworld_env.episode"])
    assert any(t == "acworld_env.policies.make" for t, _, _ in GRAPH["acworld_env.episode"])  # inside a function
    assert ("acworld_env.envs.aec", True) in {(t, e) for t, _, e in GRAPH["acworld_env.env_registry"]}  # entry point
    assert _layer_of("acworld_env.core.errors") == 0 and _layer_of("acworld_env") == len(LAYERS) - 1
