"""The FAR paper's Tables 6-8 on the FAR release, under the paper's protocol (our reading).

Reads ../shared/data in place. Loupe's figures (``scoring.autofar.tables.autofar_compute`` on
the release as ``parse_far_release`` reads it) are checked against an independent computation
(``far_paper_reference``: rouge-score, the release notebook's FAR as exact fractions, scipy,
numpy), and against the paper's figures (``scoring.metrics.autofar.published``, copied from
the paper). Where the release cannot give the paper's figure, a strict expected failure asserts
it and says why, so that a reproduction shows up.
"""

from __future__ import annotations

import pytest

from annotation.corpus.importers.parsers.far import parse_far_release
from scoring.autofar.tables import AutoFarDocument, AutoFarInput, autofar_compute
from scoring.metrics.autofar import published
from scoring.metrics.fam import validate_fam
from tests.autofar.far_paper_reference import agreement, reference, release_documents
from tests.conftest import FAR_RELEASE

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(not FAR_RELEASE.is_dir(), reason=f"{FAR_RELEASE} is absent"),
]

SYSTEMS = ["banditsum", "fastrl-e", "lead-3", "neusum", "refresh", "unifiedsum-e"]
# Every figure below is exact to float precision; tolerances are for float arithmetic only.
EXACT = 1e-9


def _input(keep: bool = False) -> AutoFarInput:
    """The release as ``autofar_input_get`` reads an imported dataset."""
    docs, extracted, names = release_documents()
    documents = tuple(
        AutoFarDocument(
            d.id,
            d.facets,
            d.sentences,
            validate_fam(
                [list(groups) for groups in d.groups],
                n_sentences=len(d.sentences),
                n_facets=len(d.facets),
                allow_duplicate_groups=True,
            ),
            d.split_agrees,
        )
        for d in docs
    )
    return AutoFarInput(documents, extracted, names, keep)


@pytest.fixture(scope="module")
def loupe():
    return autofar_compute(data=_input(), resamples=100)


@pytest.fixture(scope="module")
def ref():
    return reference()


def _pct(values) -> tuple[float, ...]:
    return tuple(round(100 * v, 1) for v in values)


def _row6(result, scorer, top_n, documents):
    for row in [*result.table6, *result.table6_other]:
        if (row.scorer, row.top_n, row.documents) == (scorer, top_n, documents):
            return row
    raise AssertionError(f"no Table 6 row {scorer} {top_n} {documents}")


# --- the documents ---------------------------------------------------------------------------


def test_documents_and_ground_truth(loupe, ref):
    meta = loupe.meta
    assert meta["documents_with_human_fam"] == meta["documents_ground_truth"] == 89
    assert meta["documents_split_disagreements"] == 13
    assert meta["documents_machine"] == meta["documents_scored"] == 76
    assert meta["systems"] == SYSTEMS
    # Table 8's FAR column is Table 3's (PROVENANCE.md), the human-FAM FAR over all 89
    # documents: the ground truth needs no sentence split.
    truth = loupe.table8_paper.in_sample.truth
    for system, far in truth.items():
        paper = published.TABLE8[ref.names[system]].far
        assert round(far, 3) == paper
        assert far == pytest.approx(float(ref.truth[system]), abs=EXACT)


# --- Table 6 -------------------------------------------------------------------------------


def test_table6_lead3_reproduces_the_paper_on_the_89_documents(loupe, ref):
    # Lead-3 needs no sentence split: on the paper's 89 documents it is the paper's row, which
    # also settles the pooling (micro: per-document means would give R 37.3, F1 46.3).
    row = _row6(loupe, "lead-3", None, 89)
    paper = published.TABLE6["lead-3"]
    assert _pct((row.precision, row.recall, row.f1)) == _pct(
        (paper.precision, paper.recall, paper.f1)
    )
    assert (row.precision, row.recall, row.f1) == pytest.approx(
        ref.table6[("lead-3", None, 89)], abs=EXACT
    )
    # On the 76 documents with machine FAMs the same rule gives other figures.
    row76 = _row6(loupe, "lead-3", None, 76)
    assert _pct((row76.precision, row76.recall, row76.f1)) == (60.5, 34.5, 43.9)
    assert (row76.precision, row76.recall, row76.f1) == pytest.approx(
        ref.table6[("lead-3", None, 76)], abs=EXACT
    )


def test_table6_equals_the_independent_computation(loupe, ref):
    for (name, top_n, documents), expected in ref.table6.items():
        row = _row6(loupe, name, top_n, documents)
        assert (row.precision, row.recall, row.f1) == pytest.approx(expected, abs=EXACT), (
            name,
            top_n,
        )


