"""Benchmark: loading the FAM workspace (task, suggestions, page) from gunicorn on PostgreSQL.

What one workspace load needs: ``GET /api/tasks/<id>/`` (document, facets, FAM, next task) and
``GET /api/tasks/<id>/suggestions/`` (precomputed top-k per scorer), plus the page shell
``/tasks/<id>/`` when it exists (session login). The task is a synthetic 60-sentence document
with a 4-sentence reference in a campaign with scorers ``rougeavg-f`` and ``tfidf`` and
top_k 3, its suggestions computed with ``suggestions_compute_documents``.

Reference, measured in the same run and interleaved with the loads: ``GET /api/me/`` on the
same server, the smallest authenticated endpoint (token lookup and roles), so the ratio is the
workspace's cost over the framework's floor. A second annotator holds the same document at the
head of a 150-task queue (the FAR release's size), to show how ``GET /api/tasks/<id>/`` grows
with the queue.

Times are measured twice: by the client on loopback (``time.perf_counter`` around connect,
request and reading the whole response), and by gunicorn itself (its access log's ``%(D)s``,
from the parsed request to the last byte written, so without the listen-queue wait). The app is
not changed. A fresh database ``loupe_bench_<pid>`` is created on PostgreSQL at 127.0.0.1:5432
(user postgres) and dropped at the end, also on failure. Run from the repository root:

    .venv/bin/python bench/bench_workspace.py            # about 1 min
    .venv/bin/python bench/bench_workspace.py --loads 50 # smoke test

This module also holds the live-server harness that ``bench_save_api.py`` imports.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path

from _common import ROOT  # puts the repository on sys.path

SEED = 20261121
N_SENTENCES = 60
N_FACETS = 4
SCORERS = ["rougeavg-f", "tfidf"]
TOP_K = 3
QUEUE = 150  # the long-queue annotator's tasks: the FAR release's 150 documents
GOAL_P95_MS = 100.0
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}

# --------------------------------------------------------------------------------------------
# Harness shared with bench_save_api.py: database, environment, loader subprocess, gunicorn,
# HTTP client, percentiles, synthetic text.
# --------------------------------------------------------------------------------------------


def bench_env(database_url: str, var_dir: Path) -> dict[str, str]:
    """The environment of ``manage.py``, the loader and gunicorn: production settings on HTTP.

    Args:
        database_url: the benchmark database.
        var_dir: a temporary ``LOUPE_VAR_DIR`` (embedded broker folders, static files).

    Returns:
        A copy of ``os.environ`` with Loupe's settings replaced.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND", "STATIC_ROOT"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url,
        LOUPE_VAR_DIR=str(var_dir),
        DEBUG="0",
        SECRET_KEY="bench-" + "k" * 50,
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
    )
    return env


@contextlib.contextmanager
def bench_database(prefix: str = "loupe_bench") -> Iterator[str]:
    """Create a fresh PostgreSQL database and drop it afterwards, also on failure.

    Args:
        prefix: the database name is ``<prefix>_<pid>``.

    Yields:
        Its ``DATABASE_URL``.
    """
    import psycopg2

    name = f"{prefix}_{os.getpid()}"

    def admin(sql: str) -> None:
        connection = psycopg2.connect(dbname="postgres", **PG)
        try:
            connection.autocommit = True
            with connection.cursor() as cursor:
                cursor.execute(sql)
        finally:
            connection.close()

    admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgres://{PG['user']}@{PG['host']}:{PG['port']}/{name}"
    finally:
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"dropped database {name}")


def postgres_missing(script: str) -> bool:
    """Print that ``script`` is skipped when PostgreSQL does not answer at ``PG``.

    Args:
        script: the benchmark's name, for the message.

    Returns:
        True (after printing the message) when no connection can be made, else False.
    """
    import psycopg2

    try:
        psycopg2.connect(dbname="postgres", connect_timeout=5, **PG).close()
    except psycopg2.OperationalError as error:
        print(
            f"{script}: skipped, PostgreSQL does not answer at {PG['host']}:{PG['port']} "
            f"(user {PG['user']}): {str(error).strip()}"
        )
        return True
    return False


