"""Typed errors of the dataset-bias measures: each names the input or the item at fault."""

from __future__ import annotations

from ..errors import MetricsError


class BiasError(MetricsError):
    """Base class of every dataset-bias error (a ``ValueError``)."""


class TokensError(BiasError):
    """A token list is a single string, or holds something that is not a ``str``."""


class InvalidOrderError(BiasError):
    """An n-gram order (or the largest order) is not a positive integer."""


class NoItemsError(BiasError):
    """There is nothing to aggregate (a mean of nothing is undefined)."""
