"""The workbook pipeline (reader, parser, matcher, writer, JSONL) loads and runs without Django."""

import json
import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = """
import json, sys
from annotation.spans.workbook import (
    Candidate, ExportSegment, parse_error_log, place_segments, read_error_log, workbook_bytes,
)
error = {"side": "none", "start": None, "end": None, "words": "x", "type": "Addition",
         "label": "Subject", "severity": "Critical", "reason": ""}
segment = ExportSegment(
    "d-s", "d", "s", 1, None, ("Source one.",), ("A summary.",), (error,), False
)
body, _ = workbook_bytes([segment])
parsed = parse_error_log(read_error_log(body), system="s")
placed = place_segments(parsed, [Candidate(1, "d", None, 1, "A summary.", "Source one.")])
forbidden = ("django", "rest_framework", "celery", "drf_spectacular", "kombu")
print(json.dumps({
    "errors": [list(item.errors) for item in placed.placed],
    "loaded": sorted(name for name in sys.modules if name.split(".")[0] in forbidden),
}))
"""


def test_the_workbook_package_runs_without_django():
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}  # no DJANGO_SETTINGS_MODULE
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["loaded"] == []
    assert out["errors"] == [
        [
            {
                "side": "none",
                "start": None,
                "end": None,
                "words": "x",
                "type": "Addition",
                "label": "Subject",
                "severity": "Critical",
                "reason": "",
            }
        ]
    ]
