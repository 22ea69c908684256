"""Benchmark: a release export of 11,490 documents with FAMs, its time and peak memory.

The issue's goal: under 30 s and under 300 MiB. The dataset is the synthetic CNN/DM-shaped
corpus of ``_cnndm.py`` (11,490 documents of 25-35 sentences, one reference of 3-4 facets and
a released FAM each) with two extractive systems' outputs (one per document), imported into a
fresh PostgreSQL database. No scores are stored (no scoring job runs), so ``scores.jsonl`` is
empty; everything else is written: documents, systems, outputs, annotation sets, FAMs, spans
(none), the FAR-compatible files, agreement, the datasheet, the manifest, the zip and the item
index.

- **Ours:** ``release_create`` + ``release_build`` (what the Celery task and ``manage.py
  export_release`` run), in a process of its own, so its peak resident memory
  (``ru_maxrss``, Django and the imports included) is the export's alone.
- **Peer:** the plain way, in a process of its own: the same rows of documents (each chunk of
  2,000 with its references in one more query), outputs and FAMs read with chunked querysets,
  each line made by ``json.dumps`` (sorted keys, no spaces) and streamed into a ``zipfile``
  member. No hashing, staging, manifest, FAR files, datasheet, item index or fixed dates.
- **Agreement:** the three JSONL members both write must be byte-identical.

Each side runs ``--runs`` times (a new process each; ours makes versions 1, 2, ...); the best
time and the highest peak are reported, with ours / peer. Run from the repository root:

    .venv/bin/python bench/bench_release_export.py            # about 3 min
    .venv/bin/python bench/bench_release_export.py --documents 2000 --runs 1
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from _server import bench_start, bench_workdir, manage, run_loader

SEED = 20261125
DOCUMENTS = 11_490  # the CNN/DM test split
SYSTEMS = 2
SLUG = "release-bench"
BUDGET_SECONDS = 30.0
BUDGET_MIB = 300.0
COMPARED = ("documents.jsonl", "outputs.jsonl", "fams.jsonl")
CHUNK = 2000


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


# --- child processes (Django set up) ----------------------------------------------------------


def load(documents: int) -> dict:
    """Generate and import the corpus and the systems' outputs; say what was written."""
    from _data import django_setup

    django_setup()
    from _cnndm import cnndm_documents
    from bench_scoring import add_systems, import_dataset

    start = time.perf_counter()
    corpus = cnndm_documents(documents, SEED)
    import_dataset(corpus, SLUG, "Release benchmark (synthetic CNN/DM)")
    add_systems(corpus, SLUG, SYSTEMS)
    return {
        "seconds": time.perf_counter() - start,
        "sentences": sum(len(d["sentences"]) for d in corpus) / len(corpus),
        "facets": sum(len(d["facets"]) for d in corpus) / len(corpus),
    }


