"""Benchmark: an upload scored end to end with 1 and 2 Celery workers; leaderboard latency."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlparse

from _client import obtain_token, request, token_headers
from _common import ROOT
from _server import (
    Gunicorn,
    bench_start,
    bench_workdir,
    manage,
    run_loader,
)
from _stats import load_average, summary

SEED = 20261122
DOCUMENTS = 11_490  # the CNN/DM test split
LB_DOCUMENTS = 1_000
LB_SYSTEMS = 50
REQUESTS = 200
SLUG, LB_SLUG = "cnndm-bench", "leaderboard-bench"
SYSTEM = "synthetic-ext"
QUALITY = 0.4  # the uploaded system's share of picks from the support (see _cnndm.py)
RESEARCHER = "bench-researcher"
PASSWORD = "bench-password-123"  # noqa: S105 (a throwaway database)
POLL = 0.1  # seconds between two reads of the job
GOAL_SECONDS = 60.0
JOB_TIMEOUT = 900.0
LEADERBOARD = "/api/datasets/{slug}/leaderboard/"
# A worker as tests/conftest.py starts one: one process, one task at a time.
WORKER = "-m celery -A config worker --pool=solo --loglevel=INFO --without-mingle --without-gossip"
# Celery's worker log: "[2026-11-21 10:55:01,123: INFO/MainProcess] Task <name>[<id>] ...".
TASK_DONE = re.compile(
    r"\[([\d-]+ [\d:]+,\d+): \w+/[\w-]+\] Task ([\w.]+)\[([^\]]+)\] "
    r"(?:succeeded in ([0-9.]+)s|raised|retry)"
)
TASK_RECEIVED = re.compile(r"Task [\w.]+\[([^\]]+)\] received")
# What the workers run, in order; other tasks (e.g. a leaderboard warm-up) are listed after.
TASK_LABELS = {
    "loupe.scores.job_run": "plan and dispatch",
    "loupe.scores.chunk_run": "chunk",
    "loupe.scores.job_done": "callback",
}
GUNICORN_TIMEOUT = 30  # gunicorn's default worker timeout, which the Dockerfile keeps
# Functions whose cumulative time --profile prints on one line: label -> (file, function).
PROFILE_PHASES = {
    "parse": ("outputs_jsonl.py", "parse_outputs_jsonl"),
    "validate_bundle": ("validators.py", "validate_bundle"),
    "write_bundle": ("writer.py", "write_bundle"),
    "of which full_clean": ("writer.py", "_clean_all"),
    "of which ForeignKey.validate": ("related.py", "validate"),
    "bulk_create": ("query.py", "bulk_create"),
    "score upsert": ("store.py", "document_scores_upsert"),
    "ROUGE of the chunk (outputs_rouge)": ("documents.py", "outputs_rouge"),
    "score_output": ("documents.py", "score_output"),
    "FAMs (_fams)": ("", "_fams"),
    "prefetch references": ("query.py", "prefetch_related_objects"),
}


# --- loader (child process, Django set up) ------------------------------------------------------


def import_dataset(documents: list[dict], slug: str, name: str) -> None:
    """Write the documents, their references and released FAMs through ``bundle_import``."""
    from annotation.corpus.services import bundle_import
    from annotation.imports.bundle import (
        AnnotationSetRecord,
        DatasetRecord,
        DocumentRecord,
        FacetRecord,
        FamRecord,
        ImportBundle,
        ReferenceRecord,
    )

    bundle = ImportBundle(
        dataset=DatasetRecord(slug=slug, name=name, source="bench_scoring.py (synthetic)"),
        documents=[
            DocumentRecord(
                external_id=d["id"],
                sentences=tuple(d["sentences"]),
                references=(ReferenceRecord(sentences=tuple(d["reference"])),),
                category=d["category"],
            )
            for d in documents
        ],
        annotation_sets=[
            AnnotationSetRecord(
                slug="released",
                name="Synthetic released FAMs",
                fams=tuple(
                    FamRecord(
                        document_id=d["id"],
                        facets=tuple(
                            FacetRecord(groups=tuple(map(tuple, f["groups"])), label=f["label"])
                            for f in d["facets"]
                        ),
                    )
                    for d in documents
                ),
            )
        ],
    )
    bundle_import(bundle=bundle, slug=slug)


def add_systems(documents: list[dict], slug: str, count: int) -> None:
    """``count`` extractive systems with one output per document, written with COPY."""
    from _cnndm import extractive_outputs

    from annotation.corpus.models import Dataset
    from annotation.imports.copy import rows_copy
    from annotation.systems.models import OutputVersion, System, SystemOutput

    dataset = Dataset.objects.get(slug=slug)
    ids = dict(dataset.documents.values_list("external_id", "id"))
    sentences = {d["id"]: d["sentences"] for d in documents}
    for number in range(count):
        quality = 0.05 + 0.6 * number / max(1, count - 1)
        system = System.objects.create(
            slug=f"system-{number:02d}", name=f"System {number:02d}", kind="extractive"
        )
        version = OutputVersion.objects.create(
            system=system, dataset=dataset, number=1, source="bench_scoring.py (synthetic)"
        )
        rows_copy(
            [
                SystemOutput(
                    system=system,
                    version=version,
                    document_id=ids[o["doc_id"]],
                    sentences=[sentences[o["doc_id"]][i] for i in o["extracted"]],
                    extracted=o["extracted"],
                    extraction_method="given",
                    match_confidence=[1.0] * len(o["extracted"]),
                )
                for o in extractive_outputs(documents, quality, SEED + 100 + number)
            ],
            batch_size=2000,
        )


class _Rollback(Exception):
    pass


def profile(folder: Path, top: int) -> None:
    """Profile the upload service and two chunks in-process; print to stderr; write nothing.

    Runs ``system_outputs_upload`` on the upload file, ``scoring_job_plan``, and
    ``scoring_chunk_compute`` on the first chunk (cold: imports, empty stem cache) and the
    second (warm), each under cProfile with its SQL statements counted, inside a transaction
    that is rolled back (no job reaches the broker).
    """
    import cProfile
    import io
    import pstats

    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from annotation.corpus.models import Dataset
    from scoring.scores.models import ScoringJob
    from scoring.scores.services import scoring_chunk_compute, scoring_job_plan
    from scoring.uploads.services import system_outputs_upload, system_record_for_upload

    def run(label: str, call):
        statements: Counter = Counter()

        def count(execute, sql, params, many, context):
            statements[sql.split(" ", 1)[0]] += 1
            return execute(sql, params, many, context)

        profiler = cProfile.Profile()
        with connection.execute_wrapper(count):
            start = time.perf_counter()
            result = profiler.runcall(call)
            seconds = time.perf_counter() - start
        stats = pstats.Stats(profiler, stream=io.StringIO())
        phases = {
            label: sum(
                v[3]
                for (path, _, function), v in stats.stats.items()
                if function == name and path.endswith(file)
            )
            for label, (file, name) in PROFILE_PHASES.items()
        }
        print(
            f"\n=== {label}: {seconds:.2f} s under cProfile, {statements.total():,} SQL statements "
            f"({', '.join(f'{k} {n:,}' for k, n in statements.most_common())})\n    "
            + ", ".join(f"{name} {t:.2f} s" for name, t in phases.items() if t),
            file=sys.stderr,
        )
        out = io.StringIO()
        stats.stream = out
        stats.sort_stats("cumulative").print_stats(top)
        lines = out.getvalue().splitlines()
        first = next(i for i, line in enumerate(lines) if "ncalls" in line)
        print("\n".join(line for line in lines[first:] if line.strip()), file=sys.stderr)
        return result

    dataset = Dataset.objects.get(slug=SLUG)
    user = get_user_model().objects.get(username=RESEARCHER)
    try:
        with transaction.atomic():
            system = system_record_for_upload(slug="profile-ext", kind="extractive")
            with (folder / "outputs.jsonl").open("rb") as source:
                upload = run(
                    "system_outputs_upload (the POST's service)",
                    lambda: system_outputs_upload(
                        dataset=dataset,
                        system=system,
                        source=source,
                        filename="outputs.jsonl",
                        user=user,
                    ),
                )
            job = ScoringJob.objects.get(pk=upload.job_id)
            chunks = run("scoring_job_plan", lambda: scoring_job_plan(job=job))
            for chunk, when in zip(chunks[:2], ("first, cold", "second, warm"), strict=False):
                run(
                    f"scoring_chunk_compute, {when} chunk of {len(chunk.output_ids)} outputs",
                    lambda chunk=chunk: scoring_chunk_compute(chunk=chunk),
                )
            raise _Rollback
    except _Rollback:
        pass


def load(folder: Path, documents: int, lb_documents: int, lb_systems: int, top: int) -> dict:
    """Loader: both datasets, the 50 systems, a researcher, and the upload file in ``folder``.

    With ``top`` > 0, :func:`profile` runs afterwards and prints that many entries per profile.

    Returns:
        Counts and set-up times, for the report.
    """
    from _cnndm import cnndm_documents, extractive_outputs
    from _data import django_setup

    django_setup()
    from annotation.accounts.roles import RESEARCHER as ROLE
    from annotation.accounts.services import user_create

    times = {}
    start = time.perf_counter()
    corpus = cnndm_documents(documents, SEED)
    outputs = extractive_outputs(corpus, QUALITY, SEED + 1)
    with (folder / "outputs.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(o) + "\n" for o in outputs)
    lb_corpus = cnndm_documents(lb_documents, SEED + 2)
    times["generate"] = time.perf_counter() - start
    start = time.perf_counter()
    import_dataset(corpus, SLUG, "Synthetic CNN/DM")
    times["import"] = time.perf_counter() - start
    start = time.perf_counter()
    import_dataset(lb_corpus, LB_SLUG, "Synthetic CNN/DM, 50 systems")
    add_systems(lb_corpus, LB_SLUG, lb_systems)
    times["lb_import"] = time.perf_counter() - start
    user_create(username=RESEARCHER, password=PASSWORD, role=ROLE)
    if top:
        profile(folder, top)
    labels = Counter(f["label"] for d in corpus for f in d["facets"])
    groups = sum(len(f["groups"]) for d in corpus for f in d["facets"])
    return {
        "categories": Counter(d["category"] for d in corpus),
        "sentences": sum(len(d["sentences"]) for d in corpus) / len(corpus),
        "facets": sum(labels.values()) / len(corpus),
        "labels": labels,
        "groups": groups / labels["supported"],
        "bytes": (folder / "outputs.jsonl").stat().st_size,
        "times": times,
    }


# --- the parent: Redis, workers, HTTP -----------------------------------------------------------


def redis_command(url: str, *args: str) -> bytes:
    """Send one command to the Redis database of ``url``; return its reply (one-line replies)."""
    where = urlparse(url)
    commands = [("SELECT", where.path.strip("/"))] if where.path.strip("/") else []
    commands.append(args)
    payload = b"".join(
        f"*{len(c)}\r\n".encode() + b"".join(f"${len(a)}\r\n{a}\r\n".encode() for a in c)
        for c in commands
    )
    with socket.create_connection((where.hostname, where.port or 6379), timeout=5) as connection:
        connection.sendall(payload)
        lines: list[bytes] = []
        buffer = b""
        while len(lines) < len(commands):
            chunk = connection.recv(4096)
            if not chunk:
                break
            *complete, buffer = (buffer + chunk).split(b"\r\n")
            lines.extend(complete)
    return lines[len(commands) - 1] if len(lines) >= len(commands) else b""


def queue_forget(url: str, queue: str) -> None:
    """Delete a benchmark's queue from Redis, with the binding sets kombu leaves there."""
    redis_command(
        url, "DEL", queue, *(f"_kombu.{k}.{queue}" for k in ("binding", "binding_permanent"))
    )


