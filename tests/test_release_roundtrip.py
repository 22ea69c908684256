"""Export -> import -> export gives the same files, and the FAR release survives the trip.

The demo (with a released PolyTope set, so spans and workbooks travel too), the FAR release,
the PolyTope release with BART's official workbook and the XSum release are exported, imported
back under a new slug through ``import_dataset --format loupe-release``, scored again (scores
are recomputed on import, never copied) and exported again: every member is byte-identical
except the manifest's slug, version, date and the like. The FAR release's
per-document FAR, SAR, SAP and SAF1 then equal the original's exactly for all six systems, and
so does the copy's whole leaderboard (means, intervals, p-values, notes, correlations: the
leaderboard takes documents in the dataset's order, never by database id); it shows the
published figures for both, and so does a hand computation from the FAR-compatible JSON files
alone. The span releases' leaderboards (PolyTope cells and tests, faithfulness and its
correlations) are the same exactly too.
"""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation.corpus.models import Dataset
from annotation.corpus.services import dataset_import
from scoring.leaderboards.selectors import leaderboard_read
from scoring.scores.services import scoring_pending_run_inline
from tests.conftest import FAR_RELEASE, needs_far
from tests.release_helpers import build, members, released_spans
from tests.score_helpers import stored_scores

pytestmark = pytest.mark.django_db

# Fields of the manifest that name this export rather than its data.
OWN_FIELDS = ("created_at", "version", "previous_version")
# Mao et al. (2020), the FAR release's PROVENANCE.md: low abstraction (89 samples), k = 3.
PUBLISHED = {  # system: (SAP, SAR, FAR)
    "lead-3": (0.610, 0.373, 0.506),
    "fastrl-e": (0.648, 0.406, 0.508),
    "banditsum": (0.586, 0.343, 0.447),
    "neusum": (0.639, 0.395, 0.512),
    "refresh": (0.610, 0.375, 0.513),
    "unifiedsum-e": (0.669, 0.413, 0.548),
}


def _round_trip(dataset, slug: str, tmp_path):
    """Export ``dataset`` with the command, import the folder as ``slug``, score, export again."""
    call_command("export_release", "--dataset", dataset.slug, "--out", str(tmp_path))
    first = dataset.releases.get(version=1)
    folder = tmp_path / f"{dataset.slug}-v1"
    call_command("import_dataset", str(folder), "--format", "loupe-release", "--slug", slug)
    copy = Dataset.objects.get(slug=slug)
    scoring_pending_run_inline(dataset=copy)
    return first, build(copy), copy


def _assert_same_files(first, second, *, slug: str) -> None:
    a, b = members(first), members(second)
    assert set(a) == set(b)
    different = sorted(name for name in a if name != "manifest.json" and a[name] != b[name])
    assert different == []
    manifest_a, manifest_b = json.loads(a["manifest.json"]), json.loads(b["manifest.json"])
    assert manifest_b["dataset"]["slug"] == slug
    for manifest in (manifest_a, manifest_b):
        manifest["dataset"].pop("slug")
        for field in OWN_FIELDS:
            manifest.pop(field)
    assert manifest_a == manifest_b  # hashes of every file, counts, name, licence, ...


def test_the_demo_round_trip_gives_byte_identical_files(dataset, tmp_path):
    released_spans(dataset)
    scoring_pending_run_inline(dataset=dataset)
    first, second, copy = _round_trip(dataset, "demo-again", tmp_path)
    _assert_same_files(first, second, slug="demo-again")
    found = members(second)
    assert "workbooks/polytope-release/demo-abs.xlsx" in found
    assert found["polytope.jsonl"].count(b"\n") == 2
    # The copy's scores were computed after its import, not copied.
    assert len(stored_scores(version__dataset=copy)) == len(found["scores.jsonl"].splitlines())
    assert all(s.job_id for s in stored_scores(version__dataset=copy))
    assert copy.scoring_jobs.filter(status="succeeded").exists()


