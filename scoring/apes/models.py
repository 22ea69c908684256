"""APES models: cached cloze questions per reference, runs and the chunks they fan out to."""

from django.conf import settings
from django.db import models

from annotation.corpus.models import Dataset, Reference
from annotation.jobs.models import ChunkBase, JobBase, JobStatus


class ApesQuestionSet(models.Model):
    """A reference's cloze questions, computed once per reference text and recogniser.

    ``digest`` is the SHA-256 of the reference's text and the recogniser's version: a run
    reuses the stored questions while it matches and recomputes them otherwise. ``questions``
    holds each question as JSON (text, answer, answer_key, label, mentions, sentence,
    context_keys, placeholder); an empty list means the reference has no entity to ask about.
    """

    reference = models.OneToOneField(
        Reference, on_delete=models.CASCADE, related_name="apes_questions"
    )
    digest = models.CharField(max_length=64)
    recognizer = models.CharField(max_length=200)
    questions = models.JSONField(default=list, blank=True)
    n_questions = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["reference"]

    def __str__(self) -> str:
        return f"{self.n_questions} APES questions of reference {self.reference_id}"


RunStatus = JobStatus  # a run's states are a job's


class ApesRun(JobBase):
    """One APES computation over a dataset's current output versions, fanned out over chunks.

    ``answerers`` are the keys that run (``apes``, ``apes_embedding``), ``skipped`` the ones
    asked for that could not (key -> why). ``outcomes`` counts, once finished, every output:
    ``scored``, ``no_questions`` (its reference has no entity: APES undefined) and
    ``no_reference`` (its document has no reference). ``seconds`` sums the chunks' time per
    step: ``questions`` (tagging references), ``summaries`` (tagging summaries) and one per
    answerer.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="apes_runs")
    answerers = models.JSONField(default=list)
    skipped = models.JSONField(default=dict, blank=True)
    chunk_size = models.PositiveIntegerField(default=50)
    outputs_total = models.PositiveIntegerField(default=0)
    scores_written = models.PositiveIntegerField(default=0)
    questions_answered = models.PositiveIntegerField(default=0)
    outcomes = models.JSONField(default=dict, blank=True)
    seconds = models.JSONField(
        default=dict, blank=True, help_text="Seconds spent per step, summed over the chunks."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RunStatus.values), name="apes_run_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(chunks_done__lte=models.F("chunks_total")),
                name="apes_run_chunks_done_le_total",
            ),
            models.CheckConstraint(
                condition=models.Q(chunk_size__gte=1), name="apes_run_chunk_size_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"APES run {self.pk} on {self.dataset_id} ({self.status})"


class ApesChunk(ChunkBase):
    """A slice of a run's outputs answered by one Celery task; ``done_at`` marks it complete."""

    run = models.ForeignKey(ApesRun, on_delete=models.CASCADE, related_name="chunks")
    output_ids = models.JSONField()
    scores_written = models.PositiveIntegerField(default=0)
    questions_answered = models.PositiveIntegerField(default=0)
    outcomes = models.JSONField(default=dict, blank=True)
    seconds = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="apes_chunk_index_unique")
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of APES run {self.run_id}"
