"""System-output import into an existing dataset: indices, text mapping and refusals."""

import json

import pytest

from annotation.corpus.models import Dataset
from annotation.imports.bundle import ImportValidationError, SystemRecord
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.uploads.services import system_output_import

pytestmark = pytest.mark.django_db

EXT = SystemRecord(slug="ext", name="Ext", kind="extractive")
ABS = SystemRecord(slug="abs", name="Abs", kind="abstractive")


def lines(path, *records):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_extracted_index_out_of_range_is_refused_and_nothing_is_written(demo, tmp_path):
    dataset = Dataset.objects.get(slug="demo")
    n = dataset.documents.get(external_id="demo-001").sentence_count
    path = lines(
        tmp_path / "ext.jsonl",
        {"doc_id": "demo-002", "extracted": [0, 1]},
        {"doc_id": "demo-001", "extracted": [0, n]},
    )
    with pytest.raises(ImportValidationError) as caught:
        system_output_import(dataset=dataset, system=EXT, source=path)
    assert [str(i) for i in caught.value.issues] == [
        f"ext.jsonl:2 [extracted]: index {n} is out of range for document 'demo-001', which has "
        f"{n} sentences (valid: 0..{n - 1})"
    ]
    assert not System.objects.filter(slug="ext").exists()


def test_unknown_and_duplicate_document_ids_and_empty_summary(demo, tmp_path):
    dataset = Dataset.objects.get(slug="demo")
    path = lines(
        tmp_path / "abs.jsonl",
        {"doc_id": "nope", "summary": "A."},
        {"doc_id": "demo-001", "summary": "A thing happened."},
        {"doc_id": "demo-001", "sentences": ["Again."]},
        {"doc_id": "demo-002", "summary": "   "},
    )
    with pytest.raises(ImportValidationError) as caught:
        system_output_import(dataset=dataset, system=ABS, source=path)
    assert [str(i) for i in caught.value.issues] == [
        "abs.jsonl:1 [doc_id]: unknown document id 'nope'",
        "abs.jsonl:3 [doc_id]: duplicate output for document 'demo-001' "
        "(first at abs.jsonl:2 [summary])",
        "abs.jsonl:4 [summary]: must be a non-empty string",
    ]
    path = lines(
        tmp_path / "abs.jsonl",
        {"doc_id": "nope", "summary": "A."},
        {"doc_id": "demo-001", "summary": "A thing happened."},
        {"doc_id": "demo-001", "sentences": ["Again."]},
    )
    with pytest.raises(ImportValidationError) as caught:
        system_output_import(dataset=dataset, system=ABS, source=path)
    assert [str(i) for i in caught.value.issues] == [
        "abs.jsonl:1 [doc_id]: unknown document id 'nope'",
        "abs.jsonl:3 [doc_id]: duplicate output for document 'demo-001' "
        "(first at abs.jsonl:2 [summary])",
    ]
    assert not SystemOutput.objects.filter(system__slug="abs").exists()


def test_repeated_given_indices_are_refused(demo, tmp_path):
    dataset = Dataset.objects.get(slug="demo")
    path = lines(tmp_path / "ext.jsonl", {"doc_id": "demo-001", "extracted": [2, 0, 2]})
    with pytest.raises(
        ImportValidationError,
        match=r"ext.jsonl:1 \[extracted\]: the same sentence index is given twice",
    ):
        system_output_import(dataset=dataset, system=EXT, source=path)


def test_extractive_text_is_mapped_to_indices_exactly_or_by_tfidf(demo, tmp_path):
    dataset = Dataset.objects.get(slug="demo")
    doc = dataset.documents.get(external_id="demo-001")
    words = doc.sentences[4].split()
    paraphrase = " ".join(words[: len(words) // 2]).upper()  # half of sentence 4, other case
    path = lines(
        tmp_path / "ext.jsonl", {"doc_id": "demo-001", "sentences": [doc.sentences[2], paraphrase]}
    )
    summary = system_output_import(dataset=dataset, system=EXT, source=path)
    output = SystemOutput.objects.get(system__slug="ext", document=doc)
    assert output.extracted == [2, 4]
    assert output.extraction_method == "tfidf"
    assert output.match_confidence[0] == 1.0 and 0 < output.match_confidence[1] < 1.0
    assert summary.outputs == 1


def test_a_second_upload_for_the_same_system_becomes_its_next_version(demo, tmp_path):
    dataset = Dataset.objects.get(slug="demo")
    before = list(
        SystemOutput.objects.filter(system__slug="lead-3", version__number=1)
        .order_by("document__position")
        .values_list("document__external_id", "extracted")
    )
    path = lines(tmp_path / "lead.jsonl", {"doc_id": "demo-001", "extracted": [1, 0]})
    summary = system_output_import(
        dataset=dataset,
        system=SystemRecord(slug="lead-3", name="Lead-3", kind="extractive"),
        source=path,
    )
    assert summary.versions == (("lead-3", 2),)
    versions = OutputVersion.objects.filter(system__slug="lead-3", dataset=dataset)
    assert list(versions.order_by("number").values_list("number", flat=True)) == [1, 2]
    latest = versions.get(number=2)
    assert latest.source == "lead.jsonl"
    assert list(latest.outputs.values_list("document__external_id", "extracted")) == [
        ("demo-001", [1, 0])
    ]
    # Version 1 is untouched and still readable.
    assert (
        list(
            SystemOutput.objects.filter(system__slug="lead-3", version__number=1)
            .order_by("document__position")
            .values_list("document__external_id", "extracted")
        )
        == before
    )
    assert len(before) == 6


def test_a_system_slug_with_another_kind_is_refused(demo, tmp_path):
    dataset = Dataset.objects.get(slug="demo")
    path = lines(tmp_path / "x.jsonl", {"doc_id": "demo-001", "summary": "Text."})
    with pytest.raises(
        ImportValidationError, match="already exists as extractive, not abstractive"
    ):
        system_output_import(
            dataset=dataset,
            system=SystemRecord(slug="lead-3", name="L", kind="abstractive"),
            source=path,
        )
