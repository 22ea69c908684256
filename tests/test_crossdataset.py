"""Cross-dataset evaluation in the platform: the example's rows -> API, command, missing cells."""

from __future__ import annotations

import hashlib
import io
import json
import time
from datetime import timedelta
from xml.etree import ElementTree

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from scipy import stats as scipy_stats

from annotation.corpus.models import Dataset, Document
from annotation.jobs.tasks import job_chunk_task
from annotation.systems.models import OutputVersion, System
from scoring.crossdataset.models import CrossDatasetPairTest, CrossDatasetTestRun
from scoring.crossdataset.report import pair_tests_compute
from scoring.crossdataset.selectors import crossdataset_inputs_digest
from scoring.crossdataset.services import (
    CROSSDATASET,
    crossdataset_test_run_finish,
    crossdataset_test_run_inline,
    crossdataset_test_run_plan,
)
from tests.crossdataset_helpers import EXAMPLE, example_load, version_add
from tests.score_helpers import score_plant, stored_scores

URL = "/api/crossdataset/"

# Hand-worked in tests/metrics/test_crossdataset.py and scoring/metrics/crossdataset/README.md:
# each cell's two documents are U +/- delta, so every cell mean is U (rows train, columns test).
U = {
    "S1": [[0.50, 0.20, 0.30], [0.25, 0.40, 0.15], [0.25, 0.20, 0.60]],
    "S2": [[0.40, 0.30, 0.30], [0.30, 0.30, 0.30], [0.20, 0.15, 0.30]],
    "S3": [[0.60, 0.25, 0.40], [0.30, 0.50, 0.20], [0.45, 0.25, 0.40]],
}
STIFFNESS = {"S1": 2.85 / 9, "S2": 2.55 / 9, "S3": 3.35 / 9}
STABLENESS = {"S1": 5.75 / 9, "S2": 7.75 / 9, "S3": 6.75 / 9}
IN_DATASET = {"S1": 0.5, "S2": 1 / 3, "S3": 0.5}
# The paper's formulas as printed divide the same sums by N = 3 instead of N² = 9.
STIFFNESS_PRINTED = {name: value * 3 for name, value in STIFFNESS.items()}
STABLENESS_PRINTED = {name: value * 3 for name, value in STABLENESS.items()}
NORMALISED = {
    name: [[value / u[j][j] for j, value in enumerate(row)] for row in u] for name, u in U.items()
}
EVERY_PATTERN = scipy_stats.PermutationMethod(n_resamples=np.inf)


def wilcoxon_over_cells(a: str, b: str) -> dict[str, float]:
    """SciPy's Wilcoxon p over the hand-worked cells (differences rounded, zeros dropped; the
    example's cells tie, so every sign pattern is enumerated)."""
    found = {}
    for measure, matrices in (("stiffness", U), ("stableness", NORMALISED)):
        d = np.round(np.subtract(matrices[a], matrices[b]).ravel(), 12)
        found[measure] = float(scipy_stats.wilcoxon(d[d != 0], method=EVERY_PATTERN).pvalue)
    return found


@pytest.fixture
def loaded(db):
    return example_load()


def get(client, **params):
    return client.get(URL, params)


def by_system(body) -> dict:
    return {entry["system"]: entry for entry in body["systems"]}


