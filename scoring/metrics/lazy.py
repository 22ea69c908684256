"""Heavy libraries imported on first use, not when the modules that call them are imported."""

from __future__ import annotations

import importlib.metadata
from types import ModuleType


def scipy_stats() -> ModuleType:
    """The ``scipy.stats`` module, imported on the first call.

    Importing it (or scikit-learn, which imports it) takes about two seconds of CPU, most of a
    Celery worker's or a ``manage.py`` command's start; most processes that load the modules
    calling it never compute a correlation or a test, and no longer pay for it.

    Returns:
        ``scipy.stats``.
    """
    from scipy import stats

    return stats


def tfidf_vectorizer():
    """A new scikit-learn ``TfidfVectorizer`` with its defaults (imported on the first call).

    Returns:
        ``sklearn.feature_extraction.text.TfidfVectorizer()``.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer()


def sklearn_version() -> str:
    """scikit-learn's version, read from its installed metadata without importing it.

    Returns:
        E.g. ``"1.7.2"``.
    """
    return importlib.metadata.version("scikit-learn")
