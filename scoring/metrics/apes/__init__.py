"""APES (Eyal et al., NAACL 2019): answering a reference's cloze questions from a summary.

Definitions (the package README has a worked example):

* **Entities**: mentions from a pluggable :class:`EntityRecognizer` (spaCy lives in a higher
  layer; this core never imports it), filtered by :func:`select_entities`: the released code's
  labels (PERSON, ORG, NORP, GPE, FAC/FACILITY), spans of two characters or more, overlapping
  mentions resolved to the longest (then the earliest).
* **Questions** (:func:`make_questions`): per reference sentence, one question per distinct
  entity (by :func:`normalize_entity`): the sentence with every mention of it replaced by the
  placeholder (``@placeholder``). A mention in another sentence gives another question.
* **Answering**: an :class:`Answerer` answers all questions from the summary text; the default
  :class:`EntityMatchingAnswerer` ranks the summary's entities by context-word overlap.
* **Correct**: the answer's normalised text equals the gold entity's.
* **APES** of a summary = correct / questions (:func:`score_summary`), undefined with a reason
  when the reference has no question; of a system = the mean over summaries with a defined
  value (:func:`system_apes`), with the pooled share and the undefined summaries alongside.
"""

from .answerers import (
    STOPWORDS,
    Answerer,
    Candidate,
    EntityMatchingAnswerer,
    answer_all,
    content_words,
)
from .entities import (
    DEFAULT_LABELS,
    MIN_ENTITY_CHARS,
    Entity,
    EntityRecognizer,
    check_entities,
    normalize_entity,
    select_entities,
)
from .errors import (
    AnswerCountError,
    ApesError,
    EntitySpanError,
    NoSummariesError,
    PlaceholderInTextError,
)
from .questions import DEFAULT_PLACEHOLDER, ClozeQuestion, make_questions, split_sentences
from .score import (
    NO_DEFINED,
    NO_QUESTIONS,
    QuestionResult,
    SummaryApes,
    SystemApes,
    judge,
    score_summary,
    summary_apes,
    system_apes,
)

__all__ = [
    "DEFAULT_LABELS",
    "DEFAULT_PLACEHOLDER",
    "MIN_ENTITY_CHARS",
    "NO_DEFINED",
    "NO_QUESTIONS",
    "STOPWORDS",
    "AnswerCountError",
    "Answerer",
    "ApesError",
    "Candidate",
    "ClozeQuestion",
    "Entity",
    "EntityMatchingAnswerer",
    "EntityRecognizer",
    "EntitySpanError",
    "NoSummariesError",
    "PlaceholderInTextError",
    "QuestionResult",
    "SummaryApes",
    "SystemApes",
    "answer_all",
    "check_entities",
    "content_words",
    "judge",
    "make_questions",
    "normalize_entity",
    "score_summary",
    "select_entities",
    "split_sentences",
    "summary_apes",
    "system_apes",
]
