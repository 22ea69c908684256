"""Load the team's CDEvalSumm example (fixtures/crossdataset/example.json) into the database.

Three toy datasets A, B, C (two documents each), nine Systems (S1..S3 x trained on A, B, C,
slugs ``s1-a`` ...), one output version of each on each dataset and ``DocumentScore`` rows with
the fixture's scores under a metric key. The scores are the fixture's data: what the tests
check is the plumbing from rows to the core.
"""

from __future__ import annotations

import json
from pathlib import Path

from annotation.corpus.models import Dataset, Document
from annotation.systems.models import OutputVersion, System, SystemOutput
from tests.score_helpers import score_plant

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "crossdataset" / "example.json"


def example() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def slug_of(system: str, train: str) -> str:
    return f"{system.lower()}-{train.lower()}"


def version_add(system: System, dataset: Dataset, scores: dict[str, float], *, metric: str):
    """The system's next output version on ``dataset`` with one output and score per document."""
    number = OutputVersion.objects.filter(system=system, dataset=dataset).count() + 1
    version = OutputVersion.objects.create(system=system, dataset=dataset, number=number)
    for external_id, value in scores.items():
        document = dataset.documents.get(external_id=external_id)
        SystemOutput.objects.create(
            system=system, version=version, document=document, sentences=["A summary."]
        )
        score_plant(version=version, document=document, metric=metric, value=value)
    return version


def example_load(*, metric: str = "rouge1_f", stale: bool = True) -> dict[str, System]:
    """Write the example's datasets, systems, outputs and scores.

    Args:
        metric: the metric key the scores are stored under.
        stale: also give S1 trained on A an older version 1 on A with other scores, so the
            current version (2) is the one that must be read.

    Returns:
        slug -> System.
    """
    data = example()
    datasets = {}
    for name in data["datasets"]:
        datasets[name] = Dataset.objects.create(slug=name, name=f"Toy dataset {name}")
    for name, dataset in datasets.items():
        for position, external_id in enumerate(
            sorted({d for s in data["systems"].values() for d in s[name][name]})
        ):
            Document.objects.create(
                dataset=dataset,
                external_id=external_id,
                position=position,
                sentences=[f"Sentence one of {external_id}.", "Sentence two."],
            )
    systems = {}
    for system, rows in data["systems"].items():
        for train, tests in rows.items():
            row = System.objects.create(
                slug=slug_of(system, train), name=system, kind="abstractive", trained_on=train
            )
            systems[row.slug] = row
            for test, scores in tests.items():
                if stale and (system, train, test) == ("S1", "A", "A"):
                    version_add(row, datasets[test], dict.fromkeys(scores, 0.99), metric=metric)
                version_add(row, datasets[test], scores, metric=metric)
    return systems
