"""Receivers of ``annotation``'s events: the demo's system outputs arrive as uploads do.

Connected in ``UploadsConfig.ready()``.
"""

from __future__ import annotations

import json
from pathlib import Path

from annotation.imports.bundle import SystemRecord
from scoring.scores.models import JobTrigger
from scoring.scores.services import scoring_job_create

from .services import system_output_import


def on_demo_dataset_loaded(*, dataset, fixtures_dir: Path, **_) -> list[str]:
    """Import the demo systems' outputs and queue their scoring, so the leaderboard fills at once.

    Args:
        dataset: the demo dataset.
        fixtures_dir: the demo's fixtures (``systems.json`` and ``outputs/<system>.jsonl``).

    Returns:
        The report lines of the output imports.
    """
    report: list[str] = []
    for raw in json.loads((fixtures_dir / "systems.json").read_text(encoding="utf-8")):
        system = SystemRecord(**raw)
        summary = system_output_import(
            dataset=dataset,
            system=system,
            source=fixtures_dir / "outputs" / f"{system.slug}.jsonl",
        )
        report.extend(str(line) for line in summary.report)
    scoring_job_create(dataset=dataset, trigger=JobTrigger.UPLOAD)
    return report
