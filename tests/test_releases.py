"""Dataset releases: layout, manifest hashes checked independently, the FAR files, the diff
summary, immutability, the job's failure and restart, pseudonymous annotators, permissions."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import struct
import tarfile
import zipfile

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam
from annotation.imports.bundle import ImportValidationError
from annotation.jobs.kernel import job_plan
from annotation.jobs.tasks import job_chunk_task
from scoring.releases.models import Release, ReleaseBuild, ReleaseStatus
from scoring.releases.selectors import release_archive_path, release_dir, releases_root
from scoring.releases.services import MAX_ATTEMPTS, RELEASE, release_build, release_create
from scoring.scores.services import scoring_pending_run_inline
from tests.release_helpers import (
    DEMO,
    build,
    fam_campaign,
    jsonl,
    members,
    released_spans,
)
from tests.score_helpers import stored_scores

pytestmark = pytest.mark.django_db

DATA_MEMBERS = {
    "DATASHEET.md",
    "agreement.json",
    "annotation_sets.jsonl",
    "documents.jsonl",
    "fams.jsonl",
    "far/FAMs.json",
    "far/idx2id.json",
    "far/idx2labels_demo-extsum.json",
    "far/idx2labels_lead-3.json",
    "outputs.jsonl",
    "polytope.jsonl",
    "scores.jsonl",
    "systems.jsonl",
}


def _fixture_documents() -> list[dict]:
    return [json.loads(line) for line in (DEMO / "dataset.jsonl").open(encoding="utf-8")]


@pytest.fixture
def scored(dataset):
    """The demo with its scores computed (here, not by a worker)."""
    scoring_pending_run_inline(dataset=dataset)
    return dataset


# --- layout and manifest ----------------------------------------------------------------------


def test_layout_and_every_hash_checked_independently(scored):
    release = build(scored, notes="first")
    assert release.status == ReleaseStatus.SUCCEEDED, release.error
    folder = releases_root() / "demo" / "1"
    assert release_dir(release) == folder
    assert sorted(p.name for p in folder.iterdir()) == [
        "demo-v1.zip",
        "items.tsv.gz",
        "manifest.json",
    ]
    # No staging folder is left behind.
    assert [p.name for p in (releases_root() / "demo").iterdir()] == ["1"]
    archive = folder / "demo-v1.zip"
    assert release.size == archive.stat().st_size
    assert release.sha256 == hashlib.sha256(archive.read_bytes()).hexdigest()
    with zipfile.ZipFile(archive) as zipped:
        infos = zipped.infolist()
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert all(i.filename.startswith("demo-v1/") for i in infos)
    found = members(release)
    assert set(found) == DATA_MEMBERS | {"manifest.json"}
    manifest = json.loads(found["manifest.json"])
    assert found["manifest.json"] == (folder / "manifest.json").read_bytes()
    assert manifest == release.manifest
    assert (manifest["format"], manifest["format_version"], manifest["version"]) == (
        "loupe-release",
        1,
        1,
    )
    assert manifest["loupe_version"] == "0.1.0"  # pyproject.toml
    assert manifest["dataset"]["slug"] == "demo" and manifest["dataset"]["license"] == "CC0-1.0"
    assert manifest["notes"] == "first" and manifest["previous_version"] is None
    listed = {entry["path"]: entry for entry in manifest["files"]}
    assert set(listed) == DATA_MEMBERS  # every file but the manifest itself
    for path, entry in listed.items():
        assert entry["sha256"] == hashlib.sha256(found[path]).hexdigest(), path
        assert entry["size"] == len(found[path]), path
        if path.endswith(".jsonl"):
            assert entry["rows"] == found[path].count(b"\n"), path
        assert found[path] == b"" or found[path].endswith(b"\n"), path


def test_documents_outputs_and_fams_say_what_the_fixtures_say(scored):
    found = members(build(scored))
    documents = jsonl(found["documents.jsonl"])
    fixture = _fixture_documents()
    assert [d["id"] for d in documents] == [d["id"] for d in fixture]
    first = documents[0]
    assert first["sentences"] == fixture[0]["sentences"]
    assert first["references"] == [{"label": "", "sentences": fixture[0]["references"][0]}]
    assert [d["category"] for d in documents] == [d["category"] for d in fixture]
    assert len(documents[2]["references"]) == 2  # demo-003 has two references
    # Canonical lines: sorted keys, no spaces.
    line = found["documents.jsonl"].split(b"\n", 1)[0]
    assert line.startswith(b'{"category":"low","id":"demo-001","meta":{},"references":')
    systems = json.loads((DEMO / "systems.json").read_text())
    assert jsonl(found["systems.jsonl"]) == sorted(systems, key=lambda s: s["slug"])
    outputs = jsonl(found["outputs.jsonl"])
    assert len(outputs) == 18
    assert [(o["system"], o["document"]) for o in outputs][:2] == [
        ("demo-abs", "demo-001"),
        ("demo-abs", "demo-002"),
    ]
    lead = next(o for o in outputs if (o["system"], o["document"]) == ("lead-3", "demo-001"))
    given = json.loads((DEMO / "outputs" / "lead-3.jsonl").open().readline())
    assert given["doc_id"] == "demo-001" and lead["extracted"] == given["extracted"]
    assert lead["method"] == "given" and lead["confidences"] == [1.0] * 3
    assert lead["sentences"] == fixture[0]["sentences"][:3]
    gold = json.loads((DEMO / "dataset_fams.json").read_text())
    fams = jsonl(found["fams.jsonl"])
    assert [(f["set"], f["document"], f["annotator"]) for f in fams] == [
        ("gold", doc, None) for doc in gold
    ]
    for fam in fams:
        assert [facet["groups"] for facet in fam["facets"]] == gold[fam["document"]]
    assert jsonl(found["annotation_sets.jsonl"]) == [
        {
            "kind": "gold",
            "name": "Demo gold FAMs",
            "read_only": False,
            "scheme": "fam",
            "slug": "gold",
        }
    ]
    scores = jsonl(found["scores.jsonl"])
    assert len(scores) == len(stored_scores(version__dataset=scored))
    assert {s["metric"] for s in scores} >= {"rouge1_f", "far@3", "sar@3"}
    assert found["polytope.jsonl"] == b""
    assert json.loads(found["agreement.json"]) == {"campaigns": [], "span_runs": []}
    sheet = found["DATASHEET.md"].decode()
    assert sheet.startswith("# Datasheet: Demo news\n")
    assert "- Documents: 6 (4 low abstraction, 1 noise, 1 high abstraction)" in sheet
    assert "## Licence\n\nCC0-1.0\n" in sheet


def test_far_files_in_the_far_release_structure(scored):
    found = members(build(scored))
    fixture = _fixture_documents()
    gold = json.loads((DEMO / "dataset_fams.json").read_text())
    ranks = {d["id"]: rank for rank, d in enumerate(fixture)}  # no sample_idx: the rank
    fams = json.loads(found["far/FAMs.json"])
    assert sorted(fams) == ["all_idx", "high_abs", "low_abs", "noise"]
    assert fams["all_idx"] == list(range(6))
    assert fams["noise"] == [ranks["demo-004"]] and fams["high_abs"] == [ranks["demo-006"]]
    low = [d["id"] for d in fixture if d["category"] == "low"]
    assert fams["low_abs"] == {
        str(ranks[doc]): {str(i): groups for i, groups in enumerate(gold[doc])} for doc in low
    }
    assert json.loads(found["far/idx2id.json"]) == {str(r): doc for doc, r in ranks.items()}
    lead = json.loads(found["far/idx2labels_lead-3.json"])
    assert lead == {str(r): [0, 1, 2] for r in range(6)}
    extsum = {
        json.loads(line)["doc_id"]: json.loads(line)["extracted"]
        for line in (DEMO / "outputs" / "demo-extsum.jsonl").open()
    }
    assert json.loads(found["far/idx2labels_demo-extsum.json"]) == {
        str(ranks[doc]): picks for doc, picks in extsum.items()
    }
    assert "far/idx2labels_demo-abs.json" not in found  # abstractive: nothing to list


def test_tar_gz_holds_the_same_bytes_with_fixed_headers(scored):
    zipped = members(build(scored))
    release = build(scored, archive="tar.gz")
    tarred = members(release)
    for name in DATA_MEMBERS:
        assert tarred[name] == zipped[name], name
    raw = release_archive_path(release).read_bytes()
    assert raw[:2] == b"\x1f\x8b" and struct.unpack("<I", raw[4:8])[0] == 0  # gzip mtime 0
    assert raw[3] & 0x08 == 0  # no file name in the gzip header
    with tarfile.open(release_archive_path(release), "r:gz") as archive:
        infos = archive.getmembers()
    assert {(i.mtime, i.uid, i.gid, i.uname, i.mode) for i in infos} == {
        (315532800, 0, 0, "", 0o644)
    }
    assert release_archive_path(release).name == "demo-v2.tar.gz"


def test_a_workbook_per_system_of_a_polytope_set(scored):
    released_spans(scored)
    found = members(build(scored))
    spans = jsonl(found["polytope.jsonl"])
    assert [(s["set"], s["system"], s["document"], s["no_errors"]) for s in spans] == [
        ("polytope-release", "demo-abs", "demo-001", False),
        ("polytope-release", "demo-abs", "demo-002", True),
    ]
    assert spans[0]["errors"][0]["words"] == "six to three"
    assert spans[0]["errors"][0]["severity"]  # derived by the scheme, kept as stored
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(found["workbooks/polytope-release/demo-abs.xlsx"]))
    log = book["Error Log"]
    rows = [[cell.value for cell in row] for row in log.iter_rows(min_row=2)]
    assert [row[0] for row in rows] == ["demo-001-demo-abs", "demo-002-demo-abs"]
    assert rows[0][7] == "six to three" and rows[1][9] == "No errors"
    assert book.properties.created.year == 1980  # fixed, so the bytes repeat
    with zipfile.ZipFile(io.BytesIO(found["workbooks/polytope-release/demo-abs.xlsx"])) as x:
        assert {i.date_time for i in x.infolist()} == {(1980, 1, 1, 0, 0, 0)}


# --- versions, diff, immutability -------------------------------------------------------------


def test_unchanged_data_gives_the_same_members_and_an_empty_diff(scored):
    first = build(scored)
    second = build(scored)
    assert (first.version, second.version) == (1, 2)
    a, b = members(first), members(second)
    assert {name: a[name] for name in DATA_MEMBERS} == {name: b[name] for name in DATA_MEMBERS}
    assert second.manifest["previous_version"] == 1
    assert second.diff == {
        "previous_version": 1,
        "documents": {"added": 0, "changed": 0, "removed": 0, "unchanged": 6},
        "outputs": {"added": 0, "changed": 0, "removed": 0, "unchanged": 18},
        "fams": {"added": 0, "changed": 0, "removed": 0, "unchanged": 6},
        "spans": {"added": 0, "changed": 0, "removed": 0, "unchanged": 0},
    }
    assert first.diff is None


def test_the_diff_counts_what_was_added_changed_and_removed(scored):
    build(scored)
    document = Document.objects.create(
        dataset=scored, external_id="demo-new", position=99, sentences=["One.", "Two."]
    )
    Reference.objects.create(document=document, sentences=["One."])
    changed = Fam.objects.get(annotation_set__slug="gold", document__external_id="demo-001")
    changed.facets = [{**changed.facets[0], "groups": [[0], [1]]}, *changed.facets[1:]]
    changed.save()
    Fam.objects.get(annotation_set__slug="gold", document__external_id="demo-002").delete()
    released_spans(scored)
    second = build(scored)
    assert second.diff == {
        "previous_version": 1,
        "documents": {"added": 1, "changed": 0, "removed": 0, "unchanged": 6},
        "outputs": {"added": 0, "changed": 0, "removed": 0, "unchanged": 18},
        "fams": {"added": 0, "changed": 1, "removed": 1, "unchanged": 4},
        "spans": {"added": 2, "changed": 0, "removed": 0, "unchanged": 0},
    }


def test_a_release_never_changes(scored, client_for):
    release = build(scored)
    archive = release_archive_path(release)
    before = (archive.read_bytes(), archive.stat().st_mtime_ns, release.sha256, release.manifest)
    Document.objects.filter(dataset=scored, external_id="demo-001").update(category="high")
    assert release_build(release=release).status == "succeeded"  # a repeat is a no-op
    release.refresh_from_db()
    assert (archive.read_bytes(), archive.stat().st_mtime_ns, release.sha256) == before[:3]
    assert release.manifest == before[3]
    admin = client_for("admin")
    url = "/api/datasets/demo/releases/1/"
    assert admin.put(url, {}, format="json").status_code == 405
    assert admin.delete(url).status_code == 405
    created = admin.post("/api/datasets/demo/releases/", {"archive": "tar.gz"}, format="json")
    assert created.status_code == 202
    assert created.json()["version"] == 2 and created.json()["status"] == "queued"
    assert created.json()["download_url"] is None
    assert Release.objects.get(dataset=scored, version=1).sha256 == before[2]


def test_progress_counts_every_row(scored):
    release = build(scored)
    expected = (
        6  # documents
        + 18  # outputs
        + 6  # gold FAMs
        + len(stored_scores(version__dataset=scored))  # one line per value
    )
    assert (release.progress_done, release.progress_total, release.stage) == (
        expected,
        expected,
        "done",
    )
    assert release.started_at <= release.finished_at and release.attempts == 1


# --- failures and restarts ----------------------------------------------------------------


def test_a_failed_build_is_recorded_and_leaves_nothing(scored, settings, tmp_path):
    settings.LOUPE_RELEASES_DIR = tmp_path / "blocked"
    settings.LOUPE_RELEASES_DIR.mkdir()
    (settings.LOUPE_RELEASES_DIR / "demo").write_text("a file where the folder goes")
    release = release_create(dataset=scored, queue=False)
    with pytest.raises(FileExistsError):
        release_build(release=release)
    release.refresh_from_db()
    assert release.status == ReleaseStatus.FAILED and "FileExistsError" in release.error
    assert [p.name for p in settings.LOUPE_RELEASES_DIR.iterdir()] == ["demo"]


def test_a_killed_workers_leftovers_are_removed_and_the_build_restarts(scored):
    release = release_create(dataset=scored, queue=False)
    job_plan(kind=RELEASE, job=release)  # a worker started the build, then died
    ReleaseBuild.objects.filter(release=release).update(attempts=1)
    Release.objects.filter(pk=release.pk).update(stage="fams")
    leftover = releases_root() / "demo" / ".tmp-1-deadbeef" / "demo-v1"
    leftover.mkdir(parents=True)
    (leftover / "documents.jsonl").write_text('{"half": ')
    assert release_build(release=release).status == "succeeded"
    assert sorted(p.name for p in (releases_root() / "demo").iterdir()) == ["1"]
    release.refresh_from_db()
    assert release.attempts == 2 and release.error == ""
    assert json.loads(members(release)["manifest.json"])["version"] == 1


def test_a_build_that_keeps_dying_is_failed(scored):
    release = release_create(dataset=scored, queue=False)
    (build,) = job_plan(kind=RELEASE, job=release)
    ReleaseBuild.objects.filter(pk=build.pk).update(attempts=MAX_ATTEMPTS)
    assert job_chunk_task.run("release", release.pk, build.pk) == 0
    release.refresh_from_db()
    assert release.status == "failed" and "never finished" in release.error
    assert not release_dir(release).exists()


# --- annotators ---------------------------------------------------------------------------


def test_annotators_only_when_asked_under_pseudonyms_and_only_submitted(scored, users):
    annotator = users["annotator"]
    campaign = fam_campaign(scored, annotator)
    plain = members(build(scored))
    assert [f["annotator"] for f in jsonl(plain["fams.jsonl"])] == [None] * 6
    release = build(scored, include_annotators=True)
    found = members(release)
    theirs = [f for f in jsonl(found["fams.jsonl"]) if f["annotator"] is not None]
    assert [(f["set"], f["document"], f["annotator"]) for f in theirs] == [
        (campaign.annotation_set.slug, "demo-001", "annotator-1")  # the draft of demo-002: no
    ]
    assert theirs[0]["facets"][0]["groups"] == [[0, 1]]  # saved as [1, 0]: groups are sorted
    assert theirs[0]["category_override"] == ""
    archive = release_archive_path(release).read_bytes()
    with zipfile.ZipFile(release_archive_path(release)) as zipped:
        for info in zipped.infolist():
            assert annotator.username.encode() not in zipped.read(info), info.filename
    assert annotator.username.encode() not in archive
    assert release.manifest["counts"]["annotators"] == 1
    assert (
        "their rows are included under pseudonyms (1 annotators" in found["DATASHEET.md"].decode()
    )
    assert "| release-fams | fam | open | 2 | 1 | none given |" in found["DATASHEET.md"].decode()


# --- the datasheet's agreement ---------------------------------------------------------------


def _section(sheet: str, title: str) -> str:
    start = sheet.index(f"## {title}\n")
    end = sheet.index("\n## ", start + 1)
    return sheet[start:end]


def test_the_datasheets_agreement_is_a_small_table_per_campaign():
    """The FAM campaign of tests/test_fam_agreement.py (its figures worked by hand there):
    jaccard_union 13/18 over 3 units, jaccard_groups 1/9, f1_union 37/45, kappa 0."""
    from tests.agreement_helpers import fam_run_compute
    from tests.test_fam_agreement import annotate, build_world, run_latest

    world = build_world()
    annotate(world)
    assert fam_run_compute(run_latest(world["campaign"]).pk) == "succeeded"
    sheet = members(build(world["dataset"]))["DATASHEET.md"].decode()
    section = _section(sheet, "Agreement")
    lines = section.splitlines()
    assert len(lines) <= 20, section
    assert "[0]" not in section and ".overall." not in section  # no flattened JSON keys
    assert "### Campaign `fagr-c` (FAM agreement, facet-aware mappings)" in section
    assert "2 documents compared; figures are current." in section
    header = lines.index("| measure | value | interval | n |")
    assert lines[header + 1] == "| --- | --- | --- | --- |"
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines[header + 2 :] if line}
    assert list(rows) == [
        "Jaccard, support sentences (`jaccard_union`)",
        "Jaccard, groups (`jaccard_groups`)",
        "F1, support sentences (`f1_union`)",
        "F1, groups (best match) (`f1_groups`)",
        "α (MASI), support sentences (`alpha_masi_union`)",
        "α (MASI), groups (`alpha_masi_groups`)",
        "κ, document category (`category_kappa`)",
        "α, document category (`category_alpha`)",
    ]
    assert re.fullmatch(
        r"\| Jaccard, support sentences \(`jaccard_union`\) \| 0\.722 \| "
        r"95% CI \d\.\d{3}–\d\.\d{3} \| 3 \|",
        rows["Jaccard, support sentences (`jaccard_union`)"],
    )
    assert " | 0.111 | " in rows["Jaccard, groups (`jaccard_groups`)"]
    assert " | 0.822 | " in rows["F1, support sentences (`f1_union`)"]
    assert " | 0.000 | " in rows["κ, document category (`category_kappa`)"]


# --- import of a release ------------------------------------------------------------------


def test_export_command_and_import_of_its_folder(scored, tmp_path, capsys):
    call_command("export_release", "--dataset", "demo", "--out", str(tmp_path / "out"))
    printed = capsys.readouterr().out
    assert "Release 1 of 'demo'" in printed and "6 documents" in printed
    folder = tmp_path / "out" / "demo-v1"
    assert (tmp_path / "out" / "demo-v1.zip").is_file()
    assert (folder / "documents.jsonl").read_bytes() == members(
        Release.objects.get(dataset=scored, version=1)
    )["documents.jsonl"]
    call_command("import_dataset", str(folder), "--format", "loupe-release", "--slug", "demo-copy")
    copy = Dataset.objects.get(slug="demo-copy")
    assert (copy.name, copy.license) == ("Demo news", "CC0-1.0")
    assert copy.documents.count() == 6
    assert AnnotationSet.objects.get(dataset=copy, slug="gold").kind == "gold"
    with pytest.raises(CommandError, match="no dataset 'nope'"):
        call_command("export_release", "--dataset", "nope")


def test_a_release_changed_after_export_is_refused(scored, tmp_path):
    from annotation.corpus.services import dataset_import

    call_command("export_release", "--dataset", "demo", "--out", str(tmp_path))
    documents = tmp_path / "demo-v1" / "documents.jsonl"
    documents.write_bytes(documents.read_bytes().replace(b"Brindlemere", b"Brindlemore", 1))
    with pytest.raises(ImportValidationError) as refused:
        dataset_import(format_name="loupe-release", source=tmp_path / "demo-v1", slug="tampered")
    (issue,) = refused.value.issues
    assert issue.location.file == "documents.jsonl"
    assert "differs from the manifest" in issue.message
    assert not Dataset.objects.filter(slug="tampered").exists()


def test_the_stored_release_folder_imports_from_its_archive(scored):
    from annotation.corpus.services import dataset_import

    release = build(scored, archive="tar.gz")
    summary = dataset_import(
        format_name="loupe-release", source=release_dir(release), slug="from-archive"
    )
    assert (summary.documents, summary.fams, summary.outputs) == (6, 6, 18)


def test_pseudonymous_annotators_come_back_as_sets_of_their_own(scored, users, tmp_path):
    from annotation.corpus.services import dataset_import

    campaign = fam_campaign(scored, users["annotator"])
    release = build(scored, include_annotators=True)
    dataset_import(format_name="loupe-release", source=release_dir(release), slug="copy")
    made = AnnotationSet.objects.get(
        dataset__slug="copy", slug=f"{campaign.annotation_set.slug}-annotator-1"
    )
    assert (made.kind, made.read_only, made.fams.count()) == ("human", True, 1)
    assert made.fams.get().annotator is None


# --- the API and who may read -------------------------------------------------------------


def test_private_releases_for_staff_public_ones_for_anyone(scored, client_for):
    release = build(scored)
    archive = release_archive_path(release).read_bytes()
    anonymous, annotator = client_for(None), client_for("annotator")
    researcher, admin = client_for("researcher"), client_for("admin")
    listing = "/api/datasets/demo/releases/"
    download = "/api/datasets/demo/releases/1/download/"
    assert anonymous.get(listing).status_code == 401
    assert annotator.get(listing).status_code == 403
    assert anonymous.get(download).status_code == 401
    assert annotator.get(download).status_code == 403
    (row,) = researcher.get(listing).json()
    assert row["version"] == 1 and row["status"] == "succeeded"
    assert row["progress"]["done"] == row["progress"]["total"]
    assert row["download_url"] == download and row["sha256"] == release.sha256
    assert row["manifest"]["files"] and row["diff"] is None
    got = researcher.get(download)
    assert got.status_code == 200 and b"".join(got.streaming_content) == archive
    assert got["Content-Type"] == "application/zip"
    assert 'filename="demo-v1.zip"' in got["Content-Disposition"]
    assert (
        researcher.patch("/api/datasets/demo/", {"public": True}, format="json").status_code == 403
    )
    made_public = admin.patch("/api/datasets/demo/", {"public": True}, format="json")
    assert made_public.status_code == 200 and made_public.json()["public"] is True
    assert anonymous.get(listing).status_code == 200
    got = anonymous.get(download, HTTP_ACCEPT="application/zip")
    assert got.status_code == 200 and b"".join(got.streaming_content) == archive
    assert anonymous.post(listing, {}, format="json").status_code == 401
    assert researcher.post(listing, {}, format="json").status_code == 403
    assert admin.get("/api/datasets/nope/releases/").status_code == 404
    assert admin.get("/api/datasets/demo/releases/9/").status_code == 404


def test_a_release_not_built_yet_cannot_be_downloaded(scored, client_for):
    release_create(dataset=scored, queue=False)
    admin = client_for("admin")
    got = admin.get("/api/datasets/demo/releases/1/download/")
    assert got.status_code == 409 and "once it succeeded" in got.json()["message"]
    bad = admin.post("/api/datasets/demo/releases/", {"archive": "rar"}, format="json")
    assert bad.status_code == 400
    assert Release.objects.filter(dataset=scored).count() == 1


def test_the_gzip_item_index_has_no_time_stamp(scored):
    release = build(scored)
    raw = (release_dir(release) / "items.tsv.gz").read_bytes()
    assert struct.unpack("<I", raw[4:8])[0] == 0
    lines = gzip.decompress(raw).decode().splitlines()
    assert len(lines) == 6 + 18 + 6
    assert lines[0].startswith('documents\t["demo-001"]\t')


# --- a real worker ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_api_queues_a_build_that_a_real_worker_runs(worker_factory, settings, client_for):
    import time
    import uuid

    from annotation.corpus.demo import demo_load
    from config.celery import app

    queue = f"loupe-release-{uuid.uuid4().hex[:8]}"
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    try:
        demo_load()
        worker_factory(queue, env={"LOUPE_RELEASES_DIR": str(settings.LOUPE_RELEASES_DIR)})
        admin = client_for("admin")
        queued = admin.post("/api/datasets/demo/releases/", {"notes": "by a worker"}, format="json")
        assert queued.status_code == 202 and queued.json()["status"] == "queued"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            row = admin.get("/api/datasets/demo/releases/1/").json()
            if row["status"] in ("succeeded", "failed"):
                break
            time.sleep(0.25)
    finally:
        app.conf.task_default_queue = previous
    assert row["status"] == "succeeded", row["error"]
    assert row["manifest"]["notes"] == "by a worker" and row["progress"]["stage"] == "done"
    got = admin.get(row["download_url"])
    body = b"".join(got.streaming_content)
    assert hashlib.sha256(body).hexdigest() == row["sha256"] == got["X-Content-SHA256"]


def test_the_web_import_takes_a_release_archive(scored, client_for):
    release = build(scored, archive="tar.gz")
    admin = client_for("admin")
    with release_archive_path(release).open("rb") as upload:
        answer = admin.post(
            "/api/datasets/import/",
            {"file": upload, "slug": "uploaded", "format": "loupe-release"},
            format="multipart",
        )
    assert answer.status_code == 201, answer.content[:500]
    assert (answer.json()["documents"], answer.json()["dataset"]) == (6, "uploaded")
    assert Dataset.objects.get(slug="uploaded").name == "Demo news"
