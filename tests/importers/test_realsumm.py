"""The REALSumm release: parsing, the import on the database, its quirks, and hostile files.

Expected figures come from the release's own files, read here without the importer: the pickles
with the standard unpickler (the real, read-only files in ../shared only; the importer itself
never uses it), the text files with plain string handling.
"""

from __future__ import annotations

import itertools
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.importers.parsers.realsumm import (
    MAX_ISSUES_PER_FILE,
    MAX_PICKLE_BYTES,
    RELEASED_KEYS,
    STUDY,
    SYSTEMS,
    parse_realsumm_release,
    tagged_sentences,
)
from annotation.corpus.models import Dataset, Document, Reference
from annotation.imports.bundle import ImportValidationError
from annotation.systems.models import System, SystemOutput
from scoring.judgments.models import HumanJudgment, ReleasedScore

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "realsumm"
ABS, EXT = "scores_dicts/abs.pkl", "scores_dicts/ext.pkl"
OUTPUTS = "selected_docs_for_human_eval"


def needs_release(test):
    """Mark a test as needing the REALSumm release in ../shared (skipped if absent)."""
    skip = pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is absent (shared data)")
    return pytest.mark.shared(skip(test))


def _released(name: str) -> dict:
    """A real pickle read with the standard unpickler (only ever on the shared, trusted file)."""
    with (SHARED / name).open("rb") as handle:
        return pickle.load(handle)  # noqa: S301 - the release's own file, for expected values


def _selected() -> list[int]:
    text = (SHARED / OUTPUTS / "selected_documents.md").read_text()
    return [int(n) for n in re.search(r"\[([\d,\s]+)\]", text).group(1).split(",")]


def _release_with(tmp_path: Path, replaced: dict[str, bytes]) -> Path:
    """A release folder whose files link to the real ones, but for ``replaced`` (path -> bytes)."""
    root = tmp_path / "realsumm"
    for path in SHARED.rglob("*"):
        if path.is_file():
            name = str(path.relative_to(SHARED))
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            if name in replaced:
                (root / name).write_bytes(replaced[name])
            else:
                (root / name).symlink_to(path)
    return root


def _nothing_written() -> bool:
    return not (
        Dataset.objects.exists()
        or System.objects.exists()
        or SystemOutput.objects.exists()
        or HumanJudgment.objects.exists()
        or ReleasedScore.objects.exists()
    )


# =============================================================================================
# Sentences
# =============================================================================================


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("<t> a b . </t> <t> c . </t>", ("a b .", "c .")),
        ("<t> <t> a . </t> <t> b . </t> </t>", ("a .", "b .")),  # abs/bart/out.txt's nesting
        ("<t> a . </t> <t> cut mid", ("a .", "cut mid")),  # bottom-up, cut before its </t>
        ("  no   tags at all ", ("no tags at all",)),
        ("<t> </t>  <t>\t</t>", ()),
    ],
)
def test_sentences_are_the_text_between_tags(text, sentences):
    assert tagged_sentences(text) == sentences


# =============================================================================================
# The real release, parsed
# =============================================================================================


