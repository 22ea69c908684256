"""Benchmark: concurrent PolyTope span saves (PUT /api/tasks/<id>/spans/), gunicorn, PostgreSQL.

50 annotators (distinct users) each have one PolyTope item (a 4-sentence abstractive summary of
their own 60-sentence document) and one FAM task on the same document. The harness is
``bench_save_api.py``'s: one thread per annotator in a bounded pool, one request every 2 s for
60 s, the first at a seeded random offset in the first 2 s. Every span save sends the
``base_version`` returned by the previous one and alternates between two error lists of five
errors each (spans in the summary, an Omission in the source, one error known only by its
words), so each save is a real change: a new version and a revision.

Reference, measured in the same run, same users, same schedule, same concurrency: ``GET
/api/me/`` (the framework's floor) and the FAM save ``PUT /api/tasks/<id>/fam/`` of
``bench_save_api.py`` (the fastest peer: the same kind of versioned, validated, locked write).
The ratios are the span save's cost over each. The three phases take turns in rounds (default 3
rounds of 20 s each), so a burst of other work on the machine falls on all three alike.

Reported per phase: count, errors (any non-200), p50/p95/p99/max on the client (loopback:
connect, request, whole response) and on gunicorn (access log ``%(D)s``). Afterwards every span
annotation and every FAM is checked: its version must equal its first version plus the saves
answered 200, and its history must hold one revision per version after the first. Run from the
repository root:

    .venv/bin/python bench/bench_span_save_api.py               # about 4 min
    .venv/bin/python bench/bench_span_save_api.py --seconds 6   # smoke test
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from _client import request, token_headers
from _data import (
    N_FACETS,
    N_SENTENCES,
    count_queries,
    django_setup,
)
from _server import Gunicorn, bench_start, bench_workdir
from _stats import load_average, summary
from bench_save_api import (
    GOAL_P95_MS,
    INTERVAL,
    LAG_NOTE,
    ME,
    PASSWORD,
    SEED,
    STATES,
    TABLE_HEAD,
    WINDOW,
    fmt_row,
    run_phase,
    save_bench_parser,
    save_bench_setup,
    send_me,
    tokens_obtain,
    username,
    window_p95s,
)

CONCURRENCY = (50,)
SYSTEM = "bench-abs"


def word_at(text: str, n: int) -> tuple[int, int, str]:
    """The ``n``-th whitespace-separated word of ``text`` as ``(start, end, word)``."""
    start = 0
    for index, word in enumerate(text.split(" ")):
        if index == n:
            return start, start + len(word), word
        start += len(word) + 1
    raise IndexError(n)


def span_states(summary: str, source: str) -> list[list[dict]]:
    """Two lists of five errors in one item; switching between them changes every error."""

    def error(side, text, n, type_, label, reason=""):
        start, end, words = word_at(text, n)
        return {
            "side": side,
            "start": start,
            "end": end,
            "words": words,
            "type": type_,
            "label": label,
            "reason": reason,
        }

    words_only = {"side": "none", "words": "the whole clause", "type": "Omission"}
    return [
        [
            error("summary", summary, 1, "Addition", "Subject", "not in the article"),
            error("summary", summary, 5, "Inaccuracy Intrinsic", "Number & Time"),
            error("summary", summary, 9, "Word Form", "Attribute"),
            error("source", source, 3, "Omission", "Predicate", "a key point"),
            {**words_only, "label": "Whole Sentence"},
        ],
        [
            error("summary", summary, 2, "Inaccuracy Extrinsic", "Object"),
            error("summary", summary, 6, "Duplication", "Predicate"),
            error("summary", summary, 10, "Word Order", "Function Word"),
            error("source", source, 4, "Omission", "Place & Name"),
            {**words_only, "label": "Attribute"},
        ],
    ]


def load(jsonl: Path, users: int, show_queries: bool) -> dict:
    """Loader (child process): documents, a system's outputs, annotators, two campaigns.

    Args:
        jsonl: the dataset file, one document per annotator.
        users: how many annotators.
        show_queries: print the SQL of one span save, one FAM save and ``GET /api/me/``.

    Returns:
        ``{"fam": [task id per annotator], "spans": [...], "states": [[errors A, errors B]
        per annotator], "queries": {...}}``; the query count makes two span saves (states 0
        then 1) on the first annotator's item.
    """
    django_setup()
    from rest_framework.authtoken.models import Token

    from annotation.accounts.roles import ANNOTATOR
    from annotation.accounts.services import user_create
    from annotation.campaigns import services
    from annotation.campaigns.models import Task
    from annotation.corpus.models import Dataset
    from annotation.corpus.services import dataset_import
    from annotation.systems.models import OutputVersion, System, SystemOutput

    dataset_import(format_name="jsonl", source=jsonl, slug="bench", name="Bench")
    dataset = Dataset.objects.get(slug="bench")
    for i in range(users):
        user_create(username=username(i), password=PASSWORD, role=ANNOTATOR)
    # The outputs go in directly (no upload): an upload would queue a scoring job, and no
    # worker runs here. Each summary is the document's reference (4 sentences, ~60 words).
    system = System(slug=SYSTEM, name="Bench abstractive", kind="abstractive")
    system.full_clean()
    system.save()
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    for document in dataset.documents.prefetch_related("references"):
        output = SystemOutput(
            system=system,
            version=version,
            document=document,
            sentences=document.references.get(position=0).sentences,
        )
        output.full_clean()
        output.save()
    pairs = [(f"doc-{i:03d}", username(i)) for i in range(users)]
    fam = services.campaign_create(dataset=dataset, slug="bench-fam", name="FAM", scorers=[])
    services.tasks_assign_manual(campaign=fam, assignments=pairs)
    spans = services.polytope_campaign_create(
        dataset=dataset, slug="bench-spans", name="Spans", systems=[SYSTEM]
    )
    services.tasks_assign_manual(campaign=spans, assignments=pairs)

    def ids(campaign) -> list[int]:
        tasks = {t.annotator.username: t for t in Task.objects.filter(campaign=campaign)}
        return [tasks[username(i)] for i in range(users)]

    fam_tasks, span_tasks = ids(fam), ids(spans)
    states = [
        span_states(" ".join(t.output.sentences), " ".join(t.document.sentences))
        for t in span_tasks
    ]
    first = Token.objects.create(user=span_tasks[0].annotator)
    auth = {"HTTP_AUTHORIZATION": f"Token {first.key}"}

    def put(path: str, body: dict) -> tuple:
        return ("PUT", path, {**auth, "data": json.dumps(body), "content_type": "application/json"})

    span_path = f"/api/tasks/{span_tasks[0].pk}/spans/"
    fam_path = f"/api/tasks/{fam_tasks[0].pk}/fam/"
    # The first save also makes the annotator's row and moves the task to in progress.
    queries = count_queries(
        {
            "first span save": put(span_path, {"base_version": 1, "errors": states[0][0]}),
            "span save": put(span_path, {"base_version": 2, "errors": states[0][1]}),
            "first fam save": put(fam_path, {"base_version": 1, "facets": STATES[0]}),
            "fam save": put(fam_path, {"base_version": 2, "facets": STATES[1]}),
            "me": ("GET", "/api/me/", auth),
        },
        show=show_queries,
    )
    first.delete()  # the benchmark obtains its own tokens
    return {
        "fam": [t.pk for t in fam_tasks],
        "spans": [t.pk for t in span_tasks],
        "states": states,
        "queries": queries,
    }


def error_keys(errors: list[dict]) -> list[tuple]:
    """What identifies a list of errors, whatever the server added (severity)."""
    return [(e["side"], e.get("start"), e.get("end"), e["type"], e["label"]) for e in errors]


@dataclass
class Annotator:
    """One simulated annotator: credentials, tasks, and the states the server holds."""

    name: str
    fam_task: int
    span_task: int
    span_states: list[list[dict]]
    token: str = ""
    version: dict = field(default_factory=dict)  # kind -> the server's version
    state: dict = field(default_factory=dict)  # kind -> index of the server's state, -1 neither
    saved: dict = field(default_factory=lambda: {"fam": 0, "spans": 0})
    first_version: dict = field(default_factory=dict)

    def task(self, kind: str) -> int:
        return self.fam_task if kind == "fam" else self.span_task


def fetch_state(port: int, annotator: Annotator, kind: str) -> None:
    """Read a task's version and which of the two states it holds (untimed)."""
    task = annotator.task(kind)
    reply = request(port, "GET", f"/api/tasks/{task}/", headers=token_headers(annotator.token))
    if reply.status != 200:
        raise RuntimeError(f"task {task}: HTTP {reply.status} {reply.body[:200]!r}")
    body = reply.json()
    if kind == "fam":
        annotator.version[kind] = body["fam"]["version"]
        held, states = body["fam"]["facets"], STATES
    else:
        annotator.version[kind] = body["spans"]["version"]
        held = error_keys(body["spans"]["errors"])
        states = [error_keys(s) for s in annotator.span_states]
    annotator.state[kind] = states.index(held) if held in states else -1


