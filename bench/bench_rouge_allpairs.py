"""Time all-pairs ROUGE-1/2/L against RougeScorer.score pair by pair on the PolyTope release."""

from __future__ import annotations

import sys

import numpy as np
from _common import POLYTOPE_RELEASE, best_of, release_missing  # puts the repo on sys.path
from rouge_score.rouge_scorer import RougeScorer

from annotation.corpus.importers.parsers.polytope import parse_polytope_release
from scoring.metrics.rouge import ROUGE_TYPES, allpairs, allpairs_dataset

RELEASE = POLYTOPE_RELEASE
REPEATS = 5
REFERENCE_REPEATS = 2

Document = tuple[str, tuple[str, ...], tuple[str, ...]]  # (id, facets, article sentences)


def load_documents() -> list[Document]:
    """Every document of the release: its reference sentences (facets) and article sentences."""
    bundle = parse_polytope_release(RELEASE)
    return [
        (
            document.external_id,
            tuple(
                sentence for reference in document.references for sentence in reference.sentences
            ),
            document.sentences,
        )
        for document in bundle.documents
    ]


def ours(documents: list[Document]) -> list:
    """The engine streamed over the documents. Its compiled tokenizer keeps no cache between
    calls, so every run is as cold as the first; fresh processes are bench_rouge_peers.py's."""
    return list(allpairs_dataset(documents))


def packed(result) -> np.ndarray:
    """A result as one (3 types, 3 measures, facets, sentences) array."""
    return np.stack(
        [
            np.stack([m.precision, m.recall, m.fmeasure])
            for m in (getattr(result, name) for name in ROUGE_TYPES)
        ]
    )


def reference(documents: list[Document]) -> list[np.ndarray]:
    """RougeScorer.score on every (facet, sentence) pair, one call per pair."""
    scorer = RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    results = []
    for _, facets, sentences in documents:
        values = np.zeros((3, 3, len(facets), len(sentences)))
        for i, facet in enumerate(facets):
            for j, sentence in enumerate(sentences):
                scores = scorer.score(facet, sentence)
                for t, name in enumerate(ROUGE_TYPES):
                    values[t, :, i, j] = scores[name]
        results.append(values)
    return results


def main() -> int:
    if release_missing("bench_rouge_allpairs", "PolyTope", RELEASE):
        return 0
    documents = load_documents()
    pairs = sum(len(facets) * len(sentences) for _, facets, sentences in documents)
    allpairs(["warm up the imports"], ["warm up"])
    time_ours, results = best_of(ours, documents, repeats=REPEATS)
    time_reference, found_reference = best_of(reference, documents, repeats=REFERENCE_REPEATS)
    found_ours = [packed(result) for _, result in results]
    differences = [np.abs(a - b) for a, b in zip(found_ours, found_reference, strict=True)]
    max_diff = max((float(d.max()) for d in differences if d.size), default=0.0)
    differing = sum(int(np.count_nonzero(d)) for d in differences)
    facets = sum(len(f) for _, f, _ in documents)
    sentences = sum(len(s) for _, _, s in documents)
    print("all-pairs ROUGE-1/2/L vs RougeScorer.score pair by pair (PolyTope release)")
    print(f"  documents          {len(documents)} ({facets} facets, {sentences} sentences)")
    print(f"  pairs              {pairs} (x 9 values = {9 * pairs})")
    print(f"  time ours          {time_ours:.3f} s (best of {REPEATS})")
    print(f"  time reference     {time_reference:.3f} s (best of {REFERENCE_REPEATS})")
    print(f"  speed ratio        {time_reference / time_ours:.1f}x (reference / ours)")
    print(f"  max abs difference {max_diff:.3g} over all pairs and all 9 values (limit 1e-12)")
    print(f"  values not equal   {differing}")
    return 0 if max_diff <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
