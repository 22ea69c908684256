"""Dataset-bias measures of an imported dataset: its references and every system's outputs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from annotation.corpus.models import Dataset, Reference
from annotation.systems.models import SystemOutput
from scoring.metrics.bias import (
    DEFAULT_POSITION_BINS,
    BiasMeans,
    ItemBias,
    NoItemsError,
    aggregate_by,
    item_bias,
    tokenize,
)

from .selectors import output_version_current_list

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


def bias_items_list(*, dataset: Dataset) -> tuple[list[tuple[tuple[str, str], ItemBias]], dict]:
    """Every (document, summary) pair's bias measures, tokenized with the bias tokenizer.

    The pairs come in the dataset's order (document position, then id): first every reference
    (a document with several references gives one pair each, in reference order), then each
    system's current output version, systems by slug. A document without sentences (its text
    is missing) has nothing to copy from: its pairs are left out and counted.

    Args:
        dataset: the dataset.

    Returns:
        ``([((kind, source), ItemBias), ...], meta)``, where ``kind`` is ``"reference"`` or the
        system's kind and ``source`` is ``"reference"`` or the system's slug; ``meta`` counts
        documents, documents left out and pairs per source.
    """
    documents = list(dataset.documents.order_by("position", "id").only("id", "sentences"))
    tokens = {d.id: _tokens(d.sentences) for d in documents if d.sentences}
    order = {d.id: index for index, d in enumerate(documents)}
    items: list[tuple[tuple[str, str], ItemBias]] = []
    references = Reference.objects.filter(document__dataset=dataset, document_id__in=list(tokens))
    for reference in sorted(references, key=lambda r: (order[r.document_id], r.position)):
        item = item_bias(_tokens(reference.sentences), tokens[reference.document_id])
        items.append(((REFERENCE, REFERENCE), item))
    versions = output_version_current_list(dataset=dataset)
    outputs = SystemOutput.objects.filter(
        version__in=versions, document_id__in=list(tokens)
    ).select_related("system")
    for output in sorted(outputs, key=lambda o: (o.system.slug, order[o.document_id])):
        item = item_bias(_tokens(output.sentences), tokens[output.document_id])
        items.append(((output.system.kind, output.system.slug), item))
    meta = {
        "documents": len(documents),
        "documents_without_text_left_out": len(documents) - len(tokens),
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