def history_length(port: int, annotator: Annotator, kind: str) -> int:
    path = f"/api/tasks/{annotator.task(kind)}/history/"
    return len(request(port, "GET", path, headers=token_headers(annotator.token)).json())


def send_save(port: int, annotator: Annotator, kind: str):
    """PUT the other state on the last version; returns the reply and whether the answered
    version was not base + 1."""
    target = 1 - annotator.state[kind] if annotator.state[kind] in (0, 1) else 0
    if kind == "fam":
        path = f"/api/tasks/{annotator.fam_task}/fam/"
        body = {"base_version": annotator.version[kind], "facets": STATES[target]}
    else:
        path = f"/api/tasks/{annotator.span_task}/spans/"
        errors = annotator.span_states[target]
        body = {"base_version": annotator.version[kind], "no_errors": False, "errors": errors}
    headers = {**token_headers(annotator.token), "Content-Type": "application/json"}
    reply = request(port, "PUT", path, headers=headers, body=json.dumps(body).encode())
    wrong = False
    if reply.status == 200:
        version = reply.json()["version"]
        wrong = version != annotator.version[kind] + 1
        annotator.version[kind], annotator.state[kind] = version, target
        annotator.saved[kind] += 1
    elif reply.status == 409:  # resynchronise and go on
        annotator.version[kind] = reply.json()["extra"]["server"]["version"]
    return reply, wrong


