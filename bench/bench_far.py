"""Benchmark: FAR/SAR/SAP/SAF1 for 100 systems over 11,490 synthetic CNN/DM-shaped documents.

Ours: ``scoring.metrics.far.FarEngine`` (bit masks + numpy), fed the way the app feeds it: a
mapping document id -> list of extracted indices per system. The reported time includes
compiling the FAMs once and scoring the 100 systems (k = 3): validation, conversion, counts,
means and coverage.

References, measured in the same run on the first REFERENCE_SYSTEMS systems (every document)
and extrapolated linearly to 100 systems (the work per system is the same):

* a naive loop: per document, Python sets and ``issubset``, as the release's notebook does;
* our per-document definition, ``scoring.metrics.far.score_system`` (sets, with validation and
  one ``FarDocumentScore`` per document).

Both references must agree with ours: the per-document path bit for bit, the naive loop to
1e-12 (it computes F1 as 2PR/(P+R)). Run from the repository root:

    .venv/bin/python bench/bench_far.py
"""

from __future__ import annotations

import cProfile
import io
import math
import platform
import pstats
import random
import sys
import time

import numpy as np
from _common import best_of  # puts the repo on sys.path

from scoring.metrics.fam import validate_fam
from scoring.metrics.far import FarEngine, aggregate, score_system

SEED = 20200705
N_DOCUMENTS = 11_490  # the CNN/DM test set
N_SENTENCES = 30
N_FACETS = 4
GROUPS_PER_FACET = (1, 2, 3)  # weights below: mean 1.6 groups per facet
GROUP_WEIGHTS = (0.5, 0.4, 0.1)
GROUP_SIZES = (1, 2, 3)
SIZE_WEIGHTS = (0.8, 0.15, 0.05)
N_SYSTEMS = 100
K = 3
REFERENCE_SYSTEMS = 5
RUNS = 3


def make_dataset():
    """Synthetic FAMs and system outputs with a fixed seed."""
    rng = random.Random(SEED)
    fams = {}
    for d in range(N_DOCUMENTS):
        facets = []
        for _ in range(N_FACETS):
            n_groups = rng.choices(GROUPS_PER_FACET, GROUP_WEIGHTS)[0]
            groups: list[list[int]] = []
            while len(groups) < n_groups:
                size = rng.choices(GROUP_SIZES, SIZE_WEIGHTS)[0]
                # Support sentences lean to the start of the article, as in CNN/DM.
                group = sorted({min(int(rng.expovariate(1 / 8)), 29) for _ in range(size)})
                if group not in groups:
                    groups.append(group)
            facets.append(groups)
        fams[f"doc-{d:05d}"] = validate_fam(facets, n_sentences=N_SENTENCES, n_facets=N_FACETS)
    generator = np.random.default_rng(SEED)
    documents = list(fams)
    systems = []
    for _ in range(N_SYSTEMS):
        # 3 to 5 extracted sentences, leaning to the start, repeats possible (as in releases).
        lengths = generator.integers(3, 6, size=N_DOCUMENTS)
        picks = np.minimum(generator.exponential(7.0, size=(N_DOCUMENTS, 5)).astype(int), 29)
        systems.append({d: picks[i, : lengths[i]].tolist() for i, d in enumerate(documents)})
    return fams, systems


def run_ours(fams, systems):
    engine = FarEngine(fams)
    return [engine.score(f"system-{i}", extracted, K) for i, extracted in enumerate(systems)]


def naive_system(fams, extracted, k):
    """The straightforward loop: sets per document, means with sum() / n."""
    sap, sar, saf1, far = [], [], [], []
    for document, fam in fams.items():
        considered = set(extracted[document][:k])
        support = set()
        for groups in fam.groups:
            for group in groups:
                support |= group
        hit = len(considered & support)
        p, r = hit / len(considered), hit / len(support)
        sap.append(p)
        sar.append(r)
        saf1.append(2 * p * r / (p + r) if p + r else 0.0)
        supported = [groups for groups in fam.groups if groups]
        covered = sum(1 for groups in supported if any(g.issubset(considered) for g in groups))
        far.append(covered / len(supported))
    n = len(sap)
    return sum(sap) / n, sum(sar) / n, sum(saf1) / n, sum(far) / n


