"""Human judgments: uploads (CSV and JSONL, scores and ranks), validation, replace, list, delete."""

from __future__ import annotations

import io
import json

import pytest

from annotation.corpus.importers.bundle import ImportValidationError
from annotation.corpus.models import Dataset, Document
from config.exceptions import ApplicationError, ConflictError
from scoring.leaderboards.judgment_selectors import (
    human_judgment_stamp,
    human_judgment_study_list,
    human_judgments_for,
)
from scoring.leaderboards.judgments import human_judgment_study_delete, human_judgments_import
from scoring.leaderboards.models import HumanJudgment
from scoring.metrics.leaderboard.correlations import correlate_with_human

URL = "/api/datasets/demo/judgments/"
SYSTEMS = ("lead-3", "demo-extsum", "demo-abs")
THREE_SCORES = {  # what uploading a per-system score of each demo system as "overall" returns
    "name": "overall",
    "kind": "score",
    "per_document": False,
    "rows": 3,
    "systems": ["demo-abs", "demo-extsum", "lead-3"],
    "replaced": False,
}


def upload(text: str | bytes, name: str) -> io.BytesIO:
    handle = io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text)
    handle.name = name
    return handle


def jsonl(*objects: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in objects)


def import_text(dataset, text: str | bytes, filename: str, name: str = "overall", **kwargs):
    return human_judgments_import(
        dataset=dataset, name=name, source=upload(text, filename), filename=filename, **kwargs
    )


@pytest.fixture
def dataset(demo):
    return Dataset.objects.get(slug="demo")


def doc_pk(external_id: str) -> int:
    return Document.objects.get(dataset__slug="demo", external_id=external_id).pk


# ------------------------------------------------------------------------------- uploads


def test_per_system_csv_scores_are_written(dataset, users):
    result = import_text(
        dataset,
        "system,score\nlead-3,2.5\ndemo-extsum,4\n\ndemo-abs,3.25\n",
        "overall.csv",
        user=users["researcher"],
    )
    assert result == THREE_SCORES
    rows = HumanJudgment.objects.filter(dataset=dataset, name="overall")
    assert {(r.system.slug, r.document_id, r.value, r.kind) for r in rows} == {
        ("lead-3", None, 2.5, "score"),
        ("demo-extsum", None, 4.0, "score"),
        ("demo-abs", None, 3.25, "score"),
    }
    assert {r.uploaded_by for r in rows} == {users["researcher"]}
    assert human_judgments_for(dataset=dataset) == {
        "overall": (
            "score",
            {"lead-3": {None: 2.5}, "demo-extsum": {None: 4.0}, "demo-abs": {None: 3.25}},
        )
    }


def test_per_document_jsonl_ranks_are_written_with_document_keys(dataset):
    lines = [
        {"system": s, "doc_id": d, "rank": r}
        for d, ranks in (("demo-001", (1, 2, 3)), ("demo-002", (2, 1, 3)))
        for s, r in zip(SYSTEMS, ranks, strict=True)
    ]
    result = import_text(dataset, jsonl(*lines), "faith.jsonl", name="faith")
    assert (result["kind"], result["per_document"], result["rows"]) == ("rank", True, 6)
    kind, values = human_judgments_for(dataset=dataset)["faith"]
    assert kind == "rank"
    assert values["demo-extsum"] == {doc_pk("demo-001"): 2.0, doc_pk("demo-002"): 1.0}
    assert set(values) == set(SYSTEMS)


def test_csv_columns_may_come_in_any_order_and_doc_ids_may_be_integers_in_jsonl(dataset):
    result = import_text(
        dataset, "doc_id,score,system\ndemo-003,0.5,lead-3\ndemo-004,0.7,lead-3\n", "a.csv"
    )
    assert (result["per_document"], result["rows"]) == (True, 2)
    # Document external ids are strings; an integer doc_id is compared as its text.
    other = Document.objects.create(dataset=dataset, external_id="17", sentences=["A."])
    import_text(dataset, jsonl({"system": "lead-3", "doc_id": 17, "score": 1}), "b.jsonl", "b")
    assert human_judgments_for(dataset=dataset)["b"][1] == {"lead-3": {other.pk: 1.0}}


def test_uploaded_judgments_feed_the_correlations(dataset):
    import_text(dataset, "system,rank\nlead-3,3\ndemo-extsum,1\ndemo-abs,2\n", "r.csv")
    kind, human = human_judgments_for(dataset=dataset)["overall"]
    metric = {"far": {"lead-3": {1: 0.1}, "demo-extsum": {1: 0.5}, "demo-abs": {1: 0.3}}}
    (result,) = correlate_with_human(metric, human, kind=kind, name="overall")
    # Metric order extsum > abs > lead matches the ranks 1, 2, 3 exactly.
    assert (result.spearman.value, result.kendall.value) == (pytest.approx(1.0), pytest.approx(1.0))
    assert result.n_systems == 3


# ---------------------------------------------------------------------------- validation

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
    from scoring.systems.models import System

    System.objects.create(slug="idle", name="Idle", kind="abstractive")
    with pytest.raises(ImportValidationError, match="'idle' has no outputs for dataset 'demo'"):
        import_text(dataset, "system,score\nidle,1\n", "a.csv")


def test_the_study_name_must_be_a_slug(dataset):
    with pytest.raises(ApplicationError, match="not a slug"):
        import_text(dataset, "system,score\nlead-3,1\n", "a.csv", name="two words")


# ------------------------------------------------------------------------------- replace


