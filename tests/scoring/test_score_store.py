"""Bulk score writes: the upsert is idempotent and overwrites, stale rows go and no others."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, Fam
from annotation.systems.models import OutputVersion, System
from scoring.scores.models import DocumentScore
from scoring.scores.services import (
    OutputScores,
    ScoreRow,
    StaleScores,
    document_scores_delete,
    document_scores_upsert,
)
from scoring.scores.services.store import pairs_q


@pytest.fixture
def world(db):
    dataset = Dataset.objects.create(slug="store", name="Store")
    documents = [
        Document.objects.create(dataset=dataset, external_id=f"d{n}", position=n, sentences=["A."])
        for n in range(3)
    ]
    system = System.objects.create(slug="sys", name="sys", kind="abstractive")
    versions = [
        OutputVersion.objects.create(system=system, dataset=dataset, number=n) for n in (1, 2)
    ]
    return documents, versions


def _fam(document: Document) -> Fam:
    reference = Reference.objects.create(document=document, sentences=["A."])
    gold = AnnotationSet.objects.create(
        dataset=document.dataset, slug="gold", name="Gold", kind="gold"
    )
    return Fam.objects.create(
        annotation_set=gold,
        document=document,
        reference=reference,
        facets=[{"groups": [[0]], "label": "supported"}],
    )


def _stored():
    return {
        (s.version_id, s.document_id, metric): value
        for s in DocumentScore.objects.all()
        for metric, value in s.metrics.items()
    }


def test_upsert_inserts_then_overwrites_without_duplicates(world):
    documents, versions = world
    v, d = versions[0].pk, documents[0].pk
    rows = [ScoreRow(v, d, "rouge1_f", 0.25), ScoreRow(v, d, "rouge2_f", 0.5)]
    assert document_scores_upsert(rows=rows) == 2
    assert document_scores_upsert(rows=rows) == 2  # the same rows again: still two
    assert _stored() == {(v, d, "rouge1_f"): 0.25, (v, d, "rouge2_f"): 0.5}
    first = DocumentScore.objects.get().computed_at
    # One metric rewritten: the other is kept, and the output still has one row.
    document_scores_upsert(rows=[ScoreRow(v, d, "rouge1_f", 0.75)])
    changed = DocumentScore.objects.get()
    assert changed.metrics == {"rouge1_f": 0.75, "rouge2_f": 0.5}
    assert changed.computed_at >= first
    assert document_scores_upsert(rows=[]) == 0


@pytest.mark.parametrize(
    ("metric", "value", "message"),
    [
        ("rouge1_f", 1.5, "rouge1_f=1.5: out of its range [0, 1]"),
        ("far@3", -0.01, "far@3=-0.01: out of its range [0, 1]"),
        ("polytope", 100.5, "polytope=100.5: out of its range"),
        ("polytope_words", -1.0, "polytope_words=-1.0: out of its range"),
        ("rouge2_f", float("nan"), "rouge2_f=nan: not a finite number"),
        ("autofar_l", float("inf"), "autofar_l=inf: not a finite number"),
        ("x" * 25, 0.5, "a name of 1 to 24 characters"),
    ],
)
def test_upsert_checks_every_value_and_writes_nothing_when_one_is_bad(
    world, metric, value, message
):
    documents, versions = world
    good = ScoreRow(versions[0].pk, documents[1].pk, "rouge1_f", 0.5)
    bad = ScoreRow(versions[0].pk, documents[0].pk, metric, value)
    with pytest.raises(ValidationError, match=re.escape(message)):
        document_scores_upsert(rows=[good, bad])
    assert DocumentScore.objects.count() == 0


def test_in_range_values_of_the_wider_metrics_are_stored(world):
    documents, versions = world
    v, d = versions[0].pk, documents[0].pk
    rows = [
        ScoreRow(v, d, "polytope", -250.0),  # the penalty exceeds the words
        ScoreRow(v, d, "polytope_words", 31.0),
        ScoreRow(v, d, "autofar_l", -1.25),
    ]
    document_scores_upsert(rows=rows)
    assert _stored() == {
        (v, d, "polytope"): -250.0,
        (v, d, "polytope_words"): 31.0,
        (v, d, "autofar_l"): -1.25,
    }


def test_values_given_an_output_at_a_time_merge_with_single_rows(world):
    """A chunk's form (one entry per output) and single rows of the same output are one row:
    the FAM follows the FAR keys, the job is the last given, the count is of values."""
    documents, versions = world
    fam = _fam(documents[0])
    v, d0, d1 = versions[0].pk, documents[0].pk, documents[1].pk
    written = document_scores_upsert(
        outputs=[
            OutputScores(v, d0, {"far@3": 0.5, "rouge1_f": 0.25}, fam.pk, None),
            OutputScores(v, d1, {"rouge1_f": 0.75}),
        ],
        rows=[ScoreRow(v, d0, "polytope", 40.0), ScoreRow(v, d1, "rouge2_f", 0.125)],
    )
    assert written == 5
    assert _stored() == {
        (v, d0, "far@3"): 0.5,
        (v, d0, "rouge1_f"): 0.25,
        (v, d0, "polytope"): 40.0,
        (v, d1, "rouge1_f"): 0.75,
        (v, d1, "rouge2_f"): 0.125,
    }
    assert dict(DocumentScore.objects.values_list("document_id", "fam_id")) == {
        d0: fam.pk,
        d1: None,
    }
    # Written again, nothing is duplicated; an entry without FAR keys keeps the stored FAM.
    assert document_scores_upsert(outputs=[OutputScores(v, d0, {"rouge1_f": 0.5})]) == 1
    assert DocumentScore.objects.count() == 2
    row = DocumentScore.objects.get(document_id=d0)
    assert (row.fam_id, row.metrics["rouge1_f"], row.metrics["far@3"]) == (fam.pk, 0.5, 0.5)
    assert document_scores_upsert(outputs=[], rows=[]) == 0


def test_an_output_entry_with_a_bad_value_writes_nothing(world):
    documents, versions = world
    v = versions[0].pk
    with pytest.raises(ValidationError, match=f"version {v}, document {documents[1].pk}: "):
        document_scores_upsert(
            outputs=[
                OutputScores(v, documents[0].pk, {"rouge1_f": 0.5}),
                OutputScores(v, documents[1].pk, {"rouge1_f": 0.5, "far@3": 1.5}),
            ]
        )
    assert DocumentScore.objects.count() == 0


def test_an_unknown_version_is_refused_by_the_database(world):
    documents, _ = world
    with pytest.raises(IntegrityError), transaction.atomic():
        document_scores_upsert(rows=[ScoreRow(10**9, documents[0].pk, "rouge1_f", 0.5)])
        connection.check_constraints()  # foreign keys are checked at the commit
    assert DocumentScore.objects.count() == 0


def test_the_fam_follows_the_far_metrics(world):
    documents, versions = world
    fam = _fam(documents[0])
    v, d = versions[0].pk, documents[0].pk
    document_scores_upsert(
        rows=[ScoreRow(v, d, "far@3", 0.5, fam.pk, None), ScoreRow(v, d, "rouge1_f", 0.25)]
    )
    assert DocumentScore.objects.get().fam_id == fam.pk
    # A write without FAR keys (PolyTope's, AutoFAR-L's) keeps the FAM.
    document_scores_upsert(rows=[ScoreRow(v, d, "polytope", 50.0)])
    assert DocumentScore.objects.get().fam_id == fam.pk
    # Once FAR is stale, the row loses its FAM and keeps its other metrics.
    stale = StaleScores()
    stale.add(version_id=v, document_id=d, metrics={"far@3"})
    assert document_scores_delete(stale=stale) == 1
    row = DocumentScore.objects.get()
    assert row.fam_id is None
    assert row.metrics == {"rouge1_f": 0.25, "polytope": 50.0}


def test_stale_scores_delete_exactly_the_marked_rows(world):
    documents, versions = world
    rows = [
        ScoreRow(v.pk, d.pk, metric, 0.5)
        for v in versions
        for d in documents
        for metric in ("far@3", "sar@3", "rouge1_f")
    ]
    document_scores_upsert(rows=rows)
    stale = StaleScores()
    assert not stale and document_scores_delete(stale=stale) == 0
    for document in documents[:2]:  # two documents of version 1 lose FAR and SAR
        stale.add(version_id=versions[0].pk, document_id=document.pk, metrics={"far@3", "sar@3"})
    stale.add(version_id=versions[1].pk, document_id=documents[2].pk, metrics=["rouge1_f"])
    stale.add(version_id=versions[1].pk, document_id=documents[0].pk, metrics=[])  # nothing
    assert stale
    assert document_scores_delete(stale=stale) == 5
    gone = {
        (versions[0].pk, documents[0].pk, "far@3"),
        (versions[0].pk, documents[0].pk, "sar@3"),
        (versions[0].pk, documents[1].pk, "far@3"),
        (versions[0].pk, documents[1].pk, "sar@3"),
        (versions[1].pk, documents[2].pk, "rouge1_f"),
    }
    assert set(_stored()) == {(r.version_id, r.document_id, r.metric) for r in rows} - gone
    # Every output still has a metric, so still a row; one left without any loses its row.
    assert DocumentScore.objects.count() == 6
    emptied = StaleScores()
    emptied.add(version_id=versions[1].pk, document_id=documents[2].pk, metrics={"far@3", "sar@3"})
    assert document_scores_delete(stale=emptied) == 2
    assert DocumentScore.objects.count() == 5


def test_stale_scores_of_every_version_for_a_few_documents(world):
    """A document-major chunk marks every version's rows of a few documents: the condition is
    their grid, and rows outside it (another document, another metric) stay."""
    documents, versions = world
    rows = [
        ScoreRow(v.pk, d.pk, metric, 0.5)
        for v in versions
        for d in documents
        for metric in ("far@3", "rouge1_f")
    ]
    document_scores_upsert(rows=rows)
    stale = StaleScores()
    for version in versions:
        for document in documents[:2]:
            stale.add(version_id=version.pk, document_id=document.pk, metrics={"far@3"})
    # Version 2 alone also loses ROUGE-1 on document 0: another set of metrics, another term.
    stale.add(version_id=versions[1].pk, document_id=documents[0].pk, metrics={"rouge1_f"})
    assert document_scores_delete(stale=stale) == 5
    gone = {(v.pk, d.pk, "far@3") for v in versions for d in documents[:2]}
    gone.add((versions[1].pk, documents[0].pk, "rouge1_f"))
    assert set(_stored()) == {(r.version_id, r.document_id, r.metric) for r in rows} - gone


def test_the_upsert_strikes_written_outputs_without_stale_metrics(world):
    """Given the stale scores of the same transaction, the upsert unmarks the outputs it
    wrote that hold none of their stale metrics once merged (a fresh row, or one whose stale
    metrics were overwritten); the others stay marked and the delete removes the same values
    as without the hint."""
    documents, versions = world
    v = versions[0].pk
    document_scores_upsert(rows=[ScoreRow(v, documents[0].pk, "polytope", 50.0)])
    document_scores_upsert(rows=[ScoreRow(v, documents[1].pk, "far@3", 0.5)])
    stale = StaleScores()
    for document in documents:
        stale.add(version_id=v, document_id=document.pk, metrics={"polytope", "faithfulness"})
    stale.add(version_id=versions[1].pk, document_id=documents[0].pk, metrics={"polytope"})
    rows = [ScoreRow(v, d.pk, "rouge1_f", 0.25) for d in documents]
    assert document_scores_upsert(rows=rows, stale=stale) == 3
    left = dict(stale.items())
    if connection.vendor == "postgresql":
        # Document 0 still holds PolyTope; documents 1 and 2 hold neither; version 2 was not
        # written.
        assert left == {
            (v, documents[0].pk): {"polytope", "faithfulness"},
            (versions[1].pk, documents[0].pk): {"polytope"},
        }
    else:  # SQLite: no hint, everything stays marked
        assert len(left) == 4
    assert document_scores_delete(stale=stale) == 1
    assert set(_stored()) == {
        (v, documents[0].pk, "rouge1_f"),
        (v, documents[1].pk, "far@3"),
        (v, documents[1].pk, "rouge1_f"),
        (v, documents[2].pk, "rouge1_f"),
    }


def test_pairs_q_is_exactly_the_pairs(world):
    """Versions with the same documents share a term; a version with others gets its own."""
    documents, versions = world
    document_scores_upsert(
        rows=[ScoreRow(v.pk, d.pk, "rouge1_f", 0.5) for v in versions for d in documents]
    )
    pairs = {versions[0].pk: [documents[0].pk, documents[2].pk], versions[1].pk: [documents[1].pk]}
    picked = DocumentScore.objects.filter(pairs_q(pairs)).values_list("version_id", "document_id")
    assert set(picked) == {(v, d) for v, ds in pairs.items() for d in ds}
    assert pairs_q({}) == Q()


def test_score_reads_give_back_the_exact_floats(world):
    """The readers take each value out of the JSON in the database, as a float: what was
    written comes back bit for bit, also a value PostgreSQL keeps as a 301-digit integer."""
    from scoring.scores.selectors import document_score_list, document_score_map

    documents, versions = world
    values = {"rouge1_f": 0.1 + 0.2, "rouge2_f": 5e-324, "far@3": 1.0, "autofar_l": 1e300}
    rows = [ScoreRow(versions[0].pk, documents[0].pk, m, v) for m, v in values.items()]
    rows.append(ScoreRow(versions[1].pk, documents[1].pk, "rouge1_f", 0.25))
    document_scores_upsert(rows=rows)
    wanted = [*values, "sar@3"]  # nobody has SAR: it is absent, not None
    listed = document_score_list(version_ids=[v.pk for v in versions], metrics=wanted)
    assert sorted(listed) == sorted((r.version_id, r.document_id, r.metric, r.value) for r in rows)
    assert all(type(value) is float for *_, value in listed)
    mapped = document_score_map(version_ids=[v.pk for v in versions], metrics=wanted)
    assert mapped == {
        versions[0].pk: {m: {documents[0].pk: v} for m, v in values.items()},
        versions[1].pk: {"rouge1_f": {documents[1].pk: 0.25}},
    }
    assert document_score_map(version_ids=[versions[1].pk], metrics=["far@3"]) == {}
    assert document_score_map(version_ids=[versions[0].pk], metrics=[]) == {}


def test_the_score_read_leaves_the_planner_settings_as_it_found_them(world):
    """The read lowers the parallel costs for its own statement only: the caller's transaction
    gets its settings back, and what the read returns does not depend on them."""
    from scoring.scores.selectors import document_score_map

    documents, versions = world
    document_scores_upsert(rows=[ScoreRow(versions[0].pk, documents[0].pk, "rouge1_f", 0.5)])

    def settings():
        if connection.vendor != "postgresql":
            return None
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('parallel_setup_cost'), "
                "current_setting('parallel_tuple_cost')"
            )
            return cursor.fetchone()

    before = settings()
    with transaction.atomic():
        mapped = document_score_map(version_ids=[versions[0].pk], metrics=["rouge1_f"])
        assert settings() == before
    assert mapped == {versions[0].pk: {"rouge1_f": {documents[0].pk: 0.5}}}
    assert settings() == before
    if connection.vendor == "postgresql":
        assert before == ("1000", "0.1")  # PostgreSQL's defaults, as this suite runs it
