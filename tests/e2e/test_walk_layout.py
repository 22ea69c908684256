"""Layout at 1280x800 (issue 27, the walk's defects): nothing in a page header is drawn over
something else, and a table's columns are all visible or scroll with a visible cue.

Geometry, not screenshots: bounding boxes of what is drawn must not intersect."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import login, workspace_page
from tests.e2e.leaderboard_helpers import overall_study

pytestmark = pytest.mark.django_db(transaction=True)

# CNN/DailyMail's document ids are 40 hexadecimal digits: no place to break a line.
LONG_ID = "0f3a9c2b7d1e4f5a6b8c9d0e1f2a3b4c5d6e7f80"

# The boxes where each element's contents are drawn (its text clipped by an overflow:hidden
# box), and whether two of them intersect.
DRAWN_BOXES = """(selectors) => {
  const drawn = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const box = (r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom });
    let boxes = [...range.getClientRects()].map(box);
    boxes.push(box(el.getBoundingClientRect()));
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
        const c = a.getBoundingClientRect();
        boxes = boxes.map((x) => ({ l: Math.max(x.l, c.left), t: Math.max(x.t, c.top),
                                     r: Math.min(x.r, c.right), b: Math.min(x.b, c.bottom) }));
      }
    }
    return boxes.filter((x) => x.r - x.l > 0.5 && x.b - x.t > 0.5);
  };
  const out = {};
  for (const [name, selector] of Object.entries(selectors)) {
    out[name] = [...document.querySelectorAll(selector)]
      .filter((el) => el.getClientRects().length)
      .flatMap((el) => drawn(el));
  }
  return out;
}"""


def _overlaps(page, first: str, others: dict[str, str]) -> list[str]:
    """The names of ``others`` whose drawn boxes intersect the drawn boxes of ``first``."""
    boxes = page.evaluate(DRAWN_BOXES, {"first": first, **others})
    mine = boxes.pop("first")
    assert mine, f"{first} is not drawn"
    hit = []
    for name, theirs in boxes.items():
        assert theirs, f"{name} is not drawn"
        for a in mine:
            for b in theirs:
                if a["l"] < b["r"] - 0.5 and b["l"] < a["r"] - 0.5:
                    if a["t"] < b["b"] - 0.5 and b["t"] < a["b"] - 0.5:
                        hit.append(name)
    return sorted(set(hit))


def _rename(document, external_id: str) -> None:
    type(document).objects.filter(pk=document.pk).update(external_id=external_id)


def _assert_title_clear(page, others: dict[str, str]) -> None:
    """The header's document title overlaps none of ``others`` (name -> selector), and the whole
    id can still be read: shown in full, or in the title's tooltip."""
    assert _overlaps(page, "#doc-title", others) == []
    full = page.evaluate(
        "(id) => { const h = document.getElementById('doc-title');"
        " return h.scrollWidth <= h.clientWidth || h.title.includes(id); }",
        LONG_ID,
    )
    assert full


def test_a_long_document_id_stays_clear_of_the_workspace_header(context, make_world):
    world = make_world(documents=("demo-001",))
    task = world.task("demo-001")
    _rename(task.document, LONG_ID)
    page = workspace_page(context, world, task)
    expect(page.locator("#doc-title")).to_have_text(f"Document {LONG_ID}")
    expect(page.locator("#coverage-text")).to_have_text("Coverage 0/3")
    _assert_title_clear(
        page,
        {
            "coverage label": "#coverage-text",
            "facet buttons": "#coverage > *",
            "category": ".ws-category",
            "actions": ".ws-actions > *",
        },
    )


