"""An independent computation of the FAR paper's Tables 6-8 on the release, for the tests.

None of Loupe's AutoFAR, suggestion, ROUGE or FAR code: ROUGE is rouge-score's
``RougeScorer(use_stemmer=True)`` pair by pair (each text tokenized once:
``tests.rouge_helpers.rouge_score_scorer``); a machine FAM is each facet's top-N sentences
by that score (earliest first on a tie, scores above 0 only), each its own support group; FAR
is the release notebook's ``calc_facet_recall`` (a facet is covered when one of its groups is a
subset of the first 3 extracted sentences, divided by the facets with a group) as an exact
fraction, so systems with the same mean tie exactly; system means are exact fractions;
Pearson, Spearman and Kendall come from scipy; the fits from ``numpy.linalg.lstsq``.

Only the release's reading is shared with Loupe (``parse_far_release``: the documents'
sentence split, the FAMs and the extracted indices), which ``tests/metrics/
test_far_reproduction.py`` checks against the published FAR.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
from scipy import stats

from annotation.corpus.importers.parsers.far import parse_far_release
from tests.conftest import FAR_RELEASE
from tests.rouge_helpers import rouge_score_scorer

SCORERS = ("rouge1-f", "rouge2-f", "rougel-f", "rougeavg-f")
EXTRA = ("rougel-r", "rougel-p")
TOP_NS = (1, 2, 3)
K = 3


@dataclass(frozen=True)
class Doc:
    """One low-abstraction document of the release."""

    id: str
    facets: tuple[str, ...]
    sentences: tuple[str, ...]
    groups: tuple[tuple[frozenset[int], ...], ...]  # per facet
    split_agrees: bool


@dataclass(frozen=True)
class Reference:
    """The figures, as fractions; systems keyed by slug."""

    names: dict[str, str]  # slug -> the paper's name
    truth: dict[str, Fraction]  # ground-truth FAR over the 89 documents
    truth76: dict[str, Fraction]
    table6: dict[tuple[str, int | None, int], tuple[float, float, float]]  # (name, N, docs)
    machine: dict[tuple[str, int], dict[str, Fraction]]  # mean machine-FAM FAR on 76 docs
    table7_protocol: dict[tuple[str, int], tuple[float, float, float]]
    table7_paired: dict[tuple[str, int], tuple[float, float, float]]
    table8: dict[int, tuple[dict[str, float], dict[str, float]]]  # N -> (fitted, held out)


def _coefficients(x, y) -> tuple[float, float, float]:
    return (
        float(stats.pearsonr(x, y).statistic),
        float(stats.spearmanr(x, y).statistic),
        float(stats.kendalltau(x, y).statistic),
    )


def _far(groups, extracted) -> Fraction:
    chosen = set(extracted[:K])
    supported = [g for g in groups if g]
    covered = sum(any(group <= chosen for group in facet) for facet in supported)
    return Fraction(covered, len(supported))


def _top(scores: list[float], n: int) -> list[int]:
    order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))[:n]
    return [j for j in order if scores[j] > 0]


def _prf(hits: int, predicted: int, gold: int) -> tuple[float, float, float]:
    p, r = hits / predicted, hits / gold
    return p, r, 2 * p * r / (p + r)


def _greedy(facets, sentences) -> set[int]:
    """Nallapati et al.'s labels with rouge-score: add the sentence that most raises the
    ROUGE-1 F1 of the joined selection against the joined reference; stop when none does."""
    scorer = rouge_score_scorer(["rouge1"], use_stemmer=True)
    target = " ".join(facets)
    chosen: list[int] = []
    best = 0.0
    while True:
        step, step_f = None, best
        for j in range(len(sentences)):
            if j in chosen:
                continue
            text = " ".join(sentences[i] for i in sorted([*chosen, j]))
            f = scorer.score(target, text)["rouge1"].fmeasure
            if f > step_f:
                step, step_f = j, f
        if step is None:
            return set(chosen)
        chosen.append(step)
        best = step_f


def release_documents() -> tuple[list[Doc], dict[str, dict[str, list[int]]], dict[str, str]]:
    """The 89 documents with a FAM, every system's extracted indices, the systems' names."""
    bundle = parse_far_release(FAR_RELEASE)
    fams = {fam.document_id: fam for fam in bundle.annotation_sets[0].fams}
    docs = []
    for record in bundle.documents:
        fam = fams.get(record.external_id)
        if fam is None:
            continue
        docs.append(
            Doc(
                record.external_id,
                tuple(record.references[fam.reference_index].sentences),
                tuple(record.sentences),
                tuple(tuple(frozenset(g) for g in facet.groups) for facet in fam.facets),
                bool(record.meta["split_agrees"]),
            )
        )
    extracted: dict[str, dict[str, list[int]]] = {}
    for output in bundle.outputs:
        extracted.setdefault(output.system_slug, {})[output.document_id] = list(output.extracted)
    names = {system.slug: system.name for system in bundle.systems}
    return docs, extracted, names


@cache
def reference() -> Reference:
    """Compute every figure once per test session (rouge-score pair by pair: ~10 s)."""
    docs, extracted, names = release_documents()
    assert len(docs) == 89
    agree = [d for d in docs if d.split_agrees]
    systems = sorted(extracted)
    truth_far = {s: {d.id: _far(d.groups, extracted[s][d.id]) for d in docs} for s in systems}
    truth = {s: sum(truth_far[s].values()) / len(docs) for s in systems}
    truth76 = {s: sum(truth_far[s][d.id] for d in agree) / len(agree) for s in systems}

    scorer = rouge_score_scorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    matrices: dict[str, dict[str, list[list[float]]]] = {}
    for d in agree:
        pairs = [[scorer.score(f, s) for s in d.sentences] for f in d.facets]
        rows = {
            "rouge1-f": [[p["rouge1"].fmeasure for p in row] for row in pairs],
            "rouge2-f": [[p["rouge2"].fmeasure for p in row] for row in pairs],
            "rougel-f": [[p["rougeL"].fmeasure for p in row] for row in pairs],
            "rougel-r": [[p["rougeL"].recall for p in row] for row in pairs],
            "rougel-p": [[p["rougeL"].precision for p in row] for row in pairs],
        }
        rows["rougeavg-f"] = [
            [(p["rouge1"].fmeasure + p["rouge2"].fmeasure + p["rougeL"].fmeasure) / 3 for p in row]
            for row in pairs
        ]
        for name, matrix in rows.items():
            matrices.setdefault(name, {})[d.id] = matrix

    def discovery(support, documents) -> tuple[float, float, float]:
        counts = Counter()
        for d in documents:
            gold = set().union(*(g for facet in d.groups for g in facet))
            found = support(d)
            counts.update(hits=len(found & gold), predicted=len(found), gold=len(gold))
        return _prf(counts["hits"], counts["predicted"], counts["gold"])

    table6: dict = {}
    for documents in (docs, agree):
        table6[("lead-3", None, len(documents))] = discovery(lambda d: {0, 1, 2}, documents)
    table6[("greedy-rouge1-f", None, len(agree))] = discovery(
        lambda d: _greedy(d.facets, d.sentences), agree
    )
    machine_fams: dict[tuple[str, int], dict[str, list[list[int]]]] = {}
    for name in (*SCORERS, *EXTRA):
        for n in TOP_NS if name in SCORERS else (1,):
            fams = {d.id: [_top(row, n) for row in matrices[name][d.id]] for d in agree}
            machine_fams[(name, n)] = fams
            table6[(name, n, len(agree))] = discovery(
                lambda d, fams=fams: {j for row in fams[d.id] for j in row}, agree
            )

    machine, table7_protocol, table7_paired = {}, {}, {}
    for name in SCORERS:
        for n in TOP_NS:
            fams = machine_fams[(name, n)]
            fed = [d for d in agree if any(fams[d.id])]
            groups = {d.id: [[frozenset({j}) for j in row] for row in fams[d.id]] for d in fed}
            means = {
                s: sum(_far(groups[d.id], extracted[s][d.id]) for d in fed) / len(fed)
                for s in systems
            }
            human = {s: sum(truth_far[s][d.id] for d in fed) / len(fed) for s in systems}
            machine[(name, n)] = means
            x = [float(means[s]) for s in systems]
            table7_protocol[(name, n)] = _coefficients(x, [float(truth[s]) for s in systems])
            table7_paired[(name, n)] = _coefficients(x, [float(human[s]) for s in systems])

    table8 = {}
    y = np.array([float(truth[s]) for s in systems])
    for n in TOP_NS:
        design = np.column_stack(
            [np.ones(len(systems))]
            + [[float(machine[(name, n)][s]) for s in systems] for name in SCORERS]
        )
        weights = np.linalg.lstsq(design, y, rcond=None)[0]
        fitted = dict(zip(systems, (design @ weights).tolist(), strict=True))
        held = {}
        for i, system in enumerate(systems):
            keep = np.arange(len(systems)) != i
            fold = np.linalg.lstsq(design[keep], y[keep], rcond=None)[0]
            held[system] = float(design[i] @ fold)
        table8[n] = (fitted, held)
    return Reference(names, truth, truth76, table6, machine, table7_protocol, table7_paired, table8)


def agreement(estimated: dict[str, float], truth: dict[str, Fraction]):
    """scipy's r, rho and tau of two per-system figures (systems in sorted order)."""
    systems = sorted(truth)
    return _coefficients([estimated[s] for s in systems], [float(truth[s]) for s in systems])
