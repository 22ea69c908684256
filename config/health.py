"""The /healthz endpoint: database, broker and a round trip through a Celery worker."""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .celery import app as celery_app
from .celery import health_ping

log = logging.getLogger(__name__)


def _check_database() -> dict:
    started = time.monotonic()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # noqa: BLE001 - any failure means unhealthy
        # The driver's message names the host and port: logged here, never shown to anyone.
        log.error("healthz: database unreachable: %s: %s", type(error).__name__, error)
        return {"ok": False, "error": "database unreachable"}
    return {"ok": True, "vendor": connection.vendor, "ms": _ms(started)}


def _check_broker() -> dict:
    started = time.monotonic()
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            transport = conn.transport.driver_name  # "redis", "filesystem" (embedded)
    except Exception as error:  # noqa: BLE001
        log.error("healthz: broker unreachable: %s: %s", type(error).__name__, error)
        return {"ok": False, "error": "broker unreachable"}
    return {
        "ok": True,
        "transport": transport,
        "embedded": settings.CELERY_EMBEDDED_BROKER,
        "ms": _ms(started),
    }


def _check_worker() -> dict:
    started = time.monotonic()
    try:
        result = health_ping.apply_async(
            args=[time.time()],
            queue=celery_app.conf.task_default_queue,
            expires=settings.HEALTH_WORKER_TIMEOUT,
        )
        reply = result.get(timeout=settings.HEALTH_WORKER_TIMEOUT, propagate=True)
        result.forget()
    except Exception as error:  # noqa: BLE001
        return {
            "ok": False,
            "error": f"no worker answered within {settings.HEALTH_WORKER_TIMEOUT:g}s "
            f"({type(error).__name__}: {error})",
        }
    return {"ok": bool(reply.get("pong")), "task_id": result.id, "round_trip_ms": _ms(started)}


_worker_cache: dict[str, tuple[float, dict]] = {}
_worker_lock = threading.Lock()


def _cached_worker_check() -> dict:
    """The worker check, reused for HEALTH_CACHE_SECONDS so a burst of probes queues one task."""
    queue = celery_app.conf.task_default_queue
    with _worker_lock:
        cached = _worker_cache.get(queue)
        if cached and time.monotonic() - cached[0] < settings.HEALTH_CACHE_SECONDS:
            return {**cached[1], "cached": True}
        result = _check_worker()
        _worker_cache[queue] = (time.monotonic(), result)
        return result


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)


@never_cache
@require_GET
def healthz(request):
    """Report database, broker and worker health: 200 when all are up, 503 otherwise."""
    checks = {"database": _check_database(), "broker": _check_broker()}
    checks["worker"] = (
        _cached_worker_check()
        if checks["broker"]["ok"]
        else {"ok": False, "error": "broker is down"}
    )
    healthy = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status=200 if healthy else 503,
    )
