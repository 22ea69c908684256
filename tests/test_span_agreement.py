"""Span agreement runs: hand-worked campaign and sets, bad input, and the task called directly.

The campaign (``tests/span_agreement_helpers.py``), alice (A) against bob (B):

- o1 (7 words). A: [17,22) IncExt/Place Critical; [23,32) Addition/Number Major.
  B: [14,22) IncExt/Place Critical.
- o2 (6 words). A: [14,19) Addition/Attribute Major; "budget" in the source Omission/Object
  Critical. B: "the budget" in the source Omission/Object Critical; [14,19) Word Form/Attribute
  Minor.
- o3 (7 words). A: [12,20) IncInt/Predicate Critical; an Omission/Attribute (Major) marked
  nowhere. B: no errors.

- Spans with offsets: A 5 (the nowhere error is left out), B 3.
- Exact matches: only "twice" in o2, so F1 = 2*1/8 = 1/4. Partial: also Paris (IoU 5/8) and
  the budget (IoU 6/10), so F1 = 2*3/8 = 3/4.
- Types of the 3 matched pairs: (IncExt, IncExt), (Addition, Word Form), (Omission, Omission):
  p_o = 2/3, p_e = 1/9 + 1/9 = 2/9, kappa = (4/9)/(7/9) = 4/7. Alpha: n = 6, D_o = 2/6,
  D_e = (36 - 4 - 1 - 1 - 4)/30 = 13/15, alpha = 1 - 5/13 = 8/13.
- Labels all agree (Place & Name, Attribute, Object): kappa = alpha = 1.
- Severities (C,C), (Major, Minor), (C,C): p_o = 2/3, p_e = (2/3)^2 = 4/9, kappa = 2/5.
  Alpha: n_C = 4, D_o = 2/6, D_e = (36 - 16 - 1 - 1)/30 = 3/5, alpha = 1 - 5/9 = 4/9.
- Segment scores 100 (words - penalty)/words: o1 A (7 - 7.5)/7 = -50/7, B (7 - 5)/7 = 200/7;
  o2 A (6 - 7.5)/6 = -25, B (6 - 5.5)/6 = 25/3; o3 A -50/7 (the nowhere error counts), B 100.
"""

from __future__ import annotations

import json
import math
import re

import pytest

