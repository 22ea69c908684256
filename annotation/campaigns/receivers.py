"""Receivers of the corpus app's events (corpus sits below campaigns and never imports it).

Connected in ``CampaignsConfig.ready()``.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.db import transaction

from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError

from .models import Campaign
from .services import campaign_create, polytope_campaign_create, tasks_assign_round_robin

DEMO_CAMPAIGN = "demo-fam"
DEMO_POLYTOPE = "polytope_campaign.json"


def on_demo_campaigns_requested(*, dataset: Dataset, fixtures_dir: Path, **_) -> list[str]:
    """Make the demo's FAM campaign and its PolyTope campaign, each once, for the demo annotator.

    Args:
        dataset: the demo dataset (its outputs and the demo users exist).
        fixtures_dir: the demo's fixtures (``polytope_campaign.json``).

    Returns:
        The report lines of the PolyTope campaign (made, or why not).
    """
    _demo_campaign(dataset)
    return _demo_polytope_campaign(dataset, fixtures_dir / DEMO_POLYTOPE)


def _demo_campaign(dataset: Dataset) -> None:
    if Campaign.objects.filter(slug=DEMO_CAMPAIGN).exists():
        return
    campaign = campaign_create(
        dataset=dataset,
        slug=DEMO_CAMPAIGN,
        name="Demo FAMs",
        scorers=["rougeavg-f", "tfidf"],
        top_k=3,
        blind=True,
    )
    tasks_assign_round_robin(campaign=campaign, annotators=["annotator"])


def _demo_polytope_campaign(dataset: Dataset, path: Path) -> list[str]:
    """Create the demo's PolyTope campaign once; say why not when the fixtures do not allow it."""
    if not path.is_file():
        return []
    spec = json.loads(path.read_text(encoding="utf-8"))
    if Campaign.objects.filter(slug=spec["slug"]).exists():
        return []
    try:
        with transaction.atomic():
            campaign = polytope_campaign_create(
                dataset=dataset,
                slug=spec["slug"],
                name=spec["name"],
                systems=spec["systems"],
                documents=spec["documents"],
                annotators_per_document=len(spec["annotators"]),
                blind=spec.get("blind", True),
                system_blind=spec.get("system_blind", True),
            )
            tasks = tasks_assign_round_robin(campaign=campaign, annotators=spec["annotators"])
    except ApplicationError as error:
        # A demo whose outputs were changed by hand must still start: say what is missing.
        return [f"PolyTope campaign {spec['slug']!r} not created: {error.message}"]
    return [f"PolyTope campaign {spec['slug']!r}: {len(tasks)} items for {spec['annotators']}"]
