"""Dataset-bias measures of a dataset's references and every system's outputs (the command)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from annotation.corpus.models import Dataset, Document, Reference
from annotation.systems.models import OutputVersion, SystemOutput
from scoring.metrics.bias import (
    DEFAULT_POSITION_BINS,
    BiasMeans,
    ItemBias,
    NoItemsError,
    aggregate_by,
    item_bias,
    prepare_document,
    tokenize,
)
from scoring.scores.selectors import output_version_current_list

REFERENCE = "reference"


@dataclass(frozen=True)
class BiasRow:
    """The mean bias measures of one source.

    Attributes:
        source: ``"reference"`` for the dataset's references, else the system's slug.
        kind: ``"reference"``, ``"extractive"`` or ``"abstractive"``.
        means: the source's :class:`BiasMeans` over its (document, summary) pairs.
    """

    source: str
    kind: str
    means: BiasMeans


@dataclass
class BiasResult:
    """One row per source (the references first, then the systems by slug) and bookkeeping.

    Attributes:
        rows: the rows.
        meta: counts of documents and pairs, and the documents left out (no text).
    """

    rows: list[BiasRow]
    meta: dict = field(default_factory=dict)


def _tokens(sentences) -> list[tuple[str, ...]]:
    return [tokenize(sentence) for sentence in sentences or []]


Item = tuple[tuple[str, str], ItemBias]


def bias_pairs_score(
    *, documents: Sequence[Document], versions: Sequence[OutputVersion]
) -> list[Item]:
    """The bias measures of every (document, summary) pair of some documents.

    Each document is tokenized and prepared once for all its summaries. The pairs come in the
    documents' order: first every reference (a document with several references gives one
    pair each, in reference order), then each version's outputs, versions in the order given.
    Documents without sentences (no text) must be left out by the caller.

    Args:
        documents: the documents, with text, in the dataset's order.
        versions: the output versions, system loaded, in the order of their rows.

    Returns:
        ``[((kind, source), ItemBias), ...]``, where ``kind`` is ``"reference"`` or the
        system's kind and ``source`` is ``"reference"`` or the system's slug.
    """
    prepared = {d.id: prepare_document(_tokens(d.sentences)) for d in documents}
    order = {d.id: index for index, d in enumerate(documents)}
    items: list[Item] = []
    references = Reference.objects.filter(document_id__in=list(prepared)).only(
        "document_id", "position", "sentences"
    )
    for reference in sorted(references, key=lambda r: (order[r.document_id], r.position)):
        item = item_bias(_tokens(reference.sentences), prepared[reference.document_id])
        items.append(((REFERENCE, REFERENCE), item))
    rank = {version.pk: index for index, version in enumerate(versions)}
    outputs = SystemOutput.objects.filter(
        version__in=list(versions), document_id__in=list(prepared)
    ).only("version_id", "document_id", "sentences")
    for output in sorted(outputs, key=lambda o: (rank[o.version_id], order[o.document_id])):
        system = versions[rank[output.version_id]].system
        item = item_bias(_tokens(output.sentences), prepared[output.document_id])
        items.append(((system.kind, system.slug), item))
    return items


def bias_items_list(*, dataset: Dataset) -> tuple[list[Item], dict]:
    """Every (document, summary) pair's bias measures, tokenized with the bias tokenizer.

    The pairs come in the dataset's order (document position, then id): first every reference,
    then each system's current output version, systems by slug (see
    :func:`bias_pairs_score`). A document without sentences (its text is missing) has nothing
    to copy from: its pairs are left out and counted.

    Args:
        dataset: the dataset.

    Returns:
        ``([((kind, source), ItemBias), ...], meta)``; ``meta`` counts documents, documents
        left out, and names the systems and their versions.
    """
    documents = list(dataset.documents.order_by("position", "id").only("id", "sentences"))
    with_text = [d for d in documents if d.sentences]
    versions = output_version_current_list(dataset=dataset)
    items = bias_pairs_score(documents=with_text, versions=versions)
    meta = {
        "documents": len(documents),
        "documents_without_text_left_out": len(documents) - len(with_text),
        "systems": [v.system.slug for v in versions],
        "output_versions": {v.system.slug: v.number for v in versions},
    }
    return items, meta


def bias_compute(*, dataset: Dataset, bins: int = DEFAULT_POSITION_BINS) -> BiasResult:
    """The mean bias measures of the dataset's references and of every system's outputs.

    Args:
        dataset: the dataset.
        bins: equal-width bins of the supporting content's position (10 by default).

    Returns:
        The :class:`BiasResult`: the references' row first, then one row per system by slug
        (a source without pairs has no row).

    Raises:
        NoItemsError: the dataset has no reference or system output on a document with text.
        BiasError: ``bins`` is not a positive integer.
    """
    items, meta = bias_items_list(dataset=dataset)
    if not items:
        raise NoItemsError(
            f"dataset {dataset.slug!r} has no reference or system output on a document with "
            "text: there is nothing to measure"
        )
    grouped = aggregate_by(items, bins=bins)
    rows = [BiasRow(source, kind, means) for (kind, source), means in grouped.items()]
    meta["pairs"] = {row.source: row.means.n_items for row in rows}
    meta["bins"] = bins
    return BiasResult(rows, meta)


def bias_report(result: BiasResult, *, dataset: Dataset) -> dict:
    """The result as JSON-ready data.

    Args:
        result: what :func:`bias_compute` returned.
        dataset: its dataset.

    Returns:
        ``{"dataset", "rows": [{"source", "kind", **BiasMeans fields}], "meta"}``; the n-gram
        lists are indexed by order - 1.
    """
    rows = []
    for row in result.rows:
        data = {"source": row.source, "kind": row.kind}
        data.update(
            {key: list(v) if isinstance(v, tuple) else v for key, v in asdict(row.means).items()}
        )
        rows.append(data)
    return {"dataset": dataset.slug, "rows": rows, "meta": result.meta}
