"""rouge-score's tokenizer, with or without Porter stemming: compiled, and the NLTK reference.

``tokenize`` calls rouge-score-rs's native tokenizer, a Rust port of rouge-score's
``DefaultTokenizer(use_stemmer)`` with NLTK's Porter stemmer (NLTK_EXTENSIONS mode).
``tokenize_nltk`` is the same pipeline in Python over NLTK's own stemmer, kept as the reference
the native one is tested against (every word of the public releases gives the same tokens).
"""

from __future__ import annotations

import re

from rouge_score_rs.tokenizers import DefaultTokenizer

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
_NATIVE = DefaultTokenizer(use_stemmer=True)
_NATIVE_UNSTEMMED = DefaultTokenizer(use_stemmer=False)


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


def _text(text: str) -> str:
    """``text``, checked to be a ``str``."""
    if not isinstance(text, str):
        raise TypeError(f"expected a str to tokenize, got {type(text).__name__}")
    return text


def tokenize_nltk(text: str, use_stemmer: bool = True) -> tuple[str, ...]:
    """Tokenize like ``RougeScorer(..., use_stemmer=use_stemmer)``, in Python over NLTK's stemmer.

    The steps are rouge-score's: lower-case the text (``str.lower``, so a few non-ASCII
    letters such as the Kelvin sign become ASCII), replace every run of characters outside
    ``[a-z0-9]`` by a space, split on white space, Porter-stem each word longer than three
    characters (with stemming) and drop anything that is not ``[a-z0-9]+``. An empty text, or
    one without a single ASCII letter or digit, gives no token.

    Args:
        text: any text.
        use_stemmer: Porter-stem the words, as rouge-score's ``use_stemmer``.

    Returns:
        The tokens.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    words = NON_ALPHANUM_RE.sub(" ", _text(text).lower()).split()
    if not use_stemmer:  # every word is [a-z0-9]+ already
        return tuple(words)
    return tuple(token for token in map(stem_word, words) if token is not None)


def tokenize(text: str, use_stemmer: bool = True) -> tuple[str, ...]:
    """Tokenize like ``RougeScorer(..., use_stemmer=use_stemmer)``: same tokens, compiled.

    The steps are :func:`tokenize_nltk`'s, run by rouge-score-rs's native tokenizer (about 20
    times faster on a cold process: NLTK's stemmer is pure Python).

    Args:
        text: any text.
        use_stemmer: Porter-stem the words (Loupe's default; rouge-score's is False).

    Returns:
        The tokens.

    Raises:
        TypeError: ``text`` is not a ``str``.
    """
    native = _NATIVE if use_stemmer else _NATIVE_UNSTEMMED
    return tuple(native.tokenize(_text(text)))


def stem_words(words: str, count: int) -> list[str | None]:
    """The token each of many words becomes, in one native call.

    Args:
        words: ``count`` lower-cased runs of ``[a-z0-9]`` characters separated by spaces, as
            the tokenizer's substitution leaves them.
        count: how many words.

    Returns:
        Each word's token (its Porter stem when longer than three characters), or None when
        rouge-score would drop it.
    """
    tokens = _NATIVE.tokenize(words)
    if len(tokens) == count:  # one token per word: every stem was a valid token
        return tokens
    return [next(iter(_NATIVE.tokenize(word)), None) for word in words.split()]


def clear_stem_cache() -> None:
    """Forget every stem :func:`tokenize_nltk` cached (for tests and long-running workers)."""
    _STEMS.clear()