def test_a_long_document_id_stays_clear_of_the_adjudication_header(context, make_world):
    from annotation.campaigns.services import task_fam_save, task_submit

    world = make_world(slug="adj", documents=("demo-001",), annotators=("alice", "bob"))
    facets = [{"groups": [[0]], "label": "supported"}] * 3
    for name in ("alice", "bob"):
        task = world.task("demo-001", name)
        task_fam_save(task=task, user=task.annotator, facets=facets, base_version=1)
        task_submit(task=task)
    document = world.task("demo-001", "alice").document
    _rename(document, LONG_ID)
    page = context.new_page()
    login(page, world.url, "admin", "loupe-admin")
    page.goto(f"{world.url}/manage/campaigns/{world.campaign.pk}/adjudication/{document.pk}/")
    page.wait_for_selector("#adjudication[aria-busy=false] #facets li.adj-facet")
    expect(page.locator("#doc-title")).to_have_text(f"Document {LONG_ID}")
    expect(page.locator("#decided-text")).to_have_text("Decided 0/3")
    _assert_title_clear(
        page,
        {
            "decided label": "#decided-text",
            "facet buttons": "#decided > *",
            "actions": ".ws-actions > *",
        },
    )


# Each table's columns: whether every header cell is drawn inside the page (1280 px wide) and
# inside the box that scrolls it, with the table's and its scroll box's widths.
COLUMNS_SHOWN = """(selector) => {
  const table = document.querySelector(selector);
  const box = table.closest('.table-scroll') || table.parentElement;
  const clip = box.getBoundingClientRect();
  const cells = [...table.querySelectorAll('thead th')].filter((th) => th.getClientRects().length);
  const hidden = cells.filter((th) => {
    const r = th.getBoundingClientRect();
    return r.left < Math.max(clip.left, 0) - 0.5 || r.right > Math.min(clip.right, 1280) + 0.5;
  }).map((th) => th.textContent.trim());
  const { scrollWidth, clientWidth } = box;
  return { hidden, count: cells.length, scrollWidth, clientWidth };
}"""


def _columns_shown(page, selector: str) -> None:
    """Every column of the table is visible at 1280 px: none clipped, no sideways scroll."""
    shown = page.evaluate(COLUMNS_SHOWN, selector)
    assert shown["count"], f"{selector} has no columns"
    assert shown["hidden"] == [], f"{selector}: {shown}"
    assert shown["scrollWidth"] <= shown["clientWidth"], f"{selector}: {shown}"
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


@pytest.mark.parametrize("items", [("o1", "o2", "o3", "o4"), ("o1",)], ids=["three", "one"])
def test_the_polytope_agreement_tables_show_every_column(context, live_server, no_celery, items):
    """The hand-worked PolyTope campaign of the span agreement tests; with its annotations of
    o1 alone, no figure has an interval and each says why (long notes in narrow columns)."""
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.agreement.services import span_agreement_run_create
    from annotation.campaigns.models import Task
    from annotation.corpus.demo import demo_load
    from annotation.spans.models import SpanAnnotation
    from tests.agreement_helpers import span_run_compute
    from tests.span_agreement_helpers import build, polytope_campaign

    for role in ROLES:  # made by a data migration, gone after an earlier test's flush
        Group.objects.get_or_create(name=role)
    demo_load()  # its users
    world = build()
    campaign = polytope_campaign(world)
    dropped = [output for key, output in world.outputs.items() if key not in items]
    SpanAnnotation.objects.filter(output__in=dropped).delete()
    Task.objects.filter(output__in=dropped).delete()
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    assert span_run_compute(run.pk) == "succeeded"
    page = context.new_page()
    login(page, live_server.url, "admin", "loupe-admin")
    page.goto(f"{live_server.url}/manage/campaigns/{campaign.pk}/agreement/")
    expect(page.locator("#status")).to_have_attribute("data-state", "fresh")
    expect(page.locator("#overall tbody tr").first).to_be_visible()
    for table in ("#overall", "#systems", "#pairs", "#documents"):
        _columns_shown(page, table)


def test_the_polytope_correlation_table_shows_every_column(context, demo):
    """The hand-worked PolyTope dataset has two systems: every system-level coefficient is
    undefined and says why, beside the paper's r."""
    from scoring.scores.services import scoring_pending_run_inline
    from tests.scoring.polytope_helpers import build

    scoring_pending_run_inline(dataset=build()["dataset"])
    page = context.new_page()
    login(page, demo.url, "researcher")
    page.goto(f"{demo.url}/leaderboards/pt/")
    expect(page.locator("#pt-corr-table tbody tr").first).to_be_visible()
    _columns_shown(page, "#pt-corr-table")


