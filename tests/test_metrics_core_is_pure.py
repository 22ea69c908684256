"""The metrics core must not import Django, DRF or Celery: checked statically and at run time."""

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METRICS = ROOT / "scoring" / "metrics"
FORBIDDEN = ("django", "rest_framework", "celery", "drf_spectacular", "kombu")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_module_in_the_core_imports_django_drf_or_celery():
    files = sorted(METRICS.rglob("*.py"))
    assert files, "scoring/metrics has no Python files"
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _imported_modules(path) if name.split(".")[0] in FORBIDDEN
        )
        for path in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_every_core_module_loads_no_django():
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in METRICS.rglob("*.py")
        if p.stem != "__main__"
    )
    assert "scoring.metrics.rouge.engine" in modules  # the subpackages are imported too
    code = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


def test_the_static_check_catches_a_django_import(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text('"""x."""\nfrom django.db import models\nimport celery.app\n')
    assert {"django.db", "celery.app"} <= _imported_modules(sample)
