"""The import kernel's records and the release parsers load without Django (benchmarks use them)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("django", "rest_framework", "celery", "drf_spectacular", "kombu")
PURE = (
    "annotation.imports.bundle",
    "annotation.imports.splitting",
    "annotation.corpus.importers.far_split",
    "annotation.corpus.importers.parsers.far",
    "annotation.corpus.importers.parsers.polytope",
    "annotation.corpus.importers.parsers.loupe_release",
    "annotation.corpus.importers.parsers.realsumm",
)


def test_the_bundle_records_and_release_parsers_load_no_django():
    code = (
        "import importlib, json, sys\n"
        f"for m in {PURE!r}: importlib.import_module(m)\n"
        f"print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})))"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}  # no DJANGO_SETTINGS_MODULE
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
