"""Production code needs only what `make run` installs: it never imports or names a package of
the dev extra (the tests' tools and references), which a production install lacks."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = ("config", "annotation", "scoring", "frontend")


def _distribution(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]


def _dev_only() -> dict[str, set[str]]:
    """Each distribution of the dev extra that no production requirement brings: its
    top-level module names (from its installed metadata)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {_distribution(r).lower() for r in project["dependencies"]}
    dev = {_distribution(r) for r in project["optional-dependencies"]["dev"]}
    modules: dict[str, set[str]] = {name: set() for name in dev if name.lower() not in runtime}
    for module, owners in importlib.metadata.packages_distributions().items():
        for owner in owners:
            for name in modules:
                if owner.lower().replace("_", "-") == name.lower():
                    modules[name].add(module)
    return modules


def _findings(path: Path, dev: dict[str, set[str]]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    banned = {module: name for name, modules in dev.items() for module in modules}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops = [node.module.split(".")[0]]
        else:
            tops = []
        found += [f"{path}:{node.lineno} imports {top}" for top in tops if top in banned]
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in dev:
            found.append(f"{path}:{node.lineno} names {node.value!r}")
    return found


def test_the_dev_extra_is_known_to_this_check():
    dev = _dev_only()
    assert {"rouge-score", "krippendorff", "pytest", "playwright"} <= set(dev)
    assert "rouge_score" in dev["rouge-score"] and "playwright" in dev["playwright"]


def test_production_code_neither_imports_nor_names_a_dev_only_package():
    # scoring/metrics/suggest/rouge.py read rouge-score's version for its cache key: every
    # ROUGE suggestion job of a `make run` install failed with PackageNotFoundError.
    dev = _dev_only()
    files = [p for package in PRODUCTION for p in sorted((ROOT / package).rglob("*.py"))]
    assert len(files) > 200
    findings = [finding for path in files for finding in _findings(path, dev)]
    assert findings == []
