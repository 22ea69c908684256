"""The two public releases through `manage.py import_dataset`, on the database (needs ../shared)."""

import os
import pickle
import shutil

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import Fam
from annotation.systems.models import System, SystemOutput
from tests.conftest import FAR_RELEASE, POLYTOPE_OUTPUTS, needs_far, needs_polytope

pytestmark = pytest.mark.django_db

POLYTOPE_SYSTEMS = {
    "lead-3": "extractive",
    "textrank": "extractive",
    "summarunner": "extractive",
    "bertsumext": "extractive",
    "seq2seq": "abstractive",
    "pointer-generator": "abstractive",
    "pointer-generator-coverage": "abstractive",
    "bottom-up": "abstractive",
    "bertsumextabs": "abstractive",
    "bart": "abstractive",
}


@needs_polytope
def test_polytope_release_import(capsys):
    call_command(
        "import_dataset",
        str(POLYTOPE_OUTPUTS),
        "--format",
        "polytope-release",
        "--slug",
        "cnndm-polytope",
    )
    out = capsys.readouterr().out
    dataset = Dataset.objects.get(slug="cnndm-polytope")
    assert dataset.documents.count() == 150
    assert Reference.objects.filter(document__dataset=dataset).count() == 150
    assert dict(System.objects.values_list("slug", "kind")) == POLYTOPE_SYSTEMS
    counts = dict(
        SystemOutput.objects.filter(document__dataset=dataset)
        .values_list("system__slug")
        .annotate(n=Count("id"))
    )
    # textrank/25_.txt in the release is a byte-for-byte copy of 24_.txt: trial 25 has no
    # TextRank summary, so the release yields 149 TextRank outputs; every other system has 150.
    assert counts == {**dict.fromkeys(POLYTOPE_SYSTEMS, 150), "textrank": 149}
    doc = Document.objects.get(
        dataset=dataset, external_id="177ba23a953736dfeb180c04da950cdbcd998604"
    )
    assert (
        doc.sentences[2]
        == "campbell believed the victim , greg valecce , had hurt his cat , pebbles ."
    )
    lead = SystemOutput.objects.get(system__slug="lead-3", document=doc)
    assert lead.extracted == [0, 1, 2] and lead.extraction_method == "lead"
    summarunner = SystemOutput.objects.get(system__slug="summarunner", document=doc)
    assert summarunner.extracted == [1, 4, 6] and summarunner.extraction_method == "exact"
    # The report names every low-confidence mapping: file, system, document and sentence.
    low = [line for line in out.splitlines() if "low-confidence mapping" in line]
    assert len(low) == 7
    assert "textrank/6_.txt:1 [summary]" in low[0] and "'van velzen'" in low[0]
    stored_low = [
        (o.system.slug, c)
        for o in SystemOutput.objects.filter(document__dataset=dataset).exclude(
            match_confidence=None
        )
        for c in o.match_confidence
        if c < 0.3
    ]
    assert len(stored_low) == 7 and {slug for slug, _ in stored_low} == {"textrank"}


@needs_far
def test_far_release_import_counts():
    call_command(
        "import_dataset", str(FAR_RELEASE), "--format", "far-release", "--slug", "cnndm-far"
    )
    dataset = Dataset.objects.get(slug="cnndm-far")
    by_category = dict(dataset.documents.values_list("category").annotate(n=Count("id")))
    assert by_category == {"low": 89, "noise": 41, "high": 20}
    released = dataset.annotation_sets.get(slug="released")
    assert released.read_only and released.kind == "released"
    fams = list(Fam.objects.filter(annotation_set=released))
    assert len(fams) == 89
    facets = [f for fam in fams for f in fam.facets if f["groups"]]
    assert len(facets) == 310
    assert sum(len(f["groups"]) for f in facets) == 496
    counts = dict(
        SystemOutput.objects.filter(document__dataset=dataset)
        .values_list("system__slug")
        .annotate(n=Count("id"))
    )
    assert counts == {
        "lead-3": 150,
        "banditsum": 150,
        "fastrl-e": 150,
        "unifiedsum-e": 131,
        "refresh": 90,
        "neusum": 89,
    }
    sample0 = dataset.documents.get(external_id="469c6ac05092ca5997728c9dfc19f9ab6b936e40")
    assert sample0.meta["sample_idx"] == 0
    assert sample0.sentences[1] == (
        "marseille prosecutor brice robin told cnn that `` so far no videos were used in the crash "
        "investigation . ''"
    )
    assert Fam.objects.get(annotation_set=released, document=sample0).facets[0]["groups"] == [[1]]
    agreeing = dataset.documents.filter(meta__split_agrees=True).count()
    assert dataset.documents.filter(meta__split_checked=True, meta__split_agrees=True).count() >= 76
    assert agreeing >= 130  # of 150, as the issue counts it (no released index disagrees)


@needs_far
def test_far_reimport_is_refused_without_duplicates():
    call_command(
        "import_dataset", str(FAR_RELEASE), "--format", "far-release", "--slug", "cnndm-far"
    )
    with pytest.raises(CommandError, match="already exists \\(150 documents\\)"):
        call_command(
            "import_dataset", str(FAR_RELEASE), "--format", "far-release", "--slug", "cnndm-far"
        )
    assert Document.objects.count() == 150 and Fam.objects.count() == 89


class _Exploit:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@needs_far
def test_malicious_pickle_in_a_release_is_refused_nothing_runs_nothing_is_written(tmp_path):
    release = tmp_path / "far-release"
    shutil.copytree(FAR_RELEASE, release)  # a scratch copy to tamper with; never committed
    os.chmod(release / "data", 0o755)
    target = release / "data" / "idx2labels_bs.pkl"
    os.chmod(target, 0o644)
    marker = tmp_path / "pwned"
    target.write_bytes(pickle.dumps({0: _Exploit(marker)}))
    with pytest.raises(CommandError) as caught:
        call_command("import_dataset", str(release), "--format", "far-release", "--slug", "evil")
    message = str(caught.value)
    assert (
        "idx2labels_bs.pkl" in message
        and f"{os.system.__module__}.system is not allowed" in message
    )
    assert "nothing was written" in message
    assert not marker.exists()
    assert not Dataset.objects.exists() and not System.objects.exists()