def redis_missing(script: str, url: str) -> bool:
    """Print that ``script`` is skipped when Redis does not answer PING at ``url``."""
    try:
        if redis_command(url, "PING") == b"+PONG":
            return False
    except OSError as error:
        print(f"{script}: skipped, Redis does not answer at {url}: {error}")
        return True
    print(f"{script}: skipped, Redis at {url} did not answer PING")
    return True


@dataclass
class Workers:
    """``count`` Celery worker processes (solo pool) on ``queue``, stopped on exit."""

    env: dict[str, str]
    queue: str
    count: int
    log_dir: Path
    processes: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def __enter__(self) -> Workers:
        try:
            for number in range(self.count):
                log = self.log_dir / f"worker-{self.count}-{number}-{uuid.uuid4().hex[:4]}.log"
                self.logs.append(log)
                with log.open("wb") as out:
                    self.processes.append(
                        subprocess.Popen(
                            [sys.executable, *WORKER.split(), "-Q", self.queue]
                            + ["--hostname", f"{self.queue}-{number}@%h"],
                            env=self.env,
                            cwd=ROOT,
                            stdout=out,
                            stderr=subprocess.STDOUT,
                        )
                    )
            deadline = time.monotonic() + 90
            while not all("ready." in log.read_text(errors="replace") for log in self.logs):
                for process, log in zip(self.processes, self.logs, strict=True):
                    if process.poll() is not None:
                        raise RuntimeError(f"worker exited:\n{self.tail(log)}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"workers not ready in 90 s:\n{self.tail(self.logs[0])}")
                time.sleep(0.2)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()  # SIGTERM: warm shutdown
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    @staticmethod
    def tail(log: Path, lines: int = 30) -> str:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])

    def task_seconds(self) -> dict[str, list[tuple[float, float]]]:
        """Task name -> (end as ``time.time()``, run time) of each task that succeeded."""
        seconds: dict[str, list[tuple[float, float]]] = {}
        for log in self.logs:
            for match in TASK_DONE.finditer(log.read_text(errors="replace")):
                if match[4] is not None:
                    end = datetime.strptime(match[1], "%Y-%m-%d %H:%M:%S,%f").timestamp()
                    seconds.setdefault(match[2], []).append((end, float(match[4])))
        return seconds

    def cpu_seconds(self) -> float:
        """The workers' CPU time so far, together."""
        return sum(process_cpu(process.pid) for process in self.processes)

    def wait_idle(self, redis: str, timeout: float = JOB_TIMEOUT) -> None:
        """Wait until the queue is empty and every task received has ended, for a second.

        Tasks queued after the job (such as a leaderboard warm-up) then cannot spill over into
        the next run, and stopping the workers interrupts nothing.
        """
        deadline, quiet = time.monotonic() + timeout, None
        while True:
            text = "".join(log.read_text(errors="replace") for log in self.logs)
            received = set(TASK_RECEIVED.findall(text))
            ended = {match[3] for match in TASK_DONE.finditer(text)}
            if received - ended or redis_command(redis, "LLEN", self.queue) != b":0":
                quiet = None
            elif quiet is None:
                quiet = time.monotonic()
            elif time.monotonic() - quiet > 1.0:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"workers still busy after {timeout:.0f} s")
            time.sleep(0.2)

    def errors(self) -> list[str]:
        """Lines of the workers' logs that report an error or a retried task."""
        found = []
        for log in self.logs:
            for line in log.read_text(errors="replace").splitlines():
                if "ERROR" in line or "Traceback" in line or "retry" in line.lower():
                    found.append(f"{log.name}: {line[:200]}")
        return found


