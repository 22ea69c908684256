"""FAM campaign agreement: hand-worked figures through the service, the task and the API; the
inputs' digest (unchanged: no recompute; changed: stale); runs queued after submissions; the
split with and without suggestions from hand-made suggestion events; the dataset summary."""

from __future__ import annotations

import datetime
import time

import pytest
from django.db import transaction
from django.utils import timezone

from annotation.accounts.services import user_create
from annotation.adjudication.services import campaign_adjudicators_set, gold_fam_save
from annotation.agreement.fam_selectors import (
    campaign_agreement_get,
    dataset_agreement_summary,
    fam_agreement_digest,
)
from annotation.agreement.fam_services import FAM_AGREEMENT, fam_agreement_request
from annotation.agreement.models import FamAgreementRun
from annotation.campaigns.models import SuggestionEvent, Task
from annotation.campaigns.selectors import task_fam
from annotation.campaigns.services import (
    campaign_create,
    task_fam_save,
    task_reopen,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import FamRevision
from annotation.jobs import kernel
from tests.agreement_helpers import fam_run_compute, span_run_compute

URL = "/api/campaigns/{}/agreement/"


def facet(groups=(), label="supported"):
    return {"groups": [list(g) for g in groups], "label": label, "note": ""}


# Two documents compared by A and B (d3 is annotated by C alone):
#
#   d1  facet 0: A {0,1}        B {0},{1}     support J 2/2 = 1    groups J 0/2   Dice 1
#       facet 1: A {3}          B {3,4}       support J 1/2        groups J 0/2   Dice 2/3
#   d2  facet 0: A {2},{4}      B {2},{4,5}   support J 2/3        groups J 1/3   Dice 4/5
#       facet 1: A no support   B no support  skipped (neither supports it)
#
# jaccard_union = (1 + 1/2 + 2/3) / 3 = 13/18; per document d1 3/4, d2 2/3.
# jaccard_groups = (0 + 0 + 1/3) / 3 = 1/9; f1_union = (1 + 2/3 + 4/5) / 3 = 37/45.
# Categories: A d1 low (derived), d2 high (a no-support facet); B d1 low, d2 low (override).
# kappa: p_o = 1/2, p_e = 1/2 * 1 = 1/2, so 0; alpha: units (low, low), (high, low),
# D_o = 2/4, D_e = (16 - 9 - 1)/12 = 1/2, so 0.
FAMS = {
    ("d1", "ann-a"): ([facet([[0, 1]]), facet([[3]])], None),
    ("d1", "ann-b"): ([facet([[0], [1]]), facet([[3, 4]])], None),
    ("d2", "ann-a"): ([facet([[2], [4]]), facet(label="no_support")], None),
    ("d2", "ann-b"): ([facet([[2], [4, 5]]), facet(label="no_support")], "low"),
    ("d3", "ann-c"): ([facet([[0]])], None),
}


def build_world() -> dict:
    admin = user_create(username="fagr-admin", password="pw", role="Admin")
    for name in ("ann-a", "ann-b", "ann-c"):
        user_create(username=name, password="pw", role="Annotator")
    dataset = Dataset.objects.create(slug="fagr", name="FAM agreement")
    for position, (external_id, sentences, facets) in enumerate(
        [("d1", 6, 2), ("d2", 6, 2), ("d3", 5, 1)]
    ):
        document = Document.objects.create(
            dataset=dataset,
            external_id=external_id,
            position=position,
            sentences=[f"Sentence {i} of {external_id}." for i in range(sentences)],
            category="low",
        )
        Reference.objects.create(
            document=document, sentences=[f"Facet {i}." for i in range(facets)]
        )
    campaign = campaign_create(
        dataset=dataset, slug="fagr-c", name="FAM agreement", scorers=["tfidf"]
    )
    tasks = tasks_assign_manual(campaign=campaign, assignments=list(FAMS))
    by_key = {(t.document.external_id, t.annotator.username): t for t in tasks}
    (never,) = tasks_assign_manual(campaign=campaign, assignments=[("d1", "ann-c")])
    return {
        "admin": admin,
        "dataset": dataset,
        "campaign": campaign,
        "tasks": by_key,
        "unsubmitted": never,
    }


@pytest.fixture
def world(db):
    return build_world()


def save(task, facets, category=None):
    fam = task_fam(task=task)
    return task_fam_save(
        task=task, user=task.annotator, facets=facets, base_version=fam.version, category=category
    )


def annotate(world, *, submit=True):
    for key, (facets, category) in FAMS.items():
        task = world["tasks"][key]
        save(task, facets, category)
        if submit:
            task_submit(task=task)


def run_latest(campaign) -> FamAgreementRun:
    return FamAgreementRun.objects.filter(campaign=campaign).order_by("-id").first()


def compute(campaign) -> dict:
    run = run_latest(campaign)
    assert fam_run_compute(run.pk) == "succeeded", run.error
    return campaign_agreement_get(campaign=campaign)


def _event(task, facet_index, sentence, action):
    """One suggestion event of the TF-IDF scorer."""
    SuggestionEvent.objects.create(
        task=task,
        facet=facet_index,
        sentence=sentence,
        scorer="tfidf",
        scorer_version="1",
        action=action,
    )


def test_hand_worked_figures_through_the_task_and_the_api(world, client_for):
    annotate(world)
    campaign = world["campaign"]
    # Every submission asked for a run; one waits (the latest submission's).
    assert FamAgreementRun.objects.filter(campaign=campaign).count() == 1
    run = run_latest(campaign)
    assert (run.status, run.trigger) == ("queued", "submission")
    assert fam_run_compute(run.pk) == "succeeded"
    response = client_for("admin").get(URL.format(campaign.pk))
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["kind"], body["status"], body["stale"], body["error"]) == (
        "fam",
        "succeeded",
        False,
        "",
    )
    assert body["inputs_digest"] == body["current_digest"] and len(body["inputs_digest"]) == 64
    result = body["result"]
    measures = result["measures"]
    jaccard = measures["jaccard_union"]["overall"]
    assert jaccard["value"] == pytest.approx(13 / 18)
    assert (jaccard["n"], jaccard["excluded"]) == (3, 1)
    assert jaccard["ci_level"] == 0.95
    assert jaccard["ci_low"] <= jaccard["value"] <= jaccard["ci_high"]
    assert measures["jaccard_groups"]["overall"]["value"] == pytest.approx(1 / 9)
    assert measures["f1_union"]["overall"]["value"] == pytest.approx(37 / 45)
    assert measures["category_kappa"]["overall"]["value"] == pytest.approx(0)
    assert measures["category_alpha"]["overall"]["value"] == pytest.approx(0)
    (pair,) = measures["jaccard_union"]["per_pair"]
    assert (pair["a"], pair["b"], pair["n"]) == ("ann-a", "ann-b", 3)
    assert pair["value"] == pytest.approx(13 / 18)
    assert measures["jaccard_union"]["label"] and measures["jaccard_union"]["description"]
    d1, d2 = result["documents"]
    assert (d1["external_id"], d2["external_id"]) == ("d1", "d2")
    assert d1["jaccard_union"] == pytest.approx(3 / 4)
    assert d2["jaccard_union"] == pytest.approx(2 / 3)
    assert d2["categories"] == {"ann-a": "high", "ann-b": "low"}
    assert d1["annotators"] == ["ann-a", "ann-b"] and d1["category"] == "low"
    assert [row["external_id"] for row in result["lowest"]] == ["d2", "d1"]
    assert result["lowest"][0] == {
        "document_id": d2["id"],
        "external_id": "d2",
        "value": pytest.approx(2 / 3),
        "measure": "jaccard_union",
    }
    assert result["counts"] == {
        "documents": 2,
        "documents_with_one_annotator": 1,
        "tasks": 5,
        "pairs": 1,
    }
    assert result["annotators"] == ["ann-a", "ann-b"]
    assert "intervals" in result["conventions"]


