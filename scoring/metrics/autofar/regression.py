"""AutoFAR (Table 8): least squares from several scorers' machine-FAM FAR to human FAR.

One row per (system, document) pair with a human FAM: the features are the pair's FAR under
each scorer's machine FAMs, the target its FAR under the human FAM, and the model is
``FAR_human ~ intercept + sum_j w_j * FAR_j`` fitted by ``numpy.linalg.lstsq``.
:func:`autofar_fit` fits it on every row and validates it leaving one system out: each system's
rows are predicted by a model fitted on the other systems' rows only, so no system is scored by
weights tuned on it. Both figures are also given as the paper reports Table 8: each system's
mean fitted (or held-out) FAR against its mean human FAR, by Pearson's r, Spearman's rho and
Kendall's tau (:class:`~.correlation.SystemAgreement`).

:func:`autofar_system_fit` is the other reading of the paper's Table 8: one row per *system*
(its mean FAR under each scorer's machine FAMs against its ground-truth FAR), fitted in sample
as the paper reports it, and validated leaving one system out as well.

:func:`autofar_predict` applies a model to documents without human FAMs (AutoFAR-L).
Predictions are not clipped to [0, 1]: a value outside says the linear model is extrapolating.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..stats.bootstrap import as_finite_array
from ..stats.errors import canonical_key
from ..stats.order import Order
from .correlation import Scores, SystemAgreement, far_matrices, system_agreement
from .errors import AutoFarInputError, SingularFitError

Features = Mapping[str, Scores]  # scorer -> system -> document -> FAR under its machine FAMs


@dataclass(frozen=True)
class AutoFarModel:
    """A fitted AutoFAR model and its in-sample fit error.

    Attributes:
        features: the scorers, in the order of ``weights``.
        intercept: the constant term.
        weights: scorer -> coefficient.
        n_rows: (system, document) rows fitted.
        rmse: root mean squared error on the fitted rows.
        r2: ``1 - SSE / SST``; ``None`` when the human FAR is constant (SST = 0).
        r2_reason: why ``r2`` is ``None``, else ``None``.
    """

    features: tuple[str, ...]
    intercept: float
    weights: Mapping[str, float]
    n_rows: int
    rmse: float
    r2: float | None
    r2_reason: str | None = None

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"features", "intercept", "weights", "n_rows", "rmse", "r2", "r2_reason"}``.
        """
        return {
            "features": list(self.features),
            "intercept": self.intercept,
            "weights": dict(self.weights),
            "n_rows": self.n_rows,
            "rmse": self.rmse,
            "r2": self.r2,
            "r2_reason": self.r2_reason,
        }


@dataclass(frozen=True)
class HeldOutSystem:
    """One system predicted by the model fitted without it.

    Attributes:
        system: the held-out system.
        n_documents: its documents.
        predicted_far: its mean predicted FAR.
        human_far: its mean human FAR.
        rmse: root mean squared error over its documents.
        intercept: the fold's intercept.
        weights: the fold's scorer -> coefficient.
    """

    system: Hashable
    n_documents: int
    predicted_far: float
    human_far: float
    rmse: float
    intercept: float
    weights: Mapping[str, float]

    def as_dict(self) -> dict:
        """JSON-ready data (the system as text).

        Returns:
            Every attribute by name.
        """
        return {
            "system": str(self.system),
            "n_documents": self.n_documents,
            "predicted_far": self.predicted_far,
            "human_far": self.human_far,
            "rmse": self.rmse,
            "intercept": self.intercept,
            "weights": dict(self.weights),
        }


