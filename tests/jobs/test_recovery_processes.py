"""The job kernel's recovery with real processes: a worker SIGKILLed inside a chunk, Redis
restarted without persistence mid-job, and an import made while the broker was down.

Each test runs its own redis-server (no persistence) and workers with beat (the watchdog) on
it, against the test database; the watchdog's settings are short so each case ends within the
acceptance's 2 minutes. A chunk is caught inside its write deterministically: the test holds
the job's row, which a chunk must update to mark itself done.
"""

from __future__ import annotations

import subprocess
import time
import uuid

import pytest
from celery import signature

from annotation.corpus.services import dataset_import
from annotation.jobs.kernel import RUN
from annotation.jobs.models import JobStatus
from config.celery import app
from scoring.scores.models import ScoringJob
from scoring.scores.services.kind import SCORING
from tests.conftest import FAR_RELEASE, ROOT, _test_database_url, needs_far
from tests.score_helpers import stored_scores
from tests.scoring.test_scoring_celery import _expected_rows
from tests.vendor_marks import needs_row_locks

from .processes import (
    PrivateRedis,
    job_row_held,
    kill_group,
    kill_inside_a_chunk,
    start_worker_with_beat,
    wait_finished,
    wait_for_a_blocked_chunk,
    worker_env,
)

# Chunks of 20 outputs (38 for the FAR release's 760); a chunk beats every second, is lost
# after 4 s of silence, and the watchdog looks every second.
FAST = {
    "LOUPE_SCORING_CHUNK": 20,
    "LOUPE_JOB_BEAT_SECONDS": 1,
    "LOUPE_JOB_LOST_SECONDS": 4,
    "LOUPE_JOB_RESEND_SECONDS": 4,
    "LOUPE_JOB_WATCHDOG_SECONDS": 1,
    "LOUPE_JOB_STALL_SECONDS": 60,
}
LIMIT = 120  # the acceptance's bound, from the disruption to the job's end


@pytest.fixture
def processes():
    started = []
    yield started
    for process in started:
        if isinstance(process, PrivateRedis):
            process.kill()
        else:
            kill_group(process)


def _import_without_sending(monkeypatch) -> ScoringJob:
    """Import the FAR release; its scoring job's row is queued but not sent (the test sends it
    to its private broker)."""
    with monkeypatch.context() as patch:
        patch.setattr("annotation.jobs.kernel.job_send", lambda *args, **kwargs: True)
        dataset_import(format_name="far-release", source=FAR_RELEASE, slug="cnndm-far")
    return ScoringJob.objects.get(dataset__slug="cnndm-far")


def _send(job: ScoringJob, redis: PrivateRedis, queue: str) -> None:
    # transport= too: on the embedded defaults settings name the file-system transport, which
    # a URL given here does not replace.
    with app.connection_for_write(redis.url, transport="redis") as conn:
        signature(RUN, args=("scoring", job.pk, 0), **SCORING.options()).apply_async(
            connection=conn, queue=queue
        )


def _assert_exact_rows(job: ScoringJob) -> None:
    assert job.chunks_done == job.chunks_total == 38 and job.outputs_total == 760
    stored = [s[:3] for s in stored_scores(version__dataset=job.dataset)]
    expected = _expected_rows(job.dataset)
    assert len(stored) == len(set(stored)) == len(expected)
    assert set(stored) == expected


def _wait_dispatched(job: ScoringJob, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.dispatches:
            return
        time.sleep(0.05)
    raise AssertionError(f"job {job.pk} was never dispatched ({job.status})")


@needs_far
@needs_row_locks
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_inside_a_chunk_is_replaced_and_the_job_ends_with_exact_rows(
    monkeypatch, tmp_path, processes
):
    redis = PrivateRedis(tmp_path).start()
    processes.append(redis)
    queue = f"loupe-kill-{uuid.uuid4().hex[:8]}"
    env = worker_env(redis, queue, **FAST)
    job = _import_without_sending(monkeypatch)
    first = start_worker_with_beat(env, tmp_path / "worker-1.log")
    processes.append(first)
    _send(job, redis, queue)
    _wait_dispatched(job)
    # SIGKILL inside the chunk's write: it never finishes there.
    caught = kill_inside_a_chunk(job, lambda: kill_group(first))
    killed_at = time.monotonic()
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING and job.chunks_done < 38
    processes.append(start_worker_with_beat(env, tmp_path / "worker-2.log"))
    job = wait_finished(job, timeout=LIMIT)
    assert time.monotonic() - killed_at < LIMIT
    assert job.status == JobStatus.SUCCEEDED, job.error
    _assert_exact_rows(job)
    # The watchdog sent the chunk again (nothing waited for the broker's redelivery).
    assert job.recoveries >= 1
    assert job.chunks.get(index=caught).attempts >= 2
    notes = (tmp_path / "worker-2.log").read_text(errors="replace")
    assert "after a worker was lost" in notes or "after a worker was lost" in job.recovery_note


@needs_far
@needs_row_locks
@pytest.mark.django_db(transaction=True)
def test_redis_restarted_without_persistence_mid_job_ends_the_job_with_exact_rows(
    monkeypatch, tmp_path, processes
):
    redis = PrivateRedis(tmp_path).start()
    processes.append(redis)
    queue = f"loupe-redis-{uuid.uuid4().hex[:8]}"
    env = worker_env(redis, queue, **FAST)
    job = _import_without_sending(monkeypatch)
    processes.append(start_worker_with_beat(env, tmp_path / "worker.log"))
    _send(job, redis, queue)
    _wait_dispatched(job)
    with job_row_held(job) as holder:
        wait_for_a_blocked_chunk(job, holder)
        redis.kill()  # every queued chunk and the chord's counter are lost with it
        redis.start()
    restarted_at = time.monotonic()
    job = wait_finished(job, timeout=LIMIT)
    assert time.monotonic() - restarted_at < LIMIT
    assert job.status == JobStatus.SUCCEEDED, job.error
    _assert_exact_rows(job)
    assert job.recoveries >= 1 and job.recovery_note, job.recovery_note


@needs_far
@pytest.mark.django_db(transaction=True)
def test_an_import_made_while_the_broker_was_down_is_scored_once_it_is_back(tmp_path, processes):
    redis = PrivateRedis(tmp_path)  # not started: its port refuses connections
    queue = f"loupe-down-{uuid.uuid4().hex[:8]}"
    env = worker_env(redis, queue, **FAST)
    imported = subprocess.run(  # noqa: S603 - fixed argv
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", "import_dataset", str(FAR_RELEASE)]
        + ["--format", "far-release", "--slug", "cnndm-far"],
        cwd=ROOT,
        env={**env, "DATABASE_URL": _test_database_url()},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert imported.returncode == 0, imported.stderr[-2000:]
    # The send failed on the broker's own error, without waiting on the result backend's 20
    # reconnects (a web request would have hung for about 40 s).
    assert "Connection to Redis lost" not in imported.stderr
    job = ScoringJob.objects.get(dataset__slug="cnndm-far")
    assert job.status == JobStatus.FAILED and job.broker_failed
    assert "could not reach the task broker" in job.error
    processes.append(redis.start())
    back_at = time.monotonic()
    processes.append(start_worker_with_beat(env, tmp_path / "worker.log"))
    deadline = time.monotonic() + LIMIT
    while job.status != JobStatus.SUCCEEDED and time.monotonic() < deadline:
        time.sleep(0.25)
        job.refresh_from_db()
    assert time.monotonic() - back_at < LIMIT
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert not job.broker_failed and "queued again once the task broker answered" in (
        job.recovery_note
    )
    _assert_exact_rows(job)
