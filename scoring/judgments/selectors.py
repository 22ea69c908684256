"""Human-judgment selectors (reads): the studies of a dataset and their values for correlations,
and the releases' own scores."""

from __future__ import annotations

from django.db.models import Count, Max

from annotation.accounts.roles import ADMIN, has_role
from annotation.corpus.models import Dataset

from .models import HumanJudgment, ReleasedScore


def human_judgment_study_may_change(*, owner_ids: set, user) -> bool:
    """Whether ``user`` may replace or delete a study whose rows ``owner_ids`` uploaded.

    Args:
        owner_ids: the primary keys of the study's uploaders (``None`` for rows written from
            the shell); empty for a study that does not exist yet.
        user: who asks; ``None`` is the shell, which may do anything.

    Returns:
        True for the shell, an admin, a study that does not exist and a study the user alone
        uploaded; False otherwise.
    """
    if user is None or has_role(user, ADMIN):
        return True
    return not owner_ids or owner_ids == {user.pk}


def human_judgment_study_list(*, dataset: Dataset, user=None) -> list[dict]:
    """The human judgment studies of a dataset, by name.

    Args:
        dataset: the dataset.
        user: who reads the list, for ``can_delete`` (``None``: the shell).

    Returns:
        One dict per study: ``name``, ``kind`` (``score`` or ``rank``), ``per_document``,
        ``n_systems``, ``n_documents`` (0 for a per-system study), ``n_rows``,
        ``uploaded_at`` (when its latest row was written), ``uploaded_by`` (the uploader's
        username; ``None`` when written from the shell or by several users) and ``can_delete``
        (whether ``user`` may replace or delete it).
    """
    uploaders: dict[str, dict] = {}
    owners = (
        HumanJudgment.objects.filter(dataset=dataset)
        .order_by()
        .values_list("name", "uploaded_by", "uploaded_by__username")
        .distinct()
    )
    for name, owner_id, username in owners:
        uploaders.setdefault(name, {})[owner_id] = username
    studies = (
        HumanJudgment.objects.filter(dataset=dataset)
        .values("name", "kind")
        .annotate(
            n_rows=Count("id"),
            n_systems=Count("system", distinct=True),
            n_documents=Count("document", distinct=True),
            uploaded_at=Max("created_at"),
        )
        .order_by("name", "kind")
    )
    return [
        {
            **study,
            "per_document": study["n_documents"] > 0,
            "uploaded_by": _single(uploaders[study["name"]]),
            "can_delete": human_judgment_study_may_change(
                owner_ids=set(uploaders[study["name"]]), user=user
            ),
        }
        for study in studies
    ]


def _single(uploaders: dict) -> str | None:
    """The one uploader's username, or None (the shell, or several users)."""
    names = set(uploaders.values())
    return names.pop() if len(names) == 1 else None


def human_judgments_for(*, dataset: Dataset) -> dict[str, tuple[str, dict[str, dict]]]:
    """Every study of a dataset in the shape :func:`correlate_with_human` takes.

    See :func:`scoring.metrics.leaderboard.correlations.correlate_with_human`.

    Args:
        dataset: the dataset.

    Returns:
        Study name -> ``(kind, {system slug: {document id: value}})``, where the document id
        is the :class:`~annotation.corpus.models.Document` primary key (an int) in a
        per-document study and ``None`` in a per-system study; ``kind`` is ``score`` (higher is
        better) or ``rank`` (1 is best). Studies come in name order.
    """
    studies: dict[str, tuple[str, dict[str, dict]]] = {}
    rows = (
        HumanJudgment.objects.filter(dataset=dataset)
        .order_by("name", "system__slug", "document_id")
        .values_list("name", "kind", "system__slug", "document_id", "value")
    )
    for name, kind, system, document, value in rows:
        _, systems = studies.setdefault(name, (kind, {}))
        systems.setdefault(system, {})[document] = value
    return studies


def human_judgment_stamp(*, dataset: Dataset) -> str:
    """A short string that changes whenever the dataset's judgments change (for caches).

    Args:
        dataset: the dataset.

    Returns:
        ``"<rows>:<largest id>:<latest write>"``; ``"0:-:-"`` when there is none. An upload,
        a replacement and a deletion each change it.
    """
    stats = HumanJudgment.objects.filter(dataset=dataset).aggregate(
        rows=Count("id"), last_id=Max("id"), last_at=Max("created_at")
    )
    last_at = stats["last_at"].isoformat() if stats["last_at"] else "-"
    return f"{stats['rows']}:{stats['last_id'] or '-'}:{last_at}"


def released_scores_for(*, dataset: Dataset) -> dict[str, dict[str, dict[str, dict[int, float]]]]:
    """The releases' own automatic scores of a dataset's outputs, by key.

    Args:
        dataset: the dataset.

    Returns:
        Release name -> released key -> system slug -> document id (the
        :class:`~annotation.corpus.models.Document` primary key) -> value; releases, keys and
        systems in name order.
    """
    found: dict[str, dict[str, dict[str, dict[int, float]]]] = {}
    rows = (
        ReleasedScore.objects.filter(dataset=dataset)
        .order_by("release", "system__slug", "document_id")
        .values_list("release", "system__slug", "document_id", "scores")
    )
    for release, system, document, scores in rows:
        by_key = found.setdefault(release, {})
        for key, value in scores.items():
            by_key.setdefault(key, {}).setdefault(system, {})[document] = value
    return {release: dict(sorted(by_key.items())) for release, by_key in found.items()}


def released_score_stamp(*, dataset: Dataset) -> str:
    """A short string that changes whenever the dataset's released scores change (for caches).

    Args:
        dataset: the dataset.

    Returns:
        ``"<rows>:<largest id>"``; ``"0:-"`` when there is none.
    """
    stats = ReleasedScore.objects.filter(dataset=dataset).aggregate(
        rows=Count("id"), last_id=Max("id")
    )
    return f"{stats['rows']}:{stats['last_id'] or '-'}"