def test_the_api_gives_the_hand_checked_figures_and_rankings(loaded, client_for):
    response = get(client_for("researcher"), metric="rouge1_f", datasets="A,B,C")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["metric"], body["datasets"], body["missing"]) == (
        "rouge1_f",
        ["A", "B", "C"],
        "error",
    )
    systems = by_system(body)
    assert sorted(systems) == ["S1", "S2", "S3"]
    assert systems["S1"]["stiffness"] == pytest.approx(0.3167, abs=5e-5)
    assert systems["S1"]["stableness"] == pytest.approx(0.6389, abs=5e-5)
    for name, entry in systems.items():
        # The current version (2) of S1 trained on A is read on A, not version 1 (0.99 each).
        for got, want in zip(entry["u"], U[name], strict=True):
            assert got == pytest.approx(want, abs=1e-12)
        assert entry["stiffness"] == pytest.approx(STIFFNESS[name], abs=1e-12)
        assert entry["stableness"] == pytest.approx(STABLENESS[name], abs=1e-12)
        assert entry["in_dataset"] == pytest.approx(IN_DATASET[name], abs=1e-12)
        assert entry["stiffness_printed"] == pytest.approx(STIFFNESS_PRINTED[name], abs=1e-12)
        assert entry["stableness_printed"] == pytest.approx(STABLENESS_PRINTED[name], abs=1e-12)
        assert entry["n_documents"] == [[2, 2, 2]] * 3
        assert entry["excluded"] == []
    for got, want in zip(
        systems["S1"]["normalised"], [[1, 0.5, 0.5], [0.5, 1, 0.25], [0.5, 0.5, 1]], strict=True
    ):
        assert got == pytest.approx(want, abs=1e-12)
    assert body["ranking"] == {
        "stiffness": ["S3", "S1", "S2"],
        "stableness": ["S2", "S3", "S1"],
        "in_dataset": ["S1", "S3", "S2"],
    }
    ranks = {
        n: (e["rank_stiffness"], e["rank_stableness"], e["rank_in_dataset"])
        for n, e in systems.items()
    }
    assert ranks == {"S1": (2, 3, 1), "S2": (3, 1, 3), "S3": (1, 2, 1)}
    assert body["left_out"] == []
    assert "sign-flip" in body["test_description"]
    assert "Wilcoxon" in body["test_description"] and body["alpha"] == 0.05
    assert "N²" in body["normalisation"] and "as printed" in body["normalisation"]


def _run_tests(client, **params):
    """Start the paired tests through the API and run them here, as the workers would."""
    started = client.post(f"{URL}tests/", params, format="json")
    assert started.status_code == 202, started.content
    run = CrossDatasetTestRun.objects.get(pk=started.json()["run"])
    assert started.json()["state"] == "queued"
    return crossdataset_test_run_inline(run=run)


def test_each_pair_is_tested_on_the_workers_and_its_statistic_is_the_stiffness_difference(
    loaded, client_for
):
    client = client_for("admin")
    before = get(client, metric="rouge1_f", resamples=500).json()
    assert before["tests"] == []
    assert before["tests_run"] == {
        "run": None,
        "state": "none",
        "pairs_done": 0,
        "pairs_total": 0,
        "recoveries": 0,
        "recovery_note": "",
        "error": "",
        "tests": [],
    }
    run = _run_tests(client, metric="rouge1_f", resamples=500)
    assert (run.status, run.pairs_done, run.pairs_total) == ("succeeded", 3, 3)
    body = get(client, metric="rouge1_f", resamples=500).json()
    assert (body["tests_run"]["run"], body["tests_run"]["state"]) == (run.pk, "succeeded")
    pairs = {(t["system_a"], t["system_b"]): t for t in body["tests"]}
    assert sorted(pairs) == [("S1", "S2"), ("S1", "S3"), ("S2", "S3")]
    for (a, b), test in pairs.items():
        assert test["statistic"] == pytest.approx(STIFFNESS[a] - STIFFNESS[b], abs=1e-12)
        assert 0 < test["p_value"] <= 1
        # 9 cells x 2 documents: too many units for the exact test, so 500 patterns are drawn.
        assert (test["n"], test["cells"], test["exact"], test["resamples"]) == (18, 9, False, 500)
        assert (test["dropped_a"], test["dropped_b"], test["error"]) == (0, 0, "")
        # The paper's Wilcoxon tests, computed by the same pair task.
        wilcoxon = {(w["measure"], w["reading"]): w for w in test["wilcoxon"]}
        assert sorted(wilcoxon) == [
            ("stableness", "cells"),
            ("stableness", "documents"),
            ("stiffness", "cells"),
            ("stiffness", "documents"),
        ]
        assert test["wilcoxon_error"] == ""
        scipy_p = wilcoxon_over_cells(a, b)
        for measure, expected in scipy_p.items():
            cells = wilcoxon[(measure, "cells")]
            assert cells["p_value"] == pytest.approx(expected, abs=1e-15)
            assert cells["n"] == 9 and cells["test"] == "Wilcoxon signed-rank (SciPy)"
            assert wilcoxon[(measure, "documents")]["n"] == 18
        assert wilcoxon[("stiffness", "cells")]["mean_difference"] == pytest.approx(
            STIFFNESS[a] - STIFFNESS[b], abs=1e-12
        )
        assert wilcoxon[("stableness", "cells")]["mean_difference"] == pytest.approx(
            STABLENESS[a] - STABLENESS[b], abs=1e-12
        )
    # S1 vs S2, worked by hand in tests/metrics/test_crossdataset.py: 0.65625 and 0.125.
    s1_s2 = {w["measure"]: w for w in pairs[("S1", "S2")]["wilcoxon"] if w["reading"] == "cells"}
    assert (s1_s2["stiffness"]["p_value"], s1_s2["stableness"]["p_value"]) == (0.65625, 0.125)
    assert (s1_s2["stiffness"]["statistic"], s1_s2["stiffness"]["zeros"]) == (14.0, 1)
    # The command computes the same tests in-process (same seed, same units, same p).
    data = json.loads(run_command("--format", "json", "--resamples", "500"))
    assert data["tests"] == body["tests"]
    # Another resampling count is another request: no tests for it yet.
    assert get(client, metric="rouge1_f", resamples=400).json()["tests_run"]["state"] == "none"
    # The same request reuses the run; a new score (a new upload) makes it stale.
    again = client.post(f"{URL}tests/", {"metric": "rouge1_f", "resamples": 500}, format="json")
    assert (again.status_code, again.json()["run"]) == (200, run.pk)
    version_add(
        System.objects.get(slug="s1-a"),
        Dataset.objects.get(slug="B"),
        {"b1": 0.25, "b2": 0.15},
        metric="rouge1_f",
    )
    stale = get(client, metric="rouge1_f", resamples=500).json()
    assert (stale["tests_run"]["state"], stale["tests"]) == ("none", [])
    fresh = client.post(f"{URL}tests/", {"metric": "rouge1_f", "resamples": 500}, format="json")
    assert fresh.status_code == 202 and fresh.json()["run"] != run.pk


