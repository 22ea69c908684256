"""Dataset administration API: the dataset page's detail (categories, annotation sets, campaigns),
imports of a JSONL file or of a release folder packed as .zip/.tar.gz (validate only, import,
refusals with every issue), the archive's safety checks, and the formats list."""

from __future__ import annotations

import io
import pickle
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from annotation.campaigns.services import campaign_create, tasks_assign_manual
from annotation.corpus.models import Dataset, Document
from tests.importers.test_far_parser import DUMPS, HIGH, LOW, NOISE, URLS, _fams, _labels
from tests.importers.test_polytope_parser import write_release as write_polytope_release

pytestmark = pytest.mark.django_db


def far_release(root: Path) -> Path:
    """The far parser tests' synthetic release (three documents: low, noise, high)."""
    (root / "data").mkdir(parents=True)
    (root / "output").mkdir()
    (root / "data" / "all_test.txt").write_text("\n".join(URLS) + "\n")
    (root / "data" / "FAMs.pkl").write_bytes(pickle.dumps(_fams(), protocol=3))
    for name, labels in _labels().items():
        (root / "data" / f"idx2labels_{name}.pkl").write_bytes(pickle.dumps(labels, protocol=3))
    for name, text in zip(DUMPS, (LOW, NOISE, HIGH), strict=True):
        (root / "output" / name).write_text(text)
    return root


