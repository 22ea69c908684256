"""Synthetic CNN/DM-shaped corpus with released FAMs and extractive outputs (scoring benchmark)."""

from __future__ import annotations

import numpy as np
from bench_rouge_memory import vocabulary  # the same 30,000 Zipf pseudo-words

SENTENCES = (25, 35)  # document sentences, inclusive
WORDS = (12, 28)  # words per document sentence, inclusive
FACETS = (3, 4)  # reference sentences, inclusive
# The FAR release's 150 documents: 89 low abstraction, 41 noise, 20 high abstraction.
CATEGORIES = ("low", "noise", "high")
CATEGORY_WEIGHTS = (89, 41, 20)
# Support groups per supported facet and sentences per group (as in bench_far.py): 1.6 groups.
GROUPS = ((1, 2, 3), (0.5, 0.4, 0.1))
GROUP_SIZES = ((1, 2, 3), (0.8, 0.15, 0.05))
LEAD = 8.0  # support sentences lean to the article's start: exponential with this mean
EXTRACTED = 3  # sentences per extractive output (k = 3)


def _pick(rng: np.random.Generator, table: tuple[tuple, tuple]) -> int:
    values, weights = table
    return values[int(rng.choice(len(values), p=weights))]


def _lead(rng: np.random.Generator, n: int) -> int:
    return min(int(rng.exponential(LEAD)), n - 1)


def cnndm_documents(count: int, seed: int) -> list[dict]:
    """``count`` seeded documents, each with one reference and a released FAM.

    A document has 25-35 sentences of 12-28 Zipf-drawn words and a reference of 3-4 facets.
    Its category is drawn in the FAR release's proportions. Every facet of a ``low`` document
    is supported by 1-3 groups of 1-3 sentences near the start; a ``high`` document keeps
    only its first facet supported and marks the others ``no_support``; a ``noise`` document
    marks its last facet ``noise``. So every FAM has support and FAR is computed everywhere.
    A supported facet copies up to 10 words of its first support sentence and adds 3-9 of its
    own; an unsupported one is 8-16 words of its own.

    Args:
        count: documents.
        seed: the generator's seed.

    Returns:
        ``{"id", "sentences", "reference", "category", "facets"}`` per document, where
        ``facets`` is ``[{"groups": [[indices]], "label": str}]`` (one per reference sentence).
    """
    rng = np.random.default_rng(seed)
    words = vocabulary(rng)
    cumulative = np.cumsum(1.0 / np.arange(1, len(words) + 1))
    cumulative /= cumulative[-1]

    def draw(size: int) -> list[str]:
        return [words[i] for i in np.searchsorted(cumulative, rng.random(size)).tolist()]

    weights = np.array(CATEGORY_WEIGHTS) / sum(CATEGORY_WEIGHTS)
    documents = []
    for number, category in enumerate(rng.choice(len(CATEGORIES), size=count, p=weights)):
        category = CATEGORIES[int(category)]
        n = int(rng.integers(SENTENCES[0], SENTENCES[1] + 1))
        lengths = rng.integers(WORDS[0], WORDS[1] + 1, size=n)
        tokens = draw(int(lengths.sum()))
        ends = np.cumsum(lengths).tolist()
        parts = [tokens[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
        n_facets = int(rng.integers(FACETS[0], FACETS[1] + 1))
        reference, facets = [], []
        for position in range(n_facets):
            label = "supported"
            if category == "high" and position > 0:
                label = "no_support"
            elif category == "noise" and position == n_facets - 1:
                label = "noise"
            groups: list[list[int]] = []
            if label == "supported":
                while len(groups) < _pick(rng, GROUPS):
                    group = sorted({_lead(rng, n) for _ in range(_pick(rng, GROUP_SIZES))})
                    if group not in groups:
                        groups.append(group)
                source = parts[groups[0][0]]
                start = int(rng.integers(0, len(source) // 2))
                text = [*source[start : start + 10], *draw(int(rng.integers(3, 10)))]
            else:
                text = draw(int(rng.integers(8, 17)))
            reference.append(" ".join(text) + " .")
            facets.append({"groups": groups, "label": label})
        documents.append(
            {
                "id": f"cnndm-{number:05d}",
                "sentences": [" ".join(part) + " ." for part in parts],
                "reference": reference,
                "category": category,
                "facets": facets,
            }
        )
    return documents


def extractive_outputs(documents: list[dict], quality: float, seed: int) -> list[dict]:
    """One extractive system's outputs: EXTRACTED distinct sentence indices per document.

    Each pick is, with probability ``quality``, a sentence of the document's support (so
    systems of higher quality get higher FAR), else a sentence near the start (lead bias).

    Args:
        documents: from :func:`cnndm_documents`.
        quality: in [0, 1].
        seed: the generator's seed.

    Returns:
        ``{"doc_id": str, "extracted": [int, ...]}`` per document, in extraction order.
    """
    rng = np.random.default_rng(seed)
    outputs = []
    for document in documents:
        n = len(document["sentences"])
        support = sorted({i for f in document["facets"] for g in f["groups"] for i in g})
        picked: list[int] = []
        while len(picked) < EXTRACTED:
            if support and rng.random() < quality:
                index = support[int(rng.integers(len(support)))]
            else:
                index = _lead(rng, n)
            if index not in picked:
                picked.append(index)
        outputs.append({"doc_id": document["id"], "extracted": picked})
    return outputs
