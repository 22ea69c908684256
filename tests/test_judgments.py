"""Human judgments: uploads (CSV and JSONL, scores and ranks), replace, list, delete, stamp."""

from __future__ import annotations

import pytest

from annotation.corpus.models import Document
from annotation.imports.bundle import ImportValidationError
from config.exceptions import ApplicationError, ConflictError
from scoring.judgments.models import HumanJudgment
from scoring.judgments.selectors import (
    human_judgment_stamp,
    human_judgment_study_list,
    human_judgments_for,
)
from scoring.judgments.services import human_judgment_study_delete
from scoring.metrics.leaderboard.correlations import correlate_with_human
from tests.judgment_helpers import SYSTEMS, THREE_SCORES, doc_pk, import_text, jsonl

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
