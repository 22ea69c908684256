"""The upload page in the browser: a researcher uploads outputs with the keyboard and sees the
report, or the refused file's named line; nothing is written on a refusal."""

import json

import pytest
from playwright.sync_api import expect

from scoring.metrics.wording import counted
from tests.e2e.helpers import ARTIFACTS, choose_file, login, login_through_form
from tests.e2e.leaderboard_helpers import wait_query
from tests.job_helpers import hold_job_sends

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site(live_server, monkeypatch):
    """The demo and its users on the live server; scoring jobs are recorded, not sent."""
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.corpus.demo import demo_load

    queued = hold_job_sends(monkeypatch, "scoring")
    for role in ROLES:  # made by a data migration, gone after an earlier test's flush
        Group.objects.get_or_create(name=role)
    demo_load()
    queued.clear()
    # New versions need the system's owner: the researcher owns the demo's systems here.
    from django.contrib.auth import get_user_model

    from annotation.systems.models import System

    System.objects.update(owner=get_user_model().objects.get(username="researcher"))
    return live_server.url, queued


def _open_upload_page(context, url):
    page = context.new_page()
    login_through_form(page, url, "researcher")
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


def test_a_researcher_uploads_outputs_with_the_keyboard_and_sees_the_report(
    context, site, tmp_path
):
    from annotation.systems.models import OutputVersion, SystemOutput
    from scoring.scores.models import ScoringJob

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
    expect(page.locator("#trained-on")).to_be_focused()
    page.keyboard.type("Demo")  # the dataset it was trained on (cross-dataset evaluation)
    expect(page.locator("#trained-on")).to_have_value("demo")
    page.keyboard.press("Tab")
    expect(page.locator("#system-description")).to_be_focused()
    page.keyboard.press("Tab")
    choose_file(page, path, "#file")
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
    assert version.system.trained_on == "demo"
    job = ScoringJob.objects.get(versions=version)
    assert (job.trigger, queued) == ("upload", [job.pk])
    # The page follows the job (here it stays queued: it was recorded, not sent to a worker)
    # and links to the system's page instead of the job's raw JSON.
    expect(result.locator(".job")).to_have_attribute("data-state", "queued")
    expect(result.locator(".job-status")).to_contain_text(f"Job {job.pk} (upload, k = 3) queued")
    expect(result.get_by_role("link", name="e2e-ext on demo")).to_have_attribute(
        "href", "/leaderboards/demo/systems/e2e-ext/"
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
    from annotation.systems.models import OutputVersion, SystemOutput
    from scoring.scores.models import ScoringJob

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
    choose_file(page, path, "#file")
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


@pytest.fixture
def scored_site(live_server, monkeypatch):
    """The demo scored in this process; from then on scoring jobs go to a real Celery worker."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.corpus.demo import demo_load
    from annotation.corpus.models import Dataset
    from annotation.systems.models import System
    from scoring.scores.services import scoring_pending_run_inline

    with monkeypatch.context() as patch:  # the demo's own job runs here, not on the worker
        patch.setattr("annotation.jobs.kernel.job_send", lambda *args, **kw: None)
        for role in ROLES:  # made by a data migration, gone after an earlier test's flush
            Group.objects.get_or_create(name=role)
        demo_load()
        scoring_pending_run_inline(dataset=Dataset.objects.get(slug="demo"), ks=[3])
    System.objects.update(owner=get_user_model().objects.get(username="researcher"))
    return live_server.url


def test_after_an_upload_the_page_follows_the_scoring_job_to_the_leaderboard(
    context, scored_site, celery_worker_process, tmp_path
):
    from annotation.systems.models import OutputVersion
    from scoring.scores.models import ScoringJob

    url = scored_site
    path = tmp_path / "lead.jsonl"
    path.write_text(
        json.dumps({"doc_id": "demo-001", "extracted": [1, 0]})
        + "\n"
        + json.dumps({"doc_id": "demo-002", "extracted": [0, 2]})
        + "\n",
        encoding="utf-8",
    )
    page = _open_upload_page(context, url)
    page.keyboard.type("Demo")
    page.keyboard.press("Tab")
    page.keyboard.type("Lead")  # "Lead-3 (lead-3, extractive)": its next version
    expect(page.locator("#system")).to_have_value("lead-3")
    page.keyboard.press("Tab")
    choose_file(page, path, "#file")
    for _ in range(3):
        page.keyboard.press("Tab")
    expect(page.locator("#submit")).to_be_focused()
    page.keyboard.press("Enter")

    result = page.locator("#result")
    expect(result).to_be_focused()
    expect(page.locator("#result-title")).to_have_text("Uploaded lead-3 version 2 on demo.")
    version = OutputVersion.objects.get(system__slug="lead-3", dataset__slug="demo", number=2)
    job = ScoringJob.objects.get(versions=version)
    # The real worker scores the upload; the page follows the job until it is final.
    panel = result.locator(".job")
    expect(panel).to_have_attribute("data-state", "succeeded", timeout=60_000)
    job.refresh_from_db()
    assert job.status == "succeeded" and job.scores_written > 0
    expect(panel.locator(".job-status")).to_contain_text(f"Job {job.pk} (upload, k = 3) succeeded")
    expect(panel.locator(".job-counts")).to_have_text(
        f"{job.chunks_done} of {counted(job.chunks_total, 'chunk')} · "
        f"{counted(job.outputs_total, 'output')} · "
        f"{counted(job.scores_written, 'score')} written"
    )
    expect(panel.locator("progress")).to_be_hidden()
    expect(panel.locator(".job-error")).to_be_hidden()
    expect(result.locator("a[href^='/api/']")).to_have_count(0)  # no raw JSON
    expect(result.get_by_role("link", name="lead-3 on demo")).to_have_attribute(
        "href", "/leaderboards/demo/systems/lead-3/"
    )
    expect(page.locator("#result-title")).to_be_visible()  # everything fits at 1280x800
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "upload-job-succeeded.png"))

    # By keyboard from the result to the leaderboard, which shows the new version's scores.
    page.keyboard.press("Tab")
    expect(result.get_by_role("link", name="Leaderboard")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{url}/leaderboards/demo/")
    wait_query(page, "?k=3")
    row = page.locator("#lb-table tr[data-system='lead-3']")
    expect(row.locator("th.system small")).to_have_text("extractive · version 2")
    expect(row.locator("td[data-metric='n_documents']")).to_have_text("2")
    expect(page.locator("#jobs")).to_have_attribute("data-state", "succeeded")
    page.screenshot(path=str(ARTIFACTS / "upload-job-leaderboard.png"))


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
