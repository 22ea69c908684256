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
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

from _client import obtain_token, request, session_login, token_headers
from _data import (
    N_FACETS,
    N_SENTENCES,
    count_queries,
    django_setup,
    synthetic_document,
    write_jsonl,
)
from _server import (
    Gunicorn,
    bench_start,
    bench_workdir,
    manage,
    run_loader,
)
from _stats import load_average, summary

SEED = 20261121
SCORERS = ["rougeavg-f", "tfidf"]
TOP_K = 3
QUEUE = 150  # the long-queue annotator's tasks: the FAR release's 150 documents
GOAL_P95_MS = 100.0

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

    if not bench_start("bench_workspace"):
        return 0
    rng = random.Random(SEED)
    documents = [synthetic_document(rng, N_SENTENCES, N_FACETS) for _ in range(args.queue)]
    with bench_workdir() as (tmp, env):
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
