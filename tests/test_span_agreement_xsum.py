"""Span agreement of the XSum release's three workers (needs ../shared): structure and hand checks.

The release publishes no agreement figure to compare with, so the overall figures are only
reported (printed with ``-s``); the assertions are structural facts counted independently from
the rows, and items worked by hand from the release's CSV (offsets as the importer stores them,
0-based and end-exclusive; the release's own are 1-based and end-inclusive).
"""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from django.core.management import call_command

from annotation.agreement.models import RunStatus
from annotation.agreement.services import span_agreement_run_create
from annotation.agreement.tasks import span_agreement_run_task
from annotation.fams.models import AnnotationSet
from annotation.spans.models import SpanAnnotation
from tests.conftest import SHARED_DATA

XSUM = SHARED_DATA / "xsum-hallucinations"
WORKERS = ["xsum-wid_0", "xsum-wid_1", "xsum-wid_2"]

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not XSUM.is_dir(), reason=f"{XSUM} is absent (shared data)"),
    pytest.mark.django_db,
]


@pytest.fixture
def run():
    call_command(
        "import_dataset", str(XSUM), "--format", "xsum-hallucinations", "--slug", "xsum-faith"
    )
    sets = AnnotationSet.objects.filter(dataset__slug="xsum-faith", slug__in=WORKERS)
    assert sorted(s.slug for s in sets) == WORKERS
    made = span_agreement_run_create(annotation_sets=[s.pk for s in sets], queue=False)
    assert span_agreement_run_task(made.pk) == "succeeded"
    made.refresh_from_db()
    return made


def _rows() -> dict[int, dict[str, list[dict]]]:
    """output -> worker -> errors, read straight from the annotations (judged rows only)."""
    by_output: dict[int, dict[str, list[dict]]] = {}
    rows = SpanAnnotation.objects.filter(
        annotation_set__dataset__slug="xsum-faith", annotation_set__slug__in=WORKERS
    ).values_list("output_id", "annotation_set__slug", "errors", "no_errors")
    for output, worker, errors, clean in rows:
        if clean or errors:
            by_output.setdefault(output, {})[worker] = errors
    return by_output


def _item(result: dict, document: str, system: str) -> dict:
    (entry,) = [
        row for row in result["per_item"] if (row["document"], row["system"]) == (document, system)
    ]
    return entry


def test_the_three_workers_structure_counted_from_the_rows(run):
    result = run.result
    json.dumps(result)
    assert run.status == RunStatus.SUCCEEDED and run.scheme == "xsum-hallucinations"
    assert [a["key"] for a in result["annotators"]] == WORKERS
    rows = _rows()
    shared = {output: people for output, people in rows.items() if len(people) >= 2}
    counts = result["counts"]
    assert counts["items"] == len(shared) == len(result["per_item"])
    assert counts["items_with_one_annotator"] == len(rows) - len(shared)
    for worker in WORKERS:
        marked = [e for people in shared.values() for e in people.get(worker, [])]
        assert counts["errors"][worker] == len(marked)
        assert counts["left_out_no_offsets"][worker] == sum(e["side"] == "none" for e in marked)
        assert counts["errors_in_source"][worker] == 0
    # F1's n is every span with offsets of both sides of every pair on every shared item.
    spans = sum(
        sum(e["side"] != "none" for e in people[a] + people[b])
        for people in shared.values()
        for a, b in combinations(sorted(people), 2)
    )
    assert result["overall"]["span_f1_exact"]["n"] == spans
    pairs = {tuple(p["annotators"]): p for p in result["per_pair"]}
    assert sorted(pairs) == list(combinations(WORKERS, 2))
    for (a, b), figures in pairs.items():
        assert figures["items"] == sum(a in p and b in p for p in shared.values())
        exact, partial = figures["span_f1_exact"]["value"], figures["span_f1_partial"]["value"]
        assert 0 <= exact <= partial <= 1  # an exact match is a partial match
        assert -1 <= figures["kappa_type"]["value"] <= 1
    for name in ("kappa_label", "kappa_severity", "score_alpha_interval"):
        assert result["overall"][name]["value"] is None and result["skipped"][name]
    print(  # the figures for the report (pytest -s)
        json.dumps(
            {
                "overall": {
                    k: result["overall"][k]
                    for k in ("span_f1_exact", "span_f1_partial", "kappa_type", "alpha_type")
                },
                "per_pair": result["per_pair"],
                "counts": counts,
            },
            indent=1,
        )
    )


def test_items_worked_by_hand_from_the_release(run):
    result = run.result
    # 34687720 BERTS2S: wid_0 and wid_1 mark the whole summary, wid_2 "the final round of the
    # wgc-hsbc champions" inside it. Exact: only wid_0-wid_1 of 3 pairs x 2 spans, 2/6;
    # partial: all three pairs match, 6/6. One category (extrinsic): kappa is 0/0.
    item = _item(result, "34687720", "berts2s")
    assert item["span_f1_exact"]["value"] == pytest.approx(1 / 3)
    assert item["span_f1_partial"]["value"] == 1
    assert item["kappa_type"]["value"] is None
    # 21267591 BERTS2S: wid_0 and wid_1 found nothing, wid_2 two spans: 4 spans, no match.
    item = _item(result, "21267591", "berts2s")
    assert (item["span_f1_exact"]["value"], item["span_f1_exact"]["n"]) == (0, 4)
    assert item["errors"] == {"xsum-wid_0": 0, "xsum-wid_1": 0, "xsum-wid_2": 2}
    # 21267591 TConvS2S: wid_0 = wid_1 = "leader of the saudi prince of saudi arabia"; wid_2
    # "saudi", "saudi arabia", "and the government". Spans per pair 2, 4, 4 (10); exact
    # matches 1 (2/10); partial: each of wid_0 and wid_1 also pairs with one of wid_2's (6/10).
    item = _item(result, "21267591", "tconvs2s")
    assert item["span_f1_exact"]["value"] == pytest.approx(2 / 10)
    assert item["span_f1_partial"]["value"] == pytest.approx(6 / 10)
    # 34687720 TConvS2S: the three workers mark the same three spans (2 extrinsic, 1
    # intrinsic): F1 1 and kappa 1 for every pair, alpha 1.
    item = _item(result, "34687720", "tconvs2s")
    assert item["span_f1_exact"]["value"] == 1
    assert item["kappa_type"]["value"] == pytest.approx(1)
    assert item["alpha_type"]["value"] == pytest.approx(1)
