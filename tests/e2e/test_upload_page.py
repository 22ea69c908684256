"""The upload page in the browser: a researcher uploads outputs with the keyboard and sees the
report, or the refused file's named line; nothing is written on a refusal."""

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(live_server, monkeypatch):
    """The demo and its users on the live server; scoring jobs are recorded, not sent."""
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.corpus.demo import demo_load
    from scoring.scores.tasks import scoring_job_run

    queued = []
    monkeypatch.setattr(scoring_job_run, "delay", lambda *args: queued.append(args))
    for role in ROLES:  # made by a data migration, gone after an earlier test's flush
        Group.objects.get_or_create(name=role)
    demo_load()
    queued.clear()
    # New versions need the system's owner: the researcher owns the demo's systems here.
    from django.contrib.auth import get_user_model

    from scoring.systems.models import System

    System.objects.update(owner=get_user_model().objects.get(username="researcher"))
    return live_server.url, queued


def _open_upload_page(context, url):
    page = context.new_page()
    login(page, url, "researcher")
    page.get_by_role("link", name="Upload outputs").click()
    page.wait_for_url(f"{url}/upload/")
    expect(page.locator("#dataset option[value=demo]")).to_have_count(1)
    expect(page.locator("#system option[value=lead-3]")).to_have_count(1)
    # The skip link leads straight to the form's first control.
    page.keyboard.press("Tab")
    expect(page.locator(".skip")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.locator("#dataset")).to_be_focused()
    return page


def _choose_file(page, path):
    """Open the file chooser from the keyboard (Space on the focused input) and pick ``path``."""
    expect(page.locator("#file")).to_be_focused()
    with page.expect_file_chooser() as chooser:
        page.keyboard.press("Space")
    chooser.value.set_files(str(path))


def test_a_researcher_uploads_outputs_with_the_keyboard_and_sees_the_report(
    context, site, tmp_path
):
    from scoring.scores.models import ScoringJob
    from scoring.systems.models import OutputVersion, SystemOutput

    url, queued = site
    path = tmp_path / "e2e.jsonl"
    path.write_text(
        json.dumps({"doc_id": "demo-002", "summary": "Penguins prefer cold weather, say experts."})
        + "\n"
        + json.dumps({"doc_id": "demo-004", "extracted": [0, 2]})
        + "\n",
        encoding="utf-8",
    )
    page = _open_upload_page(context, url)
    page.keyboard.type("Demo")  # type-ahead picks "Demo news (demo, 6 documents)"
    expect(page.locator("#dataset")).to_have_value("demo")
    page.keyboard.press("Tab")
    page.keyboard.type("New")
    expect(page.locator("#system")).to_have_value("__new__")
    expect(page.locator("#new-system")).to_be_visible()
    page.keyboard.press("Tab")
    expect(page.locator("#system-slug")).to_be_focused()
    page.keyboard.type("e2e-ext")
    page.keyboard.press("Tab")
    page.keyboard.type("E2E Extractive")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # the first kind: extractive
    expect(page.locator("input[name=kind][value=extractive]")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.locator("#system-description")).to_be_focused()
    page.keyboard.press("Tab")
    _choose_file(page, path)
    page.keyboard.press("Tab")
    expect(page.locator("#dry-run")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#accept-low-confidence")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#submit")).to_be_focused()
    page.keyboard.press("Enter")

    # Sentence 2 is not in demo-002: its nearest sentence is a guess, so the upload is refused.
    result = page.locator("#result")
    expect(result).to_be_focused()
    expect(page.locator("#result-title")).to_have_text("Refused: 1 problem(s); nothing was saved.")
    expect(result.locator(".issues li")).to_contain_text("accepting low-confidence mappings")
    assert not OutputVersion.objects.filter(system__slug="e2e-ext").exists()

    # Back to the checkbox by keyboard, accept the guess and upload again.
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#submit")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#accept-low-confidence")).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator("#accept-low-confidence")).to_be_checked()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")

    expect(result).to_be_focused()
    expect(page.locator("#result-title")).to_have_text("Uploaded e2e-ext version 1 on demo.")
    expect(result.locator(".facts")).to_contain_text("2 of 6")
    report = result.locator(".report li")
    expect(report).to_have_count(1)
    expect(report).to_contain_text("low-confidence mapping for e2e-ext on demo-002")
    version = OutputVersion.objects.get(system__slug="e2e-ext", dataset__slug="demo")
    job = ScoringJob.objects.get(versions=version)
    assert (job.trigger, queued) == ("upload", [(job.pk,)])
    expect(result.get_by_role("link", name="Job status")).to_have_attribute(
        "href", f"/api/scoring-jobs/{job.pk}/"
    )
    expect(result.get_by_role("link", name="Leaderboard")).to_have_attribute(
        "href", "/leaderboards/demo/"
    )
    assert SystemOutput.objects.filter(version=version).count() == 2
    # The new system is now among the choices, and chosen, for the next upload.
    expect(page.locator("#system")).to_have_value("e2e-ext")
    expect(page.locator("#new-system")).to_be_hidden()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "upload-report.png"))