def sigterm_as_exit() -> None:
    """Turn SIGTERM into SystemExit so that the clean-up in ``finally`` blocks runs."""

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """Run ``manage.py`` with ``env``; raise with its output if it fails.

    Args:
        env: the environment from :func:`bench_env`.
        *args: the command and its arguments.

    Returns:
        The completed process.
    """
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def run_loader(env: dict[str, str], script: Path, *args: str) -> dict:
    """Run ``script --load ...`` (Django set up in a child process); return its JSON answer.

    Args:
        env: the environment from :func:`bench_env`.
        script: the benchmark script, which handles ``--load``.
        *args: more arguments for the loader.

    Returns:
        The JSON object printed on the child's last line of output.
    """
    done = subprocess.run(
        [sys.executable, str(script), "--load", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,  # stderr passes through (warnings, --show-queries)
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"loading the data failed (exit {done.returncode}):\n{done.stdout}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Gunicorn:
    """A gunicorn serving ``config.wsgi`` on loopback, with an access log of server times."""

    env: dict[str, str]
    log_dir: Path
    workers: int = 2
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def access_log(self) -> Path:
        return self.log_dir / "access.log"

    @property
    def error_log(self) -> Path:
        return self.log_dir / "error.log"

    def __enter__(self) -> Gunicorn:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "-b",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(self.workers),
                "--access-logfile",
                str(self.access_log),
                # method, path, status, request time in microseconds
                "--access-logformat",
                "%(m)s %(U)s %(s)s %(D)s",
                "--error-logfile",
                str(self.error_log),
            ],
            env=self.env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.error_tail()}")
            try:
                if request(self.port, "GET", "/api/me/").status == 401:
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"gunicorn did not answer within 60 s:\n{self.error_tail()}")
            time.sleep(0.2)

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: graceful stop of the arbiter and its workers
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def error_tail(self, lines: int = 30) -> str:
        if not self.error_log.exists():
            return "(no error log)"
        return "\n".join(self.error_log.read_text(errors="replace").splitlines()[-lines:])

    def log_offset(self) -> int:
        """The access log's current size: pass it to :meth:`server_times` to read what follows."""
        return self.access_log.stat().st_size if self.access_log.exists() else 0

    def server_times(self, offset: int, settle: float = 0.3) -> list[tuple[str, str, int, float]]:
        """The access-log entries written after ``offset``.

        Args:
            offset: a value of :meth:`log_offset`.
            settle: seconds to wait first (gunicorn logs just after sending the response).

        Returns:
            ``(method, path, status, milliseconds)`` per request, in log order.
        """
        time.sleep(settle)
        with self.access_log.open("rb") as log:
            log.seek(offset)
            text = log.read().decode(errors="replace")
        entries = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2].isdigit() and parts[3].isdigit():
                entries.append((parts[0], parts[1], int(parts[2]), int(parts[3]) / 1000))
        return entries


@dataclass
class Reply:
    """One HTTP exchange as the client saw it."""

    status: int
    body: bytes
    seconds: float
    cookies: dict[str, str]

    def json(self):
        return json.loads(self.body)


def request(
    port: int,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    timeout: float = 30,
) -> Reply:
    """Send one request on a new loopback connection and read the whole response.

    gunicorn's sync workers close every connection after the response, so a new connection
    per request is what any client gets; the time includes the connect.

    Args:
        port: the server's port on 127.0.0.1.
        method: HTTP method.
        path: path and query.
        headers: extra headers.
        body: request body.
        timeout: socket timeout in seconds.

    Returns:
        The :class:`Reply` (status, body, client-side seconds, cookies set).
    """
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        seconds = time.perf_counter() - start
        jar = SimpleCookie()
        for value in response.headers.get_all("Set-Cookie") or []:
            jar.load(value)
        return Reply(response.status, data, seconds, {k: m.value for k, m in jar.items()})
    finally:
        connection.close()


def token_headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}", "Accept": "application/json"}


def obtain_token(port: int, username: str, password: str) -> str:
    """``POST /api/auth/token/`` and return the token."""
    body = json.dumps({"username": username, "password": password}).encode()
    reply = request(
        port,
        "POST",
        "/api/auth/token/",
        headers={"Content-Type": "application/json"},
        body=body,
    )
    if reply.status != 200:
        raise RuntimeError(f"token for {username}: HTTP {reply.status} {reply.body[:200]!r}")
    return reply.json()["token"]