def main() -> int:
    start = time.perf_counter()
    fams, systems = make_dataset()
    build = time.perf_counter() - start
    n_groups = sum(len(groups) for fam in fams.values() for groups in fam.groups)
    print(
        f"input: {N_DOCUMENTS:,} documents x {N_SENTENCES} sentences, {N_FACETS} facets, "
        f"{n_groups / (N_DOCUMENTS * N_FACETS):.2f} groups per facet; {N_SYSTEMS} systems, "
        f"k = {K} (built in {build:.1f} s, not timed)"
    )
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")

    ours_time, ours = best_of(lambda: run_ours(fams, systems), repeats=RUNS)
    subset = systems[:REFERENCE_SYSTEMS]
    naive_time, naive = best_of(
        lambda: [naive_system(fams, extracted, K) for extracted in subset], repeats=RUNS
    )
    per_doc_time, per_doc = best_of(
        lambda: [score_system(f"system-{i}", fams, e, K) for i, e in enumerate(subset)],
        repeats=RUNS,
    )
    scale = N_SYSTEMS / REFERENCE_SYSTEMS
    naive_total, per_doc_total = naive_time * scale, per_doc_time * scale

    # Agreement.
    identical = all(a == b for a, b in zip(ours, per_doc, strict=False))
    worst = max(
        abs(a - b)
        for result, reference in zip(ours, naive, strict=False)
        for a, b in zip((result.sap, result.sar, result.saf1, result.far), reference, strict=True)
    )
    assert identical, "the engine and the per-document definition disagree"
    assert worst <= 1e-12, f"the engine and the naive loop differ by {worst}"
    assert all(result.coverage == 1.0 for result in ours)

    print()
    print(f"ours (FarEngine, compile + {N_SYSTEMS} systems), best of {RUNS}: {ours_time:.2f} s")
    print(
        f"naive set loop: {naive_time:.2f} s for {REFERENCE_SYSTEMS} systems, "
        f"extrapolated x{scale:.0f}: {naive_total:.1f} s -> ours {naive_total / ours_time:.0f}x "
        "faster"
    )
    print(
        f"per-document score_system: {per_doc_time:.2f} s for {REFERENCE_SYSTEMS} systems, "
        f"extrapolated: {per_doc_total:.1f} s -> ours {per_doc_total / ours_time:.0f}x faster"
    )
    engine = FarEngine(fams)
    matrices = [engine.index_matrix(list(extracted.values())) for extracted in systems]
    prebuilt_time, _ = best_of(
        lambda: [
            aggregate(engine.score_matrix(m, K), system="s", expected=engine.documents)
            for m in matrices
        ],
        repeats=RUNS,
    )
    print(
        f"ours from pre-built index matrices (no lists to convert): {prebuilt_time:.2f} s "
        f"for {N_SYSTEMS} systems"
    )
    print(
        f"agreement: per-document path identical on {REFERENCE_SYSTEMS} systems; naive loop "
        f"max |difference| {worst:.1e}; goal < 5 s: {'met' if ours_time < 5 else 'MISSED'}"
    )

    # Where the time goes: each phase on its own, then cProfile's top entries.
    compile_time, engine = best_of(lambda: FarEngine(fams), repeats=RUNS)
    sample = systems[:10]
    matrix_time, matrices = best_of(
        lambda: [engine.index_matrix(list(s.values())) for s in sample], repeats=RUNS
    )
    table_time, tables = best_of(
        lambda: [engine.score_matrix(m, K) for m in matrices], repeats=RUNS
    )
    mean_time, _ = best_of(
        lambda: [aggregate(t, system="s", expected=engine.documents) for t in tables], repeats=RUNS
    )
    print()
    print(f"where the time goes (per phase; per-system phases timed on {len(sample)} systems):")
    print(f"  compile the FAMs (once)             {compile_time * 1000:6.0f} ms")
    for label, seconds in (
        ("lists -> validated index matrix", matrix_time),
        ("masks, counts, coverage (numpy)", table_time),
        ("means (math.fsum) and coverage", mean_time),
    ):
        per_system = seconds / len(sample)
        print(
            f"  {label:<35} {per_system * 1000:6.1f} ms per system, "
            f"{per_system * N_SYSTEMS * 1000:5.0f} ms for {N_SYSTEMS}"
        )
    profile = cProfile.Profile()
    profile.enable()
    run_ours(fams, systems)
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(8)
    print()
    print("cProfile, top 8 by own time (one run, profiler overhead included):")
    for line in text.getvalue().splitlines():
        if re_entry(line):
            print("  " + line.strip())
    assert not math.isnan(sum(r.far for r in ours))
    return 0


def re_entry(line: str) -> bool:
    parts = line.split()
    return len(parts) >= 6 and (parts[0].replace("/", "").isdigit() or parts[0] == "ncalls")


if __name__ == "__main__":
    sys.exit(main())
