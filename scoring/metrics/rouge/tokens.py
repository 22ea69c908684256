"""rouge-score's tokenizer with Porter stemming, with each word's stem cached."""

from __future__ import annotations

import re

# rouge_score/tokenize.py's patterns, verbatim. Its third, SPACES_RE, is str.split() here:
# after the substitution only spaces separate the words, and it drops the empty strings.
NON_ALPHANUM_RE = re.compile(r"[^a-z0-9]+")
VALID_TOKEN_RE = re.compile(r"^[a-z0-9]+$")

# rouge-score stems only words longer than this many characters.
MIN_STEMMED_LENGTH = 4

# The cache is emptied when it reaches this many words, so a long stream stays bounded.
STEM_CACHE_SIZE = 1 << 18

_STEMS: dict[str, str | None] = {}
_STEMMER = None


def _porter():
    """NLTK's Porter stemmer as rouge-score builds it (NLTK_EXTENSIONS mode), made on first use.

    Importing nltk loads scikit-learn and SciPy (about 1 s and 100 MiB), so it waits until a
    word actually needs stemming.
    """
    global _STEMMER
    if _STEMMER is None:
        from nltk.stem.porter import PorterStemmer

        _STEMMER = PorterStemmer()
    return _STEMMER


def stem_word(word: str) -> str | None:
    """The token that one lower-cased alphanumeric word becomes, cached.

    Args:
        word: a run of ``[a-z0-9]`` characters, as left by the tokenizer's substitution.

    Returns:
        Its Porter stem (words of 3 characters or fewer are kept as they are), or None when
        the stem is not a valid token (rouge-score's final check drops it).
    """
    token = _STEMS.get(word)
    if token is None and word not in _STEMS:
        stem = _porter().stem(word) if len(word) >= MIN_STEMMED_LENGTH else word
        token = stem if VALID_TOKEN_RE.match(stem) else None
        if len(_STEMS) >= STEM_CACHE_SIZE:
            _STEMS.clear()
        _STEMS[word] = token
    return token


def tokenize(text: str) -> tuple[str, ...]:
    """Tokenize like ``RougeScorer(..., use_stemmer=True)``: same tokens, same order.

    The steps are rouge-score's: lower-case the text (``str.lower``, so a few non-ASCII
    letters such as the Kelvin sign become ASCII), replace every run of characters outside
    ``[a-z0-9]`` by a space, split on white space, Porter-stem each word longer than three
    characters and drop anything that is not ``[a-z0-9]+``. An empty text, or one without a
    single ASCII letter or digit, gives no token.

    Args:
        text: any text.

    Returns:
        The tokens.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a str to tokenize, got {type(text).__name__}")
    words = NON_ALPHANUM_RE.sub(" ", text.lower()).split()
    return tuple(token for token in map(stem_word, words) if token is not None)


def clear_stem_cache() -> None:
    """Forget every cached stem (for tests and long-running workers)."""
    _STEMS.clear()
