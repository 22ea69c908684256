"""Sentence counts stored by the database, and an upload that reads only the sentences it needs."""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.corpus.models import Dataset, Document, Reference
from annotation.corpus.selectors import DocumentSentences, document_sentence_counts
from annotation.imports.bundle import SystemRecord
from annotation.systems.models import SystemOutput
from scoring.uploads.services import system_outputs_upload

pytestmark = pytest.mark.django_db

TEXTS = {
    "a": ["Alpha one.", "Alpha two.", "Alpha three.", "Alpha four."],
    "b": ["Beta one.", "Beta two."],
    "c": ["Gamma one.", "Gamma two.", "Gamma three."],
}


@pytest.fixture
def dataset():
    dataset = Dataset.objects.create(slug="sents", name="Sentences")
    for position, (key, sentences) in enumerate(TEXTS.items()):
        document = Document.objects.create(
            dataset=dataset, external_id=key, position=position, sentences=sentences
        )
        Reference.objects.create(document=document, position=0, sentences=[sentences[0]])
    return dataset


def test_the_database_stores_each_documents_sentence_count_and_keeps_it_current(dataset):
    counts = document_sentence_counts(dataset=dataset)
    assert {key: count for key, (_, count) in counts.items()} == {"a": 4, "b": 2, "c": 3}
    document = Document.objects.get(dataset=dataset, external_id="b")
    document.sentences = ["Beta one.", "Beta two.", "Beta three.", "Beta four.", "Beta five."]
    document.save()
    assert Document.objects.get(pk=document.pk).n_sentences == 5
    Document.objects.filter(pk=document.pk).update(sentences=[])
    assert Document.objects.get(pk=document.pk).n_sentences == 0


def test_sentence_count_uses_the_stored_count_only_when_the_sentences_were_not_read(dataset):
    lean = Document.objects.only("pk", "n_sentences").get(dataset=dataset, external_id="a")
    with CaptureQueriesContext(connection) as queries:
        assert lean.sentence_count == 4
    assert len(queries) == 0  # the sentences were not read for it
    full = Document.objects.get(dataset=dataset, external_id="a")
    full.sentences = ["Changed in memory."]
    assert full.sentence_count == 1  # counted, not the stored (stale) 4


def test_loaded_picks_and_whole_documents_give_the_documents_own_sentences(dataset):
    source = DocumentSentences(document_sentence_counts(dataset=dataset))
    assert set(source) == {"a", "b", "c"} and "z" not in source and len(source) == 3
    assert [len(source[key]) for key in "abc"] == [4, 2, 3]
    with CaptureQueriesContext(connection) as queries:
        source.load(picks={"a": {3, 0}, "b": [1, 7], "z": [0]}, whole={"c"})
    # PostgreSQL: the picks in one statement, the whole documents in another; elsewhere the
    # documents with picks are read whole with the others.
    assert len(queries) == (2 if connection.vendor == "postgresql" else 1)
    with CaptureQueriesContext(connection) as queries:
        assert [source["a"][i] for i in (3, 0)] == ["Alpha four.", "Alpha one."]
        assert source["b"][1] == "Beta two."
        assert list(source["c"]) == TEXTS["c"]
        assert source["c"][-1] == "Gamma three." and source["c"][0:2] == TEXTS["c"][:2]
    assert len(queries) == 0
    with pytest.raises(IndexError):
        source["b"][2]
    # A sentence not loaded is read on first use: the document's own, by one more query.
    unloaded = DocumentSentences(document_sentence_counts(dataset=dataset))
    with CaptureQueriesContext(connection) as queries:
        assert unloaded["a"][1] == "Alpha two." and unloaded["a"][2] == "Alpha three."
    assert len(queries) == 1


def test_an_index_upload_reads_the_given_sentences_not_whole_documents(dataset):
    lines = "".join(
        json.dumps(record) + "\n"
        for record in (
            {"doc_id": "a", "extracted": [3, 1]},
            {"doc_id": "b", "extracted": [0]},
            {"doc_id": "c", "sentences": ["Gamma two."]},  # text: aligned with the whole document
        )
    )
    system = SystemRecord(slug="picker", name="Picker", kind="extractive")
    with CaptureQueriesContext(connection) as queries:
        system_outputs_upload(
            dataset=dataset,
            system=system,
            source=io.BytesIO(lines.encode()),
            filename="outputs.jsonl",
        )
    stored = {
        o.document.external_id: (o.sentences, o.extracted, o.extraction_method)
        for o in SystemOutput.objects.filter(system__slug="picker").select_related("document")
    }
    assert stored == {
        "a": (["Alpha four.", "Alpha two."], [3, 1], "given"),
        "b": (["Beta one."], [0], "given"),
        "c": (["Gamma two."], [1], "exact"),
    }
    whole_reads = [
        q["sql"]
        for q in queries
        if '"corpus_document"."sentences"' in q["sql"] and 'FROM "corpus_document"' in q["sql"]
    ]
    if connection.vendor == "postgresql":
        # Only document c, whose text was aligned, is read whole; a and b by their indices.
        assert len(whole_reads) == 1, whole_reads
        assert any("jsonb_path_query_array" in q["sql"] for q in queries)
    else:
        assert len(whole_reads) == 1  # elsewhere the indexed documents are read whole too


def test_an_out_of_range_index_is_still_refused_with_the_documents_size(dataset):
    from annotation.imports.bundle import ImportValidationError

    system = SystemRecord(slug="far-out", name="Far", kind="extractive")
    with pytest.raises(ImportValidationError) as error:
        system_outputs_upload(
            dataset=dataset,
            system=system,
            source=io.BytesIO(b'{"doc_id": "b", "extracted": [0, 2]}\n'),
            filename="outputs.jsonl",
        )
    assert "index 2 is out of range for document 'b', which has 2 sentences" in str(error.value)
    assert not SystemOutput.objects.filter(system__slug="far-out").exists()
