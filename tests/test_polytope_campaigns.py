"""PolyTope campaigns: creation and its refusals, assignment, the demo campaign, the release."""

from __future__ import annotations

import io
import json

import pytest
from django.db.models import Count

from annotation.accounts.services import user_create
from annotation.campaigns.models import Campaign, Task
from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    tasks_assign_manual,
    tasks_assign_round_robin,
)
from annotation.corpus.models import Dataset
from annotation.systems.models import OutputVersion, System, SystemOutput
from config.exceptions import ApplicationError
from tests.conftest import POLYTOPE_OUTPUTS, needs_polytope

pytestmark = pytest.mark.django_db

# demo-abs's summary of demo-002, as in fixtures/demo/outputs/demo-abs.jsonl, joined by spaces.
SUMMARY_002 = (
    "Researchers at the University of Varrow found that the silver-backed beetle gathers water "
    "from fog on its ridged back. In tests, a single beetle collected half of its body weight "
    "in water in one hour. Engineers hope to copy the pattern for fog nets."
)


@pytest.fixture
def annotators(demo):
    user_create(username="annotator2", password="pw-2", role="Annotator")
    user_create(username="annotator3", password="pw-3", role="Annotator")
    return ["annotator", "annotator2", "annotator3"]


@pytest.fixture
def campaign(dataset, annotators):
    return polytope_campaign_create(
        dataset=dataset,
        slug="pt",
        name="PT",
        systems=["demo-abs", "lead-3"],
        documents=["demo-002", "demo-003"],
        annotators_per_document=2,
    )


def login(client, username="annotator", password="loupe-annotator"):
    assert client.post("/login/", {"username": username, "password": password}).status_code == 302
    return client


def item(campaign, document="demo-002", system="demo-abs", annotator="annotator"):
    """The annotator's task on one system's output of one document (assigned if need be)."""
    tasks_assign_manual(campaign=campaign, assignments=[(document, annotator, system)])
    return Task.objects.get(
        campaign=campaign,
        document__external_id=document,
        output__system__slug=system,
        annotator__username=annotator,
    )


