"""Uploading system outputs: the API (JSONL and zip), the directory format, versions and jobs."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from annotation.corpus.importers.bundle import ImportValidationError, SystemRecord
from annotation.corpus.importers.parsers.outputs_files import human_size
from annotation.corpus.models import Dataset
from scoring.scores.models import ScoringJob
from scoring.systems.models import OutputVersion, System, SystemOutput
from scoring.systems.services import UploadTooLargeError, system_outputs_upload

pytestmark = pytest.mark.django_db

URL = "/api/datasets/demo/outputs/"
ABSTRACT = {"system": "my-abs", "kind": "abstractive", "name": "My Abs"}


def jsonl(*records) -> bytes:
    return b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records
    )


def zipped(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def post(client, content: bytes, filename: str = "outputs.jsonl", **fields):
    form = {**ABSTRACT, **fields, "file": SimpleUploadedFile(filename, content)}
    return client.post(URL, form, format="multipart")


def issues(response) -> list[str]:
    """The 400 body's issues as ``file:line [field]: message`` strings."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["message"] == "The import is invalid; nothing was written."
    out = []
    for issue in body["extra"]["issues"]:
        text = issue["file"] + (f":{issue['line']}" if issue["line"] else "")
        text += f" [{issue['field']}]" if issue["field"] else ""
        out.append(f"{text}: {issue['message']}")
    return out


def counts() -> tuple[int, int, int, int]:
    return (
        SystemOutput.objects.count(),
        OutputVersion.objects.count(),
        ScoringJob.objects.count(),
        System.objects.count(),
    )


@pytest.fixture
def researcher(demo, client_for):
    return client_for("researcher")


def upload_path(path, slug: str = "d", user=None):
    """Upload a file or directory of outputs for an abstractive system through the service."""
    return system_outputs_upload(
        dataset=Dataset.objects.get(slug="demo"),
        system=SystemRecord(slug, slug.upper(), "abstractive"),
        source=path,
        filename=path.name,
        user=user,
    )


def upload_job(system: str, number: int) -> ScoringJob:
    """The scoring job queued for a system's version (the demo queues its own job too)."""
    return ScoringJob.objects.get(versions__system__slug=system, versions__number=number)


def sentences(external_id: str) -> list[str]:
    return Dataset.objects.get(slug="demo").documents.get(external_id=external_id).sentences


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
    assert len(queued) == 1


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
        "/api/auth/token/", {"username": "t-researcher", "password": "pw-researcher"}
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


def test_a_zip_of_per_document_files_is_imported(researcher):
    doc1, doc4 = sentences("demo-001"), sentences("demo-004")
    content = zipped(
        {
            "run-7/demo-001.txt": f"{doc1[2]}\n\n{doc1[0]}\n".encode(),
            "run-7/demo-004.txt": f"\ufeff{doc4[1]}\r\n".encode(),
            "__MACOSX/run-7/._demo-001.txt": b"\x00\x05\x16",
            "run-7/.DS_Store": b"\x00\x00",
        }
    )
    response = post(
        researcher, content, filename="outputs.zip", system="zip-ext", kind="extractive"
    )
    assert response.status_code == 201, response.content
    assert response.json()["outputs"] == 2 and response.json()["report"] == []
    outputs = SystemOutput.objects.filter(system__slug="zip-ext").order_by("document__position")
    assert [(o.document.external_id, o.extracted, o.extraction_method) for o in outputs] == [
        ("demo-001", [2, 0], "exact"),
        ("demo-004", [1], "exact"),
    ]
    assert outputs[0].sentences == [doc1[2], doc1[0]]
    assert OutputVersion.objects.get(system__slug="zip-ext").source == "outputs.zip"


def _bomb() -> bytes:
    return zipped({"demo-001.txt": b"A sentence.\n" + b" " * 3_000_000})


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        ({"demo-001.txt": b"A.", "notes.csv": b"a,b"}, "outputs.zip:notes.csv: only .txt files"),
        (
            {"a/demo-001.txt": b"A.", "b/demo-001.txt": b"B."},
            "outputs.zip:b/demo-001.txt [doc_id]: document id 'demo-001' is given twice "
            "(first by outputs.zip:a/demo-001.txt)",
        ),
        (
            {"demo-001.txt": b"Fine.\nCaf\xe9 au lait.\n"},
            "outputs.zip:demo-001.txt:2: not valid UTF-8 (byte 9 of the file)",
        ),
        (
            {"demo-001.txt": b"A.", "demo-002.txt": b" \n\n"},
            "outputs.zip:demo-002.txt [sentences]: empty file: give one summary sentence per line",
        ),
        (
            {"demo-001.txt": b"A.", "doc-7.txt": b"B."},
            "outputs.zip:doc-7.txt [doc_id]: unknown document id 'doc-7'",
        ),
        (
            {"../demo-001.txt": b"A."},
            "outputs.zip:../demo-001.txt: unsafe file name (absolute or with '..'); refused",
        ),
        (
            {"/etc/demo-001.txt": b"A."},
            "outputs.zip:/etc/demo-001.txt: unsafe file name (absolute or with '..'); refused",
        ),
        ({"__MACOSX/demo-001.txt": b"A."}, "outputs.zip: no <doc_id>.txt files found"),
        (_bomb, "outputs.zip: outputs.zip unpacks to 2.9 MB of files; the limit is 1.0 MB"),
    ],
    ids=[
        "not-txt",
        "nested-duplicate",
        "bad-utf8",
        "empty",
        "unknown-doc",
        "traversal",
        "absolute",
        "only-clutter",
        "zip-bomb",
    ],
)
def test_a_zip_with_a_bad_member_is_refused_naming_it(researcher, members, expected):
    content = members() if callable(members) else zipped(members)
    before = counts()
    with override_settings(LOUPE_UPLOAD_MAX_BYTES=1024 * 1024):
        assert len(content) < 1024 * 1024
        response = post(researcher, content, filename="outputs.zip")
    found = issues(response)
    assert len(found) == 1 and found[0].startswith(expected), found
    assert counts() == before


