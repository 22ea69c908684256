"""The PolyTope task API: task bodies, versioned span saves (409, retries, refusals), submit and
reopen, and who may read what (other annotators, researchers, blind and system-blind)."""

from __future__ import annotations

import json

import pytest

from annotation.campaigns.models import Task
from annotation.campaigns.services import campaign_create, polytope_campaign_create
from annotation.spans.models import SpanAnnotation, SpanAnnotationRevision
from scoring.metrics.spans import scheme_get
from tests.test_polytope_campaigns import SUMMARY_002, annotators, item, login, put, span

pytestmark = pytest.mark.django_db
__all__ = ["annotators"]  # the fixture, imported for these tests

SECRET = "only-the-annotator-reads-this"


def make(dataset, *, slug="pt", blind=True, system_blind=True):
    return polytope_campaign_create(
        dataset=dataset,
        slug=slug,
        name=slug.upper(),
        systems=["demo-abs", "lead-3"],
        documents=["demo-002", "demo-003"],
        annotators_per_document=2,
        blind=blind,
        system_blind=system_blind,
    )


@pytest.fixture
def campaign(dataset, annotators):
    return make(dataset)


def source_of(task):
    return " ".join(task.document.sentences)


def three_errors(task):
    """A critical, a major (an Omission in the source) and a minor error in demo-abs/demo-002."""
    return [
        span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time", reason=SECRET),
        span(source_of(task), "Maren Tollefsen", "Omission", "Place & Name", side="source"),
        span(SUMMARY_002, "silver-backed", "Word Form", "Attribute"),
    ]


# --- the task body --------------------------------------------------------------------------


def test_a_polytope_task_body_follows_the_contract(campaign, client):
    task = item(campaign)
    tasks = [item(campaign, d, s) for d in ("demo-002", "demo-003") for s in ("demo-abs", "lead-3")]
    body = login(client).get(f"/api/tasks/{task.pk}/").json()
    assert set(body) == {
        "id",
        "status",
        "annotator",
        "kind",
        "campaign",
        "document",
        "output",
        "item",
        "scheme",
        "weights",
        "spans",
        "score",
        "others",
        "next_task",
        "editable",
        "presence",
    }
    assert (body["kind"], body["status"], body["annotator"]) == ("polytope", "todo", "annotator")
    assert body["campaign"] == {
        "id": campaign.pk,
        "name": "PT",
        "slug": "pt",
        "status": "open",
        "kind": "polytope",
        "blind": True,
        "system_blind": True,
        "instructions": "",
    }
    assert body["document"]["external_id"] == "demo-002"
    assert body["document"]["sentences"] == task.document.sentences
    assert body["document"]["text_missing"] is False
    # System-blind: neither the system nor the output's id (ids are numbered system by system).
    assert body["output"] == {"id": None, "sentences": task.output.sentences, "system": None}
    assert " ".join(body["output"]["sentences"]) == SUMMARY_002
    queue = [t.pk for t in Task.objects.filter(campaign=campaign, annotator=task.annotator)]
    assert sorted(queue) == sorted(t.pk for t in tasks)
    assert body["item"] == {
        "position": queue.index(task.pk) + 1,
        "of": 4,
        "document_position": 1,
        "documents": 2,
    }
    assert body["scheme"] == scheme_get("polytope").describe()
    assert body["weights"] == {"Minor": 0.5, "Major": 2.5, "Critical": 5.0}
    assert body["spans"] == {"errors": [], "no_errors": False, "version": 1, "updated_at": None}
    assert body["score"] is None and body["others"] == []
    assert body["editable"] is True and body["presence"] is True
    following = queue[queue.index(task.pk) + 1] if queue.index(task.pk) < 3 else queue[0]
    assert body["next_task"] == following
    # The reading of a task writes nothing: the annotator's row comes with the first save.
    assert not SpanAnnotation.objects.exists()


def test_a_fam_task_body_says_its_kind_and_is_otherwise_unchanged(dataset, client):
    from annotation.campaigns.services import tasks_assign_manual

    fam = campaign_create(dataset=dataset, slug="fam", name="FAM", scorers=[])
    (task,) = tasks_assign_manual(campaign=fam, assignments=[("demo-001", "annotator")])
    body = login(client).get(f"/api/tasks/{task.pk}/").json()
    assert body["kind"] == "fam" and body["fam"]["version"] == 1 and "facets_text" in body
    mine = client.get("/api/tasks/").json()["results"][0]
    assert (mine["kind"], mine["output"]) == ("fam", None)


