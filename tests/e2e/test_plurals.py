"""Counted nouns on the pages at 1280x800 (issue 27): one system with one annotated output and
one PolyTope error reads "1 system", "1 error", "1 annotated output", never "1 systems" or
"1 errors"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login
from tests.e2e.leaderboard_helpers import wait_query

pytestmark = pytest.mark.django_db(transaction=True)
WRONG = re.compile(r"\b1 (systems|errors|outputs|annotated outputs|words)\b")


@pytest.fixture
def one_error_board(demo):
    """Dataset "one": system A's single output, annotated with a single Critical error."""
    from annotation.corpus.models import Dataset, Document, Reference
    from annotation.fams.models import AnnotationSet
    from annotation.spans.services import SpanRecord, span_annotations_replace
    from annotation.systems.models import OutputVersion, System, SystemOutput
    from scoring.scores.services import scoring_pending_run_inline
    from tests.scoring.polytope_helpers import error

    dataset = Dataset.objects.create(slug="one", name="One error")
    document = Document.objects.create(
        dataset=dataset, external_id="d1", sentences=["The senator voted on Monday."], position=0
    )
    Reference.objects.create(document=document, sentences=["The senator voted."])
    system = System.objects.create(slug="a", name="System A", kind="abstractive")
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    output = SystemOutput.objects.create(
        system=system, version=version, document=document, sentences=["Alpha beta gamma."]
    )
    released = AnnotationSet.objects.create(
        dataset=dataset, slug="pt-one", name="Released", kind="released",
        scheme="polytope", read_only=True,
    )  # fmt: skip
    records = [SpanRecord(output.pk, (error("Addition", "Subject", 0, 5),), False)]
    span_annotations_replace(annotation_set=released, records=records, output_ids=[output.pk])
    scoring_pending_run_inline(dataset=dataset)
    return demo


def test_one_system_with_one_error_is_counted_in_the_singular(context, one_error_board):
    base = one_error_board.url
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/leaderboards/one/")
    wait_query(page, "?k=3")
    expect(page.locator("#subtitle")).to_contain_text("one · 1 system · ")
    cell = page.locator("#lb-table tr[data-system='a'] td[data-metric='polytope-errors'] .n")
    expect(cell).to_have_text("1 error · 0 clean")
    expect(page.locator("#breakdown-summary")).to_contain_text(
        "System A: 1 error in 1 annotated output (0 clean; 3 words;"
    )
    for selector in ("#subtitle", "#lb-table", "#polytope"):
        assert not WRONG.search(page.locator(selector).inner_text()), selector