from annotation.agreement.models import RunStatus, SpanAgreementRun
from annotation.agreement.services import (
    SPAN_AGREEMENT,
    span_agreement_run_compute,
    span_agreement_run_create,
)
from annotation.campaigns.models import Campaign, CampaignKind
from annotation.fams.models import AnnotationSetKind
from annotation.jobs.tasks import job_chunk_task, job_run_task
from annotation.spans.models import SpanAnnotation
from config.exceptions import ApplicationError
from tests.agreement_helpers import span_run_compute
from tests.span_agreement_helpers import (
    ALICE,
    BOB,
    build,
    polytope_campaign,
    span_row,
    span_set,
    summary_span,
    xsum_sets,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return build()


@pytest.fixture
def campaign(world):
    return polytope_campaign(world)


def _computed(**kwargs) -> dict:
    run = span_agreement_run_create(queue=False, **kwargs)
    assert span_run_compute(run.pk) == "succeeded"
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.error == ""
    json.dumps(run.result)  # stored as JSON, so it must be plain data
    return run.result


def _value(score: dict) -> float | None:
    return score["value"]


def _item(result: dict, output) -> dict:
    (entry,) = [row for row in result["per_item"] if row["output"] == output.pk]
    return entry


def test_campaign_run_by_hand_overall_and_pair(world, campaign):
    result = _computed(campaign=campaign.pk)
    assert result["scheme"] == "polytope"
    assert [a["key"] for a in result["annotators"]] == ["alice", "bob", "carol"]
    overall = result["overall"]
    assert _value(overall["span_f1_exact"]) == pytest.approx(1 / 4)
    assert overall["span_f1_exact"]["n"] == 8
    assert _value(overall["span_f1_partial"]) == pytest.approx(3 / 4)
    assert _value(overall["kappa_type"]) == pytest.approx(4 / 7)
    assert _value(overall["alpha_type"]) == pytest.approx(8 / 13)
    assert _value(overall["kappa_label"]) == pytest.approx(1)
    assert _value(overall["alpha_label"]) == pytest.approx(1)
    assert _value(overall["kappa_severity"]) == pytest.approx(2 / 5)
    assert _value(overall["alpha_severity"]) == pytest.approx(4 / 9)
    (pair,) = result["per_pair"]
    assert pair["annotators"] == ["alice", "bob"] and pair["items"] == 3
    assert _value(pair["span_f1_partial"]) == pytest.approx(3 / 4)
    assert _value(pair["kappa_severity"]) == pytest.approx(2 / 5)
    assert result["skipped"] == {}


def test_campaign_run_segment_scores_by_hand(world, campaign):
    result = _computed(campaign=campaign.pk)
    a = (-50 / 7, -25, -50 / 7)
    b = (200 / 7, 25 / 3, 100)
    for key, x, y in zip(("o1", "o2", "o3"), a, b, strict=True):
        scores = _item(result, world.outputs[key])["segment_scores"]
        assert scores == {"alice": pytest.approx(x), "bob": pytest.approx(y)}
    diffs = [abs(x - y) for x, y in zip(a, b, strict=True)]  # 250/7, 100/3, 750/7
    assert _value(result["overall"]["score_abs_difference"]) == pytest.approx(3700 / 63)
    assert sum(diffs) / 3 == pytest.approx(3700 / 63)
    assert _value(_item(result, world.outputs["o3"])["score_abs_difference"]) == pytest.approx(
        750 / 7
    )
    # r: A's deviations are proportional to (1, -2, 1), B's to (-43, -94, 137).
    assert _value(result["overall"]["score_pearson"]) == pytest.approx(282 / math.sqrt(176724))
    # Two coders, no gaps: alpha = 1 - (n - 1) * sum_u 2 d_u^2 / sum_{i != j} (v_i - v_j)^2.
    values = [*a, *b]
    spread = sum((v - w) ** 2 for v in values for w in values)
    alpha = 1 - (len(values) - 1) * sum(2 * d**2 for d in diffs) / spread
    assert _value(result["overall"]["score_alpha_interval"]) == pytest.approx(alpha)
    assert "score_alpha_interval" not in _item(result, world.outputs["o1"])


def test_campaign_run_per_item_and_counts(world, campaign):
    result = _computed(campaign=campaign.pk)
    o1, o2, o3 = (_item(result, world.outputs[key]) for key in ("o1", "o2", "o3"))
    assert (_value(o1["span_f1_exact"]), _value(o1["span_f1_partial"])) == (0, pytest.approx(2 / 3))
    assert (_value(o2["span_f1_exact"]), _value(o2["span_f1_partial"])) == (0.5, 1.0)
    assert (_value(o3["span_f1_exact"]), _value(o3["span_f1_partial"])) == (0, 0)
    assert _value(o2["kappa_type"]) == pytest.approx(1 / 3)  # (Add, WF), (Om, Om)
    assert o1["kappa_type"]["value"] is None  # one matched pair, one category
    assert "every pair kappa is undefined" in o1["kappa_type"]["reason"]
    assert o3["errors"] == {"alice": 2, "bob": 0}
    assert o3["left_out_no_offsets"] == {"alice": 1}
    assert (o1["document"], o1["system"]) == ("agree-d1", "agree-s1")
    counts = result["counts"]
    assert counts["items"] == 3
    assert counts["items_with_one_annotator"] == 1  # carol's o4
    assert counts["rows_not_annotated"] == 1  # dave's empty row
    assert counts["left_out_no_offsets"] == {"alice": 1, "bob": 0, "carol": 0}
    assert counts["errors_in_source"] == {"alice": 1, "bob": 1, "carol": 0}
    assert "no_offsets" in result["conventions"]


def test_submitted_only_counts_items_of_submitted_tasks(world):
    campaign = polytope_campaign(world, bob_submits_o3=False)
    result = _computed(campaign=campaign.pk, submitted_only=True)
    assert result["counts"]["items"] == 2  # o3 is in progress for bob
    # o1 and o2 only: exact 1 match of 4 + 3 spans, partial 3.
    assert _value(result["overall"]["span_f1_exact"]) == pytest.approx(2 / 7)
    assert _value(result["overall"]["span_f1_partial"]) == pytest.approx(6 / 7)
    assert _computed(campaign=campaign.pk)["counts"]["items"] == 3


def test_min_iou_drops_weak_partial_matches(world, campaign):
    # Paris IoU 5/8 = 0.625 and the budget 6/10 = 0.6: at 0.61 only Paris and "twice" remain.
    result = _computed(campaign=campaign.pk, min_iou=0.61)
    assert _value(result["overall"]["span_f1_partial"]) == pytest.approx(2 * 2 / 8)
    assert result["matching"]["partial"] == {"mode": "partial", "min_iou": 0.61}


def test_annotation_sets_run_by_hand_and_skipped_measures(world):
    x, y = xsum_sets(world)
    result = _computed(annotation_sets=[x.pk, y.pk])
    assert [a["key"] for a in result["annotators"]] == ["set-x", "set-y"]
    assert result["annotators"][0]["annotation_set"] == x.pk
    overall = result["overall"]
    # X: 3 spans, Y: 2. Exact: o3 [12,20); partial: also o1's Paris.
    assert _value(overall["span_f1_exact"]) == pytest.approx(2 / 5)
    assert _value(overall["span_f1_partial"]) == pytest.approx(4 / 5)
    # (ext, ext), (int, ext): p_o = 1/2 = p_e; alpha: D_o = 1/2 = D_e.
    assert _value(overall["kappa_type"]) == pytest.approx(0)
    assert _value(overall["alpha_type"]) == pytest.approx(0)
    o2 = _item(result, world.outputs["o2"])  # both marked it clean
    assert o2["span_f1_partial"]["value"] is None
    assert o2["span_f1_partial"]["reason"] == "neither annotator marked a span"
    assert "segment_scores" not in o2
    for name in ("kappa_label", "alpha_label"):
        assert result["skipped"][name] == "the XSum hallucinations scheme has no labels"
        assert overall[name]["reason"] == result["skipped"][name]
    assert result["skipped"]["kappa_severity"] == "the XSum hallucinations scheme has no severities"
    assert (
        result["skipped"]["score_pearson"]
        == "the XSum hallucinations scheme defines no segment score"
    )
    assert result["per_pair"][0]["score_alpha_interval"]["value"] is None


def test_a_gold_set_against_a_human_set_of_one_scheme(world):
    x, _ = xsum_sets(world)
    gold = span_set(world, "gold-x", "xsum-hallucinations", kind=AnnotationSetKind.GOLD)
    span_row(gold, world.outputs["o1"], [summary_span(17, 22, "extrinsic")])
    result = _computed(annotation_sets=[gold.pk, x.pk])
    assert result["counts"]["items"] == 1 and result["counts"]["items_with_one_annotator"] == 2
    assert _value(result["overall"]["span_f1_exact"]) == 1.0
    assert result["overall"]["kappa_type"]["value"] is None  # one category: 0/0


def test_a_campaign_made_and_annotated_through_the_campaign_services(world):
    from annotation.campaigns.services import (
        polytope_campaign_create,
        task_spans_save,
        tasks_assign_manual,
    )

    campaign = polytope_campaign_create(
        dataset=world.dataset,
        slug="real",
        name="Real",
        systems=["agree-s1", "agree-s2"],
        documents=["agree-d1"],
        annotators_per_document=2,
    )
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[("agree-d1", "alice"), ("agree-d1", "bob")]
    )
    for task in tasks:
        marked = {"alice": ALICE, "bob": BOB}[task.annotator.username]
        key = next(k for k, o in world.outputs.items() if o.pk == task.output_id)
        task_spans_save(
            task=task, user=task.annotator, errors=marked[key], no_errors=False, base_version=1
        )
    result = _computed(campaign=campaign.pk)
    # o1 and o2: 4 + 3 spans, exact 1 match, partial 3 (as with submitted_only above).
    assert result["counts"]["items"] == 2
    assert _value(result["overall"]["span_f1_exact"]) == pytest.approx(2 / 7)
    assert _value(result["overall"]["span_f1_partial"]) == pytest.approx(6 / 7)


