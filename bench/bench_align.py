"""Time align_sentences against a per-sentence TF-IDF argmax on PolyTope's extractive outputs."""

from __future__ import annotations

import sys

import numpy as np
from _common import POLYTOPE_RELEASE, best_of, release_missing  # puts the repo on sys.path
from sklearn.feature_extraction.text import TfidfVectorizer

from annotation.corpus.importers.parsers.polytope import parse_polytope_release
from annotation.imports.bundle import KIND_EXTRACTIVE
from scoring.metrics.align import METHOD_EXACT, align_sentences

RELEASE = POLYTOPE_RELEASE
REPEATS = 5

Job = tuple[tuple[str, ...], tuple[str, ...]]  # (summary sentences, document sentences)


def load_jobs() -> list[Job]:
    """Every extractive output of the release as (summary sentences, document sentences)."""
    bundle = parse_polytope_release(RELEASE)
    extractive = {system.slug for system in bundle.systems if system.kind == KIND_EXTRACTIVE}
    documents = {document.external_id: document.sentences for document in bundle.documents}
    return [
        (output.sentences, documents[output.document_id])
        for output in bundle.outputs
        if output.system_slug in extractive and output.sentences
    ]


def ours(jobs: list[Job]) -> list[int]:
    """The project's aligner, called once per output as the importer does."""
    return [
        found.index for summary, document in jobs for found in align_sentences(summary, document)
    ]


def reference_scores(sentence: str, document: tuple[str, ...]) -> np.ndarray:
    """Cosine of the sentence with each document sentence, by a fresh TfidfVectorizer."""
    vectorizer = TfidfVectorizer()
    try:
        doc_matrix = vectorizer.fit_transform(document)
    except ValueError:  # empty vocabulary: no document word of two or more characters
        return np.zeros(len(document))
    return (vectorizer.transform([sentence]) @ doc_matrix.T).toarray()[0]


def reference_index(sentence: str, document: tuple[str, ...]) -> int:
    """Argmax cosine; ties go to the earliest document sentence."""
    return int(np.argmax(reference_scores(sentence, document)))


def reference(jobs: list[Job]) -> list[int]:
    """The straightforward baseline: one vectoriser per summary sentence, no exact-match step."""
    return [
        reference_index(sentence, document) for summary, document in jobs for sentence in summary
    ]


def classify(jobs: list[Job], found_reference: list[int]) -> tuple[int, int, list[str]]:
    """Untimed: count exact matches, and explain where the reference chose another sentence.

    Returns the number of exact matches, the number of disagreements where ours matched exactly
    and the reference's argmax took another sentence of equal cosine (a tie it breaks by order),
    and one line for every other disagreement.
    """
    exact = tied = 0
    others: list[str] = []
    theirs = iter(found_reference)
    for summary, document in jobs:
        for sentence, found in zip(summary, align_sentences(summary, document), strict=True):
            exact += found.method == METHOD_EXACT
            other = next(theirs)
            if other == found.index:
                continue
            scores = reference_scores(sentence, document)
            if found.method == METHOD_EXACT and np.isclose(scores[other], scores[found.index]):
                tied += 1
            else:
                others.append(
                    f"      {sentence[:30]!r}: ours {found.index} ({found.method}, cosine "
                    f"{found.similarity:.2f}), reference {other} (cosine {scores[other]:.2f})"
                )
    return exact, tied, others


def main() -> int:
    if release_missing("bench_align", "PolyTope", RELEASE):
        return 0
    jobs = load_jobs()
    pairs = sum(len(summary) for summary, _ in jobs)
    time_ours, found_ours = best_of(ours, jobs, repeats=REPEATS)
    time_reference, found_reference = best_of(reference, jobs, repeats=REPEATS)
    same = sum(a == b for a, b in zip(found_ours, found_reference, strict=True))
    exact, tied, others = classify(jobs, found_reference)
    differ = pairs - same
    print("align_sentences vs per-sentence TF-IDF argmax (PolyTope extractive outputs)")
    print(f"  outputs            {len(jobs)}")
    print(f"  pairs              {pairs} summary sentences ({exact} exact, {pairs - exact} TF-IDF)")
    print(f"  time ours          {time_ours:.3f} s (best of {REPEATS})")
    print(f"  time reference     {time_reference:.3f} s (best of {REPEATS})")
    print(f"  speed ratio        {time_reference / time_ours:.1f}x (reference / ours)")
    print(f"  agreement          {same}/{pairs} = {same / pairs:.4f} identical indices")
    print(f"  disagreements      {differ}")
    print(f"    {tied} exact matches where the reference took another sentence of equal cosine")
    print(f"    {len(others)} other{':' if others else ''}")
    for line in others:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