@needs_release
def test_real_release_parses_with_its_quirks_reported():
    abs_pkl, ext_pkl = _released(ABS), _released(EXT)
    bundle = parse_realsumm_release(SHARED)
    assert len(bundle.documents) == 100
    kinds = [s.kind for s in bundle.systems]
    assert (kinds.count("abstractive"), kinds.count("extractive")) == (14, 11)
    assert len(bundle.outputs) == 2500
    # The release's abstractive BART entry is ext.pkl's, byte for byte: checked here directly.
    assert all(
        abs_pkl[d]["system_summaries"]["bart_out.txt"]
        == ext_pkl[d]["system_summaries"]["bart_out.txt"]
        for d in range(100)
    )
    [study] = bundle.judgment_studies
    assert study.name == STUDY and len(study.judgments) == 2400
    judged = {j.system_slug for j in study.judgments}
    assert len(judged) == 24 and "realsumm-bart-abs" not in judged
    [released] = bundle.released_scores
    assert len(released.scores) == 2400
    assert {r.system_slug for r in released.scores} == judged

    # Document d is the d-th line number of selected_documents.md; the reference is ref_summ.
    lines = _selected()
    for d, document in enumerate(bundle.documents):
        assert document.external_id == f"cnndm{lines[d]}"
        assert document.sentences == () and document.meta["text_missing"] is True
        sentences = re.findall(r"<t>(.*?)</t>", abs_pkl[d]["ref_summ"])
        assert document.references[0].sentences == tuple(" ".join(s.split()) for s in sentences)

    # Every judged output's value is the pickle's, and so are its 14 released scores.
    slug = {(s.kind, s.key): s.slug for s in SYSTEMS}
    expected_human, expected_released = {}, {}
    for kind, data in (("abstractive", abs_pkl), ("extractive", ext_pkl)):
        for d in range(100):
            for key, entry in data[d]["system_summaries"].items():
                if (kind, key) == ("abstractive", "bart_out.txt"):
                    continue
                where = (slug[(kind, key)], f"cnndm{lines[d]}")
                expected_human[where] = float(entry["scores"]["litepyramid_recall"])
                expected_released[where] = {k: float(entry["scores"][k]) for k in RELEASED_KEYS}
    assert {(j.system_slug, j.document_id): j.value for j in study.judgments} == expected_human
    assert {(r.system_slug, r.document_id): r.scores for r in released.scores} == expected_released

    # The abstractive BART outputs are abs/bart/out.txt's, one line per document.
    bart = (SHARED / OUTPUTS / "abs/bart/out.txt").read_text().split("\n")
    outputs = {
        o.document_id: o.sentences for o in bundle.outputs if o.system_slug == "realsumm-bart-abs"
    }
    assert len(outputs) == 100
    for d, line in enumerate(bart):
        inner = re.findall(r"<t>([^<]*)</t>", line)
        assert outputs[f"cnndm{lines[d]}"] == tuple(" ".join(s.split()) for s in inner)

    report = "\n".join(str(line) for line in bundle.report)
    assert "bart_out.txt is a copy of scores_dicts/ext.pkl's bart_out.txt" in report
    assert "BART (extractive) is counted once" in report
    assert "100 of 100 lines wrap the summary in a second <t>" in report
    assert "on all 100 documents for 24 of 24 systems" in report
    assert "4 Bottom-Up summaries end without their last </t>" in report
    assert "NeuSum is extractive in the release's README and in ext.pkl" in report
    assert "10 output files are in no pickle" in report

    # Identical summaries of one document by two systems, counted here from the pickles.
    entries = {
        (kind, key): {d: data[d]["system_summaries"][key] for d in range(100)}
        for kind, data in (("abs", abs_pkl), ("ext", ext_pkl))
        for key in data[0]["system_summaries"]
        if (kind, key) != ("abs", "bart_out.txt")
    }
    same = differ = 0
    for left, right in itertools.combinations(entries.values(), 2):
        for d in range(100):
            if left[d]["system_summary"] == right[d]["system_summary"]:
                same += 1
                a, b = left[d]["scores"], right[d]["scores"]
                differ += a["litepyramid_recall"] != b["litepyramid_recall"]
    assert f"{same} times two systems have the same summary of a document" in report
    assert f"their LitePyramid recall differs on {differ} of them" in report
    assert (same, differ) == (156, 83)


# =============================================================================================
# The real release, imported
# =============================================================================================


