"""AutoFAR Tables 6-8 on an imported dataset: reads the DB, builds machine FAMs, runs the core."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSetKind
from annotation.systems.models import SystemOutput
from scoring.metrics.autofar import (
    AutoFarError,
    AutoFarFit,
    DiscoveryScore,
    FarCorrelation,
    autofar_fit,
    discovery_score,
    fam_discovery_counts,
    far_correlation,
)
from scoring.metrics.fam import FacetAwareMapping, validate_fam
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.far.document import all_support, score_document
from scoring.metrics.stats import KeyOrder
from scoring.metrics.suggest import get_scorer, machine_fam_from_scores
from scoring.scores.selectors import output_version_current_list, scoring_fam_map

DEFAULT_SCORERS = ("rouge1-f", "rouge2-f", "rougel-f", "rougeavg-f")
DEFAULT_TOP_NS = (1, 2, 3)


@dataclass(frozen=True)
class AutoFarDocument:
    """One document with a human FAM: its facets, sentences and validated human FAM.

    Attributes:
        external_id: the document's external id (the key in every table).
        facets: the FAM's reference sentences (one facet each).
        sentences: the document's sentences.
        human: the validated human FAM scoring uses.
    """

    external_id: str
    facets: tuple[str, ...]
    sentences: tuple[str, ...]
    human: FacetAwareMapping


@dataclass(frozen=True)
class AutoFarInput:
    """What AutoFAR reads from a dataset.

    Attributes:
        documents: the documents with a human FAM, in the dataset's order.
        extracted: system slug -> document external id -> extracted sentence indices (the
            current output version's extractive outputs only).
        split_disagreements: documents with a human FAM left out because their import found
            that the stored sentence split disagrees with the FAM's support sentences
            (``meta["split_agrees"] is False``).
    """

    documents: tuple[AutoFarDocument, ...]
    extracted: dict[str, dict[str, list[int]]]
    split_disagreements: int = 0


@dataclass
class AutoFarResult:
    """Tables 6-8 of one run and the bookkeeping behind them.

    Attributes:
        table6: discovery rows, scorer by scorer, N = 1, 2, 3.
        table7: correlation rows in the same order.
        table8: the fit, or ``None`` with ``table8_reason``.
        table8_reason: why there is no fit, else ``None``.
        meta: counts of documents, systems and documents left out, and why.
    """

    table6: list[DiscoveryScore]
    table7: list[FarCorrelation]
    table8: AutoFarFit | None
    table8_reason: str | None
    meta: dict = field(default_factory=dict)


def autofar_input_get(*, dataset: Dataset, keep_split_disagreements: bool = False) -> AutoFarInput:
    """Read the documents with a human FAM and every system's current extractive outputs.

    A document whose import recorded that its sentence split disagrees with the FAM's support
    sentences (``meta["split_agrees"] is False``, e.g. 13 of the FAR release's 89) has FAM
    indices that point at other sentences than the annotators' (bench/README.md): it is left
    out unless ``keep_split_disagreements``, and counted.

    Args:
        dataset: the dataset.
        keep_split_disagreements: keep those documents too.

    Returns:
        The :class:`AutoFarInput` (documents in the dataset's order: position, then id).
    """
    fams = scoring_fam_map(dataset=dataset)
    documents, disagreements = [], 0
    for document in dataset.documents.filter(id__in=list(fams)).order_by("position", "id"):
        if (document.meta or {}).get("split_agrees") is False and not keep_split_disagreements:
            disagreements += 1
            continue
        fam = fams[document.id]
        human = validate_fam(
            [facet["groups"] for facet in fam.facets],
            n_sentences=document.sentence_count,
            n_facets=fam.reference.facet_count,
            allow_duplicate_groups=fam.annotation_set.kind == AnnotationSetKind.RELEASED,
        )
        documents.append(
            AutoFarDocument(
                document.external_id,
                tuple(fam.reference.sentences),
                tuple(document.sentences),
                human,
            )
        )
    extracted: dict[str, dict[str, list[int]]] = {}
    versions = output_version_current_list(dataset=dataset)
    outputs = SystemOutput.objects.filter(
        version__in=versions, extracted__isnull=False, document_id__in=list(fams)
    ).select_related("system", "document")
    for output in outputs:
        if output.extracted:
            extracted.setdefault(output.system.slug, {})[output.document.external_id] = list(
                output.extracted
            )
    return AutoFarInput(tuple(documents), extracted, disagreements)


def _far(fam: FacetAwareMapping, extracted: list[int], k: int | None, document: str) -> float:
    return score_document(fam, extracted, k, document=document).far


def autofar_compute(
    *,
    data: AutoFarInput,
    scorers: Sequence[str] = DEFAULT_SCORERS,
    top_ns: Sequence[int] = DEFAULT_TOP_NS,
    k: int | None = DEFAULT_K,
    resamples: int = 1000,
) -> AutoFarResult:
    """Compute Tables 6-8 from what :func:`autofar_input_get` read.

    Table 6 pools every document with a human FAM. Tables 7 and 8 take the documents with
    support in the human FAM for which every system has an extractive output; a system with
    no such output for some of them is left out. As in the core, a document whose machine FAM
    has no support group has no FAR (``NoSupportError``): it is left out of that scorer and
    N's Table 7 row, and out of Table 8 (which needs every feature on every row); the counts
    are in ``meta["unsupported"]``. Table 8's features are every (scorer, N) as
    ``"scorer@N"``; a feature whose FAR equals an earlier one's on every row is dropped (it
    would make the fit singular) and listed in ``meta["table8_duplicates"]``.

    Args:
        data: the input.
        scorers: registered scorer names (:func:`scoring.metrics.suggest.scorer_names`).
        top_ns: the N's of the machine FAMs.
        k: extracted sentences FAR considers (default 3, as the paper).
        resamples: bootstrap resamples of Table 7's intervals.

    Returns:
        The :class:`AutoFarResult`.

    Raises:
        AutoFarError: no document with a human FAM, or a bad input to the core.
        SuggestError: an unknown scorer or a bad N.
    """
    if not data.documents:
        raise AutoFarError("the dataset has no document with a human FAM")
    engines = {name: get_scorer(name) for name in scorers}
    order = KeyOrder(d.external_id for d in data.documents)
    machine: dict[tuple[str, int], dict[str, FacetAwareMapping]] = {}
    table6 = []
    for name, engine in engines.items():
        matrices = {d.external_id: engine.score(d.facets, d.sentences) for d in data.documents}
        for n in top_ns:
            fams = {doc_id: machine_fam_from_scores(m, top_n=n) for doc_id, m in matrices.items()}
            machine[(name, n)] = fams
            counts = [fam_discovery_counts(fams[d.external_id], d.human) for d in data.documents]
            table6.append(discovery_score(name, counts, top_n=n))

    supported = [d for d in data.documents if all_support(d.human)]
    doc_ids = [d.external_id for d in supported]
    systems = sorted(s for s, docs in data.extracted.items() if all(d in docs for d in doc_ids))
    meta: dict = {
        "documents_with_human_fam": len(data.documents),
        "documents_split_disagreements_left_out": data.split_disagreements,
        "documents_without_human_support": len(data.documents) - len(supported),
        "documents_scored": len(doc_ids),
        "systems": systems,
        "systems_left_out": sorted(set(data.extracted) - set(systems)),
        "k": k,
        "unsupported": [],
        "table8_duplicates": {},
    }
    humans = {d.external_id: d.human for d in supported}
    human_far = {
        s: {d: _far(humans[d], data.extracted[s][d], k, d) for d in doc_ids} for s in systems
    }
    features: dict[str, dict[str, dict[str, float]]] = {}
    table7 = []
    all_fed = set(doc_ids)
    for (name, n), fams in machine.items():
        fed = [d for d in doc_ids if all_support(fams[d])]
        all_fed &= set(fed)
        meta["unsupported"].append(
            {"scorer": name, "top_n": n, "documents": len(doc_ids) - len(fed)}
        )
        far = {s: {d: _far(fams[d], data.extracted[s][d], k, d) for d in fed} for s in systems}
        features[f"{name}@{n}"] = far
        human = {s: {d: human_far[s][d] for d in fed} for s in systems}
        table7.append(far_correlation(name, far, human, top_n=n, order=order, resamples=resamples))

    kept: dict[str, dict[str, dict[str, float]]] = {}
    seen: dict[tuple, str] = {}
    fit_docs = [d for d in doc_ids if d in all_fed]
    for feature, far in features.items():
        column = tuple(far[s][d] for s in systems for d in fit_docs)
        if column in seen:
            meta["table8_duplicates"][feature] = seen[column]
            continue
        seen[column] = feature
        kept[feature] = {s: {d: far[s][d] for d in fit_docs} for s in systems}
    meta["table8_documents"] = len(fit_docs)
    table8, reason = None, None
    try:
        table8 = autofar_fit(
            kept, {s: {d: human_far[s][d] for d in fit_docs} for s in systems}, order=order
        )
    except AutoFarError as error:
        reason = str(error)
    return AutoFarResult(table6, table7, table8, reason, meta)
