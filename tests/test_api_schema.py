"""The OpenAPI schema builds without warnings and documents every API endpoint."""

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_schema_validates_without_warnings_and_lists_every_endpoint():
    from tests.test_permission_matrix import CASES

    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    paths = set(yaml.safe_load(result.stdout)["paths"])
    for name, case in CASES.items():
        if name.startswith("api:"):
            template = case.url.split("?")[0]
            for key in (
                "{doc}",
                "{free_doc}",
                "{gold}",
                "{campaign}",
                "{task}",
                "{submitted_task}",
                "{complete_task}",
            ):
                template = template.replace(key, "{id}")
            template = template.replace("/demo/", "/{slug}/").replace("/lead-3/", "/{slug}/")
            assert template in paths, (name, template)
