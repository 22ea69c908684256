"""Benchmark: a mixed day on gunicorn, PostgreSQL, Redis and a Celery worker, on loopback only.

For a fixed time (``--seconds``, 120 by default), on the production settings:

* **50 annotators** (threads), each with a FAM task and a PolyTope span task: every 1.5-2.5 s
  (seeded) one request: a FAM save (45%), a span save (45%) or a read of its task (10%). Each
  save sends the version the previous one returned and changes every facet or error, so each is
  a real write (a new version and a revision); a 409 resynchronises the annotator.
* **5 researchers**: every 2-4 s a read of the leaderboard (60%, one of the page's views: all
  documents or a facet category, at k = 3) or of a system's per-document scores (40%); each
  also uploads once, at a seeded time, an extractive system's outputs for the dataset's 500
  documents (JSONL), which queues a scoring job and a bias run for the worker.
* **1 admin** starts a release export at the beginning (a Celery job over the whole dataset)
  and reads its state every 2 s.

One Celery worker (solo pool, as in ``docker-compose.yml`` with one replica) serves the jobs;
gunicorn has 3 sync workers, as the Dockerfile starts it, with its default 30 s timeout.

Reported per endpoint: count, errors (any status other than the expected: 200, 201 or 202, and
409 for saves that lost a race, which the client resolves), p50/p95/p99/max as the client saw
them (connect, request, whole response) and as gunicorn logged them (``%(D)s``). The goal
(issue 13): p95 under 100 ms for reads and saves, no error, no request near the timeout.
Afterwards every FAM and span item is checked: its version equals its first version plus the
saves answered 200. Run from the repository root:

    .venv/bin/python bench/bench_load.py                # about 4 min, 1 of them set-up
    .venv/bin/python bench/bench_load.py --seconds 20   # smoke test
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from _client import obtain_token, request, token_headers
from _data import N_FACETS, N_SENTENCES, synthetic_document, write_jsonl
from _server import Gunicorn, bench_start, bench_workdir, manage, run_loader
from _stats import load_average, summary
from bench_save_api import PASSWORD, SEED, tokens_obtain, username
from bench_scoring import Workers, multipart, queue_forget, redis_missing
from bench_span_save_api import Annotator, fetch_state, send_save

DOCUMENTS = 500
ANNOTATORS = 50
RESEARCHERS = 5
SECONDS = 120.0
GUNICORN_WORKERS = 3  # the Dockerfile's
GOAL_P95_MS = 100.0
TIMEOUT_S = 30.0  # gunicorn's default worker timeout, which the Dockerfile keeps
DATASET = "bench"
OK = {200, 201, 202}


def researcher_name(i: int) -> str:
    return f"researcher-{i}"


def load(jsonl: Path, users: int, researchers: int) -> dict:
    """Loader (child process): the span benchmark's annotators and tasks, then researchers, an
    admin, and an extractive system scored in-process so the leaderboard has rows.

    Returns:
        The span loader's ``{"fam", "spans", "states"}`` plus ``{"documents": [external
        ids]}``.
    """
    from bench_span_save_api import load as span_load

    loaded = span_load(jsonl, users, False)
    from annotation.accounts.roles import ADMIN, RESEARCHER
    from annotation.accounts.services import user_create
    from annotation.corpus.models import Dataset
    from annotation.systems.models import OutputVersion, System, SystemOutput
    from scoring.scores.services import scoring_pending_run_inline

    for i in range(researchers):
        user_create(username=researcher_name(i), password=PASSWORD, role=RESEARCHER)
    user_create(username="bench-admin", password=PASSWORD, role=ADMIN)
    dataset = Dataset.objects.get(slug=DATASET)
    system = System(slug="lead-3", name="Lead-3", kind="extractive")
    system.full_clean()
    system.save()
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    for document in dataset.documents.all():
        output = SystemOutput(
            system=system,
            version=version,
            document=document,
            sentences=document.sentences[:3],
            extracted=[0, 1, 2],
            extraction_method="given",
        )
        output.full_clean()
        output.save()
    scoring_pending_run_inline(dataset=dataset)
    documents = list(dataset.documents.order_by("position").values_list("external_id", flat=True))
    return {**loaded, "documents": documents}


@dataclass
class Log:
    """Every timed request: endpoint label -> client milliseconds, statuses and bad bodies."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, dict[int, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, label: str, reply, expected=OK) -> None:
        with self.lock:
            self.times[label].append(reply.seconds * 1000)
            self.statuses[label][reply.status] += 1
            if reply.status not in expected and len(self.errors) < 10:
                self.errors.append(f"{label}: HTTP {reply.status} {reply.body[:200]!r}")


