"""Helpers of the release tests: build a release by calling its task, read its members back."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

from annotation.campaigns.services import (
    campaign_create,
    task_fam_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.fams.models import AnnotationSet
from annotation.spans.models import output_texts
from annotation.spans.services import SpanRecord, span_annotations_replace
from annotation.systems.models import SystemOutput
from scoring.releases.models import Release
from scoring.releases.selectors import release_archive_path
from scoring.releases.services import release_build, release_create

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"


def build(dataset, **options) -> Release:
    """Number a release of ``dataset`` and build it in this process (the job kernel's steps)."""
    return release_build(release=release_create(dataset=dataset, queue=False, **options))


def members(release: Release) -> dict[str, bytes]:
    """Every member of the release's archive by its path below the archive's one folder."""
    path = release_archive_path(release)
    root = f"{release.dataset.slug}-v{release.version}/"
    found = {}
    if release.archive == "zip":
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                assert info.filename.startswith(root), info.filename
                found[info.filename.removeprefix(root)] = archive.read(info)
    else:
        with tarfile.open(path, "r:gz") as archive:
            for member in archive.getmembers():
                assert member.name.startswith(root), member.name
                found[member.name.removeprefix(root)] = archive.extractfile(member).read()
    return found


def jsonl(data: bytes) -> list[dict]:
    """The objects of a JSONL member."""
    import json

    return [json.loads(line) for line in io.StringIO(data.decode("utf-8"))]


def span(output: SystemOutput, words: str, type_: str = "Addition", label: str = "Attribute"):
    """A PolyTope error on ``words`` of the output's summary."""
    summary, _source = output_texts(output)
    start = summary.index(words)
    return {
        "side": "summary",
        "start": start,
        "end": start + len(words),
        "words": words,
        "type": type_,
        "label": label,
        "reason": "",
    }


def demo_output(system: str, document: str) -> SystemOutput:
    """The demo's output of ``system`` for ``document``."""
    return SystemOutput.objects.select_related("document").get(
        system__slug=system, document__external_id=document, document__dataset__slug="demo"
    )


def released_spans(dataset) -> AnnotationSet:
    """A released PolyTope set of the demo: one error in demo-abs/demo-001, demo-002 clean."""
    annotation_set = AnnotationSet.objects.create(
        dataset=dataset,
        slug="polytope-release",
        name="PolyTope",
        kind="released",
        scheme="polytope",
    )
    first, second = demo_output("demo-abs", "demo-001"), demo_output("demo-abs", "demo-002")
    span_annotations_replace(
        annotation_set=annotation_set,
        records=[
            SpanRecord(output_id=first.pk, errors=(span(first, "six to three"),), no_errors=False),
            SpanRecord(output_id=second.pk, errors=(), no_errors=True),
        ],
        output_ids=[first.pk, second.pk],
    )
    return annotation_set


def fam_campaign(dataset, annotator):
    """A FAM campaign on demo-001 and demo-002 for ``annotator``: the first task submitted, the
    second only saved (a draft)."""
    campaign = campaign_create(
        dataset=dataset,
        slug="release-fams",
        name="R",
        scorers=[],
        documents=["demo-001", "demo-002"],
    )
    submitted, draft = tasks_assign_manual(
        campaign=campaign, assignments=[(d, annotator.username) for d in ("demo-001", "demo-002")]
    )
    for task in (submitted, draft):
        n = task.document.references.get(position=0).facet_count
        facets = [{"groups": [[1, 0]], "label": "supported", "note": ""}] + [
            {"groups": [], "label": "no_support", "note": ""}
        ] * (n - 1)
        task_fam_save(task=task, user=annotator, facets=facets, base_version=1)
    task_submit(task=submitted)
    return campaign
