"""The leaderboard API, its downloads, the command and the per-system views on the demo data."""

from __future__ import annotations

import csv
import io
import json
import statistics

import pytest
from django.core.management import call_command

from annotation.corpus.models import Dataset
from annotation.imports.bundle import SystemRecord
from scoring.metrics.leaderboard import FAR_MEASURES as FAR
from scoring.metrics.leaderboard import far_key
from scoring.metrics.stats import paired_permutation_test
from scoring.scores.models import DocumentScore
from scoring.scores.services import (
    StaleScores,
    document_scores_delete,
    scoring_pending_run_inline,
)
from scoring.scores.services.arrays import score_arrays_build_missing
from scoring.uploads.services import system_output_import
from tests.score_helpers import stored_scores

pytestmark = pytest.mark.django_db
URL = "/api/datasets/demo/leaderboard/"


@pytest.fixture(params=["rows", "arrays"])
def scored(demo, request):
    """The demo dataset scored; read from the score rows, or from the score arrays a finished
    job builds (every test here holds for both)."""
    dataset = Dataset.objects.get(slug="demo")
    scoring_pending_run_inline(dataset=dataset, ks=[1, 3])
    if request.param == "arrays":
        assert score_arrays_build_missing(dataset=dataset) == 3
    return dataset


def _per_document(system: str, metric: str, external_ids=None) -> dict[str, float]:
    rows = stored_scores(metric, version__system__slug=system)
    return {
        s.row.document.external_id: s.value
        for s in rows
        if external_ids is None or s.row.document.external_id in external_ids
    }


def test_envelope_means_match_the_stored_scores(scored, client_for):
    board = client_for("researcher").get(URL).json()
    assert board["dataset"] == "demo" and board["k"] == 3 and board["sort"] == "far"
    assert board["n_documents"] == 6 and board["comparable"] is True and board["notes"] == []
    assert board["metrics"][:4] == ["far", "sar", "sap", "saf1"]
    rows = {row["system"]: row for row in board["systems"]}
    assert set(rows) == {"lead-3", "demo-extsum", "demo-abs"}
    assert [row["system"] for row in board["systems"]][-1] == "demo-abs"  # no FAR: last
    assert rows["demo-abs"]["far"] is None and rows["demo-abs"]["vs_next"] is None
    for system in ("lead-3", "demo-extsum"):
        far = _per_document(system, "far@3")
        assert len(far) == 5  # the noise document has no support: no FAR
        assert rows[system]["far"]["mean"] == pytest.approx(statistics.mean(far.values()))
        assert rows[system]["far"]["n"] == 5 and rows[system]["n_documents"] == 6
        rouge = _per_document(system, "rouge1_f")
        assert rows[system]["rouge1_f"]["mean"] == pytest.approx(statistics.mean(rouge.values()))
        for metric in board["metrics"]:
            cell = rows[system][metric]
            assert 0.0 <= cell["ci_low"] <= cell["mean"] <= cell["ci_high"] <= 1.0
    top, second = board["systems"][:2]
    expected = paired_permutation_test(
        _per_document(top["system"], "far@3"),
        _per_document(second["system"], "far@3"),
        resamples=board["significance"]["resamples"],
    )
    assert top["vs_next"]["p_value"] == pytest.approx(expected.p_value)
    assert top["vs_next"]["significant"] is (expected.p_value < 0.05)
    assert top["vs_next"]["test"] == board["significance"]["test"] == expected.test


