"""The FAR release (Mao et al., ACL 2020) reproduces: SAP/SAR/SAF1/FAR of six systems and the
FAM statistics. Expected figures are the published ones (PROVENANCE.md and the paper), never our
own output. Reads ../shared/data in place; skips with a message when it is absent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotation.corpus.importers.parsers.far import LEAD_SLUG, parse_far_release
from annotation.imports.bundle import CATEGORY_LOW
from scoring.metrics import cli
from scoring.metrics.fam import validate_fam
from scoring.metrics.far import FarEngine, fam_statistics, score_system

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
FAR = SHARED / "far-release"

pytestmark = [
    pytest.mark.shared,
    pytest.mark.skipif(
        not FAR.is_dir(), reason=f"{FAR} is absent: the public FAR release is needed"
    ),
]

# PROVENANCE.md's table (the release notebook's output; the paper's Table 3 and Sec. 3.4),
# 89 low-abstraction samples, first 3 extracted sentences: (SAP, SAR, SAF1, FAR).
PUBLISHED = {
    "Lead-3": (0.610, 0.373, 0.445, 0.506),
    "FastRL(E)": (0.648, 0.406, 0.479, 0.508),
    "BanditSum": (0.586, 0.343, 0.417, 0.447),
    "NeuSum": (0.639, 0.395, 0.468, 0.512),
    "Refresh": (0.610, 0.375, 0.447, 0.513),
    "UnifiedSum(E)": (0.669, 0.413, 0.488, 0.548),
}
# The paper: 310 mapped facets; 5.44 unique and 6.04 non-unique support sentences per sample.
PUBLISHED_MAPPED_FACETS = 310
PUBLISHED_UNIQUE, PUBLISHED_NONUNIQUE = 5.44, 6.04
# The paper: summaries covering more than one support group of one facet.
PUBLISHED_REDUNDANCY = {"FastRL(E)": 0.303, "Lead-3": 0.191}


@pytest.fixture(scope="module")
def release():
    """(FAMs of the 89 low-abstraction documents, {system name: {document: extracted}})."""
    bundle = parse_far_release(FAR)
    documents = {document.external_id: document for document in bundle.documents}
    fams = {}
    for record in bundle.annotation_sets[0].fams:
        document = documents[record.document_id]
        fams[record.document_id] = validate_fam(
            [facet.groups for facet in record.facets],
            n_sentences=len(document.sentences),
            n_facets=len(document.references[record.reference_index].sentences),
            allow_duplicate_groups=True,  # the release repeats one group; kept as released
        )
    assert len(fams) == 89
    assert {documents[d].category for d in fams} == {CATEGORY_LOW}
    names = {system.slug: system.name for system in bundle.systems}
    systems: dict[str, dict] = {}
    for output in bundle.outputs:
        systems.setdefault(names[output.system_slug], {})[output.document_id] = output.extracted
    assert systems.pop(names[LEAD_SLUG]).keys() >= fams.keys()
    systems["Lead-3"] = {document: [0, 1, 2] for document in fams}  # Lead-3 is [0, 1, 2]
    assert set(systems) == set(PUBLISHED)
    return fams, systems


def test_the_expected_table_is_provenance_md():
    text = (FAR / "PROVENANCE.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| (\S[^|]*?) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", text, re.M
    )
    assert {name: tuple(map(float, values)) for name, *values in rows} == PUBLISHED


@pytest.mark.parametrize("system", list(PUBLISHED))
def test_sap_sar_saf1_far_equal_the_published_table(release, system):
    fams, systems = release
    result = score_system(system, fams, systems[system], k=3)
    assert (result.n_scored, result.n_expected, result.missing) == (89, 89, ())
    ours = tuple(round(value, 3) for value in (result.sap, result.sar, result.saf1, result.far))
    assert ours == PUBLISHED[system]


def test_the_bulk_engine_gives_the_same_numbers(release):
    fams, systems = release
    engine = FarEngine(fams)
    for system, extracted in systems.items():
        assert engine.score(system, extracted, 3) == score_system(system, fams, extracted, 3)


def test_fam_statistics(release):
    fams, _ = release
    stats = fam_statistics(fams.values())
    assert stats.mapped_facets == PUBLISHED_MAPPED_FACETS
    assert round(stats.mean_unique_support, 2) == PUBLISHED_UNIQUE
    assert round(stats.mean_nonunique_support, 2) == PUBLISHED_NONUNIQUE


def test_footnote_5_extracting_every_sentence_gives_a_perfect_far(release):
    # The paper's footnote 5: "Extracting all the sentences results in a perfect FAR, which is
    # expected as FAR measures recall. One can also normalize FAR by the number of extracted
    # sentences." Every document's FAR is then 1 (no low-abstraction facet lacks support, so
    # both denominators agree), and FAR per sentence, our reading of the second sentence, is
    # 1 / the document's sentence count.
    fams, _ = release
    every = {document: list(range(fam.n_sentences)) for document, fam in fams.items()}
    for include_unsupported in (False, True):
        result = score_system("all", fams, every, k=None, include_unsupported=include_unsupported)
        assert result.far == 1.0
    per_sentence = sum(1 / fam.n_sentences for fam in fams.values()) / len(fams)
    assert result.far_per_sentence == pytest.approx(per_sentence)


def test_fastrl_is_more_redundant_than_lead3(release):
    # The paper's qualitative finding holds; its exact rates do not reproduce (next test).
    fams, systems = release
    rate = {s: score_system(s, fams, systems[s]).redundancy_rate for s in PUBLISHED_REDUNDANCY}
    assert rate["FastRL(E)"] > rate["Lead-3"]


@pytest.mark.xfail(
    strict=True,
    reason="The paper's 30.3% (FastRL(E)) and 19.1% (Lead-3) do not come out of the released "
    "data: covering two distinct groups of one facet in the first 3 sentences gives 23/89 = 25.8% "
    "and 16/89 = 18.0%. Variants tried: all extracted sentences (48.3% / 18.0%), repeated groups "
    "counted twice (25.8% / 18.0%), groups touched rather than covered (30.3% / 21.3%), shares "
    "of facets or of sentences; none gives both. The release's notebook has no redundancy code. "
    "Strict, so that a reproduction shows up.",
)
def test_redundancy_rates_equal_the_paper(release):
    fams, systems = release
    for system, published in PUBLISHED_REDUNDANCY.items():
        result = score_system(system, fams, systems[system], k=3)
        assert round(result.redundancy_rate, 3) == published


def test_the_cli_reproduces_the_table(release, tmp_path, monkeypatch, capsys):
    fams, systems = release
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("far",))
    # The CLI refuses a repeated group, so the release's one repeat is written once; it changes
    # neither SAP/SAR/SAF1 nor FAR.
    fams_json = {
        document: {
            str(facet): [sorted(group) for group in dict.fromkeys(groups)]
            for facet, groups in enumerate(fam.groups)
        }
        for document, fam in fams.items()
    }
    (tmp_path / "fams.json").write_text(json.dumps(fams_json))
    (tmp_path / "docs.json").write_text(json.dumps({d: f.n_sentences for d, f in fams.items()}))
    for system, extracted in systems.items():
        path = tmp_path / "extracted.json"
        path.write_text(json.dumps({d: list(extracted[d]) for d in fams}))
        argv = ["far", "--fams", str(tmp_path / "fams.json"), "--extracted", str(path)]
        assert cli.main([*argv, "--k", "3", "--sentences", str(tmp_path / "docs.json")]) == 0
        record = json.loads(capsys.readouterr().out)
        assert record["coverage"]["scored"] == record["coverage"]["expected"] == 89
        means = record["mean"]
        ours = tuple(round(means[name], 3) for name in ("sap", "sar", "saf1", "far"))
        assert ours == PUBLISHED[system]
