"""A ROUGE configuration as rouge-score's options, and the names of the scores it stores.

``RougeConfig(rouge_types, use_stemmer, split_summaries)`` stands for
``rouge_score.rouge_scorer.RougeScorer(rouge_types, use_stemmer=..., split_summaries=...)``:
every option a user sets there. Loupe's default is stemmed ROUGE-1, -2, -L and -Lsum
(rouge-score's own default, no stemming, is ``use_stemmer=False``).

Stored keys say how a value was computed, so a key never changes meaning when a configuration
does (``<type>[_nostem][_split]_<p|r|f>``):

- ``rouge1_f``, ``rougeL_p``, ``rougeLsum_r``: Porter stemming (the keys Loupe always had);
- ``rouge1_nostem_f``: no stemming (``use_stemmer=False``);
- ``rougeLsum_split_f``: ROUGE-Lsum over the sentences NLTK's Punkt finds
  (``split_summaries=True``); without ``_split`` its sentences are the text's lines. Only
  ROUGE-Lsum reads sentences, so only its keys carry ``_split``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import MetricsError

ROUGE_N_TYPES = tuple(f"rouge{n}" for n in range(1, 10))
# Every type rouge-score computes, in the order Loupe lists them.
ROUGE_ALL_TYPES = (*ROUGE_N_TYPES, "rougeL", "rougeLsum")
DEFAULT_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
# The stored measure suffixes and the measures they stand for.
MEASURE_SUFFIXES = (("p", "precision"), ("r", "recall"), ("f", "fmeasure"))
NOSTEM = "nostem"
SPLIT = "split"
_KEY = re.compile(rf"(rouge[1-9]|rougeLsum|rougeL)(_{NOSTEM})?(_{SPLIT})?_([prf])")
_FIELDS = ("rouge_types", "use_stemmer", "split_summaries")


class RougeConfigError(MetricsError):
    """A ROUGE configuration that rouge-score would refuse, or that Loupe cannot store.

    ``field`` names the option at fault (``rouge_types``, ``use_stemmer``, ``split_summaries``)
    or is None for the configuration as a whole.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _types(rouge_types: object) -> tuple[str, ...]:
    """The types checked and put in Loupe's order (:data:`ROUGE_ALL_TYPES`)."""
    if isinstance(rouge_types, str | bytes) or not isinstance(rouge_types, Sequence):
        raise RougeConfigError(
            f"rouge_types must be a list of ROUGE types, got {type(rouge_types).__name__}",
            "rouge_types",
        )
    unknown = [t for t in rouge_types if not isinstance(t, str) or t not in ROUGE_ALL_TYPES]
    if unknown:
        raise RougeConfigError(
            f"unknown ROUGE type(s) {', '.join(map(repr, unknown))}; choose from "
            f"{', '.join(ROUGE_ALL_TYPES)} (the names rouge-score takes, case included)",
            "rouge_types",
        )
    repeated = sorted({t for t in rouge_types if list(rouge_types).count(t) > 1})
    if repeated:
        raise RougeConfigError(f"ROUGE type(s) given twice: {', '.join(repeated)}", "rouge_types")
    if not rouge_types:
        raise RougeConfigError("choose at least one ROUGE type", "rouge_types")
    return tuple(t for t in ROUGE_ALL_TYPES if t in rouge_types)


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise RougeConfigError(f"{name} must be true or false, got {value!r}", name)
    return value


