"""Layers point one way (config <- annotation <- scoring <- frontend), and apps form a DAG.

Every import statement of every module (top-level or inside a function, absolute or relative)
is read from the source. A module may import its own layer, any lower layer and the pure core
``scoring.metrics``; the core itself imports nothing of the platform but itself. URL confs and
settings name apps by string (``include("annotation.corpus.urls")``): those are not imports.

Inside a layer, the apps (``annotation.corpus``, ``scoring.scores``, ...) import each other
without a cycle, and an import written inside a function never crosses apps (it would hide an
edge of the graph from a reader) unless :data:`FUNCTION_IMPORTS_ALLOWED` says why it must.
``python tests/test_layers.py`` prints the app graph that docs/architecture.md draws.
"""

from __future__ import annotations

import ast
import re
import shutil
import sys
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("config", "annotation", "scoring", "frontend")  # lowest first
CORE = "scoring.metrics"
APP_LAYERS = ("annotation", "scoring")  # layers made of apps; config and frontend are one each
DOCS = ROOT / "docs" / "architecture.md"

# Imports written inside a function that cross apps, by (file, imported app): why each must be.
FUNCTION_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {}
# Edges between apps of one layer left out of the cycle check, by (importer, imported): why.
CYCLE_EDGES_ALLOWED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Violation:
    """One import against the layer order."""

    file: str
    line: int
    module: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: imports {self.module}: {self.reason}"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@dataclass(frozen=True)
class ImportRef:
    """One imported name: where, what, and the function it is written in (None: module level)."""

    file: str
    line: int
    module: str
    function: str | None


class _ImportVisitor(ast.NodeVisitor):
    def __init__(self, package: str, file: str):
        self.package, self.file = package, file
        self.functions: list[str] = []
        self.found: list[ImportRef] = []

    def _function(self, node) -> None:
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _add(self, node, module: str) -> None:
        function = ".".join(self.functions) if self.functions else None
        self.found.append(ImportRef(self.file, node.lineno, module, function))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        # ``from pkg import sub`` may import a submodule: name it fully.
        for alias in node.names:
            self._add(node, f"{target}.{alias.name}" if alias.name != "*" else target)


def import_refs(path: Path, root: Path) -> list[ImportRef]:
    """Every import in ``path``, absolute, with the function it is written in.

    Args:
        path: a Python file under ``root``.
        root: the project root (module names are relative to it).

    Returns:
        One :class:`ImportRef` per imported name, in source order.
    """
    module = _module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return list(_parsed_refs(package, str(path.relative_to(root)), path.read_text("utf-8")))


@cache
def _parsed_refs(package: str, relative: str, text: str) -> tuple[ImportRef, ...]:
    """The imports of one file's text, parsed once per process: every test here reads the
    whole project, and the planted-cycle tests a copy of it, which differs in one file."""
    visitor = _ImportVisitor(package, relative)
    visitor.visit(ast.parse(text, filename=relative))
    return tuple(visitor.found)


def _imports(path: Path, root: Path):
    """Yield ``(line, absolute module name)`` for each import in ``path``."""
    for ref in import_refs(path, root):
        yield ref.line, ref.module


def _layer(module: str) -> str | None:
    if module == CORE or module.startswith(CORE + "."):
        return CORE
    top = module.split(".")[0]
    return top if top in LAYERS else None


def layer_violations(root: Path = ROOT) -> list[Violation]:
    """Every import under ``root``'s layers that points up, or out of the core.

    Args:
        root: the project root holding ``config/``, ``annotation/``, ``scoring/``, ``frontend/``.

    Returns:
        The violations, each naming the file, the line and the imported module.
    """
    found = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            own = _layer(_module_name(path, root))
            for line, module in _imports(path, root):
                target = _layer(module)
                if target is None or target == CORE:
                    continue
                relative = str(path.relative_to(root))
                if own == CORE:
                    reason = f"the core {CORE} imports nothing of the platform but itself"
                elif LAYERS.index(target) > LAYERS.index(own):
                    reason = (
                        f"layer {target} is above {own} (order: {' <- '.join(LAYERS)}); "
                        "announce an event that the higher layer subscribes to instead"
                    )
                else:
                    continue
                found.append(Violation(relative, line, module, reason))
    return found


