"""Layers point one way: config <- annotation <- scoring <- frontend, with scoring.metrics for all.

Every import statement of every module (top-level or inside a function, absolute or relative)
is read from the source. A module may import its own layer, any lower layer and the pure core
``scoring.metrics``; the core itself imports nothing of the platform but itself. URL confs and
settings name apps by string (``include("annotation.corpus.urls")``): those are not imports.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("config", "annotation", "scoring", "frontend")  # lowest first
CORE = "scoring.metrics"


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


def _imports(path: Path, root: Path):
    """Yield ``(line, absolute module name)`` for each import in ``path``."""
    module = _module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from pkg import sub`` may import a submodule: name it fully.
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}" if alias.name != "*" else target


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
