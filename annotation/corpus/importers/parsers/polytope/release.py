"""What the PolyTope release holds: the dataset, its ten systems and its folder layout."""

from __future__ import annotations

from collections.abc import Mapping

from annotation.imports.bundle import KIND_ABSTRACTIVE, KIND_EXTRACTIVE, DatasetRecord, SystemRecord

EXPECTED_DOCUMENTS = 150

DATASET = DatasetRecord(
    slug="cnndm-polytope",
    name="CNN/DailyMail (PolyTope release)",
    description=(
        "150 non-anonymized CNN/DailyMail test stories with the outputs of the ten systems "
        "evaluated in Huang et al. (EMNLP 2020), 'What Have We Achieved on Text Summarization?'."
    ),
    source="hddbang/PolyTope commit 6bcbe2b27062b35cc002cb8d13e7c6ce5718984d",
    license=(
        "research use, see release (the repository has no license file; the articles are "
        "CNN/DailyMail content)"
    ),
)

_CNNDM = "CNN/DailyMail"
SYSTEMS = (
    SystemRecord("lead-3", "Lead-3", KIND_EXTRACTIVE, "The first three sentences of the article."),
    SystemRecord("textrank", "TextRank", KIND_EXTRACTIVE, "Graph-based sentence ranking."),
    SystemRecord("summarunner", "SummaRuNNer", KIND_EXTRACTIVE, "RNN sentence classifier.", _CNNDM),
    SystemRecord("bertsumext", "BertSumExt", KIND_EXTRACTIVE, "BERT sentence scorer.", _CNNDM),
    SystemRecord("seq2seq", "Seq2Seq", KIND_ABSTRACTIVE, "Seq2seq with attention.", _CNNDM),
    SystemRecord("pointer-generator", "Pointer-Generator", KIND_ABSTRACTIVE, "", _CNNDM),
    SystemRecord(
        "pointer-generator-coverage", "Pointer-Generator+Coverage", KIND_ABSTRACTIVE, "", _CNNDM
    ),
    SystemRecord("bottom-up", "Bottom-Up", KIND_ABSTRACTIVE, "Content selection + copy.", _CNNDM),
    SystemRecord(
        "bertsumextabs", "BertSumExtAbs", KIND_ABSTRACTIVE, "BERT encoder-decoder.", _CNNDM
    ),
    SystemRecord("bart", "BART", KIND_ABSTRACTIVE, "Pre-trained seq2seq.", _CNNDM),
)
_SYSTEM = {system.slug: system for system in SYSTEMS}

# Folders with one file per trial (``<trial>_.txt``): section header -> system slug.
SECTION_SYSTEMS: Mapping[str, Mapping[str, str]] = {
    "bottom_up": {"decode": "bottom-up"},
    "summarunner": {"decode": "summarunner"},
    "presumm": {"extractive": "bertsumext", "extractive+abstractive": "bertsumextabs"},
    "pointer_gen": {
        "baseline": "seq2seq",
        "pointer-generator": "pointer-generator",
        "pointer-gen-coverage": "pointer-generator-coverage",
    },
}
# The folder that defines the documents and gives the canonical reference. Of the four copies
# of each reference, bottom_up's is the only one that is complete in all 150 files with exactly
# one block: summarunner's drops text after a "." inside a highlight (14_, 36_) and "**"
# (28_, 78_); presumm's has stray extra blocks (0_, 87_) and drops "click here ..." highlights
# (5_, 6_); pointer_gen's is re-detokenised ("£1,400", "10am", curly quotes). bottom_up holds
# the highlights as See et al. (2017) preprocessed them (the form these systems were scored
# against): sentences separated by two spaces, or one per line, each ending in " .".
DOCUMENT_FOLDER = "bottom_up"
# Tie-break when choosing the canonical article among the one-sentence-per-line copies.
ARTICLE_PRIORITY = ("bottom_up", "summarunner", "presumm", "pointer_gen")
TEXTRANK_FOLDER = "textrank"
BART_FILE = "bart/bart.txt"
_BASE_SECTIONS = ("article", "reference")

# Share of an output's (or article's) words found in a document for both to be the same story.
# On the release, right pairs score 0.94-1.00 and the best wrong pair 0.75.
SAME_STORY_OVERLAP = 0.85
