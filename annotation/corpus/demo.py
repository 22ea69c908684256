"""The demo: load fixtures/demo (dataset, gold FAMs, three systems), one user per role, and a FAM
and a PolyTope campaign for the demo annotator."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from annotation.accounts.roles import ADMIN, ANNOTATOR, RESEARCHER
from annotation.accounts.services import user_create
from annotation.imports.bundle import (
    FACET_NO_SUPPORT,
    FACET_NOISE,
    FACET_SUPPORTED,
    AnnotationSetRecord,
    DatasetRecord,
    FacetRecord,
    FamRecord,
    ImportBundle,
    Location,
)

from .importers.formats import get_format
from .models import Dataset
from .signals import demo_campaigns_requested, demo_dataset_loaded

DEMO_SLUG = "demo"
DEMO_DIR = settings.BASE_DIR / "fixtures" / "demo"
DEMO_USERS = (
    ("annotator", "loupe-annotator", ANNOTATOR),
    # A second annotator, so that a campaign with an overlap of two can be tried at once.
    ("annotator-b", "loupe-annotator-b", ANNOTATOR),
    ("researcher", "loupe-researcher", RESEARCHER),
    ("admin", "loupe-admin", ADMIN),
)


@dataclass(frozen=True)
class DemoResult:
    """What the demo loader did."""

    dataset_created: bool
    users: tuple[tuple[str, str, str], ...]  # (username, password, role)
    report: tuple[str, ...]


def _gold_fams(path: Path, documents) -> AnnotationSetRecord:
    raw = json.loads(path.read_text(encoding="utf-8"))
    categories = {d.external_id: d.category for d in documents}
    fams = []
    for doc_id, facets in raw.items():
        empty_label = FACET_NOISE if categories.get(doc_id) == "noise" else FACET_NO_SUPPORT
        fams.append(
            FamRecord(
                document_id=doc_id,
                facets=tuple(
                    FacetRecord(
                        groups=tuple(tuple(g) for g in groups),
                        label=FACET_SUPPORTED if groups else empty_label,
                    )
                    for groups in facets
                ),
                location=Location(path.name, field=doc_id),
            )
        )
    return AnnotationSetRecord(
        slug="gold", name="Demo gold FAMs", kind="gold", read_only=False, fams=tuple(fams)
    )


@transaction.atomic
def demo_load(*, fixtures_dir: Path = DEMO_DIR, with_campaign: bool = False) -> DemoResult:
    """Load the demo dataset, its gold FAMs and three systems' outputs, and the demo users.

    Running it again leaves an existing demo dataset alone and resets the demo users'
    passwords, so it is safe to call on every start.

    Args:
        fixtures_dir: the folder holding ``dataset.jsonl``, ``dataset_fams.json``,
            ``systems.json`` and ``outputs/<system>.jsonl``.
        with_campaign: also create the FAM campaign ``demo-fam`` with every document assigned
            to the demo annotator (its suggestions are computed by the worker), and the PolyTope
            campaign of ``polytope_campaign.json`` (``demo-polytope``: two documents x two
            systems, error spans) assigned to the demo annotator too.

    Returns:
        A :class:`DemoResult` with the users' credentials.

    Raises:
        ImportValidationError: the fixtures are invalid.
    """
    from annotation.corpus.services import bundle_import

    report: list[str] = []
    created = not Dataset.objects.filter(slug=DEMO_SLUG).exists()
    if created:
        bundle: ImportBundle = get_format("jsonl").parse(
            fixtures_dir / "dataset.jsonl", DEMO_SLUG, "Demo news"
        )
        bundle.dataset = DatasetRecord(
            slug=DEMO_SLUG,
            name="Demo news",
            description="Six short original news-style articles written for Loupe's demo.",
            source="fixtures/demo (original text)",
            license="CC0-1.0",
        )
        bundle.annotation_sets.append(
            _gold_fams(fixtures_dir / "dataset_fams.json", bundle.documents)
        )
        bundle_import(bundle=bundle, slug=DEMO_SLUG)
        dataset = Dataset.objects.get(slug=DEMO_SLUG)
        # scoring adds the demo systems' outputs and queues their scoring job.
        for _receiver, lines in demo_dataset_loaded.send(
            sender=Dataset, dataset=dataset, fixtures_dir=fixtures_dir
        ):
            report.extend(lines or ())
    users = []
    user_model = get_user_model()
    for username, password, role in DEMO_USERS:
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user_create(username=username, password=password, role=role)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        users.append((username, password, role))
    if with_campaign:
        # annotation.campaigns (above corpus) makes the demo's campaigns for these users.
        for _receiver, lines in demo_campaigns_requested.send(
            sender=Dataset, dataset=Dataset.objects.get(slug=DEMO_SLUG), fixtures_dir=fixtures_dir
        ):
            report.extend(lines or ())
    return DemoResult(dataset_created=created, users=tuple(users), report=tuple(report))
