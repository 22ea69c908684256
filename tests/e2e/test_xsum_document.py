"""The document view of a release without article text (the XSum hallucinations) in the browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_document_without_text_says_so(context, demo, tmp_path):
    from annotation.corpus.importers.parsers.xsum import parse_xsum_release
    from annotation.corpus.models import Dataset
    from annotation.corpus.services import bundle_import
    from scoring.scores.services import scoring_pending_run_inline
    from tests.importers.test_xsum_parser import _tiny_rows, write_release

    bundle = parse_xsum_release(
        write_release(tmp_path / "tiny", _tiny_rows()), expected_documents=2
    )
    bundle_import(bundle=bundle, slug="xsum-tiny")
    scoring_pending_run_inline(dataset=Dataset.objects.get(slug="xsum-tiny"), ks=[3])

    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login(page, demo.url, "researcher")
    page.goto(f"{demo.url}/leaderboards/xsum-tiny/systems/berts2s/documents/101/")
    expect(page.locator("#output-document")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#doc-legend")).to_contain_text("The release has no article text")
    expect(page.locator("#sentences")).to_be_hidden()
    expect(page.locator("#error")).to_be_hidden()
    expect(page.locator("#summary li")).to_have_text(["britain's andy murray beat fabio fognini."])
    expect(page.locator("#facets li")).to_have_text(["andy murray won."])
    expect(page.locator("#scores td").first).to_be_visible()
    assert errors == []
