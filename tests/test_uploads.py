"""Uploading system outputs as JSONL through the API: versions, jobs, validation, size, dry runs."""

from __future__ import annotations

import pytest
from django.test import override_settings

from annotation.systems.models import OutputVersion, System, SystemOutput
from config.uploads import human_size
from scoring.uploads.services import UploadTooLargeError
from tests.upload_helpers import (
    ABSTRACT,
    counts,
    issues,
    jsonl,
    post,
    sentences,
    upload_job,
    upload_path,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _the_researcher_owns_the_demo_systems(demo, users):
    """New versions need the system's owner (see tests/scoring/test_ownership.py): here the
    researcher owns the demo's systems, so the tests can upload versions of lead-3."""
    System.objects.update(owner=users["researcher"])


def test_a_jsonl_upload_creates_version_1_and_queues_a_scoring_job(
    researcher, users, django_capture_on_commit_callbacks
):
    content = jsonl(
        {"doc_id": "demo-001", "summary": "The council voted. A library will open."},
        {"doc_id": "demo-002", "sentences": ["Beetles collect fog.", "Engineers take note."]},
    )
    with django_capture_on_commit_callbacks() as queued:
        response = post(researcher, content)
    assert response.status_code == 201, response.content
    body = response.json()
    job = upload_job("my-abs", 1)
    assert body == {
        "dataset": "demo",
        "system": "my-abs",
        "system_created": True,
        "version": 1,
        "documents": 2,
        "dataset_documents": 6,
        "outputs": 2,
        "dry_run": False,
        "report": [],
        "scoring_job": job.pk,
        "scoring_job_url": f"/api/scoring-jobs/{job.pk}/",
        "leaderboard_url": "/leaderboards/demo/",
    }
    version = OutputVersion.objects.get(system__slug="my-abs")
    assert (version.number, version.source, version.uploaded_by) == (
        1,
        "outputs.jsonl",
        users["researcher"],
    )
    assert list(version.outputs.order_by("document__position").values_list("sentences")) == [
        (["The council voted.", "A library will open."],),
        (["Beetles collect fog.", "Engineers take note."],),
    ]
    system = System.objects.get(slug="my-abs")
    assert (system.name, system.kind, system.owner) == (
        "My Abs",
        "abstractive",
        users["researcher"],
    )
    # The job scores exactly the new version, and is sent to the workers once the upload commits.
    assert (job.trigger, job.status, job.created_by) == ("upload", "queued", users["researcher"])
    assert list(job.versions.all()) == [version]
    # Two callbacks: the scoring job's and the dataset's bias run's (outputs_uploaded).
    assert len(queued) == 2
    from scoring.bias.models import BiasRun

    assert BiasRun.objects.get(dataset__slug="demo", status="queued").trigger == "upload"


def test_a_second_upload_is_version_2_and_version_1_stays_readable(researcher):
    first = post(
        researcher, jsonl({"doc_id": "demo-001", "extracted": [0, 1, 2]}), system="ext", kind=""
    )
    assert first.status_code == 400  # a new system needs its kind
    assert first.json()["message"].startswith("System 'ext' is new")
    # lead-3 already has version 1 (the demo); its kind is taken from the existing system.
    response = post(
        researcher, jsonl({"doc_id": "demo-001", "extracted": [2, 0]}), system="lead-3", kind=""
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["version"], body["system_created"], body["documents"]) == (2, False, 1)
    assert list(upload_job("lead-3", 2).versions.values_list("number", flat=True)) == [2]

    def listed(query: str):
        page = researcher.get(f"/api/systems/lead-3/outputs/?dataset=demo{query}").json()
        return [(o["external_id"], o["version"], o["extracted"]) for o in page["results"]]

    assert listed("&version=1") == [(f"demo-00{n}", 1, [0, 1, 2]) for n in range(1, 7)]
    assert listed("&version=2") == [("demo-001", 2, [2, 0])]
    assert len(listed("")) == 7


def test_acceptance_a_researcher_token_uploads_a_jsonl_with_one_bad_line(demo, users, client_for):
    """A researcher token uploads a JSONL file with one bad line. The response names the line,
    and nothing changes."""
    client = client_for(None)
    token = client.post(
        "/api/auth/token/",
        {"username": "t-researcher", "password": "pw-researcher"},
        format="json",
    ).json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    content = jsonl(
        {"doc_id": "demo-001", "summary": "Fine."},
        {"doc_id": "demo-002", "summary": "Fine too."},
        b'{"doc_id": "demo-003", "summary": "Broken"',
        {"doc_id": "demo-004", "summary": "Fine again."},
    )
    before = counts()
    response = post(client, content)
    assert issues(response) == [
        "outputs.jsonl:3: invalid JSON: Expecting ',' delimiter (column 43)"
    ]
    assert response.json()["extra"]["issues"][0]["line"] == 3
    assert counts() == before
    # The same token uploads the corrected file.
    fixed = content.replace(b'"Broken"', b'"Mended."}')
    assert post(client, fixed).status_code == 201
    assert SystemOutput.objects.filter(system__slug="my-abs").count() == 4


@pytest.mark.parametrize(
    ("records", "system", "expected"),
    [
        (
            [{"doc_id": "demo-001", "summary": "A."}, {"doc_id": "nope", "summary": "B."}],
            ABSTRACT,
            ["outputs.jsonl:2 [doc_id]: unknown document id 'nope'"],
        ),
        (
            [{"doc_id": "demo-001", "summary": "A."}, {"doc_id": "demo-001", "summary": "B."}],
            ABSTRACT,
            [
                "outputs.jsonl:2 [doc_id]: duplicate output for document 'demo-001' "
                "(first at outputs.jsonl:1 [summary])"
            ],
        ),
        (
            [{"doc_id": "demo-001", "extracted": [0, 99]}],
            {"system": "lead-3", "kind": ""},
            [
                "outputs.jsonl:1 [extracted]: index 99 is out of range for document 'demo-001', "
                "which has {n} sentences (valid: 0..{last})"
            ],
        ),
        (
            [{"doc_id": "demo-001", "summary": "A."}, {"doc_id": "demo-002", "summary": "  "}],
            ABSTRACT,
            ["outputs.jsonl:2 [summary]: must be a non-empty string"],
        ),
        (
            [{"doc_id": "demo-001", "summary": "A."}, b'{"doc_id": "demo-002", "summary": "\xff"}'],
            ABSTRACT,
            ["outputs.jsonl:2: not valid UTF-8 (byte 35 of the line); save the file as UTF-8"],
        ),
        (
            [{"doc_id": "demo-001", "extracted": [1]}],
            ABSTRACT,
            ["outputs.jsonl:1 [extracted]: system 'my-abs' is abstractive; give its summary text"],
        ),
        (
            [{"doc_id": "demo-001", "summary": "A."}],
            {"system": "lead-3", "kind": "abstractive"},
            ["system lead-3 [kind]: system 'lead-3' already exists as extractive, not abstractive"],
        ),
    ],
    ids=[
        "unknown-doc",
        "duplicate-doc",
        "index-range",
        "empty-summary",
        "bad-utf8",
        "indices-for-abstractive",
        "kind-mismatch",
    ],
)
def test_invalid_jsonl_is_refused_naming_the_line_and_nothing_is_written(
    researcher, records, system, expected
):
    n = len(sentences("demo-001"))
    before = counts()
    response = post(researcher, jsonl(*records), **system)
    found = issues(response)
    assert [i[: len(e)] for i, e in zip(found, expected, strict=True)] == [
        e.format(n=n, last=n - 1) for e in expected
    ]
    assert counts() == before


def test_a_file_over_the_limit_is_refused_with_413(researcher):
    content = jsonl(*({"doc_id": "demo-001", "summary": "x" * 40} for _ in range(3)))
    before = counts()
    with override_settings(LOUPE_UPLOAD_MAX_BYTES=100):
        response = post(researcher, content)
    assert response.status_code == 413
    assert response.json()["message"] == (
        f"outputs.jsonl is {len(content)} bytes; the limit is 100 bytes (LOUPE_UPLOAD_MAX_BYTES)"
    )
    assert response.json()["extra"] == {"size": len(content), "limit": 100}
    # A request far over the limit is refused from its Content-Length, before it is parsed.
    with override_settings(LOUPE_UPLOAD_MAX_BYTES=1000):
        response = post(researcher, b"x" * 200_000)
    assert response.status_code == 413
    assert response.json()["message"].startswith("The upload is 195.")
    assert counts() == before


def test_the_size_message_gives_megabytes_and_the_setting(demo, tmp_path, settings):
    assert settings.LOUPE_UPLOAD_MAX_BYTES == 50 * 1024 * 1024
    path = tmp_path / "outputs.jsonl"
    with path.open("wb") as handle:  # sparse: takes no disk space
        handle.truncate(int(61.2 * 1024 * 1024))
    with pytest.raises(UploadTooLargeError) as caught:
        upload_path(path)
    assert caught.value.message == (
        "outputs.jsonl is 61.2 MB; the limit is 50.0 MB (LOUPE_UPLOAD_MAX_BYTES)"
    )
    assert caught.value.status_code == 413
    assert (human_size(812), human_size(3482)) == ("812 bytes", "3.4 KB")


def test_a_dry_run_validates_and_writes_nothing(researcher):
    before = counts()
    content = jsonl({"doc_id": "demo-003", "extracted": [3, 1]})
    response = post(researcher, content, system="lead-3", kind="", dry_run="true")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["dry_run"], body["version"], body["scoring_job"], body["outputs"]) == (
        True,
        2,
        None,
        1,
    )
    assert body["scoring_job_url"] is None
    assert counts() == before
