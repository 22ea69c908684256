"""The lists that order the suite's modules name modules that exist (a rename would drop one)."""

from __future__ import annotations

from tests.conftest import MODEL_MODULES, ROOT
from tests.e2e.conftest import LONGEST_FIRST


def test_the_model_modules_exist():
    assert [m for m in MODEL_MODULES if not (ROOT / m).is_file()] == []


def test_the_longest_browser_modules_exist_once_each():
    assert [m for m in LONGEST_FIRST if not (ROOT / "tests" / "e2e" / m).is_file()] == []
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
