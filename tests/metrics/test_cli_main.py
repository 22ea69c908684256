"""The real `python -m scoring.metrics` entry point, with every command registered."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.metrics.cli import COMMAND_MODULES, build_parser

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scoring.metrics", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def test_help_lists_every_command_and_each_command_documents_its_formats():
    result = run("--help")
    assert result.returncode == 0
    for name in COMMAND_MODULES:
        assert name in result.stdout
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for name, sub in subparsers.choices.items():
        text = sub.format_help()
        assert "--table" in text, name
        assert "{" in text and "}" in text, f"{name} --help shows no JSON format example"


def test_far_end_to_end_json_and_table(tmp_path):
    # Facet 0: groups {0} or {2}; facet 1: {1, 3}. Extracted [0, 1, 4] with k=3:
    # facet 0 covered ({0} within), facet 1 not ({3} missing) -> FAR 1/2.
    # Support = {0, 1, 2, 3}; extracted support = {0, 1} -> SAR 2/4, SAP 2/3.
    (tmp_path / "fams.json").write_text(json.dumps({"d1": {"0": [[0], [2]], "1": [[1, 3]]}}))
    (tmp_path / "ext.json").write_text(json.dumps({"d1": [0, 1, 4]}))
    args = ["far", "--fams", str(tmp_path / "fams.json"), "--extracted", str(tmp_path / "ext.json")]
    result = run(*args)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    doc = out["documents"]["d1"]
    assert (doc["far"], doc["sar"], doc["sap"]) == (0.5, 0.5, 2 / 3)
    assert doc["saf1"] == pytest.approx(4 / 7, abs=1e-15)  # 2PR/(P+R) = (2/3)/(7/6)
    assert out["coverage"]["scored"] == out["coverage"]["expected"] == 1
    table = run(*args, "--table")
    assert table.returncode == 0 and "d1" in table.stdout


def test_rouge_end_to_end_matches_rouge_score(tmp_path):
    from rouge_score.rouge_scorer import RougeScorer

    pair = {"target": "The cat sat on the mat.", "prediction": "A cat was sitting on a mat."}
    (tmp_path / "pairs.jsonl").write_text(json.dumps(pair) + "\n")
    result = run("rouge", "--pairs", str(tmp_path / "pairs.jsonl"))
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout.splitlines()[0])
    want = RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True).score(
        pair["target"], pair["prediction"]
    )
    for key, score in want.items():
        assert got[key] == {
            "precision": score.precision,
            "recall": score.recall,
            "fmeasure": score.fmeasure,
        }


def test_bad_input_exits_2_with_the_place(tmp_path):
    (tmp_path / "pairs.jsonl").write_text('{"target": "x", "prediction": "y"}\n{"target": 5}\n')
    result = run("rouge", "--pairs", str(tmp_path / "pairs.jsonl"))
    assert result.returncode == 2
    assert "pairs.jsonl:2" in result.stderr
