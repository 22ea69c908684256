"""Score arrays: built from the score rows, dropped by any write, and read by the leaderboard
with the same figures as the rows give."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.corpus.models import Dataset, Document
from annotation.imports.bundle import SystemRecord
from annotation.systems.models import OutputVersion, SystemOutput
from scoring.leaderboards.selectors import CATEGORIES, leaderboard_read
from scoring.metrics.leaderboard import ScoreColumn
from scoring.scores.models import OUTPUTS_KEY, DocumentScore, ScoreArray
from scoring.scores.selectors import score_array_documents, score_array_map
from scoring.scores.services import (
    StaleScores,
    document_scores_delete,
    scoring_pending_run_inline,
)
from scoring.scores.services.arrays import score_arrays_build_missing
from scoring.uploads.services import system_output_import
from tests.score_helpers import score_plant
from tests.vendor_marks import needs_row_locks

pytestmark = pytest.mark.django_db

PARAMS = [
    {},
    {"k": 1},
    {"sort": "rouge2_f"},
    {"sort": "sar", "k": 1},
    {"common_only": True},
    *({"category": c} for c in CATEGORIES),
    {"category": "low+high", "sort": "rouge1_f", "common_only": True},
]


@pytest.fixture
def scored(demo):
    dataset = Dataset.objects.get(slug="demo")
    scoring_pending_run_inline(dataset=dataset, ks=[1, 3])
    return dataset


def _partial_system(dataset, tmp_path, slug="lead-2docs", documents=("demo-001", "demo-003")):
    """A system with outputs for only some documents, scored."""
    path = tmp_path / f"{slug}.jsonl"
    path.write_text("\n".join(json.dumps({"doc_id": d, "extracted": [0, 1]}) for d in documents))
    system_output_import(
        dataset=dataset,
        system=SystemRecord(slug=slug, name=slug.title(), kind="extractive"),
        source=path,
    )
    scoring_pending_run_inline(dataset=dataset, ks=[1, 3])


def _same(rows, arrays, path="payload"):
    """Equal payloads, except that an interval bound computed beside other columns may differ
    in its last bits (a matrix product's rounding depends on its width)."""
    if isinstance(rows, dict):
        assert isinstance(arrays, dict) and rows.keys() == arrays.keys(), path
        for key in rows:
            if key in ("ci_low", "ci_high") and rows[key] is not None:
                assert arrays[key] == pytest.approx(rows[key], rel=1e-12, abs=1e-15), path
            else:
                _same(rows[key], arrays[key], f"{path}.{key}")
    elif isinstance(rows, list):
        assert isinstance(arrays, list) and len(rows) == len(arrays), path
        for i, (a, b) in enumerate(zip(rows, arrays, strict=True)):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(rows, float) and math.isnan(rows):
        assert math.isnan(arrays), path
    else:
        assert rows == arrays, path


def _payloads(dataset):
    return [leaderboard_read(dataset=dataset, **params).payload for params in PARAMS]


def test_the_board_from_arrays_is_the_board_from_rows(scored, tmp_path):
    _partial_system(scored, tmp_path)  # one row covers 2 of the 6 documents
    from_rows = _payloads(scored)
    assert ScoreArray.objects.count() == 0
    assert score_arrays_build_missing(dataset=scored) == 4
    from_arrays = _payloads(scored)
    for params, rows, arrays in zip(PARAMS, from_rows, from_arrays, strict=True):
        _same(rows, arrays, f"payload{params}")
    # The partial row's notes come through the arrays too.
    assert "Lead-2Docs has outputs for 2 of 6 documents." in from_arrays[0]["notes"]


def test_the_arrays_hold_the_rows_values_and_the_outputs(scored, tmp_path):
    _partial_system(scored, tmp_path)
    score_arrays_build_missing(dataset=scored)
    ids, order = score_array_documents(dataset=scored)
    assert ids == list(
        Document.objects.filter(dataset=scored)
        .order_by("position", "external_id")
        .values_list("id", flat=True)
    )
    position = {d: i for i, d in enumerate(ids)}
    for version in OutputVersion.objects.filter(dataset=scored):
        arrays = {a.key: a for a in ScoreArray.objects.filter(version=version)}
        assert {a.order for a in arrays.values()} == {order}
        expected: dict[str, list] = {OUTPUTS_KEY: [math.nan] * len(ids)}
        for document_id in SystemOutput.objects.filter(version=version).values_list(
            "document_id", flat=True
        ):
            expected[OUTPUTS_KEY][position[document_id]] = 1.0
        for row in DocumentScore.objects.filter(version=version):
            for key, value in row.metrics.items():
                expected.setdefault(key, [math.nan] * len(ids))[position[row.document_id]] = value
        assert arrays.keys() == expected.keys(), version
        for key, values in expected.items():
            stored = np.frombuffer(bytes(arrays[key].values), dtype="<f8")
            np.testing.assert_array_equal(stored, np.array(values))
            assert arrays[key].count == sum(not math.isnan(v) for v in values)
    partial = ScoreArray.objects.get(version__system__slug="lead-2docs", key=OUTPUTS_KEY)
    assert partial.count == 2
    # Intervals were stored for the columns over all documents and over each category.
    far = ScoreArray.objects.get(version__system__slug="lead-3", key="far@3")
    assert len(far.cells) >= 2
    assert all(len(cell) == 4 for cell in far.cells.values())


def test_a_build_is_idempotent_and_a_write_drops_only_its_versions_arrays(scored):
    assert score_arrays_build_missing(dataset=scored) == 3
    assert score_arrays_build_missing(dataset=scored) == 0
    before = ScoreArray.objects.count()
    lead = OutputVersion.objects.get(dataset=scored, system__slug="lead-3")
    document = Document.objects.filter(dataset=scored).order_by("position").first()
    score_plant(version=lead, document=document, metric="rouge1_f", value=0.5)
    assert not ScoreArray.objects.filter(version=lead).exists()
    assert ScoreArray.objects.exclude(version=lead).count() > 0
    read = score_array_map(
        dataset=scored,
        version_ids=OutputVersion.objects.filter(dataset=scored).values_list("pk", flat=True),
        keys=["rouge1_f"],
    )
    assert lead.pk not in read.covered and len(read.covered) == 2
    # The board reads the new value from the rows until the arrays are built again.
    row = _row(leaderboard_read(dataset=scored, sort="rouge1_f").payload, "lead-3")
    assert score_arrays_build_missing(dataset=scored) == 1
    assert ScoreArray.objects.count() == before
    again = _row(leaderboard_read(dataset=scored, sort="rouge1_f").payload, "lead-3")
    assert again["rouge1_f"]["mean"] == row["rouge1_f"]["mean"]
    values = np.frombuffer(
        bytes(ScoreArray.objects.get(version=lead, key="rouge1_f").values), dtype="<f8"
    )
    ids, _ = score_array_documents(dataset=scored)
    assert values[ids.index(document.pk)] == 0.5


def _row(payload, system):
    return next(row for row in payload["systems"] if row["system"] == system)


def test_deleting_scores_drops_the_arrays(scored):
    score_arrays_build_missing(dataset=scored)
    lead = OutputVersion.objects.get(dataset=scored, system__slug="lead-3")
    document_id = DocumentScore.objects.filter(version=lead).values_list("document_id", flat=True)[
        0
    ]
    stale = StaleScores()
    stale.add(version_id=lead.pk, document_id=document_id, metrics=["rouge1_f"])
    assert document_scores_delete(stale=stale) == 1
    assert not ScoreArray.objects.filter(version=lead).exists()
    assert ScoreArray.objects.exclude(version=lead).exists()


def test_arrays_of_another_document_order_are_not_used(scored):
    from_rows = leaderboard_read(dataset=scored).payload
    score_arrays_build_missing(dataset=scored)
    first, second = Document.objects.filter(dataset=scored).order_by("position")[:2]
    Document.objects.filter(pk=first.pk).update(position=second.position)
    Document.objects.filter(pk=second.pk).update(position=first.position)
    _, order = score_array_documents(dataset=scored)
    assert not ScoreArray.objects.filter(order=order).exists()
    versions = OutputVersion.objects.filter(dataset=scored).values_list("pk", flat=True)
    assert score_array_map(dataset=scored, version_ids=versions, keys=["far@3"]).covered == {}
    swapped = leaderboard_read(dataset=scored).payload  # from the rows, in the new order
    assert [r["system"] for r in swapped["systems"]] == [r["system"] for r in from_rows["systems"]]
    assert score_arrays_build_missing(dataset=scored) == 3  # built again for the new order
    _same(swapped, leaderboard_read(dataset=scored).payload)


def test_the_board_reads_only_the_sort_metrics_values(scored):
    score_arrays_build_missing(dataset=scored)
    versions = list(OutputVersion.objects.filter(dataset=scored).values_list("pk", flat=True))
    read = score_array_map(dataset=scored, version_ids=versions, keys=["far@3", "rouge1_f"])
    column = read.columns[versions[0]]["rouge1_f"]
    assert isinstance(column, ScoreColumn)
    with CaptureQueriesContext(connection) as queries:
        leaderboard_read(dataset=scored)
    table = ScoreArray._meta.db_table
    values_read = [q["sql"] for q in queries.captured_queries if f'"{table}"."values"' in q["sql"]]
    # One query for the sort metric's arrays (FAR), none for the other columns: their
    # intervals were stored when the arrays were built.
    assert len(values_read) == 1, values_read
    score_rows = [q["sql"] for q in queries.captured_queries if "documentscore" in q["sql"].lower()]
    assert not score_rows, score_rows


def test_a_version_without_outputs_is_built_and_covers_nothing(scored):
    system = OutputVersion.objects.filter(dataset=scored).first().system
    empty = OutputVersion.objects.create(dataset=scored, system=system, number=99)
    assert score_arrays_build_missing(dataset=scored) == 3
    marker = ScoreArray.objects.get(version=empty, key=OUTPUTS_KEY)
    assert marker.count == 0
    read = score_array_map(dataset=scored, version_ids=[empty.pk], keys=["far@3"])
    assert read.covered == {empty.pk: frozenset()} and read.columns == {}
    assert score_arrays_build_missing(dataset=scored) == 0


@needs_row_locks
@pytest.mark.django_db(transaction=True)
def test_a_build_waits_for_a_writer_in_flight_and_holds_its_value(demo):
    import threading
    import time

    from django.db import connections, transaction

    dataset = Dataset.objects.get(slug="demo")
    scoring_pending_run_inline(dataset=dataset, ks=[3])
    lead = OutputVersion.objects.get(dataset=dataset, system__slug="lead-3")
    document = Document.objects.filter(dataset=dataset).order_by("position").first()
    written, commit, pids, errors = threading.Event(), threading.Event(), {}, []

    def writer():
        try:
            with transaction.atomic():
                score_plant(version=lead, document=document, metric="rouge1_f", value=0.25)
                written.set()
                assert commit.wait(30)
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connections.close_all()

    def builder():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                pids["builder"] = cursor.fetchone()[0]
            score_arrays_build_missing(dataset=dataset)
        except Exception as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer)]
    threads[0].start()
    assert written.wait(30)
    threads.append(threading.Thread(target=builder))
    threads[1].start()
    # The build waits on the version's row lock while the writer's transaction is open.
    deadline = time.monotonic() + 30
    waiting = False
    while time.monotonic() < deadline and not waiting:
        if "builder" in pids:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pids["builder"]]
                )
                row = cursor.fetchone()
            waiting = row is not None and row[0] == "Lock"
        time.sleep(0.05)
    commit.set()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert waiting, "the build did not wait for the writer"
    ids, _ = score_array_documents(dataset=dataset)
    values = np.frombuffer(
        bytes(ScoreArray.objects.get(version=lead, key="rouge1_f").values), dtype="<f8"
    )
    assert values[ids.index(document.pk)] == 0.25  # built after the writer committed


