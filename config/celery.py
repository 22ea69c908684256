"""The Celery application: configured from Django settings, tasks discovered in every app.

It also holds the health check's task and the worker's command line (with beat). What long
jobs share (options, fan-out, recovery) is the job kernel's, ``annotation.jobs``.
"""

import os
import sys
import time
from collections.abc import Sequence

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


def beat_options() -> list[str]:
    """Worker options that also run Celery beat (``-B``): the job kernel's watchdog.

    Returns:
        ``-B`` and the schedule file's path under ``LOUPE_VAR_DIR``.
    """
    from django.conf import settings

    schedule = settings.VAR_DIR / "celery" / "beat-schedule"
    schedule.parent.mkdir(parents=True, exist_ok=True)
    return ["-B", "-s", str(schedule)]


def worker_command(*, queue: str, hostname: str, options: Sequence[str] = ()) -> list[str]:
    """The command line of a Celery worker of this app that consumes only ``queue``.

    Args:
        queue: the queue it consumes.
        hostname: its node name (``name@%h``).
        options: further worker options (``--pool=solo``, ``--concurrency=2``, ...).

    Returns:
        The argv, run with this interpreter.
    """
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--loglevel=INFO",
        *options,
        "-Q",
        queue,
        "--hostname",
        hostname,
    ]
