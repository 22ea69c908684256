"""Benchmark: the REALSumm release imported and its 2,500 outputs scored, with 2 Celery workers.

The issue's goal: ``import_dataset --format realsumm`` plus the scoring of its 2,500 outputs in
under 10 s with 2 workers. Each run, on a fresh PostgreSQL database (migrated once) with two
real workers (solo pool, as ``bench_scoring.py`` starts them) on a queue of its own:

1. ``dataset_import`` in the loader process (Django already set up there, as in a long-lived
   server): read both pickles with the restricted unpickler, check everything, write 100
   documents, 25 systems, 2,500 outputs, 2,400 judgments and 2,400 released scores in one
   transaction; its commit sends the scoring job to the workers;
2. the job on the workers (plan, chunks of ROUGE, the callback that builds the score arrays and
   stores the default leaderboard, with the meta-evaluation against LitePyramid), polled in the
   database every 0.1 s until it is seen succeeded. The workers' own task times (from their
   logs) say where the job's time goes; the bias run and the leaderboard warm-up the import
   also queues are listed after it (they run at a low priority, after the job).

Each run imports the release under a new slug (``realsumm-bench-<n>``; the systems exist after
the first, so later runs add a version of each). Reported: every run's import, job and total,
their best and median, the ratio to the 10 s budget and to a reference measured in the same run
(rouge-score pair by pair over the same 2,500 pairs in one process: ROUGE alone); checked after
the runs: the mean LitePyramid recall of three systems on the stored leaderboard against the
pickles' (read by the restricted unpickler) and the number of meta-evaluation rows. Run from
the repository root:

    .venv/bin/python bench/bench_realsumm.py                 # 3 runs, about 1 min
    .venv/bin/python bench/bench_realsumm.py --runs 5 --redis redis://127.0.0.1:6379/3
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

from _common import SHARED, release_missing
from _server import bench_start, bench_workdir, manage, run_loader
from _stats import load_average
from bench_scoring import Workers, queue_forget, redis_missing, task_line

RELEASE = SHARED / "realsumm"
BUDGET_SECONDS = 10.0
WORKERS = 2
POLL = 0.1
JOB_TIMEOUT = 300.0
CHECKED = ("realsumm-semsim", "realsumm-bart-ext", "realsumm-t5-11b")


def load(runs: int) -> dict:
    """In the loader process: ``runs`` times, import the release and wait for its scoring job."""
    from _data import django_setup

    django_setup()
    from annotation.corpus.importers.parsers.realsumm import STUDY, SYSTEMS
    from annotation.corpus.importers.safe_pickle import REALSUMM_GLOBALS, safe_load
    from annotation.corpus.models import Dataset
    from annotation.corpus.services import dataset_import
    from scoring.leaderboards.models import LeaderboardSnapshot
    from scoring.scores.models import DocumentScore, JobStatus, ScoringJob

    timings = []
    for number in range(1, runs + 1):
        slug = f"realsumm-bench-{number}"
        start = time.perf_counter()
        summary = dataset_import(format_name="realsumm", source=RELEASE, slug=slug)
        imported = time.perf_counter()
        dataset = Dataset.objects.get(slug=slug)
        deadline = imported + JOB_TIMEOUT
        while True:
            job = ScoringJob.objects.filter(dataset=dataset).order_by("pk").first()
            if job is not None and job.status in (JobStatus.SUCCEEDED, JobStatus.FAILED):
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"the scoring job of {slug} did not finish in {JOB_TIMEOUT} s")
            time.sleep(POLL)
        done = time.perf_counter()
        if job.status != JobStatus.SUCCEEDED:
            raise RuntimeError(f"scoring job {job.pk} ended {job.status}: {job.error}")
        timings.append(
            {
                "import": imported - start,
                "job": done - imported,
                "total": done - start,
                "job_own": (job.finished_at - job.started_at).total_seconds(),
                "chunks": job.chunks_total,
                "outputs": job.outputs_total,
                "scores": DocumentScore.objects.filter(version__dataset=dataset).count(),
                "judgments": summary.judgments,
                "released": summary.released_scores,
            }
        )
    peer = rouge_peer(dataset)
    # The default view the job stored (all documents); the warm task adds category views.
    snapshot = (
        LeaderboardSnapshot.objects.filter(dataset=dataset, params__startswith="c=None|")
        .order_by("pk")
        .first()
    )
    payload = snapshot.payload if snapshot else {}
    rows = {row["system"]: row for row in payload.get("systems", [])}
    keys = {s.slug: (s.kind, s.key) for s in SYSTEMS}
    pickles = {
        kind: safe_load(RELEASE / "scores_dicts" / f"{name}.pkl", allowed=REALSUMM_GLOBALS)
        for kind, name in (("abstractive", "abs"), ("extractive", "ext"))
    }
    checks = {}
    for slug in CHECKED:
        kind, key = keys[slug]
        values = [pickles[kind][d]["system_summaries"][key]["scores"]["litepyramid_recall"]
                  for d in range(100)]  # fmt: skip
        stored = (rows.get(slug, {}).get("human") or {}).get(STUDY, {}).get("mean")
        checks[slug] = {"pickle": math.fsum(values) / len(values), "leaderboard": stored}
    studies = (payload.get("meta_evaluation") or {}).get("studies", [])
    return {
        "timings": timings,
        "checks": checks,
        "meta_rows": len(studies[0]["rows"]) if studies else 0,
        "snapshot_params": snapshot.params if snapshot else None,
        "peer": peer,
    }


def rouge_peer(dataset) -> dict:
    """The reference measured in the same run: rouge-score's ``RougeScorer`` (ROUGE-1/2/L with
    the stemmer, what Loupe's ROUGE equals) over the same 2,500 (reference, output) pairs, pair
    by pair in this one process: the scoring alone, without import, database or workers."""
    from rouge_score import rouge_scorer

    from annotation.systems.models import SystemOutput

    pairs = [
        (" ".join(reference), " ".join(sentences))
        for sentences, reference in SystemOutput.objects.filter(
            document__dataset=dataset
        ).values_list("sentences", "document__references__sentences")
    ]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    start = time.perf_counter()
    for target, prediction in pairs:
        scorer.score(target, prediction)
    return {"pairs": len(pairs), "seconds": time.perf_counter() - start}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs (default 3)")
    parser.add_argument(
        "--redis",
        default=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"),
        help="broker URL (default: $CELERY_BROKER_URL, else Redis database 0)",
    )
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:
        print(json.dumps(load(args.runs)))
        return 0
    if release_missing("bench_realsumm", "REALSumm", RELEASE):
        return 0
    if redis_missing("bench_realsumm", args.redis) or not bench_start("bench_realsumm"):
        return 0
    queue = f"bench-realsumm-{uuid.uuid4().hex[:8]}"
    try:
        with bench_workdir() as (tmp, env):
            env.update(CELERY_BROKER_URL=args.redis, CELERY_QUEUE=queue)
            manage(env, "migrate", "--noinput")
            with Workers(env, queue, WORKERS, tmp) as workers:
                found = run_loader(env, Path(__file__), "--runs", str(args.runs))
                workers.wait_idle(args.redis)
                errors = workers.errors()
                tasks = workers.task_seconds()
    finally:
        queue_forget(args.redis, queue)
    return report(found, errors, tasks)


def report(found: dict, errors: list[str], tasks: dict) -> int:
    """Print the runs, the budget ratio, the workers' task times and the checks; 1 when a check
    fails."""
    timings = found["timings"]
    first = timings[0]
    print(
        f"input: {RELEASE}: {first['outputs']:,} outputs scored in {first['chunks']} chunk(s), "
        f"{first['scores']:,} score rows, {first['judgments']:,} judgments and "
        f"{first['released']:,} released scores written by the import; {WORKERS} workers"
    )
    for number, t in enumerate(timings, 1):
        print(
            f"  run {number}: import {t['import']:.2f} s + job seen done {t['job']:.2f} s = "
            f"{t['total']:.2f} s (the job's own start to finish {t['job_own']:.2f} s)"
        )
    totals = sorted(t["total"] for t in timings)
    best, median = totals[0], statistics.median(totals)
    phase = {k: statistics.median(t[k] for t in timings) for k in ("import", "job", "job_own")}
    print(
        f"import + scoring, {len(totals)} runs: best {best:.2f} s, median {median:.2f} s "
        f"(import {phase['import']:.2f} s, job {phase['job']:.2f} s, medians)"
    )
    print(
        f"budget {BUDGET_SECONDS:.0f} s: best / budget = {best / BUDGET_SECONDS:.2f}, median / "
        f"budget = {median / BUDGET_SECONDS:.2f} "
        f"({'within' if median < BUDGET_SECONDS else 'OVER'})"
    )
    peer = found["peer"]
    print(
        f"reference, same run: rouge-score's RougeScorer over the same {peer['pairs']:,} pairs, "
        f"pair by pair in one process (ROUGE alone): {peer['seconds']:.2f} s; ours end to end / "
        f"reference = {median / peer['seconds']:.2f} (median)"
    )
    print(f"over all runs, {task_line(tasks)}")
    ok = True
    for slug, check in found["checks"].items():
        same = check["leaderboard"] is not None and check["leaderboard"] == check["pickle"]
        ok &= same
        print(
            f"check: {slug} mean LitePyramid recall {check['pickle']:.6f} in the pickle, "
            f"{check['leaderboard']} on the stored leaderboard ({'same' if same else 'DIFFERENT'})"
        )
    print(
        f"check: the stored default leaderboard ({found['snapshot_params']}) has "
        f"{found['meta_rows']} meta-evaluation rows"
    )
    ok &= found["meta_rows"] > 0
    for line in errors[:5]:
        print("   ", line)
    print(f"load average at the end {load_average()}")
    return 0 if ok and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