def session_login(port: int, username: str, password: str) -> str:
    """Log in through ``/login/`` (CSRF token from the form) and return the session cookie."""
    page = request(port, "GET", "/login/")
    match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
    if page.status != 200 or match is None or "csrftoken" not in page.cookies:
        raise RuntimeError(f"login page: HTTP {page.status}, no CSRF token")
    form = (
        f"csrfmiddlewaretoken={match.group(1).decode()}&username={username}&password={password}"
    ).encode()
    reply = request(
        port,
        "POST",
        "/login/",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={page.cookies['csrftoken']}",
        },
        body=form,
    )
    if reply.status != 302 or "sessionid" not in reply.cookies:
        raise RuntimeError(f"login: HTTP {reply.status} {reply.body[:200]!r}")
    return reply.cookies["sessionid"]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0-100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def summary(values: list[float]) -> dict[str, float]:
    """p50, p95, p99 and max of a list of milliseconds (NaN when empty)."""
    if not values:
        return dict.fromkeys(("p50", "p95", "p99", "max"), math.nan)
    return {
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values),
    }


def machine() -> str:
    """One line: CPU count and model, Python, PostgreSQL server version."""
    model = platform.processor() or ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    import psycopg2

    connection = psycopg2.connect(dbname="postgres", **PG)
    try:
        pg_version = connection.server_version
    finally:
        connection.close()
    pg = f"{pg_version // 10000}.{pg_version % 100}"
    return f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, PostgreSQL {pg}"


def revision() -> str:
    """The checkout's commit, and which server-side folders have local changes (read-only git)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "annotation", "config"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "commit unknown"
    return f"commit {head}" + (
        f" with {len(changed)} changed files in annotation/ and config/" if changed else ""
    )


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages (other work on the machine skews the figures)."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def synthetic_document(rng: random.Random, n_sentences: int, n_facets: int) -> dict:
    """A news-shaped document and a reference whose facets copy spans of its sentences.

    Words come from a Zipf-weighted vocabulary of pseudo-words; each document sentence has
    12-28 words; each facet copies 8-12 consecutive words of one of the first 20 sentences
    (the lead bias of news) and adds 3-6 words of its own, so the suggestions have something
    to find.

    Args:
        rng: the seeded random generator.
        n_sentences: document sentences.
        n_facets: reference sentences.

    Returns:
        ``{"sentences": [...], "reference": [...]}``.
    """
    syllables = ["ka", "lo", "mi", "ren", "sa", "tu", "vel", "dor", "ni", "pra", "ste", "qua"]
    vocabulary = sorted(
        {"".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(2500)}
    )
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]

    def words(n: int) -> list[str]:
        return rng.choices(vocabulary, weights=weights, k=n)

    def sentence(tokens: list[str]) -> str:
        return " ".join(tokens).capitalize() + "."

    body = [words(rng.randint(12, 28)) for _ in range(n_sentences)]
    sources = rng.sample(range(min(20, n_sentences)), n_facets)
    reference = []
    for source in sources:
        span = rng.randint(8, 12)
        start = rng.randint(0, max(0, len(body[source]) - span))
        reference.append(sentence(body[source][start : start + span] + words(rng.randint(3, 6))))
    return {"sentences": [sentence(s) for s in body], "reference": reference}


def write_jsonl(path: Path, documents: list[dict]) -> None:
    """Write documents in Loupe's dataset JSONL format (``id``, ``sentences``, ``references``)."""
    with path.open("w", encoding="utf-8") as out:
        for position, document in enumerate(documents):
            record = {
                "id": f"doc-{position:03d}",
                "sentences": document["sentences"],
                "references": [document["reference"]],
            }
            out.write(json.dumps(record) + "\n")


