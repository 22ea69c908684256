"""FAM agreement on the FAR release (needs ../shared): the released FAMs against themselves, and a
campaign where one annotator copies them for 10 documents and another changes one facet."""

from __future__ import annotations

import pytest

from annotation.accounts.services import user_create
from annotation.agreement.fam_selectors import campaign_agreement_get
from annotation.agreement.models import FamAgreementRun
from annotation.campaigns.selectors import task_fam
from annotation.campaigns.services import (
    campaign_create,
    task_fam_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset
from annotation.corpus.services import dataset_import
from annotation.fams.models import Fam
from tests.agreement_helpers import fam_run_compute
from tests.conftest import FAR_RELEASE, needs_far

pytestmark = [pytest.mark.shared, pytest.mark.django_db, needs_far]

FAM_MEASURES = (
    "jaccard_union",
    "jaccard_groups",
    "f1_union",
    "f1_groups",
    "alpha_masi_union",
    "alpha_masi_groups",
)


def _import() -> Dataset:
    dataset_import(format_name="far-release", source=FAR_RELEASE, slug="cnndm-far")
    return Dataset.objects.get(slug="cnndm-far")


def _released(dataset) -> dict:
    """external id -> the released FAM's facets, in the dataset's document order."""
    fams = (
        Fam.objects.filter(annotation_set__dataset=dataset, annotation_set__slug="released")
        .select_related("document")
        .order_by("document__position")
    )
    return {fam.document.external_id: fam.facets for fam in fams}


def _copy(facets) -> list[dict]:
    # A release may repeat a group; an annotator's FAM keeps each group once (same support).
    return [
        {
            "groups": [list(g) for g in dict.fromkeys(tuple(g) for g in facet["groups"])],
            "label": facet.get("label", "supported"),
            "note": "",
        }
        for facet in facets
    ]


def _campaign(dataset, documents: dict, annotators: dict):
    """A campaign over ``documents`` where each annotator submits the facets it is given."""
    campaign = campaign_create(
        dataset=dataset, slug="far-agreement", name="FAR agreement", documents=list(documents)
    )
    for name in annotators:
        user_create(username=name, password="pw", role="Annotator")
    tasks = tasks_assign_manual(
        campaign=campaign, assignments=[(doc, name) for doc in documents for name in annotators]
    )
    for task in tasks:
        facets = annotators[task.annotator.username](task.document.external_id)
        fam = task_fam(task=task)
        task_fam_save(task=task, user=task.annotator, facets=facets, base_version=fam.version)
        task_submit(task=task)
    run = FamAgreementRun.objects.get(campaign=campaign, status="queued")
    assert fam_run_compute(run.pk) == "succeeded", FamAgreementRun.objects.get(pk=run.pk)
    return campaign_agreement_get(campaign=campaign)


def test_the_released_fams_against_themselves_agree_perfectly():
    dataset = _import()
    released = _released(dataset)
    assert len(released) == 89
    body = _campaign(
        dataset,
        released,
        {
            "far-copy-1": lambda doc: _copy(released[doc]),
            "far-copy-2": lambda doc: _copy(released[doc]),
        },
    )
    result = body["result"]
    assert result["counts"]["documents"] == 89
    for name in FAM_MEASURES:
        overall = result["measures"][name]["overall"]
        assert overall["value"] == 1.0, name
        assert (overall["ci_low"], overall["ci_high"]) == (1.0, 1.0), name
    assert result["measures"]["jaccard_union"]["overall"]["n"] == 310  # every facet supported
    # Every released FAM is a low-abstraction document: one category everywhere, no kappa.
    kappa = result["measures"]["category_kappa"]["overall"]
    assert kappa["value"] is None and "undefined" in kappa["reason"]
    assert (
        "every pairable value is 'low'" in result["measures"]["category_alpha"]["overall"]["reason"]
    )


def test_one_changed_facet_in_ten_copied_documents_gives_the_hand_computed_jaccard():
    dataset = _import()
    released = _released(dataset)
    first_ten = dict(list(released.items())[:10])
    # The first ten released FAMs (samples 0, 1, 2, 4, 5, 9, 11, 14, 15, 17) have
    # 3 + 2 + 3 + 3 + 3 + 2 + 3 + 3 + 3 + 2 = 27 facets, every one supported.
    assert [len(facets) for facets in first_ten.values()] == [3, 2, 3, 3, 3, 2, 3, 3, 3, 2]
    sample0 = next(iter(first_ten))
    assert first_ten[sample0][0]["groups"] == [[1]]

    def edited(doc):
        facets = _copy(first_ten[doc])
        if doc == sample0:
            facets[0]["groups"] = [[1, 2]]  # sample 0, facet 0: {1} becomes {1, 2}
        return facets

    body = _campaign(
        dataset,
        first_ten,
        {"far-copy": lambda doc: _copy(first_ten[doc]), "far-edit": edited},
    )
    measures = body["result"]["measures"]
    # 26 facets agree (1 each); the changed one: support Jaccard |{1}| / |{1, 2}| = 1/2,
    # Dice 2/3, no common group (0), best-match F1 2/3. Means over the 27 facets:
    assert measures["jaccard_union"]["overall"]["value"] == pytest.approx((26 + 1 / 2) / 27)
    assert measures["jaccard_union"]["overall"]["value"] == pytest.approx(53 / 54)
    assert measures["f1_union"]["overall"]["value"] == pytest.approx(80 / 81)
    assert measures["jaccard_groups"]["overall"]["value"] == pytest.approx(26 / 27)
    assert measures["f1_groups"]["overall"]["value"] == pytest.approx(80 / 81)
    assert measures["jaccard_union"]["overall"]["n"] == 27
    lowest = body["result"]["lowest"][0]
    assert lowest["external_id"] == sample0
    assert lowest["value"] == pytest.approx((1 / 2 + 1 + 1) / 3)