@dataclass(frozen=True)
class AutoFarFit:
    """Table 8: the model on every row and its leave-one-system-out validation.

    Attributes:
        model: the :class:`AutoFarModel` fitted on every row.
        held_out: one :class:`HeldOutSystem` per system (canonical order); empty when there
            is no validation.
        validation_rmse: RMSE of the held-out predictions over every row, or ``None``.
        validation_r2: ``1 - SSE_held_out / SST`` over every row, or ``None``.
        validation_reason: why a validation figure is ``None``, else ``None``.
        in_sample: each system's mean fitted FAR against its mean human FAR (the paper's
            "FAR vs. AutoFAR"), or ``None`` without a system.
        held_out_agreement: the same for the held-out predictions, or ``None`` without a
            validation.
    """

    model: AutoFarModel
    held_out: tuple[HeldOutSystem, ...]
    validation_rmse: float | None
    validation_r2: float | None
    validation_reason: str | None = None
    in_sample: SystemAgreement | None = None
    held_out_agreement: SystemAgreement | None = None

    def as_dict(self) -> dict:
        """Table 8 as JSON-ready data.

        Returns:
            ``{"model", "held_out", "validation_rmse", "validation_r2",
            "validation_reason", "in_sample", "held_out_agreement"}`` (the last two as
            :meth:`SystemAgreement.as_dict`, or ``None``).
        """
        return {
            "model": self.model.as_dict(),
            "held_out": [item.as_dict() for item in self.held_out],
            "validation_rmse": self.validation_rmse,
            "validation_r2": self.validation_r2,
            "validation_reason": self.validation_reason,
            "in_sample": self.in_sample.as_dict() if self.in_sample else None,
            "held_out_agreement": (
                self.held_out_agreement.as_dict() if self.held_out_agreement else None
            ),
        }


