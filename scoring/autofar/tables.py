"""AutoFAR Tables 6-8 on an imported dataset: reads the DB, builds machine FAMs, runs the core.

Two protocols side by side (``scoring/autofar/README.md`` states each reading and its figures):

* **The paper's** (Mao et al., 2020, Sec. 4.2), as we read it: Table 6 pools support
  discovery over documents (micro); Table 7 correlates each system's FAR under machine FAMs
  with its ground-truth FAR, the human-FAM FAR of every document with a human FAM (the FAR
  release's 89 low-abstraction documents: Table 8's FAR column is Table 3's, over those 89);
  Table 8 fits a linear regression from the systems' FARs under the Table 7 scorers' machine
  FAMs (N = 3) to their ground-truth FAR, one row per system, and reports it in sample.
* **Loupe's validation**: Table 7 on the same documents on both sides with paired bootstrap
  intervals over documents; Table 8 per (system, document) on every scorer and N, validated
  leaving one system out; the paper's system-level fit is also validated leaving one system
  out.

The human-FAM FAR needs only sentence indices, so it covers every document with a human FAM.
A machine FAM needs the document's sentences as the FAM's indices and the systems' extracted
indices number them: a document whose import found that its stored split disagrees with the
FAM (``meta["split_agrees"] is False``; 13 of the FAR release's 89) gets no machine FAM unless
``keep_split_disagreements`` (then its machine FAM numbers Loupe's split, not the systems').
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSetKind
from annotation.systems.models import SystemOutput
from scoring.metrics.autofar import (
    AutoFarError,
    AutoFarFit,
    AutoFarSystemFit,
    DiscoveryScore,
    FarCorrelation,
    SystemAgreement,
    autofar_fit,
    autofar_report,
    autofar_system_fit,
    discovery_counts,
    discovery_score,
    fam_discovery_counts,
    fam_support,
    far_correlation,
    greedy_rouge1_support,
    lead_support,
    published,
    system_agreement,
)
from scoring.metrics.fam import FacetAwareMapping, validate_fam
from scoring.metrics.far import DEFAULT_K
from scoring.metrics.far.document import all_support, score_document
from scoring.metrics.stats import KeyOrder
from scoring.metrics.suggest import get_scorer, machine_fam_from_scores
from scoring.scores.selectors import output_version_current_list, scoring_fam_map

DEFAULT_SCORERS = ("rouge1-f", "rouge2-f", "rougel-f", "rougeavg-f")
DEFAULT_TOP_NS = (1, 2, 3)
# Table 6's other per-facet approaches (the paper's top-1 rows), scored beside the features.
TABLE6_OTHER_SCORERS = ("tfidf", "rougel-r", "rougel-p")
# Table 8's N: "creating three support groups consistently shows the highest correlation".
PAPER_TOP_N = 3
AUTOFAR_L_UNAVAILABLE = (
    "AutoFAR-L is the fit applied to the estimated FAR of the whole CNN/DailyMail test set "
    "(11,490 documents); the FAR release lists their URLs (data/all_test.txt) but holds the "
    "text and the systems' extracted sentences of its 150 annotated documents only, so the "
    "paper's AutoFAR-L column cannot be computed from it"
)


@dataclass(frozen=True)
class AutoFarDocument:
    """One document with a human FAM: its facets, sentences and validated human FAM.

    Attributes:
        external_id: the document's external id (the key in every table).
        facets: the FAM's reference sentences (one facet each).
        sentences: the document's sentences.
        human: the validated human FAM scoring uses.
        split_agrees: False when the import found that the stored sentence split disagrees
            with the FAM's support sentences.
    """

    external_id: str
    facets: tuple[str, ...]
    sentences: tuple[str, ...]
    human: FacetAwareMapping
    split_agrees: bool = True


@dataclass(frozen=True)
class AutoFarInput:
    """What AutoFAR reads from a dataset.

    Attributes:
        documents: every document with a human FAM, in the dataset's order.
        extracted: system slug -> document external id -> extracted sentence indices (the
            current output version's extractive outputs only).
        system_names: system slug -> display name (the paper's names on the FAR release).
        keep_split_disagreements: build machine FAMs on documents whose split disagrees too.
    """

    documents: tuple[AutoFarDocument, ...]
    extracted: dict[str, dict[str, list[int]]]
    system_names: dict[str, str] = field(default_factory=dict)
    keep_split_disagreements: bool = False

    @property
    def split_disagreements(self) -> int:
        """Documents whose stored split disagrees with their FAM."""
        return sum(1 for d in self.documents if not d.split_agrees)

    @property
    def machine_documents(self) -> tuple[AutoFarDocument, ...]:
        """The documents machine FAMs are built on (split agreeing, or all when kept)."""
        if self.keep_split_disagreements:
            return self.documents
        return tuple(d for d in self.documents if d.split_agrees)


@dataclass(frozen=True)
class PaperCorrelation:
    """A row of Table 7 under the paper's protocol: means over different documents.

    Attributes:
        scorer: the scorer's name.
        top_n: support groups (sentences) per facet of its machine FAMs.
        machine_documents: documents behind each system's estimated FAR.
        truth_documents: documents behind each system's ground-truth FAR.
        agreement: the estimated against the ground-truth FAR, one point per system.
    """

    scorer: str
    top_n: int
    machine_documents: int
    truth_documents: int
    agreement: SystemAgreement

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            ``{"scorer", "top_n", "machine_documents", "truth_documents", "agreement"}``.
        """
        return {
            "scorer": self.scorer,
            "top_n": self.top_n,
            "machine_documents": self.machine_documents,
            "truth_documents": self.truth_documents,
            "agreement": self.agreement.as_dict(),
        }


@dataclass(frozen=True)
class Table8Reading:
    """One reading of Table 8: how the regression is set up, and FAR against AutoFAR.

    Attributes:
        label: the reading in words.
        level: ``"system"`` (one row per system) or ``"document"`` (per system and document).
        features: the ``scorer@N`` features.
        machine_documents: documents behind the features.
        truth_documents: documents behind the ground-truth FAR.
        in_sample: the fitted AutoFAR against FAR, or ``None`` with ``reason``.
        held_out: each system predicted by the fit without it, or ``None``.
        reason: why a figure is missing, else ``None``.
    """

    label: str
    level: str
    features: tuple[str, ...]
    machine_documents: int
    truth_documents: int
    in_sample: SystemAgreement | None
    held_out: SystemAgreement | None
    reason: str | None = None

    def as_dict(self) -> dict:
        """JSON-ready data.

        Returns:
            Every attribute by name, the agreements as their ``as_dict`` or ``None``.
        """
        return {
            "label": self.label,
            "level": self.level,
            "features": list(self.features),
            "machine_documents": self.machine_documents,
            "truth_documents": self.truth_documents,
            "in_sample": self.in_sample.as_dict() if self.in_sample else None,
            "held_out": self.held_out.as_dict() if self.held_out else None,
            "reason": self.reason,
        }


@dataclass
class AutoFarResult:
    """Tables 6-8 of one run and the bookkeeping behind them.

    Attributes:
        table6: discovery rows of the features' scorers, N by N.
        table6_other: the paper's other Table 6 approaches: Lead-3 on every document with a
            human FAM and on the machine documents, greedy ROUGE-1 F1, and the top-1 rows of
            :data:`TABLE6_OTHER_SCORERS` not among the features.
        table7: Loupe's validation: correlation rows, paired, with intervals.
        table7_paper: the paper's protocol, one row per scorer and N.
        table8: Loupe's model (every feature, per document, leave one system out), or
            ``None`` with ``table8_reason``.
        table8_reason: why there is no such fit, else ``None``.
        table8_paper: the paper's protocol as we read it (system level, N = 3), or ``None``
            with ``table8_paper_reason``.
        table8_paper_features: that fit's features.
        table8_paper_reason: why there is no such fit, else ``None``.
        table8_readings: every reading of Table 8 tried, with its figures.
        meta: counts of documents, systems and documents left out, and why.
    """

    table6: list[DiscoveryScore]
    table7: list[FarCorrelation]
    table8: AutoFarFit | None
    table8_reason: str | None
    meta: dict = field(default_factory=dict)
    table6_other: list[DiscoveryScore] = field(default_factory=list)
    table7_paper: list[PaperCorrelation] = field(default_factory=list)
    table8_paper: AutoFarSystemFit | None = None
    table8_paper_features: tuple[str, ...] = ()
    table8_paper_reason: str | None = None
    table8_readings: list[Table8Reading] = field(default_factory=list)


def autofar_input_get(*, dataset: Dataset, keep_split_disagreements: bool = False) -> AutoFarInput:
    """Read the documents with a human FAM and every system's current extractive outputs.

    Every document with a human FAM is read, marked when its import recorded that its
    sentence split disagrees with the FAM's support sentences (``meta["split_agrees"] is
    False``, e.g. 13 of the FAR release's 89): its FAM indices point at other sentences than
    the annotators' (bench/README.md), so it gets no machine FAM unless
    ``keep_split_disagreements``; its human-FAM FAR needs no split and counts as ground truth.

    Args:
        dataset: the dataset.
        keep_split_disagreements: build machine FAMs on those documents too.

    Returns:
        The :class:`AutoFarInput` (documents in the dataset's order: position, then id).
    """
    fams = scoring_fam_map(dataset=dataset)
    documents = []
    for document in dataset.documents.filter(id__in=list(fams)).order_by("position", "id"):
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
                (document.meta or {}).get("split_agrees") is not False,
            )
        )
    extracted: dict[str, dict[str, list[int]]] = {}
    names: dict[str, str] = {}
    versions = output_version_current_list(dataset=dataset)
    outputs = SystemOutput.objects.filter(
        version__in=versions, extracted__isnull=False, document_id__in=list(fams)
    ).select_related("system", "document")
    for output in outputs:
        if output.extracted:
            extracted.setdefault(output.system.slug, {})[output.document.external_id] = list(
                output.extracted
            )
            names[output.system.slug] = output.system.name
    return AutoFarInput(tuple(documents), extracted, names, keep_split_disagreements)


