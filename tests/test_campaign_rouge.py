"""A FAM campaign's ROUGE suggestions with or without stemming: set at creation, changed by
admins (suggestions computed again), refused when bad; the values are rouge-score's."""

from __future__ import annotations

import pytest

from annotation.campaigns.models import Campaign, SuggestionSet, SuggestionStatus
from annotation.corpus.models import Document
from scoring.metrics.rouge import RougeConfig
from scoring.metrics.suggest import get_scorer
from tests.rouge_helpers import reference_scorer

pytestmark = pytest.mark.django_db

UNSTEMMED = RougeConfig(("rouge1", "rouge2", "rougeL"), use_stemmer=False)
STEMMED = RougeConfig(("rouge1", "rouge2", "rougeL"))


def campaign_task(campaign: Campaign):
    """A task of the test annotator in the campaign (assigned here)."""
    from annotation.campaigns.services import tasks_assign_round_robin

    return tasks_assign_round_robin(campaign=campaign, annotators=["t-annotator"])[0]


def _create(api, slug: str, **fields):
    body = {"dataset": "demo", "slug": slug, "name": slug, "scorers": ["rouge1-r"], **fields}
    return api.post("/api/campaigns/create/", body, format="json")


def _compute(campaign: Campaign) -> dict[str, list]:
    """The campaign's newest suggestion job run through the job kernel in this process, and
    the stored rows by document."""
    from annotation.campaigns.services import suggestion_job_run_inline

    job = suggestion_job_run_inline(job=campaign.suggestions_job)
    assert job.status == "succeeded", job.error
    rows = SuggestionSet.objects.filter(campaign=campaign, scorer="rouge1-r")
    return {row.document.external_id: row for row in rows.select_related("document")}


def _expected_top(document: Document, config: RougeConfig) -> list[list[tuple[int, float]]]:
    """rouge-score's ROUGE-1 recall of each facet against each sentence, best first (ties in
    document order), scores above 0 only, at most 3."""
    scorer = reference_scorer(config)
    reference = document.references.get(position=0).sentences
    top = []
    for facet in reference:
        recalls = [scorer.score(facet, s)["rouge1"].recall for s in document.sentences]
        order = sorted(range(len(recalls)), key=lambda j: (-recalls[j], j))
        top.append([(j, round(recalls[j], 6)) for j in order if recalls[j] > 0][:3])
    return top


def test_unstemmed_suggestions_are_rouge_scores_default_and_can_be_changed(demo, client_for):
    admin = client_for("admin")
    response = _create(admin, "unstemmed", rouge_use_stemmer=False)
    assert response.status_code == 201, response.json()
    assert response.json()["rouge_use_stemmer"] is False
    campaign = Campaign.objects.get(slug="unstemmed")
    rows = _compute(campaign)
    assert rows
    for external_id, row in rows.items():
        document = Document.objects.get(dataset=campaign.dataset, external_id=external_id)
        found = [[(s["sentence"], s["score"]) for s in facet] for facet in row.facets]
        assert found == _expected_top(document, UNSTEMMED)
        assert row.scorer_version.endswith(", use_stemmer=False")
    # Admins change it: pending, then computed again with stemming.
    patched = admin.patch(
        f"/api/campaigns/{campaign.pk}/", {"rouge_use_stemmer": True}, format="json"
    )
    assert patched.status_code == 200 and patched.json()["rouge_use_stemmer"] is True
    campaign.refresh_from_db()
    assert campaign.suggestions_status == SuggestionStatus.PENDING
    # The unstemmed suggestions are gone: an annotator sees none (pending), never stale ones.
    assert not SuggestionSet.objects.filter(campaign=campaign).exists()
    task = campaign_task(campaign)
    assert client_for("annotator").get(f"/api/tasks/{task.pk}/suggestions/").json() == {
        "status": "pending",
        "scorers": {},
    }
    for external_id, row in _compute(campaign).items():
        document = Document.objects.get(dataset=campaign.dataset, external_id=external_id)
        found = [[(s["sentence"], s["score"]) for s in facet] for facet in row.facets]
        assert found == _expected_top(document, STEMMED)
        assert row.scorer_version == get_scorer("rouge1-r").version
    # The default is stemmed, as before.
    assert _create(admin, "default").json()["rouge_use_stemmer"] is True


def test_only_admins_change_it_and_bad_values_write_nothing(demo, client_for):
    campaign_id = _create(client_for("admin"), "c-rouge").json()["id"]
    url = f"/api/campaigns/{campaign_id}/"
    for role in ("researcher", "annotator"):
        answer = client_for(role).patch(url, {"rouge_use_stemmer": False}, format="json")
        assert answer.status_code == 403
    bad = client_for("admin").patch(url, {"rouge_use_stemmer": "maybe"}, format="json")
    assert bad.status_code == 400 and "rouge_use_stemmer" in bad.json()["extra"]["fields"]
    assert Campaign.objects.get(pk=campaign_id).rouge_use_stemmer is True
    tfidf = _create(client_for("admin"), "c-tfidf", scorers=["tfidf"]).json()["id"]
    refused = client_for("admin").patch(
        f"/api/campaigns/{tfidf}/", {"rouge_use_stemmer": False}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["extra"]["field"] == "rouge_use_stemmer"
    assert Campaign.objects.get(pk=tfidf).rouge_use_stemmer is True
    polytope = client_for("admin").post(
        "/api/campaigns/create/",
        {"dataset": "demo", "slug": "p", "name": "P", "kind": "polytope", "systems": ["lead-3"],
         "rouge_use_stemmer": False},
        format="json",
    )  # fmt: skip
    assert polytope.status_code == 400
    assert polytope.json()["extra"]["field"] == "rouge_use_stemmer"
    assert not Campaign.objects.filter(slug="p").exists()