@needs_release
@pytest.mark.django_db
def test_real_release_import_writes_everything_once(capsys, django_capture_on_commit_callbacks):
    args = ("import_dataset", str(SHARED), "--format", "realsumm", "--slug", "realsumm")
    with django_capture_on_commit_callbacks(execute=False):  # no worker: scoring is not run
        call_command(*args)
    out = capsys.readouterr().out
    assert (
        "Imported dataset 'realsumm': 100 documents, 100 references, 2500 system outputs, "
        "0 FAMs in 0 annotation set(s); 2400 human judgments and the release's own scores of "
        "2400 outputs."
    ) in out
    assert "Report (8 line(s))" in out
    dataset = Dataset.objects.get(slug="realsumm")
    assert dataset.license == "CC BY 4.0"
    documents = Document.objects.filter(dataset=dataset)
    assert documents.count() == documents.filter(sentences=[], meta__text_missing=True).count()
    assert documents.count() == 100
    assert Reference.objects.filter(document__dataset=dataset).count() == 100
    kinds = dict(System.objects.filter(slug__startswith="realsumm-").values_list("slug", "kind"))
    assert kinds == {s.slug: s.kind for s in SYSTEMS}
    outputs = SystemOutput.objects.filter(document__dataset=dataset)
    assert outputs.count() == 2500
    # No document text, so no extractive output points at sentences.
    assert outputs.filter(system__kind="extractive").count() == 1100
    assert not outputs.exclude(extracted=None).exists()

    abs_pkl, ext_pkl = _released(ABS), _released(EXT)
    lines = _selected()
    values = {
        (system, external): value
        for system, external, value in HumanJudgment.objects.filter(
            dataset=dataset, name=STUDY
        ).values_list("system__slug", "document__external_id", "value")
    }
    assert len(values) == 2400
    for d in range(100):
        for key, entry in ext_pkl[d]["system_summaries"].items():
            system = next(s.slug for s in SYSTEMS if s.kind == "extractive" and s.key == key)
            assert values[(system, f"cnndm{lines[d]}")] == entry["scores"]["litepyramid_recall"]
        semsim = abs_pkl[d]["system_summaries"]["semsim_out.txt"]["scores"]
        assert values[("realsumm-semsim", f"cnndm{lines[d]}")] == semsim["litepyramid_recall"]
    assert not HumanJudgment.objects.filter(system__slug="realsumm-bart-abs").exists()
    released = ReleasedScore.objects.filter(dataset=dataset, release="realsumm")
    assert released.count() == 2400
    row = released.get(system__slug="realsumm-t5-11b", document__external_id=f"cnndm{lines[7]}")
    expected = abs_pkl[7]["system_summaries"]["t5_out_11B.txt"]["scores"]
    assert row.scores == {k: float(expected[k]) for k in RELEASED_KEYS}

    # A second import of the slug is refused and writes nothing more.
    with pytest.raises(CommandError, match="'realsumm' already exists .100 documents."):
        call_command(*args)
    assert HumanJudgment.objects.count() == 2400 and ReleasedScore.objects.count() == 2400


# =============================================================================================
# Hostile and broken files: refused with a clear message, nothing written
# =============================================================================================


class _System:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _deep(levels: int) -> bytes:
    """A protocol-3 pickle of lists nested ``levels`` deep (built from opcodes, no recursion)."""
    return b"\x80\x03" + b"]" * levels + b"a" * (levels - 1) + b"."


def _real_with(change) -> bytes:
    """abs.pkl with ``change(data)`` applied, pickled again by the test."""
    data = _released(ABS)
    change(data)
    return pickle.dumps(data, protocol=3)


def _set_score(data, value):
    data[3]["system_summaries"]["semsim_out.txt"]["scores"]["litepyramid_recall"] = value