def _far(fam: FacetAwareMapping, extracted: list[int], k: int | None, document: str) -> float:
    return score_document(fam, extracted, k, document=document).far


def _mean(values: Mapping[str, float], documents: Sequence[str]) -> float:
    return sum(values[d] for d in documents) / len(documents)


def _table6_other(
    data: AutoFarInput, scorers: Sequence[str], top_ns: Sequence[int]
) -> list[DiscoveryScore]:
    """Lead-3 (every document, then the machine documents), greedy ROUGE-1 F1 and the paper's
    other top-1 scorers on the machine documents."""
    rows = []
    machine = data.machine_documents
    for documents in (data.documents, machine)[: 1 + (len(machine) < len(data.documents))]:
        counts = [
            discovery_counts(lead_support(d.human.n_sentences), fam_support(d.human))
            for d in documents
        ]
        rows.append(discovery_score(published.LEAD, counts))
    counts = [
        discovery_counts(greedy_rouge1_support(d.facets, d.sentences), fam_support(d.human))
        for d in machine
    ]
    rows.append(discovery_score(published.GREEDY, counts))
    top = published.TABLE6_TOP_N
    for name in TABLE6_OTHER_SCORERS:
        if name in scorers and top in top_ns:
            continue
        engine = get_scorer(name)
        counts = [
            fam_discovery_counts(
                machine_fam_from_scores(engine.score(d.facets, d.sentences), top_n=top), d.human
            )
            for d in machine
        ]
        rows.append(discovery_score(name, counts, top_n=top))
    return rows


