"""``manage.py bias`` on a hand-worked one-document dataset and on the PolyTope release."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.models import Dataset, Document, Reference
from annotation.systems.models import OutputVersion, System, SystemKind, SystemOutput
from tests.conftest import POLYTOPE_OUTPUTS

# The worked example of scoring/metrics/bias/README.md.
DOCUMENT = ["The storm hit the coast on Monday.", "Thousands lost power."]
SUMMARY = ["The storm hit the coast, and thousands lost power."]


def _run(*args) -> str:
    out = StringIO()
    call_command("bias", *args, stdout=out)
    return out.getvalue()


def _output(system, dataset, document, number, sentences, extracted=None):
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=number)
    return SystemOutput.objects.create(
        system=system,
        version=version,
        document=document,
        sentences=sentences,
        extracted=extracted,
        extraction_method="lead" if extracted is not None else "",
    )


@pytest.mark.django_db
def test_unknown_dataset_and_empty_dataset_are_clear_errors():
    with pytest.raises(CommandError, match="no dataset with slug 'nope'"):
        _run("--dataset", "nope")
    Dataset.objects.create(slug="empty", name="Empty")
    with pytest.raises(CommandError, match="'empty' has no reference or system output"):
        _run("--dataset", "empty")


@pytest.mark.django_db
def test_one_document_hand_worked():
    dataset = Dataset.objects.create(slug="storm", name="Storm")
    document = Document.objects.create(
        dataset=dataset, external_id="d1", position=0, sentences=DOCUMENT
    )
    Reference.objects.create(document=document, position=0, sentences=SUMMARY)
    # A document without text: its pairs are left out (nothing to copy from) and counted.
    missing = Document.objects.create(
        dataset=dataset, external_id="d2", position=1, sentences=[], meta={"text_missing": True}
    )
    Reference.objects.create(document=missing, position=0, sentences=["Anything at all."])
    lead = System.objects.create(slug="lead-1", name="Lead-1", kind=SystemKind.EXTRACTIVE)
    _output(lead, dataset, document, 1, [DOCUMENT[0]], extracted=[0])
    abstractive = System.objects.create(slug="abs", name="Abs", kind=SystemKind.ABSTRACTIVE)
    _output(abstractive, dataset, document, 1, ["Nothing like it."])
    # Only the current (latest) version counts: version 2 is the worked example's summary.
    _output(abstractive, dataset, document, 2, SUMMARY)

    report = json.loads(_run("--dataset", "storm", "--format", "json"))
    assert report["dataset"] == "storm"
    assert [(r["source"], r["kind"]) for r in report["rows"]] == [
        ("reference", "reference"),
        ("abs", "abstractive"),
        ("lead-1", "extractive"),
    ]
    assert report["meta"]["documents"] == 2
    assert report["meta"]["documents_without_text_left_out"] == 1
    assert report["meta"]["pairs"] == {"reference": 1, "abs": 1, "lead-1": 1}
    assert report["meta"]["output_versions"] == {"abs": 2, "lead-1": 1}
    reference, abs_row, lead_row = report["rows"]
    # README's worked example, by hand: fragments "the storm hit the coast" (5) and
    # "thousands lost power" (3) of 9 summary tokens; 10 document tokens.
    for row in (reference, abs_row):
        assert row["n_items"] == 1
        assert row["coverage"] == pytest.approx(8 / 9)
        assert row["density"] == pytest.approx(34 / 9)
        assert row["compression"] == pytest.approx(10 / 9)
        assert row["copy_length"] == pytest.approx(4.0)
        assert row["novel"] == pytest.approx([1 / 8, 2 / 8, 3 / 7, 4 / 6])
        assert row["repeated"] == pytest.approx([1 / 8, 0, 0, 0])
        assert row["fusion"] == 1.0
        assert row["mean_position"] == pytest.approx(0.1875)
        assert len(row["position_histogram"]) == 10
        # 5 copied tokens in sentence 0 of 2 (bin 0), 3 in sentence 1 (1/2: bin 5).
        assert row["position_histogram"][0] == pytest.approx(5 / 8)
        assert row["position_histogram"][5] == pytest.approx(3 / 8)
    # Lead-1 copies "the storm hit the coast on monday" whole: 7 tokens in one fragment.
    assert lead_row["coverage"] == 1.0
    assert lead_row["density"] == pytest.approx(7.0)
    assert lead_row["compression"] == pytest.approx(10 / 7)
    assert lead_row["copy_length"] == 7.0
    assert lead_row["novel"] == [0.0, 0.0, 0.0, 0.0]
    # Distinct unigrams: the storm hit coast on monday (6), "the" twice.
    assert lead_row["repeated"] == pytest.approx([1 / 6, 0, 0, 0])
    assert lead_row["fusion"] == 0.0
    assert lead_row["mean_position"] == 0.0

    text = _run("--dataset", "storm")
    lines = text.splitlines()
    assert lines[0] == "storm: 2 documents (1 without text left out)"
    row = next(line for line in lines if line.startswith("lead-1"))
    assert row.split() == [
        "lead-1",
        "extractive",
        "1",
        "1.000",
        "7.000",
        "1.429",
        "7.000",
        *["0.0"] * 4,
        "16.7",
        *["0.0"] * 3,
        "0.0",
        "0.000",
    ]


@pytest.mark.shared
@pytest.mark.django_db
@pytest.mark.skipif(not POLYTOPE_OUTPUTS.is_dir(), reason=f"{POLYTOPE_OUTPUTS} is absent")
def test_bias_on_the_polytope_release():
    call_command(
        "import_dataset",
        str(POLYTOPE_OUTPUTS),
        "--format",
        "polytope-release",
        "--slug",
        "cnndm-polytope",
        stdout=StringIO(),
    )
    kinds = dict(System.objects.values_list("slug", "kind"))
    report = json.loads(_run("--dataset", "cnndm-polytope", "--format", "json"))
    rows = {row["source"]: row for row in report["rows"]}
    assert list(rows) == ["reference", *sorted(kinds)]
    assert len(kinds) == 10
    assert report["meta"]["documents"] == 150
    assert report["meta"]["pairs"] == {
        "reference": 150,
        **{slug: 149 if slug == "textrank" else 150 for slug in kinds},
    }
    for row in report["rows"]:
        assert row["kind"] == (
            "reference" if row["source"] == "reference" else kinds[row["source"]]
        )
        assert set(row) >= {"coverage", "density", "compression", "copy_length", "novel"}
        assert len(row["novel"]) == len(row["repeated"]) == 4
        assert 0 <= row["coverage"] <= 1 and 0 <= row["fusion"] <= 1
        assert 0 <= row["mean_position"] < 1
        assert sum(row["position_histogram"]) == pytest.approx(1.0)
    extractive = [slug for slug, kind in kinds.items() if kind == SystemKind.EXTRACTIVE]
    assert "lead-3" in extractive and len(extractive) >= 3
    # Extractive systems copy whole document sentences: (almost) no novel unigram.
    for slug in extractive:
        assert rows[slug]["novel"][0] < 0.01, (slug, rows[slug]["novel"])
    # Lead-3 copies three consecutive sentences: the longest fragments, the highest density.
    densities = {slug: rows[slug]["density"] for slug in kinds}
    assert max(densities, key=densities.get) == "lead-3", densities
    # ... and its support is at the start of the document.
    assert rows["lead-3"]["mean_position"] == min(rows[s]["mean_position"] for s in kinds)
    # References are more abstractive than every extractive system.
    for slug in extractive:
        assert rows["reference"]["novel"][1] > rows[slug]["novel"][1]

    text = _run("--dataset", "cnndm-polytope")
    lines = text.splitlines()
    assert lines[0] == "cnndm-polytope: 150 documents"
    assert [line.split()[0] for line in lines[3:]] == ["reference", *sorted(kinds)]
