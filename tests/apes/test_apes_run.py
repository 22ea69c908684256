"""APES runs on a hand-worked dataset: questions, answers, stored scores, leaderboard, API."""

from __future__ import annotations

import json
import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.models import Dataset, Document, Reference
from annotation.jobs.tasks import job_chunk_task, job_done_task
from annotation.systems.models import OutputVersion, System, SystemKind, SystemOutput
from scoring.apes.models import ApesChunk, ApesQuestionSet, ApesRun, RunStatus
from scoring.apes.selectors import apes_system_list
from scoring.apes.services import apes_run_create, apes_run_inline, apes_run_plan
from scoring.leaderboards.models import LeaderboardSnapshot
from scoring.leaderboards.selectors.board import leaderboard_read
from tests.score_helpers import score_plant, stored_scores

# The core README's worked example. spaCy (en_core_web_sm 3.8.0) tags Obama and Merkel as
# PERSON and Berlin as GPE in every sentence used here (checked when writing the test).
REFERENCE = ["Obama met Merkel in Berlin.", "Merkel praised Obama and Obama smiled."]
QUESTIONS = [
    ("@placeholder met Merkel in Berlin.", "obama"),
    ("Obama met @placeholder in Berlin.", "merkel"),
    ("Obama met Merkel in @placeholder.", "berlin"),
    ("@placeholder praised Obama and Obama smiled.", "merkel"),
    ("Merkel praised @placeholder and @placeholder smiled.", "obama"),
]
# By hand (entity matching, README's ranking: candidates not named in the question first, then
# context-word overlap, more mentions, earlier first mention):
# * "Obama and Merkel met in Berlin. Obama smiled.": Q1-Q3 each have one candidate not named
#   in the question, the right one. Q4 (named: Obama): Merkel {obama, met, berlin} and Berlin
#   {obama, merkel, met} overlap {praised, obama, smiled} by 1 each, one mention each, Merkel
#   first -> right. Q5 (named: Merkel): Obama (contexts {merkel, met, berlin}, {smiled}) and
#   Berlin ({obama, merkel, met}) overlap 1 each; Obama has 2 mentions -> right. 5/5.
# * "Berlin welcomed Merkel.": the README's 2/5 = 0.4.
# * "Berlin was quiet.": the only candidate, Berlin, answers everything: right only for Q3, 1/5,
#   whatever the ranking, so the embedding answerer gives 0.2 too.
# * "It was a quiet day.": no entity, every answer None: 0/5 for both answerers.
FULL = ["Obama and Merkel met in Berlin.", "Obama smiled."]
WELCOME = ["Berlin welcomed Merkel."]
QUIET = ["Berlin was quiet."]
NONE = ["It was a quiet day."]


def _output(system, dataset, document, number, sentences):
    version, _ = OutputVersion.objects.get_or_create(system=system, dataset=dataset, number=number)
    return SystemOutput.objects.create(
        system=system, version=version, document=document, sentences=sentences
    )


@pytest.fixture
def toy(db):
    dataset = Dataset.objects.create(slug="apes-toy", name="APES toy")
    d1 = Document.objects.create(
        dataset=dataset, external_id="d1", position=0, sentences=["Source one."]
    )
    d2 = Document.objects.create(
        dataset=dataset, external_id="d2", position=1, sentences=["Source two."]
    )
    d3 = Document.objects.create(
        dataset=dataset, external_id="d3", position=2, sentences=["Source three."]
    )
    Reference.objects.create(document=d1, position=0, sentences=REFERENCE)
    Reference.objects.create(document=d2, position=0, sentences=["It rained all week."])  # DATE
    systems = {
        slug: System.objects.create(slug=slug, name=slug.title(), kind=SystemKind.ABSTRACTIVE)
        for slug in ("full", "welcome", "quiet", "none")
    }
    _output(systems["full"], dataset, d1, 1, FULL)
    _output(systems["full"], dataset, d2, 1, ["Obama smiled."])
    _output(systems["welcome"], dataset, d1, 1, WELCOME)
    # quiet's version 1 was perfect; only its current version 2 counts.
    _output(systems["quiet"], dataset, d1, 1, FULL)
    _output(systems["quiet"], dataset, d1, 2, QUIET)
    _output(systems["quiet"], dataset, d2, 2, ["Berlin again."])
    _output(systems["quiet"], dataset, d3, 2, ["No reference here."])
    _output(systems["none"], dataset, d1, 1, NONE)
    return dataset