def _assert_same_leaderboard(original, copy, **params) -> dict:
    """The copy's leaderboard payload equals the original's exactly, but for the dataset's
    slug and name; returns the original's."""
    payloads = [leaderboard_read(dataset=d, **params).payload for d in (original, copy)]
    for payload, dataset in zip(payloads, (original, copy), strict=True):
        assert (payload.pop("dataset"), payload.pop("dataset_name")) == (
            dataset.slug,
            dataset.name,
        )
    # The documents have other database ids in the copy, yet nothing differs, to the last bit.
    assert set(original.documents.values_list("id", flat=True)).isdisjoint(
        copy.documents.values_list("id", flat=True)
    )
    assert payloads[0]["systems"] and payloads[0] == payloads[1], params
    return payloads[0]


def _far_scores(dataset) -> dict[tuple[str, str, str], float]:
    """(system, document id, metric) -> value of every FAR-family score at k = 3."""
    return {
        (s.row.version.system.slug, s.row.document.external_id, s.metric): s.value
        for s in stored_scores(version__dataset=dataset)
        if s.metric in ("far@3", "sar@3", "sap@3", "saf1@3")
    }


def _mean_in_dataset_order(dataset, system: str, metric: str) -> float:
    """The mean of one system's low-abstraction scores, added in the dataset's order."""
    rows = stored_scores(
        f"{metric}@3",
        version__dataset=dataset,
        version__system__slug=system,
        document__category="low",
    )
    rows.sort(key=lambda s: (s.row.document.position, s.row.document.external_id))
    values = [s.value for s in rows]
    return sum(values) / len(values)


def _far_by_hand(found: dict[str, bytes]) -> dict[str, tuple[float, float, float]]:
    """SAP, SAR and FAR at k = 3 of each system from far/*.json alone, by the datasheet's
    recipe in plain set arithmetic (no Loupe code)."""
    fams = json.loads(found["far/FAMs.json"])["low_abs"]
    results = {}
    for system in PUBLISHED:
        labels = json.loads(found[f"far/idx2labels_{system}.json"])
        sap, sar, far = [], [], []
        for idx, facets in fams.items():
            chosen = set(labels[idx][:3])
            groups = [[set(group) for group in facets[str(f)]] for f in range(len(facets))]
            support = set().union(*(group for facet in groups for group in facet))
            sap.append(len(chosen & support) / len(chosen))
            sar.append(len(chosen & support) / len(support))
            supported = [facet for facet in groups if facet]
            covered = sum(any(group <= chosen for group in facet) for facet in supported)
            far.append(covered / len(supported))
        results[system] = tuple(sum(values) / len(values) for values in (sap, sar, far))
    return results


@needs_far
@pytest.mark.shared
def test_the_far_release_round_trip_keeps_far_and_sar_exactly(tmp_path):
    dataset_import(format_name="far-release", source=FAR_RELEASE, slug="cnndm-far")
    original = Dataset.objects.get(slug="cnndm-far")
    scoring_pending_run_inline(dataset=original)
    first, second, copy = _round_trip(original, "cnndm-far-again", tmp_path)
    _assert_same_files(first, second, slug="cnndm-far-again")
    # Every per-document FAR-family score of the copy, recomputed after its import, equals the
    # original's exactly.
    per_document = [_far_scores(d) for d in (original, copy)]
    assert len(per_document[0]) == 6 * 89 * 4 and per_document[0] == per_document[1]
    # The whole leaderboard of the copy is the original's, exactly: every mean, interval,
    # p-value, note and correlation, for the paper's view and for every document.
    for params in ({"category": "low", "k": 3}, {"k": 3}, {"category": "low", "sort": "sar"}):
        _assert_same_leaderboard(original, copy, **params)
    board = _assert_same_leaderboard(original, copy, category="low", k=3)
    rows = {row["system"]: row for row in board["systems"]}
    assert set(rows) == set(PUBLISHED)
    for system, (sap, sar, far) in PUBLISHED.items():
        row = rows[system]
        for metric in ("far", "sar", "sap", "saf1"):
            assert row[metric]["n"] == 89, (system, metric)
            # The mean of the 89 stored values (numpy adds them pairwise, hence approx).
            expected = _mean_in_dataset_order(copy, system, metric)
            assert row[metric]["mean"] == pytest.approx(expected, rel=1e-15)
            assert row[metric]["ci_low"] < row[metric]["mean"] < row[metric]["ci_high"]
        assert (round(row["sap"]["mean"], 3), round(row["sar"]["mean"], 3)) == (sap, sar)
        assert round(row["far"]["mean"], 3) == far, system
    # The FAR-compatible files alone give the paper's table.
    found = members(second)
    assert len(json.loads(found["far/FAMs.json"])["low_abs"]) == 89
    for system, figures in _far_by_hand(found).items():
        assert tuple(round(value, 3) for value in figures) == PUBLISHED[system], system


