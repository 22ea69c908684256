"""A dataset's ROUGE settings: the API (roles, 400s that write nothing), rescoring on a change
with the old keys removed and nothing stale shown, a chunk racing a change, the commands, and
the PolyTope release's leaderboard JSON against rouge-score on every output."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.models import Dataset, Document, Reference
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.leaderboards.selectors import leaderboard_read
from scoring.metrics.leaderboard import FAR_MEASURES
from scoring.metrics.rouge import ALL_ROUGE_KEYS, DEFAULT_ROUGE, RougeConfig
from scoring.scores.models import DocumentScore, JobStatus, JobTrigger, RougeSettings, ScoringJob
from scoring.scores.services import chunks as chunks_module
from scoring.scores.services import (
    rouge_settings_update,
    scoring_job_create,
    scoring_job_run_inline,
)
from tests.conftest import POLYTOPE_OUTPUTS
from tests.rouge_helpers import reference_scorer

pytestmark = pytest.mark.django_db

REFERENCE = ["The runners ran fast.", "Police arrested two men on Tuesday."]
SUMMARIES = {
    "d1": ["Two men were arrested by police.", "A runner runs fast."],
    "d2": ["The runners were running.", "Nobody was arrested."],
}
URL = "/api/datasets/tiny-rouge/leaderboard/rouge/"
UNSTEMMED = RougeConfig(("rouge1", "rouge3", "rougeLsum"), use_stemmer=False, split_summaries=True)


@pytest.fixture
def tiny(users):
    """Two documents with a reference each and one abstractive system's outputs, scored once
    with Loupe's default ROUGE."""
    dataset = Dataset.objects.create(slug="tiny-rouge", name="Tiny ROUGE")
    system = System.objects.create(slug="abs", name="Abs", kind="abstractive")
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
    for position, (external_id, summary) in enumerate(SUMMARIES.items()):
        document = Document.objects.create(
            dataset=dataset, external_id=external_id, sentences=["x."], position=position
        )
        Reference.objects.create(document=document, sentences=REFERENCE)
        SystemOutput.objects.create(
            system=system, version=version, document=document, sentences=summary
        )
    job = scoring_job_create(dataset=dataset, trigger=JobTrigger.MANUAL, queue=False)
    assert scoring_job_run_inline(job=job).status == JobStatus.SUCCEEDED
    return dataset


def _stored(dataset) -> dict[str, dict[str, float]]:
    rows = DocumentScore.objects.filter(version__dataset=dataset).select_related("document")
    return {row.document.external_id: row.metrics for row in rows}


def _expected(config: RougeConfig) -> dict[str, dict[str, float]]:
    """rouge-score's values of each output under the keys ``config`` stores."""
    scorer = reference_scorer(config)
    expected = {}
    for external_id, summary in SUMMARIES.items():
        scores = scorer.score("\n".join(REFERENCE), "\n".join(summary))
        expected[external_id] = {
            f"{config.name(t)}_{short}": getattr(scores[t], measure)
            for t in config.rouge_types
            for short, measure in (("p", "precision"), ("r", "recall"), ("f", "fmeasure"))
        }
    return expected


def test_default_scores_are_rouge_scores(tiny):
    assert _stored(tiny) == _expected(DEFAULT_ROUGE)