def annotator_loop(port: int, annotator: Annotator, log: Log, deadline: float, seed: int) -> None:
    rng = random.Random(seed)
    time.sleep(rng.uniform(0, 2))
    while time.monotonic() < deadline:
        pick = rng.random()
        if pick < 0.9:
            kind = "fam" if pick < 0.45 else "spans"
            reply, wrong = send_save(port, annotator, kind)
            log.add(f"PUT {kind} save", reply, expected=OK | {409})
            if wrong:
                log.errors.append(f"{annotator.name} {kind}: a save skipped a version")
        else:
            path = f"/api/tasks/{annotator.fam_task}/"
            reply = request(port, "GET", path, headers=token_headers(annotator.token))
            log.add("GET task", reply)
        time.sleep(rng.uniform(1.5, 2.5))


def upload_body(documents: list[str], rng: random.Random, slug: str) -> tuple[bytes, str]:
    lines = "".join(
        json.dumps({"doc_id": d, "extracted": sorted(rng.sample(range(N_SENTENCES), 3))}) + "\n"
        for d in documents
    )
    fields = {"system": slug, "kind": "extractive", "name": slug}
    return multipart(fields, "outputs.jsonl", lines.encode())


def researcher_loop(
    port: int, i: int, token: str, documents: list[str], log: Log, deadline: float, seconds: float
) -> None:
    rng = random.Random(SEED + 1000 + i)
    upload_at = time.monotonic() + rng.uniform(0.1, 0.8) * seconds
    uploaded = False
    headers = token_headers(token)
    time.sleep(rng.uniform(0, 2))
    while time.monotonic() < deadline:
        if not uploaded and time.monotonic() >= upload_at:
            body, content_type = upload_body(documents, rng, f"upload-{i}")
            reply = request(
                port,
                "POST",
                f"/api/datasets/{DATASET}/outputs/",
                headers={**headers, "Content-Type": content_type},
                body=body,
                timeout=60,
            )
            log.add("POST upload (500 outputs)", reply)
            uploaded = True
        elif rng.random() < 0.6:
            # The page's views: all documents and its category tabs, at the default k.
            category = rng.choice(["", "&category=low", "&category=high", "&category=noise"])
            path = f"/api/datasets/{DATASET}/leaderboard/?k=3{category}"
            log.add("GET leaderboard", request(port, "GET", path, headers=headers))
        else:
            path = f"/api/datasets/{DATASET}/systems/lead-3/scores/"
            log.add("GET system scores", request(port, "GET", path, headers=headers))
        time.sleep(rng.uniform(2.0, 4.0))


def admin_loop(port: int, token: str, log: Log, deadline: float, out: dict) -> None:
    headers = {**token_headers(token), "Content-Type": "application/json"}
    reply = request(port, "POST", f"/api/datasets/{DATASET}/releases/", headers=headers, body=b"{}")
    log.add("POST export", reply)
    if reply.status not in OK:
        return
    version = reply.json()["version"]
    while time.monotonic() < deadline:
        time.sleep(2.0)
        path = f"/api/datasets/{DATASET}/releases/{version}/"
        reply = request(port, "GET", path, headers=headers)
        log.add("GET export state", reply)
        if reply.status == 200:
            out["export"] = reply.json()


def server_side(entries) -> dict[str, list[float]]:
    """gunicorn's milliseconds per endpoint label, from its access-log lines."""
    found: dict[str, list[float]] = defaultdict(list)
    for method, path, _status, ms in entries:
        if method == "PUT" and path.endswith("/fam/"):
            found["PUT fam save"].append(ms)
        elif method == "PUT" and path.endswith("/spans/"):
            found["PUT spans save"].append(ms)
        elif method == "GET" and path.startswith("/api/tasks/"):
            found["GET task"].append(ms)
        elif path.endswith("/outputs/"):
            found["POST upload (500 outputs)"].append(ms)
        elif path.endswith("/leaderboard/"):
            found["GET leaderboard"].append(ms)
        elif path.endswith("/scores/"):
            found["GET system scores"].append(ms)
        elif method == "POST" and path.endswith("/releases/"):
            found["POST export"].append(ms)
        elif "/releases/" in path:
            found["GET export state"].append(ms)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="broker URL")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--jsonl", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:  # child process: Django set up here only
        print(json.dumps(load(args.jsonl, ANNOTATORS, RESEARCHERS)))
        return 0
    if redis_missing("bench_load", args.redis) or not bench_start("bench_load"):
        return 0
    queue = f"bench-load-{uuid.uuid4().hex[:8]}"
    try:
        return run(args, queue)
    finally:
        queue_forget(args.redis, queue)