def _system_reading(
    label: str,
    features: Mapping[str, Mapping[str, float]],
    truth: Mapping[str, float],
    machine_documents: int,
    truth_documents: int,
) -> tuple[Table8Reading, AutoFarSystemFit | None]:
    fit, agreements = None, (None, None)
    try:
        fit = autofar_system_fit(features, truth)
    except AutoFarError as error:
        reason = str(error)
    else:
        agreements, reason = (fit.in_sample, fit.held_out), fit.held_out_reason
    reading = Table8Reading(
        label, "system", tuple(features), machine_documents, truth_documents, *agreements, reason
    )
    return reading, fit


def _document_reading(
    label: str,
    features: Mapping[str, Mapping[str, Mapping[str, float]]],
    human: Mapping[str, Mapping[str, float]],
    order: KeyOrder,
    documents: int,
) -> tuple[Table8Reading, AutoFarFit | None, str | None]:
    fit, agreements, error_text = None, (None, None), None
    try:
        fit = autofar_fit(features, human, order=order)
    except AutoFarError as error:
        reason = error_text = str(error)
    else:
        agreements, reason = (fit.in_sample, fit.held_out_agreement), fit.validation_reason
    reading = Table8Reading(
        label, "document", tuple(features), documents, documents, *agreements, reason
    )
    return reading, fit, error_text