def test_a_bad_file_is_refused_naming_the_line_and_nothing_is_written(context, site, tmp_path):
    from scoring.scores.models import ScoringJob
    from scoring.systems.models import OutputVersion, SystemOutput

    url, queued = site
    path = tmp_path / "lead.jsonl"
    path.write_text(
        '{"doc_id": "demo-001", "extracted": [0, 1]}\n{"doc_id": "demo-002", "extracted": [0,\n',
        encoding="utf-8",
    )
    before = (SystemOutput.objects.count(), OutputVersion.objects.count())
    jobs = ScoringJob.objects.count()
    page = _open_upload_page(context, url)
    page.keyboard.type("Demo")
    page.keyboard.press("Tab")
    page.keyboard.type("Lead")  # "Lead-3 (lead-3, extractive)"
    expect(page.locator("#system")).to_have_value("lead-3")
    page.keyboard.press("Tab")
    _choose_file(page, path)
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")

    result = page.locator("#result")
    expect(result).to_be_focused()
    expect(page.locator("#result-title")).to_have_text("Refused: 1 problem(s); nothing was saved.")
    issue = result.locator(".issues li")
    expect(issue).to_have_count(1)
    expect(issue.locator("code")).to_have_text("lead.jsonl:2")
    expect(issue).to_contain_text("invalid JSON")
    assert (SystemOutput.objects.count(), OutputVersion.objects.count()) == before
    assert (ScoringJob.objects.count(), queued) == (jobs, [])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "upload-refused.png"))


def test_the_browser_refuses_a_bad_slug_and_logs_no_error(context, site, tmp_path):
    url, _ = site
    path = tmp_path / "new.jsonl"
    path.write_text(
        json.dumps({"doc_id": "demo-001", "summary": "A library is coming."}) + "\n",
        encoding="utf-8",
    )
    page = context.new_page()
    console, sent = [], []
    page.on("console", lambda message: console.append((message.type, message.text)))
    page.on("pageerror", lambda error: console.append(("pageerror", str(error))))
    page.on(
        "request", lambda request: sent.append(request.url) if "/outputs/" in request.url else None
    )
    login(page, url, "researcher")
    page.goto(f"{url}/upload/")
    expect(page.locator("#system option[value=lead-3]")).to_have_count(1)
    page.select_option("#dataset", "demo")
    page.select_option("#system", "__new__")
    page.check("input[name=kind][value=abstractive]")
    page.set_input_files("#file", str(path))
    page.check("#dry-run")
    slug = page.locator("#system-slug")
    slug.focus()
    page.keyboard.type("bad slug!")
    page.focus("#submit")
    page.keyboard.press("Enter")

    # Constraint validation stops the submission: the focus goes back to the slug.
    expect(slug).to_be_focused()
    assert slug.evaluate("(input) => input.validity.patternMismatch") is True
    assert slug.evaluate("(input) => input.form.checkValidity()") is False
    expect(page.locator("#result")).to_be_hidden()
    assert sent == []

    slug.fill("")
    page.keyboard.type("good-slug_1")
    assert slug.evaluate("(input) => input.validity.valid") is True
    page.focus("#submit")
    page.keyboard.press("Enter")
    expect(page.locator("#result-title")).to_have_text(
        "Checked: the file is valid and would become good-slug_1 version 1. Nothing was saved."
    )
    assert len(sent) == 1
    assert [entry for entry in console if entry[0] in ("error", "pageerror")] == []
