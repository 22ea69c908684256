"""Benchmark: concurrent FAM saves (PUT /api/tasks/<id>/fam/) on gunicorn and PostgreSQL.

20 and then 50 annotators (distinct users, each with its own task on its own 60-sentence
document with a 4-sentence reference) each save their FAM every 2 s for 60 s. Every save sends
the ``base_version`` returned by the previous one and alternates between two facet states, so
each save is a real change (a new version and a revision). Each annotator is one thread of a
bounded pool (as many threads as annotators) with its own connections; its first save comes at
a seeded random offset in the first 2 s, then one every 2 s on a fixed schedule.

Reference, measured in the same run just before each save phase, with the same users, the same
schedule and the same concurrency: ``GET /api/me/``, the smallest authenticated endpoint. The
ratio is the save's cost over the framework's floor.

Reported per phase: count, errors (any non-200), p50/p95/p99/max, measured by the client on
loopback (connect, request, whole response) and by gunicorn (access log ``%(D)s``, without the
wait in the listen queue). Afterwards every FAM is checked: its version must equal its first
version plus the saves that got 200, and its history must hold one revision per version. The
set-up (fresh database, migrate, data through the services, gunicorn with 2 sync workers) is
the harness in ``_server.py``, shared with ``bench_workspace.py``. Run from the repository root:

    .venv/bin/python bench/bench_save_api.py               # about 5 min
    .venv/bin/python bench/bench_save_api.py --seconds 6   # smoke test
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from _client import obtain_token, request, token_headers
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
CONCURRENCY = (20, 50)
INTERVAL = 2.0
SECONDS = 60.0
WINDOW = 10.0  # the save p95 is also printed per window, to show bursts of other load
GOAL_P95_MS = 50.0
PASSWORD = "bench-password-123"  # noqa: S105 (a throwaway database)

# The two FAM states every annotator alternates between: facet i supported by sentence 2i,
# then by the group (2i, 2i+1). Each switch removes one group and adds another in every facet.
STATES = [
    [{"groups": [[2 * i]], "label": "supported", "note": ""} for i in range(N_FACETS)],
    [{"groups": [[2 * i, 2 * i + 1]], "label": "supported", "note": ""} for i in range(N_FACETS)],
]


def username(i: int) -> str:
    return f"ann-{i:02d}"


def load(jsonl: Path, users: int, show_queries: bool) -> dict:
    """Loader (child process): documents, annotators, a campaign, one task per annotator.

    Args:
        jsonl: the dataset file, one document per annotator.
        users: how many annotators.
        show_queries: print the SQL of one save and of ``GET /api/me/``.

    Returns:
        ``{"tasks": [task id per annotator], "queries": {...}}``; the query count makes two
        saves (states 0 then 1) on the first annotator's task.
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
    for i in range(users):
        user_create(username=username(i), password=PASSWORD, role=ANNOTATOR)
    # No scorers: saves never touch suggestions, and nothing is queued for a worker.
    campaign = services.campaign_create(
        dataset=dataset, slug="bench", name="Save benchmark", scorers=[]
    )
    services.tasks_assign_manual(
        campaign=campaign, assignments=[(f"doc-{i:03d}", username(i)) for i in range(users)]
    )
    tasks = {t.annotator.username: t.pk for t in Task.objects.filter(campaign=campaign)}
    first = Token.objects.create(user=Task.objects.get(pk=tasks[username(0)]).annotator)
    auth = {"HTTP_AUTHORIZATION": f"Token {first.key}"}
    path = f"/api/tasks/{tasks[username(0)]}/fam/"

    def put(version: int, state: int) -> tuple:
        body = json.dumps({"base_version": version, "facets": STATES[state]})
        return ("PUT", path, {**auth, "data": body, "content_type": "application/json"})

    # The first save also moves the task from to-do to in progress; the second is the usual one.
    queries = count_queries(
        {"first save": put(1, 0), "save": put(2, 1), "me": ("GET", "/api/me/", auth)},
        show=show_queries,
    )
    first.delete()  # the benchmark obtains its own tokens
    return {"tasks": [tasks[username(i)] for i in range(users)], "queries": queries}