# --- saving ---------------------------------------------------------------------------------


def test_save_derives_severities_scores_the_segment_and_keeps_history(campaign, client):
    task = item(campaign)
    api = login(client)
    saved = put(api, task, {"base_version": 1, "no_errors": False, "errors": three_errors(task)})
    assert saved.status_code == 200, saved.content
    state = saved.json()
    assert state["version"] == 2 and state["no_errors"] is False and state["updated_at"]
    assert [e["severity"] for e in state["errors"]] == ["Critical", "Major", "Minor"]
    assert [e["words"] for e in state["errors"]] == ["half", "Maren Tollefsen", "silver-backed"]
    assert state["errors"][1]["side"] == "source"
    # 44 words (19 + 16 + 9, punctuation-only tokens would not count); penalty 5 + 2.5 + 0.5.
    assert state["score"] == {
        "words": 44,
        "penalty": 8.0,
        "score": pytest.approx(100 * (44 - 8) / 44),
        "critical": 1,
        "major": 1,
        "minor": 1,
    }
    assert Task.objects.get(pk=task.pk).status == "in_progress"
    body = api.get(f"/api/tasks/{task.pk}/").json()
    assert body["spans"]["errors"] == state["errors"] and body["spans"]["version"] == 2
    assert body["score"] == state["score"]
    # A severity sent by the client is ignored: the matrix decides.
    claimed = [{**e, "severity": "Minor"} for e in three_errors(task)]
    again = put(api, task, {"base_version": 2, "errors": claimed})
    assert again.status_code == 200 and again.json()["version"] == 2  # nothing changed
    history = api.get(f"/api/tasks/{task.pk}/history/").json()
    assert [h["version"] for h in history] == [2]
    assert history[0]["author"] == "annotator" and len(history[0]["errors"]) == 3
    assert (
        history[0]["changes"][0]
        == "added Inaccuracy Intrinsic / Number & Time at summary [155, 159) 'half'"
    )
    row = SpanAnnotation.objects.get()
    assert row.annotation_set == campaign.annotation_set and row.annotator == task.annotator


def test_a_stale_base_gets_409_with_the_servers_state_and_a_lost_response_retry_does_not(
    campaign, client
):
    task = item(campaign)
    api = login(client)
    first = {"base_version": 1, "errors": three_errors(task)[:1]}
    assert put(api, task, first).json()["version"] == 2
    # The same body again (its response was lost): the server already holds it, 200.
    retry = put(api, task, first)
    assert retry.status_code == 200 and retry.json()["version"] == 2
    # Another tab still on version 1 with other errors must not overwrite version 2.
    stale = put(api, task, {"base_version": 1, "errors": three_errors(task)[2:]})
    assert stale.status_code == 409
    body = stale.json()
    assert "saved elsewhere (version 2)" in body["message"]
    server = body["extra"]["server"]
    assert set(server) == {"errors", "no_errors", "version", "updated_at", "updated_by"}
    assert server["version"] == 2 and server["updated_by"] == "annotator"
    assert [e["words"] for e in server["errors"]] == ["half"] and server["no_errors"] is False
    mine = put(api, task, {"base_version": 2, "errors": three_errors(task)[2:]})
    assert mine.status_code == 200 and mine.json()["version"] == 3
    assert SpanAnnotationRevision.objects.count() == 2


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (
            {"type": "Positive-Negative Aspect", "label": "Subject"},
            "error 2: Positive-Negative Aspect with the label Subject is N/A in the official "
            "severity matrix: the guidelines do not allow that combination, so it has no severity.",
        ),
        (
            {"type": "Omission", "label": "Subject"},
            "error 2: a Omission error is marked in the source or none, not in the summary "
            "(the missing point lives in the source)",
        ),
        (
            {"type": "Addition", "label": "Subject", "side": "source"},
            "error 2: a Addition error is marked in the summary or none, not in the source",
        ),
        (
            {"start": 150, "end": 400},
            "error 2: span [150, 400) is outside the summary (valid: 0 <= start < end <= 249)",
        ),
        ({"start": 5, "end": 5}, "error 2: span [5, 5) is outside the summary"),
        ({"start": -1}, "error 2: span [-1, 4) is outside the summary"),
        ({"start": "0"}, "error 2: start must be a whole number, got '0'"),
        ({"words": "halves"}, "error 2: words 'halves' are not the spanned summary text 'Rese'"),
        ({"type": "Typo"}, "error 2: subtype 'Typo' is not one of Addition, Omission"),
        ({"label": None}, "error 2: Addition needs a label (one of Subject, Object,"),
        ({"label": "Verb"}, "error 2: label 'Verb' is not one of Subject, Object"),
    ],
)
def test_refused_errors_name_the_error_and_why_and_change_nothing(campaign, client, error, message):
    task = item(campaign)
    api = login(client)
    good = span(SUMMARY_002, "half", "Inaccuracy Intrinsic", "Number & Time")
    bad = {"side": "summary", "start": 0, "end": 4, "words": "", "type": "Addition"}
    bad = {**bad, "label": "Subject", **error}
    response = put(api, task, {"base_version": 1, "errors": [good, bad]})
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["message"].startswith(message)
    assert body["extra"]["fields"]["errors"] == [body["message"]]
    assert not SpanAnnotation.objects.exists()  # the row of a refused first save is not kept
    assert Task.objects.get(pk=task.pk).status == "todo"


