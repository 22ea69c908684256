"""Span agreement of the XSum release's three workers (needs ../shared): structure and hand checks.

The release publishes no agreement figure to compare with, so the overall figures are only
reported (printed with ``-s``); the assertions are structural facts counted independently from
the rows, and items worked by hand from the release's CSV (offsets as the importer stores them,
0-based and end-exclusive; the release's own are 1-based and end-inclusive).
"""

from __future__ import annotations

import dataclasses
import json
from itertools import combinations

import pytest
from django.core.management import call_command
from django.db import transaction

from annotation.agreement.compute import span_agreement_compute
from annotation.agreement.models import RunStatus
from annotation.agreement.selectors import span_agreement_input
from annotation.agreement.services import span_agreement_run_create
from annotation.corpus.models import Document
from annotation.fams.models import AnnotationSet
from annotation.spans.models import SpanAnnotation
from annotation.systems.models import SystemOutput
from scoring.metrics.spans import scheme_get
from tests.agreement_helpers import span_run_compute
from tests.conftest import SHARED_DATA

XSUM = SHARED_DATA / "xsum-hallucinations"
WORKERS = ["xsum-wid_0", "xsum-wid_1", "xsum-wid_2"]
SYSTEMS = ["berts2s", "ptgen", "tconvs2s", "trans2s"]  # the release's Gold rows are references
WITH_CI = ("span_f1_exact", "span_f1_partial", "kappa_type", "alpha_type")

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not XSUM.is_dir(), reason=f"{XSUM} is absent (shared data)"),
    pytest.mark.django_db,
]


