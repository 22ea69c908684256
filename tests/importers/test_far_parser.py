"""The FAR release parser: real counts on ../shared, and a small synthetic release for errors."""

from __future__ import annotations

import hashlib
import os
import pickle
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from annotation.corpus.importers.far_split import naive_split, split_sentences
from annotation.corpus.importers.parsers.far import parse_far_release
from annotation.corpus.importers.safe_pickle import safe_load
from annotation.imports.bundle import (
    FACET_SUPPORTED,
    KIND_EXTRACTIVE,
    METHOD_LEAD,
    METHOD_RELEASED,
    ImportValidationError,
)
from annotation.imports.validators import validate_bundle

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
FAR = SHARED / "far-release"
_skip_without_far = pytest.mark.skipif(
    not (SHARED / "far-release").is_dir(), reason="../shared/data/far-release is absent"
)


def needs_far(test):
    """Mark a test as needing the FAR release in ../shared (skipped with a message if absent)."""
    return pytest.mark.shared(_skip_without_far(test))


DUMPS = ("low_abstraction.txt", "noise.txt", "high_abstraction.txt")
SUPPORT = re.compile(r"^\[Support Group-\d+\]\[Sent-\d+\]\[Sent_idx:(\d+)\]: ?(.*)$")


# ---------------------------------------------------------------------------------------------
# Independent helpers (deliberately not the parser's code)
# ---------------------------------------------------------------------------------------------


def released_samples() -> dict[int, tuple[str, dict[int, set[str]]]]:
    """Sample idx -> (document, {Sent_idx: released texts}) read straight from the dumps."""
    samples = {}
    for name in DUMPS:
        lines = (FAR / "output" / name).read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines):
            if line.startswith("idx: "):
                idx = int(line[5:])
                assert lines[number + 2] == "Document"
                samples[idx] = (lines[number + 3], {})
            elif match := SUPPORT.match(line):
                samples[idx][1].setdefault(int(match[1]), set()).add(" ".join(match[2].split()))
    return samples


def agreeing(split, samples) -> int:
    count = 0
    for document, released in samples.values():
        sentences = split(document)
        if released and all(
            i < len(sentences) and {" ".join(sentences[i].split())} == texts
            for i, texts in released.items()
        ):
            count += 1
    return count


# ---------------------------------------------------------------------------------------------
# The real release
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundle():
    return parse_far_release(FAR)


@pytest.fixture(scope="module")
def docs(bundle):
    return {doc.meta["sample_idx"]: doc for doc in bundle.documents}


@needs_far
def test_dataset_and_categories(bundle):
    assert bundle.dataset.slug == "cnndm-far"
    assert "69a7890c578405fc06f5edf05653d4afeb16d353" in bundle.dataset.source
    assert len(bundle.documents) == 150
    assert Counter(doc.category for doc in bundle.documents) == {"low": 89, "noise": 41, "high": 20}
    assert len({doc.external_id for doc in bundle.documents}) == 150


@needs_far
def test_story_ids_are_sha1_of_the_urls(docs):
    urls = (FAR / "data" / "all_test.txt").read_text(encoding="utf-8").split("\n")
    for idx, doc in docs.items():
        assert doc.external_id == hashlib.sha1(urls[idx].strip().encode()).hexdigest()


@needs_far
def test_released_fam_totals(bundle, docs):
    [annotation_set] = bundle.annotation_sets
    assert (annotation_set.slug, annotation_set.kind, annotation_set.read_only) == (
        "released",
        "released",
        True,
    )
    fams = annotation_set.fams
    assert len(fams) == 89
    facets = [facet for fam in fams for facet in fam.facets]
    assert len(facets) == 310
    assert sum(len(facet.groups) for facet in facets) == 496
    # Every facet of a low-abstraction sample has support groups in the release.
    assert {facet.label for facet in facets} == {FACET_SUPPORTED}
    by_id = {doc.external_id: doc for doc in docs.values()}
    for fam in fams:
        assert by_id[fam.document_id].category == "low"
        assert len(fam.facets) == len(by_id[fam.document_id].references[0].sentences)


@needs_far
def test_groups_are_exactly_as_released(bundle, docs):
    released = safe_load(FAR / "data" / "FAMs.pkl")["low_abs"]
    by_id = {doc.external_id: idx for idx, doc in docs.items()}
    for fam in bundle.annotation_sets[0].fams:
        expected = released[by_id[fam.document_id]]
        assert [facet.groups for facet in fam.facets] == [
            tuple(tuple(sorted(group)) for group in expected[f]) for f in range(len(expected))
        ]


