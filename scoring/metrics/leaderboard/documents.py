"""Per-output scores: ROUGE (P, R, F of each configured type) and the FAR family at each k."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from ..errors import MetricsError
from ..fam import FacetAwareMapping
from ..far import NoSupportError, check_k, score_document
from ..rouge import DEFAULT_ROUGE, PairScores, RougeConfig, score_pair, score_pairs
from ..rouge.config import MEASURE_SUFFIXES

FAR_MEASURES = ("far", "sar", "sap", "saf1")
# The keys of Loupe's default ROUGE (stemmed ROUGE-1, -2, -L, -Lsum): a dataset's own
# configuration may store others (see scoring.metrics.rouge.config).
ROUGE_KEYS = DEFAULT_ROUGE.keys()


def far_key(measure: str, k: int) -> str:
    """The stored name of a FAR-family measure at cut-off ``k``.

    Args:
        measure: one of :data:`FAR_MEASURES`.
        k: the cut-off (a positive integer).

    Returns:
        ``"<measure>@<k>"``, e.g. ``"far@3"``.

    Raises:
        MetricsError: an unknown measure or a bad ``k``.
    """
    if measure not in FAR_MEASURES:
        raise MetricsError(f"unknown FAR-family measure {measure!r}; known: {FAR_MEASURES}")
    if check_k(k) is None:
        raise MetricsError("a stored FAR-family score needs a numeric k")
    return f"{measure}@{k}"


def parse_far_key(key: str) -> tuple[str, int] | None:
    """Split ``"far@3"`` into ``("far", 3)``; None for any other metric name.

    Args:
        key: a stored metric name.

    Returns:
        ``(measure, k)`` or None.
    """
    measure, at, k = key.partition("@")
    if not at or measure not in FAR_MEASURES or not re.fullmatch(r"[1-9][0-9]*", k):
        return None
    return measure, int(k)


@cache
def _far_keys(k: int) -> tuple[tuple[str, str], ...]:
    """``(measure, far_key(measure, k))`` for each of :data:`FAR_MEASURES`, made once per k."""
    return tuple((measure, far_key(measure, k)) for measure in FAR_MEASURES)


@dataclass(frozen=True)
class OutputScores:
    """The scores of one system output on one document.

    Attributes:
        values: metric name -> value in [0, 1] (the ROUGE configuration's keys and
            ``far_key(m, k)``).
        notes: why a metric family was left out (e.g. ``"FAR: the FAM has no support"``).
    """

    values: Mapping[str, float]
    notes: tuple[str, ...] = field(default=())


def score_output(
    *,
    summary: Sequence[str],
    reference: Sequence[str] | None,
    extracted: Sequence[int] | None = None,
    fam: FacetAwareMapping | None = None,
    ks: Sequence[int] = (3,),
    document: object = None,
    rouge: PairScores | None = None,
    rouge_config: RougeConfig = DEFAULT_ROUGE,
) -> OutputScores:
    """Score one output: ROUGE against the reference, FAR/SAR/SAP/SAF1 against the FAM.

    ROUGE compares the summary's sentences, one a line, with the reference's, exactly as
    ``RougeScorer(rouge_types, use_stemmer=..., split_summaries=...).score("\\n".join(reference),
    "\\n".join(summary))`` with ``rouge_config``'s options (see
    :func:`scoring.metrics.rouge.score_pair`): ROUGE-Lsum's sentences are the stored ones
    (unless ``split_summaries``), the other types do not see the line breaks. The FAR family
    needs extracted indices and a FAM; a FAM without any support group (a noise document)
    leaves it out, with a note.

    Args:
        summary: the output's sentences.
        reference: the reference's sentences, or None when the document has none (no ROUGE).
        extracted: document-sentence indices in extraction order (extractive outputs only).
        fam: the document's validated FAM, or None (no FAR).
        ks: the cut-offs at which to compute the FAR family.
        document: the document's id, carried into error messages.
        rouge: the pair's ROUGE when already computed for many outputs at once
            (:func:`outputs_rouge`, with the same configuration); computed here when None.
        rouge_config: the ROUGE types and options (default: Loupe's); the values are stored
            under its keys (``rouge1_f``, ``rougeLsum_nostem_f``, ...).

    Returns:
        The :class:`OutputScores`.

    Raises:
        MetricsError: a bad extracted index or ``k`` (see :func:`..far.score_document`).
    """
    values: dict[str, float] = {}
    notes: list[str] = []
    if reference:
        pair = rouge or score_pair(_text(reference), _text(summary), rouge_config)
        for rouge_type in rouge_config.rouge_types:
            prf, name = pair[rouge_type], rouge_config.name(rouge_type)
            for short, attribute in MEASURE_SUFFIXES:
                values[f"{name}_{short}"] = getattr(prf, attribute)
    else:
        notes.append("ROUGE: the document has no reference")
    if extracted is not None and fam is not None:
        for k in ks:
            try:
                score = score_document(fam, extracted, k, document=document)
            except NoSupportError:
                notes.append("FAR: the FAM has no support group")
                break
            for measure, key in _far_keys(k):
                values[key] = getattr(score, measure)
    elif extracted is not None:
        notes.append("FAR: the document has no gold or released FAM")
    return OutputScores(values=values, notes=tuple(notes))


def _text(sentences: Sequence[str]) -> str:
    """The text rouge-score is given for a summary or reference: its sentences, one a line."""
    return "\n".join(sentences)


def outputs_rouge(
    items: Sequence[tuple[Sequence[str] | None, Sequence[str]]],
    config: RougeConfig = DEFAULT_ROUGE,
) -> list[PairScores | None]:
    """ROUGE of many outputs at once, as :func:`score_output` computes it for one.

    Args:
        items: ``(reference sentences or None, summary sentences)`` per output.
        config: the ROUGE types and options (default: Loupe's).

    Returns:
        Per output, the :class:`PairScores` of the summary against the reference (each with a
        sentence a line), or None when there is no reference (or an empty one).
    """
    # Identical pairs are scored once: a chunk holds every system's output of a few documents,
    # and extractive systems often pick the same sentences.
    pairs: dict[tuple[str, str], int] = {}
    keys: list[tuple[str, str] | None] = []
    for reference, summary in items:
        key = (_text(reference), _text(summary)) if reference else None
        if key is not None:
            pairs.setdefault(key, len(pairs))
        keys.append(key)
    scores = score_pairs([t for t, _ in pairs], [p for _, p in pairs], config)
    distinct = scores.pair_list()
    return [None if key is None else distinct[pairs[key]] for key in keys]