def test_an_existing_name_is_refused_unless_replaced(dataset):
    import_text(dataset, "system,score\nlead-3,1\ndemo-abs,2\n", "a.csv")
    with pytest.raises(ConflictError, match="already exists"):
        import_text(dataset, "system,score\nlead-3,5\n", "a.csv")
    assert HumanJudgment.objects.filter(name="overall").count() == 2
    result = import_text(dataset, "system,doc_id,rank\nlead-3,demo-001,1\n", "b.csv", replace=True)
    assert (result["replaced"], result["rows"], result["kind"]) == (True, 1, "rank")
    assert human_judgments_for(dataset=dataset) == {
        "overall": ("rank", {"lead-3": {doc_pk("demo-001"): 1.0}})
    }


def test_a_failed_replacement_keeps_the_old_study(dataset):
    import_text(dataset, "system,score\nlead-3,1\n", "a.csv")
    with pytest.raises(ImportValidationError):
        import_text(dataset, "system,score\nnobody,1\n", "b.csv", replace=True)
    assert human_judgments_for(dataset=dataset) == {"overall": ("score", {"lead-3": {None: 1.0}})}


def test_replace_of_a_new_name_simply_creates_it(dataset):
    result = import_text(dataset, "system,score\nlead-3,1\n", "a.csv", replace=True)
    assert result["replaced"] is False and result["rows"] == 1


# ------------------------------------------------------------------------ list, delete, stamp


def test_study_list_delete_and_stamp(dataset):
    empty = human_judgment_stamp(dataset=dataset)
    assert empty == "0:-:-" and human_judgment_study_list(dataset=dataset) == []
    import_text(dataset, "system,score\nlead-3,1\ndemo-abs,2\n", "a.csv", name="overall")
    lines = [{"system": s, "doc_id": "demo-001", "rank": i} for i, s in enumerate(SYSTEMS, 1)]
    import_text(dataset, jsonl(*lines), "f.jsonl", name="faith")
    stamp = human_judgment_stamp(dataset=dataset)
    studies = human_judgment_study_list(dataset=dataset)
    assert [
        (s["name"], s["kind"], s["per_document"], s["n_systems"], s["n_documents"], s["n_rows"])
        for s in studies
    ] == [("faith", "rank", True, 3, 1, 3), ("overall", "score", False, 2, 0, 2)]
    assert human_judgment_study_delete(dataset=dataset, name="faith") == 3
    assert [s["name"] for s in human_judgment_study_list(dataset=dataset)] == ["overall"]
    assert human_judgment_stamp(dataset=dataset) not in (stamp, empty)
    with pytest.raises(ApplicationError, match="No study") as caught:
        human_judgment_study_delete(dataset=dataset, name="faith")
    assert caught.value.status_code == 404


# ------------------------------------------------------------------------------------ API


def test_api_upload_list_and_delete(client_for, dataset):
    client = client_for("researcher")
    response = client.post(
        URL,
        {
            "file": upload("system,score\nlead-3,1\ndemo-extsum,3\ndemo-abs,2\n", "s.csv"),
            "name": "overall",
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json() == THREE_SCORES
    listed = client.get(URL).json()
    assert [(s["name"], s["n_rows"], s["per_document"]) for s in listed] == [("overall", 3, False)]
    again = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,1\n", "r.csv"), "name": "overall"},
        format="multipart",
    )
    assert again.status_code == 409 and "replace" in again.json()["message"]
    replaced = client.post(
        URL,
        {"file": upload("system,rank\nlead-3,1\n", "r.csv"), "name": "overall", "replace": "true"},
        format="multipart",
    )
    assert replaced.status_code == 201 and replaced.json()["replaced"] is True
    assert client.delete(f"{URL}overall/").status_code == 204
    assert client.get(URL).json() == []
    assert client.delete(f"{URL}overall/").status_code == 404
    assert client.get("/api/datasets/nope/judgments/").status_code == 404


def test_api_reports_every_issue_and_writes_nothing(client_for, dataset):
    content = "system,doc_id,score\nlead-3,demo-001,1\nlead-3,demo-404,2\nghost,demo-002,3\n"
    response = client_for("admin").post(
        URL, {"file": upload(content, "bad.csv"), "name": "faith"}, format="multipart"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["message"] == "The import is invalid; nothing was written."
    assert sorted((i["line"], i["field"]) for i in body["extra"]["issues"]) == [
        (3, "doc_id"),
        (4, "system"),
    ]
    assert all(i["file"] == "bad.csv" for i in body["extra"]["issues"])
    assert HumanJudgment.objects.count() == 0


def test_api_refuses_a_bad_name_and_other_roles(client_for, dataset):
    researcher = client_for("researcher")
    bad = researcher.post(
        URL,
        {"file": upload("system,score\nlead-3,1\n", "a.csv"), "name": "a b"},
        format="multipart",
    )
    assert bad.status_code == 400 and "name" in bad.json()["extra"]["fields"]
    for role, code in (("annotator", 403), ("norole", 403), (None, 401)):
        response = client_for(role).post(
            URL,
            {"file": upload("system,score\nlead-3,1\n", "a.csv"), "name": "x"},
            format="multipart",
        )
        assert response.status_code == code
        assert client_for(role).get(URL).status_code == code
    import_text(dataset, "system,score\nlead-3,1\n", "a.csv", name="x")
    assert client_for("annotator").delete(f"{URL}x/").status_code == 403
    assert HumanJudgment.objects.filter(name="x").count() == 1