def test_a_value_the_database_writes_back_as_digits_comes_back_as_its_float(scored):
    # PostgreSQL's jsonb writes 1e300 back as a 301-digit integer; the array holds the float.
    lead = OutputVersion.objects.get(dataset=scored, system__slug="lead-3")
    document = Document.objects.filter(dataset=scored).order_by("position").first()
    score_plant(version=lead, document=document, metric="autofar_l", value=1e300)
    score_arrays_build_missing(dataset=scored)
    ids, _ = score_array_documents(dataset=scored)
    values = np.frombuffer(
        bytes(ScoreArray.objects.get(version=lead, key="autofar_l").values), dtype="<f8"
    )
    assert values[ids.index(document.pk)] == 1e300
    assert np.isnan(values).sum() == len(ids) - 1


def test_a_job_over_many_versions_builds_their_arrays_in_parts_then_completes(demo, settings):
    from annotation.jobs.tasks import job_done_task
    from scoring.scores.models import JobStatus
    from scoring.scores.selectors import score_array_missing
    from scoring.scores.services import scoring_chunk_compute, scoring_job_create, scoring_job_plan
    from scoring.scores.services.arrays import array_parts
    from scoring.scores.tasks import score_arrays_part, scoring_job_complete

    settings.LOUPE_ARRAY_PARTS_FROM = 2  # the demo's 3 versions count as many
    dataset = Dataset.objects.get(slug="demo")
    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
    for chunk in scoring_job_plan(job=job):
        scoring_chunk_compute(chunk=chunk)
    missing = score_array_missing(dataset=dataset)
    assert len(missing) == 3
    # The chord's callback, called as the worker calls it: it sends the arrays' parts (no
    # worker consumes them here; they are called below as the workers would) and waits.
    job_done_task([1], "scoring", job.pk)
    job.refresh_from_db()
    assert job.status != JobStatus.SUCCEEDED and not ScoreArray.objects.exists()
    parts = array_parts(missing, settings.LOUPE_ARRAY_PARTS)
    assert parts == [missing[0::2], missing[1::2]]
    assert [score_arrays_part(dataset.pk, part) for part in parts] == [2, 1]
    assert score_array_missing(dataset=dataset) == []
    assert score_arrays_part(dataset.pk, parts[0]) == 0  # redelivered: nothing to build
    job.refresh_from_db()
    assert job.status != JobStatus.SUCCEEDED  # the parts do not complete the job
    assert scoring_job_complete(job.pk) is True
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    # The first view is stored with the success, from the arrays.
    read = leaderboard_read(dataset=dataset, k=3)
    assert read.stored and len(read.payload["systems"]) == 3