def test_the_judgment_correlation_table_shows_every_column(context, board, tmp_path):
    """A study of the demo's three systems: FAR has two extractive systems only, so some
    coefficients are undefined and say why."""
    overall_study(board, tmp_path)
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    expect(page.locator("#corr-table tbody tr").first).to_be_visible()
    expect(page.locator("#corr-table .reason").first).to_be_visible()
    _columns_shown(page, "#corr-table")


def _cue(page, selector: str) -> dict:
    """What the scroll box of ``selector`` shows: its hidden sides, its note, how much scrolls."""
    return page.evaluate(
        """(selector) => {
          const box = document.querySelector(selector).closest('.table-scroll');
          const note = getComputedStyle(box, '::before');
          const table = box.querySelector('table').getBoundingClientRect();
          return { more: box.dataset.more || '', note: note.content, display: note.display,
                   noteAbove: table.top - box.getBoundingClientRect().top,
                   extra: box.scrollWidth - box.clientWidth };
        }""",
        selector,
    )


def test_a_table_that_must_scroll_sideways_says_so(context, board):
    """With ROUGE precision and recall the leaderboard has 20 score columns: too many for
    1280 px, so its box scrolls, with a note above it (which stays in view) saying where the
    hidden columns are; none once every column is shown again."""
    page = context.new_page()
    login(page, board.url, "researcher")
    page.goto(f"{board.url}/leaderboards/demo/")
    expect(page.locator("#lb-table tbody tr")).to_have_count(3)
    _columns_shown(page, "#lb-table")
    assert _cue(page, "#lb-table")["more"] == ""
    page.locator("#show-pr").check()
    expect(page.locator("#lb-table thead th", has_text="R-1 P")).to_have_count(1)
    box = page.locator("#lb-table").locator("xpath=..")
    expect(box).to_have_attribute("data-more", "right")
    cue = _cue(page, "#lb-table")
    assert cue["extra"] > 0 and "scroll sideways →" in cue["note"] and cue["noteAbove"] >= 12
    box.evaluate("(b) => { b.scrollLeft = 10; }")
    expect(box).to_have_attribute("data-more", "both")
    box.evaluate("(b) => { b.scrollLeft = b.scrollWidth; }")
    expect(box).to_have_attribute("data-more", "left")
    assert "← More columns to the left" in _cue(page, "#lb-table")["note"]
    page.locator("#show-pr").uncheck()
    expect(box).not_to_have_attribute("data-more", re.compile(".*"))
    _columns_shown(page, "#lb-table")


def test_the_datasets_table_stays_beside_the_import_card(context, demo):
    """The releases' sources name a repository and a 40-digit commit, their licenses are
    sentences: the table keeps every column in its own column of the page, clear of the card."""
    from annotation.corpus.models import Dataset

    Dataset.objects.create(
        slug="polytope",
        name="CNN/DailyMail PolyTope (Huang et al., 2020)",
        source="hddbang/PolyTope commit 6bcbe2b27062b35cc002cb8d13e7c6ce5718984d",
        license="research use, see release (the repository has no license file; the articles "
        "are CNN/DailyMail content)",
    )
    Dataset.objects.create(
        slug="xsum-faith",
        name="XSum hallucinations (Maynez et al., 2020)",
        source="google-research-datasets/xsum_hallucination_annotations commit 4abdbb2",
        license="CC BY 4.0 (summaries and annotations; the XSum articles are not included)",
    )
    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    page.goto(f"{demo.url}/manage/datasets/")
    expect(page.locator("#datasets tbody tr")).to_have_count(3)
    _columns_shown(page, "#datasets")
    assert _overlaps(page, "#datasets", {"import card": "#import-form"}) == []
    assert _overlaps(page, "#datasets td, #datasets th", {"import card": "#import-form"}) == []
