"""Benchmark: importing an official PolyTope workbook and scoring it, end to end, on PostgreSQL.

The issue's goal: every official workbook (one per annotated system, about 150 segments each)
imported and scored in under 10 s, so 1 s per workbook. Only one official workbook is in
../shared/data (BART's: 68 segments, 140 rows); the nine others are not published there and are
not invented here. So the figure is BART's, timed several times, and set against the 1 s budget.

One timed run, in one process with Django set up (the loader), on a fresh database holding the
imported PolyTope release (1,500 outputs, imported once before timing):

1. ``polytope_workbook_import``: read the .xlsm (data only), parse, place the rows on BART's
   outputs, check everything, replace BART's rows of the released set in one transaction
   (which also files a scoring job through ``scored_spans_changed``);
2. ``scoring_job_run_inline`` on that job: the chunks the workers would run, in this process
   (the span-derived scores of the annotated outputs: PolyTope per segment, its breakdown).

Each run replaces the rows the previous one wrote, as a re-import does. Reported: the best and
median of the runs, each phase's median, and the ratio of the best to the budget. Checked after
the runs: the pooled score from the stored spans (the core) and from the scoring job's rows
(penalty and words summed) agree, and are the published 89.449 within 0.01. Run from the
repository root:

    .venv/bin/python bench/bench_polytope_import.py            # about 1 min
    .venv/bin/python bench/bench_polytope_import.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from _common import POLYTOPE_RELEASE, release_missing
from _server import bench_start, bench_workdir, manage, run_loader

WORKBOOK = (
    POLYTOPE_RELEASE.parent
    / "outputs_with_human_annotation"
    / "Human_Annotation_Summarization_BART.xlsm"
)
BUDGET_SECONDS = 10.0
WORKBOOKS = 10  # one per system of the release
PER_WORKBOOK = BUDGET_SECONDS / WORKBOOKS
PUBLISHED = 89.449  # ../shared/data/polytope-release/PROVENANCE.md
SLUG = "cnndm-polytope"


def load(runs: int) -> dict:
    """In the loader process: import the release once, then time import + scoring ``runs`` times."""
    from _data import django_setup

    django_setup()
    from annotation.corpus.models import Dataset
    from annotation.corpus.services import dataset_import
    from annotation.spans.models import SpanAnnotation, output_texts
    from annotation.spans.services_workbook import polytope_workbook_import
    from scoring.metrics.leaderboard.polytope import POLYTOPE_PENALTY, POLYTOPE_WORDS
    from scoring.metrics.polytope import Issue, Segment, score_system
    from scoring.scores.models import DocumentScore, JobStatus, JobTrigger, ScoringJob
    from scoring.scores.services import scoring_job_run_inline

    start = time.perf_counter()
    dataset_import(format_name="polytope-release", source=POLYTOPE_RELEASE, slug=SLUG)
    release_seconds = time.perf_counter() - start
    dataset = Dataset.objects.get(slug=SLUG)
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        result = polytope_workbook_import(
            dataset=dataset, system_slug="bart", source=WORKBOOK, filename=WORKBOOK.name
        )
        imported = time.perf_counter()
        job = ScoringJob.objects.filter(
            dataset=dataset, trigger=JobTrigger.SPANS, status=JobStatus.QUEUED
        ).latest("pk")
        job = scoring_job_run_inline(job=job)
        done = time.perf_counter()
        if job.status != JobStatus.SUCCEEDED:
            raise RuntimeError(f"scoring job {job.pk} ended {job.status}: {job.error}")
        timings.append({"import": imported - start, "score": done - imported})
    rows = SpanAnnotation.objects.filter(
        annotation_set__dataset=dataset, output__system__slug="bart"
    ).select_related("output__document")
    core = score_system(
        [Segment(str(r.output_id), output_texts(r.output)[0]) for r in rows],
        [Issue(str(r.output_id), e["type"], e["label"]) for r in rows for e in r.errors],
    )
    stored = dict.fromkeys((POLYTOPE_PENALTY, POLYTOPE_WORDS), 0.0)
    for metrics in DocumentScore.objects.filter(
        version__system__slug="bart", version__dataset=dataset
    ).values_list("metrics", flat=True):
        for metric in stored:
            stored[metric] += metrics.get(metric, 0.0)
    return {
        "release_seconds": release_seconds,
        "timings": timings,
        "segments": result.placed,
        "errors": result.errors,
        "rows": result.rows,
        "report_lines": len(result.report),
        "core_score": core.score,
        "job_score": 100 * (1 - stored[POLYTOPE_PENALTY] / stored[POLYTOPE_WORDS]),
        "words": core.words,
        "severities": {k.name.lower(): n for k, n in core.severity_counts().items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs (default 7)")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:
        print(json.dumps(load(args.runs)))
        return 0
    if release_missing("bench_polytope_import", "PolyTope", POLYTOPE_RELEASE):
        return 0
    if not WORKBOOK.is_file():
        print(f"bench_polytope_import: skipped, BART's workbook is not at {WORKBOOK}")
        return 0
    if not bench_start("bench_polytope_import"):
        return 0
    with bench_workdir() as (_, env):
        manage(env, "migrate", "--noinput")
        found = run_loader(env, Path(__file__), "--runs", str(args.runs))
    totals = sorted(t["import"] + t["score"] for t in found["timings"])
    best, median = totals[0], statistics.median(totals)
    phase = {k: statistics.median(t[k] for t in found["timings"]) for k in ("import", "score")}
    print(
        "Only one official workbook is available locally (BART's, in ../shared/data); the "
        f"other {WORKBOOKS - 1} systems' workbooks are not published there and are not "
        "invented, so the budget is checked per workbook."
    )
    print(
        f"input: {WORKBOOK.name}: {found['rows']} rows, {found['segments']} segments, "
        f"{found['errors']} errors, {found['report_lines']} report lines; the release "
        f"(1,500 outputs) imported once first in {found['release_seconds']:.1f} s"
    )
    print(
        f"import + score, {len(totals)} runs: best {best:.3f} s, median {median:.3f} s "
        f"(import {phase['import']:.3f} s, scoring job {phase['score']:.3f} s, medians)"
    )
    print(
        f"budget: {BUDGET_SECONDS:.0f} s for {WORKBOOKS} workbooks = {PER_WORKBOOK:.1f} s each; "
        f"best / budget = {best / PER_WORKBOOK:.2f}, median / budget = "
        f"{median / PER_WORKBOOK:.2f} ({'within' if median <= PER_WORKBOOK else 'OVER'})"
    )
    print(
        f"estimate for {WORKBOOKS} workbooks (not measured): {WORKBOOKS * median:.1f} s (a spans "
        "job scores only the outputs with span annotations, so ten imports cost about ten "
        "times one, whether their jobs are shared or not)"
    )
    agree = abs(found["core_score"] - found["job_score"]) < 1e-9
    published = abs(found["core_score"] - PUBLISHED) <= 0.01
    severities = ", ".join(f"{n} {name}" for name, n in found["severities"].items())
    same = "same" if agree else "DIFFERENT"
    print(
        f"check: BART pooled PolyTope {found['core_score']:.3f} from the stored spans, "
        f"{found['job_score']:.3f} from the scoring job's rows ({same}); "
        f"published {PUBLISHED} ({'within' if published else 'NOT within'} 0.01); {severities}; "
        f"{found['words']:,} words"
    )
    return 0 if agree and published else 1


if __name__ == "__main__":
    sys.exit(main())