def merge(total: dict, part: dict, offset: float) -> None:
    """Add one round's phase to the phase's totals; its due times start at ``offset`` s."""
    if not total:
        total.update(
            client=[], due=[], server=[], statuses={}, bodies=[], lag=0.0, wall=0.0, wrong_version=0
        )
    for key in ("client", "server"):
        total[key] += part[key]
    total["due"] += [due + offset for due in part["due"]]
    for status, n in part["statuses"].items():
        total["statuses"][status] = total["statuses"].get(status, 0) + n
    total["bodies"] = (total["bodies"] + part["bodies"])[:5]
    total["lag"] = max(total["lag"], part["lag"])
    total["wall"] += part["wall"]
    total["wrong_version"] += part["wrong_version"]


LABELS = {"me": "GET /api/me/", "fam": "PUT fam", "spans": "PUT spans"}
MATCH = {"me": ME, "fam": ("PUT", "/fam/"), "spans": ("PUT", "/spans/")}


def main() -> int:
    parser = save_bench_parser(__doc__, CONCURRENCY)
    parser.add_argument(
        "--rounds", type=int, default=3, help="the phases take turns this many times"
    )
    args = parser.parse_args()
    if args.load:  # child process: Django set up here only
        print(json.dumps(load(args.jsonl, args.users, args.show_queries)))
        return 0

    if not bench_start("bench_span_save_api"):
        return 0
    users = max(args.concurrency)
    with bench_workdir() as (tmp, env):
        begun = time.perf_counter()
        loaded = save_bench_setup(tmp, env, Path(__file__), users, args.show_queries)
        annotators = [
            Annotator(username(i), fam, spans, states)
            for i, (fam, spans, states) in enumerate(
                zip(loaded["fam"], loaded["spans"], loaded["states"], strict=True)
            )
        ]
        q = loaded["queries"]
        print(
            f"set-up {time.perf_counter() - begun:.1f} s: {users} annotators, each with one "
            f"PolyTope item (a {N_FACETS}-sentence summary of a {N_SENTENCES}-sentence document, "
            f"5 errors per save) and one FAM task; SQL statements per request, as Django logs "
            f"them: span save {q['span save']} (first {q['first span save']}), FAM save "
            f"{q['fam save']} (first {q['first fam save']}), /api/me/ {q['me']}"
        )
        results = {}
        with Gunicorn(env, tmp) as server:
            tokens_obtain(server.port, annotators)
            for annotator in annotators:
                for kind in ("fam", "spans"):
                    fetch_state(server.port, annotator, kind)
                    annotator.first_version[kind] = annotator.version[kind]
            print(
                f"gunicorn on 127.0.0.1:{server.port}, 2 sync workers; one request per "
                f"annotator every {INTERVAL:g} s for {args.seconds:g} s per phase, the phases "
                f"taking turns in {args.rounds} rounds of {args.seconds / args.rounds:g} s"
            )
            senders = {
                "me": partial(send_me, server.port),
                "fam": lambda a: send_save(server.port, a, "fam"),
                "spans": lambda a: send_save(server.port, a, "spans"),
            }
            for phase, concurrency in enumerate(args.concurrency):
                group = annotators[:concurrency]
                for annotator in group:
                    for kind in ("fam", "spans"):
                        fetch_state(server.port, annotator, kind)
                # The three phases take turns in rounds, so a burst of other work on the
                # machine falls on all three alike rather than on whichever ran then.
                for round_ in range(args.rounds):
                    seed = SEED + phase * 100 + round_
                    for kind in ("me", "fam", "spans"):
                        part = run_phase(
                            server,
                            group,
                            senders[kind],
                            MATCH[kind],
                            args.seconds / args.rounds,
                            seed,
                        )
                        offset = round_ * args.seconds / args.rounds
                        merge(results.setdefault((concurrency, kind), {}), part, offset)
                print(f"  {concurrency} annotators done")
            consistent, problems = {"fam": 0, "spans": 0}, []
            for annotator in annotators:
                for kind in ("fam", "spans"):
                    fetch_state(server.port, annotator, kind)
                    expected = annotator.first_version[kind] + annotator.saved[kind]
                    revisions = history_length(server.port, annotator, kind)
                    if annotator.version[kind] == expected and revisions == expected - 1:
                        consistent[kind] += 1
                    else:
                        problems.append(
                            f"{annotator.name} {kind}: version {annotator.version[kind]}, "
                            f"expected {expected}, {revisions} revisions"
                        )

        print(TABLE_HEAD)
        for (concurrency, kind), result in results.items():
            print(fmt_row(f"{concurrency} x {LABELS[kind]}", result))
        print(LAG_NOTE)
        for concurrency in args.concurrency:
            spans = results[(concurrency, "spans")]
            c = summary(spans["client"])
            errors = len(spans["client"]) - spans["statuses"].get(200, 0)
            for kind in ("fam", "me"):
                r = summary(results[(concurrency, kind)]["client"])
                print(
                    f"{concurrency} annotators: span save / {LABELS[kind]} ratio "
                    f"p50 {c['p50'] / r['p50']:.2f}, p95 {c['p95'] / r['p95']:.2f}"
                )
            print(
                f"{concurrency} annotators: span save statuses "
                f"{dict(sorted(spans['statuses'].items()))}; goal p95 < {GOAL_P95_MS:.0f} ms and "
                f"zero errors: "
                f"{'met' if c['p95'] < GOAL_P95_MS and errors == 0 else 'NOT met'} "
                f"(client side, loopback)"
            )
            for kind in ("fam", "spans"):
                print(
                    f"    {LABELS[kind]} p95 per {WINDOW:g} s window (client ms): "
                    f"{window_p95s(results[(concurrency, kind)])}"
                )
            for kind in ("me", "fam", "spans"):
                result = results[(concurrency, kind)]
                for body in result["bodies"]:
                    print(f"    {LABELS[kind]}:", body)
                if result["wrong_version"]:
                    print(
                        f"    {result['wrong_version']} {LABELS[kind]} answered a version "
                        f"other than base + 1"
                    )
        print(
            f"consistent after the run (version = first + saves answered 200, one revision per "
            f"version after the first): span annotations {consistent['spans']} / "
            f"{len(annotators)}, FAMs {consistent['fam']} / {len(annotators)}"
        )
        for problem in problems[:10]:
            print("   ", problem)
        print(f"load average at the end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
