"""Score services (writes): scoring jobs and the chunks they fan out to the workers."""

from .arrays import score_arrays_build, score_arrays_drop
from .chunks import scoring_chunk_compute, scoring_chunks_create
from .jobs import (
    scoring_job_create,
    scoring_job_fail,
    scoring_job_finish,
    scoring_job_plan,
    scoring_job_request_for_fams,
    scoring_job_request_for_spans,
    scoring_job_run_inline,
    scoring_pending_run_inline,
)
from .rouge import rouge_config_parse, rouge_settings_update
from .store import (
    OutputScores,
    ScoreRow,
    StaleScores,
    document_scores_delete,
    document_scores_upsert,
)

__all__ = [
    "OutputScores",
    "ScoreRow",
    "StaleScores",
    "document_scores_delete",
    "document_scores_upsert",
    "rouge_config_parse",
    "rouge_settings_update",
    "score_arrays_build",
    "score_arrays_drop",
    "scoring_chunk_compute",
    "scoring_job_create",
    "scoring_job_fail",
    "scoring_job_finish",
    "scoring_job_plan",
    "scoring_chunks_create",
    "scoring_job_request_for_fams",
    "scoring_job_request_for_spans",
    "scoring_job_run_inline",
    "scoring_pending_run_inline",
]
