"""Every API endpoint against every role (anonymous included): allowed and denied cases."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from annotation.campaigns.services import (
    campaign_create,
    polytope_campaign_create,
    task_fam_save,
    task_submit,
    tasks_assign_manual,
)
from annotation.corpus.models import Dataset, Document, Reference
from scoring.apes.models import ApesRun
from scoring.judgments.services import human_judgments_import
from tests.score_helpers import score_plant

ROLES = ("anonymous", "norole", "annotator", "researcher", "admin")
ANYONE = dict.fromkeys(ROLES, 200)
ROLE_HOLDERS = {"anonymous": 401, "norole": 403, "annotator": 200, "researcher": 200, "admin": 200}
RESEARCH = {"anonymous": 401, "norole": 403, "annotator": 403, "researcher": 200, "admin": 200}
ADMIN_ONLY = {"anonymous": 401, "norole": 403, "annotator": 403, "researcher": 403, "admin": 200}
OWNER_ONLY = {"anonymous": 401, "norole": 403, "annotator": 200, "researcher": 403, "admin": 403}
OWNER_OR_ADMIN = OWNER_ONLY | {"admin": 200}


@dataclass
class Case:
    method: str
    url: str  # formatted with the context below
    expected: dict[str, int]
    body: object = None
    fmt: str = "json"
    success: int = 200
    extra: dict = field(default_factory=dict)


def _jsonl_upload():
    data = b'{"id": "m1", "sentences": ["One.", "Two."], "references": [["One."]]}\n'
    upload = io.BytesIO(data)
    upload.name = "matrix.jsonl"
    return {"file": upload, "slug": "matrix-upload"}


def _outputs_upload():
    upload = io.BytesIO(b'{"doc_id": "demo-001", "summary": "A short summary."}\n')
    upload.name = "matrix-outputs.jsonl"
    return {"file": upload, "system": "matrix-abs", "kind": "abstractive"}


def _workbook_upload():
    from tests.spans.workbook_helpers import build_workbook, demo_output, row, target_of

    target = target_of(demo_output("demo-abs", "demo-002"))
    upload = io.BytesIO(build_workbook([row("m1", target, severity="No errors")]))
    upload.name = "Human_Annotation_Matrix.xlsx"
    return {"file": upload, "system": "demo-abs", "set": "matrix-workbook"}


def _judgments_upload():
    upload = io.BytesIO(b"system,score\nlead-3,1\ndemo-extsum,2\ndemo-abs,3\n")
    upload.name = "matrix.csv"
    return {"file": upload, "name": "matrix-upload"}


CASES = {
    "api:me": Case("get", "/api/me/", ANYONE | {"anonymous": 401}),
    "api:user-list": Case("get", "/api/users/?role=Annotator", ADMIN_ONLY),
    # A user's own API token: its expiry, and revoking it.
    "api:me-token": Case("get", "/api/me/token/", ANYONE | {"anonymous": 401}),
    "api:me-token delete": Case(
        "delete", "/api/me/token/", ANYONE | {"anonymous": 401}, success=204
    ),
    # User management (issue 27): admins only; accepting an invitation needs only its link.
    "api:user-overview": Case("get", "/api/users/overview/", ADMIN_ONLY),
    "api:user-create": Case(
        "post",
        "/api/users/create/",
        ADMIN_ONLY,
        success=201,
        body={"username": "matrix-new", "role": "Annotator", "password": "Quiet-harbour-lamp-42"},
    ),
    "api:user-invite": Case(
        "post",
        "/api/users/invite/",
        ADMIN_ONLY,
        success=201,
        body={"username": "matrix-invited", "role": "Annotator"},
    ),
    "api:user-deactivate": Case("post", "/api/users/matrix-invitee/deactivate/", ADMIN_ONLY),
    "api:user-reactivate": Case("post", "/api/users/matrix-invitee/reactivate/", ADMIN_ONLY),
    "api:user-password-reset": Case(
        "post", "/api/users/matrix-invitee/password-reset/", ADMIN_ONLY, success=201
    ),
    "api:user-token-revoke": Case("post", "/api/users/matrix-invitee/token/revoke/", ADMIN_ONLY),
    "api:invitation-accept": Case(
        "post",
        "/api/invitations/accept/",
        ANYONE,
        body={"secret": "matrix-secret", "password": "Quiet-harbour-lamp-42"},
    ),
    "api:format-list": Case("get", "/api/formats/", ADMIN_ONLY),
    "api:token-obtain": Case("post", "/api/auth/token/", ANYONE, body="credentials"),
    "api:dataset-list": Case("get", "/api/datasets/", ROLE_HOLDERS),
    "api:dataset-import": Case(
        "post",
        "/api/datasets/import/",
        ADMIN_ONLY,
        body=_jsonl_upload,
        fmt="multipart",
        success=201,
    ),
    "api:dataset-detail": Case("get", "/api/datasets/demo/", ROLE_HOLDERS),
    "api:dataset-detail patch": Case(
        "patch", "/api/datasets/demo/", ADMIN_ONLY, body={"public": False}
    ),
    "api:document-list": Case("get", "/api/datasets/demo/documents/", ROLE_HOLDERS),
    "api:document-detail": Case("get", "/api/documents/{doc}/", ROLE_HOLDERS),
    "api:document-sentences-update": Case(
        "put", "/api/documents/{free_doc}/sentences/", ADMIN_ONLY, body={"sentences": ["A.", "B."]}
    ),
    "api:system-list": Case("get", "/api/systems/", RESEARCH),
    "api:system-create": Case(
        "post",
        "/api/systems/create/",
        RESEARCH,
        success=201,
        body={"slug": "matrix-sys", "name": "Matrix", "kind": "abstractive"},
    ),
    "api:system-detail": Case("get", "/api/systems/lead-3/", RESEARCH),
    "api:system-output-list": Case("get", "/api/systems/lead-3/outputs/?dataset=demo", RESEARCH),
    "api:system-output-upload": Case(
        "post",
        "/api/datasets/demo/outputs/",
        RESEARCH,
        body=_outputs_upload,
        fmt="multipart",
        success=201,
    ),
    "api:annotation-set-list": Case("get", "/api/datasets/demo/annotation-sets/", RESEARCH),
    "api:fam-list": Case("get", "/api/annotation-sets/{gold}/fams/", RESEARCH),
    "api:campaign-list": Case("get", "/api/campaigns/", ADMIN_ONLY),
    "api:campaign-create": Case(
        "post",
        "/api/campaigns/create/",
        ADMIN_ONLY,
        success=201,
        body={"dataset": "demo", "slug": "matrix-campaign", "name": "M", "scorers": []},
    ),
    "api:campaign-assign": Case(
        "post",
        "/api/campaigns/{campaign}/assign/",
        ADMIN_ONLY,
        success=201,
        body={
            "strategy": "manual",
            "assignments": [{"document": "demo-002", "annotator": "t-annotator"}],
        },
    ),
    # Campaign administration (issue 11): admins; a campaign's adjudicators may also read it.
    "api:campaign-detail": Case("get", "/api/campaigns/{campaign}/", ADMIN_ONLY),
    "api:campaign-detail patch": Case(
        "patch", "/api/campaigns/{campaign}/", ADMIN_ONLY, body={"instructions": "Read twice."}
    ),
    "api:campaign-status": Case(
        "post", "/api/campaigns/{campaign}/status/", ADMIN_ONLY, body={"status": "adjudication"}
    ),
    "api:campaign-annotators": Case(
        "post",
        "/api/campaigns/{staff_campaign}/annotators/",
        ADMIN_ONLY,
        success=201,
        body={"annotators": ["t-annotator"]},
    ),
    "api:campaign-progress": Case("get", "/api/campaigns/{campaign}/progress/", ADMIN_ONLY),
    "api:campaign-progress-csv": Case("get", "/api/campaigns/{campaign}/progress.csv", ADMIN_ONLY),
    "api:task-reassign": Case(
        "post", "/api/tasks/{task}/reassign/", ADMIN_ONLY, body={"annotator": "annotator"}
    ),
    # My tasks: any role may ask (a researcher simply has none).
    "api:task-list": Case("get", "/api/tasks/", ROLE_HOLDERS),
    # A task is visible to its annotator, researchers and admins; others get 404 (no leak).
    "api:task-detail": Case("get", "/api/tasks/{task}/", ROLE_HOLDERS),
    "api:task-history": Case("get", "/api/tasks/{task}/history/", ROLE_HOLDERS),
    "api:task-suggestions": Case("get", "/api/tasks/{task}/suggestions/", ROLE_HOLDERS),
    # PolyTope tasks (error spans under annotation): never researchers; admins read, not edit.
    "api:task-detail polytope": Case("get", "/api/tasks/{span_task}/", OWNER_OR_ADMIN),
    "api:task-history polytope": Case("get", "/api/tasks/{span_task}/history/", OWNER_OR_ADMIN),
    "api:task-span-save": Case(
        "put",
        "/api/tasks/{span_task}/spans/",
        OWNER_ONLY,
        body={"base_version": 1, "no_errors": True, "errors": []},
    ),
    "api:campaign-create polytope": Case(
        "post",
        "/api/campaigns/create/",
        ADMIN_ONLY,
        success=201,
        body={
            "dataset": "demo",
            "slug": "matrix-pt",
            "name": "M",
            "kind": "polytope",
            "systems": ["demo-abs"],
            "documents": ["demo-002"],
        },
    ),
    # Writes belong to the task's annotator only; researchers and admins may read, not edit.
    "api:task-fam-save": Case(
        "put",
        "/api/tasks/{task}/fam/",
        OWNER_ONLY,
        body={"base_version": 1, "facets": "{facets}"},
    ),
    "api:task-submit": Case("post", "/api/tasks/{complete_task}/submit/", OWNER_ONLY),
    "api:task-reopen": Case("post", "/api/tasks/{submitted_task}/reopen/", OWNER_ONLY),
    # Saying "I have this task open" (the workspace's heartbeat): its annotator and admins.
    "api:task-presence": Case(
        "post", "/api/tasks/{task}/presence/", OWNER_OR_ADMIN, body={"client_id": "matrix-tab"}
    ),
    "api:task-suggestion-events": Case(
        "post",
        "/api/tasks/{task}/suggestion-events/",
        OWNER_ONLY,
        success=201,
        body={
            "events": [
                {
                    "facet": 0,
                    "sentence": 0,
                    "scorer": "tfidf",
                    "scorer_version": "1",
                    "action": "shown",
                }
            ]
        },
    ),
    # A key may add " <method>" (or " <variant>") after the route name when one route serves
    # several methods (or kinds of task).
    "api:judgment-list": Case("get", "/api/datasets/demo/judgments/", RESEARCH),
    "api:judgment-list post": Case(
        "post",
        "/api/datasets/demo/judgments/",
        RESEARCH,
        body=_judgments_upload,
        fmt="multipart",
        success=201,
    ),
    "api:judgment-detail": Case(
        "delete", "/api/datasets/demo/judgments/{study}/", RESEARCH, success=204
    ),
    # Leaderboards, their downloads and plots, and the scores behind them: researchers, admins.
    "api:leaderboard": Case("get", "/api/datasets/demo/leaderboard/?category=low", RESEARCH),
    "api:leaderboard-export": Case(
        "get", "/api/datasets/demo/leaderboard/export/?file=csv", RESEARCH
    ),
    "api:leaderboard-rouge": Case("get", "/api/datasets/demo/leaderboard/rouge/", RESEARCH),
    "api:leaderboard-rouge put": Case(
        "put",
        "/api/datasets/demo/leaderboard/rouge/",
        ADMIN_ONLY,
        body={"rouge_types": ["rouge1", "rougeLsum"], "use_stemmer": False},
    ),
    "api:leaderboard-plot": Case(
        "get", "/api/datasets/demo/leaderboard/plots/far-sar.svg", RESEARCH
    ),
    "api:system-version-list": Case("get", "/api/datasets/demo/systems/lead-3/versions/", RESEARCH),
    "api:crossdataset": Case("get", "/api/crossdataset/?metric=rouge1_f&missing=exclude", RESEARCH),
    "api:crossdataset-test-run-start": Case(
        "post",
        "/api/crossdataset/tests/",
        RESEARCH,
        body={"metric": "rouge1_f", "datasets": "matrix-cdx", "resamples": 100},
        success=202,
    ),
    "api:crossdataset-test-run-detail": Case("get", "/api/crossdataset/tests/{cdx_run}/", RESEARCH),
    "api:system-scores": Case("get", "/api/datasets/demo/systems/lead-3/scores/", RESEARCH),
    "api:output-document": Case(
        "get", "/api/datasets/demo/systems/lead-3/documents/demo-001/", RESEARCH
    ),
    "api:scoring-job-list": Case("get", "/api/datasets/demo/scoring-jobs/", RESEARCH),
    "api:scoring-job-start": Case(
        "post", "/api/datasets/demo/scoring-jobs/start/", RESEARCH, body={"ks": [3]}, success=202
    ),
    "api:scoring-job-detail": Case("get", "/api/scoring-jobs/{job}/", RESEARCH),
    # APES runs (researchers start and read them) and per-system APES.
    "api:apes-system-list": Case("get", "/api/datasets/demo/apes/", RESEARCH),
    "api:apes-run-list": Case("get", "/api/datasets/demo/apes-runs/", RESEARCH),
    "api:apes-run-start": Case(
        "post",
        "/api/datasets/demo/apes-runs/start/",
        RESEARCH,
        body={"answerers": ["apes"]},
        success=202,
    ),
    "api:apes-run-status": Case("get", "/api/datasets/demo/apes-runs/status/", RESEARCH),
    "api:apes-run-detail": Case("get", "/api/apes-runs/{apes_run}/", RESEARCH),
    # AutoFAR: researchers and admins fit it, start AutoFAR-L runs and read both.
    "api:autofar-fit-list": Case("get", "/api/autofar/fits/?dataset=demo", RESEARCH),
    "api:autofar-fit-create": Case(
        "post",
        "/api/autofar/fits/create/",
        RESEARCH,
        body={"dataset": "demo", "scorers": ["rouge1-f"], "top_ns": [1], "resamples": 0},
        success=201,
    ),
    "api:autofar-fit-detail": Case("get", "/api/autofar/fits/{autofar_fit}/", RESEARCH),
    "api:autofar-run-list": Case("get", "/api/datasets/demo/autofar-runs/", RESEARCH),
    "api:autofar-run-start": Case(
        "post",
        "/api/datasets/demo/autofar-runs/start/",
        RESEARCH,
        body=lambda: {"fit": _autofar_fit_id()},
        success=202,
    ),
    "api:autofar-run-status": Case("get", "/api/datasets/demo/autofar-runs/status/", RESEARCH),
    "api:autofar-run-detail": Case("get", "/api/autofar-runs/{autofar_run}/", RESEARCH),
    # A campaign's agreement: admins and the campaign's adjudicators read it; admins ask for a
    # run (202: the matrix campaign's submission already queued one, which the POST returns).
    "api:campaign-agreement": Case("get", "/api/campaigns/{campaign}/agreement/", ADMIN_ONLY),
    "api:campaign-agreement post": Case(
        "post", "/api/campaigns/{campaign}/agreement/", ADMIN_ONLY, success=202
    ),
    # Span agreement runs: admins start them; researchers read the runs over annotation sets.
    "api:span-agreement-list": Case("get", "/api/span-agreement/?dataset=demo", RESEARCH),
    "api:span-agreement-list post": Case(
        "post", "/api/span-agreement/", ADMIN_ONLY, body=lambda: _span_agreement_body(), success=202
    ),
    "api:span-agreement-detail": Case("get", "/api/span-agreement/{agreement_run}/", RESEARCH),
    # Official PolyTope workbooks in (admins) and span sets out (researchers: released and gold).
    "api:polytope-workbook-import": Case(
        "post",
        "/api/datasets/demo/polytope-workbooks/",
        ADMIN_ONLY,
        body=_workbook_upload,
        fmt="multipart",
        success=201,
    ),
    "api:annotation-set-export": Case(
        "get", "/api/annotation-sets/{span_set}/export/?format=jsonl", RESEARCH
    ),
    # Releases: admins and researchers read them, anyone those of a public dataset; admins export.
    "api:release-list": Case("get", "/api/datasets/matrix-private/releases/", RESEARCH),
    "api:release-list public": Case("get", "/api/datasets/matrix-public/releases/", ANYONE),
    "api:release-list post": Case(
        "post", "/api/datasets/matrix-private/releases/", ADMIN_ONLY, body={}, success=202
    ),
    "api:release-detail": Case("get", "/api/datasets/matrix-private/releases/1/", RESEARCH),
    "api:release-detail public": Case("get", "/api/datasets/matrix-public/releases/1/", ANYONE),
    "api:release-download": Case(
        "get", "/api/datasets/matrix-private/releases/1/download/", RESEARCH
    ),
    "api:release-download public": Case(
        "get", "/api/datasets/matrix-public/releases/1/download/", ANYONE
    ),
    # Bias figures: as the leaderboard (researchers, admins), anyone for a public dataset;
    # researchers and admins start a run (202: queued).
    "api:dataset-bias": Case("get", "/api/datasets/matrix-private/bias/", RESEARCH),
    "api:dataset-bias public": Case("get", "/api/datasets/matrix-public/bias/", ANYONE),
    "api:dataset-bias post": Case(
        "post", "/api/datasets/matrix-private/bias/", RESEARCH, body={}, success=202
    ),
    "api:dataset-bias-plot": Case(
        "get", "/api/datasets/matrix-private/bias/plots/novel.svg", RESEARCH
    ),
    "api:dataset-bias-plot public": Case(
        "get", "/api/datasets/matrix-public/bias/plots/novel.svg", ANYONE
    ),
    # Adjudication: admins grant adjudicators; admins (and the campaign's adjudicators, tested in
    # test_adjudication_api.py) read, build and mark the gold.
    "api:campaign-adjudicators": Case("get", "/api/campaigns/{campaign}/adjudicators/", ADMIN_ONLY),
    "api:campaign-adjudicators post": Case(
        "post",
        "/api/campaigns/{campaign}/adjudicators/",
        ADMIN_ONLY,
        body={"adjudicators": ["t-researcher"]},
    ),
    "api:adjudication-list": Case("get", "/api/campaigns/{campaign}/adjudication/", ADMIN_ONLY),
    "api:adjudication-document": Case(
        "get", "/api/campaigns/{campaign}/adjudication/{doc}/", ADMIN_ONLY
    ),
    "api:adjudication-document put": Case(
        "put",
        "/api/campaigns/{campaign}/adjudication/{doc}/",
        ADMIN_ONLY,
        body={"base_version": 0, "facets": "{facets}"},
    ),
    "api:adjudication-done": Case(
        "post", "/api/campaigns/{campaign}/adjudication/{gold_doc}/done/", ADMIN_ONLY
    ),
    "api:adjudication-reopen": Case(
        "post", "/api/campaigns/{campaign}/adjudication/{gold_doc}/reopen/", ADMIN_ONLY
    ),
    # A login (any role, or none) unless LOUPE_API_DOCS_PUBLIC (config.schema.ApiDocsPermission).
    "schema": Case("get", "/api/schema/", ANYONE | {"anonymous": 401}),
    "api-docs": Case("get", "/api/docs/", ANYONE | {"anonymous": 401}),
}


def _api_route_names() -> set[str]:
    names = set()

    def walk(patterns, namespace):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                ns = pattern.namespace or namespace
                walk(pattern.url_patterns, ns)
            elif isinstance(pattern, URLPattern) and pattern.name:
                names.add(f"{namespace}:{pattern.name}" if namespace else pattern.name)

    walk(get_resolver().url_patterns, None)
    return {n for n in names if n.startswith("api:") or n in {"schema", "api-docs"}}


def test_the_matrix_covers_every_api_endpoint():
    assert _api_route_names() == {name.partition(" ")[0] for name in CASES}


def _judgment_study(dataset, researcher) -> str:
    upload = io.BytesIO(b"system,rank\nlead-3,3\ndemo-extsum,1\ndemo-abs,2\n")
    human_judgments_import(
        dataset=dataset, name="matrix", source=upload, filename="m.csv", user=researcher
    )
    return "matrix"


def _span_agreement_body() -> dict:
    from annotation.fams.models import AnnotationSet

    sets = AnnotationSet.objects.filter(slug__startswith="matrix-agree-")
    return {"annotation_sets": sorted(sets.values_list("pk", flat=True))}


def _crossdataset_run() -> int:
    """Two systems trained and tested on one toy dataset (so tests can start) and a run."""
    from annotation.systems.models import OutputVersion, System
    from scoring.crossdataset.models import CrossDatasetTestRun

    toy = Dataset.objects.create(slug="matrix-cdx", name="Toy")
    documents = [
        Document.objects.create(dataset=toy, external_id=f"x{n}", sentences=["A."]) for n in (1, 2)
    ]
    for name, value in (("X", 0.5), ("Y", 0.25)):
        system = System.objects.create(
            slug=f"matrix-{name.lower()}", name=name, kind="abstractive", trained_on=toy.slug
        )
        version = OutputVersion.objects.create(system=system, dataset=toy, number=1)
        for document in documents:
            score_plant(version=version, document=document, metric="rouge1_f", value=value)
    return CrossDatasetTestRun.objects.create(
        key="k", inputs_digest="d", metric="rouge1_f", datasets=[toy.slug], missing="error",
        resamples=100,
    ).pk  # fmt: skip


def _releases() -> None:
    """Version 1 of a one-document private and a public dataset (built here, without a worker)."""
    from scoring.releases.services import release_build, release_create

    for name in ("private", "public"):
        small = Dataset.objects.create(slug=f"matrix-{name}", name=name, public=name == "public")
        document = Document.objects.create(dataset=small, external_id="m", sentences=["A.", "B."])
        Reference.objects.create(document=document, sentences=["A."])
        release_build(release=release_create(dataset=small, queue=False))


def _autofar_fit_id() -> int:
    from scoring.autofar.models import AutoFarFit

    return AutoFarFit.objects.get(digest="matrix").pk


def _autofar_run(dataset) -> int:
    """A stored fit (figures set by hand) and a queued AutoFAR-L run of it on the demo."""
    from scoring.autofar.models import AutoFarFit
    from scoring.autofar.services import autofar_run_create

    fit = AutoFarFit.objects.create(
        dataset=dataset, scorers=["rouge1-f"], top_ns=[1], k=3, features=["rouge1-f@1"],
        intercept=0.1, weights={"rouge1-f@1": 0.5}, rmse=0.1, report={}, n_documents=2,
        n_systems=2, n_rows=4, digest="matrix",
    )  # fmt: skip
    run = autofar_run_create(dataset=dataset, fit=fit, queue=False)
    run.status, run.finished_at = "succeeded", timezone.now()  # a queued run: 409 on start
    run.save(update_fields=["status", "finished_at"])
    return run.pk


def _invitation(admin) -> str:
    """An invited user whose link's secret is ``matrix-secret``."""
    from annotation.users.links import secret_hash
    from annotation.users.services import user_invite

    _, invitation, _ = user_invite(username="matrix-invitee", role="Annotator", created_by=admin)
    invitation.secret_hash = secret_hash("matrix-secret")
    invitation.save(update_fields=["secret_hash"])
    return "matrix-invitee"


