"""What the XSum hallucination release holds: its files, five "systems", three worker slots."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from annotation.imports.bundle import KIND_ABSTRACTIVE, DatasetRecord, SystemRecord

HALLUCINATIONS_FILE = "hallucination_annotations_xsum_summaries.csv"
EVAL_FILE = "eval_scores_xsum_summaries.csv"
COLUMNS = (
    "bbcid",
    "system",
    "summary",
    "hallucination_type",
    "hallucinated_span",
    "hallucinated_span_start",
    "hallucinated_span_end",
    "worker_id",
)
EXPECTED_DOCUMENTS = 500
SCHEME = "xsum-hallucinations"
NULL = "NULL"  # the release's word for "no type" and "no span"
TYPES = ("intrinsic", "extrinsic")

# The release's "Gold" rows annotate the reference summary, not a system's output.
GOLD = "Gold"

# Crowd-worker slots: the release numbers the three judgements of each summary wid_0..wid_2; a
# slot is not one person across summaries.
WORKERS = ("wid_0", "wid_1", "wid_2")

DATASET = DatasetRecord(
    slug="xsum-hallucinations",
    name="XSum hallucinations (Maynez et al. 2020)",
    description=(
        "500 XSum test documents (BBC ids; the articles are not part of the release) with the "
        "summaries of four abstractive systems and the reference, each read by three crowd "
        "workers who marked hallucinated spans as intrinsic or extrinsic. Maynez et al. (ACL "
        "2020), 'On Faithfulness and Factuality in Abstractive Summarization'."
    ),
    source="google-research-datasets/xsum_hallucination_annotations commit 4abdbb2",
    license="CC BY 4.0 (summaries and annotations; the XSum articles are not included)",
)

_XSUM = "XSum"
# Release name -> system; in the order of the paper's tables.
SYSTEMS: Mapping[str, SystemRecord] = MappingProxyType(
    {
        "PtGen": SystemRecord(
            "ptgen", "PtGen", KIND_ABSTRACTIVE, "Pointer-generator (See et al. 2017).", _XSUM
        ),
        "TConvS2S": SystemRecord(
            "tconvs2s",
            "TConvS2S",
            KIND_ABSTRACTIVE,
            "Topic-aware convolutional seq2seq (Narayan et al. 2018).",
            _XSUM,
        ),
        "TranS2S": SystemRecord(
            "trans2s", "TranS2S", KIND_ABSTRACTIVE, "Transformer seq2seq, no pre-training.", _XSUM
        ),
        "BERTS2S": SystemRecord(
            "berts2s",
            "BERTS2S",
            KIND_ABSTRACTIVE,
            "Transformer seq2seq warm-started from BERT (Rothe et al. 2020).",
            _XSUM,
        ),
    }
)

# Key prefixes of eval_scores_xsum_summaries.csv (``<prefix>_<bbcid>``) -> release system name.
EVAL_PREFIXES: Mapping[str, str] = MappingProxyType(
    {
        "bert_withckpt": "BERTS2S",
        "bert_nockpt": "TranS2S",
        "ptgen": "PtGen",
        "tconvs2s": "TConvS2S",
    }
)


def span_set_slug(worker: str) -> str:
    """The slug of the annotation set holding one worker slot's spans (``xsum-wid_0``...)."""
    return f"xsum-{worker}"
