"""Parser for the REALSumm release (Bhandari et al., EMNLP 2020): 25 systems, LitePyramid recall."""

from .parse import external_id, parse_realsumm_release
from .pickles import MAX_ISSUES_PER_FILE, read_scores_dict
from .release import (
    ABS_PICKLE,
    DATASET,
    EXT_PICKLE,
    LITEPYRAMID,
    MAX_PICKLE_BYTES,
    RELEASED,
    RELEASED_KEYS,
    STUDY,
    SYSTEMS,
    TEXT_MISSING_NOTE,
)
from .texts import tagged_sentences

__all__ = [
    "ABS_PICKLE",
    "DATASET",
    "EXT_PICKLE",
    "LITEPYRAMID",
    "MAX_ISSUES_PER_FILE",
    "MAX_PICKLE_BYTES",
    "RELEASED",
    "RELEASED_KEYS",
    "STUDY",
    "SYSTEMS",
    "TEXT_MISSING_NOTE",
    "external_id",
    "parse_realsumm_release",
    "read_scores_dict",
    "tagged_sentences",
]
