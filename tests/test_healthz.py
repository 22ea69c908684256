"""/healthz reports database, broker and a real worker round trip: 200 or 503."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_is_200_with_a_running_worker(client, celery_worker_process):
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert body["checks"]["worker"]["ok"] is True
    assert body["checks"]["worker"]["task_id"]


def test_healthz_is_503_when_no_worker_answers(client, settings):
    from config.celery import app

    settings.HEALTH_WORKER_TIMEOUT = 1.5
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = "loupe-nobody-listens-here"
    try:
        response = client.get("/healthz")
    finally:
        app.conf.task_default_queue = previous
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert body["checks"]["worker"]["ok"] is False
    assert "no worker answered within 1.5s" in body["checks"]["worker"]["error"]


def test_a_burst_of_probes_reuses_one_round_trip(client, settings, celery_worker_process):
    settings.HEALTH_CACHE_SECONDS = 60
    first = client.get("/healthz").json()["checks"]["worker"]
    second = client.get("/healthz").json()["checks"]["worker"]
    assert second["task_id"] == first["task_id"] and second["cached"] is True
