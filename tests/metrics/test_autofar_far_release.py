"""AutoFAR's support discovery on the FAR release reproduces Table 6 as bench_suggestions reads it.

Reads ../shared/data in place; the documents are the 76 whose sentence split was checked and
agrees (bench/README.md). Expected figures: the paper's Table 6 (Mao et al., 2020, top-1, in %)
within the 2 points the bench documents for its different document set, and the bench's
published table (bench/README.md, "Latest figures"), which a different code path (the union of
``ranking``'s top-k, not machine FAMs) produced.
"""

from __future__ import annotations

import pytest

from annotation.corpus.importers.parsers.far import parse_far_release
from scoring.metrics.autofar import discovery_score, fam_discovery_counts
from scoring.metrics.fam import validate_fam
from scoring.metrics.suggest import get_scorer, machine_fam_from_scores
from tests.conftest import FAR_RELEASE

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not FAR_RELEASE.is_dir(), reason=f"{FAR_RELEASE} is absent"),
]

# bench/README.md "Latest figures": micro P / R / F1 in % for top-1, top-2, top-3.
BENCH = {
    "rouge1-f": ((90.4, 54.2, 67.8), (72.3, 80.8, 76.3), (57.1, 89.2, 69.7)),
    "rougeavg-f": ((90.4, 54.2, 67.8), (71.1, 80.0, 75.3), (56.6, 89.0, 69.2)),
}
# The paper's Table 6, top-1 (P, R, F1 in %).
PAPER = {"rouge1-f": (88.9, 53.1, 66.5), "rougeavg-f": (90.0, 53.9, 67.4)}


@pytest.fixture(scope="module")
def documents():
    """(facets, sentences, human FAM) of the 76 documents whose split agrees."""
    bundle = parse_far_release(FAR_RELEASE)
    fams = {fam.document_id: fam for fam in bundle.annotation_sets[0].fams}
    out = []
    for record in bundle.documents:
        if not (record.meta.get("split_checked") and record.meta.get("split_agrees")):
            continue
        fam = fams[record.external_id]
        facets = record.references[fam.reference_index].sentences
        human = validate_fam(
            [facet.groups for facet in fam.facets],
            n_sentences=len(record.sentences),
            n_facets=len(facets),
            allow_duplicate_groups=True,
        )
        out.append((facets, record.sentences, human))
    assert len(out) == 76
    return out


@pytest.mark.parametrize("scorer", list(BENCH))
def test_table6_discovery_reproduces_the_bench_and_the_paper(documents, scorer):
    engine = get_scorer(scorer)
    matrices = [engine.score(facets, sentences) for facets, sentences, _ in documents]
    for k, expected in enumerate(BENCH[scorer], start=1):
        counts = [
            fam_discovery_counts(machine_fam_from_scores(m, top_n=k), human)
            for m, (_, _, human) in zip(matrices, documents, strict=True)
        ]
        score = discovery_score(scorer, counts, top_n=k)
        got = tuple(100 * v for v in (score.precision, score.recall, score.f1))
        assert got == pytest.approx(expected, abs=0.05), (k, got)
        if k == 1:
            assert got == pytest.approx(PAPER[scorer], abs=2.0)