def _scores(dataset, metric):
    return {
        (s.row.version.system.slug, s.row.document.external_id): s.value
        for s in stored_scores(metric, version__dataset=dataset)
    }


def _run_as_a_worker(run: ApesRun) -> ApesRun:
    """What the workers do: plan, every chunk task, then the chord's callback."""
    results = [job_chunk_task("apes", run.pk, chunk.pk) for chunk in apes_run_plan(run=run)]
    job_done_task(results, "apes", run.pk)
    run.refresh_from_db()
    return run


@pytest.mark.django_db
def test_hand_worked_questions_answers_and_apes_through_the_run(toy):
    run = apes_run_create(dataset=toy, chunk_size=2, queue=False)
    assert run.answerers == ["apes", "apes_embedding"] and run.skipped == {}
    run = _run_as_a_worker(run)
    assert run.status == RunStatus.SUCCEEDED, run.error
    # 7 current outputs in chunks of 2; quiet's version 1 is not read.
    assert run.outputs_total == 7 and run.chunks_total == run.chunks_done == 4
    assert run.outcomes == {"scored": 4, "no_questions": 2, "no_reference": 1}
    assert run.scores_written == 8 and run.questions_answered == 4 * 5 * 2

    cached = ApesQuestionSet.objects.get(reference__document__external_id="d1")
    assert [(q["text"], q["answer_key"]) for q in cached.questions] == QUESTIONS
    assert ApesQuestionSet.objects.get(reference__document__external_id="d2").n_questions == 0

    matching = _scores(toy, "apes")
    assert matching == {
        ("full", "d1"): 1.0,
        ("welcome", "d1"): 0.4,
        ("quiet", "d1"): 0.2,
        ("none", "d1"): 0.0,
    }
    embedding = _scores(toy, "apes_embedding")
    assert set(embedding) == set(matching)
    assert embedding[("quiet", "d1")] == 0.2 and embedding[("none", "d1")] == 0.0
    # Q2 and Q3 of "Berlin welcomed Merkel." have one unnamed candidate, Q5 only a wrong one.
    assert 0.4 <= embedding[("welcome", "d1")] <= 0.8
    assert 0.6 <= embedding[("full", "d1")] <= 1.0

    rows = {(r["answerer"], r["system"]): r for r in apes_system_list(dataset=toy)}
    quiet = rows[("apes", "quiet")]
    assert quiet["version"] == 2 and quiet["value"] == 0.2 and quiet["pooled"] == 0.2
    assert (quiet["n_summaries"], quiet["n_scored"], quiet["n_undefined"]) == (3, 1, 2)
    assert (quiet["n_questions"], quiet["n_correct"], quiet["n_documents_without_output"]) == (
        5,
        1,
        0,
    )
    assert sorted(quiet["undefined_reasons"].values()) == [1, 1]
    full = rows[("apes", "full")]
    assert (full["value"], full["n_undefined"], full["n_documents_without_output"]) == (1.0, 1, 1)


@pytest.mark.django_db
def test_a_rerun_is_idempotent_and_a_changed_reference_recomputes_its_questions(toy):
    _run_as_a_worker(apes_run_create(dataset=toy, answerers=["apes"], queue=False))
    cached = ApesQuestionSet.objects.get(reference__document__external_id="d1")
    before = [(s.row.pk, s.value) for s in stored_scores("apes")]
    run = _run_as_a_worker(apes_run_create(dataset=toy, answerers=["apes"], queue=False))
    assert run.status == RunStatus.SUCCEEDED
    assert [(s.row.pk, s.value) for s in stored_scores("apes")] == before
    again = ApesQuestionSet.objects.get(pk=cached.pk)
    assert again.computed_at == cached.computed_at  # reused, not recomputed
    # The reference loses its entities: its questions are recomputed and the rows go.
    Reference.objects.filter(document__external_id="d1").update(sentences=["A calm day."])
    run = _run_as_a_worker(apes_run_create(dataset=toy, answerers=["apes"], queue=False))
    assert run.outcomes == {"scored": 0, "no_questions": 6, "no_reference": 1}
    assert not stored_scores("apes")


