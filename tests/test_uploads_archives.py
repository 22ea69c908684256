"""Uploading per-document files: zip archives through the API, and directories."""

from __future__ import annotations

import zipfile

import pytest
from django.test import override_settings

from annotation.imports.bundle import ImportValidationError
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.scores.models import ScoringJob
from tests.upload_helpers import counts, issues, post, sentences, upload_path, zipped

pytestmark = pytest.mark.django_db


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