def test_a_corrupt_or_non_zip_archive_is_refused(researcher):
    stored = zipped({"demo-001.txt": b"A sentence."}, compression=zipfile.ZIP_STORED)
    corrupt = stored.replace(b"A sentence.", b"A sentenXe.")  # the CRC no longer matches
    assert issues(post(researcher, corrupt, filename="outputs.zip")) == [
        "outputs.zip:demo-001.txt: cannot be read (Bad CRC-32 for file 'demo-001.txt')"
    ]
    found = issues(post(researcher, b"plain text", filename="outputs.zip"))
    assert found == ["outputs.zip: not a readable zip archive (File is not a zip file)"]
    found = issues(post(researcher, b"x", filename="outputs.csv"))
    assert found[0].startswith("outputs.csv: unknown file type: upload a .jsonl file")


def test_a_directory_of_per_document_files_is_imported(demo, tmp_path, users):
    root = tmp_path / "bart-run"
    (root / "nested").mkdir(parents=True)
    (root / "demo-002.txt").write_text("Beetles drink fog.\n", encoding="utf-8")
    (root / "nested" / "demo-005.txt").write_text("One.\nTwo.\n", encoding="utf-8")
    (root / ".hidden.txt").write_text("ignored", encoding="utf-8")
    upload = upload_path(root, "dir-abs", users["researcher"])
    assert (upload.system, upload.version, upload.summary.outputs) == ("dir-abs", 1, 2)
    job = ScoringJob.objects.get(pk=upload.job_id)
    assert (job.trigger, [v.number for v in job.versions.all()]) == ("upload", [1])
    assert list(
        SystemOutput.objects.filter(system__slug="dir-abs")
        .order_by("document__position")
        .values_list("document__external_id", "sentences")
    ) == [("demo-002", ["Beetles drink fog."]), ("demo-005", ["One.", "Two."])]
    # A bad file is named by its path inside the directory; nothing is written.
    (root / "nested" / "demo-006.txt").write_bytes(b"\xff\xfe")
    (root / "readme.md").write_text("notes", encoding="utf-8")
    before = counts()
    with pytest.raises(ImportValidationError) as caught:
        upload_path(root, "dir-abs")
    assert [str(i) for i in caught.value.issues] == [
        "bart-run:nested/demo-006.txt:1: not valid UTF-8 (byte 0 of the file); "
        "save the file as UTF-8",
        "bart-run:readme.md: only .txt files are accepted, one per document named <doc_id>.txt",
    ]
    assert counts() == before


def test_links_in_a_directory_are_refused(demo, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "demo-001.txt").write_text("Secret.\n", encoding="utf-8")
    root = tmp_path / "run"
    root.mkdir()
    (root / "demo-001.txt").symlink_to(outside / "demo-001.txt")
    (root / "more").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ImportValidationError) as caught:
        upload_path(root)
    assert [str(i) for i in caught.value.issues] == [
        "run:demo-001.txt: not a regular file (a link?)",
        "run:more: not a regular file (a link?)",
    ]
    assert not System.objects.filter(slug="d").exists()


def test_a_directory_over_the_limit_is_refused(demo, tmp_path, settings):
    settings.LOUPE_UPLOAD_MAX_BYTES = 10
    root = tmp_path / "run"
    root.mkdir()
    (root / "demo-001.txt").write_text("A sentence that is long.\n", encoding="utf-8")
    with pytest.raises(ImportValidationError) as caught:
        upload_path(root)
    assert [str(i) for i in caught.value.issues] == [
        "run: run holds 25 bytes of files; the limit is 10 bytes (LOUPE_UPLOAD_MAX_BYTES)"
    ]


@pytest.mark.parametrize(("role", "status"), [("annotator", 403), ("norole", 403), (None, 401)])
def test_only_researchers_and_admins_may_upload(demo, client_for, role, status):
    before = counts()
    response = post(client_for(role), jsonl({"doc_id": "demo-001", "summary": "A."}))
    assert response.status_code == status
    assert counts() == before


def test_an_admin_may_upload_and_an_unknown_dataset_is_404(demo, client_for):
    admin = client_for("admin")
    assert post(admin, jsonl({"doc_id": "demo-001", "summary": "A."})).status_code == 201
    form = {**ABSTRACT, "file": SimpleUploadedFile("o.jsonl", b"{}")}
    assert admin.post("/api/datasets/nope/outputs/", form, format="multipart").status_code == 404
    missing = admin.post(URL, {"system": "x"}, format="multipart")
    assert missing.status_code == 400 and "file" in missing.json()["extra"]["fields"]


@pytest.mark.parametrize(
    ("username", "status", "link"),
    [("researcher", 200, True), ("admin", 200, True), ("annotator", 403, False)],
)
def test_the_upload_page_and_its_nav_link_are_for_researchers_and_admins(
    demo, client, username, status, link
):
    client.post("/login/", {"username": username, "password": f"loupe-{username}"})
    page = client.get("/upload/")
    assert page.status_code == status
    html = page.content.decode()
    if status == 200:
        assert 'id="upload-form"' in html and "loupe/upload" in html and "50.0 MB" in html
    else:
        assert "Only researchers and admins may see this page" in html
        assert "upload-form" not in html
    assert ('href="/upload/"' in client.get("/").content.decode()) is link


def test_the_upload_page_needs_a_login(client):
    response = client.get("/upload/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/upload/"