def span(text, words, type_, label, side="summary", occurrence=0, reason=""):
    """An error over the ``occurrence``-th ``words`` in ``text`` (offsets worked out here)."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(words, start + 1)
    return {
        "side": side,
        "start": start,
        "end": start + len(words),
        "words": words,
        "type": type_,
        "label": label,
        "reason": reason,
    }


def put(api, task, body):
    return api.put(
        f"/api/tasks/{task.pk}/spans/", json.dumps(body), content_type="application/json"
    )


# --- creation -------------------------------------------------------------------------------


def test_a_polytope_campaign_pins_the_latest_outputs_in_a_human_polytope_set(campaign, dataset):
    assert campaign.kind == "polytope" and campaign.system_blind and campaign.blind
    assert campaign.annotation_set.kind == "human"
    assert campaign.annotation_set.scheme == "polytope"
    assert campaign.scorers == [] and campaign.suggestions_status == "ready"
    assert sorted(campaign.systems.values_list("slug", flat=True)) == ["demo-abs", "lead-3"]
    pinned = {(o.system.slug, o.document.external_id) for o in campaign.outputs.all()}
    assert pinned == {(s, d) for s in ("demo-abs", "lead-3") for d in ("demo-002", "demo-003")}
    # A later upload of lead-3 does not change what the campaign annotates.
    system = System.objects.get(slug="lead-3")
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=2)
    document = dataset.documents.get(external_id="demo-002")
    newer = SystemOutput.objects.create(
        system=system,
        version=version,
        document=document,
        sentences=document.sentences[:1],
        extracted=[0],
        extraction_method="given",
    )
    tasks_assign_round_robin(campaign=campaign, annotators=["annotator", "annotator2"])
    assert not Task.objects.filter(output=newer).exists()
    # A campaign created after it takes version 2.
    later = polytope_campaign_create(
        dataset=dataset, slug="pt2", name="PT2", systems=["lead-3"], documents=["demo-002"]
    )
    assert list(later.outputs.all()) == [newer]


def _partial_system(dataset, slug="partial", documents=("demo-001",), sentences=None):
    system = System.objects.create(slug=slug, name=slug.title(), kind="abstractive")
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    for external_id in documents:
        SystemOutput.objects.create(
            system=system,
            version=version,
            document=dataset.documents.get(external_id=external_id),
            sentences=sentences or ["A summary sentence."],
        )
    return system


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"systems": []}, "needs at least one system"),
        ({"systems": "demo-abs"}, "needs at least one system (a list of slugs)"),
        ({"systems": ["demo-abs", "nope"]}, "Unknown systems: ['nope']"),
        ({"systems": ["demo-abs", "demo-abs"]}, "Systems listed twice: ['demo-abs']"),
        ({"systems": ["demo-abs"], "documents": ["demo-002", "x-9"]}, "Unknown documents"),
        ({"systems": ["demo-abs"], "documents": []}, "at least one document"),
        (
            {"systems": ["demo-abs", "partial"], "documents": ["demo-001", "demo-002", "demo-003"]},
            "System 'partial' has no output for 2 of the chosen document(s) of 'demo': "
            "['demo-002', 'demo-003']",
        ),
    ],
)
def test_creation_refusals_name_the_problem_and_write_nothing(dataset, fields, message):
    _partial_system(dataset)
    with pytest.raises(ApplicationError) as refused:
        polytope_campaign_create(dataset=dataset, slug="bad", name="Bad", **fields)
    assert message in refused.value.message
    assert not Campaign.objects.exists()
    assert not dataset.annotation_sets.filter(slug="campaign-bad").exists()


def test_an_output_without_a_word_is_refused(dataset):
    _partial_system(dataset, slug="dots", documents=("demo-001",), sentences=["...", "--"])
    with pytest.raises(
        ApplicationError, match=r"Outputs without a word to score: \['dots/demo-001'\]"
    ):
        polytope_campaign_create(
            dataset=dataset, slug="bad", name="Bad", systems=["dots"], documents=["demo-001"]
        )


def test_the_create_api_makes_polytope_campaigns_and_refuses_mixed_options(dataset, client):
    api = login(client, "admin", "loupe-admin")
    body = {
        "dataset": "demo",
        "slug": "api-pt",
        "name": "API PT",
        "kind": "polytope",
        "systems": ["lead-3", "demo-abs"],
        "documents": ["demo-001"],
        "system_blind": False,
    }
    made = api.post("/api/campaigns/create/", body, content_type="application/json")
    assert made.status_code == 201, made.content
    created = made.json()
    assert (created["kind"], created["system_blind"]) == ("polytope", False)
    assert sorted(created["systems"]) == ["demo-abs", "lead-3"] and created["scorers"] == []
    scorers = api.post(
        "/api/campaigns/create/",
        {**body, "slug": "api-pt2", "scorers": ["tfidf"]},
        content_type="application/json",
    )
    assert scorers.status_code == 400 and "no suggestions" in scorers.json()["message"]
    fam = api.post(
        "/api/campaigns/create/",
        {**body, "slug": "api-fam", "kind": "fam", "scorers": []},
        content_type="application/json",
    )
    assert fam.status_code == 400 and "give no systems" in fam.json()["message"]
    missing = api.post(
        "/api/campaigns/create/",
        {**body, "slug": "api-pt3", "systems": ["lead-3", "ghost"]},
        content_type="application/json",
    )
    assert missing.status_code == 400
    assert missing.json()["message"] == "Unknown systems: ['ghost']."
    assert api.get("/api/campaigns/").json()[0]["kind"] in ("polytope", "fam")


# --- assignment -----------------------------------------------------------------------------


def test_round_robin_gives_each_document_all_its_items_with_overlap_document_major(
    dataset, annotators
):
    campaign = polytope_campaign_create(
        dataset=dataset,
        slug="rr",
        name="RR",
        systems=["demo-abs", "demo-extsum", "lead-3"],
        annotators_per_document=2,
    )
    created = tasks_assign_round_robin(campaign=campaign, annotators=annotators)
    assert len(created) == 6 * 3 * 2  # documents x systems x overlap
    assert tasks_assign_round_robin(campaign=campaign, annotators=annotators) == []
    documents = list(dataset.documents.order_by("position").values_list("external_id", flat=True))
    # Document i goes to annotators (2i + j) mod 3, as for FAM campaigns.
    for i, external_id in enumerate(documents):
        holders = set(
            Task.objects.filter(campaign=campaign, document__external_id=external_id)
            .values_list("annotator__username", flat=True)
            .distinct()
        )
        assert holders == {annotators[(2 * i) % 3], annotators[(2 * i + 1) % 3]}
        for holder in holders:
            systems = Task.objects.filter(
                campaign=campaign, document__external_id=external_id, annotator__username=holder
            ).values_list("output__system__slug", flat=True)
            assert sorted(systems) == ["demo-abs", "demo-extsum", "lead-3"]
    orders = {}
    for username in annotators:
        queue = list(
            Task.objects.filter(campaign=campaign, annotator__username=username)
            .order_by("position", "id")
            .values_list("document__external_id", "output__system__slug")
        )
        assert len(queue) == 4 * 3  # loads 4, 4, 4 documents
        # Document-major: one document's items one after the other, documents in order.
        docs = [d for d, _ in queue]
        runs = [docs[k] for k in range(0, len(docs), 3)]
        assert docs == [d for d in runs for _ in range(3)]
        assert runs == sorted(runs, key=documents.index)
        for document, system in queue:
            orders.setdefault(document, {}).setdefault(username, []).append(system)
    # System-blind: a fixed shuffled order per document, the same for both its annotators, and
    # not the slug order everywhere.
    per_document = {}
    for document, by_user in orders.items():
        (order,) = {tuple(systems) for systems in by_user.values()}
        per_document[document] = order
    assert len(set(per_document.values())) > 1
    assert any(order != tuple(sorted(order)) for order in per_document.values())


def test_without_system_blind_items_come_by_system_slug(dataset, annotators):
    campaign = polytope_campaign_create(
        dataset=dataset,
        slug="open",
        name="Open",
        systems=["lead-3", "demo-abs", "demo-extsum"],
        documents=["demo-001", "demo-002"],
        system_blind=False,
    )
    tasks_assign_round_robin(campaign=campaign, annotators=["annotator"])
    queue = list(
        Task.objects.filter(campaign=campaign)
        .order_by("position", "id")
        .values_list("document__external_id", "output__system__slug")
    )
    assert queue == [
        (d, s) for d in ("demo-001", "demo-002") for s in ("demo-abs", "demo-extsum", "lead-3")
    ]


def test_manual_assignment_by_document_or_single_item_and_its_refusals(campaign):
    made = tasks_assign_manual(
        campaign=campaign,
        assignments=[("demo-003", "annotator2", "lead-3"), ("demo-002", "annotator2")],
    )
    assert len(made) == 3
    queue = list(
        Task.objects.filter(campaign=campaign, annotator__username="annotator2")
        .order_by("position", "id")
        .values_list("document__external_id", flat=True)
    )
    assert queue == ["demo-002", "demo-002", "demo-003"]  # document-major whatever the order
    assert tasks_assign_manual(campaign=campaign, assignments=[("demo-002", "annotator2")]) == []
    with pytest.raises(ApplicationError, match="System 'demo-extsum' is not part of this campaign"):
        tasks_assign_manual(
            campaign=campaign, assignments=[("demo-002", "annotator", "demo-extsum")]
        )
    with pytest.raises(ApplicationError, match="'demo-001' is not part of this campaign"):
        tasks_assign_manual(campaign=campaign, assignments=[("demo-001", "annotator")])
    with pytest.raises(ApplicationError, match="'researcher' is not an annotator"):
        tasks_assign_manual(campaign=campaign, assignments=[("demo-002", "researcher")])
    assert Task.objects.filter(campaign=campaign).count() == 3  # refusals wrote nothing


def test_a_fam_campaign_takes_no_system_in_manual_assignment(dataset):
    fam = campaign_create(dataset=dataset, slug="fam", name="FAM", scorers=[])
    with pytest.raises(ApplicationError, match="give no system"):
        tasks_assign_manual(campaign=fam, assignments=[("demo-001", "annotator", "lead-3")])


# --- the demo -------------------------------------------------------------------------------


def test_the_demo_gives_the_annotator_a_polytope_campaign_and_can_run_again(client, capsys):
    from django.core.management import call_command

    call_command("demo", "--force")
    out = capsys.readouterr().out
    assert "PolyTope campaign 'demo-polytope': 4 items for ['annotator']" in out
    campaign = Campaign.objects.get(slug="demo-polytope")
    assert (campaign.kind, campaign.system_blind, campaign.blind) == ("polytope", True, True)
    queue = list(
        Task.objects.filter(campaign=campaign, annotator__username="annotator")
        .order_by("position", "id")
        .values_list("document__external_id", "output__system__slug")
    )
    assert sorted(queue) == [
        (d, s) for d in ("demo-002", "demo-003") for s in ("demo-abs", "demo-extsum")
    ]
    assert [d for d, _ in queue] == ["demo-002", "demo-002", "demo-003", "demo-003"]
    mine = login(client).get("/api/tasks/").json()
    assert mine["total"] == 6 + 4
    spans = [row for row in mine["results"] if row["kind"] == "polytope"]
    assert len(spans) == 4 and {row["output"]["system"] for row in spans} == {None}
    # The annotator's work survives a second run, which creates nothing new.
    task = Task.objects.get(pk=spans[0]["id"])
    clean = put(client, task, {"base_version": 1, "no_errors": True, "errors": []})
    assert clean.status_code == 200
    call_command("demo", "--force")
    assert "PolyTope campaign" not in capsys.readouterr().out
    assert Task.objects.filter(campaign__slug="demo-polytope").count() == 4
    assert Campaign.objects.filter(kind="polytope").count() == 1
    # (The second run resets the demo passwords, which ends the session: log in again.)
    body = login(client).get(f"/api/tasks/{task.pk}/").json()
    assert body["spans"]["no_errors"] is True and body["spans"]["version"] == 2


def test_a_demo_whose_fixtures_name_a_missing_system_still_loads_and_says_why(tmp_path):
    import shutil

    from annotation.corpus.demo import DEMO_DIR, demo_load

    fixtures = tmp_path / "demo"
    shutil.copytree(DEMO_DIR, fixtures)
    spec = json.loads((fixtures / "polytope_campaign.json").read_text())
    spec["systems"] = ["demo-abs", "ghost"]
    (fixtures / "polytope_campaign.json").write_text(json.dumps(spec))
    result = demo_load(fixtures_dir=fixtures, with_campaign=True)
    assert result.report[-1] == (
        "PolyTope campaign 'demo-polytope' not created: Unknown systems: ['ghost']."
    )
    assert Campaign.objects.filter(slug="demo-fam").exists()
    assert not Campaign.objects.filter(slug="demo-polytope").exists()


# --- the PolyTope release -------------------------------------------------------------------


@pytest.mark.shared
@needs_polytope
def test_a_campaign_on_the_polytope_release_refuses_textranks_missing_trial(annotators):
    from django.core.management import call_command

    call_command(
        "import_dataset",
        str(POLYTOPE_OUTPUTS),
        "--format",
        "polytope-release",
        "--slug",
        "cnndm-polytope",
        stdout=io.StringIO(),
    )
    dataset = Dataset.objects.get(slug="cnndm-polytope")
    # The release has no TextRank summary for one trial (its 25_.txt repeats 24_.txt).
    without = dataset.documents.exclude(outputs__system__slug="textrank")
    (missing,) = without.values_list("external_id", flat=True)
    with pytest.raises(ApplicationError) as refused:
        polytope_campaign_create(
            dataset=dataset, slug="all", name="All", systems=["bart", "textrank"]
        )
    assert refused.value.message == (
        f"System 'textrank' has no output for 1 of the chosen document(s) of 'cnndm-polytope': "
        f"['{missing}']. Choose other systems or documents."
    )
    chosen = list(
        dataset.documents.exclude(external_id=missing)
        .order_by("position")
        .values_list("external_id", flat=True)[:10]
    )
    campaign = polytope_campaign_create(
        dataset=dataset,
        slug="ten",
        name="Ten",
        systems=["bart", "textrank", "lead-3"],
        documents=chosen,
        annotators_per_document=2,
    )
    assert campaign.outputs.count() == 10 * 3
    made = tasks_assign_round_robin(campaign=campaign, annotators=annotators)
    assert len(made) == 10 * 3 * 2
    loads = sorted(
        Task.objects.filter(campaign=campaign)
        .values("annotator")
        .annotate(n=Count("id"))
        .values_list("n", flat=True)
    )
    assert loads == [18, 21, 21]  # 20 document assignments over 3 annotators: 6, 7, 7