def test_a_pending_run_is_shared_and_a_lost_queued_one_replaced(loaded, client_for):
    client = client_for("researcher")
    params = {"metric": "rouge1_f", "resamples": 200}
    first = client.post(f"{URL}tests/", params, format="json").json()
    second = client.post(f"{URL}tests/", params, format="json")
    # The pending run is named (409), not doubled.
    assert second.status_code == 409 and second.json()["extra"]["run"] == first["run"]
    assert CrossDatasetTestRun.objects.count() == 1
    CrossDatasetTestRun.objects.filter(pk=first["run"]).update(
        created_at=timezone.now() - timedelta(hours=1)
    )
    third = client.post(f"{URL}tests/", params, format="json").json()
    assert third["run"] != first["run"]
    lost = CrossDatasetTestRun.objects.get(pk=first["run"])
    assert lost.status == "failed" and "never started" in lost.error
    detail = client.get(f"{URL}tests/{first['run']}/").json()
    assert (detail["state"], detail["tests"]) == ("failed", [])


def test_tests_need_two_systems_and_valid_scores(loaded, client_for):
    client = client_for("researcher")
    _drop_cell("s2-a", "B")
    refused = client.post(f"{URL}tests/", {"metric": "rouge1_f"}, format="json")
    assert refused.status_code == 400 and "'S2'" in refused.json()["message"]
    assert not CrossDatasetTestRun.objects.exists()
    System.objects.filter(name__in=["S2", "S3"]).update(trained_on="")
    few = client.post(f"{URL}tests/", {"metric": "rouge1_f"}, format="json")
    assert few.status_code == 400
    assert "need at least two" in few.json()["message"]


def test_the_pair_tasks_are_idempotent_and_a_worker_killed_too_often_fails_the_run(
    loaded, client_for
):
    client = client_for("researcher")
    started = client.post(f"{URL}tests/", {"metric": "rouge1_f", "resamples": 200}, format="json")
    run = CrossDatasetTestRun.objects.get(pk=started.json()["run"])
    pairs = crossdataset_test_run_plan(run=run)
    assert [(p.system_a, p.system_b) for p in pairs] == [("S1", "S2"), ("S1", "S3"), ("S2", "S3")]
    first, second, third = pairs
    assert job_chunk_task.run("crossdataset", run.pk, first.pk) == 1
    stored = CrossDatasetPairTest.objects.get(pk=first.pk).result
    # Redelivered (acks_late after a lost acknowledgement): nothing is stored twice.
    assert job_chunk_task.run("crossdataset", run.pk, first.pk) == 0
    assert CrossDatasetPairTest.objects.get(pk=first.pk).result == stored
    # The callback sees pairs left: the run stays running.
    assert not crossdataset_test_run_finish(run=run)
    # A pair whose worker died four times fails the run, naming it.
    CrossDatasetPairTest.objects.filter(pk=second.pk).update(attempts=CROSSDATASET.max_attempts)
    assert job_chunk_task.run("crossdataset", run.pk, second.pk) == 0
    run.refresh_from_db()
    assert run.status == "failed" and "S1 vs S3 was started 4 times" in run.error
    assert (
        job_chunk_task.run("crossdataset", run.pk, third.pk) == 0
    )  # a failed run does no more work
    assert (run.pairs_done, CrossDatasetPairTest.objects.filter(done_at__isnull=False).count()) == (
        1,
        1,
    )