TABLE6_LOUPE = {  # on the 76 documents, %, top-1 (greedy: per document)
    "greedy-rouge1-f": (85.1, 47.0, 60.5),
    "tfidf": (91.4, 55.5, 69.1),
    "rouge1-f": (90.4, 54.2, 67.8),
    "rouge2-f": (87.0, 52.0, 65.1),
    "rougel-r": (91.2, 54.5, 68.2),
    "rougel-p": (76.9, 45.8, 57.4),
    "rougel-f": (89.3, 54.0, 67.3),
    "rougeavg-f": (90.4, 54.2, 67.8),
}


def test_table6_loupe_figures(loupe, ref):
    # The independent computation's figures (rounded); TF-IDF's are the bench's
    # (bench/README.md, "Latest figures", another code path: ``ranking``'s top-1).
    for name, expected in TABLE6_LOUPE.items():
        row = _row6(loupe, name, None if name == "greedy-rouge1-f" else 1, 76)
        assert _pct((row.precision, row.recall, row.f1)) == expected, name
        if name != "tfidf":
            top = None if name == "greedy-rouge1-f" else 1
            assert _pct(ref.table6[(name, top, 76)]) == expected


@pytest.mark.xfail(
    strict=True,
    reason=(
        "The paper's Table 6 is over its 89 low-abstraction documents with its own sentence "
        "split; the release does not mark the sentence boundaries, and 13 of the 89 documents "
        "split by Loupe disagree with the released support sentences, so the scorers run on 76. "
        "Lead-3, which needs no split, reproduces the paper on 89 (61.0 / 33.7 / 43.4) and moves "
        "to 60.5 / 34.5 / 43.9 on the 76: the document set alone moves a figure by up to 0.8 "
        "points. On the 76 the six ROUGE scorers come within 1.9 points of the paper's P, R and "
        "F1 (ROUGE-1 F 90.4 / 54.2 / 67.8 against 88.9 / 53.1 / 66.5); TF-IDF (91.4 / 55.5 / "
        "69.1 against 83.7 / 51.9 / 64.0: the paper does not say how its TF-IDF was fitted) and "
        "greedy ROUGE-1 F1 (85.1 / 47.0 / 60.5 against 58.2 / 30.8 / 40.3; without stemming "
        "84.6 / 45.2 / 59.0, capped at 3 sentences 87.4 / 43.5 / 58.1; the paper gives only the "
        "one-line rule) are further off."
    ),
)
def test_table6_equals_the_paper(loupe):
    for name, paper in published.TABLE6.items():
        if name == "lead-3":
            continue
        row = _row6(loupe, name, None if name == "greedy-rouge1-f" else 1, 76)
        assert _pct((row.precision, row.recall, row.f1)) == _pct(
            (paper.precision, paper.recall, paper.f1)
        ), name


# --- Table 7 -------------------------------------------------------------------------------


def test_table7_equals_the_independent_computation(loupe, ref):
    assert [(row.scorer, row.top_n) for row in loupe.table7_paper] == list(ref.table7_protocol)
    for row in loupe.table7_paper:
        key = (row.scorer, row.top_n)
        assert (row.machine_documents, row.truth_documents) == (76, 89)
        assert row.agreement.values() == pytest.approx(ref.table7_protocol[key], abs=EXACT), key
        assert row.agreement.estimated == pytest.approx(
            {s: float(v) for s, v in ref.machine[key].items()}, abs=EXACT
        )
    for row in loupe.table7:  # Loupe's validation, paired on the 76 documents
        key = (row.scorer, row.top_n)
        values = tuple(c.correlation.value for c in (row.pearson, row.spearman, row.kendall))
        assert values == pytest.approx(ref.table7_paired[key], abs=EXACT), key


def test_table7_ties_are_ties(loupe, ref):
    # On the 76 documents FastRL(E) and Refresh have the same human FAR (473/912): Loupe's
    # validation ranks them as tied, whatever order their documents were summed in.
    assert ref.truth76["fastrl-e"] == ref.truth76["refresh"]
    row = loupe.table7[0]
    assert row.human_means["fastrl-e"] == row.human_means["refresh"]
    assert _pct(c.correlation.value for c in (row.pearson, row.spearman, row.kendall)) == (
        86.9,
        92.8,
        82.8,
    )