def test_category_k_and_sort(scored, client_for):
    api = client_for("researcher")
    low = api.get(URL, {"category": "low"}).json()
    assert low["n_documents"] == 4 and low["category"] == "low"
    lead = next(row for row in low["systems"] if row["system"] == "lead-3")
    low_ids = {"demo-001", "demo-002", "demo-003", "demo-005"}
    expected = statistics.mean(_per_document("lead-3", "far@3", low_ids).values())
    assert lead["far"]["mean"] == pytest.approx(expected)
    both = api.get(URL, {"category": "low+high"}).json()
    assert both["n_documents"] == 5
    k1 = api.get(URL, {"k": 1}).json()
    lead_k1 = next(row for row in k1["systems"] if row["system"] == "lead-3")
    assert lead_k1["far"]["mean"] == pytest.approx(
        statistics.mean(_per_document("lead-3", "far@1").values())
    )
    by_rouge = api.get(URL, {"sort": "rouge1_f"}).json()
    means = [row["rouge1_f"]["mean"] for row in by_rouge["systems"]]
    assert means == sorted(means, reverse=True)
    unscored = api.get(URL, {"k": 7}).json()  # FAR at k=7 was never computed
    assert "far" not in unscored["metrics"] and unscored["sort"] == "rouge1_f"
    refused = api.get(URL, {"k": 7, "sort": "far"})
    assert refused.status_code == 400 and "cannot sort by 'far'" in refused.json()["message"]
    assert api.get(URL, {"category": "medium"}).status_code == 400


def test_partial_coverage_is_said_and_common_only_restricts(scored, client_for, tmp_path):
    path = tmp_path / "lead.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"doc_id": d, "extracted": [0, 1, 2]}) for d in ("demo-001", "demo-002")
        )
    )
    system_output_import(
        dataset=scored,
        system=SystemRecord(slug="lead-3", name="Lead-3", kind="extractive"),
        source=path,
    )
    scoring_pending_run_inline(dataset=scored, ks=[3])
    api = client_for("researcher")
    board = api.get(URL).json()
    assert board["comparable"] is False and board["common_documents"] == 2
    assert "Lead-3 has outputs for 2 of 6 documents." in board["notes"]
    assert any("not over the same 6 documents" in note for note in board["notes"])
    lead = next(row for row in board["systems"] if row["system"] == "lead-3")
    assert lead["version"] == 2 and lead["n_documents"] == 2
    common = api.get(URL, {"common": "true"}).json()
    ext = next(row for row in common["systems"] if row["system"] == "demo-extsum")
    assert ext["n_documents"] == 2
    assert ext["far"]["mean"] == pytest.approx(
        statistics.mean(_per_document("demo-extsum", "far@3", {"demo-001", "demo-002"}).values())
    )
    versions = api.get("/api/datasets/demo/systems/lead-3/versions/").json()
    assert [(v["number"], v["outputs"]) for v in versions] == [(2, 2), (1, 6)]
    old = api.get("/api/datasets/demo/systems/lead-3/scores/", {"version": 1}).json()
    assert old["version"] == 1 and len(old["documents"]) == 6
    assert old["has_fams"] is True  # gold FAMs: the system page keeps its FAR filters


def test_downloads_and_command_serve_the_same_rows(scored, client_for):
    api = client_for("researcher")
    board = api.get(URL, {"category": "low"}).json()
    as_json = api.get(f"{URL}export/", {"file": "json", "category": "low"})
    assert as_json["Content-Disposition"].endswith('demo-leaderboard-low-k3.json"')
    assert json.loads(as_json.content) == board["systems"]
    as_csv = api.get(f"{URL}export/", {"file": "csv", "category": "low"})
    rows = list(csv.DictReader(io.StringIO(as_csv.content.decode())))
    assert [r["system"] for r in rows] == [s["system"] for s in board["systems"]]
    for row, system in zip(rows, board["systems"], strict=True):
        assert float(row["rouge1_f"]) == pytest.approx(system["rouge1_f"]["mean"])
        assert int(row["n_documents"]) == system["n_documents"]
    out = io.StringIO()
    call_command(
        "leaderboard", "--dataset", "demo", "--category", "low", "--format", "json", stdout=out
    )
    printed = json.loads(out.getvalue())
    assert printed["systems"] == board["systems"]
    assert printed["correlations"] == board["correlations"]
    out = io.StringIO()
    call_command("leaderboard", "--dataset", "demo", "--format", "table", stdout=out)
    first = api.get(URL).json()["systems"][0]
    assert f"{100 * first['far']['mean']:.1f}" in out.getvalue()
    assert first["system"] in out.getvalue() and "x100" in out.getvalue()


