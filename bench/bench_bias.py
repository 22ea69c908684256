"""Benchmark: a bias run over 11,490 CNN/DM-shaped documents x 10 systems (+ references), 2 workers.

* The run (the goal): a fresh PostgreSQL database holding the synthetic documents, their
  references and ten systems' outputs; two Celery worker processes (solo pool) on a queue of
  their own; a child process asks for a run (``bias_run_start``, as POST /api/.../bias/ does)
  and polls the run's row; the time from the request to the run seen succeeded.
* The core against its peer, on the same pairs (the first ``--peer-documents`` documents'
  references and outputs, tokenized alike): ours is ``item_bias`` (every measure: fragments,
  novel and repeated 1-4-grams, fusion and positions) with each document prepared once, as a
  chunk does; the peer is summ-eval's ``DataStatsMetric.evaluate_example`` with newsroom's
  ``Fragments`` (coverage, density, compression, novel and repeated n-grams), the attributed
  copy in ``tests/metrics/fragments_reference.py``. Both give the same figures; checked.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

from _common import ROOT, best_of
from _server import bench_start, bench_workdir, manage, run_loader
from _stats import load_average
from bench_scoring import Workers, queue_forget, redis_missing

SEED = 20261125
DOCUMENTS = 11_490
SYSTEMS = 10  # five extractive, five "abstractive" (extractive picks with words replaced)
PEER_DOCUMENTS = 1_000
SLUG = "bias-bench"
GOAL_SECONDS = 60.0
RUN_TIMEOUT = 900.0
REPLACE = (0.08, 0.12, 0.16, 0.20, 0.24)  # the abstractive systems' share of replaced words


def corpus(documents: int) -> tuple[list[dict], dict[str, tuple[str, list[dict]]]]:
    """The seeded documents and ten systems' outputs: ``{slug: (kind, [{doc_id, sentences}])}``."""
    import numpy as np
    from _cnndm import cnndm_documents, extractive_outputs

    docs = cnndm_documents(documents, SEED)
    sentences = {d["id"]: d["sentences"] for d in docs}
    systems: dict[str, tuple[str, list[dict]]] = {}
    rng = np.random.default_rng(SEED + 7)
    for number in range(SYSTEMS):
        quality = 0.1 + 0.8 * number / max(1, SYSTEMS - 1)
        picks = extractive_outputs(docs, quality, SEED + 100 + number)
        if number < SYSTEMS // 2:
            outputs = [
                {
                    "doc_id": o["doc_id"],
                    "sentences": [sentences[o["doc_id"]][i] for i in o["extracted"]],
                }
                for o in picks
            ]
            systems[f"ext-{number:02d}"] = ("extractive", outputs)
            continue
        share = REPLACE[number - SYSTEMS // 2]
        outputs = []
        for o in picks:
            summary = []
            for i in o["extracted"]:
                words = sentences[o["doc_id"]][i].split()
                swap = rng.random(len(words)) < share
                summary.append(
                    " ".join(
                        f"novel{int(rng.integers(5000))}" if s else w
                        for w, s in zip(words, swap, strict=True)
                    )
                )
            outputs.append({"doc_id": o["doc_id"], "sentences": summary})
        systems[f"abs-{number:02d}"] = ("abstractive", outputs)
    return docs, systems


# --- the child processes (Django set up) -------------------------------------------------------


def load(documents: int) -> dict:
    """Write the dataset with the ORM (no import event, so nothing else is queued)."""
    from _data import django_setup

    django_setup()
    from annotation.corpus.models import Dataset, Document, Reference
    from annotation.systems.models import OutputVersion, System, SystemOutput

    start = time.perf_counter()
    docs, systems = corpus(documents)
    generated = time.perf_counter() - start
    dataset = Dataset.objects.create(slug=SLUG, name="Bias benchmark (synthetic CNN/DM)")
    Document.objects.bulk_create(
        (
            Document(dataset=dataset, external_id=d["id"], position=n, sentences=d["sentences"])
            for n, d in enumerate(docs)
        ),
        batch_size=2000,
    )
    ids = dict(dataset.documents.values_list("external_id", "id"))
    Reference.objects.bulk_create(
        (Reference(document_id=ids[d["id"]], sentences=d["reference"]) for d in docs),
        batch_size=2000,
    )
    pairs = len(docs)
    for slug, (kind, outputs) in systems.items():
        system = System.objects.create(slug=slug, name=slug, kind=kind)
        version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
        SystemOutput.objects.bulk_create(
            (
                SystemOutput(
                    system=system,
                    version=version,
                    document_id=ids[o["doc_id"]],
                    sentences=o["sentences"],
                )
                for o in outputs
            ),
            batch_size=2000,
        )
        pairs += len(outputs)
    return {"pairs": pairs, "generate": generated, "load": time.perf_counter() - start - generated}


def request_and_wait() -> dict:
    """Ask for a run as the API does and poll its row until it finishes."""
    from _data import django_setup

    django_setup()
    from annotation.corpus.models import Dataset
    from scoring.bias.models import BiasRun
    from scoring.bias.services import bias_run_start

    dataset = Dataset.objects.get(slug=SLUG)
    start = time.perf_counter()
    run, queued = bias_run_start(dataset=dataset, user=None)
    requested = time.perf_counter() - start
    assert queued, "a run was expected to be queued"
    deadline = start + RUN_TIMEOUT
    while time.perf_counter() < deadline:
        run = BiasRun.objects.get(pk=run.pk)
        if run.finished:
            break
        time.sleep(0.1)
    total = time.perf_counter() - start
    planned = (run.started_at - run.created_at).total_seconds() if run.started_at else None
    return {
        "status": run.status,
        "error": run.error,
        "total": total,
        "request": requested,
        "queued_to_started": planned,
        "chunks": run.chunks_total,
        "pairs": run.pairs_total,
        "rows": {
            row.source: {"coverage": row.coverage, "density": row.density, "novel": row.novel}
            for row in run.rows.all()
        },
    }


# --- the core against the peer (no Django) ------------------------------------------------------


def core_and_peer(documents: int, repeats: int) -> dict:
    """Time ours and the peer on the same pairs; check they agree."""
    sys.path.insert(0, str(ROOT))
    from scoring.metrics.bias import item_bias, prepare_document, tokenize
    from tests.metrics.fragments_reference import DataStatsMetric

    docs, systems = corpus(documents)
    summaries = {d["id"]: [d["reference"]] for d in docs}
    for _, outputs in systems.values():
        for o in outputs:
            summaries[o["doc_id"]].append(o["sentences"])
    tokenized = [
        (
            [tokenize(s) for s in d["sentences"]],
            [[tokenize(s) for s in summary] for summary in summaries[d["id"]]],
        )
        for d in docs
    ]
    pairs = sum(len(s) for _, s in tokenized)

    def ours():
        out = []
        for document, summs in tokenized:
            prepared = prepare_document(document)
            out.extend(item_bias(summary, prepared) for summary in summs)
        return out

    metric = DataStatsMetric()

    def peer():
        out = []
        for document, summs in tokenized:
            text = [t for s in document for t in s]
            out.extend(
                metric.evaluate_example([t for s in summary for t in s], text) for summary in summs
            )
        return out

    ours_s, items = best_of(ours, repeats=repeats)
    peer_s, scores = best_of(peer, repeats=repeats)
    worst = 0.0
    for item, score in zip(items, scores, strict=True):
        pairs_of = [
            (item.fragments.coverage, score["coverage"]),
            (item.fragments.density, score["density"]),
            (item.fragments.compression, score["compression"]),
        ]
        for n in range(1, 5):
            if item.ngrams.novel[n - 1] is not None:
                pairs_of.append((item.ngrams.novel[n - 1], score[f"percentage_novel_{n}-gram"]))
        worst = max(worst, *(abs(a - b) for a, b in pairs_of))
    return {
        "documents": documents,
        "pairs": pairs,
        "ours": ours_s,
        "peer": peer_s,
        "max_diff": worst,
    }


# --- the parent ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="What is measured, and figures: bench/README.md.",
    )
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--peer-documents", type=int, default=PEER_DOCUMENTS)
    parser.add_argument("--repeats", type=int, default=3, help="best of, for the core and the peer")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="broker URL")
    parser.add_argument("--no-db", action="store_true", help="the core and the peer only")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--wait", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:
        print(json.dumps(load(args.documents)))
        return 0
    if args.wait:
        print(json.dumps(request_and_wait()))
        return 0

    print(f"load average at the start {load_average()}")
    figures = core_and_peer(args.peer_documents, args.repeats)
    per_pair = 1e3 * figures["ours"] / figures["pairs"], 1e3 * figures["peer"] / figures["pairs"]
    print(
        f"core, first {figures['documents']:,} documents ({figures['pairs']:,} pairs, best of "
        f"{args.repeats}): ours {figures['ours']:.2f} s ({per_pair[0]:.3f} ms/pair, every "
        f"measure); summ-eval/newsroom {figures['peer']:.2f} s ({per_pair[1]:.3f} ms/pair); "
        f"ours {figures['peer'] / figures['ours']:.1f}x faster; largest difference "
        f"{figures['max_diff']:.1e}"
    )
    if args.no_db:
        return 0
    if redis_missing("bench_bias", args.redis) or not bench_start("bench_bias"):
        return 0
    queue = f"bench-bias-{uuid.uuid4().hex[:8]}"
    try:
        with bench_workdir() as (tmp, env):
            env.update(CELERY_BROKER_URL=args.redis, CELERY_QUEUE=queue)
            (tmp / "var" / "static").mkdir(parents=True)
            manage(env, "migrate", "--noinput")
            loaded = run_loader(env, Path(__file__), "--documents", str(args.documents))
            print(
                f"set-up: {args.documents:,} documents, {loaded['pairs']:,} (document, summary) "
                f"pairs (references + {SYSTEMS} systems); generated in {loaded['generate']:.1f} s, "
                f"written in {loaded['load']:.1f} s"
            )
            with Workers(env, queue, args.workers, tmp) as workers:
                cpu = workers.cpu_seconds()
                answer = run_loader_wait(env)
                workers.wait_idle(args.redis)
                used = workers.cpu_seconds() - cpu
                tasks = workers.task_seconds()
                for line in workers.errors()[:5]:
                    print("   ", line)
            chunk = [s for _, s in tasks.get("loupe.bias.chunk", [])]
            total = answer["total"]
            verdict = (
                "met" if answer["status"] == "succeeded" and total < GOAL_SECONDS else "NOT met"
            )
            print(
                f"run: {answer['status']} {answer['error']} in {total:.1f} s end to end with "
                f"{args.workers} workers ({answer['chunks']} chunks of 250 documents, "
                f"{answer['pairs']:,} pairs; request {answer['request']:.2f} s incl. the digest; "
                f"queued to planned {answer['queued_to_started'] or 0:.2f} s; chunk tasks "
                f"{min(chunk, default=0):.2f}-{max(chunk, default=0):.2f} s, {sum(chunk):.1f} s "
                f"together; workers' CPU {used:.1f} s); goal under {GOAL_SECONDS:.0f} s: {verdict}"
            )
            rows = answer["rows"]
            dens = max(rows, key=lambda s: rows[s]["density"])
            print(
                f"sources: {len(rows)}; densest {dens}; novel unigrams "
                + ", ".join(f"{s} {100 * r['novel'][0]:.1f}%" for s, r in sorted(rows.items()))
            )
            cpu_pair = 1e3 * used / answer["pairs"]
            peer_all = answer["pairs"] * per_pair[1] / 1e3
            print(
                f"ratio: the run used {cpu_pair:.3f} ms of worker CPU per pair (reading, "
                f"tokenizing, every measure, storing) against the peer's {per_pair[1]:.3f} ms per "
                f"pair for its subset of the measures in memory: ours "
                f"{per_pair[1] / cpu_pair:.1f}x less CPU; the peer alone would take "
                f"{peer_all:.0f} s on one core, {peer_all / args.workers:.0f} s on {args.workers}"
            )
    finally:
        queue_forget(args.redis, queue)
    print(f"load average at the end {load_average()}")
    return 0


def run_loader_wait(env: dict[str, str]) -> dict:
    """The ``--wait`` child: request a run and poll it (Django set up there, not timed)."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__)), "--wait"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"--wait failed (exit {done.returncode}):\n{done.stdout}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    sys.exit(main())
