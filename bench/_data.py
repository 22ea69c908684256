"""Data of the server benchmarks: synthetic documents, and the loader child's Django side."""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path

N_SENTENCES = 60
N_FACETS = 4


def synthetic_document(rng: random.Random, n_sentences: int, n_facets: int) -> dict:
    """A news-shaped document and a reference whose facets copy spans of its sentences.

    Words come from a Zipf-weighted vocabulary of pseudo-words; each document sentence has
    12-28 words; each facet copies 8-12 consecutive words of one of the first 20 sentences
    (the lead bias of news) and adds 3-6 words of its own, so the suggestions have something
    to find.

    Args:
        rng: the seeded random generator.
        n_sentences: document sentences.
        n_facets: reference sentences.

    Returns:
        ``{"sentences": [...], "reference": [...]}``.
    """
    syllables = ["ka", "lo", "mi", "ren", "sa", "tu", "vel", "dor", "ni", "pra", "ste", "qua"]
    vocabulary = sorted(
        {"".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(2500)}
    )
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]

    def words(n: int) -> list[str]:
        return rng.choices(vocabulary, weights=weights, k=n)

    def sentence(tokens: list[str]) -> str:
        return " ".join(tokens).capitalize() + "."

    body = [words(rng.randint(12, 28)) for _ in range(n_sentences)]
    sources = rng.sample(range(min(20, n_sentences)), n_facets)
    reference = []
    for source in sources:
        span = rng.randint(8, 12)
        start = rng.randint(0, max(0, len(body[source]) - span))
        reference.append(sentence(body[source][start : start + span] + words(rng.randint(3, 6))))
    return {"sentences": [sentence(s) for s in body], "reference": reference}


def write_jsonl(path: Path, documents: list[dict]) -> None:
    """Write documents in Loupe's dataset JSONL format (``id``, ``sentences``, ``references``)."""
    with path.open("w", encoding="utf-8") as out:
        for position, document in enumerate(documents):
            record = {
                "id": f"doc-{position:03d}",
                "sentences": document["sentences"],
                "references": [document["reference"]],
            }
            out.write(json.dumps(record) + "\n")


def django_setup() -> None:
    """Set Django up in this (loader) process, from the environment."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def count_queries(calls: dict[str, tuple], *, show: bool) -> dict[str, int]:
    """Count the SQL queries of some requests with Django's test client, in-process.

    Args:
        calls: ``label -> (method, path, extra)`` where ``extra`` holds headers (``HTTP_*``)
            and, for writes, ``data`` and ``content_type``.
        show: print each query (trimmed) to stderr.

    Returns:
        ``label -> number of queries``.
    """
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    counts = {}
    for label, (method, path, extra) in calls.items():
        extra = dict(extra)
        session = extra.pop("session_user", None)
        if session is not None:
            client.force_login(session)
        with CaptureQueriesContext(connection) as captured:
            response = getattr(client, method.lower())(path, **extra)
        if response.status_code != 200:
            raise RuntimeError(f"{label}: HTTP {response.status_code} {response.content[:200]!r}")
        counts[label] = len(captured.captured_queries)
        if show:  # identical statements (up to their WHERE) are collapsed with a count
            print(f"--- {label}: {counts[label]} queries", file=sys.stderr)
            seen: dict[str, int] = {}
            for query in captured.captured_queries:
                sql = query["sql"]
                head, _, where = sql.partition(" WHERE ")
                key = re.sub(r'SELECT .*? FROM ("[a-z_]+")', r"SELECT ... FROM \1", head)
                key = (key + (" WHERE " + where[:60] if where else ""))[:200]
                seen[key] = seen.get(key, 0) + 1
            for key, n in seen.items():
                print(f"   {n:>4} x {key}", file=sys.stderr)
    return counts