def test_badly_shaped_bodies_are_refused(campaign, client):
    task = item(campaign)
    api = login(client)
    for body in (
        {"base_version": 1, "errors": {"type": "Addition"}},
        {"base_version": 1, "errors": ["not an object"]},
        {"base_version": 0, "errors": []},
        {"errors": []},
    ):
        assert put(api, task, body).status_code == 400, body
    clean_but_listed = {"base_version": 1, "no_errors": True, "errors": three_errors(task)[:1]}
    refused = put(api, task, clean_but_listed)
    assert refused.status_code == 400
    assert refused.json()["message"] == "An output marked as having no errors cannot list errors."


def test_an_error_known_only_by_its_words_has_no_offsets(campaign, client):
    task = item(campaign)
    api = login(client)
    words_only = {
        "side": "none",
        "words": "led by an ecologist",
        "type": "Omission",
        "label": "Subject",
    }
    saved = put(api, task, {"base_version": 1, "errors": [words_only]})
    assert saved.status_code == 200
    (error,) = saved.json()["errors"]
    assert (error["start"], error["end"], error["severity"]) == (None, None, "Critical")
    with_offsets = {**words_only, "start": 0, "end": 3}
    refused = put(api, task, {"base_version": 2, "errors": [with_offsets]})
    assert refused.json()["message"] == "error 1: an error marked nowhere has no start or end"


def test_a_document_without_text_has_no_source_to_mark(campaign, client):
    task = item(campaign)
    document = task.document
    document.meta = {**document.meta, "text_missing": True}
    document.save(update_fields=["meta"])
    api = login(client)
    body = api.get(f"/api/tasks/{task.pk}/").json()
    assert body["document"]["sentences"] == [] and body["document"]["text_missing"] is True
    omission = span(
        " ".join(document.sentences), "Maren Tollefsen", "Omission", "Place & Name", side="source"
    )
    refused = put(api, task, {"base_version": 1, "errors": [omission]})
    assert refused.status_code == 400
    assert "the source text is not available to mark a span in" in refused.json()["message"]


# --- submit, reopen, closed campaigns, kinds ------------------------------------------------