@dataclass
class Annotator:
    """One simulated annotator: credentials, task, and the FAM state the server holds."""

    name: str
    task: int
    token: str = ""
    version: int = 0
    state: int = -1  # index in STATES of the server's facets, -1 for neither
    saved: int = 0  # saves answered 200 over the whole run
    first_version: int = 0


def fetch_state(port: int, annotator: Annotator) -> None:
    """Read the task's FAM version and which of the two states it holds (untimed)."""
    reply = request(
        port, "GET", f"/api/tasks/{annotator.task}/", headers=token_headers(annotator.token)
    )
    if reply.status != 200:
        raise RuntimeError(f"task {annotator.task}: HTTP {reply.status} {reply.body[:200]!r}")
    fam = reply.json()["fam"]
    annotator.version = fam["version"]
    annotator.state = STATES.index(fam["facets"]) if fam["facets"] in STATES else -1


def send_save(port: int, annotator: Annotator):
    """PUT the other FAM state on the last version; returns the reply and whether the answered
    version was not base + 1."""
    target = 1 - annotator.state if annotator.state in (0, 1) else 0
    body = json.dumps({"base_version": annotator.version, "facets": STATES[target]})
    reply = request(
        port,
        "PUT",
        f"/api/tasks/{annotator.task}/fam/",
        headers={**token_headers(annotator.token), "Content-Type": "application/json"},
        body=body.encode(),
    )
    wrong = False
    if reply.status == 200:
        version = reply.json()["version"]
        wrong = version != annotator.version + 1
        annotator.version, annotator.state = version, target
        annotator.saved += 1
    elif reply.status == 409:  # resynchronise and go on
        annotator.version = reply.json()["extra"]["server"]["version"]
    return reply, wrong


def send_me(port: int, annotator) -> tuple:
    """``GET /api/me/`` as the annotator (the framework's floor); never a wrong version."""
    return request(port, "GET", "/api/me/", headers=token_headers(annotator.token)), False


ME = ("GET", "/api/me/")  # its access-log lines: method, path suffix


def run_phase(
    server: Gunicorn,
    annotators: list,
    send: Callable[[object], tuple],
    match: tuple[str, str],
    seconds: float,
    seed: int,
) -> dict:
    """Every annotator sends one request every INTERVAL seconds for ``seconds`` seconds.

    Shared with ``bench_span_save_api.py``.

    Args:
        server: the running gunicorn.
        annotators: who takes part (one pool thread each).
        send: ``send(annotator) -> (reply, wrong_version)`` makes one timed request.
        match: the (method, path suffix) of its lines in the access log.
        seconds: the phase's length.
        seed: seeds each annotator's start offset in [0, INTERVAL).

    Returns:
        ``{"client": [ms], "due": [s], "server": [ms], "statuses": {code: n}, "bodies":
        [...], "lag": max start delay in ms, "wall": seconds, "wrong_version": n}``.
    """
    rng = random.Random(seed)
    offsets = [rng.uniform(0, INTERVAL) for _ in annotators]
    lock = threading.Lock()
    out = {"client": [], "due": [], "statuses": {}, "bodies": [], "lag": 0.0, "wrong_version": 0}
    start = time.perf_counter() + 0.5

    def work(i: int) -> None:
        step = 0
        while (due := offsets[i] + step * INTERVAL) < seconds:
            step += 1
            pause = start + due - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            lag = (time.perf_counter() - start - due) * 1000
            reply, wrong = send(annotators[i])
            with lock:
                out["client"].append(reply.seconds * 1000)
                out["due"].append(due)
                out["statuses"][reply.status] = out["statuses"].get(reply.status, 0) + 1
                out["lag"] = max(out["lag"], lag)
                out["wrong_version"] += wrong
                if reply.status != 200 and len(out["bodies"]) < 5:
                    out["bodies"].append(f"HTTP {reply.status}: {reply.body[:300]!r}")

    offset = server.log_offset()
    with ThreadPoolExecutor(max_workers=len(annotators)) as pool:
        list(pool.map(work, range(len(annotators))))
    out["wall"] = time.perf_counter() - start
    method, suffix = match
    out["server"] = [
        ms
        for m, path, _status, ms in server.server_times(offset)
        if m == method and path.endswith(suffix)
    ]
    return out


