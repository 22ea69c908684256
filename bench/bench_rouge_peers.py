"""ROUGE against its peers, each in a fresh process: rouge-score, rouge-score-rs, Loupe.

Two workloads, the same pairs for every contestant:

- ``allpairs``: ROUGE-1/2/L of every reference sentence against every article sentence of each
  of the PolyTope release's 150 documents (14,914 pairs), as the FAM suggestions and machine
  FAMs need;
- ``pairwise``: ROUGE-1/2/L/Lsum of the summary of one extractive system against the reference,
  each with a sentence a line (ROUGE-Lsum's sentences), for 11,490 synthetic CNN/DM-shaped
  documents (``_cnndm.py``), as the scoring job needs with Loupe's default settings.

Each timed run is a new Python process that imports its libraries and reads the pairs first
(not timed), then scores them once (timed): caches start cold (no stem is cached, no scoring
call was made before). Runs of the contestants alternate, so a drift of the machine's speed
hits all of them. The values of every contestant are compared with rouge-score's, all of them
(P, R, F of each type) of every pair.

    .venv/bin/python bench/bench_rouge_peers.py            # about 2 min
    .venv/bin/python bench/bench_rouge_peers.py --runs 9   # more runs per contestant
    .venv/bin/python bench/bench_rouge_peers.py --no-stemmer   # rouge-score's default
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import POLYTOPE_RELEASE, ROOT, release_missing

ALLPAIRS_TYPES = ("rouge1", "rouge2", "rougeL")
PAIRWISE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
CONTESTANTS = ("rouge-score", "rouge-score-rs per pair", "rouge-score-rs batch", "loupe")
PEERS = CONTESTANTS[:3]
PAIRWISE_DOCUMENTS = 11_490
SEED = 20261126


# -- the workloads (written once by the parent, read by every child) -----------------------


def allpairs_workload() -> dict:
    """The PolyTope release: each document's reference sentences and article sentences."""
    from annotation.corpus.importers.parsers.polytope import parse_polytope_release

    bundle = parse_polytope_release(POLYTOPE_RELEASE)
    return {
        "types": ALLPAIRS_TYPES,
        "documents": [
            [[s for r in d.references for s in r.sentences], list(d.sentences)]
            for d in bundle.documents
        ],
    }


def pairwise_workload(count: int) -> dict:
    """Synthetic documents: the reference (target) and an extractive summary, each with a
    sentence a line, as the scoring job gives them to ROUGE."""
    from _cnndm import cnndm_documents, extractive_outputs

    documents = cnndm_documents(count, seed=SEED)
    outputs = extractive_outputs(documents, quality=0.6, seed=SEED + 1)
    return {
        "types": PAIRWISE_TYPES,
        "targets": ["\n".join(d["reference"]) for d in documents],
        "predictions": [
            "\n".join(d["sentences"][i] for i in o["extracted"])
            for d, o in zip(documents, outputs, strict=True)
        ],
    }


def pairs_of(workload: dict) -> tuple[list[str], list[str]]:
    """The workload's (target, prediction) pairs, flattened in row-major order per document."""
    if "documents" not in workload:
        return workload["targets"], workload["predictions"]
    targets, predictions = [], []
    for facets, sentences in workload["documents"]:
        for facet in facets:
            targets += [facet] * len(sentences)
            predictions += sentences
    return targets, predictions


# -- one contestant in a child process --------------------------------------------------------


def _scores_array(rows, types) -> np.ndarray:
    """(pairs, 3 x types) from rouge-score-style dicts of (precision, recall, fmeasure)."""
    return np.array([[v for name in types for v in tuple(row[name])] for row in rows])


def child(contestant: str, data: Path, out: Path | None) -> None:
    """Import, read the pairs, then time one scoring pass; print the seconds as JSON."""
    workload = json.loads(data.read_text())
    targets, predictions = pairs_of(workload)
    types, stem = tuple(workload["types"]), workload["use_stemmer"]
    if contestant == "loupe":
        from scoring.metrics.rouge import RougeConfig, allpairs_dataset, score_pairs

        config = RougeConfig(types, use_stemmer=stem)
        start = time.perf_counter()
        if "documents" in workload:
            documents = ((n, f, s) for n, (f, s) in enumerate(workload["documents"]))
            result = [pairs for _, pairs in allpairs_dataset(documents, use_stemmer=stem)]
        else:
            result = score_pairs(targets, predictions, config)
        seconds = time.perf_counter() - start
        if out is not None:
            if isinstance(result, list):
                values = np.concatenate(
                    [
                        np.stack(
                            [getattr(getattr(r, t), m).reshape(-1) for t in types for m in _M], 1
                        )
                        for r in result
                    ]
                )
            else:
                values = np.stack([getattr(result[t], m) for t in types for m in _M], 1)
            np.save(out, values)
    else:
        if contestant == "rouge-score":
            from rouge_score.rouge_scorer import RougeScorer
        else:
            from rouge_score_rs import RougeScorer
        scorer = RougeScorer(list(types), use_stemmer=stem)
        start = time.perf_counter()
        if contestant.endswith("batch"):
            rows = scorer.score_batch(targets, predictions)
        else:
            rows = [scorer.score(t, p) for t, p in zip(targets, predictions, strict=True)]
        seconds = time.perf_counter() - start
        if out is not None:
            np.save(out, _scores_array(rows, types))
    print(json.dumps({"seconds": seconds}))


