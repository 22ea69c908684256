"""Benchmark: AutoFAR-L over 11,490 synthetic CNN/DM-shaped documents x 10 systems, 2 workers."""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path

from _common import FAR_RELEASE, release_missing
from _server import bench_start, bench_workdir, manage, run_loader
from _stats import load_average
from bench_scoring import Workers, queue_forget, redis_command, redis_missing

SEED = 20261125
DOCUMENTS = 11_490  # the CNN/DM test split
SYSTEMS = 10
SLUG, FIT_SLUG = "cnndm-autofar", "cnndm-far"
GOAL_SECONDS = 60.0
RUN_TIMEOUT = 900.0
POLL = 0.1
PEER_DOCUMENTS = 100  # rouge-score pair by pair is about 130x slower: a sample, extrapolated
TASK_LABELS = {
    "loupe.autofar.run": "plan and dispatch",
    "loupe.autofar.chunk": "chunk",
    "loupe.autofar.run_done": "callback",
}


# --- loader (child process, Django set up) ------------------------------------------------------


def load(folder: Path, documents: int, systems: int) -> dict:
    """Import the FAR release and fit AutoFAR on it; write the synthetic target dataset (no FAMs)
    and its extractive systems. Nothing here is timed as part of the run."""
    import django

    django.setup()
    from _cnndm import cnndm_documents
    from bench_scoring import add_systems

    from annotation.corpus.models import Dataset
    from annotation.corpus.services import bundle_import, dataset_import
    from annotation.imports.bundle import (
        DatasetRecord,
        DocumentRecord,
        ImportBundle,
        ReferenceRecord,
    )
    from scoring.autofar.services import autofar_fit_obtain

    times = {}
    start = time.perf_counter()
    dataset_import(format_name="far-release", source=FAR_RELEASE, slug=FIT_SLUG)
    fit = autofar_fit_obtain(dataset=Dataset.objects.get(slug=FIT_SLUG)).fit
    times["fit"] = time.perf_counter() - start
    start = time.perf_counter()
    docs = cnndm_documents(documents, SEED)
    times["generate"] = time.perf_counter() - start
    start = time.perf_counter()
    bundle = ImportBundle(
        dataset=DatasetRecord(slug=SLUG, name="AutoFAR-L bench", source="bench_autofar_l.py"),
        documents=[
            DocumentRecord(
                external_id=d["id"],
                sentences=tuple(d["sentences"]),
                references=(ReferenceRecord(sentences=tuple(d["reference"])),),
            )
            for d in docs
        ],
    )
    bundle_import(bundle=bundle, slug=SLUG)
    add_systems(docs, SLUG, systems)
    times["import"] = time.perf_counter() - start
    sample = [(d["reference"], d["sentences"]) for d in docs[:PEER_DOCUMENTS]]
    (folder / "sample.json").write_text(json.dumps(sample))
    pairs = sum(len(d["reference"]) * len(d["sentences"]) for d in docs)
    return {"times": times, "fit": fit.pk, "features": fit.features, "pairs": pairs}


# --- the peer: rouge-score on the same pairs ----------------------------------------------------


def peer(sample: list) -> tuple[float, float, int]:
    """rouge-score's RougeScorer (1, 2, L, stemmed) on every (facet, sentence) pair of the sample,
    and ours (``allpairs``) on the same documents; seconds each, and the pair count."""
    from rouge_score.rouge_scorer import RougeScorer

    from scoring.metrics.rouge import allpairs

    scorer = RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    count = sum(len(r) * len(s) for r, s in sample)
    start = time.perf_counter()
    for reference, sentences in sample:
        for facet in reference:
            for sentence in sentences:
                scorer.score(facet, sentence)
    theirs = time.perf_counter() - start
    start = time.perf_counter()
    for reference, sentences in sample:
        allpairs(reference, sentences)
    return theirs, time.perf_counter() - start, count


# --- the parent: workers, the command, polling ----------------------------------------------------


def _run_row(database_url: str, run_id: int) -> dict:
    import psycopg2

    connection = psycopg2.connect(database_url)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT status, chunks_total, chunks_done, scores_written, started_at, "
                "finished_at, error, result FROM autofar_autofarrun WHERE id = %s",
                [run_id],
            )
            row = cursor.fetchone()
            cursor.execute("SELECT count(*) FROM scores_documentscore WHERE metrics ? 'autofar_l'")
            rows = cursor.fetchone()[0]
            cursor.execute("SELECT count(*) FROM fams_fam f JOIN fams_annotationset s "
                           "ON s.id = f.annotation_set_id WHERE s.kind = 'machine'")  # fmt: skip
            fams = cursor.fetchone()[0]
    finally:
        connection.close()
    keys = ("status", "chunks_total", "chunks_done", "scores_written", "started_at",
            "finished_at", "error", "result")  # fmt: skip
    return {**dict(zip(keys, row, strict=True)), "rows": rows, "machine_fams": fams}


