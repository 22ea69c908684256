"""APES: the share of cloze questions answered correctly, per summary and per system."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .answerers import Answerer, answer_all
from .entities import normalize_entity
from .errors import ApesError, NoSummariesError
from .questions import ClozeQuestion

NO_QUESTIONS = "the reference has no named entity to ask about, so APES is undefined (0/0)"
NO_DEFINED = "no summary has a defined APES (none of the references has a question)"


@dataclass(frozen=True)
class QuestionResult:
    """One question judged.

    Attributes:
        question: the cloze question.
        predicted: the answerer's answer, ``None`` when it gave none.
        correct: whether the normalised answer equals the question's ``answer_key``.
    """

    question: ClozeQuestion
    predicted: str | None
    correct: bool


def judge(question: ClozeQuestion, predicted: str | None) -> QuestionResult:
    """Judge one answer: correct when it equals the gold entity text after normalisation.

    Args:
        question: the cloze question.
        predicted: the answer text, or ``None``.

    Returns:
        The :class:`QuestionResult` (``None`` is never correct).

    Raises:
        ApesError: ``predicted`` is neither a string nor ``None``.
    """
    if predicted is not None and not isinstance(predicted, str):
        raise ApesError(f"an answer must be a string or None, got {predicted!r}")
    correct = predicted is not None and normalize_entity(predicted) == question.answer_key
    return QuestionResult(question=question, predicted=predicted, correct=correct)


@dataclass(frozen=True)
class SummaryApes:
    """APES of one summary against one reference's questions.

    Attributes:
        results: each question judged, in the questions' order.
        n_questions: how many questions.
        n_correct: how many were answered correctly.
        value: ``n_correct / n_questions``; ``None`` when there is no question.
        reason: why ``value`` is ``None``; set exactly then.
    """

    results: tuple[QuestionResult, ...]
    n_questions: int
    n_correct: int
    value: float | None
    reason: str | None

    @property
    def defined(self) -> bool:
        return self.value is not None

    def as_dict(self) -> dict[str, Any]:
        """The summary's figures for JSON (without the per-question detail).

        Returns:
            ``{"value", "n_questions", "n_correct", "reason"}``.

        Raises:
            Nothing.
        """
        return {
            "value": self.value,
            "n_questions": self.n_questions,
            "n_correct": self.n_correct,
            "reason": self.reason,
        }


def summary_apes(results: Sequence[QuestionResult]) -> SummaryApes:
    """Aggregate judged questions into one summary's APES.

    Args:
        results: the summary's judged questions.

    Returns:
        The :class:`SummaryApes`; undefined, with :data:`NO_QUESTIONS`, when ``results`` is empty.

    Raises:
        Nothing.
    """
    results = tuple(results)
    n_correct = sum(1 for r in results if r.correct)
    if not results:
        return SummaryApes(results=(), n_questions=0, n_correct=0, value=None, reason=NO_QUESTIONS)
    return SummaryApes(
        results=results,
        n_questions=len(results),
        n_correct=n_correct,
        value=n_correct / len(results),
        reason=None,
    )


def score_summary(
    questions: Sequence[ClozeQuestion], summary: str, answerer: Answerer
) -> SummaryApes:
    """Answer a reference's questions from one summary and aggregate.

    Args:
        questions: the reference's cloze questions (:func:`~.questions.make_questions`).
        summary: the summary under evaluation.
        answerer: the :class:`~.answerers.Answerer`.

    Returns:
        The summary's :class:`SummaryApes`.

    Raises:
        AnswerCountError: the answerer returned another number of answers.
        ApesError: an answer is neither a string nor ``None``.
    """
    answers = answer_all(answerer, questions, summary)
    return summary_apes([judge(q, a) for q, a in zip(questions, answers, strict=True)])


@dataclass(frozen=True)
class SystemApes:
    """APES of one system over its summaries.

    Attributes:
        per_summary: each summary's :class:`SummaryApes` by its id (read-only mapping).
        value: the mean of the defined per-summary values (the paper's figure);
            ``None`` when no summary has one.
        pooled: all correct answers over all questions (questions weighted equally);
            ``None`` when there is no question.
        n_summaries: how many summaries were given.
        n_scored: how many have a defined APES.
        undefined: the ids of the summaries without one, in the given order.
        n_questions: questions over every summary.
        n_correct: correct answers over every summary.
        reason: why ``value`` is ``None``; set exactly then.
    """

    per_summary: Mapping[Hashable, SummaryApes]
    value: float | None
    pooled: float | None
    n_summaries: int
    n_scored: int
    undefined: tuple[Hashable, ...]
    n_questions: int
    n_correct: int
    reason: str | None

    def as_dict(self) -> dict[str, Any]:
        """The system's figures for JSON, each summary's as :meth:`SummaryApes.as_dict`.

        Returns:
            A dict of the attributes, ``per_summary`` keyed by ``str(id)``.

        Raises:
            Nothing.
        """
        return {
            "value": self.value,
            "pooled": self.pooled,
            "n_summaries": self.n_summaries,
            "n_scored": self.n_scored,
            "undefined": [str(k) for k in self.undefined],
            "n_questions": self.n_questions,
            "n_correct": self.n_correct,
            "reason": self.reason,
            "per_summary": {str(k): v.as_dict() for k, v in self.per_summary.items()},
        }


def system_apes(
    per_summary: Mapping[Hashable, SummaryApes], *, system: Hashable | None = None
) -> SystemApes:
    """Aggregate a system's per-summary APES.

    Summaries whose APES is undefined (no question) are listed in ``undefined`` and left out
    of the mean; they add nothing to the pooled figure either.

    Args:
        per_summary: each summary's :class:`SummaryApes` by id, in the caller's order.
        system: the system's name, for the error message only.

    Returns:
        The :class:`SystemApes`.

    Raises:
        NoSummariesError: ``per_summary`` is empty.
        ApesError: a value is not a :class:`SummaryApes`.
    """
    if not per_summary:
        raise NoSummariesError(system)
    for key, item in per_summary.items():
        if not isinstance(item, SummaryApes):
            raise ApesError(f"summary {key!r}: expected a SummaryApes, got {type(item).__name__}")
    defined = [s.value for s in per_summary.values() if s.value is not None]
    n_questions = sum(s.n_questions for s in per_summary.values())
    n_correct = sum(s.n_correct for s in per_summary.values())
    return SystemApes(
        per_summary=MappingProxyType(dict(per_summary)),
        value=sum(defined) / len(defined) if defined else None,
        pooled=n_correct / n_questions if n_questions else None,
        n_summaries=len(per_summary),
        n_scored=len(defined),
        undefined=tuple(k for k, s in per_summary.items() if s.value is None),
        n_questions=n_questions,
        n_correct=n_correct,
        reason=None if defined else NO_DEFINED,
    )