def _copy_members(archive: Path, root: str, folder: Path, side: str) -> None:
    """Copy the compared members out of a zip, in chunks (after the peak was read)."""
    import shutil
    import zipfile

    with zipfile.ZipFile(archive) as zipped:
        for name in COMPARED:
            with zipped.open(root + name) as source, (folder / f"{side}-{name}").open("wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)


def export_ours(folder: Path) -> dict:
    """One release of the dataset, as the task builds it; the archive's members for the check."""
    from _data import django_setup

    django_setup()
    from annotation.corpus.models import Dataset
    from scoring.releases.selectors import release_archive_path
    from scoring.releases.services import release_build, release_create

    dataset = Dataset.objects.get(slug=SLUG)
    start = time.perf_counter()
    release = release_build(release=release_create(dataset=dataset, queue=False))
    seconds, peak = time.perf_counter() - start, _peak_mib()
    _copy_members(release_archive_path(release), f"{SLUG}-v{release.version}/", folder, "ours")
    return {
        "seconds": seconds,
        "peak_mib": peak,
        "version": release.version,
        "bytes": release.size,
        "files": len(release.manifest["files"]) + 1,
        "rows": release.progress_total,
        "counts": release.manifest["counts"],
    }


def export_peer(folder: Path) -> dict:
    """The plain writer: the same rows, ``json.dumps`` per line, streamed into a zip."""
    from _data import django_setup

    django_setup()
    import zipfile

    from annotation.corpus.models import Document, Reference
    from annotation.fams.models import Fam
    from annotation.systems.models import SystemOutput

    def line(value) -> bytes:
        return (
            json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        ).encode()

    start = time.perf_counter()
    target = folder / "peer.zip"
    documents = (
        Document.objects.filter(dataset__slug=SLUG)
        .order_by("position", "id")
        .values_list("pk", "external_id", "category", "sentences", "meta")
    )

    def with_references(rows):
        """Each chunk of documents with its references, fetched in one query per chunk."""
        chunk = []
        for row in rows.iterator(chunk_size=CHUNK):
            chunk.append(row)
            if len(chunk) == CHUNK:
                yield from attach(chunk)
                chunk = []
        yield from attach(chunk)

    def attach(chunk):
        refs: dict[int, list] = {}
        for document_id, label, sentences in (
            Reference.objects.filter(document_id__in=[row[0] for row in chunk])
            .order_by("document_id", "position")
            .values_list("document_id", "label", "sentences")
        ):
            refs.setdefault(document_id, []).append({"label": label, "sentences": sentences})
        for row in chunk:
            yield row, refs.get(row[0], [])

    outputs = (
        SystemOutput.objects.filter(version__dataset__slug=SLUG)
        .order_by("system__slug", "document__position", "document_id")
        .values_list(
            "system__slug",
            "document__external_id",
            "sentences",
            "extracted",
            "extraction_method",
            "match_confidence",
        )
    )
    fams = (
        Fam.objects.filter(annotation_set__dataset__slug=SLUG)
        .order_by(
            "annotation_set__slug", "document__position", "document_id", "reference__position"
        )
        .values_list(
            "annotation_set__slug", "document__external_id", "reference__position", "facets"
        )
    )
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        with archive.open("documents.jsonl", "w", force_zip64=True) as out:
            for (_pk, external_id, category, sentences, meta), refs in with_references(documents):
                out.write(
                    line(
                        {
                            "id": external_id,
                            "category": category or None,
                            "sentences": sentences,
                            "references": refs,
                            "meta": meta or {},
                        }
                    )
                )
        with archive.open("outputs.jsonl", "w", force_zip64=True) as out:
            for system, document, sentences, extracted, method, confidences in outputs.iterator(
                chunk_size=CHUNK
            ):
                out.write(
                    line(
                        {
                            "system": system,
                            "document": document,
                            "sentences": sentences,
                            "extracted": extracted,
                            "method": method,
                            "confidences": confidences,
                        }
                    )
                )
        with archive.open("fams.jsonl", "w", force_zip64=True) as out:
            for set_slug, document, reference, facets in fams.iterator(chunk_size=CHUNK):
                out.write(
                    line(
                        {
                            "set": set_slug,
                            "document": document,
                            "reference": reference,
                            "annotator": None,
                            "facets": [
                                {
                                    "groups": [sorted(g) for g in f.get("groups", [])],
                                    "label": f.get("label", "supported"),
                                    "note": f.get("note", ""),
                                }
                                for f in facets
                            ],
                        }
                    )
                )
    seconds, peak = time.perf_counter() - start, _peak_mib()
    _copy_members(target, "", folder, "peer")
    return {"seconds": seconds, "peak_mib": peak, "bytes": target.stat().st_size}


# --- the benchmark ----------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=DOCUMENTS)
    parser.add_argument("--runs", type=int, default=3, help="processes per side (default 3)")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--side", choices=("ours", "peer"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load and args.side is None:
        print(json.dumps(load(args.documents)))
        return 0
    if args.load:
        side = export_ours if args.side == "ours" else export_peer
        print(json.dumps(side(args.folder)))
        return 0
    if not bench_start("bench_release_export"):
        return 0
    script = Path(__file__)
    with bench_workdir() as (tmp, env):
        env["LOUPE_RELEASES_DIR"] = str(tmp / "releases")
        manage(env, "migrate", "--noinput")
        loaded = run_loader(env, script, "--documents", str(args.documents))
        print(
            f"dataset {SLUG}: {args.documents:,} documents ({loaded['sentences']:.1f} sentences, "
            f"{loaded['facets']:.2f} facets and one released FAM each), {SYSTEMS} extractive "
            f"systems' outputs; generated and imported in {loaded['seconds']:.1f} s"
        )
        runs: dict[str, list[dict]] = {"ours": [], "peer": []}
        for _ in range(args.runs):
            for side in ("peer", "ours"):  # in turns, so a burst of other work hits both
                found = run_loader(env, script, "--side", side, "--folder", str(tmp))
                runs[side].append(found)
                print(f"  {side}: {found['seconds']:.2f} s, peak {found['peak_mib']:.0f} MiB")
        same = all(
            (tmp / f"ours-{name}").read_bytes() == (tmp / f"peer-{name}").read_bytes()
            for name in COMPARED
        )
    ours = min(r["seconds"] for r in runs["ours"])
    peer = min(r["seconds"] for r in runs["peer"])
    ours_peak = max(r["peak_mib"] for r in runs["ours"])
    peer_peak = max(r["peak_mib"] for r in runs["peer"])
    last = runs["ours"][-1]
    print(
        f"ours: release v{last['version']}, {last['files']} files, {last['rows']:,} rows, zip "
        f"{last['bytes'] / 1e6:.1f} MB (peer's zip {runs['peer'][-1]['bytes'] / 1e6:.1f} MB)"
    )
    print(
        f"best of {args.runs}: ours {ours:.2f} s, peer {peer:.2f} s: ours / peer = "
        f"{ours / peer:.2f}; peak memory ours {ours_peak:.0f} MiB, peer {peer_peak:.0f} MiB"
    )
    within = ours <= BUDGET_SECONDS and ours_peak <= BUDGET_MIB
    print(
        f"budget: {BUDGET_SECONDS:.0f} s and {BUDGET_MIB:.0f} MiB: "
        f"{'within' if within else 'OVER'} (time {ours / BUDGET_SECONDS:.2f} of it, memory "
        f"{ours_peak / BUDGET_MIB:.2f} of it)"
    )
    print(f"check: {', '.join(COMPARED)} byte-identical on both sides: {'yes' if same else 'NO'}")
    return 0 if same and within else 1


if __name__ == "__main__":
    sys.exit(main())