def test_spans_marked_in_different_texts_of_one_output_are_not_compared(world):
    """A set imported from an official workbook keeps the Target it annotated where that is
    not the stored output: its offsets index another text, so the output is left out and
    counted, not compared offset by offset."""
    x, _ = xsum_sets(world)
    other = span_set(world, "from-workbook", "xsum-hallucinations", kind=AnnotationSetKind.GOLD)
    row = span_row(other, world.outputs["o1"], [summary_span(0, 5, "extrinsic")])
    row.annotated_text = "Alice met Bob in Paris on Monday, as planned."
    row.full_clean()
    row.save()
    span_row(other, world.outputs["o3"], [summary_span(12, 20, "intrinsic")])
    result = _computed(annotation_sets=[other.pk, x.pk])
    assert result["counts"]["items"] == 1
    assert result["counts"]["items_annotated_on_different_texts"] == 1
    assert [item["output"] for item in result["per_item"]] == [world.outputs["o3"].pk]


# --- bad input: a clear error and nothing written ---------------------------------------


def _refused(message: str, **kwargs) -> None:
    with pytest.raises(ApplicationError, match=message):
        span_agreement_run_create(queue=False, **kwargs)
    assert not SpanAgreementRun.objects.exists()


def test_sets_of_another_scheme_are_refused(world, campaign):
    x, _ = xsum_sets(world)
    _refused(
        r"different span schemes .*polytope", annotation_sets=[x.pk, campaign.annotation_set_id]
    )


