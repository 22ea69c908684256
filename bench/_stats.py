"""Figures of the benchmarks: nearest-rank percentiles, and the machine and load they ran on."""

from __future__ import annotations

import contextlib
import math
import os
import platform
import subprocess
from pathlib import Path

from _common import PG, ROOT  # puts the repository on sys.path


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0-100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def summary(values: list[float]) -> dict[str, float]:
    """p50, p95, p99 and max of a list of milliseconds (NaN when empty)."""
    if not values:
        return dict.fromkeys(("p50", "p95", "p99", "max"), math.nan)
    return {
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "max": max(values),
    }


def machine() -> str:
    """One line: CPU count and model, Python, PostgreSQL server version."""
    model = platform.processor() or ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    import psycopg2

    connection = psycopg2.connect(dbname="postgres", **PG)
    try:
        pg_version = connection.server_version
    finally:
        connection.close()
    pg = f"{pg_version // 10000}.{pg_version % 100}"
    return f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, PostgreSQL {pg}"


def revision() -> str:
    """The checkout's commit, and which server-side folders have local changes (read-only git)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "annotation", "config"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "commit unknown"
    return f"commit {head}" + (
        f" with {len(changed)} changed files in annotation/ and config/" if changed else ""
    )


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages (other work on the machine skews the figures)."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())
