"""XSum faithfulness as a human column: scored per judged output by the scoring job (the mean
over the annotators of the share of words outside their spans, under the release's rule), on
the leaderboard with CIs and correlated with the automatic metrics; hand-worked, then on the
public release."""

from __future__ import annotations

import time

import pytest
from django.core.management import call_command

from annotation.corpus.models import Dataset, Document, Reference
from annotation.fams.models import AnnotationSet
from annotation.spans.services import SpanRecord, span_annotations_replace
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.leaderboards.services import leaderboard_serve
from scoring.scores.models import ScoringJob
from scoring.scores.services import scoring_job_create, scoring_job_run_inline
from tests.conftest import SHARED_DATA
from tests.importers.test_xsum_faithfulness import _release_scores
from tests.score_helpers import stored_scores

pytestmark = pytest.mark.django_db

XSUM = SHARED_DATA / "xsum-hallucinations"
# "the cat sat on the mat" has 6 words; "a dog ran" 3.
SUMMARIES = {"s1": ["the cat sat on the mat"], "s2": ["a dog ran"], "s3": ["the cat sat"]}


def span(start, end, summary, type_="extrinsic"):
    return {"side": "summary", "start": start, "end": end, "words": summary[start:end],
            "type": type_}  # fmt: skip


@pytest.fixture
def judged(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        dataset = Dataset.objects.create(slug="faith", name="Faithfulness by hand")
        documents = []
        for position in range(2):
            document = Document.objects.create(
                dataset=dataset, external_id=f"b{position}", position=position,
                sentences=["The cat sat on the mat in the sun.", "A dog ran past."],
            )  # fmt: skip
            Reference.objects.create(document=document, sentences=["The cat sat on the mat."])
            documents.append(document)
        outputs = {}
        for slug, sentences in SUMMARIES.items():
            system = System.objects.create(slug=slug, name=slug.upper(), kind="abstractive")
            version = OutputVersion.objects.create(system=system, dataset=dataset, number=1)
            for document in documents:
                outputs[slug, document.external_id] = SystemOutput.objects.create(
                    system=system, version=version, document=document, sentences=sentences
                )
        workers = [
            AnnotationSet.objects.create(
                dataset=dataset,
                slug=f"xsum-wid_{n}",
                name=f"Worker {n}",
                kind="human",
                scheme="xsum-hallucinations",
                read_only=True,
            )  # fmt: skip
            for n in range(2)
        ]
        cat = SUMMARIES["s1"][0]
        plan = {
            # s1/b0: worker 0 marks "cat" (1 of 6 words), worker 1 nothing: (5/6 + 1) / 2.
            (0, "s1", "b0"): ((span(4, 7, cat),), False),
            (1, "s1", "b0"): ((), True),
            # s1/b1: worker 0 marks [5, 10) "at sa" (the end of "cat", the start of "sat": no
            # word whole, so none under the release's rule; both touched under overlap).
            (0, "s1", "b1"): ((span(5, 10, cat, "intrinsic"),), False),
            (1, "s1", "b1"): ((span(0, 3, cat), span(15, 22, cat)), False),
            # s2/b0: both workers mark the whole summary.
            (0, "s2", "b0"): ((span(0, 9, "a dog ran"),), False),
            (1, "s2", "b0"): ((span(0, 9, "a dog ran"),), False),
            # s2/b1: a span given only by its words marks no word; the other worker is clean.
            (0, "s2", "b1"): (({"side": "none", "words": "dog", "type": "extrinsic"},), False),
            (1, "s2", "b1"): ((), True),
            # s3: only worker 0 judged b0; b1 nobody did.
            (0, "s3", "b0"): ((span(4, 7, "the cat sat"),), False),
        }
        for n, worker in enumerate(workers):
            records = [
                SpanRecord(outputs[key[1:]].pk, errors, clean)
                for key, (errors, clean) in plan.items()
                if key[0] == n
            ]
            span_annotations_replace(
                annotation_set=worker, records=records, output_ids=[r.output_id for r in records]
            )
        job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
        scoring_job_run_inline(job=job)
    return dataset, outputs


def _faith(output):
    found = stored_scores("faithfulness", version=output.version, document=output.document)
    return found[0].value if found else None


def test_faithfulness_per_output_by_hand(judged):
    _, outputs = judged
    assert _faith(outputs["s1", "b0"]) == pytest.approx((5 / 6 + 1) / 2)
    # Worker 0: no word wholly inside its span (6 of 6 left; "cat" and "sat" are only
    # touched); worker 1: "the" and "the mat" (3 left).
    assert _faith(outputs["s1", "b1"]) == pytest.approx((6 / 6 + 3 / 6) / 2)
    assert _faith(outputs["s2", "b0"]) == 0.0
    assert _faith(outputs["s2", "b1"]) == 1.0
    assert _faith(outputs["s3", "b0"]) == pytest.approx(2 / 3)
    assert _faith(outputs["s3", "b1"]) is None  # nobody judged it: no score, not 1.0


def test_faithfulness_on_the_leaderboard_with_its_correlations(judged):
    dataset, _ = judged
    board = leaderboard_serve(dataset=dataset)
    assert "faithfulness" in board["metrics"]
    rows = {row["system"]: row for row in board["systems"]}
    s1 = rows["s1"]["faithfulness"]
    assert s1["mean"] == pytest.approx(((5 / 6 + 1) / 2 + (6 / 6 + 3 / 6) / 2) / 2)
    assert s1["n"] == 2 and s1["ci_low"] <= s1["mean"] <= s1["ci_high"]
    assert rows["s3"]["faithfulness"]["n"] == 1 and rows["s3"]["faithfulness"]["ci_low"] is None
    block = board["faithfulness"]
    assert block["available"] and "averaged over the annotators" in block["definition"]
    assert "holds all of it" in block["definition"]
    levels = {(c["metric"], c["level"]): c for c in block["correlations"]}
    # Faithfulness is never correlated with itself; every automatic metric is, at both levels.
    assert {m for m, _ in levels} == set(board["metrics"]) - {"faithfulness"}
    assert levels["rouge1_f", "instance"]["n"] == 5
    assert levels["rouge1_f", "system"]["n"] == 3
    studies = {c["judgment"] for c in board["correlations"]}
    assert studies == {"Faithfulness (XSum annotators)"}
    assert all(c["metric"] != "faithfulness" for c in board["correlations"])


def test_removing_a_judgment_removes_the_score(judged):
    dataset, outputs = judged
    worker = AnnotationSet.objects.get(dataset=dataset, slug="xsum-wid_0")
    s3 = outputs["s3", "b0"]
    span_annotations_replace(annotation_set=worker, records=[], output_ids=[s3.pk])
    job = scoring_job_create(dataset=dataset, trigger="manual", queue=False)
    scoring_job_run_inline(job=job)
    assert _faith(s3) is None
    assert _faith(outputs["s1", "b0"]) == pytest.approx((5 / 6 + 1) / 2)


@pytest.mark.shared
@pytest.mark.skipif(not XSUM.is_dir(), reason=f"{XSUM} is absent (the XSum release in ../shared)")
def test_the_xsum_release_gets_a_faithfulness_column(django_capture_on_commit_callbacks, capsys):
    with django_capture_on_commit_callbacks(execute=False):
        call_command(
            "import_dataset", str(XSUM), "--format", "xsum-hallucinations", "--slug", "xsum-faith"
        )
    dataset = Dataset.objects.get(slug="xsum-faith")
    job = ScoringJob.objects.get(dataset=dataset)  # the import's, trigger upload
    started = time.monotonic()
    scoring_job_run_inline(job=job)
    seconds = time.monotonic() - started
    assert job.status == "succeeded", job.error
    board = leaderboard_serve(dataset=dataset)
    rows = {row["system"]: row["faithfulness"] for row in board["systems"]}
    # Every summary of the 4 systems was judged by at least one worker.
    assert {s: c["n"] for s, c in rows.items()} == dict.fromkeys(rows, 500) and len(rows) == 4
    for cell in rows.values():
        assert 0 < cell["ci_low"] < cell["mean"] < cell["ci_high"] < 1
    # The stored values follow the release's rule (the default): its Faithful column agrees
    # on 1,916 of the 1,992 summaries it scores (tests/importers/test_xsum_faithfulness.py).
    release = _release_scores()
    stored = {
        (score.row.version.system.slug, score.row.document.external_id): score.value
        for score in stored_scores("faithfulness", version__dataset=dataset)
    }
    agree = sum(
        1 for key, row in release.items() if abs(stored[key] - float(row["Faithful"])) <= 1e-9
    )
    assert (agree, len(release)) == (1916, 1992)
    levels = {(c["metric"], c["level"]): c for c in board["faithfulness"]["correlations"]}
    for metric in ("rouge1_f", "rouge2_f", "rougeL_f"):
        assert levels[metric, "instance"]["n"] == 2000
        assert levels[metric, "system"]["n"] == 4
    with capsys.disabled():
        print(f"\nxsum-faith: scored {job.outputs_total} outputs in {seconds:.1f} s")
        for system, cell in rows.items():
            print(f"  {system}: faithfulness {cell['mean']:.4f} [{cell['ci_low']:.4f}, "
                  f"{cell['ci_high']:.4f}]")  # fmt: skip
        for (metric, level), c in sorted(levels.items()):
            if metric in ("rouge1_f", "rouge2_f", "rougeL_f"):
                print(f"  {metric} {level}: pearson {c['pearson']['value']:.3f} "
                      f"spearman {c['spearman']['value']:.3f} n={c['n']}")  # fmt: skip
