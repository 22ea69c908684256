"""REALSumm on the leaderboard: each system's mean LitePyramid recall is the pickles', and the
meta-evaluation's figures are SciPy's on the same vectors.

The expected figures come from the release's own files, read here with the standard unpickler
(the real, read-only files in ../shared only), and from rouge-score (the reference ROUGE) on the
texts the import stored, never from the output under test.
"""

from __future__ import annotations

import io
import json
import math
import pickle
import re
from collections import defaultdict

import numpy as np
import pytest
from django.core.management import call_command
from rouge_score import rouge_scorer
from scipy import stats as scipy_stats

from annotation.corpus.importers.parsers.realsumm import STUDY, SYSTEMS
from annotation.systems.models import SystemOutput
from tests.importers.test_realsumm import SHARED, needs_release
from tests.metrics.test_system_correlation import SCIPY

pytestmark = pytest.mark.django_db


def _pickled() -> dict[str, dict[int, dict]]:
    """system slug -> doc id -> the pickle's scores, the copied abstractive BART left out."""
    found = {}
    for kind, name in (("abstractive", "abs"), ("extractive", "ext")):
        with (SHARED / "scores_dicts" / f"{name}.pkl").open("rb") as handle:
            data = pickle.load(handle)  # noqa: S301 - the release's own file
        for system in SYSTEMS:
            if system.kind == kind and system.slug != "realsumm-bart-abs":
                found[system.slug] = {
                    d: {
                        k: float(v)
                        for k, v in data[d]["system_summaries"][system.key]["scores"].items()
                    }
                    for d in range(100)
                }
    return found


def _selected() -> list[str]:
    text = (SHARED / "selected_docs_for_human_eval" / "selected_documents.md").read_text()
    return [f"cnndm{n.strip()}" for n in re.search(r"\[([\d,\s]+)\]", text).group(1).split(",")]


def _rouge_score() -> dict[str, dict[str, dict[str, float]]]:
    """metric -> system -> external id -> rouge-score's value on the stored texts."""
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    found: dict = defaultdict(lambda: defaultdict(dict))
    outputs = SystemOutput.objects.filter(document__dataset__slug="realsumm").values_list(
        "system__slug", "document__external_id", "sentences", "document__references__sentences"
    )
    for system, external, sentences, reference in outputs:
        scores = scorer.score(" ".join(reference), " ".join(sentences))
        for rouge, score in scores.items():
            for short, value in zip("prf", score, strict=True):
                found[f"{rouge}_{short}"][system][external] = value
    return found


