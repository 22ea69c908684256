"""Human judgment uploads: every problem of a file named by its line and field, nothing written."""

from __future__ import annotations

import pytest

from annotation.imports.bundle import ImportValidationError
from config.exceptions import ApplicationError
from scoring.judgments.models import HumanJudgment
from tests.judgment_helpers import import_text, jsonl

BAD_UPLOADS = [
    # (file name, content, expected (line, field, message fragment) of each issue)
    ("a.csv", "system,score\nlead-3,2\nnobody,3\n", [(3, "system", "unknown system 'nobody'")]),
    (
        "a.csv",
        "system,doc_id,score\nlead-3,demo-001,2\nlead-3,demo-999,3\n",
        [(3, "doc_id", "unknown document 'demo-999'")],
    ),
    (
        "a.csv",
        "system,score\nlead-3,2\ndemo-abs,1\nlead-3,3\n",
        [(4, "system", "duplicate judgment of system 'lead-3' (first on line 2)")],
    ),
    ("a.csv", "system,score\nlead-3,high\n", [(2, "score", "'high' is not a number")]),
    ("a.csv", "system,score\nlead-3,nan\n", [(2, "score", "finite")]),
    ("a.csv", "system,score\nlead-3,inf\n", [(2, "score", "finite")]),
    ("a.csv", "system,score\nlead-3,\n", [(2, "score", "the score is empty")]),
    (
        "a.csv",
        "system,rank\nlead-3,0\ndemo-abs,-1\n",
        [(2, "rank", "positive"), (3, "rank", "positive")],
    ),
    ("a.csv", "system,score,rank\nlead-3,1,2\n", [(1, None, "exactly one of the columns")]),
    ("a.csv", "system,stars\nlead-3,1\n", [(1, None, "unknown column(s) ['stars']")]),
    ("a.csv", "system,score\nlead-3,1,2\n", [(2, None, "expected 2 fields")]),
    (
        "a.csv",
        "system,doc_id,score\nlead-3,demo-001,1\nlead-3,,2\n",
        [(3, "doc_id", "the doc_id is empty")],
    ),
    ("a.csv", "", [(None, None, "the file is empty")]),
    ("a.csv", "system,score\n\n", [(None, None, "holds no judgment")]),
    ("a.jsonl", "\n", [(None, None, "holds no judgment")]),
    ("a.txt", "system,score\nlead-3,1\n", [(None, None, "name the file .csv or .jsonl")]),
    (
        "a.jsonl",
        jsonl(
            {"system": "lead-3", "doc_id": "demo-001", "score": 1},
            {"system": "demo-abs", "score": 2},
        ),
        [(2, "doc_id", "per system (no doc_id) but line 1 is per document")],
    ),
    (
        "a.jsonl",
        jsonl({"system": "lead-3", "score": 1}, {"system": "demo-abs", "rank": 2}),
        [(2, "rank", "gives a rank but line 1 gives a score")],
    ),
    (
        "a.jsonl",
        jsonl({"system": "lead-3", "score": 1, "rank": 1}, {"system": "demo-abs"}),
        [(1, None, "gives both score and rank"), (2, None, "needs a score or a rank")],
    ),
    (
        "a.jsonl",
        jsonl({"system": "lead-3", "score": "1"}, {"system": "demo-abs", "score": True}),
        [(1, "score", "must be a number"), (2, "score", "must be a number")],
    ),
    ("a.jsonl", '{"system": "lead-3", "score": NaN}\n', [(1, "score", "finite")]),
    ("a.jsonl", '{"system": "lead-3", "score": 1, "who": 2}\n', [(1, "who", "unknown field")]),
    ("a.jsonl", '{"system": "lead-3", "score": 1\n', [(1, None, "invalid JSON")]),
    (
        "a.jsonl",
        jsonl({"system": "", "score": 1}, {"system": "demo-abs", "doc_id": [1], "score": 1}),
        [(1, "system", "non-empty string"), (2, "doc_id", "string or integer")],
    ),
    (
        "a.csv",
        b"system,score\nlead-3,1\ndemo-abs,\xff\n",
        [(3, None, "not valid UTF-8")],
    ),
]


@pytest.mark.parametrize(("filename", "content", "expected"), BAD_UPLOADS)
def test_each_problem_names_its_line_and_nothing_is_written(dataset, filename, content, expected):
    import_text(dataset, "system,score\nlead-3,1\n", "keep.csv", name="kept")
    before = HumanJudgment.objects.count()
    with pytest.raises(ImportValidationError) as caught:
        import_text(dataset, content, filename, name="bad")
    found = [(i.location.line, i.location.field, i.message) for i in caught.value.issues]
    assert len(found) == len(expected), found
    for (line, field, message), (want_line, want_field, fragment) in zip(
        found, expected, strict=True
    ):
        assert (line, field) == (want_line, want_field), found
        assert fragment in message, found
    assert all(i.location.file == filename for i in caught.value.issues)
    assert HumanJudgment.objects.count() == before


def test_every_issue_of_a_file_is_reported_at_once(dataset):
    content = (
        "system,doc_id,score\n"
        "lead-3,demo-001,1\n"
        "ghost,demo-001,2\n"
        "ghost,demo-002,2\n"
        "demo-abs,demo-404,x\n"
        "lead-3,demo-001,3\n"
    )
    with pytest.raises(ImportValidationError) as caught:
        import_text(dataset, content, "many.csv")
    text = str(caught.value)
    assert "many.csv:5 [score]: 'x' is not a number" in text
    assert "many.csv:6 [system]: duplicate judgment of system 'lead-3' on document" in text
    assert "many.csv:3 [system]: unknown system 'ghost' (and 1 more line)" in text
    assert HumanJudgment.objects.count() == 0


def test_a_system_without_outputs_for_the_dataset_is_refused(dataset):
    from annotation.systems.models import System

    System.objects.create(slug="idle", name="Idle", kind="abstractive")
    with pytest.raises(ImportValidationError, match="'idle' has no outputs for dataset 'demo'"):
        import_text(dataset, "system,score\nidle,1\n", "a.csv")


def test_the_study_name_must_be_a_slug(dataset):
    with pytest.raises(ApplicationError, match="not a slug"):
        import_text(dataset, "system,score\nlead-3,1\n", "a.csv", name="two words")