@dataclass(frozen=True)
class RougeConfig:
    """Which ROUGE scores to compute and how, as rouge-score's ``RougeScorer`` options.

    Attributes:
        rouge_types: ``rouge1`` to ``rouge9``, ``rougeL``, ``rougeLsum``; kept in the order of
            :data:`ROUGE_ALL_TYPES` whatever order they are given in.
        use_stemmer: Porter-stem the words (rouge-score's default is False, Loupe's True).
        split_summaries: ROUGE-Lsum finds the sentences with NLTK's Punkt instead of taking
            the text's lines (rouge-score's default, and Loupe's, is False).

    Raises:
        RougeConfigError: an unknown or repeated type, no type, or a flag that is not a bool.
    """

    rouge_types: tuple[str, ...] = DEFAULT_ROUGE_TYPES
    use_stemmer: bool = True
    split_summaries: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "rouge_types", _types(self.rouge_types))
        _flag(self.use_stemmer, "use_stemmer")
        _flag(self.split_summaries, "split_summaries")

    @classmethod
    def from_dict(cls, data: object) -> RougeConfig:
        """A configuration from its JSON form (:meth:`as_dict`); absent options take Loupe's
        defaults.

        Args:
            data: ``{"rouge_types": [...], "use_stemmer": bool, "split_summaries": bool}``.

        Returns:
            The configuration.

        Raises:
            RougeConfigError: not an object, an unknown option, or a bad value.
        """
        if not isinstance(data, Mapping):
            raise RougeConfigError(f"a ROUGE configuration is an object, got {type(data).__name__}")
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise RougeConfigError(
                f"unknown ROUGE option(s) {', '.join(map(repr, unknown))}; the options are "
                f"{', '.join(_FIELDS)}"
            )
        return cls(**{name: data[name] for name in _FIELDS if name in data})

    def as_dict(self) -> dict:
        """``{"rouge_types": [...], "use_stemmer": bool, "split_summaries": bool}``."""
        return {
            "rouge_types": list(self.rouge_types),
            "use_stemmer": self.use_stemmer,
            "split_summaries": self.split_summaries,
        }

    def scorer_call(self) -> str:
        """The rouge-score call whose scores these are, for people.

        Returns:
            E.g. ``RougeScorer(["rouge1", "rougeLsum"], use_stemmer=True, split_summaries=False)``.
        """
        types = ", ".join(f'"{t}"' for t in self.rouge_types)
        return (
            f"RougeScorer([{types}], use_stemmer={self.use_stemmer}, "
            f"split_summaries={self.split_summaries})"
        )

    @property
    def sentences(self) -> bool:
        """Whether a type reads sentences (ROUGE-Lsum), so that ``split_summaries`` matters."""
        return "rougeLsum" in self.rouge_types

    def name(self, rouge_type: str) -> str:
        """The stored name of one type under this configuration (its keys add ``_p/_r/_f``).

        Args:
            rouge_type: one of :attr:`rouge_types`.

        Returns:
            E.g. ``rouge1``, ``rouge1_nostem``, ``rougeLsum_split``.

        Raises:
            RougeConfigError: a type this configuration does not compute.
        """
        if rouge_type not in self.rouge_types:
            raise RougeConfigError(f"{rouge_type!r} is not among {list(self.rouge_types)}")
        name = rouge_type if self.use_stemmer else f"{rouge_type}_{NOSTEM}"
        if self.split_summaries and rouge_type == "rougeLsum":
            name += f"_{SPLIT}"
        return name

    def keys(self) -> tuple[str, ...]:
        """Every stored key, type by type, each with its precision, recall and F.

        Returns:
            E.g. ``("rouge1_p", "rouge1_r", "rouge1_f", ...)``.
        """
        return tuple(
            f"{self.name(t)}_{short}" for t in self.rouge_types for short, _ in MEASURE_SUFFIXES
        )

    def f_keys(self) -> tuple[str, ...]:
        """The F-measure keys, type by type (``rouge1_f``, ...)."""
        return tuple(f"{self.name(t)}_f" for t in self.rouge_types)


DEFAULT_ROUGE = RougeConfig()


@dataclass(frozen=True)
class RougeKey:
    """What a stored ROUGE key stands for (see :func:`parse_rouge_key`)."""

    rouge_type: str
    use_stemmer: bool
    split_summaries: bool
    measure: str  # precision, recall or fmeasure

    @property
    def short(self) -> str:
        """``ROUGE-1 F``, ``ROUGE-Lsum R (no stemming)``: a column's name."""
        part = {"precision": "P", "recall": "R", "fmeasure": "F"}[self.measure]
        return f"{type_label(self.rouge_type)} {part}{_variant(self)}"

    @property
    def label(self) -> str:
        """``ROUGE-1 recall``, ``ROUGE-Lsum F1 (no stem)``: an axis title."""
        word = {"precision": "precision", "recall": "recall", "fmeasure": "F1"}[self.measure]
        return f"{type_label(self.rouge_type)} {word}{_variant(self)}"

    @property
    def title(self) -> str:
        """``ROUGE-Lsum F1 (Porter stemming; sentences on lines)``: a longer name."""
        word = {"precision": "precision", "recall": "recall", "fmeasure": "F1"}[self.measure]
        how = ["Porter stemming" if self.use_stemmer else "no stemming"]
        if self.rouge_type == "rougeLsum":
            how.append("sentences by NLTK Punkt" if self.split_summaries else "sentences on lines")
        return f"{type_label(self.rouge_type)} {word} ({'; '.join(how)})"


def _variant(key: RougeKey) -> str:
    marks = ([] if key.use_stemmer else ["no stem"]) + (["split"] if key.split_summaries else [])
    return f" ({', '.join(marks)})" if marks else ""


def type_label(rouge_type: str) -> str:
    """``ROUGE-1``, ``ROUGE-L``, ``ROUGE-Lsum`` for ``rouge1``, ``rougeL``, ``rougeLsum``."""
    return f"ROUGE-{rouge_type[5:]}"


def parse_rouge_key(key: str) -> RougeKey | None:
    """Read a stored key back: its type, stemming, sentence splitting and measure.

    Args:
        key: a stored metric key.

    Returns:
        The :class:`RougeKey`, or None when ``key`` is not a ROUGE key (``_split`` on a type
        other than ROUGE-Lsum is none).
    """
    match = _KEY.fullmatch(key) if isinstance(key, str) else None
    if match is None or (match.group(3) and match.group(1) != "rougeLsum"):
        return None
    measure = dict(MEASURE_SUFFIXES)[match.group(4)]
    return RougeKey(match.group(1), not match.group(2), bool(match.group(3)), measure)


def _every_key() -> tuple[str, ...]:
    keys: list[str] = []
    for use_stemmer in (True, False):
        keys += RougeConfig(ROUGE_ALL_TYPES, use_stemmer).keys()
        keys += RougeConfig(("rougeLsum",), use_stemmer, split_summaries=True).keys()
    return tuple(keys)


# Every key any configuration stores (72): what a scoring job removes when the configuration
# no longer asks for it.
ALL_ROUGE_KEYS = _every_key()