HOSTILE = {
    "os.system": (
        lambda marker: pickle.dumps({0: _System(marker)}, protocol=3),
        [f"{ABS}: {os.system.__module__}.system is not allowed"],
    ),
    "builtins.list (the FAR pickles' global, not REALSumm's)": (
        lambda marker: b"\x80\x03cbuiltins\nlist\n)R.",
        [f"{ABS}: builtins.list is not allowed"],
    ),
    "numpy object dtype": (
        lambda marker: pickle.dumps(np.dtype(object), protocol=3),
        [f"{ABS}: not a readable pickle: UnpicklingError: numpy.dtype '|O' is not allowed"],
    ),
    "numpy integer scalar": (
        lambda marker: pickle.dumps({0: np.int64(3)}, protocol=3),
        ["numpy.dtype '<i8' is not allowed (floats only)"],
    ),
    "truncated": (
        lambda marker: (SHARED / ABS).read_bytes()[:500_000],
        [f"{ABS}: not a readable pickle: UnpicklingError: pickle data was truncated"],
    ),
    "not a pickle": (lambda marker: b"<html>not found</html>", [f"{ABS}: not a readable pickle"]),
    "a list of documents": (
        lambda marker: pickle.dumps([1, 2, 3], protocol=3),
        [f"{ABS}: expected a dict of documents, got a list"],
    ),
    "nested 100,000 lists deep": (
        lambda marker: _deep(100_000),
        [f"{ABS}: expected a dict of documents, got a list"],
    ),
    "99 documents": (
        lambda marker: _real_with(lambda data: data.pop(42)),
        [f"{ABS}: expected the document ids 0..99, found 99 keys"],
    ),
    "an unknown system": (
        lambda marker: _real_with(
            lambda data: data[5]["system_summaries"].update(evil_out={"x": 1})
        ),
        [f"{ABS} [[5]['system_summaries']]: the systems: unexpected ['evil_out']"],
    ),
    "a LitePyramid recall above 1": (
        lambda marker: _real_with(lambda data: _set_score(data, 1.5)),
        ["litepyramid_recall is 1.5, outside [0, 1]"],
    ),
    "a NaN score": (
        lambda marker: _real_with(lambda data: _set_score(data, float("nan"))),
        ["litepyramid_recall is nan, not a finite number"],
    ),
    "a text score": (
        lambda marker: _real_with(lambda data: _set_score(data, "0.4")),
        ["litepyramid_recall is '0.4', not a number"],
    ),
    "a missing reference": (
        lambda marker: _real_with(lambda data: data[9].pop("ref_summ")),
        [f"{ABS} [[9]]: the document: missing ['ref_summ']"],
    ),
}


@needs_release
@pytest.mark.django_db
@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_or_broken_pickle_is_refused_and_nothing_is_written(tmp_path, case):
    make, messages = HOSTILE[case]
    marker = tmp_path / "pwned"
    root = _release_with(tmp_path, {ABS: make(marker)})
    with pytest.raises(CommandError) as caught:
        call_command("import_dataset", str(root), "--format", "realsumm", "--slug", "evil")
    text = str(caught.value)
    assert text.startswith("Import refused:") and "nothing was written" in text
    for message in messages:
        assert message in text
    assert not marker.exists()
    assert _nothing_written()


BART_TEXT = f"{OUTPUTS}/abs/bart/out.txt"


@needs_release
@pytest.mark.django_db
@pytest.mark.parametrize(
    "name, data, message",
    [
        (BART_TEXT, b"<t> a . </t>\n" * 99, f"{BART_TEXT}: 99 lines; expected one per document"),
        (BART_TEXT, b"<t> \xff </t>\n" * 100, f"{BART_TEXT}:1: not valid UTF-8"),
        (BART_TEXT, b"<t> a . </t>\n" * 49 + b"<t> </t>\n" + b"<t> a . </t>\n" * 50,
         f"{BART_TEXT}:50: an empty summary"),
        (f"{OUTPUTS}/selected_documents.md", b"[1, 2, 3]",
         "expected 100 distinct line numbers, found 3 (3 distinct)"),
    ],
)  # fmt: skip
def test_a_broken_text_file_is_refused_and_nothing_is_written(tmp_path, name, data, message):
    root = _release_with(tmp_path, {name: data})
    with pytest.raises(CommandError) as caught:
        call_command("import_dataset", str(root), "--format", "realsumm", "--slug", "broken")
    assert message in str(caught.value)
    assert _nothing_written()


