"""The pluggable answerer interface and the default entity-matching answerer."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from .entities import (
    DEFAULT_LABELS,
    Entity,
    EntityRecognizer,
    normalize_entity,
    select_entities,
)
from .errors import AnswerCountError
from .questions import ClozeQuestion, split_sentences

_WORD_RE = re.compile(r"[a-z0-9]+")

# Function words that carry no context: a short fixed English list (no NLTK download).
STOPWORDS: frozenset[str] = frozenset(
    """a about after against all also an and any are as at be been before being but by can
    could did do does for from had has have he her hers him his i if in into is it its me
    more most my no not of on or our out over said says she so some than that the their them
    then there these they this those to under up was we were what when where which while who
    whom why will with would you your s""".split()
)


class Answerer(ABC):
    """Answers cloze questions from a summary's text; the name goes into stored results."""

    name: str = "answerer"

    @abstractmethod
    def answer(self, questions: Sequence[ClozeQuestion], summary: str) -> Sequence[str | None]:
        """Answer each question from the summary alone.

        Args:
            questions: the reference's cloze questions.
            summary: the summary under evaluation.

        Returns:
            One answer text per question, in order; ``None`` when there is no answer.

        Raises:
            Whatever the implementation raises for input it cannot handle.
        """


def answer_all(
    answerer: Answerer, questions: Sequence[ClozeQuestion], summary: str
) -> tuple[str | None, ...]:
    """Call an answerer and check it gave exactly one answer per question.

    Args:
        answerer: any :class:`Answerer`.
        questions: the questions.
        summary: the summary under evaluation.

    Returns:
        The answers, one per question.

    Raises:
        AnswerCountError: the answerer returned another number of answers.
    """
    if not questions:
        return ()
    answers = tuple(answerer.answer(questions, summary))
    if len(answers) != len(questions):
        raise AnswerCountError(expected=len(questions), got=len(answers))
    return answers


def content_words(text: str) -> frozenset[str]:
    """The lower-cased alphanumeric words of a text, without :data:`STOPWORDS`.

    Args:
        text: any text.

    Returns:
        The set of its content words.

    Raises:
        Nothing.
    """
    return frozenset(w for w in _WORD_RE.findall(text.lower()) if w not in STOPWORDS)


@dataclass(frozen=True)
class Candidate:
    """One distinct entity of the summary, with what the ranking needs.

    Attributes:
        key: the normalised entity text (candidates are distinct by it).
        text: the surface text of its first mention.
        first_start: the offset of its first mention in the summary.
        mentions: how many mentions it has.
        contexts: per mention, the content words of its sentence without the mention's own.
    """

    key: str
    text: str
    first_start: int
    mentions: int
    contexts: tuple[frozenset[str], ...]


class EntityMatchingAnswerer(Answerer):
    """Picks the summary entity whose sentence shares the most context words with the question.

    For each question: the question's words are its content words without the placeholder.
    Each distinct summary entity (by normalised text) scores the largest overlap between those
    words and the content words of one of its mentions' sentences (the mention's own words
    removed). Ranking, best first: entities *not* already named elsewhere in the question,
    then the higher overlap, then more mentions, then the earlier first mention, then the key.
    The best one's first surface text is the answer; ``None`` when the summary has no entity.
    """

    name = "entity-matching"

    def __init__(
        self,
        recognizer: EntityRecognizer,
        *,
        labels: frozenset[str] | None = DEFAULT_LABELS,
    ):
        """Build the answerer.

        Args:
            recognizer: the recogniser used for the summary (the questions' own, ideally).
            labels: the entity labels that can be answers; ``None`` for all.

        Raises:
            Nothing.
        """
        self.recognizer = recognizer
        self.labels = labels

    def mention_contexts(self, summary: str) -> tuple[tuple[Entity, str], ...]:
        """Each kept entity mention of the summary with its context: its sentence without it.

        Args:
            summary: the summary text.

        Returns:
            ``(mention, context text)`` per mention, in order of offset.

        Raises:
            EntitySpanError: the recogniser returned an entity that is not a span of the summary.
        """
        entities = select_entities(summary, self.recognizer.recognize(summary), labels=self.labels)
        sentences = split_sentences(summary)
        contexts = []
        for entity in entities:
            start, end = next(
                ((s, e) for s, e in sentences if s <= entity.start < e), (0, len(summary))
            )
            around = summary[start : entity.start] + " " + summary[entity.end : end]
            contexts.append((entity, " ".join(around.split())))
        return tuple(contexts)

    def candidates(self, summary: str) -> tuple[Candidate, ...]:
        """The summary's distinct entities, in order of first mention.

        Args:
            summary: the summary text.

        Returns:
            One :class:`Candidate` per distinct normalised entity text.

        Raises:
            EntitySpanError: the recogniser returned an entity that is not a span of the summary.
        """
        grouped: dict[str, list] = {}
        for entity, context in self.mention_contexts(summary):
            grouped.setdefault(normalize_entity(entity.text), []).append(
                (entity, content_words(context))
            )
        return tuple(
            Candidate(
                key=key,
                text=mentions[0][0].text,
                first_start=mentions[0][0].start,
                mentions=len(mentions),
                contexts=tuple(words for _, words in mentions),
            )
            for key, mentions in grouped.items()
        )

    @staticmethod
    def rank(question: ClozeQuestion, candidates: Sequence[Candidate]) -> tuple[Candidate, ...]:
        """The candidates best first for one question (the order the class docstring gives).

        Args:
            question: the cloze question.
            candidates: the summary's candidates.

        Returns:
            The candidates sorted best first.

        Raises:
            Nothing.
        """
        words = content_words(question.text.replace(question.placeholder, " "))
        named = set(question.context_keys)

        def order(candidate: Candidate):
            overlap = max(len(words & context) for context in candidate.contexts)
            return (
                candidate.key in named,
                -overlap,
                -candidate.mentions,
                candidate.first_start,
                candidate.key,
            )

        return tuple(sorted(candidates, key=order))

    def answer(self, questions: Sequence[ClozeQuestion], summary: str) -> tuple[str | None, ...]:
        """Answer each question with the best-ranked summary entity.

        Args:
            questions: the reference's cloze questions.
            summary: the summary under evaluation.

        Returns:
            One answer per question; all ``None`` when the summary has no kept entity.

        Raises:
            EntitySpanError: the recogniser returned an entity that is not a span of the summary.
        """
        candidates = self.candidates(summary)
        if not candidates:
            return tuple(None for _ in questions)
        return tuple(self.rank(q, candidates)[0].text for q in questions)
