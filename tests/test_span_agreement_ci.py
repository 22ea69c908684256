"""Span agreement per system, intervals over items, lowest items and the inputs digest, by hand.

On the hand-worked campaign: stale results, reuse of an up-to-date or queued run, a run after
submissions.

The campaign (``tests/span_agreement_helpers.py``; figures of ``test_span_agreement.py``),
alice (A) against bob (B), per item: spans with offsets, exact and partial matches:

- o1 (agree-s1, agree-d1): A 2 + B 1 = 3 spans; exact 0, partial 1 (Paris). F1 0 and 2/3.
- o2 (agree-s2, agree-d1): A 2 + B 2 = 4 spans; exact 1 ("twice"), partial 2. F1 1/2 and 1.
- o3 (agree-s1, agree-d2): A 1 (her error marked nowhere is left out) + B 0 = 1; no match.

Per system:

- agree-s1 (o1, o3): exact 0/4 = 0; partial 2*1/4 = 1/2. Its only matched pair is
  (IncExt, IncExt): type kappa and alpha are 0/0, undefined.
- agree-s2 (o2): exact 2/4 = 1/2; partial 4/4 = 1. Matched (Add, WF), (Om, Om): kappa
  p_o = 1/2, p_e = 1/2 * 1/2 = 1/4, kappa = (1/4)/(3/4) = 1/3; alpha n = 4, D_o = 2/4,
  D_e = (16 - 1 - 1 - 4)/12 = 5/6, alpha = 1 - 3/5 = 2/5. One item: no interval.

Intervals over the three items (10,000 resamples of 3 items, 95%): a resample is 3 draws with
replacement, 27 equally likely ordered draws.

- Partial F1 per item is 2*matched/spans = 2/3, 4/4, 0/1. A resample of o3 alone has F1 0 and
  one of o2 alone F1 1, each with probability 1/27 = 3.7% > 2.5%; F1 lies in [0, 1], so the
  interval is [0, 1].
- Exact F1: 0/3, 2/4, 0/1. Resamples without o2 (probability 8/27) have F1 0 and o2 alone
  (1/27) has 1/2, the largest possible: the interval is [0, 1/2].
- Type kappa (one pair): its only category variation is in o2, so a resample without o2 has
  kappa 0/0 (o1's one pair is IncExt/IncExt, o3 has no match): about 8/27 of 10,000 = 2,963
  resamples are undefined (s.d. 46).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.agreement.compute import span_agreement_compute
from annotation.agreement.models import RunStatus, SpanAgreementRun
from annotation.agreement.selectors import (
    run_as_dict,
    span_agreement_input,
    span_agreement_run_digest,
    span_agreement_run_get,
)
from annotation.agreement.services import span_agreement_run_create
from annotation.campaigns.models import Task, TaskStatus
from annotation.spans.models import SpanAnnotation
from annotation.spans.services import SpanRecord, span_annotation_save, span_annotations_replace
from scoring.metrics.spans import scheme_get
from scoring.metrics.stats import bootstrap_ratio_ci
from tests.agreement_helpers import span_run_compute
from tests.span_agreement_helpers import build, polytope_campaign, summary_span, xsum_sets

pytestmark = pytest.mark.django_db

CI_MEASURES = (
    "span_f1_exact",
    "span_f1_partial",
    "kappa_type",
    "alpha_type",
    "score_alpha_interval",
)


@pytest.fixture
def world():
    return build()


@pytest.fixture
def campaign(world):
    return polytope_campaign(world)


def _computed(**kwargs) -> SpanAgreementRun:
    run = span_agreement_run_create(queue=False, **kwargs)
    assert span_run_compute(run.pk) == "succeeded"
    return span_agreement_run_get(run_id=run.pk)


def _contains(figure: dict) -> bool:
    return figure["ci_low"] <= figure["value"] <= figure["ci_high"]


def test_per_system_figures_by_hand(world, campaign):
    result = _computed(campaign=campaign.pk).result
    assert sorted(result["per_system"]) == ["agree-s1", "agree-s2"]
    assert result["counts"]["items_per_system"] == {"agree-s1": 2, "agree-s2": 1}
    s1, s2 = result["per_system"]["agree-s1"], result["per_system"]["agree-s2"]
    assert (s1["span_f1_exact"]["value"], s1["span_f1_exact"]["n"]) == (0, 4)
    assert s1["span_f1_partial"]["value"] == pytest.approx(1 / 2)
    assert s1["kappa_type"]["value"] is None and s1["alpha_type"]["value"] is None
    assert s1["kappa_type"]["ci_reason"] == "the figure is undefined"
    assert s2["span_f1_exact"]["value"] == pytest.approx(1 / 2)
    assert s2["span_f1_partial"]["value"] == pytest.approx(1)
    assert s2["kappa_type"]["value"] == pytest.approx(1 / 3)
    assert s2["alpha_type"]["value"] == pytest.approx(2 / 5)
    for name in ("span_f1_exact", "span_f1_partial", "kappa_type", "alpha_type"):
        assert s2[name]["ci_low"] is None and s2[name]["ci_high"] is None
        assert s2[name]["ci_reason"] == "one item: no interval over items"
    # Every measure is there per system, as overall.
    assert set(s1) == set(result["overall"])


def test_overall_intervals_by_hand_and_against_the_ratio_bootstrap(world, campaign):
    result = _computed(campaign=campaign.pk).result
    overall = result["overall"]
    assert result["bootstrap"]["resamples"] == 10_000 and result["bootstrap"]["seed"] == 0
    assert result["bootstrap"]["unit"] == "item"
    partial, exact = overall["span_f1_partial"], overall["span_f1_exact"]
    assert (partial["ci_low"], partial["ci_high"], partial["ci_level"]) == (0, 1, 0.95)
    assert (exact["ci_low"], exact["ci_high"]) == (0, pytest.approx(1 / 2))
    # The same draws as the pooled-ratio bootstrap over the items' hand-counted terms.
    for figure, matched in ((partial, [2, 4, 0]), (exact, [0, 2, 0])):
        alone = bootstrap_ratio_ci(matched, [3, 4, 1], seed=0, resamples=10_000)
        assert (figure["ci_low"], figure["ci_high"]) == pytest.approx((alone.low, alone.high))
    assert 2963 - 250 < overall["kappa_type"]["ci_undefined_resamples"] < 2963 + 250
    for name in CI_MEASURES:
        assert _contains(overall[name]), name
        assert "ci_reason" not in overall[name]
    # Measures without an interval have none.
    assert "ci_low" not in overall["kappa_severity"] and "ci_low" not in overall["score_pearson"]


def test_intervals_are_seeded(world, campaign):
    run = _computed(campaign=campaign.pk)
    again = span_run_compute(run.pk)
    assert again == "succeeded"
    assert span_agreement_run_get(run_id=run.pk).result == run.result
    data = span_agreement_input(run=run)
    other = span_agreement_compute(
        scheme=scheme_get("polytope"),
        items=data.items,
        annotators=[a["key"] for a in data.annotators],
        seed=1,
        resamples=2000,
    )
    assert other["bootstrap"]["seed"] == 1
    for name in CI_MEASURES:
        assert other["overall"][name]["value"] == run.result["overall"][name]["value"]
        assert _contains(other["overall"][name])


def test_lowest_items_link_to_their_documents(world, campaign):
    result = _computed(campaign=campaign.pk).result
    o1, o2, o3 = (world.outputs[key] for key in ("o1", "o2", "o3"))
    assert result["lowest"] == [
        {
            "output": o3.pk, "document_id": o3.document_id, "external_id": "agree-d2",
            "system": "agree-s1", "value": 0, "n": 1, "measure": "span_f1_partial",
        },
        {
            "output": o1.pk, "document_id": o1.document_id, "external_id": "agree-d1",
            "system": "agree-s1", "value": pytest.approx(2 / 3), "n": 3,
            "measure": "span_f1_partial",
        },
        {
            "output": o2.pk, "document_id": o2.document_id, "external_id": "agree-d1",
            "system": "agree-s2", "value": 1, "n": 4, "measure": "span_f1_partial",
        },
    ]  # fmt: skip
    # Per-item figures are compact: no excluded 0, no reason beside a value.
    (row,) = [r for r in result["per_item"] if r["output"] == o2.pk]
    assert row["span_f1_partial"] == {"value": 1.0, "n": 4}
    assert row["document_id"] == o2.document_id


def test_sets_without_segment_scores_get_no_score_interval(world):
    x, y = xsum_sets(world)
    result = _computed(annotation_sets=[x.pk, y.pk]).result
    figure = result["overall"]["score_alpha_interval"]
    assert figure["value"] is None and figure["ci_low"] is None
    assert figure["ci_reason"] == "the figure is undefined"
    assert "kappa_label" not in result["per_item"][0]  # skipped: said once, in skipped
    assert _contains(result["overall"]["span_f1_partial"])


# --- the inputs digest ---------------------------------------------------------------------


def _bob_o1(world) -> SpanAnnotation:
    return SpanAnnotation.objects.get(annotator=world.users["bob"], output=world.outputs["o1"])


def test_a_saved_change_makes_the_result_stale_and_a_new_run_reads_it(world, campaign):
    run = _computed(campaign=campaign.pk)
    assert run.inputs_digest == span_agreement_run_digest(run=run)
    shown = run_as_dict(run)
    assert shown["stale"] is False and shown["inputs_digest"] == shown["current_digest"]
    row = _bob_o1(world)
    span_annotation_save(
        annotation=row,
        errors=[*row.errors, summary_span(23, 32, "Addition", "Number & Time")],
        no_errors=False,
        base_version=row.version,
        user=world.users["bob"],
    )
    shown = run_as_dict(span_agreement_run_get(run_id=run.pk))
    assert shown["stale"] is True and shown["inputs_digest"] != shown["current_digest"]
    fresh = span_agreement_run_create(campaign=campaign.pk, queue=False)
    assert fresh.pk != run.pk and fresh.status == RunStatus.QUEUED
    span_run_compute(fresh.pk)
    fresh = span_agreement_run_get(run_id=fresh.pk)
    assert run_as_dict(fresh)["stale"] is False
    # bob's Addition on o1 now matches alice's exactly: exact 2 of 9 spans, partial 4.
    assert fresh.result["overall"]["span_f1_exact"]["value"] == pytest.approx(4 / 9)


def test_an_unchanged_input_reuses_the_run_and_a_burst_queues_one(world, campaign):
    run = _computed(campaign=campaign.pk)
    assert span_agreement_run_create(campaign=campaign.pk, queue=False).pk == run.pk
    assert SpanAgreementRun.objects.count() == 1
    forced = span_agreement_run_create(campaign=campaign.pk, queue=False, force=True)
    assert forced.pk != run.pk and forced.status == RunStatus.QUEUED
    # Calls while a run is queued (a burst of submissions) get that run, forced or not.
    for force in (False, True):
        assert span_agreement_run_create(campaign=campaign.pk, queue=False, force=force).pk == (
            forced.pk
        )
    # Other options are another input.
    other = span_agreement_run_create(campaign=campaign.pk, queue=False, min_iou=0.5)
    assert other.pk not in (run.pk, forced.pk)
    # A queued run older than the reuse window is presumed lost: it is not reused (the
    # succeeded run is still up to date; forcing queues a new run).
    SpanAgreementRun.objects.filter(pk=forced.pk).update(
        created_at=timezone.now() - timedelta(hours=1)
    )
    assert span_agreement_run_create(campaign=campaign.pk, queue=False).pk == run.pk
    newer = span_agreement_run_create(campaign=campaign.pk, queue=False, force=True)
    assert newer.pk not in (run.pk, forced.pk, other.pk)


def test_submissions_change_the_digest_of_submitted_only_runs(world):
    campaign = polytope_campaign(world, bob_submits_o3=False)
    submitted = _computed(campaign=campaign.pk, submitted_only=True)
    everything = _computed(campaign=campaign.pk)
    Task.objects.filter(
        campaign=campaign, annotator=world.users["bob"], output=world.outputs["o3"]
    ).update(status=TaskStatus.SUBMITTED)
    assert run_as_dict(span_agreement_run_get(run_id=submitted.pk))["stale"] is True
    assert run_as_dict(span_agreement_run_get(run_id=everything.pk))["stale"] is False


def test_an_import_into_a_set_changes_the_digest(world):
    x, y = xsum_sets(world)
    run = _computed(annotation_sets=[x.pk, y.pk])
    o1 = world.outputs["o1"]
    record = SpanRecord(
        output_id=o1.pk, errors=(summary_span(17, 22, "extrinsic"),), no_errors=False
    )
    span_annotations_replace(annotation_set=y, records=[record], output_ids=[o1.pk])
    assert run_as_dict(span_agreement_run_get(run_id=run.pk))["stale"] is True
    again = span_agreement_run_create(annotation_sets=[y.pk, x.pk], queue=False)
    assert again.pk != run.pk


def test_submissions_queue_one_span_run_per_burst(world, django_capture_on_commit_callbacks):
    from annotation.campaigns.services import (
        polytope_campaign_create,
        task_spans_save,
        task_submit,
        tasks_assign_manual,
    )
    from tests.span_agreement_helpers import ALICE, BOB

    campaign = polytope_campaign_create(
        dataset=world.dataset,
        slug="submitted",
        name="Submitted",
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
    alices = [t for t in tasks if t.annotator.username == "alice"]
    bobs = [t for t in tasks if t.annotator.username == "bob"]
    # The automatic run counts submitted work only: the saved spans of both annotators overlap,
    # but bob's are drafts, so alice's first submission has nothing to compare yet.
    task_submit(task=alices[0])
    assert not SpanAgreementRun.objects.filter(campaign=campaign).exists()
    # bob submits the same output: two submitted annotators, a run over submitted work.
    (same,) = [t for t in bobs if t.output_id == alices[0].output_id]
    with django_capture_on_commit_callbacks() as queued:
        task_submit(task=same)
    (run,) = SpanAgreementRun.objects.filter(campaign=campaign)
    assert (run.status, run.submitted_only) == (RunStatus.QUEUED, True) and len(queued) >= 1
    for task in [alices[1], *[t for t in bobs if t != same]]:
        task_submit(task=task)
    assert list(SpanAgreementRun.objects.filter(campaign=campaign)) == [run]  # one per burst
    span_run_compute(run.pk)
    assert span_agreement_run_get(run_id=run.pk).result["counts"]["items"] == 2


def test_a_submission_with_one_annotator_queues_nothing(world):
    from annotation.campaigns.services import (
        polytope_campaign_create,
        task_spans_save,
        task_submit,
        tasks_assign_manual,
    )

    campaign = polytope_campaign_create(
        dataset=world.dataset,
        slug="alone",
        name="Alone",
        systems=["agree-s1"],
        documents=["agree-d1"],
        annotators_per_document=1,
    )
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("agree-d1", "alice")])
    task_spans_save(task=task, user=task.annotator, errors=[], no_errors=True, base_version=1)
    task_submit(task=task)
    assert not SpanAgreementRun.objects.exists()
