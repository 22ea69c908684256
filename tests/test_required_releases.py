"""CI's rule that a release test may not skip (LOUPE_REQUIRE_SHARED=1) names release skips only."""

from tests.conftest import POLYTOPE_OUTPUTS, is_release_skip
from tests.vendor_marks import postgresql_only


def _reason(mark) -> str:
    return mark.mark.kwargs["reason"]


def test_a_missing_release_or_reader_is_a_release_skip():
    assert is_release_skip(f"{POLYTOPE_OUTPUTS} is absent (the PolyTope release)")
    assert is_release_skip("../shared/data/far-release is absent")
    assert is_release_skip("could not import 'openpyxl': No module named 'openpyxl'")


def test_a_postgresql_only_skip_or_a_parameter_skip_is_not():
    snapshot = postgresql_only(
        "a snapshot shared by connections: PostgreSQL (SQLite writes one at a time)"
    )
    assert not is_release_skip(_reason(snapshot))
    assert not is_release_skip("1 shared documents; a paired test needs at least 2")
