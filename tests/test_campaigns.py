"""FAM campaigns: assignment, My tasks, versioned saves with 409, history, suggestions."""

import pytest

from annotation.accounts.services import user_create
from annotation.campaigns.assignment import AssignmentError, round_robin
from annotation.campaigns.models import SuggestionEvent, SuggestionSet, Task
from annotation.campaigns.services import (
    SUGGESTIONS,
    campaign_create,
    suggestions_compute_documents,
    task_submit,
    tasks_assign_manual,
    tasks_assign_round_robin,
)
from annotation.corpus.models import Dataset
from annotation.fams.models import FamRevision
from annotation.jobs.kernel import job_chunk_run, job_complete, job_plan

pytestmark = pytest.mark.django_db


def test_round_robin_gives_each_document_k_distinct_annotators_with_balanced_loads():
    pairs = round_robin(["d0", "d1", "d2", "d3", "d4"], ["a", "b", "c"], 2)
    # Document i goes to annotators (2i + j) mod 3: d0 a,b  d1 c,a  d2 b,c  d3 a,b  d4 c,a
    assert pairs == [
        ("d0", "a"),
        ("d0", "b"),
        ("d1", "c"),
        ("d1", "a"),
        ("d2", "b"),
        ("d2", "c"),
        ("d3", "a"),
        ("d3", "b"),
        ("d4", "c"),
        ("d4", "a"),
    ]
    loads = {a: sum(1 for _, x in pairs if x == a) for a in "abc"}
    assert loads == {"a": 4, "b": 3, "c": 3}
    with pytest.raises(AssignmentError, match="3 annotators per document requested, but only 2"):
        round_robin(["d0"], ["a", "b"], 3)
    with pytest.raises(AssignmentError, match="listed twice"):
        round_robin(["d0"], ["a", "a"], 1)


@pytest.fixture
def campaign(demo):
    dataset = Dataset.objects.get(slug="demo")
    user_create(username="annotator2", password="pw-2", role="Annotator")
    return campaign_create(
        dataset=dataset,
        slug="c1",
        name="C1",
        annotators_per_document=2,
        scorers=["rougeavg-f", "tfidf"],
        top_k=2,
    )


def login(client, username, password):
    assert client.post("/login/", {"username": username, "password": password}).status_code == 302
    return client


def test_round_robin_assignment_and_my_tasks(campaign, client):
    tasks = tasks_assign_round_robin(campaign=campaign, annotators=["annotator", "annotator2"])
    assert len(tasks) == 12  # 6 documents x 2 annotators
    assert tasks_assign_round_robin(campaign=campaign, annotators=["annotator", "annotator2"]) == []
    mine = login(client, "annotator", "loupe-annotator").get("/api/tasks/").json()
    assert (mine["total"], mine["done"]) == (6, 0)
    assert mine["next"] == mine["results"][0]["id"]


def test_only_annotators_can_be_assigned(campaign):
    from config.exceptions import ApplicationError

    with pytest.raises(ApplicationError, match="'researcher' is not an annotator"):
        tasks_assign_round_robin(campaign=campaign, annotators=["researcher"])


def facets_for(task, first_groups):
    n = task.document.references.get(position=0).facet_count
    empty = {"groups": [], "label": "supported", "note": ""}
    return [{"groups": first_groups, "label": "supported", "note": ""}] + [empty] * (n - 1)


def test_versioned_save_conflict_history_and_no_lost_work(campaign, client):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    api = login(client, "annotator", "loupe-annotator")
    url = f"/api/tasks/{task.pk}/fam/"
    first = api.put(
        url, {"base_version": 1, "facets": facets_for(task, [[0]])}, content_type="application/json"
    )
    assert first.status_code == 200 and first.json()["version"] == 2
    # A second tab still on version 1 must not overwrite version 2.
    stale = api.put(
        url, {"base_version": 1, "facets": facets_for(task, [[1]])}, content_type="application/json"
    )
    assert stale.status_code == 409
    server = stale.json()["extra"]["server"]
    assert server["version"] == 2 and server["facets"][0]["groups"] == [[0]]
    assert server["updated_by"] == "annotator"
    # The person chooses theirs: re-save on top of the server version.
    mine = api.put(
        url, {"base_version": 2, "facets": facets_for(task, [[1]])}, content_type="application/json"
    )
    assert mine.status_code == 200 and mine.json()["version"] == 3
    history = api.get(f"/api/tasks/{task.pk}/history/").json()
    assert [h["version"] for h in history] == [3, 2]
    assert history[0]["changes"] == ["facet 0: removed group [0]", "facet 0: added group [1]"]
    assert history[1]["facets"][0]["groups"] == [[0]]  # the overwritten state is kept
    assert FamRevision.objects.filter(fam__annotator__username="annotator").count() == 2
    assert Task.objects.get(pk=task.pk).status == "in_progress"