def test_the_default_datasets_are_those_both_trained_and_tested_on(loaded, client_for):
    # D is a test set only (S1 trained on A has outputs on it): not a default dataset.
    d = Dataset.objects.create(slug="D", name="D")
    Document.objects.create(dataset=d, external_id="d1", sentences=["One."])
    version_add(System.objects.get(slug="s1-a"), d, {"d1": 0.3}, metric="rouge1_f")
    body = get(client_for("researcher"), metric="rouge1_f").json()
    assert body["datasets"] == ["A", "B", "C"]
    assert by_system(body)["S1"]["stiffness"] == pytest.approx(STIFFNESS["S1"], abs=1e-12)


def _drop_cell(system: str, test: str):
    OutputVersion.objects.filter(system__slug=system, dataset__slug=test).delete()


def test_a_missing_cell_is_refused_by_default_and_excluded_for_every_system_when_asked(
    loaded, client_for
):
    _drop_cell("s2-a", "B")  # S2 trained on A, never tested on B
    client = client_for("researcher")
    refused = get(client, metric="rouge1_f")
    assert refused.status_code == 400
    assert "'S2'" in refused.json()["message"]
    assert "('A', 'B')" in refused.json()["message"]
    assert "exclude" in refused.json()["message"]
    body = get(client, metric="rouge1_f", missing="exclude").json()
    assert body["excluded"] == [["A", "B"]]
    systems = by_system(body)
    for entry in systems.values():
        assert entry["excluded"] == [["A", "B"]]
        assert entry["u"][0][1] is None and entry["normalised"][0][1] is None
        assert entry["n_documents"][0][1] == 0
    # S1 without its (A, B) cell (.20, normalised .5): the means over the 8 other cells.
    assert systems["S1"]["stiffness"] == pytest.approx((2.85 - 0.20) / 8, abs=1e-12)
    assert systems["S1"]["stableness"] == pytest.approx((5.75 - 0.5) / 8, abs=1e-12)
    assert systems["S1"]["in_dataset"] == pytest.approx(0.5, abs=1e-12)
    # The paired tests (run here as on a worker) cover 8 cells x 2 documents.
    _run_tests(client, metric="rouge1_f", missing="exclude", resamples=100)
    tests = get(client, metric="rouge1_f", missing="exclude", resamples=100).json()["tests"]
    assert {(t["n"], t["cells"]) for t in tests} == {(16, 8)}
    # The Wilcoxon tests pair the 8 cells kept (stableness: 3 diagonal zeros at least).
    for test in tests:
        wilcoxon = {(w["measure"], w["reading"]): w for w in test["wilcoxon"]}
        assert wilcoxon[("stiffness", "cells")]["n"] == 8
        assert wilcoxon[("stableness", "cells")]["zeros"] >= 3
        assert wilcoxon[("stiffness", "documents")]["n"] == 16
    s1_s2 = next(t for t in tests if (t["system_a"], t["system_b"]) == ("S1", "S2"))
    assert s1_s2["statistic"] == pytest.approx((2.65 - (2.55 - 0.30)) / 8, abs=1e-12)


def test_a_system_without_an_in_dataset_cell_is_left_out_under_exclude(loaded, client_for):
    _drop_cell("s3-c", "C")
    client = client_for("researcher")
    refused = get(client, metric="rouge1_f")
    assert refused.status_code == 400
    assert "'S3'" in refused.json()["message"] and "('C', 'C')" in refused.json()["message"]
    body = get(client, metric="rouge1_f", missing="exclude").json()
    assert sorted(by_system(body)) == ["S1", "S2"]
    assert body["excluded"] == []
    [left] = body["left_out"]
    assert left["system"] == "S3"
    assert "no in-dataset score on C" in left["reason"]
    assert body["ranking"]["stiffness"] == ["S1", "S2"]