@dataclass(frozen=True)
class AutoFarSystemFit:
    """Table 8 at system level: one row per system, fitted in sample, validated held out.

    Attributes:
        model: intercept and weights fitted on every system (``n_rows`` is the number of
            systems; ``rmse`` and ``r2`` over them).
        in_sample: the fitted AutoFAR of each system against its ground-truth FAR.
        held_out: each system's prediction by the model fitted on the other systems, against
            its ground-truth FAR; ``None`` when a fold has no unique solution.
        held_out_reason: why ``held_out`` is ``None``, else ``None``.
    """

    model: AutoFarModel
    in_sample: SystemAgreement
    held_out: SystemAgreement | None
    held_out_reason: str | None = None

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"model", "in_sample", "held_out", "held_out_reason"}``.
        """
        return {
            "model": self.model.as_dict(),
            "in_sample": self.in_sample.as_dict(),
            "held_out": self.held_out.as_dict() if self.held_out else None,
            "held_out_reason": self.held_out_reason,
        }


@dataclass(frozen=True)
class AutoFarPredictions:
    """AutoFAR-L: predicted FAR of documents without human FAMs.

    Attributes:
        per_document: system -> document -> predicted FAR.
        system_means: system -> mean predicted FAR over its documents.
    """

    per_document: Mapping[Hashable, Mapping[Hashable, float]]
    system_means: Mapping[Hashable, float]

    def as_dict(self) -> dict:
        """JSON-ready data (keys as text).

        Returns:
            ``{"per_document": {system: {document: far}}, "system_means": {system: far}}``.
        """
        return {
            "per_document": {
                str(s): {str(d): v for d, v in docs.items()}
                for s, docs in self.per_document.items()
            },
            "system_means": {str(s): v for s, v in self.system_means.items()},
        }


def _design(
    features: Features, target: Scores, order: Order, what: str
) -> tuple[tuple[str, ...], tuple[Hashable, ...], tuple[Hashable, ...], np.ndarray, np.ndarray]:
    """``(names, systems, documents, X, y)``: X has a column of ones, then one per scorer;
    rows are systems (canonical order) by documents (in ``order``)."""
    if not features:
        raise AutoFarInputError(f"{what}: no scorer's FAR to use as a feature")
    names = tuple(features)
    for name in names:
        if not isinstance(name, str) or not name:
            raise AutoFarInputError(f"{what}: scorer names must be non-empty text, got {name!r}")
    columns = []
    systems = documents = ()
    y = np.empty(0)
    for name in names:
        systems, documents, x, h = far_matrices(
            features[name], target, order=order, what=f"{what}, scorer {name!r}"
        )
        columns.append(x.T.ravel())  # systems x documents, row-major
        y = h.T.ravel()
    design = np.column_stack([np.ones(y.size), *columns])
    return names, systems, documents, design, y


def _solve(design: np.ndarray, y: np.ndarray, what: str) -> np.ndarray:
    """Least-squares coefficients; refuses a fit without a unique solution."""
    parameters = design.shape[1]
    if design.shape[0] < parameters:
        raise SingularFitError(
            f"{what}: {design.shape[0]} rows for {parameters} coefficients (intercept and "
            f"{parameters - 1} scorer(s)): the fit has no unique solution"
        )
    rank = int(np.linalg.matrix_rank(design))
    if rank < parameters:
        raise SingularFitError(
            f"{what}: the features are constant or collinear (rank {rank} of {parameters}): "
            "the fit has no unique solution"
        )
    coefficients, *_ = np.linalg.lstsq(design, y, rcond=None)
    return coefficients


def _r2(residuals: np.ndarray, y: np.ndarray) -> tuple[float | None, str | None]:
    total = float(((y - y.mean()) ** 2).sum())
    if total == 0.0:
        return None, "the human FAR is the same on every row: R^2 is undefined (SST = 0)"
    return 1.0 - float((residuals**2).sum()) / total, None


def _rmse(residuals: np.ndarray) -> float:
    return float(np.sqrt(np.mean(residuals**2)))


def autofar_fit(features: Features, human: Scores, *, order: Order = None) -> AutoFarFit:
    """Fit AutoFAR on every (system, document) row and validate it leaving one system out.

    Args:
        features: scorer -> system -> document -> FAR under that scorer's machine FAMs; every
            scorer covers exactly the systems and documents of ``human``.
        human: system -> document -> FAR under the human FAMs.
        order: the documents' order (None: canonical key order); rows are taken system by
            system (canonical order), then document by document.

    Returns:
        The :class:`AutoFarFit`. With one system there is no validation (``held_out`` empty,
        the figures ``None`` with the reason); a held-out fold that has no unique solution
        also leaves the validation undefined, naming the system.

    Raises:
        AutoFarInputError: no scorer, no system or document, mismatched coverage, or a value
            that is not a finite number.
        SingularFitError: the fit on every row has no unique solution.
    """
    what = "AutoFAR fit"
    names, systems, documents, design, y = _design(features, human, order, what)
    coefficients = _solve(design, y, what)
    fitted = design @ coefficients
    model = _model(names, coefficients, fitted - y, y)
    n_docs = len(documents)
    in_sample = _agreement(systems, n_docs, fitted, y)
    if len(systems) < 2:
        reason = f"{len(systems)} system: leaving one system out needs at least 2"
        return AutoFarFit(model, (), None, None, reason, in_sample)
    held_out, predictions = [], np.empty_like(y)
    for index, system in enumerate(systems):
        rows = slice(index * n_docs, (index + 1) * n_docs)
        keep = np.ones(y.size, dtype=bool)
        keep[rows] = False
        try:
            fold = _solve(design[keep], y[keep], f"{what} without system {system!r}")
        except SingularFitError as exc:
            return AutoFarFit(model, (), None, None, str(exc), in_sample)
        predicted = design[rows] @ fold
        predictions[rows] = predicted
        held_out.append(
            HeldOutSystem(
                system,
                n_docs,
                float(predicted.mean()),
                float(y[rows].mean()),
                _rmse(predicted - y[rows]),
                float(fold[0]),
                dict(zip(names, (float(c) for c in fold[1:]), strict=True)),
            )
        )
    validation_r2, reason = _r2(predictions - y, y)
    return AutoFarFit(
        model,
        tuple(held_out),
        _rmse(predictions - y),
        validation_r2,
        reason,
        in_sample,
        _agreement(systems, n_docs, predictions, y),
    )


def _model(
    names: tuple[str, ...], coefficients: np.ndarray, residuals: np.ndarray, y: np.ndarray
) -> AutoFarModel:
    r2, r2_reason = _r2(residuals, y)
    return AutoFarModel(
        names,
        float(coefficients[0]),
        dict(zip(names, (float(c) for c in coefficients[1:]), strict=True)),
        int(y.size),
        _rmse(residuals),
        r2,
        r2_reason,
    )


def _agreement(
    systems: tuple[Hashable, ...], n_docs: int, predicted: np.ndarray, y: np.ndarray
) -> SystemAgreement:
    """Each system's mean prediction against its mean human FAR (rows system-major)."""
    return system_agreement(
        {s: float(predicted[i * n_docs : (i + 1) * n_docs].mean()) for i, s in enumerate(systems)},
        {s: float(y[i * n_docs : (i + 1) * n_docs].mean()) for i, s in enumerate(systems)},
    )


