"""Safety in the browser: blind campaigns hide other annotators' work; document and facet
text is rendered as text, nothing in it runs, and the CSP forbids inline script."""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import api_get, login, open_task, sentence, wait_saved, workspace_page

pytestmark = pytest.mark.django_db(transaction=True)

BOB_GROUPS = [[6, 7]]


def _bob_saves_his_fam(world):
    """The other annotator builds his FAM for the same document (through the service)."""
    from annotation.campaigns.selectors import task_fam
    from annotation.fams.services import fam_save

    task = world.task("demo-001", "bob")
    fam = task_fam(task=task)
    facets = [{"groups": [], "label": "supported", "note": ""} for _ in fam.facets]
    facets[0]["groups"] = BOB_GROUPS
    fam_save(fam=fam, facets=facets, base_version=fam.version, user=task.annotator)


def test_a_blind_campaign_hides_the_other_annotators_groups(context, make_world):
    world = make_world(documents=("demo-001",), annotators=("annotator", "bob"), blind=True)
    _bob_saves_his_fam(world)
    task, bobs = world.task("demo-001", "annotator"), world.task("demo-001", "bob")
    page = workspace_page(context, world, task)

    expect(page.locator("#campaign-line")).to_contain_text("blind")
    expect(page.locator("#sentences .mark.others")).to_have_count(0)
    expect(page.locator("#sentences li.in-group, #sentences li.in-facet")).to_have_count(0)
    expect(page.locator("#facets")).not_to_contain_text("bob")
    assert api_get(page, world, f"/api/tasks/{task.pk}/")["others"] == []
    # Nor can the annotator open bob's task.
    assert page.request.get(f"{world.url}/api/tasks/{bobs.pk}/").status == 404
    page.goto(f"{world.url}/tasks/{bobs.pk}/")
    expect(page.locator("#doc-title")).to_have_text("No such task")


def test_a_campaign_that_is_not_blind_shows_them(context, make_world):
    world = make_world(documents=("demo-001",), annotators=("annotator", "bob"), blind=False)
    _bob_saves_his_fam(world)
    page = context.new_page()
    login(page, world.url)
    open_task(page, world, world.task("demo-001", "annotator"))

    expect(page.locator("#campaign-line")).to_contain_text("not blind")
    for index in BOB_GROUPS[0]:
        expect(sentence(page, index).locator(".mark.others")).to_have_text("1 other")
    expect(page.locator("#facets li[data-index='0'] .others")).to_contain_text("bob: [7, 8]")
    # Seeing them is not adopting them: the annotator's own FAM is still empty.
    expect(page.locator("#sentences li.in-group")).to_have_count(0)


SCRIPT = "<script>window.__xss=1</script>"
IMG = '<img src=x onerror="window.__xss=2">'
FACET = '<img src=x onerror="window.__xss=3"> A facet <b>in bold</b>?'


def test_document_text_is_rendered_as_text_and_nothing_runs(context, make_world, tmp_path):
    from annotation.corpus.services import dataset_import

    source = tmp_path / "xss.jsonl"
    record = {
        "id": "xss-1",
        "sentences": ["A plain first sentence.", SCRIPT, IMG, "A plain last sentence."],
        "references": [[FACET, "A second facet."]],
    }
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    dataset_import(format_name="jsonl", source=source, slug="xss", name="XSS")
    world = make_world(slug="xss", dataset="xss", documents=("xss-1",))
    page = context.new_page()
    blocked = []
    page.on("console", lambda message: blocked.append(message.text))
    login(page, world.url)

    response = page.goto(f"{world.url}/tasks/{world.task('xss-1').pk}/")
    csp = response.headers["content-security-policy"]
    script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
    assert script_src.split() == ["script-src", "'self'"]
    page.wait_for_selector("#workspace[aria-busy=false] #sentences li")

    expect(sentence(page, 1).locator(".text")).to_have_text(SCRIPT)
    expect(sentence(page, 2).locator(".text")).to_have_text(IMG)
    expect(page.locator("#facets li[data-index='0'] .ftext")).to_have_text(FACET)
    expect(page.locator("#workspace img, #workspace script, #workspace b")).to_have_count(0)
    sentence(page, 2).click()  # selecting and re-rendering it does not run it either
    expect(sentence(page, 2)).to_have_class(re.compile(r"\bin-group\b"))
    wait_saved(page)
    assert page.evaluate("window.__xss") is None

    # The CSP forbids inline script: even one added to the DOM does not run.
    ran = page.evaluate(
        """() => { const s = document.createElement('script');
                   s.textContent = 'window.__inline = 1'; document.body.append(s);
                   return window.__inline; }"""
    )
    assert ran is None
    assert any("Content Security Policy" in text for text in blocked)
