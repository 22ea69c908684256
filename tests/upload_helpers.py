"""Helpers for the upload tests: build JSONL and zip uploads, post them, read issues and counts."""

from __future__ import annotations

import io
import json
import zipfile

from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.corpus.models import Dataset
from annotation.imports.bundle import SystemRecord
from annotation.systems.models import OutputVersion, System, SystemOutput
from scoring.scores.models import ScoringJob
from scoring.uploads.services import system_outputs_upload

URL = "/api/datasets/demo/outputs/"
ABSTRACT = {"system": "my-abs", "kind": "abstractive", "name": "My Abs"}


def jsonl(*records) -> bytes:
    return b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records
    )


def zipped(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def post(client, content: bytes, filename: str = "outputs.jsonl", **fields):
    form = {**ABSTRACT, **fields, "file": SimpleUploadedFile(filename, content)}
    return client.post(URL, form, format="multipart")


def issues(response) -> list[str]:
    """The 400 body's issues as ``file:line [field]: message`` strings."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["message"] == "The import is invalid; nothing was written."
    out = []
    for issue in body["extra"]["issues"]:
        text = issue["file"] + (f":{issue['line']}" if issue["line"] else "")
        text += f" [{issue['field']}]" if issue["field"] else ""
        out.append(f"{text}: {issue['message']}")
    return out


def counts() -> tuple[int, int, int, int]:
    return (
        SystemOutput.objects.count(),
        OutputVersion.objects.count(),
        ScoringJob.objects.count(),
        System.objects.count(),
    )


def upload_path(path, slug: str = "d", user=None):
    """Upload a file or directory of outputs for an abstractive system through the service."""
    return system_outputs_upload(
        dataset=Dataset.objects.get(slug="demo"),
        system=SystemRecord(slug, slug.upper(), "abstractive"),
        source=path,
        filename=path.name,
        user=user,
    )


def upload_job(system: str, number: int) -> ScoringJob:
    """The scoring job queued for a system's version (the demo queues its own job too)."""
    return ScoringJob.objects.get(versions__system__slug=system, versions__number=number)


def sentences(external_id: str) -> list[str]:
    return Dataset.objects.get(slug="demo").documents.get(external_id=external_id).sentences
