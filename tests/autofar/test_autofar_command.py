"""``manage.py autofar`` on the imported FAR release: Tables 6-8 as JSON and as text.

Reads ../shared/data in place. Expected figures: the paper's Tables 6-8 (Mao et al., 2020;
``scoring.metrics.autofar.published`` copies them), printed beside Loupe's; the bench's
published micro figures for top-1..3 (bench/README.md, "Latest figures"), which another code
path (``bench/bench_suggestions.py`` on the release files) produced; and the figures
``tests/autofar/test_autofar_paper.py`` checks against an independent computation.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import FAR_RELEASE

# bench/README.md "Latest figures": ROUGE-1 F micro P / R / F1 in % for top-1, top-2, top-3.
BENCH_ROUGE1_F = ((90.4, 54.2, 67.8), (72.3, 80.8, 76.3), (57.1, 89.2, 69.7))
PAPER_ROUGE1_F_TOP1 = (88.9, 53.1, 66.5)  # the paper's Table 6
SYSTEMS = ["banditsum", "fastrl-e", "lead-3", "neusum", "refresh", "unifiedsum-e"]


def _run(*args) -> str:
    out = StringIO()
    call_command("autofar", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_unknown_dataset_is_a_clear_error():
    with pytest.raises(CommandError, match="no dataset with slug 'nope'"):
        _run("--dataset", "nope")


@pytest.mark.shared
@pytest.mark.django_db
@pytest.mark.skipif(not FAR_RELEASE.is_dir(), reason=f"{FAR_RELEASE} is absent")
def test_autofar_on_the_far_release_json_and_text():
    call_command(
        "import_dataset",
        str(FAR_RELEASE),
        "--format",
        "far-release",
        "--slug",
        "cnndm-far",
        stdout=StringIO(),
    )
    report = json.loads(_run("--dataset", "cnndm-far", "--format", "json", "--resamples", "200"))
    assert {"table6", "table7", "table8"} <= report.keys()
    scorers = ["rouge1-f", "rouge2-f", "rougel-f", "rougeavg-f"]
    pairs = [(s, n) for s in scorers for n in (1, 2, 3)]

    # Table 6: one row per scorer and N, fractions; ROUGE-1 F as the bench and the paper.
    assert [(r["scorer"], r["top_n"]) for r in report["table6"]] == pairs
    for row in report["table6"]:
        assert row["documents"] == 76  # 89 FAMs, 13 whose split disagrees left out
        for key in ("precision", "recall", "f1"):
            assert 0 <= row[key] <= 1
    rouge1 = [r for r in report["table6"] if r["scorer"] == "rouge1-f"]
    for row, expected in zip(rouge1, BENCH_ROUGE1_F, strict=True):
        got = tuple(100 * row[k] for k in ("precision", "recall", "f1"))
        assert got == pytest.approx(expected, abs=0.05)
    assert 100 * rouge1[0]["f1"] == pytest.approx(PAPER_ROUGE1_F_TOP1[2], abs=2.0)
    # The paper's figure beside each row it has (top-1 only).
    assert rouge1[0]["paper"] == {
        "label": "ROUGE-1 F1",
        "precision": 0.889,
        "recall": 0.531,
        "f1": 0.665,
    }
    assert rouge1[1]["paper"] is None
    other = {(r["scorer"], r["documents"]): r for r in report["table6_other"]}
    assert set(other) == {
        ("lead-3", 89),
        ("lead-3", 76),
        ("greedy-rouge1-f", 76),
        ("tfidf", 76),
        ("rougel-r", 76),
        ("rougel-p", 76),
    }
    lead = other[("lead-3", 89)]
    assert lead["paper"]["label"] == "Lead-3"
    assert [round(lead[k], 3) for k in ("precision", "recall", "f1")] == [0.610, 0.337, 0.434]

    # Table 7: an entry per scorer and N over the six extractive systems, with intervals.
    assert [(r["scorer"], r["top_n"]) for r in report["table7"]] == pairs
    for row in report["table7"]:
        assert sorted(row["machine_means"]) == SYSTEMS
        for method in ("pearson", "spearman", "kendall"):
            value = row[method]
            assert -1 <= value["value"] <= 1
            assert value["low"] <= value["high"]

    # Table 7 with the paper's figures; the paper's protocol on 76 / 89 documents.
    first = report["table7"][0]
    assert first["paper"] == {"pearson": 0.705, "spearman": 0.371, "kendall": 0.333}
    protocol = report["table7_paper_protocol"]
    assert [(r["scorer"], r["top_n"]) for r in protocol] == pairs
    assert {(r["machine_documents"], r["truth_documents"]) for r in protocol} == {(76, 89)}
    assert protocol[2]["paper"] == {"pearson": 0.884, "spearman": 0.943, "kendall": 0.867}
    assert round(protocol[2]["agreement"]["pearson"]["value"], 3) == 0.467

    # Table 8 under the paper's protocol: per system FAR, AutoFAR, held out, the paper's.
    paper8 = report["table8_paper_protocol"]
    assert paper8["features"] == [f"{s}@3" for s in scorers]
    assert [row["system"] for row in paper8["systems"]] == SYSTEMS
    bandit = paper8["systems"][0]
    assert bandit["name"] == "BanditSum"
    assert bandit["paper"] == {"far": 0.447, "autofar": 0.448, "autofar_l": 0.447}
    assert round(bandit["far"], 3) == 0.447  # the ground truth reproduces the paper's column
    assert paper8["paper"]["autofar"] == {"pearson": 0.976, "spearman": 0.771, "kendall": 0.6}
    assert "11,490" in paper8["autofar_l_reason"]
    assert round(paper8["fit"]["in_sample"]["spearman"]["value"], 3) == 0.943
    assert [r["label"] for r in report["table8_readings"]] == [
        "system level, N=1",
        "system level, N=2",
        "system level, N=3, the paper's protocol (our reading)",
        "document level, N=3",
        "document level, every feature (12), Loupe's model",
    ]

    # Table 8: a fit on every system's rows, validated leaving each system out.
    table8 = report["table8"]
    assert table8 is not None, report["table8_reason"]
    assert [h["system"] for h in table8["held_out"]] == SYSTEMS
    assert table8["model"]["n_rows"] == 6 * report["meta"]["table8_documents"]
    features = table8["model"]["features"]
    assert set(features) | set(report["meta"]["table8_duplicates"]) == {
        f"{s}@{n}" for s, n in pairs
    }
    assert report["meta"]["documents_split_disagreements_left_out"] == 13
    assert table8["paper"] == {"pearson": 0.976, "spearman": 0.771, "kendall": 0.6}
    assert table8["in_sample"]["n_systems"] == 6

    text = _run("--dataset", "cnndm-far", "--scorers", "rouge1-f", "--top-n", "1,2")
    assert "Table 6" in text and "Table 7" in text and "Table 8" in text
    assert "lead-3            -   89  61.0  33.7  43.4 |  61.0  33.7  43.4" in text
    assert "rouge1-f          1   76  90.4  54.2  67.8 |  88.9  53.1  66.5" in text
    assert "rouge1-f          2   76  72.3  80.8  76.3 |\n" in text
    assert "rouge1-f      1  70.5  37.1  33.3 |  82.6  71.4  60.0 |   76  86.9 [" in text
    # Without N = 3 the paper's Table 8 reading takes the largest N given.
    assert "features rouge1-f@2 (system means)" in text
    assert "paper  97.6  77.1  60.0" in text and "FAR vs AutoFAR-L: paper  42.9  54.3  46.7" in text
    assert "banditsum         44.7  44.7" in text
    assert "rouge1-f@2" in text and "validation RMSE" in text
    assert "FAR vs AutoFAR r / rho / tau (system means, 76 documents): in sample" in text

    with pytest.raises(CommandError, match="unknown scorer 'nope'"):
        _run("--dataset", "cnndm-far", "--scorers", "nope")
    with pytest.raises(CommandError, match="--top-n must be integers"):
        _run("--dataset", "cnndm-far", "--top-n", "x")