def test_sets_of_different_datasets_are_refused(world):
    x, _ = xsum_sets(world)
    other = build("other")
    y_other, _ = xsum_sets(other)
    _refused(r"different datasets \(agree, other\)", annotation_sets=[x.pk, y_other.pk])


def test_a_fam_set_is_refused(world):
    x, _ = xsum_sets(world)
    fam = span_set(world, "fams", "fam")
    _refused(r"\['fams'\] hold FAMs, not error spans", annotation_sets=[x.pk, fam.pk])


def test_fewer_than_two_annotators_are_refused(world):
    x, _ = xsum_sets(world)
    _refused("at least two annotation sets .* got 1", annotation_sets=[x.pk])
    _refused(r"given once", annotation_sets=[x.pk, x.pk])
    annotation_set = span_set(world, "solo", "polytope")
    solo = Campaign.objects.create(
        dataset=world.dataset, slug="solo", name="Solo", kind=CampaignKind.POLYTOPE,
        annotation_set=annotation_set,
    )  # fmt: skip
    span_row(annotation_set, world.outputs["o1"], None, annotator=world.users["alice"])
    _refused(r"'solo' has 1 annotator\(s\) .* at least two", campaign=solo.pk)


def test_a_campaign_without_overlap_or_submissions_is_refused(world):
    annotation_set = span_set(world, "apart", "polytope")
    apart = Campaign.objects.create(
        dataset=world.dataset, slug="apart", name="Apart", kind=CampaignKind.POLYTOPE,
        annotation_set=annotation_set,
    )  # fmt: skip
    span_row(annotation_set, world.outputs["o1"], None, annotator=world.users["alice"])
    span_row(annotation_set, world.outputs["o2"], None, annotator=world.users["bob"])
    _refused("No item of campaign 'apart' is annotated by two", campaign=apart.pk)
    _refused("0 annotator.* submitted annotated", campaign=apart.pk, submitted_only=True)


