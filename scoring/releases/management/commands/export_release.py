"""``manage.py export_release``: make a dataset's next release here (the Celery job's own code)."""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from scoring.releases.models import ArchiveFormat, ReleaseStatus
from scoring.releases.selectors import release_archive_path
from scoring.releases.services import release_build, release_create


def _unpack(archive: Path, kind: str, out: Path) -> None:
    """Extract a release archive Loupe just wrote (plain files under one folder)."""
    if kind == ArchiveFormat.ZIP:
        with zipfile.ZipFile(archive) as source:
            source.extractall(out)
    else:
        with tarfile.open(archive, "r:gz") as source:
            source.extractall(out, filter="data")


class Command(BaseCommand):
    help = (
        "Export a dataset's next release (a new version; releases never change): documents, "
        "outputs, FAMs, spans, workbooks, scores, agreement, the FAR-compatible files, a "
        "datasheet and a manifest with every file's SHA-256. The release is stored like one "
        "made from the web page; --out DIR also gets its archive and its unpacked folder, "
        "which `import_dataset --format loupe-release DIR/<slug>-v<n>` reads back."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="The dataset's slug.")
        parser.add_argument("--out", type=Path, help="Also copy the release into this folder.")
        parser.add_argument("--archive", choices=ArchiveFormat.values, default=ArchiveFormat.ZIP)
        parser.add_argument(
            "--include-annotators",
            action="store_true",
            help="Also each annotator's FAMs and spans (submitted items, under pseudonyms).",
        )
        parser.add_argument("--notes", default="", help="Shown with the release; in its manifest.")

    def handle(self, *args, **options):
        dataset = Dataset.objects.filter(slug=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"no dataset {options['dataset']!r}")
        out = options["out"]
        release = release_create(
            dataset=dataset,
            archive=options["archive"],
            include_annotators=options["include_annotators"],
            notes=options["notes"],
            queue=False,
        )
        try:
            release = release_build(release=release)
        except Exception as error:
            raise CommandError(f"release {release.version} failed: {error}") from error
        if release.status != ReleaseStatus.SUCCEEDED:
            raise CommandError(f"release {release.version} failed: {release.error}")
        archive = release_archive_path(release)
        self.stdout.write(
            self.style.SUCCESS(
                f"Release {release.version} of {dataset.slug!r}: {archive} ({release.size:,} "
                f"bytes, sha256 {release.sha256})."
            )
        )
        counts = release.manifest["counts"]
        held = ", ".join(f"{value} {key.replace('_', ' ')}" for key, value in counts.items())
        self.stdout.write(f"Holds {held}.")
        if release.diff:
            changes = "; ".join(
                f"{kind}: +{row['added']} ~{row['changed']} -{row['removed']}"
                for kind, row in release.diff.items()
                if isinstance(row, dict) and "added" in row
            )
            self.stdout.write(f"Since version {release.diff['previous_version']}: {changes}")
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            folder = out / archive.name.removesuffix(f".{release.archive}")
            if folder.exists():
                raise CommandError(f"{folder} exists already; choose another --out")
            shutil.copyfile(archive, out / archive.name)
            _unpack(archive, release.archive, out)
            self.stdout.write(f"Copied to {out / archive.name} and unpacked into {folder}.")
