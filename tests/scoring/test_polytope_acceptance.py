"""Acceptance on the public release: the PolyTope release and BART's official workbook imported
with the management commands, the scoring job run by calling its Celery tasks (not eager), and
``manage.py leaderboard --format json`` showing BART at 89.449 with 57 critical, 69 major and
1 minor errors (PROVENANCE.md)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.corpus.models import Dataset
from annotation.jobs.tasks import job_chunk_task
from scoring.scores.models import ErrorBreakdown, JobStatus, ScoringJob
from scoring.scores.services import scoring_job_finish, scoring_job_plan
from tests.conftest import POLYTOPE_OUTPUTS
from tests.polytope_target_helpers import BART_WORKBOOK, needs_bart_workbook
from tests.score_helpers import stored_scores

# PROVENANCE.md: "BART's workbook gives 89.449 (57 critical, 69 major, 1 minor, 4,341 words
# over its 68 annotated segments)".
PUBLISHED = 89.449

pytestmark = [pytest.mark.django_db, pytest.mark.shared, needs_bart_workbook]


def _run_tasks(job: ScoringJob) -> ScoringJob:
    """The job's work as a worker does it: plan the chunks, run each chunk task, finish."""
    for chunk in scoring_job_plan(job=job):
        job_chunk_task("scoring", job.pk, chunk.pk)
    scoring_job_finish(job=job)
    job.refresh_from_db()
    return job


@pytest.fixture
def bart(django_capture_on_commit_callbacks, capsys):
    with django_capture_on_commit_callbacks(execute=False):  # no broker: the tasks run below
        call_command(
            "import_dataset", str(POLYTOPE_OUTPUTS), "--format", "polytope-release",
            "--slug", "cnndm-polytope",
        )  # fmt: skip
        call_command(
            "import_polytope_workbook", str(BART_WORKBOOK), "--dataset", "cnndm-polytope",
            "--system", "bart",
        )  # fmt: skip
    capsys.readouterr()
    dataset = Dataset.objects.get(slug="cnndm-polytope")
    jobs = list(ScoringJob.objects.filter(dataset=dataset).order_by("pk"))
    # The release import queued the scoring of its outputs; the workbook's spans one more.
    assert [job.trigger for job in jobs] == ["upload", "spans"]
    for job in jobs:
        assert _run_tasks(job).status == JobStatus.SUCCEEDED, job.error
    return dataset


def test_bart_on_the_leaderboard_json_at_the_published_score(bart, capsys):
    call_command("leaderboard", "--dataset", "cnndm-polytope", "--format", "json")
    systems = {row["system"]: row for row in json.loads(capsys.readouterr().out)["systems"]}
    assert len(systems) == 10
    polytope = systems["bart"]["polytope"]
    assert polytope["score"] == pytest.approx(PUBLISHED, abs=0.01)
    assert (polytope["critical"], polytope["major"], polytope["minor"]) == (57, 69, 1)
    assert (polytope["n"], polytope["outputs"]) == (68, 150)
    assert polytope["sources"] == {"released": 68}
    assert polytope["ci_low"] < polytope["score"] < polytope["ci_high"]
    # Nobody annotated the other nine systems: no PolyTope, which is not a clean 100.
    assert all(row["polytope"] is None for slug, row in systems.items() if slug != "bart")
    with capsys.disabled():
        print(
            f"\nBART PolyTope {polytope['score']:.3f} [{polytope['ci_low']:.2f}, "
            f"{polytope['ci_high']:.2f}], {polytope['words']} words, penalty "
            f"{polytope['penalty']}, {polytope['clean']} clean of {polytope['n']}"
        )


def test_the_table_the_breakdown_and_the_correlations(bart, capsys, client_for):
    call_command("leaderboard", "--dataset", "cnndm-polytope")
    table = capsys.readouterr().out
    line = next(row for row in table.splitlines() if row.startswith("bart "))
    assert f"{PUBLISHED:.2f}"[:4] in line and "68/150 annotated" in line
    assert "57 critical, 69 major, 1 minor" in line
    board = client_for("researcher").get("/api/datasets/cnndm-polytope/leaderboard/").json()
    (row,) = [r for r in board["systems"] if r["system"] == "bart"]
    breakdown = row["polytope"]["breakdown"]
    assert breakdown["total"] == 127 and breakdown["severities"] == {
        "critical": 57,
        "major": 69,
        "minor": 1,
    }
    assert sum(breakdown["subtypes"].values()) == 127
    assert sum(sum(r.values()) for r in breakdown["severity_by_label"].values()) == 127
    # Stored per document: 68 breakdowns, each with its six PolyTope values.
    assert ErrorBreakdown.objects.filter(version__system__slug="bart").count() == 68
    assert len(stored_scores("polytope")) == 68
    levels = {(c["metric"], c["level"]): c for c in board["polytope"]["correlations"]}
    for metric in ("rouge1_f", "rouge2_f", "rougeL_f"):
        assert levels[metric, "instance"]["n"] == 68
        assert levels[metric, "system"]["pearson"]["value"] is None  # one annotated system
    # Sorted by PolyTope, BART comes first and the others follow.
    by_polytope = client_for("researcher").get(
        "/api/datasets/cnndm-polytope/leaderboard/", {"sort": "polytope"}
    )
    assert by_polytope.json()["systems"][0]["system"] == "bart"
    svg = client_for("researcher").get(
        "/api/datasets/cnndm-polytope/leaderboard/plots/polytope-subtypes.svg"
    )
    assert svg.status_code == 200 and b'data-system="bart"' in svg.content
    with capsys.disabled():
        print("\nBART subtypes:", json.dumps(breakdown["subtypes"]))
        for metric in ("rouge1_f", "rouge2_f", "rougeL_f"):
            c = levels[metric, "instance"]
            print(f"  {metric} instance (n={c['n']}): pearson {c['pearson']['value']:.3f}")
