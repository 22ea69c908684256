"""Shared set-up of the benchmarks: the repository on sys.path, the releases' paths, best-of timing.

Importing this module puts the repository root on ``sys.path``, so a script run as
``.venv/bin/python bench/<name>.py`` imports ``annotation`` and ``scoring`` from this checkout.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The public releases, read where they are (nothing is copied into the repository).
SHARED = ROOT.parent / "shared" / "data"
POLYTOPE_RELEASE = SHARED / "polytope-release" / "outputs"
FAR_RELEASE = SHARED / "far-release"
# The local PostgreSQL the live-server benchmarks create their databases on (trust auth).
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}


def release_missing(script: str, release: str, path: Path) -> bool:
    """Print that ``script`` is skipped when the release folder ``path`` is missing.

    Args:
        script: the benchmark's name, e.g. ``"bench_align"``.
        release: the release's name in the message, e.g. ``"PolyTope"``.
        path: the folder the benchmark reads.

    Returns:
        True (after printing the message) when ``path`` is not a folder, else False.
    """
    if path.is_dir():
        return False
    print(f"{script}: skipped, the {release} release is not at {path}")
    return True


def best_of(function: Callable[..., Any], *args: Any, repeats: int) -> tuple[float, Any]:
    """Best wall time of ``repeats`` runs of ``function(*args)`` (``time.perf_counter``).

    Args:
        function: what to time.
        *args: its arguments, the same for every run.
        repeats: how many runs (at least 1).

    Returns:
        The best time in seconds and the last run's result.
    """
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result