def autofar_compute(
    *,
    data: AutoFarInput,
    scorers: Sequence[str] = DEFAULT_SCORERS,
    top_ns: Sequence[int] = DEFAULT_TOP_NS,
    k: int | None = DEFAULT_K,
    resamples: int = 1000,
) -> AutoFarResult:
    """Compute Tables 6-8, under the paper's protocol and Loupe's validation.

    Table 6 pools the machine documents (micro); Lead-3 also every document with a human FAM.
    Ground truth is each system's human-FAM FAR over every document with a human FAM and
    support; a system needs an output for each of them (else it is left out). As in the core,
    a document whose machine FAM has no support group has no FAR (``NoSupportError``): it is
    left out of that scorer and N's estimate, and out of the per-document fits (which need
    every feature on every row); the counts are in ``meta["unsupported"]``.

    * Table 7, Loupe's validation: both sides on the machine documents, paired intervals.
      The paper's protocol: the estimate's system means over the machine documents against
      the ground truth.
    * Table 8, Loupe's model: per (system, document) on the machine documents, every
      ``"scorer@N"`` as a feature (a feature whose FAR equals an earlier one's on every row is
      dropped and listed in ``meta["table8_duplicates"]``), validated leaving one system out.
      The paper's protocol (our reading): system level, the scorers' FAR at N = 3 (the largest
      N given when 3 is not), fitted in sample to the ground truth and validated leaving one
      system out. ``table8_readings`` adds the system-level fit at every other N and the
      per-document fit at that N.

    Args:
        data: the input.
        scorers: registered scorer names (:func:`scoring.metrics.suggest.scorer_names`).
        top_ns: the N's of the machine FAMs.
        k: extracted sentences FAR considers (default 3, as the paper).
        resamples: bootstrap resamples of Table 7's intervals.

    Returns:
        The :class:`AutoFarResult`.

    Raises:
        AutoFarError: no document with a human FAM, none to build machine FAMs on, or a bad
            input to the core.
        SuggestError: an unknown scorer or a bad N.
    """
    if not data.documents:
        raise AutoFarError("the dataset has no document with a human FAM")
    machine_docs = data.machine_documents
    if not machine_docs:
        raise AutoFarError(
            f"every one of the {len(data.documents)} documents with a human FAM has a sentence "
            "split that disagrees with its FAM: no machine FAM can be built "
            "(--keep-split-disagreements builds them on the stored split)"
        )
    engines = {name: get_scorer(name) for name in scorers}
    order = KeyOrder(d.external_id for d in data.documents)
    machine: dict[tuple[str, int], dict[str, FacetAwareMapping]] = {}
    table6 = []
    for name, engine in engines.items():
        matrices = {d.external_id: engine.score(d.facets, d.sentences) for d in machine_docs}
        for n in top_ns:
            fams = {doc_id: machine_fam_from_scores(m, top_n=n) for doc_id, m in matrices.items()}
            machine[(name, n)] = fams
            counts = [fam_discovery_counts(fams[d.external_id], d.human) for d in machine_docs]
            table6.append(discovery_score(name, counts, top_n=n))
    table6_other = _table6_other(data, scorers, top_ns)

    truth_ids = [d.external_id for d in data.documents if all_support(d.human)]
    doc_ids = [d.external_id for d in machine_docs if all_support(d.human)]
    systems = sorted(s for s, docs in data.extracted.items() if all(d in docs for d in truth_ids))
    meta: dict = {
        "documents_with_human_fam": len(data.documents),
        "documents_split_disagreements": data.split_disagreements,
        "documents_split_disagreements_left_out": (
            0 if data.keep_split_disagreements else data.split_disagreements
        ),
        "documents_machine": len(machine_docs),
        "documents_ground_truth": len(truth_ids),
        "documents_without_human_support": len(data.documents) - len(truth_ids),
        "documents_scored": len(doc_ids),
        "systems": systems,
        "system_names": {s: data.system_names.get(s, s) for s in systems},
        "systems_left_out": sorted(set(data.extracted) - set(systems)),
        "k": k,
        "unsupported": [],
        "table8_duplicates": {},
    }
    humans = {d.external_id: d.human for d in data.documents}
    human_far = {
        s: {d: _far(humans[d], data.extracted[s][d], k, d) for d in truth_ids} for s in systems
    }
    truth = {s: _mean(human_far[s], truth_ids) for s in systems}
    features: dict[str, dict[str, dict[str, float]]] = {}
    table7, table7_paper = [], []
    fed_by: dict[str, list[str]] = {}
    all_fed = set(doc_ids)
    for (name, n), fams in machine.items():
        fed = [d for d in doc_ids if all_support(fams[d])]
        fed_by[f"{name}@{n}"] = fed
        all_fed &= set(fed)
        meta["unsupported"].append(
            {"scorer": name, "top_n": n, "documents": len(doc_ids) - len(fed)}
        )
        far = {s: {d: _far(fams[d], data.extracted[s][d], k, d) for d in fed} for s in systems}
        features[f"{name}@{n}"] = far
        human = {s: {d: human_far[s][d] for d in fed} for s in systems}
        table7.append(far_correlation(name, far, human, top_n=n, order=order, resamples=resamples))
        estimate = {s: _mean(far[s], fed) for s in systems}
        table7_paper.append(
            PaperCorrelation(name, n, len(fed), len(truth_ids), system_agreement(estimate, truth))
        )

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
    fit_human = {s: {d: human_far[s][d] for d in fit_docs} for s in systems}
    loupe, table8, reason = _document_reading(
        f"document level, every feature ({len(kept)}), Loupe's model",
        kept,
        fit_human,
        order,
        len(fit_docs),
    )

    result = AutoFarResult(table6, table7, table8, reason, meta)
    result.table6_other = table6_other
    result.table7_paper = table7_paper
    paper_n = PAPER_TOP_N if PAPER_TOP_N in top_ns else max(top_ns)
    readings = []
    for n in top_ns:
        names = [f"{name}@{n}" for name in engines]
        machine_n = min(len(fed_by[f]) for f in names)
        means = {f: {s: _mean(features[f][s], fed_by[f]) for s in systems} for f in names}
        label = f"system level, N={n}" + (", the paper's protocol (our reading)" * (n == paper_n))
        reading, fit = _system_reading(label, means, truth, machine_n, len(truth_ids))
        readings.append(reading)
        if n == paper_n:
            result.table8_paper = fit
            result.table8_paper_features = tuple(names)
            result.table8_paper_reason = reading.reason if fit is None else None
    names = [f"{name}@{paper_n}" for name in engines]
    docs_n = [d for d in doc_ids if all(d in set(fed_by[f]) for f in names)]
    reading, _, _ = _document_reading(
        f"document level, N={paper_n}",
        {f: {s: {d: features[f][s][d] for d in docs_n} for s in systems} for f in names},
        {s: {d: human_far[s][d] for d in docs_n} for s in systems},
        order,
        len(docs_n),
    )
    readings += [reading, loupe]
    result.table8_readings = readings
    return result


