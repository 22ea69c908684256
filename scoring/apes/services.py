"""APES writes: create a run, plan its chunks, answer a chunk's questions and upsert the scores."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction

from annotation.corpus.models import Dataset, Reference
from annotation.jobs.kernel import (
    BACKGROUND_PRIORITY,
    JobKind,
    job_chunk_done,
    job_complete,
    job_fail,
    job_kind_register,
    job_plan,
    job_run_inline,
    job_send_on_commit,
    job_unfinished_refuse,
)
from annotation.systems.models import SystemOutput
from config.exceptions import ApplicationError
from scoring.metrics.apes import ClozeQuestion, Entity, make_questions, score_summary
from scoring.scores.selectors import output_version_current_list
from scoring.scores.services.store import (
    ScoreRow,
    StaleScores,
    document_scores_delete,
    document_scores_upsert,
)

from .models import ApesChunk, ApesQuestionSet, ApesRun
from .nlp import (
    ANSWERER_KEYS,
    ApesUnavailableError,
    SpacyRecognizer,
    answerer_build,
    answerers_available,
    sentence_spans,
    spacy_version,
)
from .signals import apes_run_finished

log = logging.getLogger(__name__)

DEFAULT_CHUNK = 50
SCORED = "scored"
NO_QUESTIONS = "no_questions"
NO_REFERENCE = "no_reference"
OUTCOME_REASONS = {
    NO_QUESTIONS: "the reference has no named entity to ask about, so APES is undefined (0/0)",
    NO_REFERENCE: "the document has no reference summary",
}


class ApesRequestError(ApplicationError):
    """An APES run cannot be started as asked (unknown answerer, nothing installed to run)."""


def _chunk_size() -> int:
    return int(getattr(settings, "LOUPE_APES_CHUNK", DEFAULT_CHUNK))


@transaction.atomic
def apes_run_create(
    *,
    dataset: Dataset,
    answerers: Sequence[str] | None = None,
    user=None,
    chunk_size: int | None = None,
    queue: bool = True,
) -> ApesRun:
    """Create an APES run over the dataset's current output versions and queue it on commit.

    Answerers whose optional extra is not installed are skipped, each with its reason in
    ``skipped``; a run is refused when none can run or spaCy's model is missing.

    Args:
        dataset: the dataset.
        answerers: answerer keys (``apes``, ``apes_embedding``); default every one.
        user: who asked for it.
        chunk_size: outputs per chunk (default ``settings.LOUPE_APES_CHUNK`` or 50).
        queue: send it to the workers on commit (False: the caller runs it in-process).

    Returns:
        The queued run.

    Raises:
        ApesRequestError: an unknown answerer, none available, or spaCy's model missing.
    """
    keys = list(dict.fromkeys(answerers or ANSWERER_KEYS))
    try:
        available, skipped = answerers_available(keys)
        spacy_version()
    except (ValueError, ApesUnavailableError) as error:
        raise ApesRequestError(str(error)) from error
    if not available:
        raise ApesRequestError(
            "no APES answerer can run here: " + "; ".join(skipped.values()),
            extra={"skipped": skipped},
        )
    run = ApesRun(
        dataset=dataset,
        answerers=available,
        skipped=skipped,
        chunk_size=chunk_size or _chunk_size(),
        created_by=user,
    )
    run.full_clean()
    run.save()
    if queue:
        job_send_on_commit(APES, run.pk)
    return run


def apes_no_outputs_message(dataset: Dataset) -> str:
    """What an APES run lacks on a dataset without outputs, and how to add them (pages, API).

    Args:
        dataset: the dataset.

    Returns:
        The message.
    """
    return (
        f"{dataset.slug} has no system outputs yet: APES scores systems' summaries. Upload "
        "a system's outputs on the upload page (/upload/), then start APES."
    )


@transaction.atomic
def apes_run_start(
    *, dataset: Dataset, answerers: Sequence[str] | None = None, user=None
) -> ApesRun:
    """Start an APES run from a page or the API: one unfinished run per dataset at a time.

    The dataset's row is locked while it checks, so two clicks at once start one run.

    Args:
        dataset: the dataset.
        answerers: answerer keys (``apes``, ``apes_embedding``); default every one.
        user: who asked for it.

    Returns:
        The queued run (sent to the workers on commit).

    Raises:
        ConflictError: a run of the dataset is queued or running (HTTP 409; ``extra["run"]``
            is its id, to follow it).
        ApesRequestError: no output to score, an unknown answerer, none available, or spaCy's
            model missing (HTTP 400).
    """
    Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
    job_unfinished_refuse(
        jobs=ApesRun.objects.filter(dataset=dataset), label="APES run", of=dataset.slug
    )
    if not output_version_current_list(dataset=dataset):
        raise ApesRequestError(apes_no_outputs_message(dataset), extra={"missing": "outputs"})
    return apes_run_create(dataset=dataset, answerers=answerers, user=user)


def _plan(run: ApesRun) -> None:
    """The APES kind's plan: split the run's outputs into chunks.

    The outputs are those of the dataset's current output versions when the run is first
    planned, ordered by document then version, so one chunk reads few references.

    Args:
        run: the run (locked by the kernel).
    """
    versions = output_version_current_list(dataset=run.dataset)
    ids = list(
        SystemOutput.objects.filter(version__in=versions)
        .order_by("document__position", "document__external_id", "version_id")
        .values_list("pk", flat=True)
    )
    size = run.chunk_size
    ApesChunk.objects.bulk_create(
        ApesChunk(run=run, index=n, output_ids=ids[start : start + size])
        for n, start in enumerate(range(0, len(ids), size))
    )
    run.outputs_total = len(ids)


def apes_run_plan(*, run: ApesRun) -> list[ApesChunk]:
    """Split the run's outputs into chunks (once), mark it running, return the unfinished ones.

    Args:
        run: the run.

    Returns:
        The chunks not done yet, in order.
    """
    return job_plan(kind=APES, job=run)


def questions_digest(sentences: Sequence[str], recognizer: str) -> str:
    """The key a reference's cached questions are valid for: its sentences and the recogniser.

    Args:
        sentences: the reference's sentences.
        recognizer: the recogniser's version text.

    Returns:
        A SHA-256 hex digest.
    """
    payload = json.dumps([recognizer, list(sentences)], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def _question_dict(question: ClozeQuestion) -> dict:
    return {
        "text": question.text,
        "answer": question.answer,
        "answer_key": question.answer_key,
        "label": question.label,
        "mentions": [[m.start, m.end, m.text, m.label] for m in question.mentions],
        "sentence": list(question.sentence),
        "context_keys": list(question.context_keys),
        "placeholder": question.placeholder,
    }


def question_from_dict(data: dict) -> ClozeQuestion:
    """A stored question back as the core's :class:`ClozeQuestion`.

    Args:
        data: one item of :attr:`ApesQuestionSet.questions`.

    Returns:
        The question.
    """
    return ClozeQuestion(
        text=data["text"],
        answer=data["answer"],
        answer_key=data["answer_key"],
        label=data["label"],
        mentions=tuple(
            Entity(start=s, end=e, text=t, label=lb) for s, e, t, lb in data["mentions"]
        ),
        sentence=tuple(data["sentence"]),
        context_keys=tuple(data["context_keys"]),
        placeholder=data["placeholder"],
    )


def apes_questions_for(
    *, references: Sequence[Reference], recognizer: SpacyRecognizer
) -> dict[int, tuple[ClozeQuestion, ...]]:
    """Each reference's cloze questions: the stored ones while current, else computed and saved.

    Args:
        references: the references.
        recognizer: the recogniser (its version is part of the cache key).

    Returns:
        reference id -> its questions (empty when it has no entity to ask about).
    """
    digests = {r.pk: questions_digest(r.sentences, recognizer.version) for r in references}
    stored = {
        qs.reference_id: qs
        for qs in ApesQuestionSet.objects.filter(reference_id__in=list(digests))
        if qs.digest == digests[qs.reference_id]
    }
    todo = [r for r in references if r.pk not in stored]
    texts = {r.pk: sentence_spans(r.sentences) for r in todo}
    recognizer.prime(text for text, _ in texts.values())
    fresh = []
    for reference in todo:
        text, spans = texts[reference.pk]
        questions = make_questions(text, recognizer.recognize(text), sentences=spans)
        fresh.append(
            ApesQuestionSet(
                reference=reference,
                digest=digests[reference.pk],
                recognizer=recognizer.version,
                questions=[_question_dict(q) for q in questions],
                n_questions=len(questions),
            )
        )
    if fresh:
        # Two chunks may compute the same reference at once: the same rows, upserted.
        ApesQuestionSet.objects.bulk_create(
            fresh,
            update_conflicts=True,
            unique_fields=["reference"],
            update_fields=["digest", "recognizer", "questions", "n_questions", "computed_at"],
        )
    return {
        reference_id: tuple(question_from_dict(q) for q in qs.questions)
        for reference_id, qs in {**stored, **{qs.reference_id: qs for qs in fresh}}.items()
    }


def _first_references(outputs) -> dict[int, Reference]:
    """Each output's document's first reference (by position), as scoring jobs use."""
    first: dict[int, Reference] = {}
    for output in outputs:
        references = sorted(output.document.references.all(), key=lambda r: r.position)
        if references:
            first[output.document_id] = references[0]
    return first


def apes_chunk_compute(*, chunk: ApesChunk) -> int:
    """Answer a chunk's outputs' questions with each of the run's answerers; upsert the scores.

    Idempotent: every score is recomputed and overwritten. An output whose reference has no
    question, or whose document has no reference, gets no APES row (a stale one is deleted)
    and is counted by its reason. The chunk is marked done, and the run's counters advance,
    only the first time.

    Args:
        chunk: the chunk.

    Returns:
        How many scores were written.

    Raises:
        ApesUnavailableError: spaCy's model or an answerer's extra is missing on this worker.
    """
    run = chunk.run
    outputs = list(
        SystemOutput.objects.filter(pk__in=chunk.output_ids)
        .select_related("document")
        .prefetch_related("document__references")
        .order_by("document__position", "document__external_id", "version_id")
    )
    recognizer = SpacyRecognizer()
    answerers = {key: answerer_build(key, recognizer) for key in run.answerers}
    references = _first_references(outputs)
    clock = time.perf_counter()
    questions = apes_questions_for(references=list(references.values()), recognizer=recognizer)
    seconds = Counter({"questions": time.perf_counter() - clock})
    summaries = {o.pk: sentence_spans(o.sentences)[0] for o in outputs}
    clock = time.perf_counter()
    recognizer.prime(summaries.values())
    seconds["summaries"] = time.perf_counter() - clock
    pairs = [
        (questions[references[o.document_id].pk], summaries[o.pk])
        for o in outputs
        if o.document_id in references and questions.get(references[o.document_id].pk)
    ]
    for key, answerer in answerers.items():
        if hasattr(answerer, "prime"):  # model answerers encode the whole chunk in one call
            clock = time.perf_counter()
            answerer.prime(pairs)
            seconds[key] += time.perf_counter() - clock
    rows, stale, outcomes, answered = [], StaleScores(), Counter(), 0
    for output in outputs:
        reference = references.get(output.document_id)
        asked = questions.get(reference.pk, ()) if reference is not None else ()
        if not asked:
            outcomes[NO_REFERENCE if reference is None else NO_QUESTIONS] += 1
            stale.add(
                version_id=output.version_id,
                document_id=output.document_id,
                metrics=ANSWERER_KEYS,
            )
            continue
        outcomes[SCORED] += 1
        for key, answerer in answerers.items():
            clock = time.perf_counter()
            result = score_summary(asked, summaries[output.pk], answerer)
            seconds[key] += time.perf_counter() - clock
            answered += result.n_questions
            rows.append(ScoreRow(output.version_id, output.document_id, key, result.value))
    with transaction.atomic():
        document_scores_upsert(rows=rows)
        document_scores_delete(stale=stale)
        job_chunk_done(
            chunk=chunk,
            chunk_fields={
                "scores_written": len(rows),
                "questions_answered": answered,
                "outcomes": dict(outcomes),
                "seconds": {k: round(v, 4) for k, v in seconds.items()},
            },
            scores_written=len(rows),
            questions_answered=answered,
        )
    return len(rows)


def _totals(run: ApesRun) -> None:
    """The APES kind's finish: the run's outcome counts and seconds, summed over its chunks."""
    totals = Counter({SCORED: 0, NO_QUESTIONS: 0, NO_REFERENCE: 0})
    seconds = Counter()
    for outcomes, spent in run.chunks.values_list("outcomes", "seconds"):
        totals.update(outcomes)
        seconds.update(spent)
    run.outcomes = dict(totals)
    run.seconds = {k: round(v, 3) for k, v in seconds.items()}
    run.save(update_fields=["outcomes", "seconds"])


def _warm(run: ApesRun) -> None:
    apes_run_finished.send(sender=ApesRun, dataset_id=run.dataset_id, run=run)


def _chunk(chunk: ApesChunk) -> int:
    return apes_chunk_compute(chunk=chunk)


APES = job_kind_register(
    JobKind(
        name="apes",
        job_model=ApesRun,
        chunk_model=ApesChunk,
        plan=_plan,
        chunk=_chunk,
        finish=_totals,
        after=_warm,
        priority=BACKGROUND_PRIORITY,
    )
)


def apes_run_finish(*, run: ApesRun) -> bool:
    """Mark the run succeeded if every chunk is done, with its outcome counts.

    Args:
        run: the run.

    Returns:
        True when the run is (now) finished; False when chunks are still missing.
    """
    return job_complete(kind=APES, job=run)


def apes_run_fail(*, run: ApesRun, error: str) -> ApesRun:
    """Record that a run failed and why (a succeeded run stays succeeded).

    Args:
        run: the run.
        error: the message the API shows.

    Returns:
        The run.
    """
    return job_fail(kind=APES, job=run, error=error)


def apes_run_inline(*, run: ApesRun) -> ApesRun:
    """Run an APES run in this process, chunk by chunk (``manage.py apes``).

    Args:
        run: the run (created with ``queue=False``).

    Returns:
        The finished run.

    Raises:
        Exception: whatever a chunk raised (the run is failed first).
    """
    return job_run_inline(kind=APES, job=run)