def fmt_row(label: str, result: dict) -> str:
    c, s = summary(result["client"]), summary(result["server"])
    n = len(result["client"])
    errors = n - result["statuses"].get(200, 0)
    return (
        f"{label:22} {n:>5} {n / result['wall']:>6.1f} {errors:>6} | "
        f"{c['p50']:>6.1f} / {c['p95']:>6.1f} / {c['p99']:>6.1f} / {c['max']:>6.1f} | "
        f"{s['p50']:>6.1f} / {s['p95']:>6.1f} / {s['p99']:>6.1f} | {result['lag']:>7.1f}"
    )


# The head of the table of fmt_row lines.
TABLE_HEAD = (
    f"\n{'phase':22} {'n':>5} {'req/s':>6} {'errors':>6} | client ms p50 / p95 / p99 "
    f"/ max      | server ms p50 / p95 / p99 | lag ms"
)
LAG_NOTE = "(lag: the latest any request left after its due time; the client kept up if small)"


def window_p95s(result: dict) -> str:
    """The client's p95 (ms) in each WINDOW of the phase, comma-separated, to show bursts."""
    windows = {}
    for due, ms in zip(result["due"], result["client"], strict=True):
        windows.setdefault(int(due // WINDOW), []).append(ms)
    return ", ".join(f"{summary(windows[w])['p95']:.0f}" for w in sorted(windows))


def save_bench_parser(doc: str, concurrency: tuple[int, ...]) -> argparse.ArgumentParser:
    """The options of both save benchmarks, and the loader child's hidden ones.

    Args:
        doc: the script's docstring (its first line describes the command).
        concurrency: the default numbers of annotators, one phase each.

    Returns:
        The parser; a script may add its own options before parsing.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=SECONDS, help="length of each phase")
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=list(concurrency), help="annotators"
    )
    parser.add_argument("--show-queries", action="store_true", help="print the saves' SQL")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--jsonl", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--users", type=int, help=argparse.SUPPRESS)
    return parser


def save_bench_setup(
    tmp: Path, env: dict[str, str], script: Path, users: int, show_queries: bool
) -> dict:
    """Migrate the fresh database and run ``script``'s loader on one document per annotator.

    Args:
        tmp: the work folder (``bench_workdir``); the dataset file is written there.
        env: the environment of the fresh database.
        script: the benchmark, whose ``--load`` child makes the rows.
        users: how many annotators (and documents: synthetic, seeded with SEED).
        show_queries: let the loader print the SQL it counts.

    Returns:
        What the loader printed (its JSON).
    """
    rng = random.Random(SEED)
    documents = [synthetic_document(rng, N_SENTENCES, N_FACETS) for _ in range(users)]
    (tmp / "var" / "static").mkdir(parents=True)  # no pages here: no collectstatic
    manage(env, "migrate", "--noinput")
    write_jsonl(tmp / "bench.jsonl", documents)
    return run_loader(
        env,
        script,
        "--jsonl",
        str(tmp / "bench.jsonl"),
        "--users",
        str(users),
        *(["--show-queries"] if show_queries else []),
    )


def tokens_obtain(port: int, annotators: list) -> None:
    """Give every annotator an API token (four logins at a time)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        tokens = pool.map(lambda a: obtain_token(port, a.name, PASSWORD), annotators)
        for annotator, token in zip(annotators, tokens, strict=True):
            annotator.token = token


def main() -> int:
    args = save_bench_parser(__doc__, CONCURRENCY).parse_args()
    if args.load:  # child process: Django set up here only
        print(json.dumps(load(args.jsonl, args.users, args.show_queries)))
        return 0

    if not bench_start("bench_save_api"):
        return 0
    users = max(args.concurrency)
    with bench_workdir() as (tmp, env):
        begun = time.perf_counter()
        loaded = save_bench_setup(tmp, env, Path(__file__), users, args.show_queries)
        annotators = [Annotator(username(i), task) for i, task in enumerate(loaded["tasks"])]
        queries = loaded["queries"]
        print(
            f"set-up {time.perf_counter() - begun:.1f} s: {users} annotators, one task each "
            f"({N_SENTENCES} sentences, {N_FACETS} facets); SQL statements per request, as "
            f"Django logs them: save {queries['save']} (first save of a task "
            f"{queries['first save']}), /api/me/ {queries['me']}"
        )
        results = {}
        with Gunicorn(env, tmp) as server:
            tokens_obtain(server.port, annotators)
            for annotator in annotators:
                fetch_state(server.port, annotator)
                annotator.first_version = annotator.version
            print(
                f"gunicorn on 127.0.0.1:{server.port}, 2 sync workers; one request per "
                f"annotator every {INTERVAL:g} s for {args.seconds:g} s per phase"
            )
            for phase, concurrency in enumerate(args.concurrency):
                group = annotators[:concurrency]
                for annotator in group:
                    fetch_state(server.port, annotator)
                seed = SEED + phase
                me, save = partial(send_me, server.port), partial(send_save, server.port)
                results[(concurrency, "me")] = run_phase(server, group, me, ME, args.seconds, seed)
                results[(concurrency, "save")] = run_phase(
                    server, group, save, ("PUT", "/fam/"), args.seconds, seed
                )
                print(f"  {concurrency} annotators done")
            consistent, problems = 0, []
            for annotator in annotators:
                fetch_state(server.port, annotator)
                history = request(
                    server.port,
                    "GET",
                    f"/api/tasks/{annotator.task}/history/",
                    headers=token_headers(annotator.token),
                ).json()
                expected = annotator.first_version + annotator.saved
                if annotator.version == expected and len(history) == annotator.version - 1:
                    consistent += 1
                else:
                    problems.append(
                        f"{annotator.name}: version {annotator.version}, expected {expected}, "
                        f"{len(history)} revisions"
                    )

        print(TABLE_HEAD)
        for (concurrency, kind), result in results.items():
            label = f"{concurrency} x {'PUT fam' if kind == 'save' else 'GET /api/me/'}"
            print(fmt_row(label, result))
        print(LAG_NOTE)
        for concurrency in args.concurrency:
            save, me = results[(concurrency, "save")], results[(concurrency, "me")]
            c, r = summary(save["client"]), summary(me["client"])
            errors = len(save["client"]) - save["statuses"].get(200, 0)
            print(
                f"{concurrency} annotators: save / me ratio p50 {c['p50'] / r['p50']:.2f}, "
                f"p95 {c['p95'] / r['p95']:.2f}; statuses {dict(sorted(save['statuses'].items()))}"
                f"; goal p95 < {GOAL_P95_MS:.0f} ms and zero errors: "
                f"{'met' if c['p95'] < GOAL_P95_MS and errors == 0 else 'NOT met'} "
                f"(client side, loopback)"
            )
            print(f"    save p95 per {WINDOW:g} s window (client ms): {window_p95s(save)}")
            for body in save["bodies"] + me["bodies"]:
                print("   ", body)
            if save["wrong_version"]:
                print(f"    {save['wrong_version']} saves answered a version other than base + 1")
        print(
            f"FAMs consistent after the run (version = first + saves answered 200, one revision "
            f"per version): {consistent} / {len(annotators)}"
        )
        for problem in problems[:10]:
            print("   ", problem)
        print(f"load average at the end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