def test_a_fam_campaign_and_other_bad_requests_are_refused(world, campaign):
    fam_set = span_set(world, "fam-campaign", "fam")
    fam = Campaign.objects.create(
        dataset=world.dataset, slug="famc", name="F", kind=CampaignKind.FAM,
        annotation_set=fam_set,
    )  # fmt: skip
    _refused("is a Facet-aware mappings campaign; span agreement needs a PolyTope", campaign=fam.pk)
    _refused("either a campaign or a list", campaign=campaign.pk, annotation_sets=[1, 2])
    _refused("either a campaign or a list")
    _refused("Unknown campaign: 999999", campaign=999999)
    _refused(r"Unknown annotation sets: \[999999, 999998\]", annotation_sets=[999999, 999998])
    _refused("min_iou must be a number from 0 to 1", campaign=campaign.pk, min_iou=1.5)
    x, y = xsum_sets(world)
    _refused(
        "submitted_only applies to campaigns", annotation_sets=[x.pk, y.pk], submitted_only=True
    )


def test_a_set_with_several_annotators_is_not_one_annotator(world, campaign):
    released = span_set(world, "released", "polytope", kind=AnnotationSetKind.RELEASED)
    span_row(released, world.outputs["o1"], None)
    outputs = sorted(world.outputs[key].pk for key in ("o1", "o2", "o3"))
    _refused(
        re.escape(f"'campaign-agree' holds several annotators' rows for outputs {outputs}"),
        annotation_sets=[released.pk, campaign.annotation_set_id],
    )


def test_sets_without_a_shared_output_are_refused(world):
    x = span_set(world, "only-o1", "xsum-hallucinations")
    y = span_set(world, "only-o2", "xsum-hallucinations")
    span_row(x, world.outputs["o1"], None)
    span_row(y, world.outputs["o2"], None)
    _refused("No output is annotated in two of these sets", annotation_sets=[x.pk, y.pk])


# --- the job, run through the job kernel in this process --------------------------------


def test_the_job_is_idempotent_and_follows_the_annotations(world, campaign):
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    assert run.status == RunStatus.QUEUED and run.result is None
    assert span_run_compute(run.pk) == "succeeded"
    run.refresh_from_db()
    first, finished = run.result, run.finished_at
    assert span_run_compute(run.pk) == "succeeded"  # computed again (restarted): the same
    run.refresh_from_db()
    assert run.result == first and run.finished_at >= finished and run.started_at
    # bob now finds the Addition on o1 too: exact matches 1 -> 1, partial 3 -> 4.
    row = SpanAnnotation.objects.get(annotator=world.users["bob"], output=world.outputs["o1"])
    row.errors = [*row.errors, summary_span(23, 32, "Addition", "Number & Time")]
    row.full_clean()
    row.save()
    span_run_compute(run.pk)
    run.refresh_from_db()
    assert _value(run.result["overall"]["span_f1_exact"]) == pytest.approx(2 * 2 / 9)
    assert _value(run.result["overall"]["span_f1_partial"]) == pytest.approx(2 * 4 / 9)


def test_a_run_whose_annotations_are_gone_fails_with_the_reason(world, campaign):
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    SpanAnnotation.objects.filter(annotator=world.users["bob"]).delete()
    assert span_run_compute(run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.result is None
    assert "No output is annotated by two annotators" in run.error
    assert run.finished_at is not None


def test_a_deleted_run_is_a_no_op(world, campaign):
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    run_id = run.pk
    run.delete()
    # The kernel's run task (as a worker takes it from the broker) finds no run: nothing sent.
    assert job_run_task("span_agreement", run_id) == 0


def test_the_service_computes_without_a_worker(world, campaign):
    run = span_agreement_run_create(campaign=campaign.pk, queue=False)
    run = span_agreement_run_compute(run=run)
    assert run.status == RunStatus.SUCCEEDED
    assert run.result["counts"]["pairs"] == 1


def test_the_job_has_the_house_options():
    assert job_run_task.acks_late is True and job_chunk_task.acks_late is True
    assert SPAN_AGREEMENT.options() == {"priority": 0, "soft_time_limit": 600, "time_limit": 660}
