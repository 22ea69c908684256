"""AutoFAR-L on the platform: machine FAM sets, runs over chunks, a lost worker, the leaderboard.

The hand-worked case (two scorers, three systems): one target document whose reference has two
facets, F1 "The cat sat on the mat." and F2 "Dogs bark loudly at night.", and four sentences:

    s0 "Mat on sat cat the the."     ROUGE-1 F vs F1 = 1 (same words), ROUGE-2 F = 0 (no bigram)
    s1 "The cat sat quietly."        ROUGE-1 F vs F1 = 2*(3/4*3/6)/(3/4+3/6) = 0.6,
                                     ROUGE-2 F = 2*(2/3*2/5)/(2/3+2/5) = 0.5
    s2 "Night at loudly bark dogs."  ROUGE-1 F vs F2 = 1, ROUGE-2 F = 0
    s3 "Dogs bark loudly today."     ROUGE-1 F vs F2 = 2*(3/4*3/5)/(3/4+3/5) = 0.667,
                                     ROUGE-2 F = 2*(2/3*2/4)/(2/3+2/4) = 0.571

(no sentence shares a word with the other facet). So the top-1 machine FAMs are
rouge1-f: F1 -> {s0}, F2 -> {s2}; rouge2-f: F1 -> {s1}, F2 -> {s3}. With k = 2:

    system A extracts [0, 2]:    FAR rouge1 = 2/2 = 1,   rouge2 = 0/2 = 0
    system B extracts [1, 2]:    FAR rouge1 = 1/2,       rouge2 = 1/2
    system C extracts [3, 1, 0]: first 2 only -> {3, 1}: rouge1 = 0, rouge2 = 2/2 = 1

The fit (set by hand): AutoFAR = -0.2 + 1.5 * rouge1 + 0.4 * rouge2, so
A = -0.2 + 1.5 = 1.3 (not clipped), B = -0.2 + 0.75 + 0.2 = 0.75, C = -0.2 + 0.4 = 0.2.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet, AnnotationSetKind, Fam
from annotation.jobs.tasks import job_chunk_task
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.autofar.models import AutoFarChunk, AutoFarFit, AutoFarRun, RunStatus
from scoring.autofar.selectors import autofar_stamp
from scoring.autofar.services import (
    AutoFarRunError,
    autofar_chunk_compute,
    autofar_run_create,
    autofar_run_finish,
    autofar_run_inline,
    autofar_run_plan,
    machine_fam_set_build,
)
from scoring.leaderboards.models import LeaderboardSnapshot
from scoring.leaderboards.selectors import leaderboard_read
from scoring.metrics.errors import MetricsError
from scoring.scores.models import DocumentScore
from scoring.scores.selectors import scoring_fam_map
from scoring.scores.services import scoring_pending_run_inline
from tests.score_helpers import score_plant, stored_scores

REFERENCE = ["The cat sat on the mat.", "Dogs bark loudly at night."]
SENTENCES = [
    "Mat on sat cat the the.",
    "The cat sat quietly.",
    "Night at loudly bark dogs.",
    "Dogs bark loudly today.",
]
EXTRACTED = {"sys-a": [0, 2], "sys-b": [1, 2], "sys-c": [3, 1, 0]}
EXPECTED = {"sys-a": 1.3, "sys-b": 0.75, "sys-c": 0.2}


def _document(dataset, external_id, position):
    document = Document.objects.create(
        dataset=dataset, external_id=external_id, position=position, sentences=SENTENCES
    )
    Reference.objects.create(document=document, position=0, sentences=REFERENCE)
    return document


def _output(system, version, document, extracted):
    SystemOutput.objects.create(
        system=system,
        version=version,
        document=document,
        sentences=[SENTENCES[i] for i in extracted],
        extracted=extracted,
        extraction_method="given",
    )


@pytest.fixture
def tiny(db):
    """See :func:`build_tiny`."""
    return build_tiny()


def build_tiny():
    """Target dataset: t1 and t2 (no human FAM, same text), h1 (a released FAM: left out);
    three extractive systems and an abstractive one; a fit set by hand (see above)."""
    dataset = Dataset.objects.create(slug="autofar-tiny", name="AutoFAR tiny")
    documents = [_document(dataset, name, n) for n, name in enumerate(("t1", "t2", "h1"))]
    released = AnnotationSet.objects.create(
        dataset=dataset, slug="released", name="R", kind=AnnotationSetKind.RELEASED
    )
    human = documents[2]
    Fam.objects.create(
        annotation_set=released,
        document=human,
        reference=human.references.get(),
        facets=[{"groups": [[0]], "label": "supported"}, {"groups": [[2]], "label": "supported"}],
    )
    for slug, extracted in EXTRACTED.items():
        system = System.objects.create(slug=slug, name=slug, kind="extractive")
        version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
        for document in documents:
            _output(system, version, document, extracted)
    abstractive = System.objects.create(slug="sys-abs", name="abs", kind="abstractive")
    version = OutputVersion.objects.create(system=abstractive, dataset=dataset, number=1)
    for document in documents:
        SystemOutput.objects.create(
            system=abstractive, version=version, document=document, sentences=["A cat."]
        )
    source = Dataset.objects.create(slug="autofar-source", name="fit source")
    fit = AutoFarFit.objects.create(
        dataset=source,
        scorers=["rouge1-f", "rouge2-f"],
        top_ns=[1],
        k=2,
        features=["rouge1-f@1", "rouge2-f@1"],
        intercept=-0.2,
        weights={"rouge1-f@1": 1.5, "rouge2-f@1": 0.4},
        rmse=0.1,
        r2=0.5,
        validation_rmse=0.2,
        validation_r2=0.25,
        report={},
        n_documents=10,
        n_systems=3,
        n_rows=30,
        digest="0" * 64,
    )
    return dataset, documents, fit


def _estimates(dataset) -> dict[tuple[str, str], float]:
    return {
        (s.row.version.system.slug, s.row.document.external_id): s.value
        for s in stored_scores("autofar_l", version__dataset=dataset)
    }


def _expected() -> dict[tuple[str, str], float]:
    return {(s, d): v for s, v in EXPECTED.items() for d in ("t1", "t2")}


@pytest.mark.django_db
def test_hand_worked_autofar_l_two_scorers_three_systems(tiny):
    dataset, documents, fit = tiny
    run = autofar_run_inline(run=autofar_run_create(dataset=dataset, fit=fit, queue=False))
    assert run.status == RunStatus.SUCCEEDED
    estimates = _estimates(dataset)
    assert estimates.keys() == _expected().keys()  # no h1 (human FAM), no abstractive system
    for key, value in _expected().items():
        assert estimates[key] == pytest.approx(value, abs=1e-12), key
    assert run.result["outputs_predicted"] == 6
    assert run.result["outputs_without_machine_support"] == 0
    by_system = {s["system"]: s for s in run.result["systems"]}
    assert by_system["sys-a"]["mean"] == pytest.approx(1.3)
    assert by_system["sys-abs"]["mean"] is None and "abstractive" in by_system["sys-abs"]["reason"]

    # The machine FAMs are stored: read-only machine sets, never scoring FAMs.
    r1 = AnnotationSet.objects.get(dataset=dataset, slug="machine-rouge1-f-n1")
    r2 = AnnotationSet.objects.get(dataset=dataset, slug="machine-rouge2-f-n1")
    assert r1.kind == AnnotationSetKind.MACHINE and r1.read_only
    t1 = documents[0]
    assert [f["groups"] for f in Fam.objects.get(annotation_set=r1, document=t1).facets] == [
        [[0]],
        [[2]],
    ]
    assert [f["groups"] for f in Fam.objects.get(annotation_set=r2, document=t1).facets] == [
        [[1]],
        [[3]],
    ]
    assert set(scoring_fam_map(dataset=dataset)) == {documents[2].pk}


@pytest.mark.django_db
def test_machine_fam_set_rebuild_replaces_its_fams(tiny):
    dataset, documents, _ = tiny
    first = machine_fam_set_build(dataset=dataset, scorer="rouge2-f", top_n=2)
    assert first.fams == 3 and first.without_support == 0
    again = machine_fam_set_build(dataset=dataset, scorer="rouge2-f", top_n=2)
    assert again.annotation_set.pk == first.annotation_set.pk
    fams = Fam.objects.filter(annotation_set=again.annotation_set)
    assert fams.count() == 3
    # Top-2 keeps only sentences with evidence: F1 has s1 only, F2 has s3 only.
    assert [f["groups"] for f in fams.get(document=documents[0]).facets] == [[[1]], [[3]]]
    assert not set(scoring_fam_map(dataset=dataset)) - {documents[2].pk}


@pytest.mark.django_db
def test_a_lost_worker_and_a_failing_chunk_lose_nothing(tiny):
    dataset, documents, fit = tiny
    run = autofar_run_create(dataset=dataset, fit=fit, queue=False)
    chunks = autofar_run_plan(run=run, chunk_size=1)
    assert [c.document_ids for c in chunks] == [[documents[0].pk], [documents[1].pk]]
    # Chunk 0 is done by a worker (the task called directly), then redelivered: no duplicate.
    assert job_chunk_task.run("autofar", run.pk, chunks[0].pk) == 3
    assert job_chunk_task.run("autofar", run.pk, chunks[0].pk) == 0  # done: a no-op
    assert autofar_chunk_compute(chunk=AutoFarChunk.objects.get(pk=chunks[0].pk)) == 3
    run.refresh_from_db()
    assert (run.status, run.chunks_done, run.scores_written) == (RunStatus.RUNNING, 1, 3)
    # The worker of chunk 1 died: the run stays running and cannot finish.
    assert not autofar_run_finish(run=run)
    # Asking again resumes the stale run instead of starting another.
    assert autofar_run_create(dataset=dataset, fit=fit, queue=False).pk == run.pk

    # Resumed here, a chunk that raises (an extracted index outside its document) writes
    # nothing of its own; the run, which a worker may still own, stays running.
    bad = SystemOutput.objects.get(document=documents[1], system__slug="sys-b")
    bad.extracted = [1, 9]
    bad.save()
    with pytest.raises(MetricsError, match="index 9 is out of range"):
        autofar_run_inline(run=run)
    run.refresh_from_db()
    assert (run.status, run.chunks_done) == (RunStatus.RUNNING, 1)
    assert set(_estimates(dataset)) == {(s, "t1") for s in EXPECTED}
    assert not Fam.objects.filter(
        annotation_set__kind=AnnotationSetKind.MACHINE, document=documents[1]
    ).exists()

    # Fixed and resumed: the same rows as the hand-worked figures, none twice, chunk 0 not redone.
    bad.extracted = EXTRACTED["sys-b"]
    bad.save()
    resumed = autofar_run_inline(run=autofar_run_create(dataset=dataset, fit=fit, queue=False))
    assert resumed.pk == run.pk and resumed.status == RunStatus.SUCCEEDED
    attempts = dict(resumed.chunks.values_list("index", "attempts"))
    # The job kernel counts a chunk's starts: chunk 0 once (its task; the redelivery found it
    # done, and the service called directly is no start), chunk 1 twice (both resumptions).
    assert attempts == {0: 1, 1: 2}
    assert resumed.scores_written == 6 and resumed.result["outputs_predicted"] == 6
    estimates = _estimates(dataset)
    assert estimates == pytest.approx(_expected(), abs=1e-12)
    assert len(stored_scores("autofar_l", version__dataset=dataset)) == 6
    # A new run of a queued (owned) state fails on the same error and keeps the rows.
    bad.extracted = [1, 9]
    bad.save()
    with pytest.raises(MetricsError):
        autofar_run_inline(run=autofar_run_create(dataset=dataset, fit=fit, queue=False))
    failed = AutoFarRun.objects.exclude(pk=run.pk).get()
    assert failed.status == RunStatus.FAILED and "index 9 is out of range" in failed.error
    assert _estimates(dataset) == pytest.approx(_expected(), abs=1e-12)
    assert Fam.objects.filter(annotation_set__kind=AnnotationSetKind.MACHINE).count() == 2 * 2


@pytest.mark.django_db
def test_a_finished_run_changes_the_leaderboard(tiny):
    dataset, _, fit = tiny
    scoring_pending_run_inline(dataset=dataset, ks=[2])  # ROUGE and FAR, as a scoring job does
    before = leaderboard_read(dataset=dataset, k=2)
    assert "autofar_l" not in before.payload["metrics"]
    assert before.payload["autofar"] == {"available": False, "metric": "autofar_l"}
    assert autofar_stamp(dataset) == "-"
    run = autofar_run_inline(run=autofar_run_create(dataset=dataset, fit=fit, queue=False))
    assert autofar_stamp(dataset) == f"{run.pk}@{run.finished_at.isoformat()}"
    after = leaderboard_read(dataset=dataset, k=2)
    assert after.stamp != before.stamp and not after.stored
    payload = after.payload
    assert payload["metrics"][:2] == ["far", "autofar_l"]  # beside FAR (h1's human FAM)
    rows = {row["system"]: row for row in payload["systems"]}
    assert rows["sys-a"]["autofar_l"]["mean"] == pytest.approx(1.3)
    assert rows["sys-c"]["autofar_l"]["mean"] == pytest.approx(0.2)
    assert rows["sys-abs"]["autofar_l"] is None
    block = payload["autofar"]
    assert block["available"] and block["estimate"] and block["fit"]["id"] == fit.pk
    note = (
        "AutoFAR-L: estimated FAR from machine FAMs, fitted on autofar-source, fit RMSE 0.100, "
        "R\u00b2 0.500, leave-one-system-out RMSE 0.200 / R\u00b2 0.250"
    )
    assert block["note"] == note
    assert note in payload["notes"]
    assert any(
        "Abstractive systems have no extracted sentence indices" in n for n in payload["notes"]
    )


@pytest.mark.django_db
def test_a_run_needs_extractive_outputs_and_documents_without_human_fams(tiny):
    dataset, documents, fit = tiny
    empty = Dataset.objects.create(slug="autofar-empty", name="empty")
    with pytest.raises(AutoFarRunError, match="no extractive system output"):
        autofar_run_create(dataset=empty, fit=fit, queue=False)
    assert not AutoFarRun.objects.filter(dataset=empty).exists()


@pytest.mark.django_db
def test_the_api_starts_lists_and_reads_runs_and_refuses_bad_input(tiny, client_for):
    dataset, _, fit = tiny
    client = client_for("researcher")
    started = client.post(f"/api/datasets/{dataset.slug}/autofar-runs/start/", {"fit": fit.pk})
    assert started.status_code == 202, started.content
    run = started.json()
    assert (run["status"], run["fit"], run["fit_dataset"]) == ("queued", fit.pk, "autofar-source")
    again = client.post(f"/api/datasets/{dataset.slug}/autofar-runs/start/", {"fit": fit.pk})
    # While it is unfinished, a second start is refused naming it (409), not a second run.
    assert again.status_code == 409 and again.json()["extra"]["run"] == run["id"]
    assert AutoFarRun.objects.filter(dataset=dataset).count() == 1
    autofar_run_inline(run=AutoFarRun.objects.get(pk=run["id"]))
    detail = client.get(f"/api/autofar-runs/{run['id']}/").json()
    assert detail["status"] == "succeeded" and detail["result"]["outputs_predicted"] == 6
    listed = client.get(f"/api/datasets/{dataset.slug}/autofar-runs/").json()
    assert [r["id"] for r in listed] == [run["id"]]
    assert client.get(f"/api/autofar/fits/{fit.pk}/").json()["features"] == fit.features

    assert (
        client.post(f"/api/datasets/{dataset.slug}/autofar-runs/start/", {"fit": 999}).status_code
        == 404
    )
    unknown = client.post(
        "/api/autofar/fits/create/", {"dataset": dataset.slug, "scorers": ["nope"]}, format="json"
    )
    assert unknown.status_code == 400 and "nope" in unknown.json()["message"]
    no_fams = client.post("/api/autofar/fits/create/", {"dataset": "autofar-source"}, format="json")
    assert (
        no_fams.status_code == 400 and "no document with a human FAM" in no_fams.json()["message"]
    )
    bad_n = client.post(
        "/api/autofar/fits/create/", {"dataset": dataset.slug, "top_ns": [0]}, format="json"
    )
    assert bad_n.status_code == 400
    assert AutoFarFit.objects.count() == 1


def test_rouge_scorers_from_one_allpairs_equal_their_own_scores():
    """AutoFAR-L shares one all-pairs ROUGE per document among its ROUGE features."""
    import numpy as np

    from scoring.autofar.services.machine import top_n_prefix
    from scoring.metrics.rouge import allpairs
    from scoring.metrics.suggest import get_scorer, machine_fam_from_scores

    rng = np.random.default_rng(7)
    words = [*"the a cat dog sat ran on at mat night bark barking loudly today".split()]

    def text(n):
        return " ".join(rng.choice(words, size=n)) + "."

    names = [f"{v}-{m}" for v in ("rouge1", "rouge2", "rougel", "rougeavg") for m in "fpr"]
    documents = [(REFERENCE, SENTENCES)]
    documents += [([text(8) for _ in range(3)], [text(12) for _ in range(20)]) for _ in range(20)]
    for reference, sentences in documents:
        pairs = allpairs(reference, sentences)
        for name in names:
            scorer = get_scorer(name)
            own = scorer.score(reference, sentences)
            assert (scorer.from_pairs(pairs) == own).all(), name
            for n in (1, 2):  # one ranking serves every N
                assert top_n_prefix(machine_fam_from_scores(own, top_n=3), n) == (
                    machine_fam_from_scores(own, top_n=n)
                ), (name, n)


@pytest.mark.django_db(transaction=True)
def test_a_run_through_a_real_celery_worker(celery_worker_process):
    """The run task plans, the chord's chunks run on the worker, the callback finishes it."""
    import time

    dataset, _, fit = build_tiny()
    run = autofar_run_create(dataset=dataset, fit=fit)  # queued when its transaction commits
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished:
            break
        time.sleep(0.25)
    assert run.status == RunStatus.SUCCEEDED, (run.status, run.error)
    assert run.chunks_done == run.chunks_total == 1 and run.dispatches == 1
    assert _estimates(dataset) == pytest.approx(_expected(), abs=1e-12)
    # The finished run is announced, and the leaderboards (which AutoFAR does not import) warm
    # the dataset's tables at the fit's k: all documents and each of the four categories.
    while time.monotonic() < deadline:
        if LeaderboardSnapshot.objects.filter(dataset=dataset).count() >= 5:
            break
        time.sleep(0.25)
    assert LeaderboardSnapshot.objects.filter(dataset=dataset).count() == 5
    board = leaderboard_read(dataset=dataset, k=2)
    assert board.stored  # stored after the run: its stamp has the finished run
    assert "autofar_l" in board.payload["metrics"]