@needs_release
def test_realsumm_leaderboard_json_against_the_pickles_and_scipy(
    django_capture_on_commit_callbacks, capsys
):
    with django_capture_on_commit_callbacks(execute=False):  # scored below, in this process
        call_command(
            "import_dataset", str(SHARED), "--format", "realsumm", "--slug", "realsumm",
            stdout=io.StringIO(),
        )  # fmt: skip
    out = io.StringIO()
    call_command(
        "leaderboard", "--dataset", "realsumm", "--format", "json", "--sync", "--sort", "rouge2_r",
        stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    board = json.loads(out.getvalue())
    pickled = _pickled()
    ids = _selected()
    litepyramid = {
        slug: math.fsum(v["litepyramid_recall"] for v in docs.values()) / 100
        for slug, docs in pickled.items()
    }

    # Each system's mean LitePyramid recall is the pickle's; the copied BART has none.
    systems = {row["system"]: row for row in board["systems"]}
    assert len(systems) == 25 and len(litepyramid) == 24
    for slug, expected in litepyramid.items():
        assert systems[slug]["human"][STUDY] == {"mean": expected, "n": 100}
    assert systems["realsumm-bart-abs"]["human"] == {}
    block = board["meta_evaluation"]
    [study] = block["studies"]
    assert study["study"] == STUDY and study["human_means"] == litepyramid
    subsets = {item["subset"]: item["systems"] for item in study["subsets"]}
    assert {s: len(m) for s, m in subsets.items()} == {
        "all": 24, "abstractive": 13, "extractive": 11,
        "top-5": 5, "top-10": 10, "top-15": 15, "top-20": 20,
    }  # fmt: skip
    ranked = sorted(litepyramid, key=lambda s: -litepyramid[s])
    assert set(subsets["top-5"]) == set(ranked[:5])
    assert list(subsets) == [
        "all",
        "abstractive",
        "extractive",
        "top-5",
        "top-10",
        "top-15",
        "top-20",
    ]
    rows = {(r["metric"], r["subset"], r["level"]): r for r in study["rows"]}

    # A released metric, system level, on every subset: SciPy on the pickles' system means.
    for released in ("rouge_2_recall", "js-2", "bert_f_score"):
        for subset, members in subsets.items():
            x = [np.mean([pickled[s][d][released] for d in range(100)]) for s in members]
            y = [litepyramid[s] for s in members]
            row = rows[(f"realsumm:{released}", subset, "system")]
            assert (row["n_systems"], row["n_documents"]) == (len(members), 100)
            for method, scipy in SCIPY.items():
                assert row[method]["value"] == pytest.approx(scipy(x, y), abs=1e-12)
                assert row[method]["low"] is not None and row[method]["high"] is not None

    # Summary level: Kendall per document across the 24 systems, averaged over the documents
    # where neither side is constant.
    members = subsets["all"]
    taus = []
    for d in range(100):
        a = [pickled[s][d]["js-2"] for s in members]
        b = [pickled[s][d]["litepyramid_recall"] for s in members]
        if len(set(a)) > 1 and len(set(b)) > 1:
            taus.append(scipy_stats.kendalltau(a, b).statistic)
    summary = rows[("realsumm:js-2", "all", "summary")]["kendall"]
    assert summary["value"] == pytest.approx(float(np.mean(taus)), abs=1e-12)
    assert (summary["n"], summary["undefined"]) == (len(taus), 100 - len(taus))

    # Loupe's own ROUGE against LitePyramid: rouge-score's values, then SciPy.
    reference = _rouge_score()
    by_id = {external: d for d, external in enumerate(ids)}
    for metric in ("rouge1_f", "rouge2_r", "rougeL_f"):
        x = [np.mean([reference[metric][s][e] for e in ids]) for s in members]
        y = [litepyramid[s] for s in members]
        for method, scipy in SCIPY.items():
            found = rows[(metric, "all", "system")][method]["value"]
            assert found == pytest.approx(scipy(x, y), abs=1e-9)

    # Loupe's ROUGE against the authors' Perl ROUGE, output by output.
    released = {c["released_key"]: c for c in block["released"]}
    assert len(released) == 9
    for key, loupe in (("rouge_1_f_score", "rouge1_f"), ("rouge_2_recall", "rouge2_r")):
        x = [reference[loupe][s][e] for s in sorted(pickled) for e in ids]
        y = [pickled[s][by_id[e]][key] for s in sorted(pickled) for e in ids]
        item = released[key]
        assert (item["loupe_key"], item["n"]) == (loupe, 2400)
        assert item["pearson"] == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-9)
        assert item["mean_abs_diff"] == pytest.approx(np.mean(np.abs(np.subtract(x, y))), abs=1e-9)
    assert released["rouge_l_f_score"]["loupe_key"] in ("rougeLsum_f", "rougeL_f")

    # The table prints the means and the Kendall table.
    table = io.StringIO()
    call_command("leaderboard", "--dataset", "realsumm", "--sort", "rouge2_r", stdout=table)
    text = table.getvalue()
    assert f"Kendall's tau with {STUDY} at system level by subset" in text
    semsim = next(line for line in text.splitlines() if line.startswith("realsumm-semsim "))
    assert f"{100 * litepyramid['realsumm-semsim']:.1f} (100)" in semsim
    with capsys.disabled():
        for slug in ("realsumm-semsim", "realsumm-bart-ext", "realsumm-t5-11b"):
            print(f"{slug}: LitePyramid {systems[slug]['human'][STUDY]['mean']:.6f}")
        for metric in ("rouge2_r", "realsumm:rouge_2_recall", "realsumm:js-2"):
            tau = rows[(metric, "all", "system")]["kendall"]
            print(f"{metric}: system tau {tau['value']:.3f} [{tau['low']:.3f}, {tau['high']:.3f}]")
