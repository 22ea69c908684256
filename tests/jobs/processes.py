"""Real processes for the job kernel's recovery tests: a private Redis, workers with beat, and
a database row lock that holds a chunk inside its write."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import psycopg2

from tests.conftest import ROOT, _test_database_url


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """A redis-server of the test's own on ``port``, without persistence (a restart loses
    every message, as a Redis without RDB/AOF does)."""

    def __init__(self, tmp_path: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.dir = tmp_path
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(self.dir)]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)  # noqa: S603
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not listen on {self.port}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def worker_env(redis: PrivateRedis, queue: str, **settings) -> dict:
    """The environment of a worker on ``redis`` and ``queue`` against the test database."""
    env = {
        **os.environ,
        "CELERY_BROKER_URL": redis.url,
        "CELERY_RESULT_BACKEND": redis.url,
        "CELERY_QUEUE": queue,
        "DATABASE_URL": _test_database_url(),
    }
    env.update({name: str(value) for name, value in settings.items()})
    return env


def start_worker_with_beat(env: dict, log: Path) -> subprocess.Popen:
    """A worker (solo pool) with beat (``-B``: the job watchdog) in a session of its own, so
    :func:`kill_group` kills its beat too. Waits until the worker says it is ready."""
    name = f"{env['CELERY_QUEUE']}-{uuid.uuid4().hex[:4]}"
    argv = ["python", "-m", "celery", "-A", "config", "worker", "--loglevel=INFO"]
    argv += ["--pool=solo", "--without-mingle", "--without-gossip", "-Q", env["CELERY_QUEUE"]]
    argv += ["--hostname", f"{name}@%h", "-B", "-s", str(log.with_suffix(".beat"))]
    argv[0] = os.environ.get("PYTHON", str(ROOT / ".venv" / "bin" / "python"))
    handle = open(log, "ab")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(  # noqa: S603 - fixed argv
        argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while b" ready." not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"worker not ready; see {log}")
        time.sleep(0.1)
    return process


def kill_group(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to the process and its children (its beat), then reap it."""
    if process.poll() is None:
        os.killpg(process.pid, sig)
    process.wait(timeout=30)


@contextmanager
def job_row_held(job):
    """Hold the job's row ``FOR UPDATE`` from a connection of our own: a chunk that finishes
    waits inside its write transaction (marking itself done updates the job's counters)."""
    conn = psycopg2.connect(_test_database_url())
    try:
        with conn.cursor() as cursor:
            table = job._meta.db_table
            cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE", [job.pk])  # noqa: S608
        yield conn
    finally:
        conn.rollback()
        conn.close()


def blocked_by(pid: int) -> int:
    """How many database sessions wait for a lock that the session ``pid`` holds.

    Only that session's waiters count: pg_locks spans the whole server, where other test runs
    (other databases, other xdist workers) wait for locks of their own. Asked on a connection
    of its own, in autocommit (a transaction would see one snapshot of the activity).
    """
    conn = psycopg2.connect(_test_database_url())
    conn.autocommit = True
    try:
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks"
                " WHERE NOT granted AND %s = ANY(pg_blocking_pids(pid))",
                [pid],
            )
            return cursor.fetchone()[0]
    finally:
        conn.close()


def wait_for_a_blocked_chunk(job, holder, timeout: float = 60.0) -> int:
    """Wait until a started, unfinished chunk's worker waits for ``holder``'s lock on the job's
    row (inside the chunk's write); return the chunk's index.

    Args:
        job: the job whose row ``holder`` holds (:func:`job_row_held`).
        holder: the connection :func:`job_row_held` yields.
        timeout: seconds to wait.

    Returns:
        The index of the chunk started last and not done (the one waiting).
    """
    chunks = job.chunks.filter(started_at__isnull=False, done_at__isnull=True)
    pid = holder.get_backend_pid()
    deadline, waited = time.monotonic() + timeout, False
    while time.monotonic() < deadline:
        if blocked_by(pid):
            waited = True
            started = list(chunks.order_by("-started_at").values_list("index", flat=True))
            if started:
                return started[0]
        time.sleep(0.05)
    if waited:  # the chunk's own row says done while its job's counter is not written yet
        raise AssertionError("a worker waited for the job's row, but no unfinished chunk did")
    raise AssertionError("no chunk waited inside its write")


def kill_inside_a_chunk(job, kill, *, done_first: int = 0, timeout: float = 120.0) -> int:
    """Kill a worker while it is inside a chunk's write, whatever the machine's load.

    Waits (progress, not time) until ``done_first`` chunks are done, holds the job's row so
    the next chunk to finish waits inside its write transaction, calls ``kill`` once that
    chunk's worker waits, and lets the row go: the chunk's transaction never commits.

    Args:
        job: the job (its ``chunks`` started by the worker ``kill`` kills).
        kill: kills the worker (SIGKILL) and reaps it.
        done_first: chunks that must be done first.
        timeout: seconds to wait for each step.

    Returns:
        The index of the chunk the worker was inside.
    """
    deadline = time.monotonic() + timeout
    job.refresh_from_db()
    while job.chunks_done < done_first:
        if time.monotonic() > deadline:
            raise AssertionError(f"only {job.chunks_done} of {done_first} chunks were done")
        time.sleep(0.05)
        job.refresh_from_db()
    with job_row_held(job) as holder:
        caught = wait_for_a_blocked_chunk(job, holder, timeout=timeout)
        kill()
    return caught


def wait_finished(job, timeout: float):
    """Wait until the job is finished; return it (AssertionError with its state if not)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.finished:
            return job
        time.sleep(0.25)
    raise AssertionError(
        f"job {job.pk} still {job.status} after {timeout} s: {job.chunks_done}/{job.chunks_total}"
        f", recoveries {job.recoveries} ({job.recovery_note})"
    )


def sigkill(process: subprocess.Popen) -> None:
    """SIGKILL a worker started by ``worker_factory`` (solo pool: one process) and reap it."""
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