def django_setup() -> None:
    """Set Django up in this (loader) process, from the environment."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def count_queries(calls: dict[str, tuple], *, show: bool) -> dict[str, int]:
    """Count the SQL queries of some requests with Django's test client, in-process.

    Args:
        calls: ``label -> (method, path, extra)`` where ``extra`` holds headers (``HTTP_*``)
            and, for writes, ``data`` and ``content_type``.
        show: print each query (trimmed) to stderr.

    Returns:
        ``label -> number of queries``.
    """
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    counts = {}
    for label, (method, path, extra) in calls.items():
        extra = dict(extra)
        session = extra.pop("session_user", None)
        if session is not None:
            client.force_login(session)
        with CaptureQueriesContext(connection) as captured:
            response = getattr(client, method.lower())(path, **extra)
        if response.status_code != 200:
            raise RuntimeError(f"{label}: HTTP {response.status_code} {response.content[:200]!r}")
        counts[label] = len(captured.captured_queries)
        if show:  # identical statements (up to their WHERE) are collapsed with a count
            print(f"--- {label}: {counts[label]} queries", file=sys.stderr)
            seen: dict[str, int] = {}
            for query in captured.captured_queries:
                sql = query["sql"]
                head, _, where = sql.partition(" WHERE ")
                key = re.sub(r'SELECT .*? FROM ("[a-z_]+")', r"SELECT ... FROM \1", head)
                key = (key + (" WHERE " + where[:60] if where else ""))[:200]
                seen[key] = seen.get(key, 0) + 1
            for key, n in seen.items():
                print(f"   {n:>4} x {key}", file=sys.stderr)
    return counts


# --------------------------------------------------------------------------------------------
# This benchmark.
# --------------------------------------------------------------------------------------------

PASSWORD = "bench-password-123"  # noqa: S105 (a throwaway database)


def load(jsonl: Path, queue: int, show_queries: bool) -> dict:
    """Loader (child process): import the documents, users, campaign, tasks and suggestions.

    Args:
        jsonl: the dataset file (document ``doc-000`` is the measured one).
        queue: how many tasks the long-queue annotator holds (``doc-000`` first).
        show_queries: print the SQL of each measured request.

    Returns:
        Task ids, usernames and the query count of each measured request.
    """
    django_setup()
    from rest_framework.authtoken.models import Token

    from annotation.accounts.roles import ANNOTATOR
    from annotation.accounts.services import user_create
    from annotation.campaigns import services
    from annotation.campaigns.models import Task
    from annotation.corpus.models import Dataset
    from annotation.corpus.services import dataset_import

    dataset_import(format_name="jsonl", source=jsonl, slug="bench", name="Bench")
    dataset = Dataset.objects.get(slug="bench")
    single = user_create(username="ann", password=PASSWORD, role=ANNOTATOR)
    queued = user_create(username="ann-queue", password=PASSWORD, role=ANNOTATOR)
    campaign = services.campaign_create(
        dataset=dataset,
        slug="bench",
        name="Workspace benchmark",
        scorers=SCORERS,
        top_k=TOP_K,
        annotators_per_document=2,
    )
    ids = [f"doc-{i:03d}" for i in range(queue)]
    services.tasks_assign_manual(
        campaign=campaign,
        assignments=[("doc-000", "ann")] + [(doc, "ann-queue") for doc in ids],
    )
    first = dataset.documents.get(external_id="doc-000")
    written = services.suggestions_compute_documents(campaign=campaign, document_ids=[first.pk])
    task = Task.objects.get(campaign=campaign, document=first, annotator=single)
    queue_task = Task.objects.get(campaign=campaign, document=first, annotator=queued)
    token = Token.objects.create(user=single).key  # for the query count only
    queue_token = Token.objects.create(user=queued).key
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    queue_auth = {"HTTP_AUTHORIZATION": f"Token {queue_token}"}
    calls = {
        "detail": ("GET", f"/api/tasks/{task.pk}/", auth),
        "suggestions": ("GET", f"/api/tasks/{task.pk}/suggestions/", auth),
        "me": ("GET", "/api/me/", auth),
        "detail-queue": ("GET", f"/api/tasks/{queue_task.pk}/", queue_auth),
        "tasks-list-queue": ("GET", "/api/tasks/", queue_auth),
    }
    queries = count_queries(calls, show=show_queries)
    try:
        queries["page"] = count_queries(
            {"page": ("GET", f"/tasks/{task.pk}/", {"session_user": single})}, show=show_queries
        )["page"]
    except Exception as error:  # the page shell may not exist yet, or its static files may fail
        queries["page"] = None
        print(f"page shell not countable: {error}", file=sys.stderr)
    Token.objects.filter(key__in=[token, queue_token]).delete()  # the bench obtains its own
    return {
        "task": task.pk,
        "queue_task": queue_task.pk,
        "queue_length": Task.objects.filter(annotator=queued).count(),
        "suggestion_sets": written,
        "queries": queries,
    }


def measure(server: Gunicorn, plan: dict[str, tuple], loads: int, warmup: int) -> dict:
    """Sequential loads: each round sends every request of ``plan`` once, in order.

    Args:
        server: the running gunicorn.
        plan: ``label -> (path, headers)``.
        loads: timed rounds.
        warmup: untimed rounds first.

    Returns:
        ``label -> {"client": [ms], "server": [ms], "errors": n, "bytes": size}``.
    """
    for _ in range(warmup):
        for path, headers in plan.values():
            request(server.port, "GET", path, headers=headers)
    time.sleep(0.3)  # gunicorn logs each request just after answering it
    offset = server.log_offset()
    results = {label: {"client": [], "server": [], "errors": 0, "bytes": 0} for label in plan}
    for _ in range(loads):
        for label, (path, headers) in plan.items():
            reply = request(server.port, "GET", path, headers=headers)
            result = results[label]
            result["client"].append(reply.seconds * 1000)
            result["bytes"] = len(reply.body)
            result["errors"] += reply.status != 200
    by_path = {path: label for label, (path, _headers) in plan.items()}  # paths are distinct
    for method, path, _status, ms in server.server_times(offset):
        if method == "GET" and path in by_path:
            results[by_path[path]]["server"].append(ms)
    for label, result in results.items():
        if len(result["server"]) != loads:
            print(f"warning: {len(result['server'])} access-log lines for {loads} x {label}")
    return results


def fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1f}"


def report(results: dict, queries: dict, loads: int) -> None:
    """Print the per-endpoint table, the whole load, the ratios and the goal."""
    me = {side: summary(results["me"][side]) for side in ("client", "server")}
    print(
        f"\n{'endpoint':28} {'n':>4} {'bytes':>7} {'SQL':>4} | client ms p50 / p95 / p99"
        f"  | server ms p50 / p95 / p99  | x /api/me/ p50 / p95 (client) | errors"
    )
    for label, result in results.items():
        c, s = summary(result["client"]), summary(result["server"])
        q = queries.get(label)
        print(
            f"{label:28} {len(result['client']):>4} {result['bytes']:>7} "
            f"{'?' if q is None else q:>4} | {fmt(c['p50']):>6} / {fmt(c['p95']):>6} / "
            f"{fmt(c['p99']):>6} | {fmt(s['p50']):>6} / {fmt(s['p95']):>6} / {fmt(s['p99']):>6} | "
            f"{c['p50'] / me['client']['p50']:>5.2f} / {c['p95'] / me['client']['p95']:>5.2f}"
            f"{'':17}| {result['errors']}"
        )
    parts = [label for label in ("page", "detail", "suggestions") if label in results]
    for side in ("client", "server"):
        if any(len(results[p][side]) != loads for p in parts):
            print(f"whole load ({side}): not every request has a {side} time; skipped")
            continue
        totals = [sum(values) for values in zip(*(results[p][side] for p in parts), strict=True)]
        t = summary(totals)
        print(
            f"whole load, {' + '.join(parts)} in sequence ({side}): p50 {fmt(t['p50'])} ms, "
            f"p95 {fmt(t['p95'])} ms, p99 {fmt(t['p99'])} ms "
            f"({t['p95'] / (len(parts) * me[side]['p95']):.2f}x {len(parts)} x /api/me/ p95)"
        )
    worst = max(summary(results[p]["client"])["p95"] for p in parts)
    totals = [sum(v) for v in zip(*(results[p]["client"] for p in parts), strict=True)]
    whole = summary(totals)["p95"]
    print(
        f"goal p95 < {GOAL_P95_MS:.0f} ms: worst endpoint p95 {worst:.1f} ms "
        f"({'met' if worst < GOAL_P95_MS else 'NOT met'}); whole load p95 {whole:.1f} ms "
        f"({'met' if whole < GOAL_P95_MS else 'NOT met'}) (client side, loopback)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=300, help="timed workspace loads")
    parser.add_argument("--warmup", type=int, default=20, help="untimed loads first")
    parser.add_argument("--queue", type=int, default=QUEUE, help="long-queue annotator's tasks")
    parser.add_argument("--show-queries", action="store_true", help="print each request's SQL")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--jsonl", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:  # child process: Django set up here only
        print(json.dumps(load(args.jsonl, args.queue, args.show_queries)))
        return 0

    if postgres_missing("bench_workspace"):
        return 0
    sigterm_as_exit()
    print(f"machine: {machine()}; {revision()}; load average {load_average()}")
    rng = random.Random(SEED)
    documents = [synthetic_document(rng, N_SENTENCES, N_FACETS) for _ in range(args.queue)]
    with tempfile.TemporaryDirectory(prefix="loupe-bench-") as tmp, bench_database() as url:
        tmp = Path(tmp)
        env = bench_env(url, tmp / "var")
        start = time.perf_counter()
        manage(env, "migrate", "--noinput")
        static_ok = True
        try:
            manage(env, "collectstatic", "--noinput")
        except RuntimeError as error:
            static_ok = False
            print(f"collectstatic failed, the page shell will not be measured:\n{error}")
        write_jsonl(tmp / "bench.jsonl", documents)
        loaded = run_loader(
            env,
            Path(__file__),
            "--jsonl",
            str(tmp / "bench.jsonl"),
            "--queue",
            str(args.queue),
            *(["--show-queries"] if args.show_queries else []),
        )
        print(
            f"set-up {time.perf_counter() - start:.1f} s: task {loaded['task']} "
            f"({N_SENTENCES} sentences, {N_FACETS} facets, {loaded['suggestion_sets']} suggestion "
            f"sets, scorers {SCORERS}, top_k {TOP_K}); the long-queue annotator holds "
            f"{loaded['queue_length']} tasks"
        )
        with Gunicorn(env, tmp) as server:
            token = obtain_token(server.port, "ann", PASSWORD)
            queue_token = obtain_token(server.port, "ann-queue", PASSWORD)
            task, queue_task = loaded["task"], loaded["queue_task"]
            plan: dict[str, tuple] = {}
            if static_ok:
                session = session_login(server.port, "ann", PASSWORD)
                page = request(
                    server.port,
                    "GET",
                    f"/tasks/{task}/",
                    headers={"Cookie": f"sessionid={session}"},
                )
                if page.status == 200:
                    plan["page"] = (f"/tasks/{task}/", {"Cookie": f"sessionid={session}"})
                else:
                    print(f"page shell /tasks/{task}/: HTTP {page.status}; not measured")
            plan["detail"] = (f"/api/tasks/{task}/", token_headers(token))
            plan["suggestions"] = (f"/api/tasks/{task}/suggestions/", token_headers(token))
            plan["me"] = ("/api/me/", token_headers(token))
            queue_label = f"detail, {loaded['queue_length']}-task queue"
            plan[queue_label] = (f"/api/tasks/{queue_task}/", token_headers(queue_token))
            list_label = f"My tasks, {loaded['queue_length']}-task queue"
            plan[list_label] = ("/api/tasks/", token_headers(queue_token))
            path, headers = plan["suggestions"]
            body = request(server.port, "GET", path, headers=headers).json()
            print(
                f"suggestions: status {body['status']}, scorers {sorted(body['scorers'])}, "
                f"{sum(len(f) for s in body['scorers'].values() for f in s['facets'])} entries"
            )
            print(f"gunicorn on 127.0.0.1:{server.port}, 2 sync workers; {args.loads} loads")
            started = time.perf_counter()
            results = measure(server, plan, args.loads, args.warmup)
            elapsed = time.perf_counter() - started
        queries = dict(loaded["queries"])
        queries[queue_label] = queries.pop("detail-queue")
        queries[list_label] = queries.pop("tasks-list-queue")
        report(results, queries, args.loads)
        print(f"timed part {elapsed:.1f} s; load average {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