def autofar_system_fit(
    features: Mapping[str, Mapping[Hashable, float]], truth: Mapping[Hashable, float]
) -> AutoFarSystemFit:
    """Fit AutoFAR on one row per system and validate it leaving one system out.

    ``truth ~ intercept + sum_j w_j * features[j]``, where ``features[j][s]`` is system
    ``s``'s FAR under scorer ``j``'s machine FAMs (a mean over documents) and ``truth[s]`` its
    ground-truth FAR. With ``m`` scorers the fit needs at least ``m + 1`` systems, and the
    validation (each system predicted from the others) ``m + 2``; with exactly ``m + 1``
    systems the fit passes through every point.

    Args:
        features: scorer -> system -> FAR under its machine FAMs, each for exactly the
            systems of ``truth``.
        truth: system -> ground-truth FAR.

    Returns:
        The :class:`AutoFarSystemFit` (systems in canonical key order).

    Raises:
        AutoFarInputError: no scorer or system, a scorer covering other systems, or a value
            that is not a finite number.
        SingularFitError: the fit on every system has no unique solution.
    """
    what = "AutoFAR system-level fit"
    if not features:
        raise AutoFarInputError(f"{what}: no scorer's FAR to use as a feature")
    if not truth:
        raise AutoFarInputError(f"{what}: no system")
    systems = tuple(sorted(truth, key=canonical_key))
    names = tuple(features)
    columns = [np.ones(len(systems))]
    try:
        for name in names:
            if not isinstance(name, str) or not name:
                raise AutoFarInputError(f"{what}: scorer names must be non-empty text")
            if features[name].keys() != truth.keys():
                raise AutoFarInputError(f"{what}: scorer {name!r} covers other systems")
            columns.append(
                as_finite_array([features[name][s] for s in systems], f"{what}, {name!r}")
            )
        y = as_finite_array([truth[s] for s in systems], f"{what}, ground truth")
    except ValueError as exc:
        raise AutoFarInputError(str(exc)) from exc
    design = np.column_stack(columns)
    coefficients = _solve(design, y, what)
    fitted = design @ coefficients
    model = _model(names, coefficients, fitted - y, y)
    in_sample = system_agreement(dict(zip(systems, fitted.tolist(), strict=True)), truth)
    predictions = {}
    for index, system in enumerate(systems):
        keep = np.arange(len(systems)) != index
        try:
            fold = _solve(design[keep], y[keep], f"{what} without system {system!r}")
        except SingularFitError as exc:
            return AutoFarSystemFit(model, in_sample, None, str(exc))
        predictions[system] = float(design[index] @ fold)
    return AutoFarSystemFit(model, in_sample, system_agreement(predictions, truth))


def autofar_predict(
    model: AutoFarModel,
    features: Features,
    *,
    order: Order = None,
) -> AutoFarPredictions:
    """Apply a fitted model to documents without human FAMs (AutoFAR-L).

    Args:
        model: a fitted :class:`AutoFarModel`.
        features: scorer -> system -> document -> FAR under its machine FAMs, for exactly the
            model's scorers; every scorer covers the same systems and documents.
        order: the documents' order for the system means (None: canonical key order).

    Returns:
        The :class:`AutoFarPredictions` (unclipped).

    Raises:
        AutoFarInputError: the scorers differ from the model's, no system or document,
            mismatched coverage, or a value that is not a finite number.
    """
    what = "AutoFAR prediction"
    if set(features) != set(model.features):
        raise AutoFarInputError(
            f"{what}: the model uses scorers {sorted(model.features)!r}, "
            f"got {sorted(features, key=str)!r}"
        )
    first = features[model.features[0]]
    ordered = {name: features[name] for name in model.features}
    # Any scorer's FAR serves as the reference side for the coverage check.
    _, systems, documents, design, _ = _design(ordered, first, order, what)
    weights = np.array([model.intercept, *(model.weights[n] for n in model.features)])
    values = design @ weights
    n_docs = len(documents)
    per_document = {
        system: {document: float(values[i * n_docs + j]) for j, document in enumerate(documents)}
        for i, system in enumerate(systems)
    }
    means = {
        system: float(values[i * n_docs : (i + 1) * n_docs].mean())
        for i, system in enumerate(systems)
    }
    return AutoFarPredictions(per_document, means)


def autofar_report(
    table6: Sequence, table7: Sequence, table8: AutoFarFit | None
) -> dict[str, object]:
    """The ``--format json`` document of an AutoFAR run (values as fractions).

    Args:
        table6: :class:`~.discovery.DiscoveryScore` rows.
        table7: :class:`~.correlation.FarCorrelation` rows.
        table8: the :class:`AutoFarFit`, or ``None`` when no model was fitted.

    Returns:
        ``{"table6": [...], "table7": [...], "table8": {...} or None}``.
    """
    return {
        "table6": [row.as_dict() for row in table6],
        "table7": [row.as_dict() for row in table7],
        "table8": table8.as_dict() if table8 is not None else None,
    }
