"""The XSum hallucination parser: the offset convention by hand, a tiny release, the real one."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from annotation.corpus.importers.parsers.xsum import (
    HALLUCINATIONS_FILE,
    matching_conventions,
    parse_xsum_release,
    place_span,
    unescape,
)
from annotation.imports.bundle import ImportValidationError, Location

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "xsum-hallucinations"
HEADER = [
    "bbcid",
    "system",
    "summary",
    "hallucination_type",
    "hallucinated_span",
    "hallucinated_span_start",
    "hallucinated_span_end",
    "worker_id",
]


def needs_release(test):
    """Mark a test as needing the XSum release in ../shared (skipped if absent)."""
    skip = pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is absent (shared data)")
    return pytest.mark.shared(skip(test))


# =============================================================================================
# The offset convention, by hand
# =============================================================================================


def test_offsets_are_one_based_with_an_exclusive_end():
    # "\n" + "the cat sat": "cat" is [5, 8) there, [4, 7) in the summary.
    placed = place_span("the cat sat", "cat", 5, 8)
    assert (placed.kind, placed.start, placed.end, placed.words) == ("placed", 4, 7, "cat")
    assert place_span("the cat sat", "the", 1, 4).start == 0
    assert place_span("the cat sat", "sat", 9, 12).end == 11


def test_a_span_from_the_tools_line_break_is_clipped_to_the_summary():
    placed = place_span("the cat sat", "\nthe cat", 0, 8)
    assert (placed.kind, placed.start, placed.end, placed.words) == ("clipped", 0, 7, "the cat")


def test_offsets_that_do_not_give_the_span_leave_only_the_words():
    # The release's 13 such rows start at 0 and end with a line break after the words.
    placed = place_span("the cat sat", "cat sat\n", 0, 8)
    assert (placed.kind, placed.start, placed.end, placed.words) == (
        "unplaced",
        None,
        None,
        "cat sat",
    )
    assert place_span("the cat sat", "dog", 5, 8).kind == "unplaced"
    assert place_span("the cat sat", "cat", 5, 99).kind == "unplaced"
    assert place_span("", "cat", 1, 4).kind == "unplaced"


def test_conventions_named_for_the_report():
    assert matching_conventions("the cat sat", "cat", 5, 8) == (
        "1-based, end exclusive into the summary",
        "0-based, end exclusive into line break + summary",
    )
    assert matching_conventions("the cat sat", "cat", 4, 7) == (
        "0-based, end exclusive into the summary",
    )
    assert "0-based, end inclusive into the summary" in matching_conventions(
        "the cat sat", "cat", 4, 6
    )
    assert matching_conventions("the cat sat", "cat sat\n", 0, 8) == ()


def test_unescape_reads_the_releases_apostrophe_and_line_break():
    assert unescape("bahrain\\'s main party") == "bahrain's main party"
    assert unescape("\\nfernando") == "\nfernando"
    assert unescape("plain") == "plain"


def test_the_parser_loads_without_django():
    code = (
        "import importlib, json, sys\n"
        "importlib.import_module('annotation.corpus.importers.parsers.xsum')\n"
        "importlib.import_module('annotation.corpus.importers.span_sets')\n"
        "print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in "
        "('django', 'rest_framework', 'celery'))))"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


# =============================================================================================
# A tiny hand-made release
# =============================================================================================

SUMMARY_1 = "britain\\'s andy murray beat fabio fognini."  # the cell as the release writes it
GOLD_1 = "andy murray won."
SUMMARY_2 = "all images are copyrighted."


def _row(bbcid, system, summary, type_, span, start, end, worker):
    return [bbcid, system, summary, type_, span, str(start), str(end), worker]


def _tiny_rows():
    rows = []
    for worker in ("wid_0", "wid_1", "wid_2"):
        rows.append(_row("101", "Gold", GOLD_1, "NULL", "NULL", -1, -1, worker))
    rows += [
        # "fabio" is [27, 32) of the unescaped summary: the release says [28, 33).
        _row("101", "BERTS2S", SUMMARY_1, "extrinsic", "fabio", 28, 33, "wid_0"),
        _row("101", "BERTS2S", SUMMARY_1, "extrinsic", "fabio", 28, 33, "wid_0"),  # repeat
        _row("101", "BERTS2S", SUMMARY_1, "intrinsic", "britain\\'s", 1, 10, "wid_0"),
        _row("101", "BERTS2S", SUMMARY_1, "NULL", "NULL", -1, -1, "wid_1"),
        _row("101", "BERTS2S", SUMMARY_1, "NULL", "murray", -1, -1, "wid_2"),  # typeless
        _row("101", "PtGen", "murray lost.", "extrinsic", "lost\\n", 0, 5, "wid_0"),  # unplaced
        _row("101", "PtGen", "murray lost.", "extrinsic", "\\nmurray", 0, 7, "wid_1"),  # clipped
        # wid_2 has no row for PtGen on 101
        _row("102", "Gold", "a picture.", "extrinsic", "picture", 3, 10, "wid_0"),
        _row("102", "Gold", "a picture.", "NULL", "NULL", -1, -1, "wid_1"),
        _row("102", "Gold", "a picture.", "NULL", "NULL", -1, -1, "wid_2"),
        _row("102", "TConvS2S", SUMMARY_2, "extrinsic", SUMMARY_2[:-1], 1, 27, "wid_0"),
        _row("102", "TConvS2S", SUMMARY_2, "NULL", "NULL", -1, -1, "wid_0"),  # beside spans
        _row("102", "TConvS2S", SUMMARY_2, "NULL", "NULL", -1, -1, "wid_1"),
        _row("102", "TConvS2S", SUMMARY_2, "NULL", "NULL", -1, -1, "wid_2"),
    ]
    return rows


def write_release(folder: Path, rows, header=HEADER) -> Path:
    folder.mkdir(exist_ok=True)
    with (folder / HALLUCINATIONS_FILE).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return folder


@pytest.fixture
def tiny(tmp_path):
    return parse_xsum_release(write_release(tmp_path / "tiny", _tiny_rows()), expected_documents=2)


def _annotation(bundle, worker, system, bbcid):
    (span_set,) = [s for s in bundle.span_sets if s.slug == f"xsum-{worker}"]
    found = [a for a in span_set.annotations if (a.system_slug, a.document_id) == (system, bbcid)]
    return found[0] if found else None


def test_tiny_documents_have_no_text_and_the_gold_summary_as_reference(tiny):
    assert [d.external_id for d in tiny.documents] == ["101", "102"]
    first = tiny.documents[0]
    assert first.sentences == ()
    assert first.meta["text_missing"] is True
    (reference,) = first.references
    assert reference.sentences == (GOLD_1,)
    assert reference.label == "Gold"
    assert reference.location == Location(HALLUCINATIONS_FILE, 2)


def test_tiny_gold_spans_are_kept_in_the_documents_meta(tiny):
    kept = tiny.documents[1].meta["reference_hallucinations"]
    assert kept["wid_0"] == {
        "errors": [
            {
                "side": "summary",
                "start": 2,
                "end": 9,
                "words": "picture",
                "type": "extrinsic",
                "label": "",
                "severity": "",
                "reason": "",
            }
        ],
        "no_errors": False,
    }
    assert kept["wid_1"] == kept["wid_2"] == {"errors": [], "no_errors": True}
    assert tiny.documents[0].meta["reference_hallucinations"]["wid_0"]["no_errors"] is True


def test_tiny_outputs_are_one_unescaped_sentence(tiny):
    outputs = {(o.system_slug, o.document_id): o for o in tiny.outputs}
    assert set(outputs) == {("berts2s", "101"), ("ptgen", "101"), ("tconvs2s", "102")}
    assert outputs[("berts2s", "101")].sentences == ("britain's andy murray beat fabio fognini.",)
    assert outputs[("berts2s", "101")].extracted is None
    assert {s.slug for s in tiny.systems} == {"berts2s", "trans2s", "ptgen", "tconvs2s"}


def test_tiny_worker_sets(tiny):
    assert [s.slug for s in tiny.span_sets] == ["xsum-wid_0", "xsum-wid_1", "xsum-wid_2"]
    assert {(s.scheme, s.kind, s.read_only) for s in tiny.span_sets} == {
        ("xsum-hallucinations", "human", True)
    }
    murray = _annotation(tiny, "wid_0", "berts2s", "101")
    assert [(e["start"], e["end"], e["words"], e["type"]) for e in murray.errors] == [
        (27, 32, "fabio", "extrinsic"),  # the repeat is kept once
        (0, 9, "britain's", "intrinsic"),
    ]
    assert murray.location == Location(HALLUCINATIONS_FILE, 5, "hallucinated_span")
    clean = _annotation(tiny, "wid_1", "berts2s", "101")
    assert (clean.errors, clean.no_errors) == ((), True)
    # wid_2 marked a word without a type: nothing storable, so no judgement at all.
    assert _annotation(tiny, "wid_2", "berts2s", "101") is None


def test_tiny_unplaced_clipped_and_missing(tiny):
    unplaced = _annotation(tiny, "wid_0", "ptgen", "101").errors
    assert [(e["side"], e["start"], e["end"], e["words"]) for e in unplaced] == [
        ("none", None, None, "lost")
    ]
    clipped = _annotation(tiny, "wid_1", "ptgen", "101").errors
    assert [(e["side"], e["start"], e["end"], e["words"]) for e in clipped] == [
        ("summary", 0, 6, "murray")
    ]
    assert _annotation(tiny, "wid_2", "ptgen", "101") is None
    beside = _annotation(tiny, "wid_0", "tconvs2s", "102")
    assert beside.no_errors is False
    assert [e["words"] for e in beside.errors] == ["all images are copyrighted"]


def test_tiny_report_counts_and_lines(tiny):
    first, *lines = [str(line) for line in tiny.report]
    assert "offsets checked on all 7 span rows: 6 give their span" in first
    assert "1 of them clipped" in first
    assert "1 match no convention" in first
    assert "1 repeated row kept once, 1 row typed NULL but with words not stored" in first
    assert "1 no-span row beside the same worker's spans ignored, 1 missing worker row," in first
    assert "3 summaries write ' as \\'" not in first and "1 summary writes ' as \\'" in first
    assert lines == [
        f"{HALLUCINATIONS_FILE}:6 [hallucinated_span]: BERTS2S summary of 101, wid_0: repeats "
        "an earlier row; kept once",
        f"{HALLUCINATIONS_FILE}:9 [hallucination_type]: BERTS2S summary of 101, wid_2: type NULL "
        "with the words 'murray' and offsets [-1, -1): no type, so not stored; this worker's "
        "judgement of the summary is left out",
        f"{HALLUCINATIONS_FILE}:10 [hallucinated_span_start]: PtGen summary of 101, wid_0: "
        "offsets [0, 5) do not give the span 'lost\\n' under the release's convention nor any "
        "other; kept as an extrinsic error with its words and no position",
        f"{HALLUCINATIONS_FILE}:10 [worker_id]: PtGen summary of 101: no row of wid_2",
        f"{HALLUCINATIONS_FILE}:16 [hallucination_type]: TConvS2S summary of 102, wid_0: a "
        "no-span row beside this worker's spans; the spans are kept",
    ]


# =============================================================================================
# Bad releases: every problem named, nothing parsed
# =============================================================================================


def _refused(folder: Path, **kwargs) -> list[str]:
    with pytest.raises(ImportValidationError) as caught:
        parse_xsum_release(folder, **kwargs)
    return [str(issue) for issue in caught.value.issues]


def test_refuses_a_missing_folder_or_file(tmp_path):
    assert _refused(tmp_path / "nowhere") == [f"{tmp_path / 'nowhere'} [folder]: not a folder"]
    (tmp_path / "empty").mkdir()
    assert _refused(tmp_path / "empty") == [f"{HALLUCINATIONS_FILE}: file not found"]


def test_refuses_a_missing_column(tmp_path):
    folder = write_release(tmp_path / "r", [], header=HEADER[:-1])
    assert _refused(folder) == [f"{HALLUCINATIONS_FILE}:1: missing column(s): worker_id"]


def test_refuses_bad_cells_with_line_and_column(tmp_path):
    rows = _tiny_rows()
    rows[3] = _row("10x", "BART", SUMMARY_1, "made-up", "fabio", "a", 34, "wid_9")
    rows[4][2] = "   "
    assert _refused(write_release(tmp_path / "r", rows), expected_documents=2) == [
        f"{HALLUCINATIONS_FILE}:5 [bbcid]: not a BBC id: '10x'",
        f"{HALLUCINATIONS_FILE}:5 [system]: 'BART' is not one of PtGen, TConvS2S, TranS2S, "
        "BERTS2S, Gold",
        f"{HALLUCINATIONS_FILE}:5 [worker_id]: 'wid_9' is not one of ('wid_0', 'wid_1', 'wid_2')",
        f"{HALLUCINATIONS_FILE}:5 [hallucination_type]: 'made-up' is not one of intrinsic, "
        "extrinsic or NULL",
        f"{HALLUCINATIONS_FILE}:5 [hallucinated_span_start]: not a whole number: 'a'",
        f"{HALLUCINATIONS_FILE}:6 [summary]: empty summary",
    ]


def test_refuses_a_summary_that_changes_between_rows(tmp_path):
    rows = _tiny_rows()
    rows[4][2] = "another summary."
    assert _refused(write_release(tmp_path / "r", rows), expected_documents=2) == [
        f"{HALLUCINATIONS_FILE}:6 [summary]: the BERTS2S summary of 101 differs from line 5"
    ]


def test_refuses_a_document_without_gold_and_a_wrong_count(tmp_path):
    rows = [row for row in _tiny_rows() if not (row[0] == "102" and row[1] == "Gold")]
    assert _refused(write_release(tmp_path / "r", rows), expected_documents=3) == [
        f"{HALLUCINATIONS_FILE} [system]: 102 has no Gold row",
        f"{HALLUCINATIONS_FILE} [bbcid]: 2 documents, expected 3",
    ]


def test_refuses_a_file_that_is_not_utf8(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / HALLUCINATIONS_FILE).write_bytes(b",".join(h.encode() for h in HEADER) + b"\n\xff\n")
    assert _refused(folder) == [
        f"{HALLUCINATIONS_FILE}:2: not valid UTF-8 (byte 0 of the line); save the file as UTF-8"
    ]


# =============================================================================================
# The real release (facts checked by hand on the CSV with a separate script)
# =============================================================================================


@pytest.fixture(scope="module")
def release():
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    return parse_xsum_release(SHARED)


@needs_release
def test_real_counts(release):
    assert release.dataset.source.endswith("commit 4abdbb2")
    assert len(release.documents) == 500
    assert all(d.sentences == () and d.meta["text_missing"] for d in release.documents)
    assert len(release.outputs) == 2000
    sizes = {s.slug: len(s.annotations) for s in release.span_sets}
    # wid_2 lacks PtGen/35266927 (no row) and BERTS2S/38872959 (only a NULL-typed word).
    assert sizes == {"xsum-wid_0": 2000, "xsum-wid_1": 2000, "xsum-wid_2": 1998}


@needs_release
def test_real_report_counts_every_row(release):
    first = str(release.report[0])
    # 11,185 rows: 788 typed NULL, 10,397 with a type. Of those, 13 start at 0 and end with the
    # tool's line break after words that do not begin the summary; 26 begin at the line break.
    assert "offsets checked on all 10397 span rows: 10384 give their span" in first
    assert "26 of them clipped" in first
    assert "13 match no convention" in first
    assert "33 repeated rows kept once, 7 rows typed NULL but with words not stored" in first
    assert "5 no-span rows beside the same worker's spans ignored, 1 missing worker row," in first
    assert len(release.report) == 1 + 13 + 33 + 7 + 5 + 1


@needs_release
def test_real_unplaced_rows_are_the_thirteen_found_by_hand(release):
    unplaced = sorted(
        (a.document_id, a.system_slug, s.slug)
        for s in release.span_sets
        for a in s.annotations
        for e in a.errors
        if e["side"] == "none"
    )
    assert unplaced == sorted(
        [
            ("24040346", "berts2s", "xsum-wid_1"),
            ("29724093", "tconvs2s", "xsum-wid_1"),
            ("35820385", "tconvs2s", "xsum-wid_2"),
            ("33480318", "ptgen", "xsum-wid_0"),
            ("35309225", "trans2s", "xsum-wid_2"),
            ("35146033", "trans2s", "xsum-wid_1"),
            ("36476135", "trans2s", "xsum-wid_1"),
            ("36129628", "trans2s", "xsum-wid_1"),
            ("26503920", "trans2s", "xsum-wid_1"),
            ("36882573", "trans2s", "xsum-wid_0"),
            ("37576755", "trans2s", "xsum-wid_0"),
            ("37576755", "trans2s", "xsum-wid_0"),
            ("40254741", "trans2s", "xsum-wid_0"),
        ]
    )


@needs_release
def test_real_first_rows(release):
    # Lines 2-4: BERTS2S on 34687720; wid_2 marked "the final round of the wgc-hsbc champions"
    # with [45, 86).
    summary = (
        "rory mcilroy will take a one-shot lead into the final round of the wgc-hsbc champions "
        "after carding a three-under"
    )
    (output,) = [
        o for o in release.outputs if (o.system_slug, o.document_id) == ("berts2s", "34687720")
    ]
    assert output.sentences == (summary,)
    wid_2 = _annotation(release, "wid_2", "berts2s", "34687720")
    assert [(e["start"], e["end"], e["words"]) for e in wid_2.errors] == [
        (44, 85, "the final round of the wgc-hsbc champions")
    ]
    # wid_0 marked the whole summary with [1, 114): the end is one past the summary's 113.
    wid_0 = _annotation(release, "wid_0", "berts2s", "34687720")
    assert [(e["start"], e["end"]) for e in wid_0.errors] == [(0, 113)]
    # Line 5: wid_0 marked nothing in BERTS2S's summary of 21267591.
    clean = _annotation(release, "wid_0", "berts2s", "21267591")
    assert clean.no_errors and clean.errors == ()
    (bahrain,) = [
        o for o in release.outputs if (o.system_slug, o.document_id) == ("berts2s", "21267591")
    ]
    assert bahrain.sentences[0].startswith("the leader of bahrain's main opposition party")