def machine_busy() -> tuple[int, int]:
    """``(busy, total)`` CPU ticks of the whole machine so far (``/proc/stat``; 0s elsewhere)."""
    try:
        ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)  # all but idle and iowait


def cores(before: tuple[int, int], after: tuple[int, int]) -> float:
    """How many of the machine's cores were busy on average between two ``machine_busy``."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total * (os.cpu_count() or 1) if total else math.nan


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (``/proc/<pid>/stat``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def multipart(fields: dict[str, str], filename: str, content: bytes) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body with text ``fields`` and one ``file``; its content type."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def wait_for_job(port: int, token: str, job_id: int, start: float) -> tuple[dict, float, int]:
    """Poll ``/api/scoring-jobs/<id>/`` every POLL s until it succeeded.

    Returns:
        The job's last JSON, when the client saw it succeed (``perf_counter``), and the polls.
    """
    polls = 0
    while True:
        reply = request(port, "GET", f"/api/scoring-jobs/{job_id}/", headers=token_headers(token))
        polls += 1
        if reply.status != 200:
            raise RuntimeError(f"job {job_id}: HTTP {reply.status} {reply.body[:300]!r}")
        job = reply.json()
        if job["status"] == "succeeded":
            return job, time.perf_counter(), polls
        if job["status"] == "failed":
            raise RuntimeError(f"job {job_id} failed: {job['error']}")
        if time.perf_counter() - start > JOB_TIMEOUT:
            raise RuntimeError(f"job {job_id} not done after {JOB_TIMEOUT:.0f} s: {job}")
        time.sleep(POLL)


def at(stamp: str | None, wall: float) -> float:
    """An ISO time of the server as seconds after the client's ``time.time()`` ``wall``."""
    return datetime.fromisoformat(stamp).timestamp() - wall if stamp else float("nan")