def _paper_discovery(row: DiscoveryScore) -> dict | None:
    found = published.TABLE6.get(row.scorer)
    if found is None or row.top_n not in (None, published.TABLE6_TOP_N):
        return None
    return found.as_dict()


def autofar_result_report(result: AutoFarResult) -> dict:
    """Tables 6-8 as JSON, each of Loupe's figures with the paper's beside it.

    The core's :func:`~scoring.metrics.autofar.autofar_report` (Loupe's Table 6 rows, Table 7
    with intervals, Loupe's Table 8 model) gains ``paper`` on each row the paper has, and the
    paper's protocol: ``table6_other``, ``table7_paper_protocol``, ``table8_paper_protocol``
    (per system FAR, AutoFAR, the held-out prediction and the paper's three columns; the
    agreements in sample and held out with the paper's), ``table8_readings``; then
    ``table8_reason`` and ``meta``.

    Args:
        result: what :func:`autofar_compute` returned.

    Returns:
        The JSON-ready dict (fractions, ``None`` where undefined).
    """
    report = autofar_report(result.table6, result.table7, result.table8)
    for row, item in zip(report["table6"], result.table6, strict=True):
        row["paper"] = _paper_discovery(item)
    report["table6_other"] = [
        row.as_dict() | {"paper": _paper_discovery(row)} for row in result.table6_other
    ]
    for row in report["table7"]:
        found = published.TABLE7.get((row["scorer"], row["top_n"]))
        row["paper"] = found.as_dict() if found else None
    report["table7_paper_protocol"] = []
    for row in result.table7_paper:
        found = published.TABLE7.get((row.scorer, row.top_n))
        report["table7_paper_protocol"].append(
            row.as_dict() | {"paper": found.as_dict() if found else None}
        )
    if report["table8"] is not None:
        report["table8"]["paper"] = published.TABLE8_AUTOFAR.as_dict()
    names = result.meta.get("system_names", {})
    fit = result.table8_paper
    systems = []
    if fit is not None:
        for system, far in fit.in_sample.truth.items():
            found = published.TABLE8.get(names.get(system, system))
            systems.append(
                {
                    "system": system,
                    "name": names.get(system, system),
                    "far": far,
                    "autofar": fit.in_sample.estimated[system],
                    "held_out": fit.held_out.estimated[system] if fit.held_out else None,
                    "paper": found.as_dict() if found else None,
                }
            )
    report["table8_paper_protocol"] = {
        "features": list(result.table8_paper_features),
        "fit": fit.as_dict() if fit is not None else None,
        "reason": result.table8_paper_reason,
        "systems": systems,
        "paper": {
            "autofar": published.TABLE8_AUTOFAR.as_dict(),
            "autofar_l": published.TABLE8_AUTOFAR_L.as_dict(),
        },
        "autofar_l_reason": AUTOFAR_L_UNAVAILABLE,
    }
    report["table8_readings"] = [reading.as_dict() for reading in result.table8_readings]
    report["table8_reason"] = result.table8_reason
    report["meta"] = result.meta
    return report
