"""AutoFAR-L from the FAR release to the PolyTope release (shared data, read in place).

The FAR release (Mao et al. 2020) has human FAMs for 89 low-abstraction documents and six
extractive systems: AutoFAR is fitted there (``manage.py autofar_l``), then applied to the
PolyTope release's 150 CNN/DM documents, which have no FAM, for its four extractive systems
(BertSumExt, Lead-3, SummaRuNNer, TextRank; TextRank covers 149). Expected: an estimate per
output, finite; the leaderboard's column labelled as an estimate with the fit's figures; the
fit's figures are those ``manage.py autofar --format json`` prints for Table 8.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from annotation.corpus.models import Dataset
from scoring.autofar.models import AutoFarFit, AutoFarRun, RunStatus
from scoring.scores.services import scoring_pending_run_inline
from tests.conftest import FAR_RELEASE, POLYTOPE_OUTPUTS, needs_far, needs_polytope
from tests.jobs.processes import kill_inside_a_chunk, sigkill
from tests.score_helpers import stored_scores

EXTRACTIVE = {"bertsumext": 150, "lead-3": 150, "summarunner": 150, "textrank": 149}
RESAMPLES = "200"


def _call(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def _import() -> None:
    _call("import_dataset", str(FAR_RELEASE), "--format", "far-release", "--slug", "cnndm-far")
    _call(
        "import_dataset",
        str(POLYTOPE_OUTPUTS),
        "--format",
        "polytope-release",
        "--slug",
        "polytope",
    )


@pytest.mark.shared
@needs_far
@needs_polytope
@pytest.mark.django_db
def test_far_release_fit_applied_to_the_polytope_release(client_for):
    _import()
    text = _call(
        "autofar_l", "--fit-dataset", "cnndm-far", "--dataset", "polytope",
        "--resamples", RESAMPLES,
    )  # fmt: skip
    fit = AutoFarFit.objects.get()
    run = AutoFarRun.objects.get()
    # Its id, not 1: ids are not reset between tests (under xdist, whichever ran before here).
    assert "(new)" in text and f"run {run.pk} on polytope: succeeded" in text
    assert run.status == RunStatus.SUCCEEDED and run.dataset.slug == "polytope"

    # The fit's figures are the command's Table 8 on the same inputs.
    report = json.loads(_call("autofar", "--dataset", "cnndm-far", "--format", "json",
                              "--resamples", RESAMPLES))  # fmt: skip
    table8 = report["table8"]
    assert fit.rmse == pytest.approx(table8["model"]["rmse"], abs=1e-12)
    assert fit.r2 == pytest.approx(table8["model"]["r2"], abs=1e-12)
    assert fit.validation_rmse == pytest.approx(table8["validation_rmse"], abs=1e-12)
    assert fit.validation_r2 == pytest.approx(table8["validation_r2"], abs=1e-12)
    assert fit.features == table8["model"]["features"]
    assert fit.weights == pytest.approx(table8["model"]["weights"], abs=1e-12)
    assert fit.n_systems == 6 and fit.n_documents == report["meta"]["table8_documents"]
    assert fit.report["table6"] == report["table6"]

    # One finite estimate per extractive output of the four extractive systems.
    polytope = Dataset.objects.get(slug="polytope")
    counts: dict[str, int] = {}
    for score in stored_scores("autofar_l", version__dataset=polytope):
        assert math.isfinite(score.value)
        slug = score.row.version.system.slug
        counts[slug] = counts.get(slug, 0) + 1
    assert counts == EXTRACTIVE
    assert run.result["outputs_predicted"] == sum(EXTRACTIVE.values())

    # Unchanged inputs reuse the fit (command and API); a second run replaces the rows.
    assert "(reused)" in _call(
        "autofar_l", "--fit-dataset", "cnndm-far", "--dataset", "polytope",
        "--resamples", RESAMPLES,
    )  # fmt: skip
    assert len(stored_scores("autofar_l", version__dataset=polytope)) == sum(EXTRACTIVE.values())
    researcher = client_for("researcher")
    response = researcher.post(
        "/api/autofar/fits/create/",
        {"dataset": "cnndm-far", "resamples": int(RESAMPLES)},
        format="json",
    )
    assert response.status_code == 200 and response.json()["id"] == fit.pk
    assert response.json()["report"]["table8"]["validation_rmse"] == table8["validation_rmse"]
    # The API's report holds the paper's protocol and published figures, as the command.
    for key in ("table6_other", "table7_paper_protocol", "table8_paper_protocol"):
        assert response.json()["report"][key] == report[key], key
    assert (
        response.json()["report"]["table8_paper_protocol"]["paper"]["autofar"]["pearson"] == 0.976
    )
    listed = researcher.get("/api/autofar/fits/", {"dataset": "cnndm-far"}).json()
    assert [f["id"] for f in listed] == [fit.pk]

    # The PolyTope leaderboard shows the estimate beside the others, labelled as one.
    scoring_pending_run_inline(dataset=polytope)
    board = researcher.get("/api/datasets/polytope/leaderboard/").json()
    assert "autofar_l" in board["metrics"]
    block = board["autofar"]
    assert block["available"] and block["estimate"] and block["label"] == "AutoFAR-L (estimate)"
    note = (
        f"AutoFAR-L: estimated FAR from machine FAMs, fitted on cnndm-far, fit RMSE "
        f"{table8['model']['rmse']:.3f}, R\u00b2 {table8['model']['r2']:.3f}, "
        f"leave-one-system-out RMSE {table8['validation_rmse']:.3f} / "
        f"R\u00b2 {table8['validation_r2']:.3f}"
    )
    assert block["note"] == note and note in board["notes"]
    assert block["fit"]["validation_rmse"] == table8["validation_rmse"]
    systems = {row["system"]: row for row in board["systems"]}
    for slug, n in EXTRACTIVE.items():
        assert systems[slug]["autofar_l"]["n"] == n
        assert math.isfinite(systems[slug]["autofar_l"]["mean"])
    abstractive = [s for s, row in systems.items() if row["kind"] == "abstractive"]
    assert len(abstractive) == 6 and all(systems[s]["autofar_l"] is None for s in abstractive)


@needs_polytope
@pytest.mark.skipif(
    settings.CELERY_EMBEDDED_BROKER,
    reason="a killed worker's task comes back only on a broker with acknowledgements (Redis): "
    "set CELERY_BROKER_URL",
)
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(worker_factory):
    """One document per chunk on the PolyTope release; the worker is SIGKILLed inside a chunk:
    the chunk comes back on a new worker, chunks done before are not redone, and the rows equal
    a run in one piece."""
    from config.celery import app
    from scoring.autofar.models import AutoFarChunk
    from scoring.autofar.services import autofar_run_create, autofar_run_inline

    # Imported before the queue is switched: its scoring job goes where no worker listens.
    _call(
        "import_dataset",
        str(POLYTOPE_OUTPUTS),
        "--format",
        "polytope-release",
        "--slug",
        "polytope",
    )
    polytope = Dataset.objects.get(slug="polytope")
    source = Dataset.objects.create(slug="fit-source", name="fit source")
    fit = AutoFarFit.objects.create(
        dataset=source, scorers=["rouge1-f", "rougel-f"], top_ns=[1, 2], k=3,
        features=["rouge1-f@1", "rougel-f@2"], intercept=0.05,
        weights={"rouge1-f@1": 0.6, "rougel-f@2": 0.3}, rmse=0.2, report={}, n_documents=1,
        n_systems=3, n_rows=3, digest="kill",
    )  # fmt: skip
    queue = f"loupe-kill-{uuid.uuid4().hex[:8]}"
    previous, app.conf.task_default_queue = app.conf.task_default_queue, queue
    try:
        first = worker_factory(queue, env={"LOUPE_AUTOFAR_CHUNK": "1"})
        run = autofar_run_create(dataset=polytope, fit=fit)  # queued on commit
        chunks = AutoFarChunk.objects.filter(run=run)
        # Five chunks done, then the next one caught inside its write (the run's row held).
        caught = kill_inside_a_chunk(run, lambda: sigkill(first), done_first=5)
        run.refresh_from_db()
        interrupted = set(
            chunks.filter(attempts__gte=1, done_at__isnull=True).values_list("index", flat=True)
        )
        assert caught in interrupted
        assert run.status == RunStatus.RUNNING and 5 <= run.chunks_done < run.chunks_total == 150
        done_before = set(chunks.filter(done_at__isnull=False).values_list("index", flat=True))
        worker_factory(
            queue, env={"CELERY_VISIBILITY_TIMEOUT": "5", "CELERY_RESTORE_INTERVAL": "1"}
        )
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not run.finished:
            time.sleep(0.25)
            run.refresh_from_db()
    finally:
        app.conf.task_default_queue = previous
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.chunks_done == run.chunks_total == 150
    assert set(chunks.filter(attempts=1).values_list("index", flat=True)) >= done_before
    assert set(chunks.filter(attempts__gte=2).values_list("index", flat=True)) >= interrupted
    rows = stored_scores("autofar_l", version__dataset=polytope)
    stored = [(s.version_id, s.document_id) for s in rows]
    assert len(stored) == len(set(stored)) == sum(EXTRACTIVE.values())
    assert run.scores_written == len(stored) == run.result["outputs_predicted"]
    after_kill = {(s.version_id, s.document_id): s.value for s in rows}
    # A run in one piece gives the same estimates.
    whole = autofar_run_inline(run=autofar_run_create(dataset=polytope, fit=fit, queue=False),
                               chunk_size=150)  # fmt: skip
    assert whole.status == RunStatus.SUCCEEDED and whole.chunks_total == 1
    again = {
        (s.version_id, s.document_id): s.value
        for s in stored_scores("autofar_l", version__dataset=polytope)
    }
    assert again == pytest.approx(after_kill, abs=1e-12)