def run(args: argparse.Namespace, queue: str) -> int:
    with bench_workdir() as (tmp, env):
        env.update(CELERY_BROKER_URL=args.redis, CELERY_QUEUE=queue)
        begun = time.perf_counter()
        rng = random.Random(SEED)
        documents = [synthetic_document(rng, N_SENTENCES, N_FACETS) for _ in range(DOCUMENTS)]
        (tmp / "var" / "static").mkdir(parents=True)
        manage(env, "migrate", "--noinput")
        write_jsonl(tmp / "bench.jsonl", documents)
        loaded = run_loader(env, Path(__file__), "--jsonl", str(tmp / "bench.jsonl"))
        print(
            f"set-up {time.perf_counter() - begun:.1f} s: {DOCUMENTS} documents of "
            f"{N_SENTENCES} sentences, {ANNOTATORS} annotators (a FAM task and a PolyTope item "
            f"each), {RESEARCHERS} researchers, 1 admin, 2 systems scored"
        )
        annotators = [
            Annotator(username(i), fam, spans, states)
            for i, (fam, spans, states) in enumerate(
                zip(loaded["fam"], loaded["spans"], loaded["states"], strict=True)
            )
        ]
        log, out = Log(), {}
        with (
            Workers(env, queue, 1, tmp) as workers,
            Gunicorn(env, tmp, workers=GUNICORN_WORKERS) as server,
        ):
            port = server.port
            tokens_obtain(port, annotators)
            for annotator in annotators:
                for kind in ("fam", "spans"):
                    fetch_state(port, annotator, kind)
                    annotator.first_version[kind] = annotator.version[kind]
            researchers = [obtain_token(port, researcher_name(i), PASSWORD) for i in range(5)]
            admin = obtain_token(port, "bench-admin", PASSWORD)
            print(
                f"gunicorn on 127.0.0.1:{port}, {GUNICORN_WORKERS} sync workers, timeout "
                f"{TIMEOUT_S:g} s; 1 Celery worker on Redis; {args.seconds:g} s of load; "
                f"load average {load_average()}"
            )
            offset = server.log_offset()
            deadline = time.monotonic() + args.seconds
            threads = [
                threading.Thread(
                    target=annotator_loop, args=(port, a, log, deadline, SEED + n), daemon=True
                )
                for n, a in enumerate(annotators)
            ]
            threads += [
                threading.Thread(
                    target=researcher_loop,
                    args=(port, i, token, loaded["documents"], log, deadline, args.seconds),
                    daemon=True,
                )
                for i, token in enumerate(researchers)
            ]
            threads.append(
                threading.Thread(target=admin_loop, args=(port, admin, log, deadline, out))
            )
            started = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=args.seconds + 120)
            wall = time.monotonic() - started
            server_ms = server_side(server.server_times(offset, settle=0.5))
            for annotator in annotators:  # every save answered 200 is there, and only those
                for kind in ("fam", "spans"):
                    expected = annotator.first_version[kind] + annotator.saved[kind]
                    fetch_state(port, annotator, kind)
                    if annotator.version[kind] != expected:
                        log.errors.append(
                            f"{annotator.name} {kind}: version {annotator.version[kind]}, "
                            f"expected {expected}"
                        )
            workers.wait_idle(args.redis)
            worker_errors = workers.errors()
        print(report(log, server_ms, wall, out.get("export"), worker_errors))
        print(f"load average at the end {load_average()}")
        bad = sum(
            n for label in log.statuses for s, n in log.statuses[label].items() if s not in OK
        ) - sum(log.statuses[label].get(409, 0) for label in log.statuses if "save" in label)
        return 1 if bad or log.errors or worker_errors else 0


def report(log: Log, server_ms: dict, wall: float, export: dict | None, worker_errors) -> str:
    lines = [
        f"{'endpoint':<28} {'n':>5} {'errors':>6} | client ms p50 / p95 / p99 / max"
        " | server ms p50 / p95 / p99 | goal",
    ]
    for label in sorted(log.times):
        client = summary(log.times[label])
        server = summary(server_ms.get(label, [])) if server_ms.get(label) else None
        statuses = log.statuses[label]
        allowed = OK | ({409} if "save" in label else set())
        errors = sum(n for status, n in statuses.items() if status not in allowed)
        goal = (
            ""
            if "upload" in label or "POST export" in label
            else ("met" if client["p95"] < GOAL_P95_MS else "NOT met")
        )
        lines.append(
            f"{label:<28} {len(log.times[label]):>5} {errors:>6} | "
            f"{client['p50']:7.1f} / {client['p95']:7.1f} / {client['p99']:7.1f} / "
            f"{client['max']:7.1f} | "
            + (
                f"{server['p50']:6.1f} / {server['p95']:6.1f} / {server['p99']:6.1f}"
                if server
                else "-"
            )
            + f" | {goal}"
        )
    total = sum(len(v) for v in log.times.values())
    slowest = max((max(v) for v in log.times.values()), default=0.0)
    conflicts = sum(log.statuses[label].get(409, 0) for label in log.statuses)
    lines.append(
        f"{total:,} requests in {wall:.1f} s ({total / wall:.1f}/s); 409 conflicts resolved: "
        f"{conflicts}; slowest {slowest / 1000:.2f} s (gunicorn's timeout {TIMEOUT_S:g} s)"
    )
    if export:
        progress = export.get("progress") or {}
        lines.append(
            f"export: version {export.get('version')}, {export.get('status')}, stage "
            f"{progress.get('stage')}, {progress.get('done')} / {progress.get('total')}"
        )
    lines.append("errors: " + ("; ".join(log.errors) if log.errors else "none"))
    lines.append("worker errors: " + ("; ".join(worker_errors[:5]) if worker_errors else "none"))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
