"""Time a dry run of the largest allowed output upload (1,000,000 bad lines) against its JSON parse.

Each side runs in a fresh child process, so its peak resident memory is its own. Loupe's side is
``system_outputs_upload(dry_run=True)`` on the demo dataset (the service behind the upload API);
the peer is ``json.loads`` of every line of the same file, the least any validator must do.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT
from _server import bench_start, bench_workdir, manage

LINES = 1_000_000


def _write(path: Path) -> int:
    """The file: a million lines of outputs for documents the dataset does not have."""
    with path.open("w", encoding="utf-8") as handle:
        for i in range(LINES):
            handle.write(json.dumps({"doc_id": f"d{i}", "summary": "A summary."}) + "\n")
    return path.stat().st_size


def _child(side: str, path: str) -> None:
    """Run one side and print its seconds, peak RSS (MB) and answer as JSON."""
    started = time.perf_counter()
    if side == "peer":
        with open(path, encoding="utf-8") as handle:
            answer = sum(1 for line in handle if json.loads(line))
    else:
        import django

        django.setup()
        from annotation.corpus.models import Dataset
        from annotation.imports.bundle import ImportValidationError, SystemRecord
        from scoring.uploads.services.uploads import system_outputs_upload

        try:
            system_outputs_upload(
                dataset=Dataset.objects.get(slug="demo"),
                system=SystemRecord(slug="big", name="big", kind="abstractive"),
                source=Path(path),
                filename="big.jsonl",
                dry_run=True,
            )
            answer = "accepted"
        except ImportValidationError as error:
            answer = f"{len(error.issues)} issues; last: {error.issues[-1].message}"
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "answer": answer}))


def main() -> int:
    """Set up a database with the demo, write the file, time both sides three times each."""
    if not bench_start("bench_upload_dry_run.py"):
        return 0
    with bench_workdir() as (folder, env):
        manage(env, "migrate", "--noinput", "-v0")
        manage(env, "demo", "--force")
        path = folder / "big.jsonl"
        size = _write(path)
        env = {**env, "DJANGO_SETTINGS_MODULE": "config.settings"}
        best = {}
        for side in ("peer", "loupe"):
            runs = []
            for _ in range(3):
                done = subprocess.run(
                    [sys.executable, __file__, "--child", side, str(path)],
                    env=env,
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                )
                if done.returncode:
                    raise RuntimeError(f"the {side} side failed:\n{done.stderr}")
                runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
            best[side] = min(runs, key=lambda run: run["seconds"])
    print(f"file: {LINES:,} lines, {size / 1e6:.1f} MB (limit LOUPE_UPLOAD_MAX_BYTES 50 MB)")
    print("| side | best of 3 (s) | ratio | peak RSS (MB) | answer |")
    print("| --- | ---: | ---: | ---: | --- |")
    fastest = best["peer"]["seconds"]
    for side, label in (("peer", "json.loads per line"), ("loupe", "upload dry run")):
        run = best[side]
        print(
            f"| {label} | {run['seconds']:.2f} | {run['seconds'] / fastest:.2f}x "
            f"| {run['peak_mb']:.0f} | {run['answer']} |"
        )
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