@pytest.fixture(scope="module")
def run(django_db_setup, django_db_blocker):
    """The release imported and its three workers' agreement run, once for the module's tests
    (which only read them): in a transaction rolled back after the last one, inside which each
    test's own transaction is a savepoint."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            call_command(
                "import_dataset",
                str(XSUM),
                "--format",
                "xsum-hallucinations",
                "--slug",
                "xsum-faith",
            )
            sets = AnnotationSet.objects.filter(dataset__slug="xsum-faith", slug__in=WORKERS)
            assert sorted(s.slug for s in sets) == WORKERS
            made = span_agreement_run_create(annotation_sets=[s.pk for s in sets], queue=False)
            assert span_run_compute(made.pk) == "succeeded"
            made.refresh_from_db()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    yield made
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)


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


def _spans(people: dict[str, list[dict]], pairs=None) -> int:
    """Spans with offsets of both sides of every pair of ``people`` (F1's n)."""
    return sum(
        sum(e["side"] != "none" for e in people[a] + people[b])
        for a, b in (pairs or combinations(sorted(people), 2))
    )


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
    spans = sum(_spans(people) for people in shared.values())
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
    # Per system: the same counts over that system's outputs, and an interval around each
    # figure (a percentile interval of a pooled figure need not contain it; here it does).
    system_of = dict(
        SystemOutput.objects.filter(pk__in=list(shared)).values_list("pk", "system__slug")
    )
    assert sorted(result["per_system"]) == SYSTEMS == sorted(set(system_of.values()))
    for system, figures in result["per_system"].items():
        mine = [people for output, people in shared.items() if system_of[output] == system]
        assert counts["items_per_system"][system] == len(mine)
        assert figures["span_f1_partial"]["n"] == sum(_spans(people) for people in mine)
    for figures in [result["overall"], *result["per_system"].values()]:
        for name in WITH_CI:
            figure = figures[name]
            assert figure["ci_level"] == 0.95 and "ci_reason" not in figure
            assert figure["ci_low"] <= figure["value"] <= figure["ci_high"], name
            assert figure["ci_high"] - figure["ci_low"] < 0.2  # ~500 items: a useful interval
        assert figures["score_alpha_interval"]["ci_reason"] == "the figure is undefined"
    # The overall interval, over 4x the items, is narrower than each system's.
    for name in WITH_CI:
        width = result["overall"][name]["ci_high"] - result["overall"][name]["ci_low"]
        for figures in result["per_system"].values():
            assert width < figures[name]["ci_high"] - figures[name]["ci_low"]
    # The lowest items: the 10 smallest partial F1s, each linked to its document.
    lowest = result["lowest"]
    assert len(lowest) == 10 and [row["value"] for row in lowest] == sorted(
        row["value"] for row in lowest
    )
    listed = {row["output"] for row in lowest}
    rest = [
        row["span_f1_partial"]["value"]
        for row in result["per_item"]
        if row["output"] not in listed and row["span_f1_partial"]["value"] is not None
    ]
    assert max(row["value"] for row in lowest) <= min(rest)
    for row in lowest:
        document = Document.objects.get(pk=row["document_id"])
        assert (document.external_id, document.dataset.slug) == (row["external_id"], "xsum-faith")
        assert system_of[row["output"]] == row["system"]
    print(  # the figures for the report (pytest -s)
        json.dumps(
            {
                "overall": {k: result["overall"][k] for k in WITH_CI},
                "per_system": {
                    system: {k: figures[k] for k in WITH_CI}
                    for system, figures in result["per_system"].items()
                },
                "per_pair": result["per_pair"],
                "counts": counts,
                "lowest": lowest,
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


# 39705629 BERTS2S, "steven sidwell says he wants to stay at brighton until the end of the
# season." (77 characters). The release's rows 279-284 (1-based start, exclusive end into
# "\n" + summary; into the summary [start - 1, end - 1)):
#   wid_0: extrinsic "steven" 1-7 -> [0, 6); extrinsic "until the end of the season" 50-77
#          -> [49, 76)
#   wid_1: extrinsic "steven" 1-7 -> [0, 6)
#   wid_2: extrinsic "steven" 1-7 -> [0, 6); intrinsic "brighton" 41-49 -> [40, 48);
#          extrinsic "end of the season" 60-77 -> [59, 76)
# Pairwise span F1 = 2 * matched / (spans of one + spans of the other):
#   wid_0-wid_1: 3 spans; "steven" matches exactly; wid_1 has nothing else: exact = partial =
#                2/3.
#   wid_0-wid_2: 5 spans; exact: "steven" only (2/5); partial also [49, 76) with [59, 76)
#                (overlap 17, union 27, IoU 17/27); "brighton" ends at 48, before 49: 4/5.
#   wid_1-wid_2: 4 spans; "steven" both ways: 2/4 = 1/2.
# The item pools the pairs: exact (2 + 2 + 2)/12 = 1/2, partial (2 + 4 + 2)/12 = 2/3, n = 12.
# Every matched pair is extrinsic-extrinsic: kappa 0/0 for each pair, alpha 0/0.
SIDWELL = {
    "xsum-wid_0": [(0, 6, "extrinsic"), (49, 76, "extrinsic")],
    "xsum-wid_1": [(0, 6, "extrinsic")],
    "xsum-wid_2": [(0, 6, "extrinsic"), (40, 48, "intrinsic"), (59, 76, "extrinsic")],
}
SIDWELL_PAIRS = {
    ("xsum-wid_0", "xsum-wid_1"): (2 / 3, 2 / 3, 3),
    ("xsum-wid_0", "xsum-wid_2"): (2 / 5, 4 / 5, 5),
    ("xsum-wid_1", "xsum-wid_2"): (1 / 2, 1 / 2, 4),
}


def test_one_summarys_pairwise_span_f1_by_hand(run):
    (item,) = [
        i
        for i in span_agreement_input(run=run).items
        if (i.document, i.system) == ("39705629", "berts2s")
    ]
    assert {
        worker: [(e["start"], e["end"], e["type"]) for e in errors]
        for worker, errors in item.annotations.items()
    } == SIDWELL
    assert item.summary[49:76] == "until the end of the season"
    # Each pair alone: the run's own computation over that item and those two workers.
    for (a, b), (exact, partial, spans) in SIDWELL_PAIRS.items():
        pair = dataclasses.replace(
            item, annotations={a: item.annotations[a], b: item.annotations[b]}
        )
        result = span_agreement_compute(
            scheme=scheme_get("xsum-hallucinations"), items=[pair], annotators=[a, b]
        )
        (row,) = result["per_item"]
        assert row["span_f1_exact"] == {"value": pytest.approx(exact), "n": spans}
        assert row["span_f1_partial"] == {"value": pytest.approx(partial), "n": spans}
        assert (
            result["overall"]["span_f1_partial"]["ci_reason"] == "one item: no interval over items"
        )
    # The run's item pools the three pairs.
    row = _item(run.result, "39705629", "berts2s")
    assert row["span_f1_exact"] == {"value": pytest.approx(1 / 2), "n": 12}
    assert row["span_f1_partial"] == {"value": pytest.approx(2 / 3), "n": 12}
    assert row["kappa_type"]["value"] is None and row["alpha_type"]["value"] is None