@pytest.mark.django_db(transaction=True)
def test_one_chunk_computed_twice_at_once_writes_once():
    """A chunk redelivered while its first worker still runs it: both finish, no collision."""
    import threading

    from django.db import connection

    dataset, documents, fit = build_tiny()
    run = autofar_run_create(dataset=dataset, fit=fit, queue=False)
    (chunk,) = autofar_run_plan(run=run)
    errors, start = [], threading.Barrier(2)

    def work():
        try:
            start.wait()
            autofar_chunk_compute(chunk=AutoFarChunk.objects.get(pk=chunk.pk))
        except Exception as error:  # recorded for the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert autofar_run_finish(run=run)
    run.refresh_from_db()
    assert (run.chunks_done, run.scores_written) == (1, 6)
    assert _estimates(dataset) == pytest.approx(_expected(), abs=1e-12)
    assert Fam.objects.filter(annotation_set__kind=AnnotationSetKind.MACHINE).count() == 2 * 2


@pytest.mark.parametrize("value", [1.3, -7.25, 1e300, -1e300])
def test_autofar_l_stores_any_finite_value(tiny, value):
    dataset, documents, _ = tiny
    version = OutputVersion.objects.filter(dataset=dataset).first()
    score_plant(version=version, document=documents[0], metric="autofar_l", value=value)
    assert DocumentScore.objects.get(version=version).metrics == {"autofar_l": value}


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_autofar_l_refuses_what_is_not_finite(tiny, value):
    """The score store refuses infinities and NaN (JSON could not hold them either)."""
    dataset, documents, _ = tiny
    version = OutputVersion.objects.filter(dataset=dataset).first()
    with pytest.raises(ValidationError, match="autofar_l=.*: not a finite number"):
        score_plant(version=version, document=documents[0], metric="autofar_l", value=value)