def test_submit_needs_an_error_or_the_no_errors_mark_then_reopen(campaign, client):
    task = item(campaign)
    api = login(client)
    empty = api.post(f"/api/tasks/{task.pk}/submit/")
    assert empty.status_code == 400
    assert (
        "Mark at least one error in this summary, or mark it as having no errors"
        in (empty.json()["message"])
    )
    put(api, task, {"base_version": 1, "errors": []})  # a save of nothing is still nothing
    assert api.post(f"/api/tasks/{task.pk}/submit/").status_code == 400
    clean = put(api, task, {"base_version": 1, "no_errors": True, "errors": []})
    assert clean.status_code == 200 and clean.json()["version"] == 2
    assert clean.json()["score"] == {
        "words": 44,
        "penalty": 0.0,
        "score": 100.0,
        "critical": 0,
        "major": 0,
        "minor": 0,
    }
    submitted = api.post(f"/api/tasks/{task.pk}/submit/")
    assert submitted.status_code == 200 and submitted.json()["status"] == "submitted"
    assert submitted.json()["output"] == {"id": None, "system": None}
    late = put(api, task, {"base_version": 2, "errors": three_errors(task)})
    assert late.status_code == 400
    assert late.json()["message"] == "The task is submitted; reopen it to change the errors."
    assert api.post(f"/api/tasks/{task.pk}/reopen/").json()["status"] == "in_progress"
    fixed = put(api, task, {"base_version": 2, "no_errors": False, "errors": three_errors(task)})
    assert fixed.status_code == 200 and fixed.json()["version"] == 3
    history = api.get(f"/api/tasks/{task.pk}/history/").json()
    assert history[0]["changes"][-1] == "no-errors mark removed"
    assert history[1]["changes"] == ["marked as having no errors"]
    assert api.post(f"/api/tasks/{task.pk}/submit/").json()["status"] == "submitted"
    campaign.status = "closed"
    campaign.save(update_fields=["status"])
    assert api.post(f"/api/tasks/{task.pk}/reopen/").status_code == 400
    closed = put(api, task, {"base_version": 3, "errors": []})
    assert closed.status_code == 400 and "no longer accepts changes" in closed.json()["message"]


