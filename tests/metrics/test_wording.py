"""counted(): singular for exactly one, the given or regular plural otherwise."""

from scoring.metrics.wording import counted


def test_one_is_singular_and_every_other_count_plural():
    assert counted(1, "row") == "1 row"
    assert [counted(n, "row") for n in (0, 2, 11)] == ["0 rows", "2 rows", "11 rows"]
    assert counted(1, "summary", "summaries") == "1 summary"
    assert counted(3, "summary", "summaries") == "3 summaries"
    assert counted(2, "missing worker row") == "2 missing worker rows"
