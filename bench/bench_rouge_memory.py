"""Stream all-pairs ROUGE over 11,490 synthetic CNN/DM-shaped documents; print peak RSS."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterator

import _common  # noqa: F401  (puts the repo on sys.path)
import numpy as np

from scoring.metrics.rouge import ROUGE_TYPES, allpairs, allpairs_dataset

DOCUMENTS = 11_490  # the CNN/DM test split
SENTENCES = 30
WORDS = 20
FACETS = 4
VOCABULARY = 30_000
SEED = 20_200_705
REFERENCE_DOCUMENTS = 40  # the slice RougeScorer scores pair by pair, in a child process
LIMIT_BYTES = 1 << 30

Document = tuple[str, list[str], list[str]]


def vocabulary(rng: np.random.Generator) -> list[str]:
    """Pseudo-words from syllables, a quarter with an English suffix so that stemming works."""
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
    suffixes = ["s", "ed", "ing", "ation", "ness", "ly", "ies", "ful"]
    words: set[str] = set()
    while len(words) < VOCABULARY:
        word = "".join(syllables[i] for i in rng.integers(len(syllables), size=rng.integers(1, 4)))
        if rng.random() < 0.25:
            word += suffixes[int(rng.integers(len(suffixes)))]
        words.add(word.capitalize() if rng.random() < 0.1 else word)
    return sorted(words)


def synthetic_documents(count: int, seed: int = SEED) -> Iterator[Document]:
    """``count`` documents of ~30 sentences of ~20 Zipf-distributed words and 4 facets.

    Each facet copies a stretch of one document sentence and adds words of its own, as a
    reference sentence paraphrases an article sentence. Generated lazily: nothing is kept.
    """
    rng = np.random.default_rng(seed)
    words = vocabulary(rng)
    cumulative = np.cumsum(1.0 / np.arange(1, len(words) + 1))
    cumulative /= cumulative[-1]

    def draw(size: int) -> list[str]:
        indices = np.searchsorted(cumulative, rng.random(size)).tolist()
        return [words[i] for i in indices]

    for number in range(count):
        n_sentences = int(rng.integers(SENTENCES - 5, SENTENCES + 6))
        lengths = rng.integers(WORDS - 8, WORDS + 9, size=n_sentences).tolist()
        parts = [draw(length) for length in lengths]
        sentences = [" ".join(part) + " ." for part in parts]
        facets = []
        for _ in range(FACETS):
            source = parts[int(rng.integers(n_sentences))]
            start = int(rng.integers(0, len(source) // 2))
            own = draw(int(rng.integers(3, 10)))
            facets.append(" ".join([*source[start : start + 10], *own]) + " .")
        yield f"synthetic-{number:05d}", facets, sentences


def peak_rss_bytes(who: int = resource.RUSAGE_SELF) -> int:
    """Peak resident set size so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(who).ru_maxrss * 1024


def reference_child(count: int) -> int:
    """Child process: RougeScorer pair by pair on the first documents; print JSON figures."""
    from rouge_score.rouge_scorer import RougeScorer

    documents = list(synthetic_documents(count))
    scorer = RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    start = time.perf_counter()
    values = [
        [[scorer.score(facet, sentence) for sentence in sentences] for facet in facets]
        for _, facets, sentences in documents
    ]
    seconds = time.perf_counter() - start
    peak = peak_rss_bytes()
    max_diff = 0.0  # untimed, after the peak was read: the engine on the same slice
    for (_, facets, sentences), theirs in zip(documents, values, strict=True):
        result = allpairs(facets, sentences)
        for name in ROUGE_TYPES:
            matrix = getattr(result, name)
            for m, measure in enumerate(("precision", "recall", "fmeasure")):
                expected = np.array([[score[name][m] for score in row] for row in theirs])
                diff = np.abs(matrix.measure(measure) - expected)
                max_diff = max(max_diff, float(diff.max()))
    pairs = sum(len(f) * len(s) for _, f, s in documents)
    print(json.dumps({"seconds": seconds, "pairs": pairs, "peak": peak, "max_diff": max_diff}))
    return 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--reference":
        return reference_child(int(sys.argv[2]))
    allpairs(["warm up the imports"], ["warm up"])
    baseline = peak_rss_bytes()

    start = time.perf_counter()
    generated = sum(1 for _ in synthetic_documents(DOCUMENTS))
    generation = time.perf_counter() - start

    pairs = 0
    best_avg = 0.0  # a running aggregate: the mean over facets of the best ROUGE-AVG F1
    facets = 0
    start = time.perf_counter()
    for _, result in allpairs_dataset(synthetic_documents(DOCUMENTS)):
        avg = result.avg_f()
        pairs += avg.size
        facets += avg.shape[0]
        best_avg += float(avg.max(axis=1).sum())
    total = time.perf_counter() - start
    peak = peak_rss_bytes()
    engine = total - generation

    child = subprocess.run(
        [sys.executable, __file__, "--reference", str(REFERENCE_DOCUMENTS)],
        capture_output=True,
        text=True,
        check=True,
    )
    reference = json.loads(child.stdout)
    ours_rate = pairs / engine
    reference_rate = reference["pairs"] / reference["seconds"]
    mib = 1 << 20
    print("all-pairs ROUGE streamed over synthetic CNN/DM-shaped documents")
    print(
        f"  documents          {generated} "
        f"(~{SENTENCES} sentences of ~{WORDS} words, {FACETS} facets)"
    )
    print(f"  pairs              {pairs}; mean best ROUGE-AVG F1 per facet {best_avg / facets:.4f}")
    print(f"  peak RSS           {peak / mib:.0f} MiB (limit {LIMIT_BYTES / mib:.0f} MiB)")
    print(
        f"  RSS after imports  {baseline / mib:.0f} MiB (growth {(peak - baseline) / mib:.0f} MiB)"
    )
    print(
        f"  time               {total:.2f} s, of which generating the documents {generation:.2f} s"
    )
    print(f"  throughput ours    {ours_rate:,.0f} pairs/s ({DOCUMENTS / engine:,.0f} documents/s)")
    print(
        f"  reference          RougeScorer pair by pair, first {REFERENCE_DOCUMENTS} documents "
        f"in a child process: {reference['pairs']} pairs in {reference['seconds']:.2f} s, "
        f"peak RSS {reference['peak'] / mib:.0f} MiB"
    )
    print(f"  throughput ratio   {ours_rate / reference_rate:.1f}x (ours / reference)")
    print(
        f"  peak RSS ratio     {peak / reference['peak']:.2f} "
        "(ours over the whole stream / reference on its slice)"
    )
    print(f"  max abs difference {reference['max_diff']:.3g} on the reference slice")
    return 0 if peak < LIMIT_BYTES and reference["max_diff"] <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
