"""Suggestion scorers by name, for the web app and the command line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from .base import Scorer, UnknownScorerError
from .embedding import EXTRA, EmbeddingScorer, missing_modules
from .rouge import MEASURES, ROUGE_VARIANTS, RougeScorer
from .tfidf import FIT_DOCUMENT, TfidfScorer

_MEASURE_WORDS = {"f": "F-measure", "p": "precision", "r": "recall"}
_ROUGE_LABELS = {
    "rouge1": "ROUGE-1",
    "rouge2": "ROUGE-2",
    "rougeL": "ROUGE-L",
    "rougeavg": "ROUGE-AVG",
}


@dataclass(frozen=True)
class ScorerInfo:
    """What the registry knows about one scorer.

    Attributes:
        name: the registry name, e.g. ``"rougeavg-f"``.
        description: one line for people.
        extra: the optional extra it needs (``"embeddings"``), or ``None``.
        available: whether it can be used in this installation.
    """

    name: str
    description: str
    extra: str | None
    available: bool


def _entries() -> dict[str, tuple[Callable[[], Scorer], str, str | None]]:
    entries: dict[str, tuple[Callable[[], Scorer], str, str | None]] = {}
    for variant in ROUGE_VARIANTS:
        for measure in MEASURES:
            name = f"{variant.lower()}-{measure}"
            label = f"{_ROUGE_LABELS[variant]} {_MEASURE_WORDS[measure]}"
            entries[name] = (partial(RougeScorer, variant, measure), label, None)
    entries["tfidf"] = (TfidfScorer, "TF-IDF cosine, fitted on the document and facets", None)
    entries["tfidf-document"] = (
        partial(TfidfScorer, FIT_DOCUMENT),
        "TF-IDF cosine, fitted on the document's sentences only",
        None,
    )
    entries["embedding"] = (EmbeddingScorer, "all-MiniLM-L6-v2 embedding cosine", EXTRA)
    return entries


_REGISTRY = _entries()


def scorer_names() -> tuple[str, ...]:
    """Every registered name, available or not, in registry order.

    Returns:
        The names, e.g. ``("rouge1-f", ..., "tfidf", "embedding")``.
    """
    return tuple(_REGISTRY)


def scorer_infos() -> tuple[ScorerInfo, ...]:
    """Every registered scorer with its description and whether it can be used here.

    Returns:
        One :class:`ScorerInfo` per name, in registry order.
    """
    embeddings_ready = not missing_modules()
    return tuple(
        ScorerInfo(name, description, extra, extra is None or embeddings_ready)
        for name, (_, description, extra) in _REGISTRY.items()
    )


def get_scorer(name: str, *, rouge_use_stemmer: bool = True) -> Scorer:
    """A new scorer by its registry name (case-insensitive).

    Args:
        name: e.g. ``"rouge1-f"``, ``"rougeavg-f"``, ``"rougel-p"``, ``"tfidf"``,
            ``"embedding"``.
        rouge_use_stemmer: a ROUGE scorer stems words (rouge-score's ``use_stemmer``); the
            other scorers do not read it.

    Returns:
        The :class:`~scoring.metrics.suggest.base.Scorer`.

    Raises:
        UnknownScorerError: no scorer has that name (the error lists the names).
        EmbeddingsUnavailableError: ``"embedding"`` without the ``embeddings`` extra.
    """
    key = name.lower() if isinstance(name, str) else name
    if key not in _REGISTRY:
        raise UnknownScorerError(f"unknown scorer {name!r}; choose one of {', '.join(_REGISTRY)}")
    factory, _, _ = _REGISTRY[key]
    if isinstance(factory, partial) and factory.func is RougeScorer:
        return factory(use_stemmer=rouge_use_stemmer)
    return factory()