def test_an_unchanged_campaign_is_not_computed_again(world, client_for):
    annotate(world)
    campaign = world["campaign"]
    compute(campaign)
    runs = FamAgreementRun.objects.filter(campaign=campaign).count()
    admin = client_for("admin")
    response = admin.post(URL.format(campaign.pk))
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "succeeded" and not response.json()["stale"]
    assert FamAgreementRun.objects.filter(campaign=campaign).count() == runs
    # A draft saved in an unsubmitted task does not count: still not stale.
    save(world["unsubmitted"], [facet([[5]]), facet([[5]])])
    assert admin.get(URL.format(campaign.pk)).json()["stale"] is False
    # Running a finished run again does nothing (a redelivered task).
    finished = run_latest(campaign)
    before = finished.finished_at
    assert fam_run_compute(finished.pk) == "succeeded"
    finished.refresh_from_db()
    assert finished.finished_at == before


def test_a_changed_campaign_is_stale_until_the_new_run_finishes(world, client_for):
    annotate(world)
    campaign = world["campaign"]
    computed = compute(campaign)
    admin = client_for("admin")
    task = world["tasks"][("d2", "ann-b")]
    task_reopen(task=Task.objects.get(pk=task.pk))
    body = admin.get(URL.format(campaign.pk)).json()
    assert body["stale"] is True and body["status"] == "succeeded"
    assert body["inputs_digest"] == computed["inputs_digest"] != body["current_digest"]
    assert body["result"] == computed["result"]  # the previous figures stay on show
    # d2's B now agrees with A on facet 0; resubmitting queues a run (the submission's).
    save(Task.objects.get(pk=task.pk), [facet([[2], [4]]), facet(label="no_support")])
    task_submit(task=Task.objects.get(pk=task.pk))
    queued = run_latest(campaign)
    assert queued.status == "queued" and queued.trigger == "submission"
    response = admin.post(URL.format(campaign.pk))  # asking again adds no run
    assert response.status_code == 202
    assert response.json()["run"]["id"] == queued.pk
    assert response.json()["stale"] is True
    fresh = compute(campaign)
    assert fresh["stale"] is False and fresh["run"]["id"] == queued.pk
    # d2 facet 0 now agrees: (1 + 1/2 + 1) / 3.
    overall = fresh["result"]["measures"]["jaccard_union"]["overall"]
    assert overall["value"] == pytest.approx(5 / 6)


