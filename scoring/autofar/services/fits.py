"""AutoFAR fits: fit on a dataset with human FAMs and store the model, reused by its digest."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError
from scoring.metrics.errors import MetricsError
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.suggest import ScorerUnavailableError, SuggestError, get_scorer

from ..models import AutoFarFit
from ..tables import (
    DEFAULT_SCORERS,
    DEFAULT_TOP_NS,
    AutoFarInput,
    autofar_compute,
    autofar_input_get,
    autofar_result_report,
)

# Part of every digest: changing how a fit is computed makes old fits stale. 2: the report
# holds the paper's protocol and published figures beside Loupe's, and reads every document
# with a human FAM (the ground truth) besides those with machine FAMs.
FIT_COMPUTATION = "autofar-fit=2"


class AutoFarFitError(ApplicationError):
    """The dataset cannot give an AutoFAR fit (no human FAM, or no unique solution)."""


def autofar_input_digest(
    *, data: AutoFarInput, scorers: Sequence[str], top_ns: Sequence[int], k: int, resamples: int
) -> str:
    """The SHA-256 of everything a fit reads.

    Args:
        data: the documents, human FAMs and extracted indices.
        scorers: scorer names.
        top_ns: the N's.
        k: the FAR cut-off.
        resamples: Table 7's bootstrap resamples.

    Returns:
        64 hex digits.
    """
    payload = {
        "computation": FIT_COMPUTATION,
        "scorers": list(scorers),
        "top_ns": list(top_ns),
        "k": k,
        "resamples": resamples,
        "keep_split_disagreements": data.keep_split_disagreements,
        "documents": [
            [
                d.external_id,
                list(d.facets),
                list(d.sentences),
                [[sorted(group) for group in groups] for groups in d.human.groups],
                d.split_agrees,
            ]
            for d in data.documents
        ],
        "system_names": dict(sorted(data.system_names.items())),
        "extracted": {s: dict(sorted(docs.items())) for s, docs in sorted(data.extracted.items())},
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class FitObtained:
    """A fit and whether it was made now.

    Attributes:
        fit: the stored fit.
        created: False when an unchanged fit (same digest) was reused.
    """

    fit: AutoFarFit
    created: bool


def _check(scorers: Sequence[str], top_ns: Sequence[int], k: int, resamples: int) -> None:
    if not scorers or not top_ns:
        raise AutoFarFitError("give at least one scorer and one N")
    for name in scorers:
        try:
            get_scorer(name)
        except (SuggestError, ScorerUnavailableError) as error:
            raise AutoFarFitError(str(error)) from error
    bad = [n for n in top_ns if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10]
    if bad:
        raise AutoFarFitError(f"N must be an integer from 1 to 10; got {bad}")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
        raise AutoFarFitError(f"k must be an integer from 1 to 50; got {k!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 0 <= resamples <= 10000:
        raise AutoFarFitError(f"resamples must be an integer from 0 to 10000; got {resamples!r}")


def autofar_fit_obtain(
    *,
    dataset: Dataset,
    scorers: Sequence[str] = DEFAULT_SCORERS,
    top_ns: Sequence[int] = DEFAULT_TOP_NS,
    k: int = DEFAULT_K,
    resamples: int = 1000,
    user=None,
) -> FitObtained:
    """Fit AutoFAR on a dataset's human FAMs (Tables 6-8) and store it, or reuse an unchanged fit.

    The inputs are read as ``manage.py autofar`` reads them (documents whose split disagrees
    with their FAM left out); a stored fit of the dataset with the same digest is returned as
    it is. The computation runs before the write, which is one transaction.

    Args:
        dataset: a dataset with human (gold or released) FAMs and extractive outputs.
        scorers: registered scorer names.
        top_ns: the machine FAMs' N's.
        k: FAR cut-off.
        resamples: Table 7's bootstrap resamples.
        user: who asked for it.

    Returns:
        The :class:`FitObtained`.

    Raises:
        AutoFarFitError: bad parameters (an unknown scorer, say), no document with a human
            FAM, or no Table 8 fit (its reason); HTTP 400.
    """
    scorers, top_ns = list(scorers), list(top_ns)
    _check(scorers, top_ns, k, resamples)
    data = autofar_input_get(dataset=dataset)
    if not data.documents:
        raise AutoFarFitError(f"{dataset.slug} has no document with a human FAM to fit on")
    digest = autofar_input_digest(
        data=data, scorers=scorers, top_ns=top_ns, k=k, resamples=resamples
    )
    found = AutoFarFit.objects.filter(dataset=dataset, digest=digest).first()
    if found is not None:
        return FitObtained(found, False)
    try:
        result = autofar_compute(
            data=data, scorers=scorers, top_ns=top_ns, k=k, resamples=resamples
        )
    except MetricsError as error:
        raise AutoFarFitError(f"no AutoFAR fit on {dataset.slug}: {error}") from error
    if result.table8 is None:
        raise AutoFarFitError(f"no AutoFAR fit on {dataset.slug}: {result.table8_reason}")
    report = autofar_result_report(result)
    return FitObtained(_store(dataset, scorers, top_ns, k, digest, result, report, user), True)


@transaction.atomic
def _store(dataset, scorers, top_ns, k, digest, result, report, user) -> AutoFarFit:
    found = AutoFarFit.objects.select_for_update().filter(dataset=dataset, digest=digest).first()
    if found is not None:  # a concurrent request stored the same fit first
        return found
    table8 = result.table8
    model = table8.model
    fit = AutoFarFit(
        dataset=dataset,
        scorers=scorers,
        top_ns=top_ns,
        k=k,
        features=list(model.features),
        intercept=model.intercept,
        weights=dict(model.weights),
        rmse=model.rmse,
        r2=model.r2,
        validation_rmse=table8.validation_rmse,
        validation_r2=table8.validation_r2,
        validation_reason=table8.validation_reason or "",
        held_out=[item.as_dict() for item in table8.held_out],
        report=report,
        n_documents=result.meta["table8_documents"],
        n_systems=len(result.meta["systems"]),
        n_rows=model.n_rows,
        digest=digest,
        created_by=user,
    )
    fit.full_clean()
    fit.save()
    return fit