def test_command_table_of_a_single_document_has_no_interval(scored):
    # demo-006 is the only high-abstraction document: one document, so no CI (and no FAR).
    out = io.StringIO()
    call_command("leaderboard", "--dataset", "demo", "--category", "high", stdout=out)
    table = out.getvalue()
    lead = next(line for line in table.splitlines() if line.startswith("lead-3"))
    rouge = _per_document("lead-3", "rouge1_f", {"demo-006"})["demo-006"]
    assert f"{100 * rouge:.1f} (1 document, no CI)" in lead
    assert "-0.0" not in table


def test_command_sync_scores_pending_outputs_first(demo):
    out = io.StringIO()
    call_command("leaderboard", "--dataset", "demo", "--format", "csv", "--sync", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert {r["system"] for r in rows} == {"lead-3", "demo-extsum", "demo-abs"}
    assert all(0.0 <= float(r["rouge1_f"]) <= 1.0 for r in rows)


def test_document_view_marks_the_groups_the_extraction_covers(scored, client_for):
    view = client_for("researcher").get(
        "/api/datasets/demo/systems/lead-3/documents/demo-001/", {"k": 3}
    )
    assert view.status_code == 200
    body = view.json()
    assert body["extracted"] == [0, 1, 2] and body["considered"] == [0, 1, 2]
    assert body["fam"]["source"] == "gold"
    for facet in body["fam"]["facets"]:
        for group in facet["groups"]:
            assert group["covered"] is set(group["sentences"]).issubset({0, 1, 2})
        assert facet["covered"] is any(g["covered"] for g in facet["groups"])
    covered = [f["covered"] for f in body["fam"]["facets"] if f["groups"]]
    assert body["scores"]["far"] == pytest.approx(sum(covered) / len(covered))
    missing = client_for("researcher").get("/api/datasets/demo/systems/lead-3/documents/nope/")
    assert missing.status_code == 404


SVG = "{http://www.w3.org/2000/svg}"


def _svg(api, name: str, **params):
    from xml.etree import ElementTree

    response = api.get(f"{URL}plots/{name}.svg", params)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    return ElementTree.fromstring(response.content)


def _marks(root, tag: str, css: str):
    return [e for e in root.iter(f"{SVG}{tag}") if css in e.get("class", "").split()]


def test_plots_carry_the_leaderboard_values(scored, client_for):
    api = client_for("researcher")
    board = api.get(URL, {"category": "low"}).json()
    rows = {row["system"]: row for row in board["systems"]}
    for name, x in (("far-rouge1r", "rouge1_r"), ("far-sar", "sar")):
        points = _marks(_svg(api, name, category="low"), "circle", "point")
        drawn = {
            p.get("data-system"): (float(p.get("data-x")), float(p.get("data-y"))) for p in points
        }
        assert drawn == {
            s: (row[x]["mean"], row["far"]["mean"]) for s, row in rows.items() if row["far"]
        }
    bars = _marks(_svg(api, "categories"), "rect", "bar")
    for bar in bars:
        category = bar.get("data-category")
        per_category = api.get(URL, {"category": category}).json()["systems"]
        row = next(r for r in per_category if r["system"] == bar.get("data-system"))
        assert float(bar.get("data-value")) == row["far"]["mean"]
    # demo-006, the only high-abstraction document, has no supported facet: no FAR, no bar.
    assert {b.get("data-category") for b in bars} == {"noise", "low", "low+high"}
    boxes = _marks(_svg(api, "far-distribution", category="low"), "g", "box")
    assert {b.get("data-system"): int(b.get("data-n")) for b in boxes} == {
        s: row["far"]["n"] for s, row in rows.items() if row["far"]
    }
    for box in boxes:
        values = _per_document(
            box.get("data-system"), "far@3", {"demo-001", "demo-002", "demo-003", "demo-005"}
        )
        assert float(box.get("data-median")) == pytest.approx(statistics.median(values.values()))


def test_human_judgments_correlate_with_every_metric(scored, client_for):
    from scipy import stats

    from scoring.judgments.services import human_judgments_import

    human = {"lead-3": 2.0, "demo-extsum": 3.5, "demo-abs": 4.0}
    body = "system,score\n" + "".join(f"{s},{v}\n" for s, v in human.items())
    human_judgments_import(
        dataset=scored, name="overall", source=io.BytesIO(body.encode()), filename="h.csv"
    )
    board = client_for("researcher").get(URL).json()
    rows = {row["system"]: row for row in board["systems"]}
    found = {(c["metric"], c["level"]): c for c in board["correlations"]}
    rouge = found[("rouge1_f", "system")]
    assert rouge["judgment"] == "overall" and rouge["n_systems"] == 3
    systems = sorted(human)
    means = [rows[s]["rouge1_f"]["mean"] for s in systems]
    assert rouge["pearson"]["value"] == pytest.approx(
        stats.pearsonr(means, [human[s] for s in systems]).statistic
    )
    assert rouge["kendall"]["value"] == pytest.approx(
        stats.kendalltau(means, [human[s] for s in systems]).statistic
    )
    # FAR exists for two systems only: too few for a correlation, and the reason says so.
    far = found[("far", "system")]
    assert far["pearson"]["value"] is None and far["pearson"]["reason"]


def test_a_study_older_than_a_systems_new_version_is_noted(scored, client_for, tmp_path):
    from scoring.judgments.services import human_judgments_import

    body = b"system,score\nlead-3,2\ndemo-extsum,3\ndemo-abs,4\n"
    human_judgments_import(
        dataset=scored, name="overall", source=io.BytesIO(body), filename="h.csv"
    )
    path = tmp_path / "lead.jsonl"
    path.write_text(json.dumps({"doc_id": "demo-001", "extracted": [1, 2, 0]}))
    system_output_import(
        dataset=scored,
        system=SystemRecord(slug="lead-3", name="Lead-3", kind="extractive"),
        source=path,
    )
    notes = client_for("researcher").get(URL).json()["notes"]
    assert (
        "Human study 'overall' judged Lead-3 before its version 2 was uploaded: its "
        "correlations pair those judgments with the new outputs." in notes
    )


def _import_extractive(dataset, tmp_path, slug: str, pick) -> None:
    """Upload an extractive system that takes ``pick(sentence count)`` from every document."""
    lines = [
        {"doc_id": external_id, "extracted": pick(len(sentences))}
        for external_id, sentences in dataset.documents.values_list("external_id", "sentences")
    ]
    path = tmp_path / f"{slug}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    record = SystemRecord(slug=slug, name=slug.replace("-", " ").title(), kind="extractive")
    system_output_import(dataset=dataset, system=record, source=path)


def test_every_plot_of_a_board_draws_a_system_in_one_colour(scored, client_for, tmp_path):
    from tests.plot_helpers import drawn_colours

    # First by slug but last by FAR, and last by slug but in the middle: the plots' own orders
    # (by FAR, by slug, by first appearance in a category) all differ.
    _import_extractive(scored, tmp_path, "aaa-tail", lambda n: [n - 1, n - 2, n - 3])
    _import_extractive(scored, tmp_path, "zzz-mixed", lambda n: [0, 3, 5])
    scoring_pending_run_inline(dataset=scored, ks=[3])
    api = client_for("researcher")
    extractive = {"aaa-tail", "demo-extsum", "lead-3", "zzz-mixed"}
    for params in ({}, {"category": "low"}):
        seen: dict[str, set[str]] = {}
        for name in ("far-rouge1r", "far-sar", "categories", "far-distribution"):
            for system, colours in drawn_colours(_svg(api, name, **params)).items():
                seen.setdefault(system, set()).update(colours)
        assert set(seen) == extractive  # demo-abs has no FAR: in no plot
        assert {system: len(colours) for system, colours in seen.items()} == dict.fromkeys(
            extractive, 1
        )
        # The table's swatches take the same colours: the API gives the board's mapping.
        board = api.get(URL, params).json()
        assert set(board["colours"]) == extractive | {"demo-abs"}
        assert seen == {system: {board["colours"][system]} for system in extractive}
        assert len(set(board["colours"].values())) == 5  # five systems, eight colours


def test_system_scores_say_which_documents_each_mean_covers(scored, client_for, tmp_path):
    api = client_for("researcher")
    scores = "/api/datasets/demo/systems/lead-3/scores/"
    body = api.get(scores).json()
    documents = body["documents"]
    assert len(documents) == 6 and body["metrics"][0] == "far"
    for metric in body["metrics"]:
        values = _per_document("lead-3", far_key(metric, 3) if metric in FAR else metric)
        mean = body["means"][metric]
        assert mean["n"] == len(values)
        assert mean["mean"] == pytest.approx(statistics.mean(values.values()))
        missing = [d["external_id"] for d in documents if d["external_id"] not in values]
        assert [d["external_id"] for d in mean["left_out"]] == missing
    # FAR is defined where a gold (or released) FAM has a supported facet; ROUGE everywhere.
    reason = "its FAM has no supported facet"
    for metric in FAR:
        assert body["means"][metric]["n"] == 5
        assert body["means"][metric]["left_out"] == [{"external_id": "demo-006", "reason": reason}]
    assert body["means"]["rouge1_f"]["n"] == 6 and body["means"]["rouge1_f"]["left_out"] == []

    # Without its gold FAM, demo-001 has no FAR in a new version; demo-002 is not scored yet.
    from annotation.fams.models import Fam

    Fam.objects.filter(document__external_id="demo-001", annotator__isnull=True).delete()
    path = tmp_path / "lead.jsonl"
    path.write_text(
        "".join(
            json.dumps({"doc_id": f"demo-00{i}", "extracted": [0, 1, 2]}) + "\n" for i in (1, 3)
        )
    )
    record = SystemRecord(slug="lead-3", name="Lead-3", kind="extractive")
    system_output_import(dataset=scored, system=record, source=path)
    scoring_pending_run_inline(dataset=scored, ks=[3])
    # A score that is missing although it could be computed (a chunk that failed).
    row = DocumentScore.objects.get(
        version__system__slug="lead-3", version__number=2, document__external_id="demo-003"
    )
    missing = StaleScores()
    missing.add(version_id=row.version_id, document_id=row.document_id, metrics=["rouge2_f"])
    document_scores_delete(stale=missing)
    path.write_text(json.dumps({"doc_id": "demo-002", "extracted": [0, 1, 2]}) + "\n")
    system_output_import(dataset=scored, system=record, source=path)
    body = api.get(scores, {"version": 2}).json()
    assert body["means"]["far"]["left_out"] == [
        {"external_id": "demo-001", "reason": "no gold or released FAM"}
    ]
    assert body["means"]["rouge2_f"]["left_out"] == [
        {"external_id": "demo-003", "reason": "not scored (yet)"}
    ]
    assert body["means"]["far"]["n"] == 1 and body["means"]["rouge1_f"]["n"] == 2
    body = api.get(scores).json()  # version 3: not scored at all yet
    assert body["metrics"] == [] and body["means"] == {}
    assert [d["external_id"] for d in body["documents"]] == ["demo-002"]