@needs_far
def test_sample_1_checked_by_hand(bundle, docs):
    doc = docs[1]
    assert doc.external_id == "f001ec5c4704938247d27a44948eebb37ae98d01"
    assert doc.references[0].sentences[0] == (
        "membership gives the icc jurisdiction over alleged crimes committed in palestinian "
        "territories since last june ."
    )
    assert doc.sentences[5] == (
        "israel and the united states , neither of which is an icc member , opposed the "
        "palestinians ' efforts to join the body ."
    )
    [fam] = [f for f in bundle.annotation_sets[0].fams if f.document_id == doc.external_id]
    assert [facet.groups for facet in fam.facets] == [((0,), (2,)), ((3, 5),)]
    assert doc.meta == {
        "sample_idx": 1,
        "split_agrees": True,
        "split_checked": True,
        "split_mismatches": [],
    }


@needs_far
def test_sample_0_abbreviations_do_not_split(docs):
    doc = docs[0]
    assert doc.sentences[19].startswith("reichelt told `` erin burnett : outfront ''")
    assert any(
        s.startswith("lt. col. jean-marc menichini , a french gendarmerie") for s in doc.sentences
    )


@needs_far
def test_split_agreement_beats_the_naive_rule(docs):
    samples = released_samples()
    with_indices = sum(1 for _, released in samples.values() if released)
    naive = agreeing(naive_split, samples)
    ours = agreeing(split_sentences, samples)
    assert with_indices == 89
    assert naive == 64  # measured: the naive rule agrees on 64 of the 89
    assert ours >= naive
    assert ours >= 76
    checked = [doc for doc in docs.values() if doc.meta["split_checked"]]
    assert len(checked) == 89
    assert sum(1 for doc in checked if doc.meta["split_agrees"]) == ours
    # The issue's figure counts all 150 (no released index disagrees on the other 61): the naive
    # rule gets about 130 there; ours must do at least as well.
    assert sum(1 for doc in docs.values() if doc.meta["split_agrees"]) == ours + 61 >= 130
    for idx, doc in docs.items():
        assert (doc.meta["split_agrees"] is False) == bool(doc.meta["split_mismatches"]), idx


@needs_far
def test_six_systems_and_their_coverage(bundle):
    assert {(s.slug, s.kind) for s in bundle.systems} == {
        (slug, KIND_EXTRACTIVE)
        for slug in ("banditsum", "fastrl-e", "neusum", "refresh", "unifiedsum-e", "lead-3")
    }
    coverage = Counter(output.system_slug for output in bundle.outputs)
    assert coverage == {
        "lead-3": 150,
        "banditsum": 150,
        "fastrl-e": 150,
        "unifiedsum-e": 131,
        "refresh": 90,
        "neusum": 89,
    }
    assert any("empty entry for sample 10" in line.message for line in bundle.report)


@needs_far
def test_outputs_are_exactly_as_released(bundle, docs):
    by_id = {doc.external_id: idx for idx, doc in docs.items()}
    files = {
        "banditsum": "bs",
        "fastrl-e": "fastrl",
        "neusum": "neusum",
        "refresh": "refresh",
        "unifiedsum-e": "unified",
    }
    released = {slug: safe_load(FAR / "data" / f"idx2labels_{n}.pkl") for slug, n in files.items()}
    for output in bundle.outputs:
        idx = by_id[output.document_id]
        doc = docs[idx]
        if output.system_slug == "lead-3":
            assert (output.extracted, output.method) == ((0, 1, 2), METHOD_LEAD)
        else:
            assert output.method == METHOD_RELEASED
            assert list(output.extracted) == released[output.system_slug][idx]
        assert output.confidences == tuple(1.0 for _ in output.extracted)
        assert output.sentences == tuple(doc.sentences[i] for i in output.extracted)
    [unified_5814] = [
        o
        for o in bundle.outputs
        if o.system_slug == "unifiedsum-e" and by_id[o.document_id] == 5814
    ]
    assert unified_5814.extracted == (0, 1, 2, 0, 6, 12, 11, 12, 15)  # repeats kept as released


@needs_far
def test_every_released_index_is_within_the_split(bundle):
    n_sentences = {doc.external_id: len(doc.sentences) for doc in bundle.documents}
    for fam in bundle.annotation_sets[0].fams:
        for facet in fam.facets:
            for group in facet.groups:
                assert all(0 <= i < n_sentences[fam.document_id] for i in group)
    for output in bundle.outputs:
        assert all(0 <= i < n_sentences[output.document_id] for i in output.extracted)
    assert not any("NOT imported" in line.message for line in bundle.report)


