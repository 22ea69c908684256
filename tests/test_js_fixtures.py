"""The span schemes the front end's unit tests (tests/js/) read are the core's, as served.

``tests/js/fixtures/span-schemes.json`` holds what the task API gives a span workspace: each
registered scheme's ``describe()`` (types, labels, the severity matrix, sides) and the severity
weights. The JS tests check ``severityOf`` and the help's matrix against it, so this test fails
as soon as the file and the core differ. Rewrite the file with
``.venv/bin/python -m tests.test_js_fixtures``.
"""

import json
from pathlib import Path

from scoring.metrics.polytope import WEIGHTS
from scoring.metrics.spans import SCHEMES

FIXTURE = Path(__file__).resolve().parent / "js" / "fixtures" / "span-schemes.json"


def served_schemes() -> dict:
    """What the span workspace is served, for every registered scheme.

    Returns:
        ``{"schemes": {name: scheme.describe()}, "weights": {severity: weight}}``, the shape
        of ``annotation.campaigns.selectors``' ``scheme`` and ``weights`` keys.
    """
    return {
        "schemes": {name: scheme.describe() for name, scheme in SCHEMES.items()},
        "weights": {severity.value: weight for severity, weight in WEIGHTS.items()},
    }


def test_the_js_fixture_is_what_the_core_serves():
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert fixture == served_schemes(), (
        f"{FIXTURE.name} differs from the core: rewrite it with "
        "`.venv/bin/python -m tests.test_js_fixtures` and rerun the JS tests"
    )


if __name__ == "__main__":
    FIXTURE.write_text(
        json.dumps(served_schemes(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"wrote {FIXTURE}")
