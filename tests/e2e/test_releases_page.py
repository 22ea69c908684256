"""The releases page end to end: an admin exports two versions of the demo (the Celery task
called by the test, as a worker would run it, while the page polls), sees each one's status,
checksum, manifest and diff against the previous one, and downloads the archive; a researcher
sees the versions without the export form."""

from __future__ import annotations

import hashlib

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import ARTIFACTS, login, requests_held
from tests.job_helpers import hold_job_sends

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queued(monkeypatch):
    """The release builds the page asks for, held instead of sent to a broker: the test runs
    them in the server's process by the job kernel's steps."""
    return hold_job_sends(monkeypatch, "release")


def _build(ids: list[int]) -> None:
    from scoring.releases.models import Release
    from scoring.releases.services import release_build

    while ids:
        release = Release.objects.get(pk=ids.pop(0))
        assert release_build(release=release).status == "succeeded"


def test_an_admin_exports_two_versions_and_downloads_one(context, demo, queued):
    from scoring.releases.models import Release

    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    page.goto(f"{demo.url}/manage/datasets/demo/releases/")
    expect(page.locator("#releases")).to_have_text("No release yet.")
    expect(page.locator("#title")).to_have_text("Releases of Demo news")

    # Version 1: tar.gz with the annotators, with a note.
    page.check("input[name=archive][value='tar.gz']")
    page.check("#include-annotators")
    page.fill("#notes", "First public cut")
    page.click("#export")
    expect(page.locator("#export-note")).to_have_text("Version 1 is queued.")
    first = page.locator("#releases li[data-version='1']")
    # Until a worker takes it, the page says so (and keeps polling).
    expect(first).to_have_attribute("data-status", "queued")
    expect(first.locator(".rel-progress")).to_have_text("Waiting for a worker…")
    expect(first.locator("progress")).to_have_count(1)
    assert len(queued) == 1
    _build(queued)
    expect(first).to_have_attribute("data-status", "succeeded", timeout=15_000)
    release = Release.objects.get(dataset=demo.dataset, version=1)
    assert release.archive == "tar.gz" and release.include_annotators
    expect(first.locator(".badge")).to_have_text("Ready")
    expect(page.locator("#export-note")).to_have_text("Version 1 is ready.")
    expect(first.locator("dd code")).to_have_text(release.sha256)
    expect(first).to_contain_text("The first version: no earlier one to compare.")
    expect(first).to_contain_text("First public cut")
    first.locator("details.rel-manifest summary").click()
    manifest = first.locator("details.rel-manifest pre")
    expect(manifest).to_contain_text('"format_version"')
    expect(manifest).to_contain_text('"include_annotators": true')

    # The download link serves the archive whose SHA-256 the page shows.
    link = first.locator("a.download")
    href = link.get_attribute("href")
    response = page.request.get(f"{demo.url}{href}")
    assert response.ok and response.headers["content-type"] == "application/gzip"
    assert hashlib.sha256(response.body()).hexdigest() == release.sha256

    # Version 2: zip, nothing changed since version 1: the diff says every item is unchanged.
    page.check("input[name=archive][value='zip']")
    page.uncheck("#include-annotators")
    page.click("#export")
    second = page.locator("#releases li[data-version='2']")
    expect(second).to_have_attribute("data-status", "queued")
    _build(queued)
    expect(second).to_have_attribute("data-status", "succeeded", timeout=15_000)
    documents = demo.dataset.documents.count()
    expect(second.locator("details.rel-diff summary")).to_have_text("Changes since version 1")
    expect(second.locator(".diff-lines li[data-kind='documents']")).to_have_text(
        f"documents: 0 added, 0 changed, 0 removed, {documents} unchanged"
    )
    expect(page.locator("#versions-note")).to_have_text("2 ready of 2")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "releases.png"), full_page=True)


def test_a_researcher_sees_the_versions_without_the_export_form(context, demo, queued):
    from scoring.releases.services import release_create

    release = release_create(dataset=demo.dataset, archive="zip", notes="For reading")
    _build(queued)
    page = context.new_page()
    login(page, demo.url, "researcher")
    page.goto(f"{demo.url}/manage/datasets/demo/releases/")
    item = page.locator(f"#releases li[data-version='{release.version}']")
    expect(item).to_have_attribute("data-status", "succeeded")
    expect(item.locator("a.download")).to_be_visible()
    expect(page.locator("#export-form")).to_be_hidden()
    expect(page.locator("#public")).to_be_hidden()


def test_the_public_switch_lets_anyone_download(context, demo, queued):
    from scoring.releases.services import release_create

    release_create(dataset=demo.dataset, archive="zip")
    _build(queued)
    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    page.goto(f"{demo.url}/manage/datasets/demo/releases/")
    box = page.locator("#public")
    expect(box).to_be_enabled()  # the page knows the dataset's setting
    expect(box).not_to_be_checked()
    href = page.locator("#releases a.download").get_attribute("href")
    box.check()
    expect(page.locator("#public-note")).to_have_text(
        "Anyone with a link may download the releases."
    )
    demo.dataset.refresh_from_db()
    assert demo.dataset.public
    # A visitor who is not logged in now gets the archive from the link.
    anonymous = context.browser.new_context()
    try:
        assert anonymous.request.get(f"{demo.url}{href}").ok
    finally:
        anonymous.close()


def test_the_public_switch_waits_for_the_server(context, demo):
    """The switch is usable only once the page has read the dataset's setting, and not while a
    change of it is on its way: an answer that arrives late never undoes what the admin just
    chose (before, ticking it before the page's first read returned was undone by that read)."""
    from annotation.corpus.services import dataset_set_public

    dataset_set_public(dataset=demo.dataset, public=True)
    page = context.new_page()
    login(page, demo.url, "admin", "loupe-admin")
    box = page.locator("#public")
    note = page.locator("#public-note")
    with requests_held(page, "**/api/datasets/demo/"):
        page.goto(f"{demo.url}/manage/datasets/demo/releases/")
        expect(box).to_be_disabled()  # the setting is not known yet
    expect(box).to_be_enabled()
    expect(box).to_be_checked()
    expect(note).to_have_text("Anyone with a link may download the releases.")

    with requests_held(page, "**/api/datasets/demo/"):
        box.uncheck()
        expect(box).to_be_disabled()  # the change is on its way
    expect(box).to_be_enabled()
    expect(box).not_to_be_checked()
    expect(note).to_have_text("Admins and researchers only.")
    demo.dataset.refresh_from_db()
    assert not demo.dataset.public
