"""Starting the background jobs from the pages' buttons (issue 27, item 4): AutoFAR-L, APES,
bias and the cross-dataset tests. Each start answers 202 with the job, 409 naming the job while
one is queued or running, 400 saying what is missing; the status GETs say the same before a
click; annotators and users without a role are refused. A start really runs on a worker."""

from __future__ import annotations

import time

import pytest

from annotation.corpus.models import Dataset, Document
from scoring.apes.models import ApesRun
from scoring.autofar.models import AutoFarRun
from scoring.bias.models import BiasRun
from scoring.crossdataset.models import CrossDatasetTestRun
from tests.autofar.test_autofar_runs import build_tiny
from tests.crossdataset_helpers import example_load

CDX = {"metric": "rouge1_f", "resamples": 200}


@pytest.fixture
def tiny(db):
    return build_tiny()


def _empty(slug: str = "empty") -> Dataset:
    """A dataset with one document and nothing else: no reference, no output."""
    dataset = Dataset.objects.create(slug=slug, name="Nothing to score")
    Document.objects.create(dataset=dataset, external_id="e1", sentences=["A."])
    return dataset


@pytest.mark.django_db
def test_apes_starts_once_refuses_a_second_and_says_what_is_missing(demo, client_for):
    client = client_for("researcher")
    state = client.get("/api/datasets/demo/apes-runs/status/").json()
    assert (state["latest"], state["missing"]) == (None, "")
    started = client.post("/api/datasets/demo/apes-runs/start/", {}, format="json")
    assert started.status_code == 202 and started.json()["status"] == "queued"
    again = client.post("/api/datasets/demo/apes-runs/start/", {}, format="json")
    assert again.status_code == 409
    assert again.json()["extra"] == {"run": started.json()["id"], "status": "queued"}
    assert "already queued" in again.json()["message"]
    assert ApesRun.objects.count() == 1
    state = client.get("/api/datasets/demo/apes-runs/status/").json()
    assert state["latest"]["id"] == started.json()["id"] and state["latest"]["recoveries"] == 0

    _empty()
    refused = client.post("/api/datasets/empty/apes-runs/start/", {}, format="json")
    assert refused.status_code == 400
    assert "no system outputs" in refused.json()["message"]
    assert "/upload/" in refused.json()["message"]
    missing = client.get("/api/datasets/empty/apes-runs/status/").json()["missing"]
    assert missing == refused.json()["message"]
    assert ApesRun.objects.count() == 1


@pytest.mark.django_db
def test_autofar_starts_with_a_fit_refuses_a_second_and_says_what_is_missing(tiny, client_for):
    dataset, _, fit = tiny
    client = client_for("researcher")
    url = f"/api/datasets/{dataset.slug}/autofar-runs"
    state = client.get(f"{url}/status/").json()
    assert state["missing"] == "" and [f["id"] for f in state["fits"]] == [fit.pk]
    assert state["fit_datasets"] == ["autofar-tiny"]  # its released FAM
    neither = client.post(f"{url}/start/", {}, format="json")
    assert neither.status_code == 400 and "either a stored fit" in neither.json()["message"]
    started = client.post(f"{url}/start/", {"fit": fit.pk}, format="json")
    assert started.status_code == 202 and started.json()["status"] == "queued"
    again = client.post(f"{url}/start/", {"fit": fit.pk}, format="json")
    assert again.status_code == 409 and again.json()["extra"]["run"] == started.json()["id"]
    assert AutoFarRun.objects.count() == 1
    # A fit on a dataset without human FAMs is refused before any run is made.
    AutoFarRun.objects.update(status="succeeded")
    no_fams = client.post(f"{url}/start/", {"fit_dataset": "autofar-source"}, format="json")
    assert (
        no_fams.status_code == 400 and "no document with a human FAM" in no_fams.json()["message"]
    )
    assert AutoFarRun.objects.count() == 1

    _empty()
    missing = client.get("/api/datasets/empty/autofar-runs/status/").json()["missing"]
    assert "no extractive system outputs" in missing and "/upload/" in missing
    refused = client.post("/api/datasets/empty/autofar-runs/start/", {"fit": fit.pk}, format="json")
    assert refused.status_code == 400 and "no extractive system output" in refused.json()["message"]