@pytest.mark.shared
@pytest.mark.parametrize("release", ["polytope", "polytope-targets", "xsum"])
def test_the_span_releases_round_trip_byte_identical(release, tmp_path):
    """The PolyTope release with BART's official workbook (a released span set: polytope.jsonl,
    the workbook, PolyTope scores) and the XSum release (documents without text, three workers'
    hallucination spans, faithfulness scores) come back byte for byte; so does the workbook
    imported on outputs whose stored texts are not its Targets (the annotated texts travel)."""
    from tests.conftest import POLYTOPE_OUTPUTS, SHARED_DATA
    from tests.polytope_target_helpers import bart_outputs, change_outputs

    if release.startswith("polytope"):
        source, fmt = POLYTOPE_OUTPUTS, "polytope-release"
        workbook = POLYTOPE_OUTPUTS.parent / "outputs_with_human_annotation"
        workbook /= "Human_Annotation_Summarization_BART.xlsm"
    else:
        source, fmt, workbook = SHARED_DATA / "xsum-hallucinations", "xsum-hallucinations", None
    if not source.is_dir():
        pytest.skip(f"{source} is absent (shared data)")
    call_command("import_dataset", str(source), "--format", fmt, "--slug", release)
    if release == "polytope-targets":
        change_outputs(bart_outputs(release))
    if workbook is not None:
        call_command(
            "import_polytope_workbook", str(workbook), "--dataset", release, "--system", "bart"
        )
    original = Dataset.objects.get(slug=release)
    scoring_pending_run_inline(dataset=original)
    first, second, copy = _round_trip(original, f"{release}-again", tmp_path)
    _assert_same_files(first, second, slug=f"{release}-again")
    found = members(second)
    board = _assert_same_leaderboard(original, copy)
    if workbook is not None:
        # The pooled PolyTope cell, its ratio interval and its correlations: the same exactly.
        bart = next(row for row in board["systems"] if row["system"] == "bart")
        assert bart["polytope"]["n"] == 68 and bart["polytope"]["ci_low"] is not None
        assert _assert_same_leaderboard(original, copy, sort="polytope") is not None
    else:
        assert board["faithfulness"]["available"] and board["faithfulness"]["correlations"]
    if workbook is not None:
        assert "workbooks/polytope-release/bart.xlsx" in found
        assert found["polytope.jsonl"].count(b"\n") == 68  # BART's 68 segments
        texts = [
            json.loads(line).get("annotated_text") for line in found["polytope.jsonl"].splitlines()
        ]
        assert sum(1 for text in texts if text) == (10 if release == "polytope-targets" else 0)
        assert bart["polytope"]["score"] == pytest.approx(89.449, abs=0.005)
    else:
        assert found["polytope.jsonl"].count(b"\n") == second.manifest["counts"]["span_annotations"]
        assert second.manifest["counts"]["documents"] == 500
