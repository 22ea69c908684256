"""A researcher's upload, traced call by call from the view to the board, keeps to the layer order.

``tests/test_layers.py`` reads the imports; this test watches the calls. It profiles one real
extractive upload through the API, the scoring of its job by the chunk task (called, not queued),
and the leaderboard read. Every direct call from one project module into another is a hop; a hop
may go to the caller's own layer, a lower one or the pure core, never up. Calls that Django or
Celery make (signal receivers, on-commit callbacks, tasks) are not hops: those are the events
through which a lower layer starts higher work, and ``tests/test_layers.py`` keeps the imports
behind them one-way. The stations of the path named in ARCHITECTURE.md must be visited, in that
order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.test_layers import CORE, LAYERS, ROOT, _layer, _module_name
from tests.upload_helpers import post

pytestmark = pytest.mark.django_db

EXTRACTIVE = {"system": "traced-ext", "kind": "extractive", "name": "Traced Ext"}

# (station, "module:function" of its first call), in the order an upload reaches them. The
# rows are the scores' upsert: the chunk's call of the score store (which writes the
# DocumentScore rows, one per output, with one INSERT ... ON CONFLICT).
STATIONS = [
    ("view", lambda c: c == "scoring.uploads.apis:post"),
    ("service", lambda c: c == "scoring.uploads.services.uploads:system_outputs_upload"),
    ("parser", lambda c: c.startswith("scoring.uploads.parsers.")),
    ("validator", lambda c: c == "annotation.imports.validators:validate_bundle"),
    ("writer", lambda c: c.startswith("annotation.systems.services.outputs_writer:")),
    ("job", lambda c: c == "scoring.scores.services.jobs:scoring_job_create"),
    ("chunks", lambda c: c == "annotation.jobs.tasks:job_chunk_task"),
    ("core", lambda c: c.startswith(("scoring.metrics.far", "scoring.metrics.rouge"))),
    ("rows", lambda c: c == "scoring.scores.services.store:document_scores_upsert"),
    ("board", lambda c: c.startswith("scoring.leaderboards.selectors")),
]


DJANGO_WRITES = {"bulk_create"}


class _Tracer:
    """Record every call made from or into project code, in order."""

    def __init__(self) -> None:
        self.hops: list[tuple[str, str]] = []
        self.calls: list[str] = []
        self._modules: dict[str, str | None] = {}

    def _module(self, filename: str) -> str | None:
        if filename not in self._modules:
            path = Path(filename)
            inside = path.suffix == ".py" and path.is_relative_to(ROOT)
            module = _module_name(path, ROOT) if inside else None
            self._modules[filename] = module if module and _layer(module) else None
        return self._modules[filename]

    def _nearest_project(self, frame) -> str | None:
        while frame is not None and self._module(frame.f_code.co_filename) is None:
            frame = frame.f_back
        return None if frame is None else self._module(frame.f_code.co_filename)

    def __call__(self, frame, event, arg):
        # Module and class bodies run on import (URL confs, say): loading is not a step.
        if (
            event != "call"
            or frame.f_back is None
            or "<module>"
            in (
                frame.f_code.co_name,
                frame.f_back.f_code.co_name,
            )
        ):
            return
        callee = self._module(frame.f_code.co_filename)
        caller = self._module(frame.f_back.f_code.co_filename)
        if callee is None:
            if frame.f_code.co_name in DJANGO_WRITES and "/django/" in frame.f_code.co_filename:
                model = getattr(frame.f_locals.get("self"), "model", None)
                name = f"{frame.f_code.co_name}({getattr(model, '__name__', '?')})"
                self.calls.append(f"{self._nearest_project(frame)} -> django:{name}")
            return
        self.calls.append(f"{callee}:{frame.f_code.co_name}")
        if caller is not None and caller != callee:
            self.hops.append((caller, callee))


def _upward(caller: str, callee: str) -> str | None:
    """Why the hop breaks the layer order, or ``None`` when it is allowed."""
    own, target = _layer(caller), _layer(callee)
    if target == CORE:
        return None
    if caller == "annotation.jobs.kernel":
        # The job kernel calls the plan, chunk and finish functions a higher layer registered
        # with it (a JobKind), as a signal calls its receivers: it imports none of them.
        return None
    if own == CORE:
        return f"the core calls the platform ({callee})"
    if LAYERS.index(target) > LAYERS.index(own):
        return f"{own} calls up into {target}"
    return None


def test_an_upload_goes_from_the_view_to_the_board_through_layers_at_or_below(
    researcher, dataset, django_capture_on_commit_callbacks
):
    from django.urls import get_resolver

    from annotation.jobs.tasks import job_chunk_task
    from scoring.scores.models import DocumentScore, ScoringJob
    from scoring.scores.services import scoring_job_finish, scoring_job_plan

    document = dataset.documents.get(external_id="demo-001")
    lines = [{"doc_id": "demo-001", "extracted": [0, 2, 1]}]
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()

    assert get_resolver().url_patterns  # every view module is loaded before the trace starts
    tracer = _Tracer()
    sys.setprofile(tracer)
    try:
        with django_capture_on_commit_callbacks(execute=False):  # no broker: we run it below
            response = post(researcher, content, **EXTRACTIVE)
        job = ScoringJob.objects.latest("pk")
        for chunk in scoring_job_plan(job=job):
            job_chunk_task("scoring", job.pk, chunk.pk)
        scoring_job_finish(job=job)
        board = researcher.get(f"/api/datasets/{dataset.slug}/leaderboard/?sort=far")
    finally:
        sys.setprofile(None)

    assert response.status_code == 201, response.content
    assert board.status_code == 200, board.content
    rows = {row["system"]: row for row in board.json()["systems"]}
    assert rows["traced-ext"]["far"]["n"] == 1
    assert DocumentScore.objects.filter(
        document=document, version__system__slug="traced-ext", metrics__has_key="far@3"
    ).exists()

    upward = sorted({f"{a} -> {b}: {why}" for a, b in tracer.hops if (why := _upward(a, b))})
    assert not upward, "calls against the layer order:\n" + "\n".join(upward)

    reached = []
    for station, matches in STATIONS:
        first = next((i for i, call in enumerate(tracer.calls) if matches(call)), None)
        assert first is not None, f"the upload never reached the {station}"
        reached.append((first, station))
    assert [station for _, station in sorted(reached)] == [name for name, _ in STATIONS]