def test_post_queues_a_run_when_none_exists_and_reports_failure_reasons(world, client_for):
    campaign = world["campaign"]
    admin = client_for("admin")
    empty = admin.get(URL.format(campaign.pk)).json()
    assert (empty["status"], empty["result"], empty["stale"], empty["run"]) == (
        "none",
        None,
        False,
        None,
    )
    response = admin.post(URL.format(campaign.pk))
    assert response.status_code == 202 and response.json()["status"] == "queued"
    run = run_latest(campaign)
    assert (run.trigger, run.created_by.username) == ("request", "t-admin")
    assert fam_run_compute(run.pk) == "failed"
    body = admin.get(URL.format(campaign.pk)).json()
    assert body["status"] == "failed" and "two annotators" in body["error"]
    assert body["result"] is None
    assert admin.get(URL.format(999999)).status_code == 404


def test_submissions_in_one_transaction_queue_one_run_and_polytope_submissions_none(world):
    campaign = world["campaign"]
    annotate(world, submit=False)
    with transaction.atomic():
        for key in FAMS:
            task_submit(task=world["tasks"][key])
    assert FamAgreementRun.objects.filter(campaign=campaign).count() == 1
    assert not FamAgreementRun.objects.exclude(campaign=campaign).exists()


def test_the_run_is_queued_on_commit(world, django_capture_on_commit_callbacks):
    annotate(world, submit=False)
    task = world["tasks"][("d1", "ann-a")]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        task_submit(task=task)
    run = run_latest(world["campaign"])
    # The job kernel sends the run only once the submission commits (job_send_on_commit).
    queued = [c for c in callbacks if getattr(c, "args", None) == (FAM_AGREEMENT, run.pk)]
    assert len(queued) == 1
    assert queued[0].func is kernel.job_send and FAM_AGREEMENT.name == "fam_agreement"