def test_api_reads_for_researchers_and_changes_for_admins_only(tiny, client_for):
    body = client_for("researcher").get(URL).json()
    assert body["rouge_types"] == ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    assert (body["use_stemmer"], body["split_summaries"], body["revision"]) == (True, False, 0)
    assert body["keys"] == list(DEFAULT_ROUGE.keys()) and body["status"] == "current"
    assert body["types"][-2:] == ["rougeL", "rougeLsum"] and len(body["types"]) == 11
    assert client_for("annotator").get(URL).status_code == 403
    change = {"rouge_types": ["rouge1"], "use_stemmer": False}
    assert client_for("researcher").put(URL, change, format="json").status_code == 403
    assert client_for("annotator").put(URL, change, format="json").status_code == 403
    assert not RougeSettings.objects.exists()
    assert not ScoringJob.objects.filter(trigger=JobTrigger.ROUGE).exists()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"rouge_types": ["rougeLSum"]}, "rouge_types", "unknown ROUGE type(s) 'rougeLSum'"),
        ({"rouge_types": ["rouge1", "rouge1"]}, "rouge_types", "given twice: rouge1"),
        ({"rouge_types": []}, "rouge_types", "choose at least one ROUGE type"),
        ({"rouge_types": "rouge1"}, "rouge_types", None),
        ({"use_stemmer": False}, "rouge_types", None),
        ({"rouge_types": ["rouge1"], "use_stemmer": "maybe"}, "use_stemmer", None),
        ({"rouge_types": ["rouge1"], "split_summaries": [True]}, "split_summaries", None),
    ],
)
def test_bad_settings_answer_400_and_write_nothing(tiny, client_for, body, field, message):
    before = _stored(tiny)
    response = client_for("admin").put(URL, body, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert field in answer["extra"].get("fields", answer["extra"])
    if message:
        assert message in answer["message"]
    assert not RougeSettings.objects.exists()
    assert not ScoringJob.objects.filter(trigger=JobTrigger.ROUGE).exists()
    assert _stored(tiny) == before


def test_a_change_rescores_removes_the_old_keys_and_never_shows_stale_values(tiny, client_for):
    admin = client_for("admin")
    before = leaderboard_read(dataset=tiny).payload
    assert "rougeLsum_f" in before["metrics"] and before["rouge"]["status"] == "current"
    response = admin.put(URL, UNSTEMMED.as_dict(), format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["job"]["trigger"] == "rouge" and body["job"]["status"] == "queued"
    assert body["revision"] == 1 and body["status"] == "rescoring"
    assert body["updated_by"] == "t-admin"
    assert body["keys"] == list(UNSTEMMED.keys())
    # Until the job is done the board has no ROUGE column at all, and says why.
    during = leaderboard_read(dataset=tiny).payload
    # (A board without any other column keeps an empty ROUGE-1 F column: no value in it.)
    assert [m for m in during["metrics"] if m.startswith("rouge")] in ([], ["rouge1_nostem_f"])
    assert all(row.get(m) is None for row in during["systems"] for m in during["metrics"])
    assert any("being rescored" in note for note in during["notes"])
    # The same settings again: nothing changes, no second job.
    again = admin.put(URL, UNSTEMMED.as_dict(), format="json").json()
    assert again["job"] is None and again["revision"] == 1
    job = scoring_job_run_inline(job=ScoringJob.objects.get(pk=body["job"]["id"]))
    assert job.status == JobStatus.SUCCEEDED
    assert _stored(tiny) == _expected(UNSTEMMED)  # the stemmed keys are gone
    after = leaderboard_read(dataset=tiny).payload
    assert after["rouge"]["status"] == "current"
    assert [m for m in after["metrics"] if m.startswith("rouge")] == list(UNSTEMMED.keys())
    assert after["sort"] == "rouge1_nostem_f"
    (row,) = after["systems"]
    for key in UNSTEMMED.keys():
        values = [_expected(UNSTEMMED)[d][key] for d in SUMMARIES]
        assert row[key]["mean"] == float(np.mean(values)) and row[key]["n"] == 2
    assert after["rouge"]["labels"]["rougeLsum_nostem_split_f"] == [
        "ROUGE-Lsum F (no stem, split)",
        "ROUGE-Lsum F1 (no stemming; sentences by NLTK Punkt)",
    ]
    # Back to Loupe's default, through the service: the stemmed keys come back.
    job = rouge_settings_update(dataset=tiny, config=DEFAULT_ROUGE, queue=False)
    scoring_job_run_inline(job=job)
    assert _stored(tiny) == _expected(DEFAULT_ROUGE)
    assert RougeSettings.objects.get(dataset=tiny).revision == 2


def test_the_system_page_and_the_output_view_read_the_configured_keys(tiny, client_for):
    job = rouge_settings_update(dataset=tiny, config=UNSTEMMED, queue=False)
    scoring_job_run_inline(job=job)
    api = client_for("researcher")
    table = api.get("/api/datasets/tiny-rouge/systems/abs/scores/").json()
    assert table["metrics"] == list(UNSTEMMED.keys())
    document = api.get("/api/datasets/tiny-rouge/systems/abs/documents/d1/").json()
    assert document["scores"] == _expected(UNSTEMMED)["d1"]


def test_a_chunk_computed_before_a_change_is_computed_again(tiny, monkeypatch):
    """The settings change between a chunk's computing and its writing (a real change, made
    at that moment): the chunk computes again and writes the new ROUGE, never the old."""
    compute = chunks_module._automatic_rows
    changed = []

    def compute_then_change(job, outputs, keys, stale, rouge):
        rows = compute(job, outputs, keys, stale, rouge)
        if not changed:
            changed.append(rouge_settings_update(dataset=tiny, config=UNSTEMMED, queue=False))
        return rows

    monkeypatch.setattr(chunks_module, "_automatic_rows", compute_then_change)
    job = scoring_job_create(dataset=tiny, trigger=JobTrigger.MANUAL, queue=False)
    scoring_job_run_inline(job=job)
    assert changed and _stored(tiny) == _expected(UNSTEMMED)


def test_the_settings_command_shows_changes_and_refuses(tiny, capsys):
    call_command("rouge_settings", "--dataset", "tiny-rouge")
    assert json.loads(capsys.readouterr().out)["revision"] == 0
    call_command(
        "rouge_settings", "--dataset", "tiny-rouge", "--rouge-types", "rouge1,rouge3,rougeLsum",
        "--no-stemmer", "--split-summaries", "--sync",
    )  # fmt: skip
    captured = capsys.readouterr()
    assert "succeeded" in captured.err
    shown = json.loads(captured.out)
    assert shown["keys"] == list(UNSTEMMED.keys()) and shown["status"] == "current"
    assert _stored(tiny) == _expected(UNSTEMMED)
    # An option not given keeps its value.
    call_command("rouge_settings", "--dataset", "tiny-rouge", "--use-stemmer", "--sync")
    kept = json.loads(capsys.readouterr().out)
    assert kept["rouge_types"] == ["rouge1", "rouge3", "rougeLsum"] and kept["use_stemmer"]
    with pytest.raises(CommandError, match="--rouge-types: unknown ROUGE type"):
        call_command("rouge_settings", "--dataset", "tiny-rouge", "--rouge-types", "rouge10")
    with pytest.raises(CommandError, match="no dataset 'nope'"):
        call_command("rouge_settings", "--dataset", "nope")


def test_every_key_a_configuration_may_store_is_removed_when_not_asked_for(tiny):
    """ALL_ROUGE_KEYS covers each configuration's keys, so none survives a change."""
    for use_stemmer in (True, False):
        config = RougeConfig(("rouge9", "rougeLsum"), use_stemmer, split_summaries=True)
        assert set(config.keys()) <= set(ALL_ROUGE_KEYS)
        scoring_job_run_inline(job=rouge_settings_update(dataset=tiny, config=config, queue=False))
        assert _stored(tiny) == _expected(config)


@pytest.mark.shared
@pytest.mark.skipif(not POLYTOPE_OUTPUTS.is_dir(), reason=f"{POLYTOPE_OUTPUTS} is absent")
def test_polytope_leaderboard_json_is_rouge_scores_on_every_output(
    django_capture_on_commit_callbacks, capsys, rouge_reference
):
    """The issue's acceptance: ``manage.py leaderboard --dataset cnndm-polytope --format json``
    has ``rougeLsum_f`` (Loupe's default), and every ROUGE value of every output is
    rouge-score's; each system's mean is the mean of rouge-score's values over its outputs in
    the dataset's order. Then with other types enabled and stemming off, the same."""
    with django_capture_on_commit_callbacks(execute=False):  # no broker: run inline below
        call_command(
            "import_dataset", str(POLYTOPE_OUTPUTS), "--format", "polytope-release",
            "--slug", "cnndm-polytope",
        )  # fmt: skip
    dataset = Dataset.objects.get(slug="cnndm-polytope")
    for config in (DEFAULT_ROUGE, RougeConfig(("rouge2", "rouge4", "rougeLsum"), False)):
        job = rouge_settings_update(dataset=dataset, config=config, queue=False)
        for pending in ScoringJob.objects.filter(dataset=dataset, status=JobStatus.QUEUED):
            scoring_job_run_inline(job=pending)
        assert job is None or ScoringJob.objects.get(pk=job.pk).status == JobStatus.SUCCEEDED
        capsys.readouterr()
        call_command("leaderboard", "--dataset", "cnndm-polytope", "--format", "json")
        systems = {row["system"]: row for row in json.loads(capsys.readouterr().out)["systems"]}
        assert len(systems) == 10
        outputs = list(
            SystemOutput.objects.filter(version__dataset=dataset)
            .select_related("document", "system")
            .order_by("document__position", "document__external_id")
        )
        pairs = [
            (
                "\n".join(output.document.references.get(position=0).sentences),
                "\n".join(output.sentences),
            )
            for output in outputs
        ]
        stored = {
            (row.version.system.slug, row.document_id): row.metrics
            for row in DocumentScore.objects.filter(version__dataset=dataset).select_related(
                "version__system"
            )
        }
        by_system: dict[str, dict[str, list[float]]] = {}
        checked = 0
        for output, scores in zip(outputs, rouge_reference.score(config, pairs), strict=True):
            metrics = stored[(output.system.slug, output.document_id)]
            assert {k for k in metrics if k not in _far_keys()} == set(config.keys())
            for rouge_type in config.rouge_types:
                for short, measure in (("p", "precision"), ("r", "recall"), ("f", "fmeasure")):
                    key = f"{config.name(rouge_type)}_{short}"
                    expected = getattr(scores[rouge_type], measure)
                    assert metrics[key] == expected, (output.pk, key)
                    by_system.setdefault(output.system.slug, {}).setdefault(key, []).append(
                        expected
                    )
                    checked += 1
        assert checked == 1499 * len(config.keys())
        for slug, row in systems.items():
            for key in config.keys():
                assert row[key]["mean"] == float(np.mean(by_system[slug][key])), (slug, key)
        assert ("rougeLsum_f" in systems["bart"]) == config.use_stemmer


def _far_keys() -> set[str]:
    return {f"{m}@3" for m in FAR_MEASURES}


def test_the_rouge1_recall_plot_reads_the_configured_key(demo, client_for):
    from scoring.leaderboards.plots.values import metric_label
    from scoring.scores.services import scoring_pending_run_inline

    assert metric_label("rouge1_r") == "ROUGE-1 recall"
    assert metric_label("rougeLsum_nostem_split_f") == "ROUGE-Lsum F1 (no stem, split)"
    dataset = Dataset.objects.get(slug="demo")
    scoring_pending_run_inline(dataset=dataset)
    scoring_job_run_inline(
        job=rouge_settings_update(dataset=dataset, config=UNSTEMMED, queue=False)
    )
    svg = client_for("researcher").get("/api/datasets/demo/leaderboard/plots/far-rouge1r.svg")
    text = svg.content.decode()
    assert svg.status_code == 200 and "ROUGE-1 recall (no stem)" in text  # the x axis
    board = leaderboard_read(dataset=dataset).payload
    for row in board["systems"]:
        if row["far"] is not None:
            assert f'data-x="{row["rouge1_nostem_r"]["mean"]!r}"' in text