def test_a_part_that_fails_leaves_its_versions_to_the_completion(demo, settings, monkeypatch):
    from scoring.scores import tasks as score_tasks
    from scoring.scores.models import JobStatus
    from scoring.scores.services import scoring_chunk_compute, scoring_job_create, scoring_job_plan
    from scoring.scores.tasks import scoring_job_complete

    dataset = Dataset.objects.get(slug="demo")
    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
    for chunk in scoring_job_plan(job=job):
        scoring_chunk_compute(chunk=chunk)

    def broken(**kwargs):
        raise RuntimeError("out of memory")

    with monkeypatch.context() as patch:
        patch.setattr(score_tasks, "score_arrays_build_missing", broken)
        versions = list(OutputVersion.objects.filter(dataset=dataset).values_list("pk", flat=True))
        assert score_tasks.score_arrays_part(dataset.pk, versions) == 0
    assert not ScoreArray.objects.exists()
    assert scoring_job_complete(job.pk) is True  # builds what the part left, then completes
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert ScoreArray.objects.filter(key=OUTPUTS_KEY).count() == 3


def test_a_write_drops_the_arrays_of_the_versions_it_cleans_too_before_it_writes(scored):
    # Upsert then delete in one transaction: the upsert locks and drops every version of both
    # at once (one ordered lock), so the delete that follows waits for nothing new.
    from django.db import transaction

    from scoring.scores.services import OutputScores, document_scores_upsert

    score_arrays_build_missing(dataset=scored)
    lead = OutputVersion.objects.get(dataset=scored, system__slug="lead-3")
    other = OutputVersion.objects.get(dataset=scored, system__slug="demo-extsum")
    document = Document.objects.filter(dataset=scored).order_by("position").first()
    stale = StaleScores()
    stale.add(version_id=other.pk, document_id=document.pk, metrics=["rouge1_f"])
    with transaction.atomic():
        document_scores_upsert(
            outputs=[OutputScores(lead.pk, document.pk, {"rouge1_f": 0.5})], stale=stale
        )
        assert not ScoreArray.objects.filter(version__in=[lead, other]).exists()
        document_scores_delete(stale=stale)
    assert ScoreArray.objects.filter(version__system__slug="demo-abs").exists()


