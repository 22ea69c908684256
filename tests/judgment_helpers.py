"""Helpers for the human judgment tests: in-memory uploads, JSONL text, imports into a dataset."""

from __future__ import annotations

import io
import json

from annotation.corpus.models import Document
from scoring.judgments.services import human_judgments_import

URL = "/api/datasets/demo/judgments/"
SYSTEMS = ("lead-3", "demo-extsum", "demo-abs")
THREE_SCORES = {  # what uploading a per-system score of each demo system as "overall" returns
    "name": "overall",
    "kind": "score",
    "per_document": False,
    "rows": 3,
    "systems": ["demo-abs", "demo-extsum", "lead-3"],
    "replaced": False,
}


def upload(text: str | bytes, name: str) -> io.BytesIO:
    handle = io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text)
    handle.name = name
    return handle


def jsonl(*objects: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in objects)


def import_text(dataset, text: str | bytes, filename: str, name: str = "overall", **kwargs):
    return human_judgments_import(
        dataset=dataset, name=name, source=upload(text, filename), filename=filename, **kwargs
    )


def doc_pk(external_id: str) -> int:
    return Document.objects.get(dataset__slug="demo", external_id=external_id).pk