def end_to_end(env: dict, database_url: str) -> dict:
    """``manage.py autofar_l --queue`` (fit reused by its digest, the run queued), then poll the
    run until it finished; wall time from the command's start to the run's end."""
    start = time.perf_counter()
    done = manage(env, "autofar_l", "--fit-dataset", FIT_SLUG, "--dataset", SLUG, "--queue",
                  "--format", "json")  # fmt: skip
    command = time.perf_counter() - start
    answer = json.loads(done.stdout)
    assert not answer["fit_created"], "the fit was not reused"
    run_id = answer["run"]["id"]
    while True:
        row = _run_row(database_url, run_id)
        if row["status"] in ("succeeded", "failed"):
            break
        if time.perf_counter() - start > RUN_TIMEOUT:
            raise RuntimeError(f"run {run_id} still {row['status']} after {RUN_TIMEOUT:.0f} s")
        time.sleep(POLL)
    total = time.perf_counter() - start
    return {"total": total, "command": command, **row}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="What is measured, and figures: bench/README.md.",
    )
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument("--systems", type=int, default=SYSTEMS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="broker URL")
    parser.add_argument("--quick", action="store_true", help="smoke test: 1,000 documents")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.documents = 1000
    if args.load:  # child process: Django set up here only
        print(json.dumps(load(args.folder, args.documents, args.systems)))
        return 0
    if release_missing("bench_autofar_l", "FAR", FAR_RELEASE):
        return 0
    if redis_missing("bench_autofar_l", args.redis) or not bench_start("bench_autofar_l"):
        return 0
    queue = f"bench-autofar-{uuid.uuid4().hex[:8]}"
    try:
        return run(args, queue)
    finally:
        queue_forget(args.redis, queue)


def run(args: argparse.Namespace, queue: str) -> int:
    """Set up, run AutoFAR-L end to end with the workers, time the peer, print the figures."""
    with bench_workdir() as (tmp, env):
        env.update(CELERY_BROKER_URL=args.redis, CELERY_QUEUE=queue)
        (tmp / "var" / "static").mkdir(parents=True)
        begun = time.perf_counter()
        manage(env, "migrate", "--noinput")
        loaded = run_loader(
            env, Path(__file__), "--folder", str(tmp), "--documents", str(args.documents),
            "--systems", str(args.systems),
        )  # fmt: skip
        # The imports queued scoring jobs (ROUGE, FAR) on commit: dropped, so the workers run
        # AutoFAR-L alone.
        redis_command(args.redis, "DEL", queue)
        times = loaded["times"]
        print(
            f"set-up {time.perf_counter() - begun:.1f} s (FAR release import and fit "
            f"{times['fit']:.1f} s, generate {times['generate']:.1f} s, import of "
            f"{args.documents:,} documents and {args.systems} systems {times['import']:.1f} s); "
            f"fit {loaded['fit']} with {len(loaded['features'])} features "
            f"({', '.join(loaded['features'])}); {loaded['pairs']:,} (facet, sentence) pairs"
        )
        with Workers(env, queue, args.workers, tmp) as workers:
            result = end_to_end(env, env["DATABASE_URL"])
            workers.wait_idle(args.redis)
            tasks = workers.task_seconds()
            errors = workers.errors()
        sample = json.loads((tmp / "sample.json").read_text())
    theirs, ours_rouge, pairs = peer(sample)
    scale = loaded["pairs"] / pairs
    peer_total = theirs * scale / args.workers  # an ideal split over the same worker count
    run_seconds = (result["finished_at"] - result["started_at"]).total_seconds()
    outputs = result["result"].get("outputs_predicted", 0)
    print(
        f"AutoFAR-L, {args.workers} workers: {result['total']:.1f} s end to end "
        f"(goal < {GOAL_SECONDS:.0f} s: {'met' if result['total'] < GOAL_SECONDS else 'NOT met'}); "
        f"command (fit reused by digest, run queued) {result['command']:.1f} s, run "
        f"{run_seconds:.1f} s from the first plan to finished; status {result['status']}"
        + (f" ({result['error']})" if result["error"] else "")
    )
    print(
        f"  {result['chunks_done']}/{result['chunks_total']} chunks, {outputs:,} outputs "
        f"estimated, {result['rows']:,} autofar_l rows, {result['machine_fams']:,} machine FAMs "
        f"({len(loaded['features'])} sets)"
    )
    for name, label in TASK_LABELS.items():
        durations = [seconds for _, seconds in tasks.get(name, [])]
        if durations:
            print(
                f"  {label}: {len(durations)} task(s), {sum(durations):.1f} s in all, "
                f"longest {max(durations):.2f} s"
            )
    for line in errors[:5]:
        print("   ", line)
    print(
        f"peer: rouge-score RougeScorer(rouge1, rouge2, rougeL, stemmed) pair by pair on the "
        f"first {len(sample)} documents ({pairs:,} pairs) {theirs:.2f} s, ours (allpairs) "
        f"{ours_rouge:.3f} s; extrapolated to the {loaded['pairs']:,} pairs and split ideally "
        f"over {args.workers} workers: {peer_total:.0f} s for the ROUGE matrices alone"
    )
    print(
        f"ratio: AutoFAR-L end to end (ROUGE, machine FAMs, FAR, prediction, writes) takes "
        f"{result['total'] / peer_total:.2f}x the peer's ROUGE alone "
        f"({peer_total / result['total']:.1f}x faster)"
    )
    print(f"load average at the end {load_average()}")
    return 0 if result["status"] == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main())
