"""The ``rouge`` and ``allpairs`` commands: JSON Lines out, tables, and errors naming the line."""

from __future__ import annotations

import json

import pytest

from scoring.metrics.cli import main
from scoring.metrics.rouge import DEFAULT_ROUGE, RougeConfig
from tests.rouge_helpers import reference_scorer

SCORER = reference_scorer(DEFAULT_ROUGE)


def write_lines(path, *lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_rouge_prints_one_line_per_pair_in_order(tmp_path, capsys):
    pairs = [
        ("the cat sat on the mat", "The cat on the mat."),
        ("", "anything"),
        ("Police arrested two men.", "Two men were arrested by police on Tuesday."),
    ]
    path = write_lines(
        tmp_path / "pairs.jsonl",
        *(json.dumps({"target": t, "prediction": p, "note": "ignored"}) for t, p in pairs),
        "",
    )
    status, out, err = run(capsys, "rouge", "--pairs", str(path))
    assert (status, err) == (0, "")
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 3
    for record, (target, prediction) in zip(records, pairs, strict=True):
        expected = SCORER.score(target, prediction)
        assert list(record) == ["rouge1", "rouge2", "rougeL", "rougeLsum"]
        for name, score in expected.items():
            assert record[name] == {
                "precision": score.precision,
                "recall": score.recall,
                "fmeasure": score.fmeasure,
            }
    # Hand-worked: ROUGE-1 P 5/5, R 5/6 for the first pair.
    assert records[0]["rouge1"]["recall"] == 5 / 6


def test_rouge_table(tmp_path, capsys):
    path = write_lines(
        tmp_path / "pairs.jsonl", json.dumps({"target": "a a a b", "prediction": "a b b"})
    )
    status, out, _ = run(capsys, "rouge", "--pairs", str(path), "--table")
    header, row = out.splitlines()
    assert status == 0
    assert header.split()[:4] == ["line", "rouge1", "P", "rouge1"]
    # Hand-worked: ROUGE-1 P 2/3, R 1/2, F 4/7; ROUGE-2 P 1/2, R 1/3, F 2/5.
    # ROUGE-L and -Lsum (one line each, so one sentence): LCS "a b": P 2/3, R 1/2, F 4/7.
    assert (
        row.split()
        == ["1", "0.6667", "0.5000", "0.5714", "0.5000", "0.3333", "0.4000"]
        + [
            "0.6667",
            "0.5000",
            "0.5714",
        ]
        * 2
    )


@pytest.mark.parametrize(
    ("options", "config"),
    [
        (["--no-stemmer"], RougeConfig(DEFAULT_ROUGE.rouge_types, use_stemmer=False)),
        (["--rouge-types", "rouge3,rougeLsum", "--split-summaries"], None),
        (["--rouge-types", "rougeL", "rouge9", "--use-stemmer", "--no-split-summaries"], None),
        (["--rouge-types", "rougeLsum", "--no-stemmer", "--split-summaries"], None),
    ],
)
def test_rouge_options_are_rouge_scores(tmp_path, capsys, options, config):
    types = options[1].replace(",", " ").split() if options[0] == "--rouge-types" else None
    if options[2:3] == ["rouge9"]:
        types.append("rouge9")
    config = config or RougeConfig(
        sorted(types, key=["rouge3", "rouge9", "rougeL", "rougeLsum"].index),
        use_stemmer="--no-stemmer" not in options,
        split_summaries="--split-summaries" in options,
    )
    pairs = [
        ("Police arrested two men. They were charged.", "Two men were arrested. Police said so."),
        ("The runners ran\nto the organizations", "a runner runs\nfor organization"),
    ]
    path = write_lines(
        tmp_path / "pairs.jsonl", *(json.dumps({"target": t, "prediction": p}) for t, p in pairs)
    )
    status, out, err = run(capsys, "rouge", "--pairs", str(path), *options)
    assert (status, err) == (0, "")
    scorer = reference_scorer(config)
    for line, (target, prediction) in zip(out.splitlines(), pairs, strict=True):
        record = json.loads(line)
        assert list(record) == list(config.rouge_types)
        for name, score in scorer.score(target, prediction).items():
            assert tuple(record[name].values()) == tuple(score)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--rouge-types", "rougeLSum"], "--rouge-types: unknown ROUGE type(s) 'rougeLSum'"),
        (["--rouge-types", "rouge1,rouge1"], "--rouge-types: ROUGE type(s) given twice: rouge1"),
        (["--rouge-types", ","], "--rouge-types: choose at least one ROUGE type"),
    ],
)
def test_rouge_refuses_bad_options(tmp_path, capsys, options, message):
    path = write_lines(tmp_path / "pairs.jsonl", json.dumps({"target": "a", "prediction": "a"}))
    status, out, err = run(capsys, "rouge", "--pairs", str(path), *options)
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {message}")


