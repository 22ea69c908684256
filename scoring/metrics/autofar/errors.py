"""Typed errors of the AutoFAR core: bad inputs, mismatched coverage, a fit that is not defined."""

from __future__ import annotations

from ..errors import MetricsError


class AutoFarError(MetricsError):
    """Base class of every error raised by :mod:`scoring.metrics.autofar`."""


class AutoFarInputError(AutoFarError):
    """An input is empty, not a number, or names a document or system inconsistently."""


class SingularFitError(AutoFarError):
    """The least-squares fit has no unique solution (too few rows, a constant or collinear
    feature); the message names the fit (the full fit or a held-out system's fold)."""
