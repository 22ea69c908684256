"""The Celery application: configured from Django settings, tasks discovered in every app.

It also holds what every app's jobs share: the options of a long job, the chord fan-out with
its done and failed callbacks, and the worker's command line.
"""

import os
import sys
import time
from collections.abc import Callable, Sequence

from celery import Celery, chord, shared_task

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


# Analyses that a researcher reads after the leaderboard (dataset bias, APES, AutoFAR-L, the
# cross-dataset tests) wait behind every other task: on Redis a worker pops the priority 0
# list of its queue before the 3, 6 and 9 ones (kombu's priority steps), so the chunks of the
# scoring job an upload queues are not delayed by the bias run the same upload queues.
BACKGROUND = {"priority": 9}


def long_job(*, soft_time_limit: int, background: bool = False) -> dict:
    """Task options for a long job: acknowledged late (a killed worker's task is redelivered),
    with a soft time limit and a hard one a minute later.

    Args:
        soft_time_limit: seconds before the task is asked to stop.
        background: send it with the :data:`BACKGROUND` priority.

    Returns:
        Keyword arguments for ``shared_task``.
    """
    return {
        "acks_late": True,
        "soft_time_limit": soft_time_limit,
        "time_limit": soft_time_limit + 60,
        **(BACKGROUND if background else {}),
    }


def chord_fan_out(header: Sequence, *, done, failed, key: int) -> int:
    """Send ``header`` as a chord: ``done(results, key)`` after all, ``failed(..., key)`` on error.

    Args:
        header: the chunk signatures.
        done: the callback task, called with the chunks' results and ``key``.
        failed: the error callback task (see :func:`chord_failure_task`).
        key: the id of what the chunks work for (a job, a campaign).

    Returns:
        How many chunks were sent.
    """
    chord(list(header))(done.s(key).on_error(failed.s(key)))
    return len(header)


def chord_failure_task(*, name: str, record: Callable[[int, str], None], doc: str):
    """A chord error callback task that records ``"Type: message"`` of the failure for ``key``.

    Args:
        name: the task's name.
        record: called with the key and the error text (re-fetch the row; it may be gone).
        doc: the task's docstring.

    Returns:
        The registered task, to pass as ``failed`` to :func:`chord_fan_out`.
    """

    def failed(request, exc, traceback, key: int) -> None:
        record(key, f"{type(exc).__name__}: {exc}")

    failed.__name__ = failed.__qualname__ = name.rpartition(".")[2]
    failed.__doc__ = doc
    return shared_task(name=name)(failed)


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
