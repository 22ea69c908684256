"""Blindness holds for everyone who annotates: an annotator of a system-blind campaign who also
adjudicates it learns no system and no output id from any response (every endpoint and page
they can reach is walked), items are named by opaque ids, and admins who do not annotate, or
anyone once the campaign is Done, still see systems and output ids."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.accounts.services import user_create
from annotation.adjudication.services import campaign_adjudicators_set
from annotation.agreement.services import span_agreement_run_create
from annotation.campaigns.models import Campaign, Task
from annotation.campaigns.services import (
    campaign_status_set,
    polytope_campaign_create,
    task_spans_save,
    task_submit,
    tasks_assign_round_robin,
)
from annotation.corpus.models import Dataset, Document
from annotation.spans.models import SpanAnnotation
from annotation.systems.models import OutputVersion, System, SystemOutput
from tests.agreement_helpers import span_run_compute

pytestmark = pytest.mark.django_db

# Distinctive names, and ids far out of the sequences' range, so that finding one in a response
# body cannot be a coincidence with another number.
SYSTEMS = {
    "sys-alpha-7f3": ("SYSTEM-ALPHA-7f3", 987650011, 987640011),
    "sys-beta-9k2": ("SYSTEM-BETA-9k2", 987650012, 987640012),
}
DOCUMENTS = ("demo-001", "demo-002")
FIRST_OUTPUT = 987654301
ME = "t-annotator"  # the annotator-adjudicator (role Annotator)


@pytest.fixture
def blind(demo, users):
    """A system-blind PolyTope campaign of two systems on two documents, annotated by t-annotator
    and annotator2; t-annotator adjudicates it. demo-001 is submitted by both; on demo-002
    t-annotator has one item submitted and one in progress."""
    dataset = Dataset.objects.get(slug="demo")
    outputs = []
    next_id = FIRST_OUTPUT
    for slug, (name, system_id, version_id) in SYSTEMS.items():
        system = System.objects.create(pk=system_id, slug=slug, name=name, kind="abstractive")
        version = OutputVersion.objects.create(
            pk=version_id, system=system, dataset=dataset, number=1
        )
        for external_id in DOCUMENTS:
            document = Document.objects.get(dataset=dataset, external_id=external_id)
            outputs.append(
                SystemOutput.objects.create(
                    pk=next_id,
                    system=system,
                    version=version,
                    document=document,
                    sentences=[f"A summary of {external_id}.", "It has two sentences."],
                )
            )
            next_id += 1
    user_create(username="annotator2", password="pw-2", role="Annotator")
    campaign = polytope_campaign_create(
        dataset=dataset, slug="blind-pt", name="Blind PT", systems=list(SYSTEMS),
        documents=list(DOCUMENTS), annotators_per_document=2, system_blind=True,
    )  # fmt: skip
    tasks = tasks_assign_round_robin(campaign=campaign, annotators=[ME, "annotator2"])
    assert len(tasks) == 8
    campaign_adjudicators_set(campaign=campaign, usernames=[ME])
    open_task = None
    for task in Task.objects.filter(campaign=campaign).order_by("pk"):
        task_spans_save(task=task, user=task.annotator, errors=[], no_errors=True, base_version=1)
        if (
            open_task is None
            and task.annotator.username == ME
            and task.document.external_id == "demo-002"
        ):
            open_task = task
            continue
        task_submit(task=task)
    run = span_agreement_run_create(campaign=campaign.pk, submitted_only=True, queue=False)
    assert span_run_compute(run.pk) == "succeeded"
    documents = {d.external_id: d for d in Document.objects.filter(external_id__in=DOCUMENTS)}
    return {
        "campaign": campaign,
        "outputs": outputs,
        "documents": documents,
        "open_task": open_task,
        "run": run,
        "doc_url": f"/api/campaigns/{campaign.pk}/adjudication/{documents['demo-001'].pk}/",
    }


def secrets(world) -> list[str]:
    """Every string that would tell a reader a system or an output id of the campaign."""
    found = []
    for slug, (name, system_id, version_id) in SYSTEMS.items():
        found += [slug, name, str(system_id), str(version_id)]
    found += [str(output.pk) for output in world["outputs"]]
    return found


def _walk_json(value, where, path=""):
    """Values under keys naming an output or a system must not be (lists of) numbers."""
    if isinstance(value, dict):
        for key, inner in value.items():
            named = any(word in key.lower() for word in ("output", "system"))
            if named:
                numbers = [inner] if not isinstance(inner, list) else inner
                for number in numbers:
                    assert not (isinstance(number, int) and not isinstance(number, bool)), (
                        f"{where}: {path}.{key} = {inner!r}"
                    )
            _walk_json(inner, where, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            _walk_json(inner, where, f"{path}[{index}]")


def assert_blind(response, world, where: str) -> None:
    """The response tells nothing of the campaign's systems and outputs."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8", errors="replace")
    for secret in secrets(world):
        assert secret not in text, f"{where} ({response.status_code}) shows {secret!r}"
    if response.get("Content-Type", "").startswith("application/json") and text:
        _walk_json(json.loads(text), where)