def app_of(module: str) -> str | None:
    """The app a module belongs to, or None outside the layers.

    Args:
        module: a dotted module name.

    Returns:
        ``annotation.corpus`` or ``scoring.metrics`` for modules of a layer made of apps;
        ``config`` or ``frontend`` for those layers (one app each).
    """
    parts = module.split(".")
    if parts[0] not in LAYERS:
        return None
    return ".".join(parts[:2]) if parts[0] in APP_LAYERS and len(parts) > 1 else parts[0]


@dataclass(frozen=True)
class AppImport:
    """One import from a module of one app of a layer into another app."""

    source: str
    target: str
    ref: ImportRef

    def __str__(self) -> str:
        where = f" (inside {self.ref.function}())" if self.ref.function else ""
        return f"{self.ref.file}:{self.ref.line}: imports {self.ref.module}{where}"


def app_imports(root: Path = ROOT) -> list[AppImport]:
    """Every import under ``root``'s layers from one app into another (any layer).

    Args:
        root: the project root.

    Returns:
        The imports, by file and line.
    """
    found = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            source = app_of(_module_name(path, root))
            for ref in import_refs(path, root):
                target = app_of(ref.module)
                if target is not None and target != source:
                    found.append(AppImport(source, target, ref))
    return found


def app_graph(imports: list[AppImport], ignored=CYCLE_EDGES_ALLOWED) -> dict[str, dict[str, list]]:
    """The graph of the apps of each layer: importer -> imported -> the imports that make the edge.

    Args:
        imports: from :func:`app_imports`.
        ignored: ``(importer, imported)`` edges to leave out.

    Returns:
        Only edges inside one layer; an app that imports no app of its layer maps to ``{}``.
    """
    graph: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for item in imports:
        graph[item.source]  # every app is a node
        if item.source.split(".")[0] != item.target.split(".")[0]:
            continue
        graph[item.target]
        if (item.source, item.target) not in ignored:
            graph[item.source][item.target].append(item)
    return graph