_M = ("precision", "recall", "fmeasure")


# -- the parent: runs, ratios, identity -------------------------------------------------------


def run_child(contestant: str, data: Path, out: Path | None) -> float:
    command = [sys.executable, __file__, "--child", contestant, str(data)]
    if out is not None:
        command.append(str(out))
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def measure(name: str, workload: dict, runs: int, reference_runs: int, folder: Path) -> dict:
    data = folder / f"{name}.json"
    data.write_text(json.dumps(workload))
    n_pairs = len(pairs_of(workload)[0])
    n_values = n_pairs * 3 * len(workload["types"])
    times: dict[str, list[float]] = {c: [] for c in CONTESTANTS}
    outputs = {c: folder / f"{name}-{c.replace(' ', '_')}.npy" for c in CONTESTANTS}
    for run in range(runs):
        order = CONTESTANTS if run % 2 == 0 else tuple(reversed(CONTESTANTS))
        for contestant in order:
            if contestant == "rouge-score" and run >= reference_runs:
                continue
            out = outputs[contestant] if run == 0 else None
            times[contestant].append(run_child(contestant, data, out))
    reference = np.load(outputs["rouge-score"])
    rows = {}
    for contestant in CONTESTANTS:
        values = np.load(outputs[contestant])
        difference = np.abs(values - reference)
        rows[contestant] = {
            "median": statistics.median(times[contestant]),
            "best": min(times[contestant]),
            "runs": len(times[contestant]),
            "max_difference": float(difference.max()) if difference.size else 0.0,
            "unequal": int(np.count_nonzero(values != reference)),
        }
    fastest_peer = min(PEERS, key=lambda c: rows[c]["median"])
    for contestant in CONTESTANTS:
        rows[contestant]["vs_fastest_peer"] = (
            rows[contestant]["median"] / rows[fastest_peer]["median"]
        )
    print(
        f"\n{name} ({', '.join(workload['types'])}): {n_pairs:,} pairs, {n_values:,} values; "
        "each run a fresh process, cold"
    )
    print(
        f"  {'contestant':26} {'median s':>9} {'best s':>8} {'runs':>4} {'/ fastest peer':>14}"
        f"  {'vs rouge-score':>26}"
    )
    for contestant in CONTESTANTS:
        row = rows[contestant]
        print(
            f"  {contestant:26} {row['median']:9.4f} {row['best']:8.4f} {row['runs']:4d} "
            f"{row['vs_fastest_peer']:14.3f}  "
            f"max diff {row['max_difference']:.1e}, {row['unequal']} unequal"
        )
    loupe = rows["loupe"]["median"]
    peer = rows[fastest_peer]["median"]
    print(
        f"  fastest peer: {fastest_peer}; Loupe is {peer / loupe:.2f}x its speed "
        f"(ratio Loupe / peer {loupe / peer:.3f} on medians), "
        f"{rows['rouge-score']['median'] / loupe:.0f}x rouge-score's"
    )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per contestant")
    parser.add_argument("--reference-runs", type=int, default=1, help="of rouge-score (slow)")
    parser.add_argument("--documents", type=int, default=PAIRWISE_DOCUMENTS)
    parser.add_argument(
        "--no-stemmer", action="store_true", help="use_stemmer=False for every contestant"
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        contestant, data, *out = args.child
        child(contestant, Path(data), Path(out[0]) if out else None)
        return 0
    if release_missing("bench_rouge_peers", "PolyTope", POLYTOPE_RELEASE):
        return 0
    import rouge_score_rs

    print(
        f"ROUGE peers (rouge-score-rs {rouge_score_rs.__version__}), {args.runs} runs each, "
        f"rouge-score {args.reference_runs}; use_stemmer={not args.no_stemmer}; "
        f"{time.strftime('%Y-%m-%d')}"
    )
    exact = True
    with tempfile.TemporaryDirectory() as folder:
        for name, workload in (
            ("allpairs", allpairs_workload()),
            ("pairwise", pairwise_workload(args.documents)),
        ):
            workload["use_stemmer"] = not args.no_stemmer
            rows = measure(name, workload, args.runs, args.reference_runs, Path(folder))
            exact &= rows["loupe"]["unequal"] == 0
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
