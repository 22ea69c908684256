"""Parser for the PolyTope release (Huang et al., EMNLP 2020): 150 CNN/DM stories, ten systems."""

from .parse import parse_polytope_release
from .release import (
    ARTICLE_PRIORITY,
    BART_FILE,
    DATASET,
    DOCUMENT_FOLDER,
    EXPECTED_DOCUMENTS,
    SAME_STORY_OVERLAP,
    SECTION_SYSTEMS,
    SYSTEMS,
    TEXTRANK_FOLDER,
)

__all__ = [
    "ARTICLE_PRIORITY",
    "BART_FILE",
    "DATASET",
    "DOCUMENT_FOLDER",
    "EXPECTED_DOCUMENTS",
    "SAME_STORY_OVERLAP",
    "SECTION_SYSTEMS",
    "SYSTEMS",
    "TEXTRANK_FOLDER",
    "parse_polytope_release",
]