def _gold_document(campaign, admin) -> int:
    """demo-002 of the campaign with a complete gold FAM (so that it can be marked done)."""
    from annotation.adjudication.services import gold_fam_save

    document = campaign.documents.get(external_id="demo-002")
    n = document.references.get(position=0).facet_count
    noise = [{"groups": [], "label": "noise"}] * (n - 1)
    facets = [{"groups": [[0]], "label": "supported"}, *noise]
    gold_fam_save(campaign=campaign, document=document, facets=facets, base_version=0, user=admin)
    return document.pk


def _span_agreement_run(dataset) -> int:
    from annotation.agreement.services import span_agreement_run_create
    from annotation.fams.models import AnnotationSet
    from annotation.spans.models import SpanAnnotation

    output = dataset.output_versions.first().outputs.first()
    for name in ("a", "b"):
        spans = AnnotationSet.objects.create(
            dataset=dataset, slug=f"matrix-agree-{name}", name=name, kind="human",
            scheme="xsum-hallucinations",
        )  # fmt: skip
        SpanAnnotation.objects.create(annotation_set=spans, output=output, no_errors=True)
    return span_agreement_run_create(queue=False, **_span_agreement_body()).pk


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo, one user per role and every object the URLs name, built once for the module.

    They are written inside a transaction held open for the module: each test's own
    transaction is a savepoint in it, rolled back after the test, so every test starts from
    these same rows (as if built for it alone), and the whole is rolled back at the end.
    Building them for each of the 500-odd cases took most of the suite's CPU.
    """
    from django.db import transaction
    from django.test import override_settings

    from annotation.corpus.demo import demo_load
    from tests.conftest import make_role_users

    built = override_settings(
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        LOUPE_RELEASES_DIR=tmp_path_factory.mktemp("matrix") / "releases",
    )
    built.enable()
    outer = transaction.atomic()
    with django_db_blocker.unblock():
        outer.__enter__()
    try:
        with django_db_blocker.unblock():
            users = make_role_users()
            demo_load()
            made = {"users": users, "context": _context(users), "counts": _row_counts()}
        yield made
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
        built.disable()


def _row_counts() -> dict[str, int]:
    """How many rows each model's table holds."""
    from django.apps import apps

    return {model._meta.label: model.objects.count() for model in apps.get_models()}