@pytest.mark.django_db
def test_a_redelivered_chunk_recomputes_without_duplicates(toy):
    run = apes_run_create(dataset=toy, answerers=["apes"], chunk_size=3, queue=False)
    first, *rest = apes_run_plan(run=run)
    # A worker died inside the first chunk, before its transaction committed: the chunk was
    # marked started and nothing else was written. The broker sends it again.
    ApesChunk.objects.filter(pk=first.pk).update(attempts=1)
    assert job_chunk_task("apes", run.pk, first.pk) > 0
    assert job_chunk_task("apes", run.pk, first.pk) == 0  # a done chunk delivered again: a no-op
    assert ApesChunk.objects.get(pk=first.pk).attempts == 2
    job_done_task([0], "apes", run.pk)  # the chord callback with chunks missing: no-op
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.chunks_done == 1
    for chunk in rest:
        job_chunk_task("apes", run.pk, chunk.pk)
    job_done_task([0], "apes", run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.chunks_done == run.chunks_total == 3
    keys = [(s.version_id, s.document_id) for s in stored_scores("apes")]
    assert len(keys) == len(set(keys)) == 4


@pytest.mark.django_db
def test_the_leaderboard_shows_apes_and_its_correlation_with_far(toy):
    before = leaderboard_read(dataset=toy)
    _run_as_a_worker(apes_run_create(dataset=toy, queue=False))
    after = leaderboard_read(dataset=toy, sort="apes")
    assert after.stamp != before.stamp  # a finished run changes the leaderboard
    assert {"apes", "apes_embedding"} <= set(after.payload["metrics"])
    rows = {row["system"]: row for row in after.payload["systems"]}
    assert rows["welcome"]["apes"]["mean"] == pytest.approx(0.4)
    assert after.payload["apes"]["available"] is True
    assert after.payload["apes"]["correlations"] == []  # no FAR in this dataset
    # FAR by hand on d1, a linear function of APES (0.1 + 0.5 * APES): r = rho = tau = 1.
    d1 = Document.objects.get(dataset=toy, external_id="d1")
    for system, apes in (("full", 1.0), ("welcome", 0.4), ("quiet", 0.2), ("none", 0.0)):
        version = OutputVersion.objects.filter(system__slug=system).order_by("-number").first()
        score_plant(version=version, document=d1, metric="far@3", value=0.1 + apes / 2)
    # Scores written by hand change no stamp; a new finished run does.
    _run_as_a_worker(apes_run_create(dataset=toy, answerers=["apes"], queue=False))
    board = leaderboard_read(dataset=toy, sort="apes").payload
    correlations = {c["level"]: c for c in board["apes"]["correlations"] if c["metric"] == "apes"}
    for level in ("system", "instance"):
        assert correlations[level]["human"] == "far" and correlations[level]["n"] == 4
        for method in ("pearson", "spearman", "kendall"):
            assert correlations[level][method]["value"] == pytest.approx(1.0), (level, method)


@pytest.mark.django_db(transaction=True)
def test_a_run_on_a_real_worker_warms_the_default_leaderboards(toy, celery_worker_process):
    """The finished run is announced; the leaderboards (which APES does not import) warm."""
    run = apes_run_create(dataset=toy, answerers=["apes"])  # queued when its transaction commits
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not run.finished:
        time.sleep(0.25)
        run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, (run.status, run.error)
    # All documents and each of the four categories, at the default k.
    while time.monotonic() < deadline:
        if LeaderboardSnapshot.objects.filter(dataset=toy).count() >= 5:
            break
        time.sleep(0.25)
    assert LeaderboardSnapshot.objects.filter(dataset=toy).count() == 5
    board = leaderboard_read(dataset=toy)
    assert board.stored  # stored after the run: its stamp has the finished run
    assert "apes" in board.payload["metrics"]


@pytest.mark.django_db
def test_command_prints_per_system_apes_and_refuses_bad_input(toy):
    out = StringIO()
    call_command(
        "apes", "--dataset", "apes-toy", "--answerer", "apes", "--format", "json", stdout=out
    )
    report = json.loads(out.getvalue())
    rows = {row["system"]: row for row in report["systems"]}
    assert {row["answerer"] for row in report["systems"]} == {"apes"}
    assert (rows["welcome"]["value"], rows["welcome"]["n_questions"]) == (0.4, 5)
    assert rows["none"]["value"] == 0.0 and rows["none"]["n_correct"] == 0
    assert report["meta"]["run"]["outcomes"]["no_reference"] == 1
    text = StringIO()
    call_command("apes", "--dataset", "apes-toy", "--stored", stdout=text)
    assert "welcome" in text.getvalue() and "0.4000" in text.getvalue()
    with pytest.raises(CommandError, match="no dataset with slug 'nope'"):
        call_command("apes", "--dataset", "nope")


@pytest.mark.django_db
def test_api_starts_a_run_and_reads_it(toy, client_for, django_capture_on_commit_callbacks):
    client = client_for("researcher")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(
            "/api/datasets/apes-toy/apes-runs/start/", {"answerers": ["apes"]}, format="json"
        )
    assert response.status_code == 202, response.content
    assert len(queued) == 1  # the run task goes to the broker on commit
    body = response.json()
    assert body["status"] == "queued" and body["answerers"] == ["apes"]
    bad = client.post(
        "/api/datasets/apes-toy/apes-runs/start/", {"answerers": ["oracle"]}, format="json"
    )
    assert bad.status_code == 400
    run = apes_run_inline(run=ApesRun.objects.get(pk=body["id"]))
    detail = client.get(f"/api/apes-runs/{run.pk}/").json()
    assert detail["status"] == "succeeded" and detail["outcomes"]["scored"] == 4
    assert set(detail["outcome_reasons"]) == {"no_questions", "no_reference"}
    assert [r["id"] for r in client.get("/api/datasets/apes-toy/apes-runs/").json()] == [run.pk]
    systems = client.get("/api/datasets/apes-toy/apes/").json()["systems"]
    assert {r["system"]: r["value"] for r in systems if r["answerer"] == "apes"}["quiet"] == 0.2
    assert client_for("annotator").get(f"/api/apes-runs/{run.pk}/").status_code == 403


@pytest.mark.django_db
def test_without_the_embeddings_extra_the_embedding_answerer_is_skipped_clearly(toy, monkeypatch):
    import sys

    from scoring.apes.nlp import ApesUnavailableError, SpacyRecognizer, answerer_build

    # The import now fails as if sentence-transformers were not installed (as test_suggest).
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ApesUnavailableError, match=r"loupe\[embeddings\]"):
        answerer_build("apes_embedding", SpacyRecognizer())
    out = StringIO()
    call_command("apes", "--dataset", "apes-toy", stdout=out)
    text = out.getvalue()
    assert "skipped apes_embedding: the embedding answerer is skipped" in text
    assert "sentence_transformers" in text and "loupe[embeddings]" in text
    run = ApesRun.objects.get()
    assert run.answerers == ["apes"] and list(run.skipped) == ["apes_embedding"]
    assert run.status == RunStatus.SUCCEEDED and run.outcomes["scored"] == 4
    assert not stored_scores("apes_embedding")
    # Asking for the embedding answerer alone: nothing can run, a clear 400 / command error.
    with pytest.raises(CommandError, match="no APES answerer can run here"):
        call_command("apes", "--dataset", "apes-toy", "--answerer", "apes_embedding")


@pytest.mark.django_db
def test_the_leaderboard_page_has_the_apes_section(toy, users, client):
    client.force_login(users["researcher"])
    page = client.get("/leaderboards/apes-toy/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="apes-correlations"' in html and 'id="apes-corr-table"' in html
    assert 'aria-labelledby="apes-corr-heading"' in html