@pytest.mark.django_db(transaction=True)
def test_a_submission_runs_the_agreement_on_a_real_worker(celery_worker_process):
    world = build_world()
    annotate(world)
    campaign = world["campaign"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = run_latest(campaign)
        if run.status in ("succeeded", "failed"):
            break
        time.sleep(0.3)
    assert run.status == "succeeded", run.error
    body = campaign_agreement_get(campaign=campaign)
    assert body["stale"] is False
    assert body["result"]["measures"]["jaccard_union"]["overall"]["value"] == pytest.approx(13 / 18)


def _saves_at(task, seconds):
    """Give the task's revisions the times ``t0 + seconds[i]`` (its annotator saved them)."""
    fam = task_fam(task=task)
    revisions = list(FamRevision.objects.filter(fam=fam).order_by("version"))
    t0 = timezone.now() - datetime.timedelta(hours=1)
    extra = len(seconds) - len(revisions)
    for i in range(extra):
        save(task, fam.facets[:-1] + [{**fam.facets[-1], "note": f"pass {i}"}])
        fam = task_fam(task=task)
    revisions = list(FamRevision.objects.filter(fam=fam).order_by("version"))
    for revision, offset in zip(revisions, seconds, strict=True):
        FamRevision.objects.filter(pk=revision.pk).update(
            created_at=t0 + datetime.timedelta(seconds=offset)
        )


def test_the_split_with_and_without_suggestions_from_hand_made_events(world):
    annotate(world, submit=False)
    tasks = world["tasks"]
    a1, b1 = tasks[("d1", "ann-a")], tasks[("d1", "ann-b")]
    events = [
        (a1, 0, 0, "shown"),
        (a1, 0, 0, "accepted"),
        (a1, 1, 3, "shown"),
        (a1, 1, 3, "ignored"),
        (b1, 0, 1, "shown"),
        (b1, 0, 1, "accepted"),
        (b1, 1, 5, "shown"),
        (b1, 1, 5, "accepted"),
    ]
    for event in events:
        _event(*event)
    # Time per task: d1 A 0, 60, 100 s -> 100 s; d1 B 0, 30 -> 30 s; d2 A 0, 20 -> 20 s;
    # d2 B 0, 700 -> 600 s (a gap over 10 minutes counts as 10 minutes).
    _saves_at(a1, [0, 60, 100])
    _saves_at(b1, [0, 30])
    _saves_at(tasks[("d2", "ann-a")], [0, 20])
    _saves_at(tasks[("d2", "ann-b")], [0, 700])
    for key in FAMS:
        task_submit(task=Task.objects.get(pk=tasks[key].pk))
    # Gold of d1: facet 0 {0}, facet 1 {3}.
    d1 = Document.objects.get(dataset=world["dataset"], external_id="d1")
    gold_fam_save(
        campaign=world["campaign"],
        document=d1,
        facets=[facet([[0]]), facet([[3]])],
        base_version=0,
        user=world["admin"],
    )
    body = compute(world["campaign"])
    split = body["result"]["suggestions"]
    # d1: both tasks saw suggestions; d2: neither did.
    shown, not_shown = split["shown"], split["not_shown"]
    assert "mixed" not in split
    assert (shown["documents"], shown["tasks"]) == (1, 2)
    assert shown["jaccard_union"]["value"] == pytest.approx(3 / 4)
    assert not_shown["jaccard_union"]["value"] == pytest.approx(2 / 3)
    assert shown["jaccard_union"]["n"] == 2 and not_shown["jaccard_union"]["n"] == 1
    assert (shown["seconds_per_task_median"], shown["seconds_per_task_mean"]) == (65, 65)
    assert (not_shown["seconds_per_task_median"], not_shown["seconds_per_task_mean"]) == (
        310,
        310,
    )
    # Distinct (task, facet, sentence): 4 shown, 3 accepted (A 0/0; B 0/1 and 1/5).
    assert (split["suggestions_shown"], split["suggestions_accepted"]) == (4, 3)
    assert split["accept_rate"]["value"] == pytest.approx(3 / 4)
    # Kept in the annotator's own FAM: A's 0 in {0,1}, B's 1 in {0,1}; B's 5 not in {3,4}.
    assert split["accepted_kept"] == {"value": pytest.approx(2 / 3), "n": 3, "reason": None}
    # In gold: A's sentence 0 in gold facet 0 {0}; B's 1 not; B's 5 not in {3}.
    assert split["accepted_in_gold"] == {"value": pytest.approx(1 / 3), "n": 3, "reason": None}
    # A new suggestion event changes the inputs: the figures are stale.
    SuggestionEvent.objects.create(
        task=a1, facet=1, sentence=2, scorer="tfidf", scorer_version="1", action="shown"
    )
    assert campaign_agreement_get(campaign=world["campaign"])["stale"] is True


def test_events_after_a_run_that_cannot_change_a_figure_leave_it_fresh(world):
    """The split by suggestions reads, per compared task, which (facet, sentence) pairs it
    saw (any action) and which it accepted: only a new such pair makes the figures stale."""
    annotate(world)
    tasks = world["tasks"]
    a1, b1, c3 = tasks[("d1", "ann-a")], tasks[("d1", "ann-b")], tasks[("d3", "ann-c")]
    _event(a1, 0, 0, "shown")
    _event(b1, 1, 4, "shown")
    _event(b1, 1, 4, "accepted")
    campaign = world["campaign"]
    fam_agreement_request(campaign=campaign, user=world["admin"])
    body = compute(campaign)
    assert body["stale"] is False
    assert body["result"]["suggestions"]["suggestions_shown"] == 2
    # What the workspace posts around a submission: the shown suggestions never accepted as
    # ignored, the same suggestions shown again (another scorer's, or a redraw), an accepted
    # one accepted again; and events of a task on a document nobody else annotated (d3).
    _event(a1, 0, 0, "ignored")
    _event(a1, 0, 0, "shown")
    SuggestionEvent.objects.create(
        task=a1, facet=0, sentence=0, scorer="rouge", scorer_version="2", action="shown"
    )
    _event(b1, 1, 4, "accepted")
    _event(c3, 0, 2, "shown")
    _event(c3, 0, 2, "accepted")
    after = campaign_agreement_get(campaign=campaign)
    assert after["stale"] is False
    assert after["current_digest"] == body["inputs_digest"]
    # A pair seen for the first time changes the split: stale.
    _event(b1, 0, 3, "ignored")
    assert campaign_agreement_get(campaign=campaign)["stale"] is True
    fam_agreement_request(campaign=campaign, user=world["admin"])
    assert compute(campaign)["stale"] is False
    # A seen pair accepted now changes the accept rate: stale.
    _event(a1, 0, 0, "accepted")
    assert campaign_agreement_get(campaign=campaign)["stale"] is True


def test_an_empty_suggestion_group_says_why_it_is_empty(world):
    """Issue 27: with suggestions seen on every compared document, the "not shown" group has no
    document, and its figures said "no facet has support from either annotator"; they say
    the group has no document, and the group says why."""
    annotate(world, submit=False)
    for key in [("d1", "ann-a"), ("d1", "ann-b"), ("d2", "ann-a"), ("d2", "ann-b")]:
        SuggestionEvent.objects.create(
            task=world["tasks"][key],
            facet=0,
            sentence=0,
            scorer="tfidf",
            scorer_version="1",
            action="shown",
        )
    for key in FAMS:
        task_submit(task=Task.objects.get(pk=world["tasks"][key].pk))
    split = compute(world["campaign"])["result"]["suggestions"]
    assert (split["shown"]["documents"], split["not_shown"]["documents"]) == (2, 0)
    assert "reason" not in split["shown"]
    empty = split["not_shown"]
    why = "no compared document without suggestions: on each, some annotator saw them"
    assert empty["reason"] == why
    for measure in ("jaccard_union", "jaccard_groups", "f1_union", "f1_groups"):
        assert empty[measure]["value"] is None
        assert empty[measure]["reason"] == "no document in this subset"


def test_adjudicators_read_the_agreement_but_do_not_start_runs(world, client_for, users):
    annotate(world)
    campaign = world["campaign"]
    reader = client_for("annotator")
    assert reader.get(URL.format(campaign.pk)).status_code == 403
    campaign_adjudicators_set(campaign=campaign, usernames=[users["annotator"].username])
    assert reader.get(URL.format(campaign.pk)).status_code == 200
    assert reader.post(URL.format(campaign.pk)).status_code == 403
    assert client_for(None).get(URL.format(campaign.pk)).status_code == 401


def test_the_fam_service_refuses_a_polytope_campaign(world):
    from annotation.campaigns.models import Campaign
    from config.exceptions import ApplicationError

    spans = Campaign(dataset=world["dataset"], kind="polytope", slug="fagr-spans", name="Spans")
    with pytest.raises(ApplicationError, match="needs a FAM campaign"):
        fam_agreement_request(campaign=spans, user=None)


def test_the_dataset_summary_gives_each_campaigns_latest_figures(world):
    annotate(world)
    campaign = world["campaign"]
    assert dataset_agreement_summary(dataset=world["dataset"])["campaigns"][0]["agreement"] is None
    compute(campaign)
    summary = dataset_agreement_summary(dataset=world["dataset"])
    (entry,) = summary["campaigns"]
    assert (entry["slug"], entry["kind"]) == ("fagr-c", "fam")
    agreement = entry["agreement"]
    assert agreement["stale"] is False and agreement["documents"] == 2
    assert agreement["overall"]["jaccard_union"]["value"] == pytest.approx(13 / 18)
    assert agreement["overall"]["jaccard_union"]["ci_low"] is not None
    assert summary["dataset"] == "fagr" and summary["span_runs"] == []
    assert agreement["inputs_digest"] == fam_agreement_digest(campaign=campaign)


def test_a_polytope_campaign_shows_its_latest_span_run_in_the_same_envelope(db, client_for):
    from tests.span_agreement_helpers import build, polytope_campaign

    campaign = polytope_campaign(build())
    admin = client_for("admin")
    empty = admin.get(URL.format(campaign.pk)).json()
    assert (empty["kind"], empty["status"], empty["result"], empty["stale"]) == (
        "spans",
        "none",
        None,
        False,
    )
    response = admin.post(URL.format(campaign.pk))
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["kind"] == "spans" and body["status"] == "queued"
    assert span_run_compute(body["run"]["id"]) == "succeeded"
    done = admin.get(URL.format(campaign.pk)).json()
    assert (done["status"], done["stale"], done["error"]) == ("succeeded", False, "")
    assert done["inputs_digest"] == done["current_digest"]
    # The span helpers' hand-worked campaign: partial span F1 3/4 over alice and bob.
    assert done["result"]["overall"]["span_f1_partial"]["value"] == pytest.approx(3 / 4)
    # Nothing changed: asking again answers 200 with the same run.
    again = admin.post(URL.format(campaign.pk))
    assert again.status_code == 200 and again.json()["run"]["id"] == body["run"]["id"]


def test_a_system_blind_campaigns_systems_are_hidden_from_adjudicators(db, client_for, users):
    from annotation.agreement.services import span_agreement_run_create
    from tests.span_agreement_helpers import build, polytope_campaign

    campaign = polytope_campaign(build())
    assert campaign.system_blind  # the default
    run = span_agreement_run_create(campaign=campaign.pk)
    assert span_run_compute(run.pk) == "succeeded"
    campaign_adjudicators_set(campaign=campaign, usernames=[users["annotator"].username])
    admin = client_for("admin").get(URL.format(campaign.pk)).json()
    assert admin["systems_hidden"] is False
    assert set(admin["result"]["per_system"]) == {"agree-s1", "agree-s2"}
    assert admin["result"]["per_item"][0]["system"] == "agree-s1"
    body = client_for("annotator").get(URL.format(campaign.pk)).json()
    assert body["systems_hidden"] is True
    result = body["result"]
    assert "per_system" not in result and "items_per_system" not in result["counts"]
    # o1, o2 (document agree-d1) and o3 (agree-d2): document ids kept, systems and outputs not.
    assert [row["document"] for row in result["per_item"]] == ["agree-d1", "agree-d1", "agree-d2"]
    for row in result["per_item"] + result["lowest"]:
        assert "system" not in row and "output" not in row and row["document_id"]
    assert result["overall"] == admin["result"]["overall"]
    # A campaign that is not system-blind shows its systems to its adjudicators.
    campaign.system_blind = False
    campaign.save(update_fields=["system_blind"])
    shown = client_for("annotator").get(URL.format(campaign.pk)).json()
    assert shown["systems_hidden"] is False and "per_system" in shown["result"]


def test_a_queued_run_whose_message_was_lost_is_given_up_and_queued_again(world):
    from annotation.agreement.runs import QUEUED_REUSE

    annotate(world)
    campaign = world["campaign"]
    lost = run_latest(campaign)
    assert lost.status == "queued"
    # Younger than QUEUED_REUSE: reused (it reads the campaign when it starts).
    assert fam_agreement_request(campaign=campaign, user=world["admin"]) == (lost, True)
    # Its task never reached a worker: once older than QUEUED_REUSE it is given up.
    old = timezone.now() - QUEUED_REUSE - datetime.timedelta(minutes=1)
    FamAgreementRun.objects.filter(pk=lost.pk).update(created_at=old)
    run, queued = fam_agreement_request(campaign=campaign, user=world["admin"])
    assert queued and run.pk != lost.pk and run.status == "queued"
    lost.refresh_from_db()
    never = "never started: the worker did not receive it"
    assert (lost.status, lost.error, lost.result) == ("failed", never, None)
    assert lost.finished_at is not None
    # Should its task arrive after all, it leaves the finished run alone.
    assert fam_run_compute(lost.pk) == "failed"
    assert fam_run_compute(run.pk) == "succeeded"
    assert campaign_agreement_get(campaign=campaign)["result"]["measures"]