def end_to_end(server: Gunicorn, token: str, upload: Path, workers: int) -> dict:
    """Upload the outputs, wait for the scoring job, then read the leaderboard once."""
    port = server.port
    body, content_type = multipart(
        {"system": SYSTEM, "name": "Synthetic extractive", "kind": "extractive"},
        upload.name,
        upload.read_bytes(),
    )
    headers = {**token_headers(token), "Content-Type": content_type}
    busy = [machine_busy()]
    wall, start = time.time(), time.perf_counter()
    reply = request(port, "POST", f"/api/datasets/{SLUG}/outputs/", headers=headers, body=body,
                    timeout=JOB_TIMEOUT)  # fmt: skip
    posted = time.perf_counter()
    busy.append(machine_busy())
    if reply.status != 201:
        raise RuntimeError(
            f"upload: HTTP {reply.status} after {posted - start:.1f} s {reply.body[:300]!r}\n"
            f"gunicorn's error log:\n{server.error_tail()}"
        )
    answer = reply.json()
    job, done, polls = wait_for_job(port, token, answer["scoring_job"], start)
    busy.append(machine_busy())
    board = request(port, "GET", LEADERBOARD.format(slug=SLUG) + "?k=3",
                    headers=token_headers(token), timeout=JOB_TIMEOUT)  # fmt: skip
    end = time.perf_counter()
    if board.status != 200:
        raise RuntimeError(f"leaderboard: HTTP {board.status} {board.body[:500]!r}")
    table = board.json()
    row = next(s for s in table["systems"] if s["system"] == SYSTEM)
    return {
        "workers": workers,
        "wall": wall,
        "version": answer["version"],
        "outputs": answer["outputs"],
        "upload": posted - start,
        "created": at(job["created_at"], wall),
        "started": at(job["started_at"], wall),
        "finished": at(job["finished_at"], wall),
        "seen": done - start,
        "polls": polls,
        "busy": [cores(a, b) for a, b in zip(busy, busy[1:], strict=False)],
        "leaderboard": end - done,
        "total": end - start,
        "job": job,
        "board_version": row["version"],
        "far": row["far"]["mean"] if row.get("far") else None,
        "rouge1_f": row["rouge1_f"]["mean"] if row.get("rouge1_f") else None,
        "n_documents": row["n_documents"],
    }