def test_fam_and_span_saves_refuse_tasks_of_the_other_kind(campaign, dataset, client):
    from annotation.campaigns.services import tasks_assign_manual

    task = item(campaign)
    fam = campaign_create(dataset=dataset, slug="fam", name="FAM", scorers=[])
    (fam_task,) = tasks_assign_manual(campaign=fam, assignments=[("demo-001", "annotator")])
    api = login(client)
    refused = api.put(
        f"/api/tasks/{task.pk}/fam/",
        json.dumps({"base_version": 1, "facets": []}),
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert refused.json()["message"] == (
        "This task is in a PolyTope error spans campaign: it has no FAM to save."
    )
    other = put(api, fam_task, {"base_version": 1, "errors": []})
    assert other.status_code == 400
    assert other.json()["message"] == (
        "This task is in a Facet-aware mappings campaign: it has no errors to save."
    )
    suggestions = api.get(f"/api/tasks/{task.pk}/suggestions/").json()
    assert suggestions == {"status": "ready", "scorers": {}}
    event = {"facet": 0, "sentence": 0, "scorer": "tfidf", "scorer_version": "1", "action": "shown"}
    logged = api.post(
        f"/api/tasks/{task.pk}/suggestion-events/",
        json.dumps({"events": [event]}),
        content_type="application/json",
    )
    assert logged.status_code == 400
    assert logged.json()["message"] == (
        "A PolyTope campaign shows no suggestions: there is nothing to log."
    )


def test_the_admin_shows_a_polytope_campaign_and_its_items(campaign, client):
    task = item(campaign)
    login(client, "admin", "loupe-admin")
    listing = client.get("/admin/campaigns/campaign/?kind=polytope")
    assert listing.status_code == 200 and b"PolyTope error spans" in listing.content
    page = client.get(f"/admin/campaigns/campaign/{campaign.pk}/change/")
    assert page.status_code == 200
    assert b"demo-abs, lead-3" in page.content
    assert client.get(f"/admin/campaigns/task/{task.pk}/change/").status_code == 200


# --- who reads what -------------------------------------------------------------------------


def _saved_task(campaign, client, annotator="annotator", password="loupe-annotator"):
    task = item(campaign, annotator=annotator)
    api = login(client, annotator, password)
    assert put(api, task, {"base_version": 1, "errors": three_errors(task)}).status_code == 200
    client.post("/logout/")
    return task


def test_another_annotators_task_is_not_found_and_leaks_no_span(campaign, client):
    task = _saved_task(campaign, client)
    other = login(client, "annotator2", "pw-2")
    for response in (
        other.get(f"/api/tasks/{task.pk}/"),
        other.get(f"/api/tasks/{task.pk}/history/"),
        put(other, task, {"base_version": 2, "errors": []}),
        other.post(f"/api/tasks/{task.pk}/submit/"),
        other.post(f"/api/tasks/{task.pk}/reopen/"),
        other.post(f"/api/tasks/{task.pk}/presence/", {"client_id": "tab-of-another"}),
    ):
        assert response.status_code == 404
        assert SECRET.encode() not in response.content and b"half" not in response.content
    assert other.get("/api/tasks/").json()["total"] == 0
    assert SpanAnnotation.objects.get().version == 2  # nothing changed


def test_researchers_never_read_spans_under_annotation_and_admins_only_read(campaign, client):
    task = _saved_task(campaign, client)
    researcher = login(client, "researcher", "loupe-researcher")
    for response in (
        researcher.get(f"/api/tasks/{task.pk}/"),
        researcher.get(f"/api/tasks/{task.pk}/history/"),
        researcher.get(f"/api/tasks/{task.pk}/suggestions/"),
        put(researcher, task, {"base_version": 2, "errors": []}),
    ):
        assert response.status_code == 403
        assert SECRET.encode() not in response.content
    client.post("/logout/")
    admin = login(client, "admin", "loupe-admin")
    body = admin.get(f"/api/tasks/{task.pk}/").json()
    assert body["editable"] is False and body["spans"]["errors"][0]["reason"] == SECRET
    assert body["output"]["system"] == {"slug": "demo-abs", "name": "DemoAbs"}  # admins see it
    assert body["output"]["id"] == task.output_id
    assert put(admin, task, {"base_version": 2, "errors": []}).status_code == 403
    assert admin.post(f"/api/tasks/{task.pk}/submit/").status_code == 403


def test_blind_campaigns_show_nobody_elses_errors_and_open_ones_do(dataset, annotators, client):
    for blind in (True, False):
        campaign = make(dataset, slug=f"blind-{blind}".lower(), blind=blind)
        _saved_task(campaign, client, "annotator2", "pw-2")
        mine = item(campaign)
        api = login(client)
        response = api.get(f"/api/tasks/{mine.pk}/")
        others = response.json()["others"]
        if blind:
            assert others == [] and SECRET.encode() not in response.content
        else:
            assert [o["annotator"] for o in others] == ["annotator2"]
            assert others[0]["errors"][0]["reason"] == SECRET
            assert others[0]["no_errors"] is False
        client.post("/logout/")


def test_system_blind_hides_the_system_from_the_annotator_everywhere(dataset, annotators, client):
    hidden = [b"demo-abs", b"DemoAbs", b"lead-3", b"Lead-3"]
    for system_blind in (True, False):
        campaign = make(dataset, slug=f"sb-{system_blind}".lower(), system_blind=system_blind)
        task = _saved_task(campaign, client)
        lead = item(campaign, system="lead-3")
        api = login(client)
        responses = [
            api.get(f"/api/tasks/{task.pk}/"),
            api.get(f"/api/tasks/{lead.pk}/"),
            api.get("/api/tasks/"),
            api.get(f"/api/tasks/{task.pk}/history/"),
            put(api, task, {"base_version": 2, "errors": three_errors(task)[:2]}),
            api.post(f"/api/tasks/{lead.pk}/presence/", {"client_id": "annotator-tab"}),
        ]
        put(api, lead, {"base_version": 1, "no_errors": True, "errors": []})
        responses += [
            api.post(f"/api/tasks/{lead.pk}/submit/"),
            api.post(f"/api/tasks/{lead.pk}/reopen/"),
        ]
        assert all(r.status_code == 200 for r in responses), [r.content for r in responses]
        rows = [r for r in responses[2].json()["results"] if r["campaign"]["id"] == campaign.pk]
        shown = {r["output"]["system"]["slug"] if r["output"]["system"] else None for r in rows}
        ids = {r["output"]["id"] for r in rows}
        if system_blind:
            for response in responses:
                assert not any(name in response.content for name in hidden), response.content
            assert shown == {None} and ids == {None}
            assert responses[0].json()["output"]["id"] is None
        else:
            output = responses[0].json()["output"]
            assert output["system"] == {"slug": "demo-abs", "name": "DemoAbs"}
            assert output["id"] == task.output_id
            assert shown == {"demo-abs", "lead-3"} and ids == {task.output_id, lead.output_id}
        client.post("/logout/")