def test_systems_without_a_chosen_training_set_are_listed_as_left_out(loaded, client_for):
    a = Dataset.objects.get(slug="A")
    blank = System.objects.create(slug="lead-3", name="Lead-3", kind="extractive")
    version = OutputVersion.objects.create(system=blank, dataset=a, number=1)
    assert version.pk
    elsewhere = System.objects.create(slug="s1-d", name="S1", kind="abstractive", trained_on="C")
    OutputVersion.objects.create(system=elsewhere, dataset=a, number=1)
    body = get(client_for("researcher"), metric="rouge1_f", datasets="A,B").json()
    left = {x["slug"]: x for x in body["left_out"]}
    assert left["lead-3"]["reason"] == "no training dataset given (trained_on is blank)"
    assert left["s1-c"]["reason"] == "trained on 'C', not one of the chosen datasets"
    assert left["s1-d"]["trained_on"] == "C"
    # On A and B only: S1's 2 x 2 block [[.5, .2], [.25, .4]].
    s1 = by_system(body)["S1"]
    assert s1["u"][0] == pytest.approx([0.5, 0.2], abs=1e-12)
    assert s1["u"][1] == pytest.approx([0.25, 0.4], abs=1e-12)
    assert s1["stiffness"] == pytest.approx(1.35 / 4, abs=1e-12)


def test_two_systems_with_one_name_and_training_set_are_left_out_with_the_reason(
    loaded, client_for
):
    twin = System.objects.create(slug="s2-a-bis", name="S2", kind="abstractive", trained_on="A")
    OutputVersion.objects.create(system=twin, dataset=Dataset.objects.get(slug="A"), number=1)
    body = get(client_for("researcher"), metric="rouge1_f", missing="exclude").json()
    reasons = {x["slug"]: x["reason"] for x in body["left_out"]}
    assert "2 systems named 'S2' are trained on 'A' (s2-a, s2-a-bis)" in reasons["s2-a"]
    assert set(reasons) >= {"s2-a", "s2-a-bis"}
    # S2 lost its A row, so its (A, A) cell: it is left out too under exclude.
    assert sorted(by_system(body)) == ["S1", "S3"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"metric": "bleu"}, "metric"),
        ({"metric": "far@0"}, "metric"),
        ({"metric": "rouge1_f", "datasets": "A,Z"}, "datasets"),
        ({"metric": "rouge1_f", "datasets": "A,A"}, "datasets"),
    ],
)
def test_bad_parameters_get_a_clear_400(loaded, client_for, params, field):
    response = get(client_for("researcher"), **params)
    assert response.status_code == 400
    body = response.json()
    assert body["extra"]["field"] == field
    assert body["message"]


def test_a_metric_without_scores_is_refused_with_the_missing_cells(loaded, client_for):
    response = get(client_for("researcher"), metric="far@3")
    assert response.status_code == 400
    assert "far@3" in response.json()["message"]


def test_another_metric_is_read_from_its_own_rows(loaded, client_for):
    for score in stored_scores("rouge1_f"):
        score_plant(
            version=score.row.version,
            document=score.row.document,
            metric="far@3",
            value=score.value / 2,
        )
    body = get(client_for("researcher"), metric="far@3").json()
    # Halving every score halves U; the normalised matrix and stableness do not change.
    s1 = by_system(body)["S1"]
    assert s1["stiffness"] == pytest.approx(STIFFNESS["S1"] / 2, abs=1e-12)
    assert s1["stableness"] == pytest.approx(STABLENESS["S1"], abs=1e-12)


def _cells(svg: str) -> dict[tuple[str, str], dict]:
    root = ElementTree.fromstring(svg.split("\n", 1)[1])
    rects = root.iter("{http://www.w3.org/2000/svg}rect")
    return {
        (r.get("data-row"), r.get("data-column")): r.attrib
        for r in rects
        if "cell" in (r.get("class") or "").split()
    }