@pytest.mark.django_db
def test_bias_starts_once_refuses_a_second_and_says_what_is_missing(demo, client_for):
    client = client_for("researcher")
    BiasRun.objects.all().delete()  # the demo's import queued one
    assert client.get("/api/datasets/demo/bias/").json()["missing"] == ""
    started = client.post("/api/datasets/demo/bias/")
    assert started.status_code == 202
    run = started.json()["run"]
    assert run["status"] == "queued" and run["recoveries"] == 0
    again = client.post("/api/datasets/demo/bias/")
    assert again.status_code == 409 and again.json()["extra"]["run"] == run["id"]
    assert BiasRun.objects.count() == 1

    _empty()
    missing = client.get("/api/datasets/empty/bias/").json()["missing"]
    assert "nothing to measure" in missing and "/upload/" in missing
    refused = client.post("/api/datasets/empty/bias/")
    assert refused.status_code == 400 and refused.json()["message"] == missing
    assert not BiasRun.objects.filter(dataset__slug="empty").exists()


@pytest.mark.django_db
def test_crossdataset_tests_start_once_and_refuse_a_second(client_for, users):
    example_load()
    client = client_for("researcher")
    started = client.post("/api/crossdataset/tests/", CDX, format="json")
    assert started.status_code == 202 and started.json()["state"] == "queued"
    again = client.post("/api/crossdataset/tests/", CDX, format="json")
    assert again.status_code == 409 and again.json()["extra"]["run"] == started.json()["run"]
    assert CrossDatasetTestRun.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["annotator", "norole", None])
def test_only_researchers_and_admins_start_or_read_the_starts(tiny, demo, client_for, role):
    dataset, _, fit = tiny
    client = client_for(role)
    denied = 403 if role else 401
    calls = [
        ("get", "/api/datasets/demo/apes-runs/status/", None),
        ("post", "/api/datasets/demo/apes-runs/start/", {}),
        ("get", f"/api/datasets/{dataset.slug}/autofar-runs/status/", None),
        ("post", f"/api/datasets/{dataset.slug}/autofar-runs/start/", {"fit": fit.pk}),
        ("post", "/api/datasets/demo/bias/", None),
        ("post", "/api/crossdataset/tests/", CDX),
    ]
    for method, url, body in calls:
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == denied, (url, response.status_code)
    assert not ApesRun.objects.exists() and not AutoFarRun.objects.exists()
    assert not CrossDatasetTestRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_an_autofar_l_run_started_through_the_api_finishes_on_a_real_worker(
    celery_worker_process, client_for
):
    dataset, _, fit = build_tiny()
    client = client_for("admin")
    started = client.post(
        f"/api/datasets/{dataset.slug}/autofar-runs/start/", {"fit": fit.pk}, format="json"
    )
    assert started.status_code == 202, started.content
    run_id = started.json()["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = client.get(f"/api/autofar-runs/{run_id}/").json()
        if run["status"] in ("succeeded", "failed"):
            break
        time.sleep(0.2)
    assert run["status"] == "succeeded", run
    assert run["result"]["outputs_predicted"] == 6 and run["chunks_done"] == run["chunks_total"]
    # Finished: the next start is accepted again (no 409).
    state = client.get(f"/api/datasets/{dataset.slug}/autofar-runs/status/").json()
    assert state["latest"]["id"] == run_id and state["latest"]["status"] == "succeeded"
    again = client.post(
        f"/api/datasets/{dataset.slug}/autofar-runs/start/", {"fit": fit.pk}, format="json"
    )
    assert again.status_code == 202 and again.json()["id"] != run_id
