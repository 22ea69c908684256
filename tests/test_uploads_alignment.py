"""Extractive text that matches no document sentence is refused unless the uploader accepts it."""

import io

import pytest
from django.core.management import CommandError, call_command

from annotation.systems.models import SystemOutput
from scoring.metrics.align import LOW_CONFIDENCE_THRESHOLD, align_sentences
from tests.upload_helpers import counts, issues, jsonl, post

pytestmark = pytest.mark.django_db

EXTRACTIVE = {"system": "my-ext", "kind": "extractive", "name": "My Ext"}
# Shares no word with any demo document: its TF-IDF cosine to every sentence is 0.
NOWHERE = "Zyxt qwvp blorf."


def _document(dataset, external_id):
    return dataset.documents.get(external_id=external_id)


def test_the_unmatched_sentence_really_has_cosine_zero(dataset):
    sentences = _document(dataset, "demo-002").sentences
    (alignment,) = align_sentences([NOWHERE], sentences)
    assert alignment.similarity == 0.0 < LOW_CONFIDENCE_THRESHOLD


def test_an_upload_with_an_unmatched_sentence_is_refused_and_names_it(researcher, dataset):
    first = _document(dataset, "demo-002").sentences[0]
    before = counts()
    response = post(
        researcher,
        jsonl({"doc_id": "demo-002", "sentences": [first, NOWHERE]}),
        **EXTRACTIVE,
    )
    found = issues(response)
    assert len(found) == 1
    assert found[0].startswith("outputs.jsonl:1 [sentences]: sentence 2 of demo-002 ")
    assert f"({NOWHERE!r}) is not in the document" in found[0]
    assert "TF-IDF cosine 0.000, below 0.3" in found[0]
    assert "upload again accepting low-confidence mappings" in found[0]
    assert counts() == before


def test_a_dry_run_refuses_it_too(researcher, dataset):
    response = post(
        researcher,
        jsonl({"doc_id": "demo-002", "sentences": [NOWHERE]}),
        dry_run="true",
        **EXTRACTIVE,
    )
    assert "sentence 1 of demo-002" in issues(response)[0]


def test_the_refusal_comes_with_the_other_problems_of_the_file(researcher, dataset):
    response = post(
        researcher,
        jsonl(
            {"doc_id": "demo-002", "sentences": [NOWHERE]},
            {"doc_id": "no-such-doc", "sentences": ["Anything."]},
        ),
        **EXTRACTIVE,
    )
    found = issues(response)
    assert len(found) == 2
    assert any("unknown document id 'no-such-doc'" in line for line in found)
    assert any("sentence 1 of demo-002" in line for line in found)


def test_accepting_explicitly_keeps_the_nearest_match_and_reports_it(researcher, dataset):
    first = _document(dataset, "demo-002").sentences[0]
    response = post(
        researcher,
        jsonl({"doc_id": "demo-002", "sentences": [first, NOWHERE]}),
        accept_low_confidence="true",
        **EXTRACTIVE,
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert len(body["report"]) == 1
    assert "low-confidence mapping for my-ext on demo-002" in body["report"][0]
    assert "(cosine 0.000)" in body["report"][0]
    output = SystemOutput.objects.get(system__slug="my-ext")
    assert output.extracted[0] == 0 and output.match_confidence == [1.0, 0.0]


def test_exact_text_and_given_indices_are_never_refused(researcher, dataset):
    sentences = _document(dataset, "demo-003").sentences
    response = post(
        researcher,
        jsonl(
            {"doc_id": "demo-003", "sentences": [sentences[1], sentences[0]]},
            {"doc_id": "demo-004", "extracted": [2, 0]},
        ),
        **EXTRACTIVE,
    )
    assert response.status_code == 201, response.content
    assert response.json()["report"] == []


def test_the_command_refuses_without_the_flag(demo, tmp_path):
    path = tmp_path / "ext.jsonl"
    path.write_bytes(jsonl({"doc_id": "demo-001", "sentences": [NOWHERE]}))
    err = io.StringIO()
    with pytest.raises(CommandError, match="Upload refused: 1 problem"):
        call_command(
            "import_outputs",
            "--dataset",
            "demo",
            "--system",
            "cli-ext",
            "--kind",
            "extractive",
            str(path),
            stdout=io.StringIO(),
            stderr=err,
        )
    assert "sentence 1 of demo-001" in err.getvalue()
    assert "TF-IDF cosine 0.000" in err.getvalue()
    assert not SystemOutput.objects.filter(system__slug="cli-ext").exists()
