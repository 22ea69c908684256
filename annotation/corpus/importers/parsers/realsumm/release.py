"""What the REALSumm release holds: its files, 25 systems in two pickles, the scores' keys."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.imports.bundle import KIND_ABSTRACTIVE, KIND_EXTRACTIVE, DatasetRecord

ABS_PICKLE = "scores_dicts/abs.pkl"
EXT_PICKLE = "scores_dicts/ext.pkl"
PICKLES = {KIND_ABSTRACTIVE: ABS_PICKLE, KIND_EXTRACTIVE: EXT_PICKLE}
OUTPUTS_DIR = "selected_docs_for_human_eval"
SELECTED_FILE = f"{OUTPUTS_DIR}/selected_documents.md"
EXPECTED_DOCUMENTS = 100
# Each pickle is about 1.1 MB; anything much larger is not this release (and is not read).
MAX_PICKLE_BYTES = 32 * 1024 * 1024
MAX_TEXT_BYTES = 8 * 1024 * 1024

# The human score: LitePyramid recall, the share of the reference's semantic content units a
# summary holds, as crowd workers judged it. Imported as a per-document judgment study.
LITEPYRAMID = "litepyramid_recall"
STUDY = "litepyramid-recall"
# The authors' automatic scores (Perl ROUGE-1.5.5 via pyrouge, JS-2, BERTScore, MoverScore),
# kept under these keys as the released reference ``realsumm``.
RELEASED = "realsumm"
RELEASED_KEYS = (
    "rouge_1_precision",
    "rouge_1_recall",
    "rouge_1_f_score",
    "rouge_2_precision",
    "rouge_2_recall",
    "rouge_2_f_score",
    "rouge_l_precision",
    "rouge_l_recall",
    "rouge_l_f_score",
    "js-2",
    "bert_precision_score",
    "bert_recall_score",
    "bert_f_score",
    "mover_score",
)
SCORE_KEYS = frozenset((*RELEASED_KEYS, LITEPYRAMID))
DOCUMENT_KEYS = frozenset(("doc_id", "ref_summ", "system_summaries"))
SUMMARY_KEYS = frozenset(("system_summary", "scores"))

TEXT_MISSING_NOTE = (
    "The REALSumm release has no article text: its 100 CNN/DailyMail test documents are named "
    "by their line in the test set (the aligned sources are distributed apart)."
)

DATASET = DatasetRecord(
    slug="realsumm",
    name="REALSumm (Bhandari et al. 2020)",
    description=(
        "100 CNN/DailyMail test documents (references only; the articles are not part of the "
        "release) summarized by 25 systems, 14 abstractive and 11 extractive, each summary "
        "with its LitePyramid recall judged by crowd workers and the authors' own automatic "
        "scores. Bhandari et al. (EMNLP 2020), 'Re-evaluating Evaluation in Text "
        "Summarization'."
    ),
    source="neulab/REALSumm commit a5900e3",
    license="CC BY 4.0",
)

TRAINED_ON = "CNN/DailyMail"


@dataclass(frozen=True)
class ReleasedSystem:
    """One system of the release: where its summaries are and what Loupe calls it.

    ``key`` is its entry in the pickle of its kind (``PICKLES[kind]``) and ``text`` its one-line-
    per-document output file under ``selected_docs_for_human_eval/``.
    """

    key: str
    text: str
    slug: str
    name: str
    kind: str
    description: str


def _system(kind: str, key: str, text: str, slug: str, name: str, description: str):
    return ReleasedSystem(key, text, f"realsumm-{slug}", name, kind, description)


_E, _A = KIND_EXTRACTIVE, KIND_ABSTRACTIVE
_PNBERT = "Zhong et al. (2019), 'Searching for Effective Neural Extractive Summarization'"
_PRESUMM = "Liu and Lapata (2019), 'Text Summarization with Pretrained Encoders'"
# In the order of the release's README table (systems 1-11 extractive, 12-25 abstractive).
# NeuSum's text file is under abs/ although the release lists it, and pickles it, as extractive.
SYSTEMS: tuple[ReleasedSystem, ...] = (
    _system(_E, "heter_graph_out.txt", "ext/heter_graph/out.txt", "heter-graph", "HeterGraph",
            "Wang et al. (2020), heterogeneous graph neural network."),
    _system(_E, "matchsumm_out.txt", "ext/matchsumm/out.txt", "matchsum", "MatchSum",
            "Zhong et al. (2020), extractive summarization as text matching."),
    _system(_E, "pnbert_out_lstm_pn_rl.txt", "ext/pnbert/out_lstm_pn_rl.txt",
            "pnbert-lstm-pn-rl", "PNBERT LSTM+PN+RL", _PNBERT),
    _system(_E, "pnbert_out_bert_tf_sl.txt", "ext/pnbert/out_bert_tf_sl.txt",
            "pnbert-bert-tf-sl", "PNBERT BERT+TF+SL", _PNBERT),
    _system(_E, "pnbert_out_bert_tf_pn.txt", "ext/pnbert/out_bert_tf_pn.txt",
            "pnbert-bert-tf-pn", "PNBERT BERT+TF+PN", _PNBERT),
    _system(_E, "pnbert_out_bert_lstm_pn.txt", "ext/pnbert/out_bert_lstm_pn.txt",
            "pnbert-bert-lstm-pn", "PNBERT BERT+LSTM+PN", _PNBERT),
    _system(_E, "pnbert_out_bert_lstm_pn_rl.txt", "ext/pnbert/out_bert_lstm_pn_rl.txt",
            "pnbert-bert-lstm-pn-rl", "PNBERT BERT+LSTM+PN+RL", _PNBERT),
    _system(_E, "bart_out.txt", "ext/bart/out.txt", "bart-ext", "BART (extractive)",
            "The release's extractive BART entry (Lewis et al. 2020)."),
    _system(_E, "refresh_out.txt", "ext/refresh/out.txt", "refresh", "Refresh",
            "Narayan et al. (2018), ranking sentences with reinforcement learning."),
    _system(_E, "neusumm_out.txt", "abs/neusumm/out.txt", "neusum", "NeuSum",
            "Zhou et al. (2018), jointly learning to score and select sentences."),
    _system(_E, "banditsumm_out.txt", "ext/banditsumm/out.txt", "banditsum", "BanditSum",
            "Dong et al. (2018), extractive summarization as a contextual bandit."),
    _system(_A, "semsim_out.txt", "abs/semsim/out.txt", "semsim", "SemSim",
            "Yoon et al. (2020), learning by semantic similarity."),
    _system(_A, "bart_out.txt", "abs/bart/out.txt", "bart-abs", "BART (abstractive)",
            "Lewis et al. (2020), pre-trained sequence-to-sequence."),
    _system(_A, "presumm_out_trans_abs.txt", "abs/presumm/out_trans_abs.txt",
            "presumm-transabs", "PreSumm TransAbs", _PRESUMM),
    _system(_A, "presumm_out_abs.txt", "abs/presumm/out_abs.txt", "presumm-abs",
            "PreSumm BertSumAbs", _PRESUMM),
    _system(_A, "presumm_out_ext_abs.txt", "abs/presumm/out_ext_abs.txt", "presumm-extabs",
            "PreSumm BertSumExtAbs", _PRESUMM),
    _system(_A, "two_stage_rl_out.txt", "abs/two_stage_rl/out.txt", "two-stage-rl",
            "Two-Stage+RL", "Zhang et al. (2019), pretraining-based natural language generation."),
    _system(_A, "unilm_out_v1.txt", "abs/unilm/out_v1.txt", "unilm-v1", "UniLM v1",
            "Dong et al. (2019), unified language model pre-training."),
    _system(_A, "unilm_out_v2.txt", "abs/unilm/out_v2.txt", "unilm-v2", "UniLM v2",
            "Dong et al. (2019), unified language model pre-training (the release's v2)."),
    _system(_A, "t5_out_base.txt", "abs/t5/out_base.txt", "t5-base", "T5 Base",
            "Raffel et al. (2020), text-to-text transformer."),
    _system(_A, "t5_out_large.txt", "abs/t5/out_large.txt", "t5-large", "T5 Large",
            "Raffel et al. (2020), text-to-text transformer."),
    _system(_A, "t5_out_11B.txt", "abs/t5/out_11B.txt", "t5-11b", "T5 11B",
            "Raffel et al. (2020), text-to-text transformer."),
    _system(_A, "bottom_up_out.txt", "abs/bottom_up/out.txt", "bottom-up", "Bottom-Up",
            "Gehrmann et al. (2018), bottom-up abstractive summarization."),
    _system(_A, "fast_abs_rl_out_rerank.txt", "abs/fast_abs_rl/out_rerank.txt",
            "fast-abs-rl", "Fast-Abs-RL (rerank)",
            "Chen and Bansal (2018), reinforce-selected sentence rewriting."),
    _system(_A, "ptr_generator_out_pointer_gen_cov.txt",
            "abs/ptr_generator/out_pointer_gen_cov.txt", "pointer-generator-coverage",
            "Pointer-Generator + Coverage", "See et al. (2017), get to the point."),
)  # fmt: skip