def app_cycles(graph: dict[str, dict[str, list]]) -> list[list[str]]:
    """A shortest cycle through each app of each strongly connected group (Tarjan, then BFS).

    Args:
        graph: from :func:`app_graph`.

    Returns:
        Each cycle as its apps in order, the first repeated at the end; empty for a DAG.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    cycles = []
    for group in groups:
        for start in sorted(group):
            paths = {nxt: [start, nxt] for nxt in sorted(graph[start]) if nxt in group}
            while start not in paths:
                paths = {
                    nxt: path + [nxt]
                    for node, path in paths.items()
                    for nxt in sorted(graph[node])
                    if nxt in group and nxt not in path[1:]
                }
            cycle = paths[start][:-1]
            first = cycle.index(min(cycle))
            cycle = cycle[first:] + cycle[:first]
            if cycle + [cycle[0]] not in cycles:
                cycles.append(cycle + [cycle[0]])
    return sorted(cycles)


def describe_cycle(graph: dict[str, dict[str, list]], cycle: list[str]) -> str:
    """A cycle with the first import that makes each of its edges.

    Args:
        graph: from :func:`app_graph`.
        cycle: from :func:`app_cycles`.

    Returns:
        ``a -> b -> a`` then one line per edge.
    """
    lines = [" -> ".join(cycle)]
    for source, target in zip(cycle, cycle[1:], strict=False):
        lines.append(f"    {source} -> {target}: {graph[source][target][0]}")
    return "\n".join(lines)


def function_imports_across_apps(
    imports: list[AppImport], allowed=FUNCTION_IMPORTS_ALLOWED
) -> list[AppImport]:
    """Imports written inside a function that cross apps and are not in ``allowed``.

    Args:
        imports: from :func:`app_imports`.
        allowed: ``(file, imported app)`` -> why the import must be written in a function.

    Returns:
        The offending imports.
    """
    return [
        item
        for item in imports
        if item.ref.function is not None and (item.ref.file, item.target) not in allowed
    ]


def app_levels(graph: dict[str, dict[str, list]]) -> dict[str, int]:
    """Each app's place in its layer: 0 imports no app of the layer, else 1 + the highest below.

    Args:
        graph: an acyclic graph from :func:`app_graph`.

    Returns:
        Level by app.
    """
    levels: dict[str, int] = {}

    def level(node: str) -> int:
        if node not in levels:
            levels[node] = 1 + max((level(n) for n in graph[node]), default=-1)
        return levels[node]

    for node in graph:
        level(node)
    return levels


def app_graph_text(root: Path = ROOT) -> str:
    """The app graph of each layer made of apps, as docs/architecture.md draws it.

    Args:
        root: the project root.

    Returns:
        Per layer, its apps from the lowest place up, each with the apps of its layer it imports.
    """
    graph = app_graph(app_imports(root))
    levels = app_levels(graph)
    out = []
    for layer in APP_LAYERS:
        apps = sorted((a for a in graph if a.startswith(layer + ".")), key=lambda a: (levels[a], a))
        out.append(f"{layer} (place: lowest first; an app imports only apps of lower places)")
        for app in apps:
            imported = ", ".join(t.split(".", 1)[1] for t in sorted(graph[app])) or "-"
            out.append(f"  {levels[app]}  {app.split('.', 1)[1]:<13} -> {imported}")
    return "\n".join(out)


def test_every_import_follows_the_layer_order():
    violations = layer_violations()
    assert not violations, "imports against the layer order:\n" + "\n".join(map(str, violations))


def test_annotation_imports_nothing_of_scoring_but_the_core():
    modules = {
        module
        for path in (ROOT / "annotation").rglob("*.py")
        for _, module in _imports(path, ROOT)
        if module.startswith("scoring")
    }
    assert modules, "annotation uses the core (fam validation, alignment)"
    assert all(m.startswith(CORE + ".") or m == CORE for m in modules), sorted(modules)


def _plant(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_planted_upward_import_is_named_with_its_file_and_line(tmp_path):
    for layer in LAYERS:
        _plant(tmp_path, f"{layer}/__init__.py", '"""x."""\n')
    _plant(tmp_path, "annotation/corpus/__init__.py", '"""x."""\n')
    _plant(
        tmp_path,
        "annotation/corpus/services.py",
        '"""x."""\n\nfrom scoring.metrics.fam import validate_fam\n\n\n'
        "def f():\n    from scoring.scores.models import DocumentScore\n",
    )
    _plant(tmp_path, "config/exceptions.py", '"""x."""\nfrom annotation.imports import bundle\n')
    _plant(tmp_path, "scoring/metrics/far.py", '"""x."""\nfrom ..systems import models\n')
    _plant(tmp_path, "scoring/views.py", '"""x."""\nfrom frontend.views import home\n')
    _plant(tmp_path, "frontend/views.py", '"""x."""\nfrom scoring.uploads import models\n')
    found = {str(v).split(": imports ")[0]: v.module for v in layer_violations(tmp_path)}
    assert found == {
        "annotation/corpus/services.py:7": "scoring.scores.models.DocumentScore",
        "config/exceptions.py:2": "annotation.imports.bundle",
        "scoring/metrics/far.py:2": "scoring.systems.models",
        "scoring/views.py:2": "frontend.views.home",
    }


def test_relative_imports_resolve_to_their_package(tmp_path):
    _plant(tmp_path, "scoring/judgments/services.py", '"""x."""\nfrom ..systems.models import S\n')
    assert [m for _, m in _imports(tmp_path / "scoring/judgments/services.py", tmp_path)] == [
        "scoring.systems.models.S"
    ]


def test_the_apps_of_each_layer_form_a_dag():
    graph = app_graph(app_imports())
    cycles = app_cycles(graph)
    assert not cycles, (
        "cycles between apps of one layer (invert one edge: a hook or a signal that the higher "
        "app registers in its ready()):\n"
        + "\n".join(describe_cycle(graph, cycle) for cycle in cycles)
    )


def test_no_import_inside_a_function_crosses_apps():
    found = function_imports_across_apps(app_imports())
    assert not found, (
        "imports written inside a function that cross apps (write them at the top, or add "
        "(file, app) to FUNCTION_IMPORTS_ALLOWED with the reason):\n" + "\n".join(map(str, found))
    )


def test_every_allowed_exception_is_used_and_says_why():
    imports = app_imports()
    inside = {(i.ref.file, i.target) for i in imports if i.ref.function is not None}
    edges = {(i.source, i.target) for i in imports}
    for allowed, used in ((FUNCTION_IMPORTS_ALLOWED, inside), (CYCLE_EDGES_ALLOWED, edges)):
        for key, reason in allowed.items():
            assert key in used, f"{key} is allowed but no longer happens: remove it"
            assert reason.strip() and "\n" not in reason, f"{key} needs a one-line reason"


def test_the_app_graph_in_the_architecture_page_is_the_real_one():
    drawn = re.search(r"<!-- app-graph -->\n```text\n(.*?)\n```", DOCS.read_text(), re.S)
    assert drawn, f"{DOCS} has no block after <!-- app-graph -->"
    assert drawn.group(1) == app_graph_text(), (
        "the app graph changed: paste `python tests/test_layers.py` into docs/architecture.md"
    )


def _copy_layers(root: Path) -> None:
    """A copy of the project's Python sources (the layers only) under ``root``."""
    for layer in LAYERS:
        shutil.copytree(
            ROOT / layer,
            root / layer,
            ignore=shutil.ignore_patterns("*.pyc", "static", "templates"),
        )


