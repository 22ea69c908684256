"""The FAR family: hand-worked documents, k, unsupported facets, coverage, typed errors, the
bulk engine against the per-document definition, and the ``far`` CLI."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest

from scoring.metrics import cli
from scoring.metrics.fam import validate_fam
from scoring.metrics.far import (
    EmptyExtractionError,
    ExtractedIndexError,
    FarDocumentScore,
    FarEngine,
    FarError,
    FarScoreTable,
    FarSystemScore,
    InvalidKError,
    MissingOutputsError,
    NoDocumentsError,
    NoSupportError,
    UnknownMeasureError,
    aggregate,
    considered_sentences,
    fam_statistics,
    scorable_documents,
    score_document,
    score_system,
)
from scoring.metrics.polytope import PolytopeSystemScore
from scoring.metrics.stats import paired_permutation_test

# A document of 8 sentences and 3 facets:
#   facet 0: support groups {0} and {2, 3}   (either covers it)
#   facet 1: support group  {5}
#   facet 2: no support group                (unsupported: high abstraction)
# Support union S = {0, 2, 3, 5}, |S| = 4.
FAM = validate_fam({0: [[0], [2, 3]], 1: [[5]], 2: []}, n_sentences=8, n_facets=3)


def test_hand_worked_default_k3():
    # Extracted [0, 5, 7, 2] with k = 3: E = {0, 5, 7}; E ∩ S = {0, 5}.
    score = score_document(FAM, [0, 5, 7, 2])
    assert (score.n_considered, score.n_support, score.n_hit) == (3, 4, 2)
    assert score.sap == 2 / 3  # 2 hits / 3 considered
    assert score.sar == 2 / 4  # 2 hits / 4 support sentences
    # SAF1 = 2PR / (P + R) = 2 (2/3)(1/2) / (2/3 + 1/2) = (2/3) / (7/6) = 4/7 = 2·2 / (3 + 4)
    assert score.saf1 == pytest.approx(4 / 7, abs=1e-15)
    p, r = Fraction(2, 3), Fraction(1, 2)
    assert Fraction(score.saf1).limit_denominator(100) == 2 * p * r / (p + r)
    # facet 0 is covered by {0}, facet 1 by {5}; facet 2 is left out of the denominator: 2/2.
    assert (score.n_covered, score.n_facets) == (2, 2)
    assert score.far == 1.0
    # FAR per considered sentence: 1.0 / 3.
    assert score.far_per_sentence == 1 / 3
    # Only one group of facet 0 ({0}) is inside E: not redundant.
    assert score.redundant is False and score.n_redundant == 0


def test_include_unsupported_counts_the_facet_without_support():
    # Same extraction; the denominator is now all 3 facets: FAR = 2/3. Nothing else changes.
    default = score_document(FAM, [0, 5, 7, 2])
    score = score_document(FAM, [0, 5, 7, 2], include_unsupported=True)
    assert (score.n_covered, score.n_facets) == (2, 3)
    assert score.far == 2 / 3
    assert score.far_per_sentence == (2 / 3) / 3
    assert (score.sap, score.sar, score.saf1) == (default.sap, default.sar, default.saf1)


def test_redundant_when_two_groups_of_one_facet_are_covered():
    # E = {0, 2, 3}: facet 0 is covered by {0} AND by {2, 3}: redundant. Facet 1 ({5}) is not.
    score = score_document(FAM, [0, 2, 3])
    assert score.n_redundant == 1 and score.redundant is True
    assert score.far == 1 / 2  # facet 0 of facets {0, 1}
    assert score.sap == 1.0  # 3 hits / 3
    assert score.sar == 3 / 4
    assert score.saf1 == 2 * 3 / (3 + 4)  # 6/7


def test_a_group_is_covered_only_when_all_its_sentences_are_extracted():
    # E = {2, 5, 7}: {2, 3} is only half inside, so facet 0 is not covered; facet 1 is.
    score = score_document(FAM, [2, 5, 7])
    assert score.far == 1 / 2
    assert score.n_hit == 2  # 2 and 5 are support sentences even though facet 0 is uncovered
    assert score.sar == 2 / 4


def test_k_takes_the_first_k_in_extraction_order():
    # [7, 6, 0, 5]: k=2 considers {7, 6} (no hit), k=3 adds 0, k=None adds 5.
    k2 = score_document(FAM, [7, 6, 0, 5], k=2)
    assert (k2.n_considered, k2.n_hit, k2.far, k2.sap, k2.saf1) == (2, 0, 0.0, 0.0, 0.0)
    k3 = score_document(FAM, [7, 6, 0, 5], k=3)
    assert (k3.n_hit, k3.far) == (1, 1 / 2)
    every = score_document(FAM, [7, 6, 0, 5], k=None)
    assert (every.n_considered, every.n_hit, every.far) == (4, 2, 1.0)
    assert every.far_per_sentence == 1.0 / 4
    # k larger than the extraction is the whole extraction.
    assert score_document(FAM, [7, 6, 0, 5], k=10) == FarDocumentScore(
        None, 10, *[getattr(every, f) for f in ("n_considered", "n_support", "n_hit")],
        every.n_facets, every.n_covered, every.n_redundant,
    )  # fmt: skip


def test_a_repeated_index_counts_once_within_the_first_k():
    # [0, 0, 5] with k = 3: E = {0, 5} (2 sentences, not the first 3 distinct ones).
    score = score_document(FAM, [0, 0, 5, 2])
    assert score.n_considered == 2
    assert considered_sentences([0, 0, 5, 2], 3) == {0, 5}
    assert score.sap == 1.0  # 2 / 2
    assert score.far_per_sentence == 1.0 / 2


def test_a_repeated_group_counts_once_for_redundancy():
    fam = validate_fam({0: [[3], [3]]}, n_sentences=5, n_facets=1, allow_duplicate_groups=True)
    score = score_document(fam, [3, 1, 2])
    assert score.far == 1.0
    assert score.redundant is False


def test_no_support_is_an_error_not_a_zero():
    fam = validate_fam({0: [], 1: []}, n_sentences=5, n_facets=2)
    with pytest.raises(NoSupportError, match="'d7'.*undefined") as info:
        score_document(fam, [0, 1, 2], document="d7")
    assert info.value.document == "d7"
    # ... also when unsupported facets count: SAR would still be 0/0.
    with pytest.raises(NoSupportError):
        score_document(fam, [0, 1, 2], include_unsupported=True)
    no_facets = validate_fam({}, n_sentences=5, n_facets=0)
    with pytest.raises(NoSupportError):
        score_document(no_facets, [0])


def test_empty_extraction_is_an_error_not_a_zero():
    with pytest.raises(EmptyExtractionError, match="'d1'") as info:
        score_document(FAM, [], document="d1")
    assert info.value.document == "d1"


@pytest.mark.parametrize("k", [0, -1, True, 2.0, "3"])
def test_bad_k(k):
    with pytest.raises(InvalidKError, match="k must be"):
        score_document(FAM, [0, 1, 2], k=k)


@pytest.mark.parametrize(
    ("extracted", "position", "message"),
    [
        ([0, 8], 1, "out of range"),  # 8 sentences: 0..7
        ([0, -1], 1, "out of range"),
        ([True, 1], 0, "not an integer"),
        ([0, 1.0], 1, "not an integer"),
        (["0"], 0, "not an integer"),
        ([0, 1, 2, 99], 3, "out of range"),  # checked past k too
    ],
)
def test_bad_extracted_index_names_document_and_position(extracted, position, message):
    with pytest.raises(ExtractedIndexError, match=message) as info:
        score_document(FAM, extracted, document="doc-x")
    assert (info.value.document, info.value.position) == ("doc-x", position)
    assert f"'doc-x', extracted position {position}" in str(info.value)
    assert isinstance(info.value, FarError) and isinstance(info.value, ValueError)


def test_numpy_integers_are_indices():
    score = score_document(FAM, np.array([0, 5, 7]))
    assert score == score_document(FAM, [0, 5, 7])


# ---------------------------------------------------------------------------------------------
# Aggregation and coverage
# ---------------------------------------------------------------------------------------------

# A second document: 4 sentences, facet 0 -> {1}; facet 1 -> {2, 3}. S = {1, 2, 3}.
FAM_B = validate_fam([[[1]], [[2, 3]]], n_sentences=4, n_facets=2)
FAMS = {"a": FAM, "b": FAM_B}


def test_system_means_are_means_over_documents():
    # a: [0, 5, 7] -> SAP 2/3, SAR 1/2, SAF1 4/7, FAR 1, redundant no.
    # b: [1, 2, 3] -> E = {1, 2, 3} = S: SAP 1, SAR 1, SAF1 1, FAR 1, redundant no.
    result = score_system("sys", FAMS, {"a": [0, 5, 7], "b": [1, 2, 3]})
    assert result.sap == pytest.approx((2 / 3 + 1) / 2)
    assert result.sar == pytest.approx((1 / 2 + 1) / 2)
    # The mean of per-document F1 (4/7 + 1) / 2 = 0.7857..., not F1 of the means (0.7619...).
    assert result.saf1 == pytest.approx((4 / 7 + 1) / 2)
    assert result.far == 1.0
    assert result.redundancy_rate == 0.0
    assert (result.n_scored, result.n_expected, result.coverage, result.missing) == (2, 2, 1.0, ())
    assert [s.document for s in result.documents()] == ["a", "b"]
    assert result.documents()[0] == score_document(FAM, [0, 5, 7], document="a")


def test_far_per_sentence_is_far_over_distinct_considered_sentences():
    # FAM with [0, 0, 5, 7] and k = 3: E = {0, 5} (the repeat counts once), |E| = 2, FAR = 2/2.
    score = score_document(FAM, [0, 0, 5, 7])
    assert score.n_considered == 2
    assert score.far_per_sentence == 1.0 / 2  # FAR / |E|, not FAR / k
    assert score.covered_per_sentence == 2 / 2  # covered facets / |E|
    # With every facet in FAR's denominator, FAR per sentence changes; the alternative does not.
    wide = score_document(FAM, [0, 0, 5, 7], include_unsupported=True)
    assert wide.far_per_sentence == (2 / 3) / 2
    assert wide.covered_per_sentence == score.covered_per_sentence
    # The system figure is the mean of the per-document ratios. FAR per sentence: a -> 1/2;
    # b ([1] covers facet 0 of 2: FAR 1/2, |E| = 1) -> 1/2. Covered per sentence: 1 and 1.
    result = score_system("sys", FAMS, {"a": [0, 0, 5, 7], "b": [1]})
    assert result.far_per_sentence == (1 / 2 + 1 / 2) / 2
    assert result.covered_per_sentence == 1.0
    assert "covered_per_sentence" not in result.means()


def test_per_document_gives_one_measure_per_scored_document():
    # a: [0, 5, 7] -> SAP 2/3, FAR 1, not redundant; b: [1, 2, 3] -> SAP 1, FAR 1, redundant
    # no. With a: [0, 2, 3] a is redundant.
    result = score_system("sys", FAMS, {"a": [0, 2, 3], "b": [1, 2, 3]})
    assert result.per_document("sap") == {"a": 1.0, "b": 1.0}
    assert result.per_document("far") == {"a": 0.5, "b": 1.0}
    assert result.per_document("redundant") == {"a": 1.0, "b": 0.0}
    for measure in ("sap", "sar", "saf1", "far", "far_per_sentence"):
        values = result.per_document(measure)
        assert list(values) == ["a", "b"]
        assert all(type(v) is float for v in values.values())
        assert sum(values.values()) / 2 == pytest.approx(getattr(result, measure))
        assert values == {s.document: getattr(s, measure) for s in result.documents()}
    with pytest.raises(UnknownMeasureError, match="unknown FAR measure 'rouge'; choose one of sap"):
        result.per_document("rouge")
    assert issubclass(UnknownMeasureError, FarError)
    # Partial coverage: only the scored documents are there.
    partial = score_system("sys", FAMS, {"a": [0, 5, 7]}, allow_partial=True)
    assert partial.per_document("sar") == {"a": 0.5}
    # The engine gives the same.
    assert FarEngine(FAMS).score("sys", {"a": [0, 2, 3], "b": [1, 2, 3]}).per_document(
        "saf1"
    ) == result.per_document("saf1")


def test_per_document_feeds_the_paired_tests_directly():
    documents = {f"d{i}": FAM_B for i in range(6)}
    one = score_system("one", documents, {d: [1, 2, 3] for d in documents})
    two = score_system("two", documents, {d: [0, 1] for d in documents})
    test = paired_permutation_test(one.per_document("far"), two.per_document("far"), seed=1)
    assert test.statistic == pytest.approx(0.5)  # FAR 1 against 1/2 on every document


def test_as_dict_and_the_far_system_score_alias():
    assert FarSystemScore is FarSystemScore
    assert FarSystemScore is not PolytopeSystemScore
    result = score_system("sys", FAMS, {"a": [0, 5, 7]}, allow_partial=True)
    record = result.as_dict()
    assert list(record) == ["system", "k", "include_unsupported", "coverage", "mean", "documents"]
    assert record["coverage"] == {"scored": 1, "expected": 2, "ratio": 0.5, "missing": ["b"]}
    assert record["mean"] == {**result.means(), "considered": 3.0}
    assert record["documents"] == {"a": result.documents()[0].as_dict()}
    assert record["documents"]["a"]["far"] == 1.0 and record["documents"]["a"]["considered"] == 3
    assert json.loads(json.dumps(record)) == record


def test_redundancy_rate_is_the_share_of_redundant_documents():
    # a: [0, 2, 3] is redundant (see above); b: [1, 0, 2] is not -> 1/2.
    result = score_system("sys", FAMS, {"a": [0, 2, 3], "b": [1, 0, 2]})
    assert result.redundancy_rate == 0.5


def test_missing_outputs_raise_naming_system_and_documents():
    with pytest.raises(MissingOutputsError, match=r"'sys' has no output for 1 of 2.*'b'") as info:
        score_system("sys", FAMS, {"a": [0, 5, 7]})
    assert info.value.system == "sys"
    assert info.value.missing == ("b",)
    assert "coverage would be 1/2" in str(info.value)


def test_partial_coverage_only_when_asked_and_reported():
    result = score_system("sys", FAMS, {"a": [0, 5, 7]}, allow_partial=True)
    assert (result.n_scored, result.n_expected, result.coverage) == (1, 2, 0.5)
    assert result.missing == ("b",)
    assert result.sap == 2 / 3  # the one covered document


def test_no_output_at_all_has_no_mean():
    with pytest.raises(NoDocumentsError, match="coverage 0/2"):
        score_system("sys", FAMS, {}, allow_partial=True)
    with pytest.raises(MissingOutputsError):
        score_system("sys", FAMS, {})


def test_empty_inputs():
    with pytest.raises(NoDocumentsError):
        score_system("sys", {}, {"a": [0]})
    with pytest.raises(NoDocumentsError):
        FarEngine({})
    with pytest.raises(NoDocumentsError):
        fam_statistics([])


def test_outputs_for_other_documents_are_ignored():
    result = score_system("sys", FAMS, {"a": [0, 5, 7], "b": [1], "zzz": [0, 1, 2]})
    assert result.n_scored == 2


def test_aggregate_refuses_documents_it_does_not_expect():
    table = FarScoreTable.from_scores([score_document(FAM, [0, 5], document="x")], 3)
    with pytest.raises(NoDocumentsError, match="'x'"):
        aggregate(table, system="sys", expected=["a"])
    with pytest.raises(NoDocumentsError):
        aggregate(table, system="sys", expected=[])


def test_scorable_documents_leave_out_fams_without_support():
    noise = validate_fam({0: []}, n_sentences=3, n_facets=1)
    fams = {"a": FAM, "n": noise, "b": FAM_B}
    assert scorable_documents(fams) == ["a", "b"]
    with pytest.raises(NoSupportError, match="'n'"):
        score_system("sys", fams, {"a": [0], "n": [0], "b": [1]})
    with pytest.raises(NoSupportError, match="'n'"):
        FarEngine(fams)


def test_fam_statistics_hand_worked():
    # FAM: facets 0 and 1 mapped (facet 2 not); groups {0}, {2,3}, {5}: unique 4, non-unique 4.
    # FAM_B: groups {1}, {2,3}: unique 3, non-unique 3.
    # A third FAM repeats group {3} and shares sentence 3 between facets: groups {3}, {3},
    # {1, 3}: unique |{1, 3}| = 2, non-unique 1 + 1 + 2 = 4.
    third = validate_fam(
        {0: [[3], [3]], 1: [[1, 3]]}, n_sentences=4, n_facets=2, allow_duplicate_groups=True
    )
    stats = fam_statistics([FAM, FAM_B, third])
    assert (stats.n_documents, stats.n_facets, stats.mapped_facets, stats.n_groups) == (3, 7, 6, 8)
    assert (stats.unique_support, stats.nonunique_support) == (4 + 3 + 2, 4 + 3 + 4)
    assert stats.mean_unique_support == 9 / 3
    assert stats.mean_nonunique_support == 11 / 3
    assert stats.mean_groups_per_mapped_facet == 8 / 6


# ---------------------------------------------------------------------------------------------
# The bulk engine computes exactly what the per-document definition computes
# ---------------------------------------------------------------------------------------------


def _random_dataset(rng: random.Random, n_docs: int, max_sentences: int):
    fams, systems = {}, []
    for d in range(n_docs):
        n = rng.randint(1, max_sentences)
        facets = []
        for _ in range(rng.randint(1, 5)):
            groups = []
            for _ in range(rng.choice([0, 1, 1, 2, 3])):
                group = sorted(rng.sample(range(n), rng.randint(1, min(3, n))))
                if group not in groups or rng.random() < 0.2:
                    groups.append(group)
            facets.append(groups)
        if not any(facets):
            facets[0] = [[rng.randrange(n)]]
        fams[f"d{d}"] = validate_fam(
            facets, n_sentences=n, n_facets=len(facets), allow_duplicate_groups=True
        )
    for _ in range(4):
        systems.append(
            {
                doc: [rng.randrange(fam.n_sentences) for _ in range(rng.randint(1, 6))]
                for doc, fam in fams.items()
            }
        )
    return fams, systems


@pytest.mark.parametrize("max_sentences", [8, 64, 200])  # one and several 64-bit words
@pytest.mark.parametrize("include_unsupported", [False, True])
def test_engine_equals_the_per_document_definition(max_sentences, include_unsupported):
    fams, systems = _random_dataset(random.Random(max_sentences), 300, max_sentences)
    engine = FarEngine(fams, include_unsupported=include_unsupported)
    for number, extracted in enumerate(systems):
        for k in (1, 3, None):
            ours = engine.score(f"s{number}", extracted, k)
            reference = score_system(
                f"s{number}", fams, extracted, k, include_unsupported=include_unsupported
            )
            assert ours.documents() == reference.documents()
            assert ours == reference  # every mean, bit for bit, and the coverage


def test_engine_partial_coverage_and_errors_match():
    engine = FarEngine(FAMS)
    partial = engine.score("sys", {"b": [1, 2]}, allow_partial=True)
    assert partial == score_system("sys", FAMS, {"b": [1, 2]}, allow_partial=True)
    assert partial.missing == ("a",) and partial.coverage == 0.5
    with pytest.raises(MissingOutputsError, match="'a'"):
        engine.score("sys", {"b": [1, 2]})
    for bad in ([0, 8], [0, -1], [True], [0.0], ["1"]):
        with pytest.raises(ExtractedIndexError) as ours:
            engine.score("sys", {"a": bad, "b": [1]})
        with pytest.raises(ExtractedIndexError) as reference:
            score_system("sys", FAMS, {"a": bad, "b": [1]})
        assert str(ours.value) == str(reference.value)
    with pytest.raises(EmptyExtractionError, match="'b'"):
        engine.score("sys", {"a": [0], "b": []})
    with pytest.raises(InvalidKError):
        engine.score("sys", {"a": [0], "b": [1]}, k=0)
    assert engine.score("sys", {"a": np.array([0, 5]), "b": (1,)}) == score_system(
        "sys", FAMS, {"a": [0, 5], "b": [1]}
    )


# ---------------------------------------------------------------------------------------------
# The CLI
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def run_far(monkeypatch, tmp_path, capsys):
    """Run ``far`` through ``cli.main``; only this command is registered, so the test does not
    depend on the other commands."""
    assert "far" in cli.COMMAND_MODULES
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("far",))

    def run(fams, extracted, *args, sentences=None, facets=None):
        paths = []
        for name, value in (
            ("fams", fams),
            ("lead3", extracted),
            ("docs", sentences),
            ("facets", facets),
        ):
            path = tmp_path / f"{name}.json"
            path.write_text(value if isinstance(value, str) else json.dumps(value))
            paths.append(path)
        argv = ["far", "--fams", str(paths[0]), "--extracted", str(paths[1]), *args]
        if sentences is not None:
            argv += ["--sentences", str(paths[2])]
        if facets is not None:
            argv += ["--facets", str(paths[3])]
        status = cli.main(argv)
        out, err = capsys.readouterr()
        return status, out, err

    return run


CLI_FAMS = {"doc-1": {"0": [[0], [2, 3]], "1": [[5]], "2": []}, "doc-2": {"0": [[1]]}}


def test_cli_json_output(run_far):
    # doc-1 is FAM above with [0, 5, 7, 2]; doc-2: E = {1, 0, 4}, S = {1}: SAP 1/3, SAR 1.
    status, out, err = run_far(CLI_FAMS, {"doc-1": [0, 5, 7, 2], "doc-2": [1, 0, 4], "x": [0]})
    assert (status, err) == (0, "")
    record = json.loads(out)
    assert record["system"] == "lead3" and record["k"] == 3
    assert record["coverage"] == {
        "scored": 2, "expected": 2, "ratio": 1.0, "missing": [], "ignored_outputs": ["x"],
    }  # fmt: skip
    one, two = record["documents"]["doc-1"], record["documents"]["doc-2"]
    assert (one["sap"], one["sar"], one["far"], one["redundant"]) == (2 / 3, 0.5, 1.0, False)
    assert (two["sap"], two["sar"], two["saf1"]) == (1 / 3, 1.0, 2 * 1 / (3 + 1))
    assert record["mean"]["sap"] == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert record["mean"]["saf1"] == pytest.approx((4 / 7 + 1 / 2) / 2)
    assert record["mean"]["redundancy_rate"] == 0.0


def test_cli_k_and_options(run_far):
    extracted = {"doc-1": [7, 6, 0, 5], "doc-2": [1]}
    facets = {"doc-1": 3, "doc-2": 1}
    _, out, _ = run_far(CLI_FAMS, extracted, "--k", "all", "--include-unsupported", facets=facets)
    one = json.loads(out)["documents"]["doc-1"]
    # k = all: E = {7, 6, 0, 5} covers facets 0 and 1 of 3 (facet 2 unsupported but counted).
    assert (one["considered"], one["far"], one["facets"]) == (4, 2 / 3, 3)
    _, out, _ = run_far(CLI_FAMS, extracted, "--k", "2")
    assert json.loads(out)["documents"]["doc-1"]["far"] == 0.0


def test_cli_table(run_far):
    status, out, _ = run_far(CLI_FAMS, {"doc-1": [0, 2, 3], "doc-2": [1]}, "--table")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["document", "SAP", "SAR", "SAF1", "FAR", "FAR/sent", "redundant"]
    assert lines[1].split()[0] == "doc-1" and lines[1].split()[-1] == "yes"
    assert lines[-2].split()[-1] == "50.0%"  # one of the two documents is redundant
    assert lines[-1].split() == ["coverage", "2/2"]


def test_cli_missing_output_and_partial(run_far):
    status, _, err = run_far(CLI_FAMS, {"doc-1": [0]})
    assert status == 2
    assert "'lead3' has no output for 1 of 2 documents ('doc-2')" in err
    status, out, _ = run_far(CLI_FAMS, {"doc-1": [0]}, "--allow-partial")
    assert status == 0
    assert json.loads(out)["coverage"]["missing"] == ["doc-2"]
    assert json.loads(out)["coverage"]["ratio"] == 0.5


@pytest.mark.parametrize(
    ("fams", "extracted", "expected"),
    [
        ("{not json", {}, "fams.json:1: invalid JSON"),
        ([], {}, "fams.json: expected an object"),
        ({"d": []}, {"d": [0]}, "document 'd': expected an object"),
        ({"d": {"x": [[0]]}}, {"d": [0]}, "document 'd', facet 'x': a facet index"),
        ({"d": {"-1": [[0]]}}, {"d": [0]}, "facet '-1'"),
        ({"d": {"0": [[0]], "00": [[1]]}}, {"d": [0]}, "facet 0: given twice"),
        ({"d": {"0": [0]}}, {"d": [0]}, "document 'd', facet 0, group 0: a support group"),
        ({"d": {"0": [[0], [-2]]}}, {"d": [0]}, "facet 0, group 1: sentence index -2"),
        ({"d": {"0": [[0], [1.5]]}}, {"d": [0]}, "facet 0, group 1: sentence index 1.5"),
        ({"d": {"0": [[0], []]}}, {"d": [0]}, "document 'd': facet 0, group 1: empty support"),
        ({"d": {"0": [[0], [0]]}}, {"d": [0]}, "document 'd': facet 0, group 1: duplicate"),
        ({"d": {"0": []}}, {"d": [0]}, "document 'd': the FAM has no support group"),
        ({"d": {"0": [[0]]}}, [], "lead3.json: expected an object"),
        ({"d": {"0": [[0]]}}, {"d": 3}, "document 'd': expected a list"),
        ({"d": {"0": [[0]]}}, {"d": [0, -1]}, "document 'd', position 1: sentence index -1"),
        ({"d": {"0": [[0]]}}, {"d": [True]}, "position 0: sentence index True"),
        ({"d": {"0": [[0]]}}, {"d": []}, "document 'd': no extracted sentence"),
    ],
)
def test_cli_bad_input_names_the_item(run_far, fams, extracted, expected):
    status, out, err = run_far(fams, extracted)
    assert (status, out) == (2, "")
    assert err.startswith("error: ") and expected in err


def test_cli_sentences_bound_the_indices(run_far):
    fams = {"d": {"0": [[0], [3]]}}
    ok, _, _ = run_far(fams, {"d": [0, 1]}, sentences={"d": 4})
    assert ok == 0
    status, _, err = run_far(fams, {"d": [0, 1]}, sentences={"d": ["one", "two", "three"]})
    assert status == 2
    assert "document 'd': facet 0, group 1: sentence index 3 is out of range" in err
    status, _, err = run_far({"d": {"0": [[0]]}}, {"d": [0, 5]}, sentences={"d": 3})
    assert status == 2 and "lead3.json: document 'd', extracted position 1" in err
    status, _, err = run_far(fams, {"d": [0]}, sentences={"e": 4})
    assert status == 2 and "docs.json: no sentence count for document 'd'" in err
    status, _, err = run_far(fams, {"d": [0]}, sentences={"d": -4})
    assert status == 2 and "docs.json: document 'd': expected a sentence count" in err


def test_cli_include_unsupported_needs_the_facet_counts(run_far):
    # doc-1 lists facets 0..2; its reference has 5, so facets 3 and 4 (no support group) are
    # not in FAMS.json. Without the counts they would drop out of the denominator: refused.
    extracted = {"doc-1": [0, 5, 7], "doc-2": [1]}
    status, out, err = run_far(CLI_FAMS, extracted, "--include-unsupported")
    assert (status, out) == (2, "")
    assert err.startswith("error: --include-unsupported needs each document's facet count")
    assert "--facets FACETS.json" in err and "silently drop out" in err
    # With the counts (a number or the reference sentences), every facet is in the denominator.
    facets = {"doc-1": 5, "doc-2": ["the only reference sentence ."], "other": 9}
    status, out, _ = run_far(CLI_FAMS, extracted, "--include-unsupported", facets=facets)
    assert status == 0
    record = json.loads(out)
    assert record["include_unsupported"] is True
    one, two = record["documents"]["doc-1"], record["documents"]["doc-2"]
    assert (one["facets"], one["facets_covered"], one["far"]) == (5, 2, 2 / 5)
    assert (two["facets"], two["far"]) == (1, 1.0)
    # --facets alone checks the facet indices and leaves FAR's default denominator alone.
    status, out, _ = run_far(CLI_FAMS, extracted, facets=facets)
    assert status == 0 and json.loads(out)["documents"]["doc-1"]["facets"] == 2


@pytest.mark.parametrize(
    ("facets", "expected"),
    [
        ({"doc-1": 2, "doc-2": 1}, "fams.json: document 'doc-1': facet 2: unknown facet"),
        ({"doc-1": 3}, "facets.json: no facet count for document 'doc-2'"),
        ({"doc-1": -3, "doc-2": 1}, "facets.json: document 'doc-1': expected a facet count"),
        ({"doc-1": "3", "doc-2": 1}, "facets.json: document 'doc-1': expected a facet count"),
        ([3, 1], "facets.json: expected an object {doc_id: facet_count or [facet]}"),
    ],
)
def test_cli_bad_facet_counts(run_far, facets, expected):
    status, out, err = run_far(
        CLI_FAMS, {"doc-1": [0], "doc-2": [1]}, "--include-unsupported", facets=facets
    )
    assert (status, out) == (2, "")
    assert expected in err


def test_cli_output_is_the_library_record(run_far):
    # The JSON is FarSystemScore.as_dict() plus the CLI's coverage.ignored_outputs, key for key.
    extracted = {"doc-1": [0, 5, 7, 2], "doc-2": [1, 0, 4], "x": [0]}
    _, out, _ = run_far(CLI_FAMS, extracted)
    fams = {
        doc: validate_fam(
            {int(f): g for f, g in facets.items()}, n_sentences=8, n_facets=len(facets)
        )
        for doc, facets in CLI_FAMS.items()
    }
    expected = score_system("lead3", fams, extracted).as_dict()
    expected["coverage"]["ignored_outputs"] = ["x"]
    assert out == json.dumps(expected, ensure_ascii=False, indent=2) + "\n"


def test_cli_bad_k_and_help(run_far, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["far", "--fams", "f", "--extracted", "e", "--k", "0"])
    assert info.value.code == 2
    assert "positive integer or 'all'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["far", "--help"])
    text = capsys.readouterr().out
    assert "{doc_id: {facet_index: [[sentence_index, ...], ...]}}" in text
    assert "{doc_id: [sentence_index, ...]}" in text
    assert '{"doc-1": [0, 5, 7, 2], "doc-2": [1, 0, 4]}' in text
    assert "--sentences" in text and "non-negative integer" in text
    assert "--facets" in text and "required by --include-unsupported" in text


def test_engine_score_matrix_checks_its_matrix():
    engine = FarEngine(FAMS)
    matrix = np.array([[0, 5, 7], [1, -1, -1]])  # -1: empty slot
    table = engine.score_matrix(matrix, 3)
    assert table.rows() == score_system("s", FAMS, {"a": [0, 5, 7], "b": [1]}).documents()
    with pytest.raises(ExtractedIndexError, match="'b', extracted position 1: sentence index 4"):
        engine.score_matrix(np.array([[0, 5, 7], [1, 4, -1]]), 3)
    with pytest.raises(ExtractedIndexError, match="'a', extracted position 0"):
        engine.score_matrix(np.array([[-2, 5, 7], [1, 2, 3]]), 3)
    # Columns past k are not considered, so they are not checked here.
    assert len(engine.score_matrix(np.array([[0, 5, 99], [1, 2, 3]]), 2)) == 2
    with pytest.raises(ValueError, match=r"\(2, L\) integer matrix"):
        engine.score_matrix(np.array([[0.0, 1.0], [1.0, 2.0]]), 3)
    with pytest.raises(ValueError, match=r"\(2, L\) integer matrix"):
        engine.score_matrix(np.array([[0, 1]]), 3)
