"""PolyTope on the leaderboard API, downloads, command and system scores (hand-worked data)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from annotation.fams.models import AnnotationSet
from annotation.spans.services import SpanRecord, span_annotations_replace
from scoring.scores.models import ScoringJob
from scoring.scores.services import scoring_job_create, scoring_job_run_inline
from scoring.scores.services.arrays import score_arrays_build_missing
from tests.scoring.polytope_helpers import build

pytestmark = pytest.mark.django_db
URL = "/api/datasets/pt/leaderboard/"


@pytest.fixture(params=["rows", "arrays"])
def pt(users, django_capture_on_commit_callbacks, request):
    """The PolyTope dataset scored; the board read from the score rows, or from the score
    arrays a finished job builds."""
    with django_capture_on_commit_callbacks(execute=False):
        built = build()
        job = scoring_job_create(dataset=built["dataset"], trigger="manual", queue=False)
        scoring_job_run_inline(job=job)
    if request.param == "arrays":
        assert score_arrays_build_missing(dataset=built["dataset"]) > 0
    return built


@pytest.fixture
def researcher(client_for):
    return client_for("researcher")


def _rows(board):
    return {row["system"]: row for row in board["systems"]}


def test_pooled_cells_counts_coverage_and_notes(pt, researcher):
    board = researcher.get(URL).json()
    assert board["polytope"]["available"]
    assert board["polytope"]["ci"]["method"] == "percentile bootstrap of a ratio of sums"
    assert [s["name"] for s in board["polytope"]["subtypes"]][:2] == ["Addition", "Omission"]
    assert board["polytope"]["labels"][-1] == "Whole Sentence"
    a, b = _rows(board)["a"]["polytope"], _rows(board)["b"]["polytope"]
    assert a["score"] == pytest.approx(100 * 22 / 30)  # 8 penalty over 30 words
    assert (a["ci_low"], a["ci_high"]) == pytest.approx((50.0, 85.0))
    assert (a["n"], a["outputs"], a["words"], a["penalty"]) == (2, 3, 30, 8.0)
    assert (a["critical"], a["major"], a["minor"], a["clean"]) == (1, 1, 1, 0)
    assert a["sources"] == {"released": 2}
    assert b["score"] == pytest.approx(100 * 20 / 35)  # 15 over 35, one segment at -100
    assert (b["n"], b["critical"], b["clean"]) == (3, 3, 1)
    assert b["breakdown"]["matrix"] == {
        "Addition": {"Subject": 1},
        "Omission": {"Subject": 1},
        "Inaccuracy Intrinsic": {"Predicate": 1},
    }
    assert b["breakdown"]["severity_by_label"]["critical"]["Subject"] == 2
    notes = " ".join(board["notes"])
    assert "2 of System A's 3 outputs are annotated (2 released)" in notes
    assert "not counted as clean" in notes and "gold one is scored" in notes
    # The default sort is still the first automatic metric; PolyTope is not in "metrics".
    assert board["sort"] == "rouge1_f" and "polytope" not in board["metrics"]


def test_sort_by_polytope_uses_the_paired_ratio_test(pt, researcher):
    board = researcher.get(URL, {"sort": "polytope"}).json()
    assert [row["system"] for row in board["systems"]] == ["a", "b"]
    assert board["significance"]["test"] == "paired permutation of pooled ratios (unit swap)"
    test = board["systems"][0]["vs_next"]
    # On the 2 outputs both have annotated (d1, d2): A 8 over 30, B 5 over 30.
    assert test["n"] == 2 and test["difference"] == pytest.approx(-10.0)
    assert test["p_value"] == pytest.approx(1.0)


def test_sorting_by_polytope_without_annotations_is_refused(pt, researcher, demo):
    response = researcher.get("/api/datasets/demo/leaderboard/", {"sort": "polytope"})
    assert response.status_code == 400
    assert "no output in this view has a released or gold PolyTope" in response.json()["message"]
    board = researcher.get("/api/datasets/demo/leaderboard/").json()
    assert board["polytope"]["available"] is False
    assert all(row["polytope"] is None for row in board["systems"])
    # A category with none of the annotated documents has no PolyTope either.
    low = researcher.get(URL, {"category": "low"}).json()
    assert low["polytope"]["available"] is False


def test_gold_wins_and_the_board_follows_the_spans_job(pt, researcher):
    before = _rows(researcher.get(URL).json())["b"]["polytope"]
    gold = AnnotationSet.objects.create(
        dataset=pt["dataset"], slug="gold", name="Gold", kind="gold", scheme="polytope"
    )
    b3 = pt["outputs"]["b", "d3"]
    span_annotations_replace(
        annotation_set=gold, records=[SpanRecord(b3.pk, (), True)], output_ids=[b3.pk]
    )
    # Until the job has run, the stored snapshot is what the board shows.
    assert _rows(researcher.get(URL).json())["b"]["polytope"] == before
    scoring_job_run_inline(job=ScoringJob.objects.get(trigger="spans"))
    after = _rows(researcher.get(URL).json())["b"]["polytope"]
    assert after["sources"] == {"gold": 1, "released": 2}
    assert after["score"] == pytest.approx(100 * 30 / 35)  # b/d3 is now clean
    assert after["critical"] == 1 and after["clean"] == 2


def test_downloads_and_the_command_carry_polytope(pt, researcher, capsys):
    response = researcher.get(URL + "export/", {"file": "csv"})
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    a = next(row for row in rows if row["system"] == "a")
    assert float(a["polytope"]) == pytest.approx(100 * 22 / 30)
    assert (a["polytope_n"], a["polytope_outputs"], a["polytope_critical"]) == ("2", "3", "1")
    assert float(a["polytope_ci_low"]) == pytest.approx(50.0)
    exported = json.loads(researcher.get(URL + "export/", {"file": "json"}).content)
    assert {row["system"]: row["polytope"]["n"] for row in exported} == {"a": 2, "b": 3}

    call_command("leaderboard", "--dataset", "pt", "--sort", "polytope")
    table = capsys.readouterr().out
    assert "PolyTope in percent, pooled over words" in table
    a_line = next(line for line in table.splitlines() if line.startswith("a "))
    assert "73.33 [50.00, 85.00] (2/3 annotated; 1 critical, 1 major, 1 minor)" in a_line
    call_command("leaderboard", "--dataset", "pt", "--format", "json")
    assert json.loads(capsys.readouterr().out)["systems"][0]["polytope"]["words"] in (30, 35)


def test_correlations_with_the_automatic_metrics_and_as_a_human_study(pt, researcher):
    board = researcher.get(URL).json()
    levels = {(c["metric"], c["level"]): c for c in board["polytope"]["correlations"]}
    assert set(levels) == {(m, lv) for m in board["metrics"] for lv in ("system", "instance")}
    instance = levels["rouge1_f", "instance"]
    assert (instance["n"], instance["n_systems"]) == (5, 2)
    system = levels["rouge1_f", "system"]
    assert (
        system["pearson"]["value"] is None and "at least 3 systems" in system["pearson"]["reason"]
    )
    paper = board["polytope"]["paper"]
    assert paper["pearson"]["system"]["rouge1_f"] == 0.78
    assert paper["pearson"]["instance"]["rougeL_f"] == 0.32 and paper["n_outputs"] == 1500
    studies = {c["judgment"] for c in board["correlations"]}
    assert studies == {"PolyTope (annotated outputs)"}


def test_the_system_scores_api_gives_each_outputs_polytope(pt, researcher):
    data = researcher.get("/api/datasets/pt/systems/a/scores/").json()
    assert data["has_fams"] is False  # no FAM to compute FAR against: the page says so
    by_doc = {d["external_id"]: d["polytope"] for d in data["documents"]}
    assert by_doc["d1"] == {
        "score": 50.0,
        "words": 10,
        "penalty": 5.0,
        "critical": 1,
        "major": 0,
        "minor": 0,
        "errors": 1,
    }
    assert by_doc["d3"] is None
    assert data["polytope"]["not_annotated"] == ["d3"]
    assert data["polytope"]["score"] == pytest.approx(100 * 22 / 30)
    assert "polytope" not in data["metrics"]
