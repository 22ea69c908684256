"""Benchmark: a FAM campaign's agreement, 11,490 documents x 3 annotators, on one worker.

Input: the FAR release's 89 released FAMs (read with ``parse_far_release``, where they are),
cycled over 11,490 documents (the CNN/DM test set's size), each copied by three annotators with
seeded perturbations (``SEED``): a facet marked "no support" (8%), a group dropped or a sentence
added to one (12%), a new one-sentence group (10%), a sentence moved to its neighbour (10%).
Building the input is not timed.

Ours:

* the core: ``scoring.metrics.agreement.fam_campaign_agreement``, every figure the campaign
  page shows (Jaccard, F1 and MASI alpha on support unions and on groups, category kappa and
  alpha), per document, per pair and overall, with 1,000 bootstrap resamples over documents;
* the worker (``--db``, the default when PostgreSQL answers): a fresh database with the
  campaign (documents, tasks, submitted FAMs, two saves per task, suggestion events), then
  ``fam_agreement_run_compute`` (the job kernel's run and chunk in one process, as a Celery
  worker runs them): reading the rows, the digest, the figures, the suggestions split and
  storing the result.

Peers, measured in the same run on the same units (alpha with the MASI distance over the
(document, facet) units, values the support sentences):

* the ``krippendorff`` package (0.9, numpy), given the MASI distance matrix of the distinct
  values (built with numpy, timed with it) through its callable metric;
* NLTK's ``AnnotationTask(distance=masi_distance).alpha()``.

Neither fits the full campaign: the package builds a units x values x values array (40 GiB
already for a tenth of the campaign), NLTK adds up its value counts item by item. So the peers
and ours are timed on the same slice of the first ``SLICE`` documents, and the ratio is
against the fastest peer there (per document). The alphas must agree to 1e-9 (NLTK 3.10's
MASI uses 2/3 and 1/3 in floating point). Run from the repository root:

    .venv/bin/python bench/bench_agreement.py          # about a minute and a half
    .venv/bin/python bench/bench_agreement.py --no-db  # the core and the peers only
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from itertools import combinations
from pathlib import Path

from _common import FAR_RELEASE, best_of, release_missing  # puts the repo on sys.path

SEED = 20200705
N_DOCUMENTS = 11_490
ANNOTATORS = ("ann-1", "ann-2", "ann-3")
# The peers on a slice: the krippendorff package allocates units x values x values floats
# (60 documents: about 210 units x 200 values, 70 MB; 1,149 documents would need 40 GiB).
SLICE = 60
NLTK_SLICE = 60
RUNS = 3
BUDGET_SECONDS = 10.0


def far_fams() -> list[tuple[int, list[list[list[int]]]]]:
    """The released FAMs as ``(sentence count, facets' groups)``, in the release's order."""
    from annotation.corpus.importers.parsers.far import parse_far_release

    bundle = parse_far_release(FAR_RELEASE)
    sentences = {doc.external_id: len(doc.sentences) for doc in bundle.documents}
    (released,) = bundle.annotation_sets
    return [
        (
            sentences[fam.document_id],
            [[sorted(set(group)) for group in facet.groups] for facet in fam.facets],
        )
        for fam in released.fams
    ]


def perturbed(rng: random.Random, n_sentences: int, facets) -> list[dict]:
    """One annotator's copy of a released FAM, as facet dicts (groups and label)."""
    out = []
    for groups in facets:
        groups = [list(dict.fromkeys(g)) for g in dict.fromkeys(tuple(g) for g in groups)]
        draw = rng.random()
        label = "supported"
        if draw < 0.08:
            groups, label = [], "no_support"
        elif draw < 0.20:
            if len(groups) > 1:
                groups.pop(rng.randrange(len(groups)))
            else:
                groups[0] = sorted({*groups[0], rng.randrange(n_sentences)})
        elif draw < 0.30:
            new = [rng.randrange(n_sentences)]
            if new not in groups:
                groups.append(new)
        elif draw < 0.40:
            group = groups[rng.randrange(len(groups))]
            i = rng.randrange(len(group))
            group[i] = min(n_sentences - 1, max(0, group[i] + rng.choice((-1, 1))))
            groups = [list(g) for g in dict.fromkeys(tuple(sorted(set(g))) for g in groups)]
        out.append({"groups": groups, "label": label, "note": ""})
    return out


def make_campaign(fams) -> dict:
    """``doc id -> (n_sentences, {annotator: facet dicts})``, seeded."""
    rng = random.Random(SEED)
    campaign = {}
    for d in range(N_DOCUMENTS):
        n_sentences, facets = fams[d % len(fams)]
        campaign[f"doc-{d:05d}"] = (
            n_sentences,
            {name: perturbed(rng, n_sentences, facets) for name in ANNOTATORS},
        )
    return campaign


def core_input(campaign, documents=None):
    from scoring.metrics.agreement import fam_category

    docs = list(campaign) if documents is None else documents
    groups = {d: {a: [f["groups"] for f in campaign[d][1][a]] for a in ANNOTATORS} for d in docs}
    categories = {
        d: {a: fam_category([f["label"] for f in campaign[d][1][a]]) for a in ANNOTATORS}
        for d in docs
    }
    return groups, categories


def run_ours(groups, categories):
    from scoring.metrics.agreement import fam_campaign_agreement

    return fam_campaign_agreement(groups, categories=categories, resamples=1000, seed=0)


def naive_jaccard(groups) -> float:
    """The FAR paper's measure alone, the plain way: sets per facet and pair, one mean."""
    values = []
    for fams in groups.values():
        for a, b in combinations(list(fams), 2):
            for ga, gb in zip(fams[a], fams[b], strict=True):
                sa = set().union(*map(set, ga))
                sb = set().union(*map(set, gb))
                if sa or sb:
                    values.append(len(sa & sb) / len(sa | sb))
    return sum(values) / len(values)


def masi_units(groups) -> list[list[frozenset]]:
    return [
        [frozenset().union(*map(frozenset, fams[a][f])) for a in ANNOTATORS]
        for fams in groups.values()
        for f in range(len(fams[ANNOTATORS[0]]))
    ]


def run_krippendorff(units) -> float:
    """The krippendorff package with a MASI distance matrix built with numpy."""
    import krippendorff
    import numpy as np

    domain = sorted({v for unit in units for v in unit}, key=lambda s: (len(s), sorted(s)))
    index = {value: i for i, value in enumerate(domain)}
    counts = np.zeros((len(units), len(domain)), dtype=np.int64)
    for row, unit in enumerate(units):
        for value in unit:
            counts[row, index[value]] += 1
    elements = sorted({e for value in domain for e in value})
    where = {e: i for i, e in enumerate(elements)}
    incidence = np.zeros((len(domain), max(1, len(elements))))
    for i, value in enumerate(domain):
        for e in value:
            incidence[i, where[e]] = 1.0
    inter = incidence @ incidence.T
    sizes = incidence.sum(axis=1)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        jaccard = np.where(union > 0, inter / np.where(union > 0, union, 1), 1.0)
    subset = inter == np.minimum(sizes[:, None], sizes[None, :])
    monotonicity = np.where(subset, 2.0 / 3.0, 1.0 / 3.0)
    equal = (inter == sizes[:, None]) & (inter == sizes[None, :])
    matrix = np.where(equal, 0.0, np.where(inter > 0, 1.0 - jaccard * monotonicity, 1.0))

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return matrix[i1, i2]

    return float(krippendorff.alpha(value_counts=counts, level_of_measurement=metric))


def run_nltk(units) -> float:
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance

    data = [
        (coder, f"u{u}", value)
        for u, unit in enumerate(units)
        for coder, value in zip(ANNOTATORS, unit, strict=True)
    ]

    def distance(a, b):  # NLTK divides by zero on two empty sets; equal sets are at 0
        return 0.0 if a == b else masi_distance(a, b)

    return AnnotationTask(data=data, distance=distance).alpha()


# --- the worker path (a child process with Django, on a fresh database) -----------------------


def load_and_run(args) -> dict:
    """Child: write the campaign into the benchmark database, then time the Celery task."""
    from _data import django_setup

    django_setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from annotation.accounts.services import user_create
    from annotation.agreement.fam_services import fam_agreement_run_compute
    from annotation.agreement.models import FamAgreementRun
    from annotation.campaigns.models import Campaign, SuggestionEvent, Task, TaskStatus
    from annotation.corpus.models import Dataset, Document, Reference
    from annotation.fams.models import AnnotationSet, Fam, FamRevision

    call_command("migrate", verbosity=0)
    fams = far_fams()
    campaign_data = make_campaign(fams)
    start = time.perf_counter()
    users = [user_create(username=name, password="pw", role="Annotator") for name in ANNOTATORS]
    dataset = Dataset.objects.create(slug="bench-agreement", name="Agreement benchmark")
    documents = Document.objects.bulk_create(
        [
            Document(
                dataset=dataset,
                external_id=doc,
                position=i,
                sentences=[f"s{k}." for k in range(n_sentences)],
                category="low",
            )
            for i, (doc, (n_sentences, _)) in enumerate(campaign_data.items())
        ],
        batch_size=2000,
    )
    n_facets = {doc: len(fams_of[ANNOTATORS[0]]) for doc, (_, fams_of) in campaign_data.items()}
    references = Reference.objects.bulk_create(
        [
            Reference(
                document=document,
                sentences=[f"f{k}." for k in range(n_facets[document.external_id])],
            )
            for document in documents
        ],
        batch_size=2000,
    )
    annotation_set = AnnotationSet.objects.create(
        dataset=dataset, slug="campaign-bench", name="Campaign bench", kind="human"
    )
    campaign = Campaign.objects.create(
        dataset=dataset, slug="bench", name="Bench", annotation_set=annotation_set,
        annotators_per_document=3, scorers=["tfidf"],
    )  # fmt: skip
    campaign.documents.set(documents)
    now = timezone.now()
    tasks, rows = [], []
    for document, reference in zip(documents, references, strict=True):
        for position, user in enumerate(users):
            tasks.append(
                Task(
                    campaign=campaign,
                    document=document,
                    annotator=user,
                    status=TaskStatus.SUBMITTED,
                    position=document.position * 3 + position,
                    submitted_at=now,
                )
            )
            rows.append(
                Fam(
                    annotation_set=annotation_set,
                    document=document,
                    reference=reference,
                    annotator=user,
                    facets=campaign_data[document.external_id][1][user.username],
                    version=3,
                )
            )
    tasks = Task.objects.bulk_create(tasks, batch_size=5000)
    fam_rows = Fam.objects.bulk_create(rows, batch_size=5000)
    rng = random.Random(SEED + 1)
    revisions, events = [], []
    for fam, task in zip(fam_rows, tasks, strict=True):
        for version in (2, 3):
            revisions.append(
                FamRevision(fam=fam, version=version, facets=fam.facets, author=task.annotator)
            )
        if task.position % 3 == 0:  # a third of the tasks saw suggestions
            for facet in range(len(fam.facets)):
                events.append(SuggestionEvent(task=task, facet=facet, sentence=0, scorer="tfidf",
                                              scorer_version="1", action="shown"))  # fmt: skip
                if rng.random() < 0.4:
                    events.append(SuggestionEvent(task=task, facet=facet, sentence=0,
                                                  scorer="tfidf", scorer_version="1",
                                                  action="accepted"))  # fmt: skip
    FamRevision.objects.bulk_create(revisions, batch_size=5000)
    with connection.cursor() as cursor:  # the second save 20 s to 15 min after the first
        cursor.execute(
            "UPDATE fams_famrevision SET created_at = created_at - "
            "((fam_id * 7919) % 880 + 20) * interval '1 second' WHERE version = 2"
        )
    SuggestionEvent.objects.bulk_create(events, batch_size=5000)
    loaded = time.perf_counter() - start
    times, statuses = [], []
    for _ in range(args.runs):
        run = FamAgreementRun.objects.create(campaign=campaign, options={})
        began = time.perf_counter()
        statuses.append(fam_agreement_run_compute(run=run).status)
        times.append(time.perf_counter() - began)
    run.refresh_from_db()
    result = run.result or {}
    # Where one run's time goes (the task's steps, timed one by one).
    from annotation.agreement.fam_compute import fam_agreement_compute
    from annotation.agreement.fam_selectors import fam_agreement_digest, fam_agreement_input
    from annotation.agreement.fam_services import _cyclic_gc_paused

    phases = {}
    began = time.perf_counter()
    with _cyclic_gc_paused():
        data = fam_agreement_input(campaign=campaign)
    phases["read (one snapshot) and digest"] = time.perf_counter() - began
    began = time.perf_counter()
    with _cyclic_gc_paused():
        fam_agreement_compute(rows=data.rows, events=data.events, gold=data.gold)
    phases["figures, CIs, split"] = time.perf_counter() - began
    began = time.perf_counter()
    fam_agreement_digest(campaign=campaign)
    phases["digest alone (the API's stale check)"] = time.perf_counter() - began
    size = len(json.dumps(result))
    return {
        "loaded_seconds": loaded,
        "rows": {
            "documents": len(documents),
            "fams": len(fam_rows),
            "revisions": len(revisions),
            "events": len(events),
            "users": get_user_model().objects.count(),
        },
        "times": times,
        "statuses": statuses,
        "error": run.error,
        "result_bytes": size,
        "jaccard_union": result.get("measures", {}).get("jaccard_union", {}).get("overall"),
        "documents": result.get("counts", {}).get("documents"),
        "phases": phases,
    }


def worker_phase(runs: int) -> None:
    from _server import bench_start, bench_workdir, manage, run_loader

    if not bench_start("bench_agreement --db"):
        return
    with bench_workdir() as (_folder, env):
        manage(env, "migrate", "--verbosity", "0")
        answer = run_loader(env, Path(__file__).resolve(), "--runs", str(runs))
    print(
        f"\nworker: {answer['rows']['documents']:,} documents, {answer['rows']['fams']:,} "
        f"submitted FAMs, {answer['rows']['revisions']:,} saves, {answer['rows']['events']:,} "
        f"suggestion events (loaded in {answer['loaded_seconds']:.0f} s, not timed)"
    )
    times = answer["times"]
    print(
        "fam_agreement_run_compute, one process: "
        + ", ".join(f"{t:.2f} s" for t in times)
        + f" (statuses {answer['statuses']}); best {min(times):.2f} s, "
        + f"first (cold) {times[0]:.2f} s"
    )
    verdict = "met" if max(times) < BUDGET_SECONDS else "NOT met"
    print(
        f"goal: under {BUDGET_SECONDS:.0f} s on one worker: {verdict} (slowest {max(times):.2f} s)"
    )
    overall = answer["jaccard_union"] or {}
    print(
        f"stored result: {answer['result_bytes'] / 1e6:.1f} MB JSON, {answer['documents']:,} "
        f"documents compared, jaccard_union {overall.get('value')} "
        f"[{overall.get('ci_low')}, {overall.get('ci_high')}]"
    )
    for phase, seconds in answer["phases"].items():
        print(f"  {phase}: {seconds:.2f} s")
    if answer["error"]:
        print(f"error: {answer['error']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-db", action="store_true", help="skip the worker (database) phase")
    parser.add_argument("--runs", type=int, default=RUNS, help="timed runs of each phase")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if release_missing("bench_agreement", "FAR", FAR_RELEASE):
        return 0
    if args.load:  # the child process of the worker phase
        print(json.dumps(load_and_run(args)))
        return 0

    import numpy as np

    fams = far_fams()
    start = time.perf_counter()
    campaign = make_campaign(fams)
    groups, categories = core_input(campaign)
    built = time.perf_counter() - start
    n_facets = sum(len(f) for f in (g[ANNOTATORS[0]] for g in groups.values()))
    print(
        f"input: {N_DOCUMENTS:,} documents x {len(ANNOTATORS)} annotators from the FAR "
        f"release's {len(fams)} FAMs, {n_facets:,} facets (built in {built:.1f} s, not timed)"
    )
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")

    ours_time, ours = best_of(run_ours, groups, categories, repeats=args.runs)
    print(
        f"\nours, core, every figure with 1,000-resample CIs: {ours_time:.2f} s "
        f"(best of {args.runs})"
    )
    for name, score in ours.overall.items():
        interval = ours.intervals[name]
        ci = f"[{interval.low:.4f}, {interval.high:.4f}]" if interval.low is not None else "-"
        shown = f"{score.value:.4f}" if score.value is not None else f"undefined ({score.reason})"
        print(f"  {name:<18} {shown} {ci} (n = {score.n:,})")
    naive_time, naive = best_of(naive_jaccard, groups, repeats=args.runs)
    print(
        f"context: the FAR paper's Jaccard alone with a plain set loop: {naive_time:.2f} s "
        f"(= {naive:.6f}; ours {ours.overall['jaccard_union'].value:.6f})"
    )

    slice_docs = list(groups)[:SLICE]
    slice_groups, slice_categories = core_input(campaign, slice_docs)
    units = masi_units(slice_groups)
    slice_time, slice_ours = best_of(run_ours, slice_groups, slice_categories, repeats=args.runs)
    kripp_time, kripp = best_of(run_krippendorff, units, repeats=args.runs)
    nltk_units = masi_units({d: slice_groups[d] for d in slice_docs[:NLTK_SLICE]})
    nltk_time, nltk = best_of(run_nltk, nltk_units, repeats=1)
    nltk_ours_time, nltk_ours = best_of(
        run_ours,
        {d: slice_groups[d] for d in slice_docs[:NLTK_SLICE]},
        {d: slice_categories[d] for d in slice_docs[:NLTK_SLICE]},
        repeats=args.runs,
    )
    ours_alpha = slice_ours.overall["alpha_masi_union"].value
    print(f"\nslice: the first {SLICE:,} documents ({len(units):,} units, MASI alpha on supports)")
    print(f"  ours (every figure, CIs):   {slice_time:.3f} s, alpha {ours_alpha:.9f}")
    print(f"  krippendorff 0.9 (alpha):   {kripp_time:.3f} s, alpha {kripp:.9f}")
    agree = math.isclose(ours_alpha, kripp, abs_tol=1e-9)
    print(f"  agreement with the package: {'identical to 1e-9' if agree else 'DIFFERENT'}")
    nltk_alpha = nltk_ours.overall["alpha_masi_union"].value
    print(
        f"  NLTK on the first {NLTK_SLICE} documents: {nltk_time:.3f} s (ours there "
        f"{nltk_ours_time:.3f} s); alpha {nltk:.6f} vs ours {nltk_alpha:.6f} "
        f"(|diff| {abs(nltk - nltk_alpha):.1e})"
    )
    # Per document, the fastest peer's time on the slice against ours on the slice.
    peers = {
        "krippendorff": kripp_time / SLICE,
        "NLTK": nltk_time / NLTK_SLICE,
    }
    fastest = min(peers, key=peers.get)
    ours_per_doc = slice_time / SLICE
    ratio = peers[fastest] / ours_per_doc
    word = "faster" if ratio >= 1 else "slower"
    print(
        f"ratio on the slice (per document): ours {max(ratio, 1 / ratio):.1f}x {word} than the "
        f"fastest peer ({fastest}, which computes MASI alpha only)"
    )
    if not agree or not math.isclose(nltk, nltk_alpha, abs_tol=1e-9):
        print("MISMATCH with a peer's alpha", file=sys.stderr)
        return 1
    if not args.no_db:
        worker_phase(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