def _patterns(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _patterns(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern


PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def _urls(world) -> list[tuple[str, object]]:
    """Every URL of the site with its parameters filled in from the campaign (and more). Output
    ids are not tried: the reader does not know them, and a page echoes the id in its URL."""
    campaign = world["campaign"]
    ints = sorted(
        {
            campaign.pk,
            campaign.annotation_set_id,
            *(d.pk for d in world["documents"].values()),
            *Task.objects.filter(campaign=campaign).values_list("pk", flat=True),
            world["run"].pk,
            1,
        }
    )
    gold = SpanAnnotation.objects.filter(annotator__isnull=True).values_list(
        "annotation_set_id", flat=True
    )
    ints = sorted(set(ints) | set(gold))
    values = {
        "campaign_id": [campaign.pk],
        "document_id": [d.pk for d in world["documents"].values()],
        "slug": ["demo"],
        "system": ["some-system"],
        "name": ["bars"],
        "study": ["some-study"],
        "external_id": ["demo-001"],
        "username": [ME],
        "secret": ["no-such-secret"],
    }
    urls = []
    for route, pattern in _patterns():
        if route.startswith("admin/") or route in ("logout/",):
            continue
        names = [name for _, name in PARAM.findall(route)]
        filled = [route]
        for name in names:
            candidates = values.get(name, ints)
            filled = [
                PARAM.sub(lambda m, v=value, n=name: str(v) if m.group(2) == n else m.group(0), url)
                for url in filled
                for value in candidates
            ]
        urls += [("/" + url, pattern) for url in filled]
    assert len(urls) > 100
    return urls


def _write_methods(pattern) -> list[str]:
    view = getattr(pattern.callback, "view_class", None)
    if view is None:
        return []
    return [m for m in ("post", "put", "patch", "delete") if hasattr(view, m)]


def _client(username: str) -> Client:
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def test_the_annotator_adjudicator_learns_no_system_and_no_output_id(blind):
    world = blind
    me = _client(ME)
    seen = []

    def check(response, where):
        seen.append((where, response.status_code))
        assert_blind(response, world, where)
        return response

    # The adjudication page of a document: items with opaque ids, no system, no output id.
    body = check(me.get(world["doc_url"]), "GET adjudication document").json()
    items = body["items"]
    assert len(items) == 2
    for item in items:
        assert isinstance(item["item"], str) and len(item["item"]) >= 16
        assert item["output"] is None and item["system"] is None and item["system_name"] is None
    # The campaign: no systems.
    campaign = check(me.get(f"/api/campaigns/{world['campaign'].pk}/"), "GET campaign").json()
    assert campaign["systems"] == [] and campaign["systems_hidden"] is True
    # The gold is saved by item id; the answer names items the same way.
    put = {
        "items": [
            {"item": item["item"], "base_version": 0, "errors": [], "no_errors": True}
            for item in items
        ]
    }
    saved = check(me.put(world["doc_url"], put, content_type="application/json"), "PUT gold")
    assert saved.status_code == 200, saved.content
    assert [row["item"] for row in saved.json()["items"]] == [item["item"] for item in items]
    assert {row["version"] for row in saved.json()["items"]} == {1}
    # A stale copy: 409 naming the item, not the output.
    changed = {"items": [{**put["items"][0], "no_errors": False}]}
    stale = check(me.put(world["doc_url"], changed, content_type="application/json"), "PUT stale")
    assert stale.status_code == 409 and stale.json()["extra"]["item"] == items[0]["item"]
    # An unknown item id, and a real output id (which the reader should not know): 400, clear,
    # nothing written.
    before = list(SpanAnnotation.objects.order_by("pk").values_list("pk", "version"))
    unknown = {"items": [{**put["items"][0], "item": "0123456789abcdef", "base_version": 1}]}
    refused = check(
        me.put(world["doc_url"], unknown, content_type="application/json"), "PUT unknown"
    )
    assert refused.status_code == 400
    assert "'0123456789abcdef' is not one of this document's items" in refused.json()["message"]
    by_output = {"items": [{"output": FIRST_OUTPUT, "base_version": 1, "errors": []}]}
    refused = check(
        me.put(world["doc_url"], by_output, content_type="application/json"), "PUT output"
    )
    assert refused.status_code == 400 and "item" in refused.json()["message"]
    assert list(SpanAnnotation.objects.order_by("pk").values_list("pk", "version")) == before
    # Done, reopen, done again.
    done_url = world["doc_url"] + "done/"
    assert check(me.post(done_url), "POST done").json()["status"] == "done"
    assert check(me.post(world["doc_url"] + "reopen/"), "POST reopen").json()["status"] == (
        "pending"
    )
    # demo-002: t-annotator's own item is still open; the workspace and its saves.
    task = world["open_task"]
    check(me.get(f"/api/tasks/{task.pk}/"), "GET task")
    spans = {"base_version": 2, "errors": [], "no_errors": False}
    spans_url = f"/api/tasks/{task.pk}/spans/"
    saved = check(me.put(spans_url, spans, content_type="application/json"), "PUT spans")
    assert saved.status_code == 200, saved.content
    stale = check(
        me.put(spans_url, {**spans, "no_errors": True}, content_type="application/json"),
        "PUT spans (stale)",
    )
    assert stale.status_code == 409
    marked = {"base_version": 3, "errors": [], "no_errors": True}
    check(me.put(spans_url, marked, content_type="application/json"), "PUT spans (marked)")
    presence = {"client_id": "tab-blind-1"}
    presence_url = f"/api/tasks/{task.pk}/presence/"
    check(me.post(presence_url, presence, content_type="application/json"), "POST presence")
    assert check(me.post(f"/api/tasks/{task.pk}/submit/"), "POST submit").status_code == 200
    # demo-002 now opens: a done refused for missing gold names items, not outputs.
    doc2 = world["documents"]["demo-002"]
    doc2_url = f"/api/campaigns/{world['campaign'].pk}/adjudication/{doc2.pk}/"
    missing = check(me.post(doc2_url + "done/"), "POST done (incomplete)")
    assert missing.status_code == 400 and len(missing.json()["extra"]["missing_items"]) == 2

    # Every page and endpoint, with every id we could fill in, read...
    urls = _urls(world)
    for url, _ in urls:
        check(me.get(url), f"GET {url}")
    reopened = check(me.post(f"/api/tasks/{task.pk}/reopen/"), "POST task reopen")
    assert reopened.status_code == 200
    # ... and written with an empty body (what an error answer says must not tell either).
    for url, pattern in urls:
        for method in _write_methods(pattern):
            check(
                getattr(me, method)(url, {}, content_type="application/json"),
                f"{method.upper()} {url}",
            )
    reached = {where for where, code in seen if code == 200}
    for page in (
        "/tasks/",
        f"/manage/campaigns/{world['campaign'].pk}/adjudication/",
        f"/manage/campaigns/{world['campaign'].pk}/agreement/",
        f"/api/campaigns/{world['campaign'].pk}/agreement/",
        f"/api/campaigns/{world['campaign'].pk}/adjudication/",
        doc2_url,
        f"/api/tasks/{task.pk}/",
        f"/api/tasks/{task.pk}/history/",
        f"/tasks/{task.pk}/",
        "/api/tasks/",
        "/api/datasets/demo/",
        "/",
    ):
        assert f"GET {page}" in reached, page


def test_admins_who_do_not_annotate_and_everyone_after_done_see_systems_and_outputs(
    blind, client_for
):
    world = blind
    campaign = world["campaign"]
    outputs = {o.pk: o for o in world["outputs"]}
    detail = f"/api/campaigns/{campaign.pk}/"
    admin = client_for("admin")
    # An admin who does not annotate: systems, output ids and the items' ids.
    body = admin.get(world["doc_url"]).json()
    for item in body["items"]:
        output = outputs[item["output"]]
        assert item["system"] == output.system.slug and item["system_name"] == output.system.name
        assert isinstance(item["item"], str)
    assert sorted(admin.get(detail).json()["systems"]) == sorted(SYSTEMS)
    assert admin.get(detail).json()["systems_hidden"] is False
    # The admin may save the gold by output id (the answer carries both ids) or by item id.
    first, second = body["items"]
    put = {"items": [{"output": first["output"], "base_version": 0, "no_errors": True}]}
    saved = admin.put(world["doc_url"], put, format="json")
    assert saved.status_code == 200, saved.content
    row = saved.json()["items"][0]
    assert (row["output"], row["item"], row["version"]) == (first["output"], first["item"], 1)
    put = {"items": [{"item": second["item"], "base_version": 0, "no_errors": True}]}
    row = admin.put(world["doc_url"], put, format="json").json()["items"][0]
    assert (row["output"], row["item"], row["version"]) == (second["output"], second["item"], 1)
    # Item ids are stable, per campaign, and do not follow the outputs' order.
    again = admin.get(world["doc_url"]).json()["items"]
    assert [i["item"] for i in again] == [first["item"], second["item"]]
    ids = [i["item"] for i in again]
    assert len(set(ids)) == 2 and all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)
    me = _client(ME)
    assert me.get(world["doc_url"]).json()["items"][0]["output"] is None
    assert me.get(detail).json()["systems"] == []
    # Done: the annotator-adjudicator now sees systems and output ids.
    campaign_status_set(campaign=Campaign.objects.get(pk=campaign.pk), status="adjudication")
    assert me.get(detail).json()["systems"] == []  # adjudicating is not done
    campaign_status_set(campaign=Campaign.objects.get(pk=campaign.pk), status="closed")
    body = me.get(world["doc_url"]).json()
    for item in body["items"]:
        assert outputs[item["output"]].system.slug == item["system"]
    assert sorted(me.get(detail).json()["systems"]) == sorted(SYSTEMS)
    agreement = me.get(f"/api/campaigns/{campaign.pk}/agreement/").json()
    assert agreement["systems_hidden"] is False and agreement["result"]["per_system"]


def test_an_admin_who_annotates_is_blind_until_done(blind, users, client_for):
    world = blind
    campaign = world["campaign"]
    task = Task.objects.filter(campaign=campaign, annotator__username=ME).first()
    task.annotator = users["admin"]
    task.save()
    admin = client_for("admin")
    body = admin.get(world["doc_url"]).json()
    assert {(i["output"], i["system"]) for i in body["items"]} == {(None, None)}
    assert admin.get(f"/api/campaigns/{campaign.pk}/").json()["systems"] == []
    agreement = admin.get(f"/api/campaigns/{campaign.pk}/agreement/").json()
    assert agreement["systems_hidden"] is True
