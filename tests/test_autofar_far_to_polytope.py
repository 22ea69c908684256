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
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.corpus.models import Dataset
from scoring.autofar.models import AutoFarFit, AutoFarRun, RunStatus
from scoring.scores.models import DocumentScore
from scoring.scores.services import scoring_pending_run_inline
from tests.conftest import FAR_RELEASE, POLYTOPE_OUTPUTS, needs_far, needs_polytope

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
    assert "(new)" in text and "run 1 on polytope: succeeded" in text
    fit = AutoFarFit.objects.get()
    run = AutoFarRun.objects.get()
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
    rows = DocumentScore.objects.filter(version__dataset=polytope, metric="autofar_l")
    counts: dict[str, int] = {}
    for slug, value in rows.values_list("version__system__slug", "value"):
        assert math.isfinite(value)
        counts[slug] = counts.get(slug, 0) + 1
    assert counts == EXTRACTIVE
    assert run.result["outputs_predicted"] == sum(EXTRACTIVE.values())

    # Unchanged inputs reuse the fit (command and API); a second run replaces the rows.
    assert "(reused)" in _call(
        "autofar_l", "--fit-dataset", "cnndm-far", "--dataset", "polytope",
        "--resamples", RESAMPLES,
    )  # fmt: skip
    assert rows.count() == sum(EXTRACTIVE.values())
    researcher = client_for("researcher")
    response = researcher.post(
        "/api/autofar/fits/create/",
        {"dataset": "cnndm-far", "resamples": int(RESAMPLES)},
        format="json",
    )
    assert response.status_code == 200 and response.json()["id"] == fit.pk
    assert response.json()["report"]["table8"]["validation_rmse"] == table8["validation_rmse"]
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