def test_a_cycle_planted_in_a_copy_of_the_project_is_found(tmp_path):
    _copy_layers(tmp_path)
    assert app_cycles(app_graph(app_imports(tmp_path))) == []
    # corpus is below campaigns: make it import campaigns, at the top and inside a function.
    services = tmp_path / "annotation/corpus/services.py"
    services.write_text(
        services.read_text(encoding="utf-8")
        + "\n\nfrom annotation.campaigns.models import Campaign  # noqa\n"
        + "\n\ndef _planted():\n    from ..campaigns import services\n",
        encoding="utf-8",
    )
    imports = app_imports(tmp_path)
    graph = app_graph(imports)
    cycles = app_cycles(graph)
    assert ["annotation.campaigns", "annotation.corpus", "annotation.campaigns"] in cycles
    text = describe_cycle(graph, cycles[0])
    assert "annotation/corpus/services.py:" in text and "annotation.campaigns." in text
    found = function_imports_across_apps(imports)
    assert [str(f) for f in found] == [
        f"annotation/corpus/services.py:{len(services.read_text().splitlines())}: "
        "imports annotation.campaigns.services (inside _planted())"
    ]


def test_planted_cycles_are_each_named_with_the_imports_that_make_them(tmp_path):
    for layer in LAYERS:
        _plant(tmp_path, f"{layer}/__init__.py", '"""x."""\n')
    # Two apps of annotation import each other; three of scoring go round, one edge relative
    # and inside a function; a fourth app of scoring imports them all and is in no cycle.
    _plant(tmp_path, "annotation/alpha/models.py", '"""x."""\nfrom annotation.beta import models\n')
    _plant(tmp_path, "annotation/beta/models.py", '"""x."""\nimport annotation.alpha.models\n')
    _plant(tmp_path, "scoring/one/a.py", '"""x."""\nfrom scoring.two.b import f\n')
    _plant(tmp_path, "scoring/two/b.py", '"""x."""\nfrom scoring.three import c\n')
    _plant(tmp_path, "scoring/three/c.py", '"""x."""\n\n\ndef g():\n    from ..one import a\n')
    _plant(tmp_path, "scoring/top/d.py", '"""x."""\nfrom scoring import one, three, two\n')
    imports = app_imports(tmp_path)
    graph = app_graph(imports, ignored={})
    assert app_cycles(graph) == [
        ["annotation.alpha", "annotation.beta", "annotation.alpha"],
        ["scoring.one", "scoring.two", "scoring.three", "scoring.one"],
    ]
    assert describe_cycle(graph, app_cycles(graph)[1]).splitlines()[1:] == [
        "    scoring.one -> scoring.two: scoring/one/a.py:2: imports scoring.two.b.f",
        "    scoring.two -> scoring.three: scoring/two/b.py:2: imports scoring.three.c",
        "    scoring.three -> scoring.one: scoring/three/c.py:5: "
        "imports scoring.one.a (inside g())",
    ]
    assert [str(f) for f in function_imports_across_apps(imports, allowed={})] == [
        "scoring/three/c.py:5: imports scoring.one.a (inside g())"
    ]
    allowed = {("scoring/three/c.py", "scoring.one"): "a reason"}
    assert function_imports_across_apps(imports, allowed=allowed) == []
    # An allowed edge leaves its cycle out.
    graph = app_graph(imports, ignored={("scoring.three", "scoring.one"): "a reason"})
    assert app_cycles(graph) == [["annotation.alpha", "annotation.beta", "annotation.alpha"]]


if __name__ == "__main__":
    sys.stdout.write(app_graph_text() + "\n")
