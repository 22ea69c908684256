"""The JSONL dataset importer: schema, sentence splitting, and bad input that writes nothing."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.models import Dataset, Document, Reference
from annotation.corpus.services import dataset_import
from annotation.imports.bundle import ImportValidationError

pytestmark = pytest.mark.django_db

GOOD = [
    {
        "id": "a",
        "sentences": ["The mayor spoke.", "The vote passed."],
        "references": [["The vote passed."]],
        "category": "low",
    },
    {
        "id": "b",
        "text": "Rain fell all day. The river rose by two metres. Roads were closed.",
        "references": ["The river rose. Roads closed.", ["Heavy rain."]],
    },
    {"id": 7, "sentences": ["Only one sentence."], "references": [["One."]], "category": "noise"},
]


def write_jsonl(path, records, raw_lines=()):
    lines = [json.dumps(r) for r in records] + list(raw_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_imports_documents_references_and_splits_text(tmp_path):
    summary = dataset_import(
        format_name="jsonl", source=write_jsonl(tmp_path / "d.jsonl", GOOD), slug="news"
    )
    assert (summary.documents, summary.references) == (3, 4)
    b = Document.objects.get(dataset__slug="news", external_id="b")
    assert b.sentences == [
        "Rain fell all day.",
        "The river rose by two metres.",
        "Roads were closed.",
    ]
    refs = list(
        Reference.objects.filter(document=b)
        .order_by("position")
        .values_list("sentences", flat=True)
    )
    assert refs == [["The river rose.", "Roads closed."], ["Heavy rain."]]
    assert Document.objects.get(external_id="7").category == "noise"
    assert Document.objects.get(external_id="b").category == ""
    assert list(
        Document.objects.filter(dataset__slug="news").values_list("external_id", flat=True)
    ) == ["a", "b", "7"]


def test_one_bad_line_among_good_ones_names_file_line_and_field_and_writes_nothing(tmp_path):
    path = write_jsonl(
        tmp_path / "mixed.jsonl", GOOD, ['{"id": "c", "sentences": [], "references": [["x"]]}']
    )
    with pytest.raises(ImportValidationError) as caught:
        dataset_import(format_name="jsonl", source=path, slug="news")
    assert [str(i) for i in caught.value.issues] == [
        "mixed.jsonl:4 [sentences]: must be a non-empty list of sentences"
    ]
    assert not Dataset.objects.exists() and not Document.objects.exists()


def test_invalid_json_and_wrong_category_are_both_reported(tmp_path):
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        GOOD[:1],
        [
            '{"id": "x", oops}',
            json.dumps(
                {"id": "y", "sentences": ["s."], "references": [["r."]], "category": "medium"}
            ),
        ],
    )
    with pytest.raises(ImportValidationError) as caught:
        dataset_import(format_name="jsonl", source=path, slug="news")
    messages = [str(i) for i in caught.value.issues]
    assert messages[0].startswith("bad.jsonl:2: invalid JSON")
    assert (
        messages[1]
        == "bad.jsonl:3 [category]: must be one of ['noise', 'low', 'high'], got 'medium'"
    )
    assert not Document.objects.exists()


def test_duplicate_document_id_is_refused_with_both_places(tmp_path):
    path = write_jsonl(
        tmp_path / "dup.jsonl", GOOD + [{"id": "a", "sentences": ["s."], "references": [["r."]]}]
    )
    with pytest.raises(ImportValidationError) as caught:
        dataset_import(format_name="jsonl", source=path, slug="news")
    assert [str(i) for i in caught.value.issues] == [
        "dup.jsonl:4 [id]: duplicate document id 'a' (first at dup.jsonl:1 [id])"
    ]
    assert not Dataset.objects.exists()


def test_importing_the_same_slug_twice_is_refused_and_changes_nothing(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", GOOD)
    dataset_import(format_name="jsonl", source=path, slug="news")
    with pytest.raises(
        ImportValidationError, match="already exists \\(3 documents\\); importing twice is refused"
    ):
        dataset_import(format_name="jsonl", source=path, slug="news")
    assert Document.objects.count() == 3


def test_bad_encoding_names_the_line(tmp_path):
    path = tmp_path / "latin.jsonl"
    path.write_bytes(json.dumps(GOOD[0]).encode() + b"\n" + '{"id": "é"}'.encode("latin-1") + b"\n")
    with pytest.raises(ImportValidationError, match=r"latin.jsonl:2: not valid UTF-8"):
        dataset_import(format_name="jsonl", source=path, slug="news")
    assert not Dataset.objects.exists()


def test_dry_run_validates_without_writing(tmp_path):
    summary = dataset_import(
        format_name="jsonl",
        source=write_jsonl(tmp_path / "d.jsonl", GOOD),
        slug="news",
        dry_run=True,
    )
    assert summary.dry_run and summary.documents == 3
    assert not Dataset.objects.exists()


def test_management_command_reports_errors_and_writes_nothing(tmp_path):
    path = write_jsonl(
        tmp_path / "mixed.jsonl", GOOD, ['{"id": "z", "sentences": ["s."], "references": 5}']
    )
    with pytest.raises(CommandError) as caught:
        call_command("import_dataset", str(path), "--format", "jsonl", "--slug", "news")
    assert "mixed.jsonl:4 [references]: must be a non-empty list of references" in str(caught.value)
    assert "nothing was written" in str(caught.value)
    assert not Dataset.objects.exists()


def test_upload_api_uses_the_same_pipeline(client_for, tmp_path):
    admin = client_for("admin")
    path = write_jsonl(tmp_path / "up.jsonl", GOOD[:1], ['{"id": "q", "sentences": ["s."]}'])
    with path.open("rb") as handle:
        response = admin.post(
            "/api/datasets/import/", {"file": handle, "slug": "up"}, format="multipart"
        )
    assert response.status_code == 400
    assert response.json()["extra"]["issues"] == [
        {
            "where": "up.jsonl:2 [references]",
            "file": "up.jsonl",
            "line": 2,
            "field": "references",
            "message": "must be a non-empty list of references",
        }
    ]
    write_jsonl(path, GOOD)
    with path.open("rb") as handle:
        response = admin.post(
            "/api/datasets/import/", {"file": handle, "slug": "up"}, format="multipart"
        )
    assert response.status_code == 201 and response.json()["documents"] == 3


def test_model_limits_fail_in_validation_with_the_place_not_in_the_write(tmp_path):
    long_id = "x" * 201
    path = write_jsonl(tmp_path / "long.jsonl", [{**GOOD[0], "id": long_id}])
    for dry_run in (True, False):
        with pytest.raises(ImportValidationError) as caught:
            dataset_import(format_name="jsonl", source=path, slug="news", dry_run=dry_run)
        assert [str(i) for i in caught.value.issues] == [
            "long.jsonl:1 [id]: document id is 201 characters long; the limit is 200"
        ]
    assert not Dataset.objects.exists()


def test_a_bad_slug_is_a_validation_error(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", GOOD)
    with pytest.raises(CommandError) as caught:
        call_command("import_dataset", str(path), "--format", "jsonl", "--slug", "Bad Slug!")
    assert "dataset [slug]: 'Bad Slug!' is not a valid slug" in str(caught.value)
    assert not Dataset.objects.exists()