def score_lb_dataset(port: int, token: str) -> dict:
    """Score the 50 systems through ``POST .../scoring-jobs/start/``; wait for the job."""
    wall, start = time.time(), time.perf_counter()
    reply = request(
        port,
        "POST",
        f"/api/datasets/{LB_SLUG}/scoring-jobs/start/",
        headers={**token_headers(token), "Content-Type": "application/json"},
        body=json.dumps({"ks": [3]}).encode(),
    )
    if reply.status != 202:
        raise RuntimeError(f"scoring job: HTTP {reply.status} {reply.body[:300]!r}")
    job, done, _ = wait_for_job(port, token, reply.json()["id"], start)
    return {"job": job, "seen": done - start, "wall": wall}


def ranking(table: dict) -> list[tuple[str, float | None]]:
    """The systems in order with their mean FAR, to check two answers agree."""
    return [(s["system"], (s.get("far") or {}).get("mean")) for s in table["systems"]]


def run_sql(database_url: str, statement: str, what: str):
    """Run one statement on the benchmark database (psycopg2, committed).

    Returns:
        ``(rowcount, first row or None)``, or None when it failed (the reason is printed).
    """
    import psycopg2

    try:
        connection = psycopg2.connect(database_url)
    except psycopg2.Error:
        return None
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute(statement)
            return cursor.rowcount, cursor.fetchone() if cursor.description else None
    except psycopg2.Error as error:
        print(f"    could not {what}: {error}".rstrip())
        return None
    finally:
        connection.close()


def clear_snapshots(database_url: str) -> int | None:
    """Delete the stored leaderboards (SQL on the benchmark database); None if it failed."""
    done = run_sql(
        database_url,
        "DELETE FROM leaderboards_leaderboardsnapshot",
        "delete the stored leaderboards",
    )
    return None if done is None else done[0]


def scores_size(database_url: str) -> tuple[int, int, int] | None:
    """The scores' size on disk with indexes and TOAST (bytes): the rows' table, the score
    arrays' table (``ScoreArray``, built from the rows at job end), and the rows."""
    done = run_sql(
        database_url,
        "SELECT pg_total_relation_size('scores_documentscore'), "
        "pg_total_relation_size('scores_scorearray'), "
        "(SELECT count(*) FROM scores_documentscore)",
        "measure the scores' size",
    )
    return None if done is None else done[1]