def test_the_parts_error_callback_completes_the_job_all_the_same(demo):
    from scoring.scores.models import JobStatus
    from scoring.scores.services import scoring_chunk_compute, scoring_job_create, scoring_job_plan
    from scoring.scores.tasks import scoring_job_complete_anyway

    dataset = Dataset.objects.get(slug="demo")
    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
    for chunk in scoring_job_plan(job=job):
        scoring_chunk_compute(chunk=chunk)
    # As Celery calls a chord's error callback when a part died at its hard time limit.
    scoring_job_complete_anyway(None, RuntimeError("TimeLimitExceeded(660)"), None, job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert ScoreArray.objects.filter(key=OUTPUTS_KEY).count() == 3  # built by the completion
    assert leaderboard_read(dataset=dataset, k=3).stored


def test_a_write_between_the_arrays_sizes_and_their_values_sends_the_board_to_the_rows(
    scored, monkeypatch
):
    # A score write commits between the read of the arrays' sizes and the read of the sort
    # metric's values (a chunk of a new job dropping them): the column says so, and the board
    # is computed from the rows instead of failing.
    from scoring.leaderboards.selectors import board
    from scoring.scores.selectors import ScoreArrayGone
    from scoring.scores.services import score_arrays_drop

    # Sorted by ROUGE-1 F, whose arrays (every document) are read when the paired tests run.
    from_rows = leaderboard_read(dataset=scored, sort="rouge1_f").payload
    score_arrays_build_missing(dataset=scored)
    versions = list(OutputVersion.objects.filter(dataset=scored).values_list("pk", flat=True))
    read = score_array_map(dataset=scored, version_ids=versions, keys=["rouge1_f"])
    score_arrays_drop(version_ids=versions)
    lead = OutputVersion.objects.get(dataset=scored, system__slug="lead-3")
    with pytest.raises(ScoreArrayGone):  # a column over every document reads it now
        read.columns[lead.pk]["rouge1_f"].array()

    score_arrays_build_missing(dataset=scored)
    real = board.leaderboard_arrays
    calls = []

    def then_a_writer(**kwargs):
        found = real(**kwargs)
        calls.append(len(found.covered))
        score_arrays_drop(version_ids=versions)  # what a writer's commit does here
        return found

    monkeypatch.setattr(board, "leaderboard_arrays", then_a_writer)
    _same(from_rows, leaderboard_read(dataset=scored, sort="rouge1_f").payload)
    assert calls == [3]  # the arrays were read, then dropped; the rows gave the board
    assert not ScoreArray.objects.exists()