def test_invalid_fam_names_facet_and_group(campaign, client):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    api = login(client, "annotator", "loupe-annotator")
    response = api.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 1, "facets": facets_for(task, [[0], [99]])},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "facet 0, group 1: sentence index 99 is out of range" in str(response.json())


def test_other_annotators_cannot_see_or_edit_a_task(campaign, client):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    other = login(client, "annotator2", "pw-2")
    assert other.get(f"/api/tasks/{task.pk}/").status_code == 404
    response = other.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 1, "facets": facets_for(task, [[0]])},
        content_type="application/json",
    )
    assert response.status_code == 404


def test_blind_campaign_hides_other_annotators_and_open_one_shows_them(campaign, client, demo):
    mine, theirs = tasks_assign_manual(
        campaign=campaign, assignments=[("demo-001", "annotator"), ("demo-001", "annotator2")]
    )
    login(client, "annotator2", "pw-2").put(
        f"/api/tasks/{theirs.pk}/fam/",
        {"base_version": 1, "facets": facets_for(theirs, [[2]])},
        content_type="application/json",
    )
    client.post("/logout/")
    api = login(client, "annotator", "loupe-annotator")
    assert api.get(f"/api/tasks/{mine.pk}/").json()["others"] == []
    campaign.blind = False
    campaign.save(update_fields=["blind"])
    others = api.get(f"/api/tasks/{mine.pk}/").json()["others"]
    assert others[0]["annotator"] == "annotator2" and others[0]["facets"][0]["groups"] == [[2]]


def complete_facets(task):
    """Facet 0 supported by sentence 0; every other facet labelled no-support."""
    n = task.document.references.get(position=0).facet_count
    rest = [{"groups": [], "label": "no_support", "note": ""}] * (n - 1)
    return [{"groups": [[0]], "label": "supported", "note": ""}, *rest]


def test_submit_needs_every_facet_done_then_reopen_until_closed(campaign, client):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    api = login(client, "annotator", "loupe-annotator")
    unfinished = api.post(f"/api/tasks/{task.pk}/submit/")
    assert unfinished.status_code == 400
    assert unfinished.json()["extra"]["unfinished_facets"] == [0, 1, 2]
    api.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 1, "facets": complete_facets(task)},
        content_type="application/json",
    )
    assert api.post(f"/api/tasks/{task.pk}/submit/").json()["status"] == "submitted"
    assert api.get("/api/tasks/").json()["done"] == 1
    saved = api.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 2, "facets": facets_for(task, [[0]])},
        content_type="application/json",
    )
    assert saved.status_code == 400 and "reopen" in saved.json()["message"]
    assert api.post(f"/api/tasks/{task.pk}/reopen/").json()["status"] == "in_progress"
    task_submit(task=Task.objects.get(pk=task.pk))
    # In adjudication a task whose document is not adjudicated yet can still be reopened,
    # fixed and submitted again (the adjudication app refuses it once the document is done).
    campaign.status = "adjudication"
    campaign.save(update_fields=["status"])
    assert api.post(f"/api/tasks/{task.pk}/reopen/").json()["status"] == "in_progress"
    fixed = api.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 2, "facets": facets_for(task, [[1]])[:1] + complete_facets(task)[1:]},
        content_type="application/json",
    )
    assert fixed.status_code == 200
    assert api.post(f"/api/tasks/{task.pk}/submit/").json()["status"] == "submitted"
    campaign.status = "closed"
    campaign.save(update_fields=["status"])
    refused = api.post(f"/api/tasks/{task.pk}/reopen/")
    assert refused.status_code == 400 and "closed" in refused.json()["message"]
    late = api.put(
        f"/api/tasks/{task.pk}/fam/",
        {"base_version": 3, "facets": facets_for(task, [[1]])},
        content_type="application/json",
    )
    assert late.status_code == 400 and "no longer accepts changes" in late.json()["message"]