def leaderboard_latency(server: Gunicorn, token: str, requests: int, database_url: str) -> dict:
    """First GET, a cold one, a warm-up, then ``requests`` rounds of (leaderboard, me).

    The first GET comes after the scoring job and every task it queued have finished, so a
    leaderboard the workers stored is served from its snapshot. The cold GET follows the
    deletion of every stored snapshot, so it computes the table.
    """
    headers = token_headers(token)
    path = LEADERBOARD.format(slug=LB_SLUG)
    query = path + "?category=low&k=3"
    first = request(server.port, "GET", query, headers=headers, timeout=JOB_TIMEOUT)
    if first.status != 200:
        raise RuntimeError(f"leaderboard: HTTP {first.status} {first.body[:500]!r}")
    table = first.json()
    deleted = clear_snapshots(database_url)
    cold = request(server.port, "GET", query, headers=headers, timeout=JOB_TIMEOUT)
    if cold.status != 200 or ranking(cold.json()) != ranking(table):
        raise RuntimeError(f"cold leaderboard: HTTP {cold.status}, or another ranking")
    request(server.port, "GET", query, headers=headers)
    request(server.port, "GET", "/api/me/", headers=headers)
    offset = server.log_offset()
    board, me, statuses = [], [], Counter()
    for _ in range(requests):
        for target, into in ((query, board), ("/api/me/", me)):
            reply = request(server.port, "GET", target, headers=headers)
            statuses[reply.status] += 1
            into.append(reply.seconds * 1000)
    times = server.server_times(offset)
    return {
        "first": first.seconds * 1000,
        "deleted": deleted,
        "cold": cold.seconds * 1000 if deleted is not None else None,
        "bytes": len(first.body),
        "systems": len(table["systems"]),
        "n_documents": table["n_documents"],
        "resamples": table["ci"]["resamples"],
        "board": board,
        "me": me,
        "server_board": [ms for m, p, _, ms in times if m == "GET" and p == path],
        "server_me": [ms for m, p, _, ms in times if m == "GET" and p == "/api/me/"],
        "statuses": statuses,
        "top": ranking(table)[:3],
    }


def task_line(tasks: dict[str, list[tuple[float, float]]], wall: float | None = None) -> str:
    """The workers' own task times in one line; ``wall``: the POST's start, for end times."""
    parts = []
    order = list(TASK_LABELS)
    for name in sorted(tasks, key=lambda n: (order.index(n) if n in order else len(order), n)):
        times = [seconds for _, seconds in tasks[name]]
        label = TASK_LABELS.get(name, name)
        if len(times) > 1:
            stats = summary(times)
            parts.append(
                f"{label} x{len(times)}: p50 {stats['p50']:.2f} s, max {stats['max']:.2f} s, "
                f"sum {sum(times):.1f} s"
            )
        else:
            parts.append(f"{label} {times[0]:.2f} s")
        if name not in TASK_LABELS and wall is not None:
            ended = max(end for end, _ in tasks[name]) - wall
            parts[-1] += f" (ended {ended:.2f} s after the POST)"
    return "worker task times: " + "; ".join(parts)


def report_runs(runs: list[dict]) -> None:
    print(
        f"\n{'workers':>7} | {'version':>7} | {'upload POST':>11} | {'in queue':>8} | "
        f"{'job':>7} | {'chunks':>6} | {'poll lag':>8} | {'leaderboard':>11} | {'end to end':>10}"
    )
    for run in runs:
        job = run["job"]
        print(
            f"{run['workers']:>7} | {run['version']:>7} | {run['upload']:>9.2f} s | "
            f"{run['started'] - run['created']:>6.2f} s | {job['seconds']:>5.2f} s | "
            f"{job['chunks_total']:>6} | {run['seen'] - run['finished']:>6.2f} s | "
            f"{run['leaderboard']:>9.2f} s | {run['total']:>8.2f} s"
        )
    for run in runs:
        job = run["job"]
        print(
            f"  {run['workers']} worker(s): {job['outputs_total']:,} outputs, "
            f"{job['scores_written']:,} scores written, "
            f"{job['outputs_total'] / job['seconds']:,.0f} outputs/s in the job; job created "
            f"{run['created']:.2f} s after the POST began, finished at {run['finished']:.2f} s, "
            f"seen at {run['seen']:.2f} s ({run['polls']} polls); leaderboard version "
            f"{run['board_version']}, {run['n_documents']:,} documents, FAR "
            f"{run['far']:.4f}, ROUGE-1 F {run['rouge1_f']:.4f}"
        )
        print(f"    {task_line(run['tasks'], run['wall'])}")
        upload_busy, job_busy = run["busy"]
        print(
            f"    CPU: the machine's {os.cpu_count()} cores were {upload_busy:.2f} busy on average "
            f"during the upload and {job_busy:.2f} from its end until the job was seen done "
            f"(all processes, other work included); the workers used {run['worker_cpu']:.1f} "
            "CPU s in all (their tasks; PostgreSQL's share is not in it)"
        )
    slow = [run for run in runs if run["upload"] > GUNICORN_TIMEOUT]
    if slow:
        print(
            f"  the upload POST took longer than gunicorn's default worker timeout "
            f"({GUNICORN_TIMEOUT} s, kept by the Dockerfile) in {len(slow)} of {len(runs)} runs: "
            "with the production settings it fails (the worker is killed, HTTP 500)"
        )
    by_workers = {run["workers"]: run for run in runs}
    if 1 in by_workers and len(by_workers) > 1:
        # What predicts a cluster: the job's throughput per worker process, against one worker.
        base = by_workers[1]["job"]["outputs_total"] / by_workers[1]["job"]["seconds"]
        print(f"scaling of the job (1 worker: {base:,.0f} outputs/s; {os.cpu_count()} cores here):")
        for count, run in sorted(by_workers.items()):
            rate = run["job"]["outputs_total"] / run["job"]["seconds"]
            print(
                f"  {count} worker(s): {rate:,.0f} outputs/s, {rate / base:.2f}x one worker, "
                f"{rate / count:,.0f} outputs/s per worker ({rate / count / base:.0%} of one "
                f"alone); end to end {run['total']:.1f} s"
            )
    if 1 in by_workers and 2 in by_workers:
        one, two = by_workers[1], by_workers[2]
        print(
            f"end to end: 1 worker {one['total']:.1f} s, 2 workers {two['total']:.1f} s, ratio "
            f"{one['total'] / two['total']:.2f}x (the job alone: "
            f"{one['job']['seconds'] / two['job']['seconds']:.2f}x); goal < {GOAL_SECONDS:.0f} s "
            f"with 2 workers: {'met' if two['total'] < GOAL_SECONDS else 'NOT met'}"
        )