def zipped(folder: Path, *, name: str = "release.zip", inside: str | None = None) -> io.BytesIO:
    """``folder`` packed as a zip, under ``inside/`` (default: the folder's own name)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{inside or folder.name}/{path.relative_to(folder)}")
    buffer.seek(0)
    buffer.name = name
    return buffer


def tarred(folder: Path, name: str = "release.tar.gz") -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=folder.name)
    buffer.seek(0)
    buffer.name = name
    return buffer


def upload(admin, file, **fields):
    return admin.post("/api/datasets/import/", {"file": file, **fields}, format="multipart")


@pytest.fixture
def admin(db, client_for):
    return client_for("admin")


# --- the dataset page -----------------------------------------------------------------------


def test_the_dataset_detail_counts_categories_and_lists_sets_and_campaigns(demo, client_for):
    dataset = Dataset.objects.get(slug="demo")
    campaign = campaign_create(
        dataset=dataset, slug="det", name="Det", scorers=[], documents=["demo-001", "demo-004"]
    )
    tasks_assign_manual(
        campaign=campaign, assignments=[("demo-001", "annotator"), ("demo-004", "annotator")]
    )
    Document.objects.filter(dataset=dataset, external_id="demo-006").update(category="")
    body = client_for("annotator").get("/api/datasets/demo/").json()
    # fixtures/demo/dataset.jsonl: 001-003 and 005 low, 004 noise, 006 high (cleared above).
    assert body["categories"] == {"noise": 1, "low": 4, "high": 0, "": 1}
    assert body["document_count"] == 6 and body["public"] is False
    sets = {s["slug"]: s for s in body["annotation_sets"]}
    assert sets["gold"]["count"] == 6  # the demo's gold FAMs, one per document
    assert sets["campaign-det"] == {
        "id": campaign.annotation_set_id,
        "slug": "campaign-det",
        "name": "Campaign Det",
        "kind": "human",
        "scheme": "fam",
        "count": 2,
    }
    assert body["campaigns"] == [
        {"id": campaign.pk, "slug": "det", "name": "Det", "kind": "fam", "status": "open"}
    ]
    assert client_for("annotator").get("/api/datasets/nowhere/").status_code == 404


# --- JSONL files ----------------------------------------------------------------------------

JSONL = (
    b'{"id": "j1", "sentences": ["One.", "Two."], "references": [["One."]], "category": "low"}\n'
    b'{"id": "j2", "sentences": ["Three."], "references": [["Three."]]}\n'
)


def jsonl(data: bytes = JSONL, name: str = "small.jsonl") -> io.BytesIO:
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


def test_a_jsonl_file_is_validated_only_then_imported(admin):
    checked = upload(admin, jsonl(), slug="small", dry_run="true")
    assert checked.status_code == 200, checked.content
    body = checked.json()
    assert (body["dataset"], body["documents"], body["references"], body["dry_run"]) == (
        "small",
        2,
        2,
        True,
    )
    assert body["issues"] == [] and isinstance(body["report"], list)
    assert not Dataset.objects.filter(slug="small").exists()
    made = upload(admin, jsonl(), slug="small", name="Small one")
    assert made.status_code == 201, made.content
    assert made.json()["dry_run"] is False and made.json()["documents"] == 2
    assert Dataset.objects.get(slug="small").name == "Small one"
    detail = admin.get("/api/datasets/small/").json()
    assert detail["categories"] == {"noise": 0, "low": 1, "high": 0, "": 1}


def test_a_refused_file_lists_every_issue_where_it_is_and_writes_nothing(admin):
    bad = JSONL + b'{"id": "j3", "sentences": []}\nnot json\n'
    refused = upload(admin, jsonl(bad), slug="bad")
    assert refused.status_code == 400, refused.content
    body = refused.json()
    issues = body["extra"]["issues"]
    assert body["message"] == (
        f"The import is invalid ({len(issues)} problem(s)); nothing was written."
    )
    assert body["extra"]["report"] == []
    assert {i["line"] for i in issues} >= {3, 4}
    line4 = next(i for i in issues if i["line"] == 4)
    assert line4["file"] == "small.jsonl" and line4["where"].startswith("small.jsonl:4")
    assert not Dataset.objects.filter(slug="bad").exists()


def test_the_format_must_be_known(admin):
    refused = upload(admin, jsonl(), slug="x", format="csv")
    assert refused.status_code == 400 and "format" in refused.json()["extra"]["fields"]


# --- release folders packed as archives -----------------------------------------------------


def test_a_far_release_zip_is_validated_then_imported(admin, tmp_path):
    folder = far_release(tmp_path / "far-release")
    checked = upload(admin, zipped(folder), slug="far-up", format="far-release", dry_run=True)
    assert checked.status_code == 200, checked.content
    body = checked.json()
    assert (body["documents"], body["references"], body["dry_run"]) == (3, 3, True)
    assert body["annotation_sets"] == 1 and body["issues"] == []
    assert not Dataset.objects.filter(slug="far-up").exists()
    made = upload(admin, zipped(folder), slug="far-up", format="far-release")
    assert made.status_code == 201, made.content
    detail = admin.get("/api/datasets/far-up/").json()
    assert detail["categories"] == {"noise": 1, "low": 1, "high": 1, "": 0}
    assert [(s["slug"], s["count"]) for s in detail["annotation_sets"]] == [("released", 1)]


def test_a_tar_gz_release_with_the_short_format_name(admin, tmp_path):
    folder = far_release(tmp_path / "far")
    checked = upload(admin, tarred(folder), slug="far-tar", format="far", dry_run=True)
    assert checked.status_code == 200, checked.content
    assert checked.json()["documents"] == 3


def test_a_release_with_problems_is_refused_with_its_issues(admin, tmp_path):
    # The parser tests' two-story PolyTope release: the importer expects the release's 150.
    folder = write_polytope_release(tmp_path / "outputs")
    refused = upload(admin, zipped(folder), slug="pt-up", format="polytope")
    assert refused.status_code == 400, refused.content
    messages = [i["message"] for i in refused.json()["extra"]["issues"]]
    assert any("150" in m for m in messages), messages
    assert not Dataset.objects.filter(slug="pt-up").exists()


def _archive_with(entries) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for info, data in entries:
            archive.writestr(info, data)
    buffer.seek(0)
    buffer.name = "evil.zip"
    return buffer


def test_unsafe_archives_are_refused_naming_each_member(admin, tmp_path):
    link = zipfile.ZipInfo("release/data/link")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    evil = _archive_with(
        [
            (zipfile.ZipInfo("release/../escaped.txt"), b"x"),
            (zipfile.ZipInfo("/etc/owned"), b"x"),
            (link, b"/etc/passwd"),
            (zipfile.ZipInfo("release/data/all_test.txt"), b"http://example.com/a\n"),
        ]
    )
    refused = upload(admin, evil, slug="evil", format="far-release")
    assert refused.status_code == 400, refused.content
    issues = {(i["file"], i["message"]) for i in refused.json()["extra"]["issues"]}
    assert issues == {
        ("evil.zip:release/../escaped.txt", "unsafe name (absolute or with '..')"),
        ("evil.zip:/etc/owned", "unsafe name (absolute or with '..')"),
        ("evil.zip:release/data/link", "not a regular file (a link?); refused"),
    }
    assert not (tmp_path.parent / "escaped.txt").exists()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        member = tarfile.TarInfo("release/data/link")
        member.type, member.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(member)
    buffer.seek(0)
    buffer.name = "evil.tar.gz"
    refused = upload(admin, buffer, slug="evil", format="far-release")
    assert [i["message"] for i in refused.json()["extra"]["issues"]] == [
        "not a regular file (a link?); refused"
    ]
    assert not Dataset.objects.filter(slug="evil").exists()


def test_not_an_archive_an_empty_one_and_one_too_large_unpacked(admin, settings):
    text = jsonl(b"just text, not an archive", name="release.zip")
    refused = upload(admin, text, slug="x", format="far-release")
    assert refused.status_code == 400
    [issue] = refused.json()["extra"]["issues"]
    assert issue["file"] == "release.zip"
    assert issue["message"].startswith("not a readable .zip or .tar.gz archive")
    empty = _archive_with([(zipfile.ZipInfo("__MACOSX/._x"), b"")])
    [issue] = upload(admin, empty, slug="x", format="far-release").json()["extra"]["issues"]
    assert issue["message"] == "the archive holds no file"
    settings.LOUPE_UPLOAD_MAX_BYTES = 2000
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("release/zeros.txt", b"0" * 5000)
    bomb.seek(0)
    bomb.name = "bomb.zip"
    [issue] = upload(admin, bomb, slug="x", format="far-release").json()["extra"]["issues"]
    assert issue["message"] == (
        "unpacks to 5000 bytes; the limit is 2000 bytes (LOUPE_UPLOAD_MAX_BYTES)"
    )


def test_the_formats_say_what_each_upload_takes(admin):
    formats = {f["name"]: f for f in admin.get("/api/formats/").json()}
    assert formats["jsonl"]["upload"] == "file"
    for name in ("far-release", "polytope-release", "xsum-hallucinations", "loupe-release"):
        assert formats[name]["upload"] == "archive" and formats[name]["description"]
