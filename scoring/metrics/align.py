"""Map the sentences of an extractive summary to document-sentence indices (exact, else TF-IDF)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .lazy import tfidf_vectorizer

METHOD_EXACT = "exact"
METHOD_TFIDF = "tfidf"

# Mappings whose TF-IDF cosine is below this value are listed in the import report.
#
# Chosen on the PolyTope release (hddbang/PolyTope @ 6bcbe2b), whose extractive outputs come as
# text: of its 2,006 extractive sentences (Lead-3, TextRank, SummaRuNNer, BertSumExt), 1,845
# match a document sentence exactly. The other 161 are BertSumExt sentences with an appended
# " '" or "#" for "£" (cosine 0.86-1.00), TextRank sentences that TextRank split elsewhere than
# the document does (0.79-1.00), and TextRank's last sentence, cut off by its 100-word limit
# (0.00-1.00, falling with the share of words kept). Plain TF-IDF chose a wrong sentence for 4
# of the 161, all at 0.28 or less ("`", '"', "van velzen", "since the"); every mapping at 0.3
# or more was right. 0.3 flags those guesses (7 one- or two-word TextRank stubs) without
# burying them under the many right mappings of longer truncated sentences (0.3-0.6).
LOW_CONFIDENCE_THRESHOLD = 0.3


@dataclass(frozen=True)
class Alignment:
    """Where one summary sentence comes from in the document.

    Attributes:
        index: 0-based index of the document sentence.
        similarity: 1.0 for an exact match, else the TF-IDF cosine in [0, 1].
        method: ``"exact"`` or ``"tfidf"``.
    """

    index: int
    similarity: float
    method: str


def normalize_space(text: str) -> str:
    """Collapse every run of white space to one blank and trim the ends.

    Args:
        text: any string.

    Returns:
        The string with normalised white space.
    """
    return " ".join(text.split())


def _exact_index(document: Sequence[str]) -> dict[str, list[int]]:
    """Map each normalised document sentence to the indices where it occurs."""
    index: dict[str, list[int]] = {}
    for position, sentence in enumerate(document):
        index.setdefault(normalize_space(sentence), []).append(position)
    return index


def _prefix_of(sentence: str, document: Sequence[str]) -> list[int]:
    """Indices of the document sentences that begin with ``sentence`` as whole words."""
    start = normalize_space(sentence) + " "
    if not start.strip():
        return []
    return [i for i, text in enumerate(document) if normalize_space(text).startswith(start)]


def _tfidf_best(queries: Sequence[str], document: Sequence[str]) -> list[tuple[int, float]]:
    """Return ``(index, cosine)`` of the nearest document sentence for each query.

    A query that is the beginning of one or more document sentences (a sentence cut off by a
    word limit) is only compared with those sentences.
    """
    vectorizer = tfidf_vectorizer()
    try:
        doc_matrix = vectorizer.fit_transform(document)
    except ValueError:  # empty vocabulary: the document has no word of two or more characters
        scores = np.zeros((len(queries), len(document)))
    else:
        scores = (vectorizer.transform(queries) @ doc_matrix.T).toarray()
    found = []
    for query, row in zip(queries, scores, strict=True):
        candidates = _prefix_of(query, document) or list(range(len(document)))
        best = candidates[int(np.argmax(row[candidates]))]  # ties go to the earliest sentence
        found.append((best, float(min(1.0, max(0.0, row[best])))))
    return found


def align_sentences(summary: Sequence[str], document: Sequence[str]) -> tuple[Alignment, ...]:
    """Map each summary sentence to the document sentence it was extracted from.

    A sentence that equals a document sentence after white-space normalisation is an exact
    match (similarity 1.0); when the same text occurs twice in the document, the first
    occurrence not already used by this summary is taken. Every other sentence is mapped to
    the nearest document sentence by cosine similarity of TF-IDF vectors, the vectoriser being
    fitted on the document's sentences (as in the FAR release). A sentence that is the start of
    some document sentence(s) (cut off by a word limit) is only compared with those; its
    similarity stays the cosine, so a short stub is still reported as weak.

    Args:
        summary: the summary's sentences, in order.
        document: the document's sentences, in order.

    Returns:
        One :class:`Alignment` per summary sentence, in order; an empty tuple for an empty
        summary.

    Raises:
        ValueError: the summary has sentences but the document has none.
    """
    if not summary:
        return ()
    if not document:
        raise ValueError("cannot align a summary to a document without sentences")
    exact = _exact_index(document)
    used: set[int] = set()
    found: list[Alignment | None] = []
    for sentence in summary:
        hits = exact.get(normalize_space(sentence), [])
        if hits:
            index = next((i for i in hits if i not in used), hits[0])
            used.add(index)
            found.append(Alignment(index, 1.0, METHOD_EXACT))
        else:
            found.append(None)
    missing = [position for position, item in enumerate(found) if item is None]
    if missing:
        nearest = _tfidf_best([summary[p] for p in missing], document)
        for position, (index, similarity) in zip(missing, nearest, strict=True):
            found[position] = Alignment(index, similarity, METHOD_TFIDF)
    return tuple(item for item in found if item is not None)


def _starts_at(text: str, start: int, candidates: Sequence[str]) -> str | None:
    """Return the longest candidate that occurs in ``text`` at ``start`` as whole words."""
    best = None
    for candidate in candidates:
        end = start + len(candidate)
        if text.startswith(candidate, start) and (end == len(text) or text[end] == " "):
            if best is None or len(candidate) > len(best):
                best = candidate
    return best


def split_on_document_sentences(text: str, document: Sequence[str]) -> tuple[str, ...]:
    """Cut a run-together extract (sentences joined on one line) back into its sentences.

    Some extractive systems (e.g. TextRank in the PolyTope release) print the chosen document
    sentences on one line, joined by a blank and cut at a word limit, so sentence ends are
    not marked when a document sentence has no final period. Reading left to right, the longest
    document sentence that starts at the current word is taken; text that matches no document
    sentence (typically the truncated last sentence) becomes one piece, running up to the next
    word where a document sentence starts.

    Args:
        text: the extract.
        document: the document's sentences.

    Returns:
        The pieces in order (white space normalised); an empty tuple for blank text.
    """
    text = normalize_space(text)
    candidates = sorted({normalize_space(s) for s in document if s.strip()}, key=len)
    pieces: list[str] = []
    start = 0
    fragment_start: int | None = None
    while start < len(text):
        match = _starts_at(text, start, candidates)
        if match is None:
            if fragment_start is None:
                fragment_start = start
            following = text.find(" ", start)
            start = len(text) if following < 0 else following + 1
            continue
        if fragment_start is not None:
            pieces.append(text[fragment_start:start].strip())
            fragment_start = None
        pieces.append(match)
        start += len(match) + 1
    if fragment_start is not None:
        pieces.append(text[fragment_start:].strip())
    return tuple(piece for piece in pieces if piece)
