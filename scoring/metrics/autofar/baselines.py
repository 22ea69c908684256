"""The two sentence-selection baselines of the FAR paper's Table 6 that are not per-facet scorers.

Mao et al. (2020, Sec. 4.1 and Table 6) compare the per-facet scorers (top sentences by ROUGE
or TF-IDF for each reference sentence) with two ways of labelling a whole document:

* **Lead-3** (:func:`lead_support`): the first three sentences.
* **Greedy ROUGE-1 F1** (:func:`greedy_rouge1_support`), Nallapati et al. (2017)'s extractive
  labels: "greedily select sentences that maximize ROUGE-1 F1 until adding another sentence
  decreases it". Each step adds the sentence whose addition gives the highest ROUGE-1 F1 of
  the selected sentences against the whole reference (the earliest on a tie); the selection
  stops when no sentence raises it (a tie does not count as a raise: the paper's "decreases"
  and Nallapati et al.'s "none of the remaining candidate sentences improves" agree on every
  other case). ROUGE-1 is rouge-score's with stemming (:mod:`scoring.metrics.rouge`), on
  unigram counts, which add up over sentences.

Both return a set of support sentences, scored against the human FAM's support by
:func:`~.discovery.discovery_counts`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..rouge.ngrams import clipped_overlap, ngram_counts
from ..rouge.results import prf
from ..rouge.tokens import tokenize
from .errors import AutoFarInputError

LEAD_K = 3


def lead_support(n_sentences: int, k: int = LEAD_K) -> frozenset[int]:
    """The first ``k`` sentences (fewer when the document is shorter).

    Args:
        n_sentences: the document's sentence count.
        k: how many leading sentences (default 3).

    Returns:
        ``{0, ..., min(k, n_sentences) - 1}``.

    Raises:
        AutoFarInputError: a negative count or a ``k`` below 1.
    """
    for value, name in ((n_sentences, "n_sentences"), (k, "k")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise AutoFarInputError(f"Lead-k: {name} must be an integer >= 0, got {value!r}")
    if k < 1:
        raise AutoFarInputError(f"Lead-k: k must be at least 1, got {k}")
    return frozenset(range(min(k, n_sentences)))


def _unigrams(text: str) -> Counter:
    return ngram_counts(tokenize(text), 1)


def greedy_rouge1_support(reference: Sequence[str], sentences: Sequence[str]) -> frozenset[int]:
    """Nallapati et al.'s greedy labels: sentences added while ROUGE-1 F1 rises.

    Args:
        reference: the reference summary's sentences (together, the target).
        sentences: the document's sentences.

    Returns:
        The selected sentence indices (empty when no sentence shares a word with the
        reference).

    Raises:
        AutoFarInputError: a text is not a string.
    """
    for what, texts in (("reference", reference), ("sentence", sentences)):
        if any(not isinstance(text, str) for text in texts):
            raise AutoFarInputError(f"greedy ROUGE-1: every {what} must be text")
    target = Counter()
    for text in reference:
        target += _unigrams(text)
    target_count = sum(target.values())
    counts = [_unigrams(text) for text in sentences]
    chosen: list[int] = []
    summary: Counter = Counter()
    best = 0.0
    while True:
        step, step_f = None, best
        for index, sentence in enumerate(counts):
            if index in chosen:
                continue
            candidate = summary + sentence
            f = prf(
                clipped_overlap(target, candidate), target_count, sum(candidate.values())
            ).fmeasure
            if f > step_f:
                step, step_f = index, f
        if step is None:
            return frozenset(chosen)
        chosen.append(step)
        summary += counts[step]
        best = step_f
