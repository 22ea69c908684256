"""``manage.py import_outputs``: JSONL, zip and directory uploads, refusals and exit status."""

import io
import json
import os
import subprocess
import sys
import zipfile

import pytest
from django.core.management import CommandError, call_command

from annotation.systems.models import OutputVersion, SystemOutput
from scoring.scores.models import ScoringJob
from tests.conftest import ROOT, _test_database_url

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_outputs", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def write_jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_jsonl_file_becomes_a_new_version_and_a_job_is_queued(demo, tmp_path):
    path = write_jsonl(tmp_path / "lead.jsonl", {"doc_id": "demo-002", "extracted": [1, 0]})
    out, err = run("--dataset", "demo", "--system", "lead-3", path)
    job = ScoringJob.objects.get(versions__system__slug="lead-3", versions__number=2)
    assert out.splitlines() == [
        "Imported 1 output(s) of 'lead-3' on 'demo' (1 of 6 documents) as version 2.",
        "Report: no low-confidence mappings.",
        f"Scoring job {job.pk} queued (GET /api/scoring-jobs/{job.pk}/).",
    ]
    assert err == ""
    assert job.trigger == "upload"
    version = OutputVersion.objects.get(system__slug="lead-3", number=2)
    assert list(version.outputs.values_list("extracted", flat=True)) == [[1, 0]]


def test_the_report_lists_low_confidence_mappings(demo, tmp_path):
    path = write_jsonl(
        tmp_path / "ext.jsonl",
        {"doc_id": "demo-001", "sentences": ["Completely unrelated words about penguins."]},
    )
    # Accepted explicitly: without --accept-low-confidence the upload is refused (see
    # tests/test_uploads_alignment.py).
    out, _ = run(
        "--dataset",
        "demo",
        "--system",
        "new-ext",
        "--kind",
        "extractive",
        "--accept-low-confidence",
        path,
    )
    lines = out.splitlines()
    assert lines[0] == (
        "Imported 1 output(s) of 'new-ext' on 'demo' (1 of 6 documents) as version 1."
    )
    assert lines[1] == "Report (1 low-confidence mapping(s)):"
    assert lines[2].startswith(
        "  ext.jsonl:1 [sentences]: low-confidence mapping for new-ext on demo-001: "
        "'Completely unrelated words about penguins.' -> sentence "
    )
    assert OutputVersion.objects.get(system__slug="new-ext").report == [lines[2].strip()]


def test_a_zip_and_a_directory_are_imported(demo, tmp_path):
    archive = tmp_path / "outputs.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("demo-003.txt", "First line.\nSecond line.\n")
    out, _ = run("--dataset", "demo", "--system", "z", "--kind", "abstractive", archive)
    assert out.startswith("Imported 1 output(s) of 'z' on 'demo' (1 of 6 documents) as version 1.")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "demo-003.txt").write_text("Another.\n", encoding="utf-8")
    (folder / "demo-004.txt").write_text("More.\n", encoding="utf-8")
    out, _ = run("--dataset", "demo", "--system", "z", folder)
    assert out.startswith("Imported 2 output(s) of 'z' on 'demo' (2 of 6 documents) as version 2.")
    assert list(
        SystemOutput.objects.filter(system__slug="z")
        .order_by("version__number", "document__position")
        .values_list("version__number", "document__external_id", "sentences")
    ) == [
        (1, "demo-003", ["First line.", "Second line."]),
        (2, "demo-003", ["Another."]),
        (2, "demo-004", ["More."]),
    ]


def test_a_dry_run_writes_nothing(demo, tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", {"doc_id": "demo-001", "summary": "Text."})
    before = (SystemOutput.objects.count(), ScoringJob.objects.count())
    out, _ = run("--dataset", "demo", "--system", "d", "--kind", "abstractive", "--dry-run", path)
    assert out.splitlines() == [
        "Would import 1 output(s) of 'd' on 'demo' (1 of 6 documents) as version 1.",
        "Report: no low-confidence mappings.",
    ]
    assert (SystemOutput.objects.count(), ScoringJob.objects.count()) == before


def test_every_issue_goes_to_stderr_and_nothing_is_written(demo, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"doc_id": "demo-001", "summary": "Fine."}\n'
        '{"doc_id": "nope", "summary": "Unknown."}\n'
        '{"doc_id": "demo-002"}\n',
        encoding="utf-8",
    )
    before = (SystemOutput.objects.count(), OutputVersion.objects.count())
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as caught:
        call_command(
            "import_outputs",
            "--dataset=demo",
            "--system=b",
            "--kind=abstractive",
            str(path),
            stdout=out,
            stderr=err,
        )
    assert str(caught.value) == (
        "Upload refused: 2 problem(s) (listed above); nothing was written."
    )
    assert err.getvalue().splitlines() == [
        "  bad.jsonl:2 [doc_id]: unknown document id 'nope'",
        '  bad.jsonl:3 [summary]: give exactly one of "summary", "sentences" or "extracted"',
    ]
    assert (SystemOutput.objects.count(), OutputVersion.objects.count()) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset", "nope", "--system", "x"], "No dataset 'nope'."),
        (["--dataset", "demo", "--system", "x"], "Upload refused: System 'x' is new: say whether"),
    ],
)
def test_refusals_before_parsing(demo, tmp_path, args, message):
    path = write_jsonl(tmp_path / "a.jsonl", {"doc_id": "demo-001", "summary": "Text."})
    with pytest.raises(CommandError, match=message):
        run(*args, path)


def test_a_refused_upload_exits_with_status_1(db, tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", {"doc_id": "demo-001", "summary": "Text."})
    result = subprocess.run(
        [sys.executable, "manage.py", "import_outputs", "--dataset=x", "--system=y", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "SECRET_KEY": "t", "DATABASE_URL": _test_database_url()},
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "CommandError: No dataset 'x'.\n"
