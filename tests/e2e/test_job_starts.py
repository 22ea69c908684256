"""Every background job starts from its page with the keyboard only (issue 27, item 4): APES
and AutoFAR-L on the leaderboard, bias on its page, the cross-dataset paired tests, each run
by a real Celery worker and followed live until it finishes; and the empty states."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login

pytestmark = pytest.mark.django_db(transaction=True)

FINISH = 60_000  # ms: a real worker computes each job


@pytest.fixture
def site(live_server, monkeypatch):
    """The demo (scored here), AutoFAR's tiny dataset with its fit and the cross-dataset
    example, loaded without a worker; then no job is left waiting (the demo's import queued a
    bias run): every job of the test is started from a page and run by the worker."""
    from django.contrib.auth.models import Group

    from annotation.accounts.roles import ROLES
    from annotation.corpus.demo import demo_load
    from annotation.corpus.models import Dataset
    from scoring.bias.models import BiasRun
    from scoring.scores.services import scoring_pending_run_inline
    from tests.autofar.test_autofar_runs import build_tiny
    from tests.crossdataset_helpers import example_load

    with monkeypatch.context() as patch:
        patch.setattr("annotation.jobs.kernel.job_send", lambda *args, **kw: None)
        for role in ROLES:  # made by a data migration, gone after an earlier test's flush
            Group.objects.get_or_create(name=role)
        demo_load()
        scoring_pending_run_inline(dataset=Dataset.objects.get(slug="demo"), ks=[3])
        build_tiny()
        example_load()
    BiasRun.objects.filter(status__in=["queued", "running"]).delete()
    return live_server.url


def _press(page, selector):
    """Focus a control by tabbing to it from the page's start, then press Enter."""
    target = page.locator(selector)
    expect(target).to_be_enabled()
    page.locator("body").focus()
    for _ in range(300):
        page.keyboard.press("Tab")
        if target.evaluate("node => node === document.activeElement"):
            break
    expect(target).to_be_focused()
    page.keyboard.press("Enter")


def test_each_job_starts_from_its_page_by_keyboard_and_finishes(
    context, site, celery_worker_process
):
    page = context.new_page()
    login(page, site, "researcher")

    # APES on the demo's leaderboard.
    page.goto(f"{site}/leaderboards/demo/")
    apes = page.locator("#apes-panel")
    expect(apes).to_have_attribute("aria-busy", "false")
    expect(apes.locator(".job-status")).to_have_text("No APES run yet.")
    expect(page.locator("#apes-missing")).to_be_hidden()
    _press(page, "#apes-start")
    expect(apes.locator(".job")).to_have_attribute("data-state", "succeeded", timeout=FINISH)
    expect(apes.locator(".job-status")).to_contain_text("succeeded")
    expect(page.locator("#lb-table thead button[data-sort='apes']")).to_be_visible()

    # AutoFAR-L on the tiny dataset's leaderboard, with its stored fit.
    page.goto(f"{site}/leaderboards/autofar-tiny/")
    autofar = page.locator("#autofar-panel")
    expect(autofar).to_have_attribute("aria-busy", "false")
    expect(page.locator("#autofar-fit option").first).to_contain_text("on autofar-source")
    fit = page.locator("#autofar-fit")
    expect(fit).to_have_value(fit.locator("option").first.get_attribute("value"))
    _press(page, "#autofar-start")
    expect(autofar.locator(".job")).to_have_attribute("data-state", "succeeded", timeout=FINISH)
    expect(autofar.locator(".job-counts")).to_contain_text("chunks done")
    expect(page.locator("#lb-table thead button[data-sort='autofar_l']")).to_be_visible()

    # Bias on the demo's bias page.
    page.goto(f"{site}/leaderboards/demo/bias/")
    expect(page.locator("#bias-status")).to_have_text("Not computed yet.")
    _press(page, "#bias-compute")
    expect(page.locator("#bias-panel")).to_have_attribute("data-state", "succeeded", timeout=FINISH)
    expect(page.locator("#bias-status")).to_contain_text("Computed")
    expect(page.locator("#bias-table tbody tr").first).to_have_attribute("data-source", "reference")

    # The cross-dataset paired tests.
    page.goto(f"{site}/crossdataset/")
    expect(page.locator("#crossdataset-page")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#status")).to_have_text("3 systems on A, B, C by rouge1_f.")
    expect(page.locator("#tests-job .job-status")).to_contain_text("have not run")
    _press(page, "#tests-start")
    expect(page.locator("#tests-status")).to_contain_text("3 pairs tested", timeout=FINISH)
    expect(page.locator("#tests tbody tr")).to_have_count(3)
    expect(page.locator("#tests-job .job")).to_have_attribute("data-state", "succeeded")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "job-starts-crossdataset.png"), full_page=True)
    page.close()


def test_a_second_press_follows_the_queued_job_and_empty_states_say_what_is_missing(
    context, site, monkeypatch
):
    """No worker here (jobs are not sent): the job started first stays queued, so the second
    press gets 409 and follows it."""
    from annotation.corpus.models import Dataset, Document
    from scoring.apes.models import ApesRun
    from scoring.bias.models import BiasRun
    from scoring.bias.services import bias_run_request

    monkeypatch.setattr("annotation.jobs.kernel.job_send", lambda *args, **kw: None)

    empty = Dataset.objects.create(slug="bare", name="Bare")
    Document.objects.create(dataset=empty, external_id="b1", sentences=["A."])
    page = context.new_page()
    login(page, site, "researcher")

    page.goto(f"{site}/leaderboards/bare/")
    expect(page.locator("#apes-panel")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#apes-missing")).to_contain_text("no system outputs")
    expect(page.locator("#apes-missing a[href='/upload/']")).to_be_visible()
    expect(page.locator("#apes-start")).to_be_disabled()
    expect(page.locator("#autofar-missing")).to_contain_text("no extractive system outputs")
    expect(page.locator("#autofar-start")).to_be_disabled()
    page.goto(f"{site}/leaderboards/bare/bias/")
    expect(page.locator("#bias-missing")).to_contain_text("nothing to measure")
    expect(page.locator("#bias-compute")).to_be_disabled()

    # A bias run queued meanwhile (an upload's): Compute follows it instead of a second one.
    page.goto(f"{site}/leaderboards/demo/bias/")
    expect(page.locator("#bias-status")).to_have_text("Not computed yet.")
    waiting, _ = bias_run_request(dataset=Dataset.objects.get(slug="demo"), trigger="upload")
    _press(page, "#bias-compute")
    expect(page.locator("#bias-status")).to_have_text("Waiting for a worker…")
    assert list(BiasRun.objects.values_list("pk", flat=True)) == [waiting.pk]

    # The same for APES: the second press names the queued run and follows it.
    page.goto(f"{site}/leaderboards/demo/")
    apes = page.locator("#apes-panel")
    expect(apes).to_have_attribute("aria-busy", "false")
    _press(page, "#apes-start")
    expect(apes.locator(".job")).to_have_attribute("data-state", "queued")
    first = apes.locator(".job").get_attribute("data-job")
    _press(page, "#apes-start")
    expect(apes.locator(".job-status")).to_contain_text(f"APES run {first} queued")
    assert ApesRun.objects.count() == 1
    page.close()