# ---------------------------------------------------------------------------------------------
# A small synthetic release: errors with files and line numbers
# ---------------------------------------------------------------------------------------------

URLS = ["http://example.com/a", "http://example.com/b", "http://example.com/c"]
IDS = [hashlib.sha1(url.encode()).hexdigest() for url in URLS]
LOW = f"""idx: 0
ID: {IDS[0]}
Document
the cat sat on the u.s. mat . it was happy . the dog barked !

Reference
Facet-0: a cat sat .
[Support Group-0][Sent-0][Sent_idx:0]: the cat sat on the u.s. mat .

Facet-1: a dog barked .
[Support Group-0][Sent-0][Sent_idx:2]: the dog barked !
[Support Group-1][Sent-0][Sent_idx:1]: it was happy .

Note: made up


"""
NOISE = f"""idx: 1
ID: {IDS[1]}
Document
lorem ipsum . dolor sit amet .

Reference
Facet-0: lorem .
Facet-1: dolor .


"""
HIGH = f"""idx: 2
ID: {IDS[2]}
Document
foo bar . baz qux .

Reference
Facet-0: quux .


"""


def _fams():
    return {
        "low_abs": {0: defaultdict(list, {0: [{np.int64(0)}], 1: [{2}, {1}]})},
        "noise": {np.int64(1)},
        "high_abs": {2},
        "all_idx": [0, 1, 2],
    }


def _labels():
    return {
        "bs": defaultdict(list, {0: [0, 2, 1], 1: [0, 1], 2: [1, 0]}),
        "fastrl": [[0], [1], [0]],
        "neusum": defaultdict(list, {0: [2, 0]}),
        "refresh": {0: [0]},
        "unified": {0: [0, 1, 2], 2: [1]},
    }


@pytest.fixture
def release(tmp_path) -> Path:
    root = tmp_path / "far"
    (root / "data").mkdir(parents=True)
    (root / "output").mkdir()
    (root / "data" / "all_test.txt").write_text("\n".join(URLS) + "\n")
    (root / "data" / "FAMs.pkl").write_bytes(pickle.dumps(_fams(), protocol=3))
    for name, labels in _labels().items():
        (root / "data" / f"idx2labels_{name}.pkl").write_bytes(pickle.dumps(labels, protocol=3))
    for name, text in zip(DUMPS, (LOW, NOISE, HIGH), strict=True):
        (root / "output" / name).write_text(text)
    return root


def _issues(root: Path) -> list:
    with pytest.raises(ImportValidationError) as caught:
        parse_far_release(root)
    return caught.value.issues


def test_synthetic_release_parses(release):
    bundle = parse_far_release(release)
    docs = {doc.meta["sample_idx"]: doc for doc in bundle.documents}
    assert docs[0].sentences == (
        "the cat sat on the u.s. mat .",
        "it was happy .",
        "the dog barked !",
    )
    assert docs[0].meta == {
        "sample_idx": 0,
        "split_agrees": True,
        "split_checked": True,
        "split_mismatches": [],
        "release_notes": ["made up"],
    }
    assert docs[1].meta["split_agrees"] is True and docs[1].meta["split_checked"] is False
    assert [doc.category for doc in bundle.documents] == ["low", "noise", "high"]
    [fam] = bundle.annotation_sets[0].fams
    assert [f.groups for f in fam.facets] == [((0,),), ((2,), (1,))]
    assert Counter(o.system_slug for o in bundle.outputs) == {
        "lead-3": 3,
        "banditsum": 3,
        "fastrl-e": 3,
        "neusum": 1,
        "refresh": 1,
        "unifiedsum-e": 2,
    }
    lead = [o for o in bundle.outputs if o.system_slug == "lead-3" and o.document_id == IDS[1]]
    assert lead[0].extracted == (0, 1)  # the document has only two sentences


def test_malformed_dump_line_is_reported_with_its_line_number(release):
    path = release / "output" / "low_abstraction.txt"
    lines = path.read_text().split("\n")
    assert lines[10].startswith("[Support Group-0][Sent-0][Sent_idx:2]")
    lines[10] = "[Support Group-0][Sent_idx:2] the dog barked !"
    path.write_text("\n".join(lines))
    issues = _issues(release)
    assert [(i.location.file, i.location.line) for i in issues][0] == (
        "output/low_abstraction.txt",
        11,
    )
    assert "unrecognised line" in issues[0].message


def test_facet_numbering_gap_is_reported(release):
    path = release / "output" / "noise.txt"
    path.write_text(NOISE.replace("Facet-1: dolor", "Facet-2: dolor"))
    [issue] = _issues(release)
    assert (issue.location.file, issue.location.line, issue.location.field) == (
        "output/noise.txt",
        8,
        "Facet",
    )
    assert "expected Facet-1, got Facet-2" in issue.message