def report_latency(lb: dict, prep: dict, documents: int, systems: int) -> None:
    board, me = summary(lb["board"]), summary(lb["me"])
    sboard, sme = summary(lb["server_board"]), summary(lb["server_me"])
    job = prep["job"]
    print(
        f"\nleaderboard dataset: {documents:,} documents x {systems} systems "
        f"({job['outputs_total']:,} outputs, {job['scores_written']:,} scores, scored by 2 "
        f"workers in {job['seconds']:.1f} s from start to the callback, {job['chunks_total']} "
        f"chunks; the job seen succeeded {prep['seen']:.1f} s after the POST that started it); "
        f"?category=low&k=3 covers {lb['n_documents']:,} documents, {lb['resamples']} resamples"
    )
    print(f"    {task_line(prep['tasks'], prep['wall'])}")
    if lb.get("size"):
        size, arrays, rows = lb["size"]
        print(
            f"    scores in PostgreSQL: {size / 1e6:,.1f} MB for {rows:,} rows (both datasets, "
            f"with indexes and TOAST): {size / max(rows, 1):,.0f} bytes an output; their "
            f"arrays {arrays / 1e6:,.1f} MB ({arrays / max(rows, 1):,.0f} bytes an output); "
            f"{(size + arrays) / max(rows, 1):,.0f} bytes an output in all"
        )
    print(
        f"first GET after the job and the workers' tasks: {lb['first']:,.0f} ms; cold, after "
        f"deleting the {lb['deleted']} stored snapshots: "
        + (f"{lb['cold']:,.0f} ms" if lb["cold"] is not None else "not measured")
        + f"; {lb['bytes']:,} bytes"
    )
    print(f"{'request':34} {'n':>4} | client ms p50 / p95 / p99 / max | server ms p50 / p95 / p99")
    for label, c, s, n in (
        ("GET leaderboard (warm)", board, sboard, len(lb["board"])),
        ("reference GET /api/me/", me, sme, len(lb["me"])),
    ):
        print(
            f"{label:34} {n:>4} | {c['p50']:>6.1f} / {c['p95']:>6.1f} / {c['p99']:>6.1f} / "
            f"{c['max']:>6.1f} | {s['p50']:>6.1f} / {s['p95']:>6.1f} / {s['p99']:>6.1f}"
        )
    print(
        f"leaderboard / me ratio: p50 {board['p50'] / me['p50']:.1f}, p95 "
        f"{board['p95'] / me['p95']:.1f}; cold / warm p50 "
        f"{(lb['cold'] or math.nan) / board['p50']:.0f}x; "
        f"statuses {dict(lb['statuses'])}; top 3 by FAR "
        + ", ".join(f"{s} {v:.3f}" for s, v in lb["top"])
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="What is measured, and figures: bench/README.md.",
    )
    parser.add_argument("--documents", type=int, default=DOCUMENTS, help="uploaded outputs")
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2], help="worker processes per run"
    )
    parser.add_argument("--lb-documents", type=int, default=LB_DOCUMENTS)
    parser.add_argument("--lb-systems", type=int, default=LB_SYSTEMS)
    parser.add_argument("--requests", type=int, default=REQUESTS, help="warm leaderboard GETs")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="broker URL")
    parser.add_argument(
        "--gunicorn-timeout",
        type=int,
        default=300,
        help=f"gunicorn's worker timeout in s (its default, and production's, is "
        f"{GUNICORN_TIMEOUT}; an upload that takes longer is killed there)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="smoke test: 1,000 documents, 200 x 10, 20 requests"
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also profile the upload service and two chunks in-process (top N entries)",
    )
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.documents, args.lb_documents, args.lb_systems, args.requests = 1000, 200, 10, 20
    if args.load:  # child process: Django set up here only
        loaded = load(args.folder, args.documents, args.lb_documents, args.lb_systems, args.profile)
        print(json.dumps(loaded))
        return 0

    if redis_missing("bench_scoring", args.redis) or not bench_start("bench_scoring"):
        return 0
    queue = f"bench-scoring-{uuid.uuid4().hex[:8]}"
    try:
        return run(args, queue)
    finally:
        queue_forget(args.redis, queue)