def test_the_heat_maps_carry_every_cell_value_in_data_attributes(loaded, client_for):
    _drop_cell("s1-b", "C")
    client = client_for("researcher")
    body = get(client, metric="rouge1_f", missing="exclude", plots="true").json()
    s1 = by_system(body)["S1"]
    cells = _cells(s1["plots"]["u"])
    assert len(cells) == 9
    for (row, column), attrs in cells.items():
        assert (attrs["data-system"], attrs["data-matrix"]) == ("S1", "u")
        if (row, column) == ("B", "C"):
            assert attrs["data-excluded"] == "true" and "data-value" not in attrs
            continue
        i, j = "ABC".index(row), "ABC".index(column)
        assert float(attrs["data-value"]) == pytest.approx(U["S1"][i][j], abs=1e-12)
    normalised = _cells(s1["plots"]["normalised"])
    assert float(normalised[("B", "A")]["data-value"]) == pytest.approx(0.5, abs=1e-12)
    assert normalised[("B", "C")]["data-excluded"] == "true"
    # One colour scale for every system: the darkest U cell of all (S3, A->A, .60) and the
    # lightest (S2, C->B, .15) are the scale's ends.
    s3 = _cells(by_system(body)["S3"]["plots"]["u"])
    s2 = _cells(by_system(body)["S2"]["plots"]["u"])
    assert s3[("A", "A")]["fill"] == "#08306b"
    assert s2[("C", "B")]["fill"] == "#f7fbff"
    assert "legend-swatch" in s1["plots"]["u"] and "0.150" in s1["plots"]["u"]
    without = get(client, metric="rouge1_f", missing="exclude").json()
    assert "plots" not in by_system(without)["S1"]


# ---------------------------------------------------------------- the command


def run_command(*args) -> str:
    out = io.StringIO()
    call_command("crossdataset", *args, stdout=out)
    return out.getvalue()


def test_the_command_reads_the_database(loaded):
    out = run_command("--metric", "rouge1_f", "--datasets", "A,B,C", "--resamples", "500")
    assert "stiffness 0.3167  stableness 0.6389  in-dataset 0.5000" in out
    # As printed in the paper: 2.85 / 3 and 5.75 / 3.
    assert "as printed in the paper (sums / N): stiffness 0.9500  stableness 1.9167" in out
    lines = out.splitlines()
    ranking = lines[lines.index("Ranking (1 is best; ties share a rank)") + 2 :][:3]
    assert [line.split()[0] for line in ranking] == ["S1", "S2", "S3"]
    assert ranking[0].split()[1:] == [
        "0.3167", "(2)", "0.6389", "(3)", "0.5000", "(1)", "0.9500", "1.9167"
    ]  # fmt: skip
    assert lines[lines.index(ranking[-1]) + 1].startswith("Ranked by the means over the N x N")
    assert "S1 vs S2: stiffness difference +0.0333" in out
    # The Wilcoxon p-values worked by hand (S1 vs S2 over the cells: 0.65625 and 0.125).
    assert "Wilcoxon, stiffness over cells:      difference +0.0333, p = 0.6562 (W = 14" in out
    assert "Wilcoxon, stableness over cells:     difference -0.2222, p = 0.1250 (W = 0" in out
    assert out.count("Wilcoxon, stiffness over documents:") == 3


def test_the_command_prints_json_and_refuses_a_missing_cell(loaded):
    data = json.loads(run_command("--metric", "rouge1_f", "--format", "json", "--resamples", "500"))
    assert data["ranking"]["stableness"] == ["S2", "S3", "S1"]
    _drop_cell("s2-c", "A")
    with pytest.raises(CommandError, match=r"'S2'.*\('C', 'A'\)"):
        run_command("--metric", "rouge1_f")
    data = json.loads(run_command("--missing", "exclude", "--format", "json", "--resamples", "500"))
    assert data["excluded"] == [["C", "A"]]