def test_missing_files_are_all_reported(release):
    (release / "data" / "idx2labels_neusum.pkl").unlink()
    (release / "output" / "high_abstraction.txt").unlink()
    issues = _issues(release)
    missing = {i.location.file for i in issues if "file not found" in i.message}
    assert missing == {"data/idx2labels_neusum.pkl", "output/high_abstraction.txt"}


def test_missing_release_folder(tmp_path):
    [issue] = _issues(tmp_path / "nowhere")
    assert "release folder not found" in issue.message


def test_fams_pickle_of_the_wrong_shape(release):
    bad = _fams()
    bad["low_abs"][0][1] = [[]]
    (release / "data" / "FAMs.pkl").write_bytes(pickle.dumps(bad, protocol=3))
    [issue] = _issues(release)
    assert (issue.location.file, issue.location.field) == ("data/FAMs.pkl", "low_abs[0][1]")


def test_labels_pickle_of_the_wrong_shape(release):
    (release / "data" / "idx2labels_refresh.pkl").write_bytes(pickle.dumps({0: "abc"}))
    [issue] = _issues(release)
    assert issue.location.file == "data/idx2labels_refresh.pkl"
    assert "lists of sentence indices" in issue.message


def test_story_id_mismatch(release):
    (release / "data" / "all_test.txt").write_text("\n".join([URLS[0], "http://x", URLS[2]]))
    [issue] = _issues(release)
    assert (issue.location.file, issue.location.line) == ("output/noise.txt", 2)
    assert "not the SHA1 of its URL" in issue.message


def test_category_disagreement(release):
    fams = _fams()
    fams["noise"], fams["high_abs"] = {2}, {1}
    (release / "data" / "FAMs.pkl").write_bytes(pickle.dumps(fams, protocol=3))
    issues = _issues(release)
    assert {i.location.file for i in issues} == {"output/noise.txt", "output/high_abstraction.txt"}


def test_fam_index_outside_the_split_is_an_error(release):
    fams = _fams()
    fams["low_abs"][0][1] = [{7}, {1}]
    (release / "data" / "FAMs.pkl").write_bytes(pickle.dumps(fams, protocol=3))
    messages = [i.message for i in _issues(release)]
    assert any("support sentence 7 is outside" in m for m in messages)


def test_output_index_outside_the_split_is_kept_and_refused_by_the_validator(release):
    labels = _labels()["unified"]
    labels[0] = [0, 9]
    (release / "data" / "idx2labels_unified.pkl").write_bytes(pickle.dumps(labels, protocol=3))
    bundle = parse_far_release(release)
    [output] = [
        o for o in bundle.outputs if o.system_slug == "unifiedsum-e" and o.document_id == IDS[0]
    ]
    assert output.extracted == (0, 9)
    with pytest.raises(ImportValidationError) as caught:
        validate_bundle(bundle)
    assert [str(i) for i in caught.value.issues] == [
        f"data/idx2labels_unified.pkl [extracted]: index 9 is out of range for document "
        f"{IDS[0]!r}, which has 3 sentences (valid: 0..2)"
    ]
    [doc] = [d for d in bundle.documents if d.meta["sample_idx"] == 0]
    assert doc.meta["split_agrees"] is False
    assert doc.meta["split_mismatches"] == [9]


def test_malicious_fams_pickle_is_refused_before_running(release, tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (release / "data" / "FAMs.pkl").write_bytes(pickle.dumps({"low_abs": Evil()}))
    issues = _issues(release)
    assert any(
        i.location.file == "data/FAMs.pkl"
        and i.message == f"{os.system.__module__}.system is not allowed"
        for i in issues
    )
    assert not marker.exists()


@needs_far
def test_real_dump_copy_with_a_broken_line(tmp_path):
    root = tmp_path / "far"
    (root / "output").mkdir(parents=True)
    (root / "data").symlink_to(FAR / "data")
    for name in DUMPS[:2]:
        (root / "output" / name).symlink_to(FAR / "output" / name)
    path = root / "output" / "high_abstraction.txt"
    lines = (FAR / "output" / DUMPS[2]).read_text(encoding="utf-8").split("\n")
    assert lines[6].startswith("Facet-0: ")
    lines[6] = "Facet-zero: college-bound basketball star"
    path.write_text("\n".join(lines), encoding="utf-8")
    issues = _issues(root)
    assert (issues[0].location.file, issues[0].location.line) == ("output/high_abstraction.txt", 7)
