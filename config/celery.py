"""The Celery application: configured from Django settings, tasks discovered in every app."""

import os
import time

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("loupe")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def ensure_embedded_dirs() -> None:
    """Create the folders the embedded file-system broker and result backend need."""
    from django.conf import settings

    for folder in getattr(settings, "CELERY_EMBEDDED_DIRS", []):
        folder.mkdir(parents=True, exist_ok=True)


@app.on_after_configure.connect
def _prepare_embedded_broker(sender, **kwargs) -> None:
    ensure_embedded_dirs()


@app.task(name="loupe.health.ping", acks_late=False, soft_time_limit=10, time_limit=15)
def health_ping(sent_at: float) -> dict:
    """Answer the health check: proves a worker took a task from the broker and replied.

    Args:
        sent_at: the sender's ``time.time()`` when it queued the task.

    Returns:
        ``{"pong": True, "worker_received_after_s": float}``.
    """
    return {"pong": True, "worker_received_after_s": round(time.time() - sent_at, 4)}