def test_rouge_stemming_options_exclude_each_other(tmp_path, capsys):
    path = write_lines(tmp_path / "pairs.jsonl", json.dumps({"target": "a", "prediction": "a"}))
    with pytest.raises(SystemExit) as raised:
        main(["rouge", "--pairs", str(path), "--no-stemmer", "--use-stemmer"])
    assert raised.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_allpairs_prints_matrices_per_document(tmp_path, capsys):
    docs = [
        {"id": "d1", "sentences": ["A cat sat.", "It rained."], "facets": ["Cats sat."]},
        {"id": "d2", "sentences": ["x y", ""], "facets": ["x y", "y x", ""], "category": "low"},
        {"id": "d3", "sentences": [], "facets": ["lonely facet"]},
    ]
    path = write_lines(tmp_path / "docs.jsonl", *(json.dumps(d) for d in docs))
    for measure in ("precision", "recall", "fmeasure"):
        argv = ["allpairs", "--docs", str(path)]
        if measure != "fmeasure":
            argv += ["--measure", measure]
        status, out, err = run(capsys, *argv)
        assert (status, err) == (0, "")
        records = [json.loads(line) for line in out.splitlines()]
        assert [r["id"] for r in records] == ["d1", "d2", "d3"]
        for record, doc in zip(records, docs, strict=True):
            assert list(record) == ["id", "rouge1", "rouge2", "rougeL"]
            for name in ("rouge1", "rouge2", "rougeL"):
                expected = [
                    [getattr(SCORER.score(f, s)[name], measure) for s in doc["sentences"]]
                    for f in doc["facets"]
                ]
                assert record[name] == expected
    # Hand-worked, d1 F-measure: "cat sat" vs "a cat sat": ROUGE-1 P 2/3, R 1 -> F 0.8.
    assert json.loads(run(capsys, "allpairs", "--docs", str(path))[1].splitlines()[0]) == {
        "id": "d1",
        "rouge1": [[0.8, 0.0]],
        "rouge2": [[2 * 0.5 * 1.0 / 1.5, 0.0]],
        "rougeL": [[0.8, 0.0]],
    }


def test_allpairs_table_has_one_row_per_pair(tmp_path, capsys):
    doc = {"id": "d1", "sentences": ["A cat sat.", "It rained."], "facets": ["Cats sat."]}
    path = write_lines(tmp_path / "docs.jsonl", json.dumps(doc))
    status, out, _ = run(capsys, "allpairs", "--docs", str(path), "--table", "--measure", "recall")
    lines = [line.split() for line in out.splitlines()]
    assert status == 0
    assert lines == [
        ["id", "facet", "sentence", "rouge1", "recall", "rouge2", "recall", "rougeL", "recall"],
        ["d1", "0", "0", "1.0000", "1.0000", "1.0000"],
        ["d1", "0", "1", "0.0000", "0.0000", "0.0000"],
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"prediction": "p"}, "missing key 'target'"),
        ({"target": "t"}, "missing key 'prediction'"),
        ({"target": 3, "prediction": "p"}, "'target' must be a string, got int"),
        ({"target": "t", "prediction": ["p"]}, "'prediction' must be a string, got list"),
    ],
)
def test_rouge_bad_input_names_file_and_line(tmp_path, capsys, line, message):
    path = write_lines(
        tmp_path / "pairs.jsonl",
        json.dumps({"target": "t", "prediction": "p"}),
        "",
        json.dumps(line),
    )
    status, out, err = run(capsys, "rouge", "--pairs", str(path))
    assert (status, out) == (2, "")
    assert err == f"error: {path}:3: {message}\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"sentences": [], "facets": []}, "missing key 'id'"),
        ({"id": 7, "sentences": [], "facets": []}, "'id' must be a string, got int"),
        ({"id": "d1", "sentences": [], "facets": []}, "id 'd1' repeats line 1"),
        ({"id": "d2", "facets": []}, "missing key 'sentences'"),
        ({"id": "d2", "sentences": []}, "missing key 'facets'"),
        ({"id": "d2", "sentences": "one", "facets": []}, "'sentences' must be a list of strings"),
        ({"id": "d2", "sentences": ["a", None], "facets": []}, "sentences[1] must be a string"),
        ({"id": "d2", "sentences": [], "facets": [{"t": 1}]}, "facets[0] must be a string"),
    ],
)
def test_allpairs_bad_input_names_file_and_line(tmp_path, capsys, line, message):
    good = {"id": "d1", "sentences": ["s"], "facets": ["f"]}
    path = write_lines(tmp_path / "docs.jsonl", json.dumps(good), json.dumps(line))
    status, out, err = run(capsys, "allpairs", "--docs", str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {path}:2: ")
    assert message in err


def test_missing_file_and_invalid_json(tmp_path, capsys):
    status, _, err = run(capsys, "allpairs", "--docs", str(tmp_path / "absent.jsonl"))
    assert status == 2 and "file not found" in err
    path = write_lines(tmp_path / "pairs.jsonl", '{"target": "t", "prediction": "p"}', "{oops")
    status, _, err = run(capsys, "rouge", "--pairs", str(path))
    assert status == 2 and f"{path}:2: invalid JSON" in err


def test_bad_measure_is_refused(tmp_path, capsys):
    path = write_lines(
        tmp_path / "docs.jsonl", json.dumps({"id": "d", "sentences": [], "facets": []})
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["allpairs", "--docs", str(path), "--measure", "f1"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "fragments"),
    [
        ("rouge", ['{"target": "The cat sat on the mat."', "--table", "line"]),
        ("allpairs", ['{"id": "d1", "sentences": [', "--measure", "precision"]),
    ],
)
def test_help_documents_the_format(capsys, command, fragments):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for fragment in fragments:
        assert fragment in out


def test_allpairs_no_stemmer_is_rouge_scores_default(tmp_path, capsys):
    doc = {"id": "d", "sentences": ["The runners ran.", "A runner runs."], "facets": ["Runners"]}
    path = write_lines(tmp_path / "docs.jsonl", json.dumps(doc))
    scorer = reference_scorer(RougeConfig(("rouge1", "rouge2", "rougeL"), use_stemmer=False))
    for options, first in (([], 1.0), (["--no-stemmer"], 0.0)):
        status, out, _ = run(
            capsys, "allpairs", "--docs", str(path), "--measure", "recall", *options
        )
        record = json.loads(out)
        assert status == 0 and record["rouge1"][0][1] == first  # "runners" stems to "runner"
    for j, sentence in enumerate(doc["sentences"]):
        for name, score in scorer.score(doc["facets"][0], sentence).items():
            assert record[name][0][j] == score.recall