def test_a_retried_save_whose_response_was_lost_is_not_a_conflict(campaign, client):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    api = login(client, "annotator", "loupe-annotator")
    body = {"base_version": 1, "facets": facets_for(task, [[0]])}
    url = f"/api/tasks/{task.pk}/fam/"
    assert api.put(url, body, content_type="application/json").json()["version"] == 2
    retry = api.put(url, body, content_type="application/json")  # same base, same content
    assert retry.status_code == 200 and retry.json()["version"] == 2


@pytest.mark.parametrize(
    "method,suffix",
    [
        ("get", ""),
        ("get", "history/"),
        ("get", "suggestions/"),
        ("put", "fam/"),
        ("post", "submit/"),
        ("post", "reopen/"),
        ("post", "suggestion-events/"),
    ],
)
def test_another_annotator_gets_404_on_every_task_endpoint(campaign, client, method, suffix):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    other = login(client, "annotator2", "pw-2")
    response = getattr(other, method)(
        f"/api/tasks/{task.pk}/{suffix}", {}, content_type="application/json"
    )
    assert response.status_code == 404


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_saves_on_one_version_give_one_save_and_one_conflict(demo):
    """Real threads and connections: the row lock (or SQLite's BEGIN IMMEDIATE) serialises."""
    import threading

    from django.db import connection

    from annotation.campaigns.services import task_fam_save
    from config.exceptions import ConflictError

    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="race", name="R", scorers=[]
    )
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    user = task.annotator
    barrier = threading.Barrier(2)
    outcomes = []

    def save(groups):
        try:
            barrier.wait()
            fam = task_fam_save(
                task=task, user=user, facets=facets_for(task, groups), base_version=1
            )
            outcomes.append(("saved", fam.version))
        except ConflictError as error:
            outcomes.append(("conflict", error.extra["server"]["version"]))
        finally:
            connection.close()

    threads = [threading.Thread(target=save, args=(g,)) for g in ([[0]], [[1]])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == [("conflict", 2), ("saved", 2)]


def test_suggestions_are_pending_then_computed_by_the_worker_tasks(campaign, client):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    api = login(client, "annotator", "loupe-annotator")
    assert api.get(f"/api/tasks/{task.pk}/suggestions/").json() == {
        "status": "pending",
        "scorers": {},
    }
    # The job kernel's steps, as the worker tasks take them: plan, the chunk, completion.
    job = campaign.suggestions_job
    (chunk,) = job_plan(kind=SUGGESTIONS, job=job)  # 6 documents: one chunk of 25
    assert len(chunk.document_ids) == 6
    written = job_chunk_run(kind=SUGGESTIONS, job_id=job.pk, chunk_id=chunk.pk)
    assert written == 12  # 6 documents x 2 scorers
    assert job_chunk_run(kind=SUGGESTIONS, job_id=job.pk, chunk_id=chunk.pk) == 0  # done once
    # Computed again (a lost worker's chunk re-sent), its rows are upserted, not added.
    assert suggestions_compute_documents(campaign=campaign, document_ids=chunk.document_ids) == 12
    assert SuggestionSet.objects.filter(campaign=campaign).count() == 12
    assert job_complete(kind=SUGGESTIONS, job=job)
    job.refresh_from_db()
    assert (job.status, job.sets_written, job.chunks_done) == ("succeeded", 12, 1)
    body = api.get(f"/api/tasks/{task.pk}/suggestions/").json()
    assert body["status"] == "ready" and list(body["scorers"]) == ["rougeavg-f", "tfidf"]
    top = body["scorers"]["tfidf"]["facets"][0][0]
    # demo-001's first facet is supported by sentence 0 in the gold FAM (fixtures/demo).
    assert top["sentence"] == 0 and top["rank"] == 1 and top["score"] > 0
    events = [
        {
            "facet": 0,
            "sentence": 0,
            "scorer": "tfidf",
            "scorer_version": body["scorers"]["tfidf"]["version"],
            "action": "accepted",
        }
    ]
    assert (
        api.post(
            f"/api/tasks/{task.pk}/suggestion-events/",
            {"events": events},
            content_type="application/json",
        ).status_code
        == 201
    )
    assert SuggestionEvent.objects.get().action == "accepted"


@pytest.mark.django_db(transaction=True)
def test_campaign_creation_queues_suggestions_that_a_real_worker_computes(celery_worker_process):
    """job_send_on_commit -> broker -> worker process -> the job kernel's chunks -> ready."""
    import time

    from annotation.campaigns.models import Campaign
    from annotation.corpus.demo import demo_load

    demo_load()
    campaign = campaign_create(
        dataset=Dataset.objects.get(slug="demo"), slug="live", name="Live", scorers=["tfidf"]
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        campaign.refresh_from_db()
        if campaign.suggestions_status != "pending":
            break
        time.sleep(0.5)
    assert campaign.suggestions_status == "ready", campaign.suggestions_error
    assert SuggestionSet.objects.filter(campaign=campaign).count() == 6
    assert Campaign.objects.count() == 1
    # The demo also queued a scoring job; let the worker finish it before the tables are flushed.
    from scoring.scores.models import ScoringJob

    while time.monotonic() < deadline + 60 and not ScoringJob.objects.get().finished:
        time.sleep(0.5)
    assert ScoringJob.objects.get().status == "succeeded"
    from scoring.leaderboards.models import LeaderboardSnapshot

    while time.monotonic() < deadline + 90 and LeaderboardSnapshot.objects.count() < 5:
        time.sleep(0.25)  # ... and the leaderboards it stores after the job
    assert LeaderboardSnapshot.objects.count() == 5


def test_session_fam_saves_need_the_csrf_token(campaign):
    from django.contrib.auth import get_user_model
    from django.test import Client

    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username="annotator"))
    assert client.get(f"/tasks/{task.pk}/").status_code == 200  # the page sets csrftoken
    body = {"base_version": 1, "facets": facets_for(task, [[0]])}
    url = f"/api/tasks/{task.pk}/fam/"
    refused = client.put(url, body, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["message"]
    token = client.cookies["csrftoken"].value
    saved = client.put(url, body, content_type="application/json", headers={"X-CSRFToken": token})
    assert saved.status_code == 200 and saved.json()["version"] == 2


def _presence_client(username):
    """A logged-in session (one browser) for the presence tests."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def _beat(client, task, client_id, **extra):
    return client.post(
        f"/api/tasks/{task.pk}/presence/",
        {"client_id": client_id, **extra},
        content_type="application/json",
    )


def test_presence_tells_each_tab_who_else_has_the_task_open(campaign):
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    laptop, desktop = _presence_client("annotator"), _presence_client("annotator")
    admin = _presence_client("admin")

    first = _beat(laptop, task, "tab-laptop-1")
    assert first.status_code == 200
    assert first.json() == {"expires_after": 15, "others": []}  # alone
    [laptop_seen] = _beat(desktop, task, "tab-desktop-1").json()["others"]
    assert 0 <= laptop_seen.pop("seconds_ago") <= 1
    assert laptop_seen == {
        "user": "annotator",
        "is_you": True,  # the same person, in another tab or browser
        "editing": True,
        "last_seen": _last_seen(task, "tab-laptop-1"),
    }
    # The laptop now sees the desktop; an admin looking at the task sees both, as editors.
    seen = _beat(laptop, task, "tab-laptop-1").json()["others"]
    assert [(o["user"], o["is_you"], o["editing"]) for o in seen] == [("annotator", True, True)]
    by_admin = _beat(admin, task, "tab-admin-1").json()["others"]
    assert sorted((o["user"], o["is_you"], o["editing"]) for o in by_admin) == [
        ("annotator", False, True),
        ("annotator", False, True),
    ]
    # ... and the annotator sees the admin, who only looks.
    seen = _beat(laptop, task, "tab-laptop-1").json()["others"]
    assert sorted((o["user"], o["is_you"], o["editing"]) for o in seen) == [
        ("admin", False, False),
        ("annotator", True, True),
    ]
    # A tab that leaves is gone at once for the others.
    assert _beat(desktop, task, "tab-desktop-1", leaving=True).status_code == 200
    seen = _beat(laptop, task, "tab-laptop-1").json()["others"]
    assert [o["user"] for o in seen] == ["admin"]
    # A heartbeat the desktop sent before leaving, arriving after, does not bring it back.
    assert _beat(desktop, task, "tab-desktop-1").status_code == 200
    assert [o["user"] for o in _beat(laptop, task, "tab-laptop-1").json()["others"]] == ["admin"]
    # A tab that leaves before its first heartbeat arrives is not shown either.
    assert _beat(desktop, task, "tab-desktop-2", leaving=True).status_code == 200
    _beat(desktop, task, "tab-desktop-2")
    assert [o["user"] for o in _beat(laptop, task, "tab-laptop-1").json()["others"]] == ["admin"]
    # The task page tells the workspace whether to announce itself.
    assert laptop.get(f"/api/tasks/{task.pk}/").json()["presence"] is True
    assert admin.get(f"/api/tasks/{task.pk}/").json()["presence"] is True
    assert _presence_client("researcher").get(f"/api/tasks/{task.pk}/").json()["presence"] is False


def _last_seen(task, client_id):
    from rest_framework.fields import DateTimeField

    from annotation.campaigns.models import TaskPresence

    presence = TaskPresence.objects.get(task=task, client_id=client_id)
    return DateTimeField().to_representation(presence.last_seen)


def test_presence_entries_expire_after_the_configured_seconds(campaign, settings):
    from datetime import timedelta

    from django.utils import timezone

    from annotation.campaigns.models import TaskPresence

    settings.LOUPE_PRESENCE_SECONDS = 30
    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    here, there = _presence_client("annotator"), _presence_client("annotator")
    _beat(there, task, "tab-there-1")
    assert _beat(here, task, "tab-here-1").json()["expires_after"] == 30
    # The other tab stopped beating (crashed) 29 s ago: still there ...
    TaskPresence.objects.filter(client_id="tab-there-1").update(
        last_seen=timezone.now() - timedelta(seconds=29)
    )
    [other] = _beat(here, task, "tab-here-1").json()["others"]
    assert other["seconds_ago"] == 29
    # ... and 31 s ago: gone, and its row is removed by the next heartbeat.
    TaskPresence.objects.filter(client_id="tab-there-1").update(
        last_seen=timezone.now() - timedelta(seconds=31)
    )
    assert _beat(here, task, "tab-here-1").json()["others"] == []
    assert list(TaskPresence.objects.values_list("client_id", flat=True)) == ["tab-here-1"]
    # A shorter setting applies at once.
    settings.LOUPE_PRESENCE_SECONDS = 5
    _beat(there, task, "tab-there-1")
    TaskPresence.objects.filter(client_id="tab-there-1").update(
        last_seen=timezone.now() - timedelta(seconds=6)
    )
    assert _beat(here, task, "tab-here-1").json() == {"expires_after": 5, "others": []}


def test_presence_is_refused_to_everyone_but_the_annotator_and_admins(campaign):
    from annotation.campaigns.models import TaskPresence

    (task,) = tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    # Researchers read tasks but may not announce themselves on one.
    researcher = _beat(_presence_client("researcher"), task, "tab-researcher")
    assert researcher.status_code == 403
    assert researcher.json()["message"] == "Only the task's annotator or an admin may do this."
    # Another annotator does not even learn that the task exists.
    assert _beat(_presence_client("annotator2"), task, "tab-annotator2").status_code == 404
    from django.test import Client

    assert _beat(Client(), task, "tab-anonymous").status_code == 401
    assert not TaskPresence.objects.exists()
    # A malformed tab id is refused.
    bad = _beat(_presence_client("annotator"), task, "<script>")
    assert bad.status_code == 400 and "client_id" in str(bad.json())
    assert not TaskPresence.objects.exists()
