"""``manage.py import_dataset``: import a dataset file or release folder through the pipeline."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.importers.formats import FORMATS
from annotation.corpus.services import dataset_import
from annotation.imports.bundle import ImportValidationError


class Command(BaseCommand):
    help = (
        "Import a dataset: --format jsonl FILE, or --format polytope-release, far-release, "
        "xsum-hallucinations, realsumm or loupe-release DIR. Everything is validated first and "
        "written in one transaction; an existing --slug is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The JSONL file or the release folder.")
        parser.add_argument("--format", required=True, choices=sorted(FORMATS))
        parser.add_argument("--slug", required=True, help="Slug of the new dataset.")
        parser.add_argument("--name", help="Display name (defaults to the format's own).")
        parser.add_argument("--dry-run", action="store_true", help="Validate only; write nothing.")

    def handle(self, *args, **options):
        try:
            summary = dataset_import(
                format_name=options["format"],
                source=options["path"],
                slug=options["slug"],
                name=options["name"],
                dry_run=options["dry_run"],
            )
        except ImportValidationError as error:
            lines = "\n".join(f"  {issue}" for issue in error.issues)
            raise CommandError(
                f"Import refused: {len(error.issues)} problem(s); nothing was written.\n{lines}"
            ) from error
        verb = "Would import" if summary.dry_run else "Imported"
        spans = f", {summary.span_annotations} error-span annotations"
        spans = spans if summary.span_annotations else ""
        judged = (
            f"; {summary.judgments} human judgments and the release's own scores of "
            f"{summary.released_scores} outputs"
            if summary.judgments or summary.released_scores
            else ""
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} dataset {summary.dataset!r}: {summary.documents} documents, "
                f"{summary.references} references, {summary.outputs} system outputs, "
                f"{summary.fams} FAMs{spans} in {summary.annotation_sets} annotation set(s)"
                f"{judged}."
            )
        )
        if summary.systems_created or summary.systems_reused:
            self.stdout.write(
                f"Systems created: {', '.join(summary.systems_created) or '-'}; "
                f"reused: {', '.join(summary.systems_reused) or '-'}."
            )
        if summary.report:
            self.stdout.write(f"Report ({len(summary.report)} line(s)):")
            for line in summary.report:
                self.stdout.write(f"  {line}")