@pytest.mark.xfail(
    strict=True,
    reason="The paper's estimated FAR is over its 89 documents; from the release it can be "
    "computed on the 76 whose sentence split Loupe recovers (the machine FAM of the other 13 "
    "would number other sentences than the systems' extracted indices). Against the published "
    "89-document FAR, ROUGE-1 F N = 3 gives r / rho / tau 46.7 / 65.7 / 60.0 (paper 88.4 / 94.3 / "
    "86.7) and N = 1 is the best N of ROUGE-1 F (82.6 / 71.4 / 60.0); with the 13 documents' "
    "machine FAMs on Loupe's split, 64.1 / 88.6 / 73.3. With six systems one document set moves "
    "r by tens of points (the 95% paired intervals of r on the 76 documents span 94 to 150 "
    "points).",
)
def test_table7_equals_the_paper(loupe):
    for row in loupe.table7_paper:
        paper = published.TABLE7[(row.scorer, row.top_n)]
        assert _pct(row.agreement.values()) == _pct(paper.values()), (row.scorer, row.top_n)


# --- Table 8 -------------------------------------------------------------------------------


def test_table8_equals_the_independent_computation(loupe, ref):
    fit = loupe.table8_paper
    assert loupe.table8_paper_features == tuple(
        f"{s}@3" for s in ("rouge1-f", "rouge2-f", "rougel-f", "rougeavg-f")
    )
    fitted, held = ref.table8[3]
    assert fit.in_sample.estimated == pytest.approx(fitted, abs=EXACT)
    assert fit.held_out.estimated == pytest.approx(held, abs=EXACT)
    assert fit.in_sample.values() == pytest.approx(agreement(fitted, ref.truth), abs=EXACT)
    assert fit.held_out.values() == pytest.approx(agreement(held, ref.truth), abs=EXACT)
    system_readings = [r for r in loupe.table8_readings if r.level == "system"]
    assert [r.label.split(",")[1].strip() for r in system_readings] == ["N=1", "N=2", "N=3"]
    for n, reading in zip((1, 2, 3), system_readings, strict=True):
        fitted, held = ref.table8[n]
        assert reading.in_sample.values() == pytest.approx(agreement(fitted, ref.truth), abs=EXACT)
        assert reading.held_out.values() == pytest.approx(agreement(held, ref.truth), abs=EXACT)
    # Rounded, as the README and the command print them.
    assert _pct(fit.in_sample.values()) == (74.0, 94.3, 86.7)
    assert _pct(fit.held_out.values()) == (-8.7, 25.7, 6.7)


@pytest.mark.xfail(
    strict=True,
    reason="Table 8's AutoFAR is fitted to the ground-truth FAR of the 89 documents (which Loupe "
    "reproduces) from the estimated FARs, which the release gives on 76 of them only (see Table "
    "7). Our reading of the paper's fit (one row per system, the four Table 7 scorers at N = 3, "
    "in sample) gives AutoFAR 47.3, 49.6, 48.6, 52.2, 53.4, 52.2 for BanditSum, FastRL(E), "
    "Lead-3, NeuSum, Refresh, UnifiedSum(E) (paper 44.8, 51.0, 51.3, 49.9, 51.7, 54.5) and r / "
    "rho / tau 74.0 / 94.3 / 86.7 (paper 97.6 / 77.1 / 60.0); the paper states neither the "
    "features nor the level of its fit. The other readings, in sample: system level N = 1 "
    "97.0 / 94.3 / 86.7, N = 2 81.8 / 42.9 / 33.3; per (system, document) at N = 3 61.5 / 87.0 / "
    "69.0 and on all 12 features 57.2 / 72.5 / 55.2 (both against the 76-document FAR).",
)
def test_table8_equals_the_paper(loupe, ref):
    fit = loupe.table8_paper
    for system, value in fit.in_sample.estimated.items():
        assert round(value, 3) == published.TABLE8[ref.names[system]].autofar, system
    assert _pct(fit.in_sample.values()) == _pct(published.TABLE8_AUTOFAR.values())


@pytest.mark.xfail(
    strict=True,
    reason="AutoFAR-L (Table 8's last column, rho 54.3 against FAR) applies the fit to the "
    "estimated FAR of all 11,490 CNN/DailyMail test documents. The release lists their URLs "
    "(data/all_test.txt) but holds the text of its 150 annotated documents only "
    "(output/*.txt) and the systems' extracted sentences of those 150 only (data/idx2labels_"
    "*.pkl), so 11,340 documents can be neither split into machine FAMs nor scored.",
)
def test_autofar_l_needs_the_whole_test_set():
    urls = (FAR_RELEASE / "data" / "all_test.txt").read_text(encoding="utf-8").split()
    assert len(urls) == 11490
    bundle = parse_far_release(FAR_RELEASE)
    with_text = {d.external_id for d in bundle.documents if d.sentences}
    with_outputs = {o.document_id for o in bundle.outputs if o.system_slug != "lead-3"}
    assert len(with_text) == 150
    assert len(with_outputs) <= 150
    assert len(with_text) == len(urls)  # what AutoFAR-L on the whole test set needs