def run(args: argparse.Namespace, queue: str) -> int:
    """Set up, run the end-to-end runs and the leaderboard latency, print the figures."""
    with bench_workdir() as (tmp, env):
        env.update(CELERY_BROKER_URL=args.redis, CELERY_QUEUE=queue)
        server_env = {**env, "GUNICORN_CMD_ARGS": f"--timeout {args.gunicorn_timeout}"}
        (tmp / "var" / "static").mkdir(parents=True)  # no pages here: no collectstatic
        begun = time.perf_counter()
        manage(env, "migrate", "--noinput")
        loaded = run_loader(
            env,
            Path(__file__),
            *("--folder", str(tmp), "--documents", str(args.documents)),
            *("--lb-documents", str(args.lb_documents), "--lb-systems", str(args.lb_systems)),
            *("--profile", str(args.profile)),
        )
        times, labels = loaded["times"], loaded["labels"]
        print(
            f"set-up {time.perf_counter() - begun:.1f} s (generate {times['generate']:.1f} s, "
            f"bundle_import of {args.documents:,} documents {times['import']:.1f} s, leaderboard "
            f"dataset {times['lb_import']:.1f} s)\n"
            f"dataset {SLUG}: {args.documents:,} documents ("
            + ", ".join(f"{c} {n:,}" for c, n in loaded["categories"].items())
            + f"), {loaded['sentences']:.1f} sentences and {loaded['facets']:.2f} facets each "
            f"({', '.join(f'{label} {n:,}' for label, n in labels.items())}), "
            f"{loaded['groups']:.2f} support groups per supported facet; upload file "
            f"{loaded['bytes'] / 1e6:.2f} MB (JSONL, `extracted`, {args.documents:,} lines)"
        )
        runs = []
        with Gunicorn(server_env, tmp) as server:
            token = obtain_token(server.port, RESEARCHER, PASSWORD)
            print(
                f"gunicorn on 127.0.0.1:{server.port}, 2 sync workers, worker timeout "
                f"{args.gunicorn_timeout} s; broker and results "
                f"{args.redis}, queue {queue}; job polled every {POLL:g} s"
            )
            for count in args.workers:
                with Workers(env, queue, count, tmp) as workers:
                    cpu = workers.cpu_seconds()
                    runs.append(end_to_end(server, token, tmp / "outputs.jsonl", count))
                    workers.wait_idle(args.redis)
                    runs[-1]["tasks"] = workers.task_seconds()
                    runs[-1]["worker_cpu"] = workers.cpu_seconds() - cpu
                    for line in workers.errors()[:5]:
                        print("   ", line)
                print(f"  {count} worker(s): {runs[-1]['total']:.1f} s end to end")
            with Workers(env, queue, 2, tmp) as workers:
                prep = score_lb_dataset(server.port, token)
                workers.wait_idle(args.redis)
                prep["tasks"] = workers.task_seconds()
            lb = leaderboard_latency(server, token, args.requests, env["DATABASE_URL"])
            lb["size"] = scores_size(env["DATABASE_URL"])
        report_runs(runs)
        report_latency(lb, prep, args.lb_documents, args.lb_systems)
        print(f"load average at the end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