def test_the_command_computes_from_a_scores_file_without_the_database():
    # No django_db mark: any database query would fail this test.
    data = json.loads(
        run_command("--scores", str(EXAMPLE), "--format", "json", "--resamples", "500")
    )
    systems = by_system(data)
    assert data["datasets"] == ["A", "B", "C"]
    assert systems["S1"]["stiffness"] == pytest.approx(0.3167, abs=5e-5)
    assert systems["S1"]["stableness"] == pytest.approx(0.6389, abs=5e-5)
    assert data["ranking"] == {
        "stiffness": ["S3", "S1", "S2"],
        "stableness": ["S2", "S3", "S1"],
        "in_dataset": ["S1", "S3", "S2"],
    }
    text = run_command("--scores", str(EXAMPLE), "--resamples", "500")
    assert "stiffness 0.3722  stableness 0.7500  in-dataset 0.5000" in text
    assert "as printed in the paper (sums / N): stiffness 1.1167  stableness 2.2500" in text
    # The Wilcoxon tests from the file, as from the database: SciPy's p over the hand cells.
    for test in data["tests"]:
        cells = {w["measure"]: w["p_value"] for w in test["wilcoxon"] if w["reading"] == "cells"}
        expected = wilcoxon_over_cells(test["system_a"], test["system_b"])
        assert cells == pytest.approx(expected, abs=1e-15)
    assert systems["S1"]["stiffness_printed"] == pytest.approx(0.95, abs=1e-12)


def test_the_command_refuses_a_bad_scores_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="not a JSON file"):
        run_command("--scores", str(bad))
    bad.write_text(json.dumps({"systems": {"S1": {"A": {"A": [0.5]}}}}), encoding="utf-8")
    with pytest.raises(CommandError, match="not in the layout"):
        run_command("--scores", str(bad))
    with pytest.raises(CommandError, match="cannot read"):
        run_command("--scores", str(tmp_path / "absent.json"))
    nested = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    del nested["systems"]["S1"]["B"]["C"]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(nested), encoding="utf-8")
    with pytest.raises(CommandError, match=r"'S1'.*\('B', 'C'\)"):
        run_command("--scores", str(partial))
    data = json.loads(
        run_command("--scores", str(partial), "--missing", "exclude", "--format", "json")
    )
    assert data["excluded"] == [["B", "C"]]


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_the_tests_queued_on_commit(celery_worker_process, client_for):
    example_load()
    client = client_for("researcher")
    params = {"metric": "rouge1_f", "resamples": 300}
    response = client.post(f"{URL}tests/", params, format="json")
    assert response.status_code == 202, response.content
    run = response.json()
    deadline = time.monotonic() + 60
    while run["state"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.3)
        run = client.get(f"{URL}tests/{run['run']}/").json()
    assert run["state"] == "succeeded", run["error"]
    assert (run["pairs_done"], run["pairs_total"]) == (3, 3)
    for test in run["tests"]:
        a, b = test["system_a"], test["system_b"]
        assert test["statistic"] == pytest.approx(STIFFNESS[a] - STIFFNESS[b], abs=1e-12)
    body = get(client, **params).json()
    assert body["tests"] == run["tests"]
    assert CrossDatasetPairTest.objects.filter(run_id=run["run"], attempts=1).count() == 3


def test_a_pair_without_shared_cells_says_why_neither_test_ran():
    # Two systems on disjoint datasets: nothing to pair, for either test (the report and the
    # workers' pair task both go through pair_tests_compute).
    data = pair_tests_compute(
        "X", "Y", {("A", "A"): {"a": 0.5}}, {("B", "B"): {"b": 0.4}}, resamples=100, seed=0
    )
    assert data["p_value"] is None and "at least 2 shared units" in data["error"]
    assert data["wilcoxon"] == [] and "share no (train, test) cell" in data["wilcoxon_error"]


def test_a_run_stored_before_the_wilcoxon_tests_is_not_shown(loaded, client_for):
    # A run whose key was made without the tests' computation number (the permutation test
    # only) is another request: the GET shows none, and a POST queues a new run.
    client = client_for("researcher")
    params = {"metric": "rouge1_f", "resamples": 200}
    chosen = ["A", "B", "C"]
    old_key = hashlib.sha256(json.dumps(["rouge1_f", chosen, "error", 200, 0]).encode()).hexdigest()
    CrossDatasetTestRun.objects.create(
        key=old_key,
        inputs_digest=crossdataset_inputs_digest(metric="rouge1_f", datasets=chosen),
        metric="rouge1_f",
        datasets=chosen,
        missing="error",
        resamples=200,
        status="succeeded",
    )
    assert get(client, **params).json()["tests_run"]["state"] == "none"
    started = client.post(f"{URL}tests/", params, format="json")
    assert started.status_code == 202 and started.json()["state"] == "queued"