@needs_release
def test_a_file_larger_than_the_release_could_be_is_not_read(tmp_path):
    root = _release_with(tmp_path, {ABS: b""})
    with (root / ABS).open("r+b") as handle:
        handle.truncate(MAX_PICKLE_BYTES + 1)  # sparse: nothing is written to disk
    with pytest.raises(ImportValidationError) as caught:
        parse_realsumm_release(root)
    [issue] = caught.value.issues
    assert issue.location.file == ABS
    assert f"has {MAX_PICKLE_BYTES + 1:,} bytes" in issue.message and "not read" in issue.message


@needs_release
def test_a_file_wrong_everywhere_lists_a_bounded_number_of_problems(tmp_path):
    def wreck(data):
        for d in range(100):
            data[d]["doc_id"] = -1

    root = _release_with(tmp_path, {ABS: _real_with(wreck)})
    with pytest.raises(ImportValidationError) as caught:
        parse_realsumm_release(root)
    issues = caught.value.issues
    assert len(issues) == MAX_ISSUES_PER_FILE + 1
    assert issues[0].message == "doc_id is -1, not its key 0"
    assert (
        issues[-1].message == f"and {100 - MAX_ISSUES_PER_FILE} more problem(s) of the same kinds"
    )


@needs_release
def test_missing_files_are_named(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    with pytest.raises(ImportValidationError) as caught:
        parse_realsumm_release(root)
    files = {issue.location.file for issue in caught.value.issues}
    assert files == {f"{OUTPUTS}/selected_documents.md", ABS, EXT}
    with pytest.raises(ImportValidationError, match="release folder not found"):
        parse_realsumm_release(tmp_path / "absent")


# =============================================================================================
# The kernel's checks of judgments and released scores, on a tiny bundle
# =============================================================================================


def _tiny_bundle(**changes):
    from annotation.imports.bundle import (
        DatasetRecord,
        DocumentRecord,
        ImportBundle,
        JudgmentRecord,
        JudgmentStudyRecord,
        OutputRecord,
        ReferenceRecord,
        ReleasedScoreRecord,
        ReleasedScoresRecord,
        SystemRecord,
    )

    meta = {"text_missing": True}
    bundle = ImportBundle(
        dataset=DatasetRecord("tiny", "Tiny"),
        documents=[
            DocumentRecord(d, (), (ReferenceRecord(("a reference .",)),), meta=dict(meta))
            for d in ("d1", "d2")
        ],
        systems=[
            SystemRecord("ext", "Ext", "extractive"),
            SystemRecord("abs", "Abs", "abstractive"),
        ],
        outputs=[
            OutputRecord(s, d, ("a summary .",)) for s in ("ext", "abs") for d in ("d1", "d2")
        ],
        judgment_studies=[
            JudgmentStudyRecord(
                "lp", judgments=tuple(JudgmentRecord("ext", d, 0.5) for d in ("d1", "d2"))
            )
        ],
        released_scores=[
            ReleasedScoresRecord("rel", (ReleasedScoreRecord("abs", "d1", {"js-2": -0.6}),))
        ],
    )
    for name, value in changes.items():
        setattr(bundle, name, value)
    return bundle


def test_judgments_and_released_scores_are_checked_against_the_bundle():
    from annotation.imports.bundle import (
        JudgmentRecord,
        JudgmentStudyRecord,
        ReleasedScoreRecord,
        ReleasedScoresRecord,
    )
    from annotation.imports.validators import validate_bundle

    validate_bundle(_tiny_bundle())  # extractive outputs of documents without text: no indices
    studies = [
        JudgmentStudyRecord(
            "lp",
            judgments=(
                JudgmentRecord("ext", "d1", 0.5),
                JudgmentRecord("ext", "d1", 0.7),
                JudgmentRecord("ext", "d9", 0.5),
                JudgmentRecord("ext", "d2", float("nan")),
            ),
        ),
        JudgmentStudyRecord("lp", kind="stars"),
        JudgmentStudyRecord("bad name!", kind="rank", judgments=(JudgmentRecord("abs", "d1", 0),)),
    ]
    released = [ReleasedScoresRecord("rel", (ReleasedScoreRecord("abs", "d2", {"": True}),))]
    with pytest.raises(ImportValidationError) as caught:
        validate_bundle(_tiny_bundle(judgment_studies=studies, released_scores=released))
    messages = [str(issue) for issue in caught.value.issues]
    expected = [
        "study lp [name]: name given twice",
        "'bad name!' is not a valid slug",
        "study lp: a second value for this output",
        "study lp: no output of system 'ext' for document 'd9' in this import",
        "study lp: nan is not a finite number",
        "study lp [kind]: kind must be one of ('score', 'rank')",
        "study lp: the study has no judgment",
        "study bad name!: a rank must be positive, got 0",
        "released scores rel, : the key '' is not 1-64 characters",
    ]
    for message in expected:
        assert any(message in m for m in messages), (message, messages)


@pytest.mark.django_db
def test_a_study_name_the_dataset_has_is_refused_and_nothing_more_is_written():
    from annotation.corpus.services import bundle_import

    bundle_import(bundle=_tiny_bundle(), slug="tiny")
    dataset = Dataset.objects.get(slug="tiny")
    assert HumanJudgment.objects.filter(dataset=dataset, name="lp").count() == 2
    assert ReleasedScore.objects.get(dataset=dataset).scores == {"js-2": -0.6}
    again = _tiny_bundle(documents=[])
    with pytest.raises(ImportValidationError) as caught:
        bundle_import(bundle=again, slug="tiny", dataset=dataset)
    assert {str(i) for i in caught.value.issues} == {
        "released scores rel [name]: the dataset has this name already",
        "study lp [name]: the dataset has this name already",
    }
    assert HumanJudgment.objects.count() == 2 and ReleasedScore.objects.count() == 1
    assert SystemOutput.objects.count() == 4  # no second version was written


# =============================================================================================
# The admins' upload: the release packed as a zip
# =============================================================================================


def _zipped_release(replaced: dict[str, bytes] | None = None):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(SHARED.rglob("*")):
            if path.is_file():
                name = str(path.relative_to(SHARED))
                data = (replaced or {}).get(name, path.read_bytes())
                archive.writestr(f"realsumm/{name}", data)
    buffer.seek(0)
    buffer.name = "realsumm.zip"
    return buffer


@needs_release
@pytest.mark.django_db
def test_the_release_uploaded_as_a_zip_imports_and_a_hostile_one_is_refused(client_for, tmp_path):
    admin = client_for("admin")
    marker = tmp_path / "pwned"
    evil = pickle.dumps({0: _System(marker)}, protocol=3)
    refused = admin.post(
        "/api/datasets/import/",
        {"file": _zipped_release({ABS: evil}), "slug": "realsumm-up", "format": "realsumm"},
        format="multipart",
    )
    assert refused.status_code == 400, refused.content
    [issue] = refused.json()["extra"]["issues"]
    assert (issue["file"], issue["message"]) == (
        ABS,
        f"{os.system.__module__}.system is not allowed",
    )
    assert not marker.exists() and _nothing_written()
    made = admin.post(
        "/api/datasets/import/",
        {"file": _zipped_release(), "slug": "realsumm-up", "format": "realsumm"},
        format="multipart",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["documents"], body["outputs"], body["judgments"], body["released_scores"]) == (
        100,
        2500,
        2400,
        2400,
    )
    assert HumanJudgment.objects.filter(uploaded_by__username="t-admin").count() == 2400