@pytest.fixture
def users(world, db):
    """The module's users (rows of :func:`world`)."""
    return world["users"]


@pytest.fixture
def context(world, db):
    """The module's objects (rows of :func:`world`), as the URLs' format arguments."""
    return world["context"]


@pytest.fixture(autouse=True)
def _releases_in_tmp(settings, world):
    """Releases are read from (and written to) the folder the module's were built in."""
    from django.conf import settings as built

    settings.LOUPE_RELEASES_DIR = built.LOUPE_RELEASES_DIR


def _context(users) -> dict:
    """Every object the matrix's URLs name, built on the demo."""
    dataset = Dataset.objects.get(slug="demo")
    free = Document.objects.create(dataset=dataset, external_id="free", sentences=["x.", "y."])
    Reference.objects.create(document=free, sentences=["x."])
    campaign = campaign_create(
        dataset=dataset,
        slug="matrix",
        name="Matrix",
        scorers=["tfidf"],
        documents=["demo-001", "demo-002", "demo-003"],
    )
    annotator = users["annotator"]
    task, submitted, complete = tasks_assign_manual(
        campaign=campaign,
        assignments=[(doc, annotator.username) for doc in ("demo-001", "demo-002", "demo-003")],
    )

    def facets(for_task, done):
        n = for_task.document.references.get(position=0).facet_count
        label = "no_support" if done else "supported"
        rest = [{"groups": [], "label": label, "note": ""}] * (n - 1)
        return [{"groups": [[0]], "label": "supported", "note": ""}, *rest]

    for done_task in (submitted, complete):
        task_fam_save(
            task=done_task, user=annotator, facets=facets(done_task, True), base_version=1
        )
    task_submit(task=submitted)
    spans = polytope_campaign_create(
        dataset=dataset,
        slug="matrix-spans",
        name="Spans",
        systems=["demo-abs"],
        documents=["demo-001"],
    )
    (span_task,) = tasks_assign_manual(
        campaign=spans, assignments=[("demo-001", annotator.username)]
    )
    staff_campaign = campaign_create(
        dataset=dataset, slug="matrix-staff", name="Staff", scorers=[], documents=["demo-004"]
    )
    return {
        "doc": Document.objects.filter(dataset=dataset).exclude(pk=free.pk).first().pk,
        "staff_campaign": staff_campaign.pk,
        "free_doc": free.pk,
        "gold": dataset.annotation_sets.get(slug="gold").pk,
        "campaign": campaign.pk,
        "task": task.pk,
        "submitted_task": submitted.pk,
        "complete_task": complete.pk,
        "span_task": span_task.pk,
        "study": _judgment_study(dataset, users["researcher"]),
        "job": dataset.scoring_jobs.get().pk,
        # Finished runs: a queued one would make the starts below answer 409.
        "apes_run": ApesRun.objects.create(
            dataset=dataset, status="succeeded", finished_at=timezone.now()
        ).pk,
        "facets": facets(task, False),
        "agreement_run": _span_agreement_run(dataset),
        "releases": _releases(),
        "span_set": dataset.annotation_sets.create(
            slug="matrix-release", name="R", kind="released", scheme="polytope"
        ).pk,
        "gold_doc": _gold_document(campaign, users["admin"]),  # after "job": it queues one
        "autofar_run": _autofar_run(dataset),
        "autofar_fit": _autofar_fit_id(),
        "cdx_run": _crossdataset_run(),
        "invitee": _invitation(users["admin"]),
    }


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_endpoint_allows_and_denies_by_role(name, role, client_for, context, users):
    case = CASES[name]
    client = client_for(None if role == "anonymous" else role)
    body = case.body() if callable(case.body) else case.body
    if isinstance(body, dict) and body.get("facets") == "{facets}":
        body = {**body, "facets": context["facets"]}
    if body == "credentials":
        owner = "admin" if role == "anonymous" else role
        password = "pw" if owner == "norole" else f"pw-{owner}"
        body = {"username": users[owner].username, "password": password}
    response = getattr(client, case.method)(case.url.format(**context), body, format=case.fmt)
    expected = case.expected[role]
    if expected == 200 and case.method != "get":
        expected = case.success
    assert response.status_code == expected, (name, role, response.content[:300])


def test_token_auth_works_and_bad_credentials_are_refused(users, client_for):
    anonymous = client_for(None)
    bad = anonymous.post(
        "/api/auth/token/", {"username": "t-admin", "password": "nope"}, format="json"
    )
    assert bad.status_code == 400
    token = anonymous.post(
        "/api/auth/token/",
        {"username": "t-researcher", "password": "pw-researcher"},
        format="json",
    ).json()["token"]
    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = anonymous.get("/api/me/").json()
    assert me["username"] == "t-researcher" and me["roles"] == ["Researcher"]


def test_every_case_left_the_module_rows_as_they_were_built(world, db):
    """The cases ran in their own savepoints: none of their writes reached the next case."""
    assert _row_counts() == world["counts"]
