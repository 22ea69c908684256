"""``manage.py import_outputs``: upload a system's outputs (JSONL, zip or directory)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from annotation.imports.bundle import ImportValidationError
from annotation.imports.commands import import_refused, import_report_write, import_verb
from annotation.systems.models import SystemKind
from config.exceptions import ApplicationError
from scoring.uploads.services import system_outputs_upload, system_record_for_upload


class Command(BaseCommand):
    help = (
        "Import one system's outputs for an existing dataset: a .jsonl file, a .zip of "
        "<doc_id>.txt files or a directory of them. Everything is validated first and written "
        "in one transaction as the system's next version; a scoring job is then queued. "
        "Exits with status 1 when the upload is refused (every problem goes to stderr)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The .jsonl or .zip file, or the directory.")
        parser.add_argument("--dataset", required=True, help="Slug of the dataset.")
        parser.add_argument("--system", required=True, help="Slug of the system (new or not).")
        parser.add_argument("--name", default="", help="Display name of a new system.")
        parser.add_argument(
            "--kind", choices=SystemKind.values, default="", help="Required for a new system."
        )
        parser.add_argument("--description", default="", help="Description of a new system.")
        parser.add_argument(
            "--trained-on",
            default="",
            help="Slug of the dataset the system was trained on (cross-dataset evaluation); "
            "sets a new system's, and must equal an existing system's.",
        )
        parser.add_argument("--dry-run", action="store_true", help="Validate only; write nothing.")
        parser.add_argument(
            "--accept-low-confidence",
            action="store_true",
            help="Keep extractive sentences whose nearest document sentence has a TF-IDF cosine "
            "below 0.3 (listed in the report) instead of refusing the upload.",
        )

    def handle(self, *args, **options):
        dataset = Dataset.objects.filter(slug=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"No dataset {options['dataset']!r}.")
        path: Path = options["path"]
        try:
            upload = system_outputs_upload(
                dataset=dataset,
                system=system_record_for_upload(
                    slug=options["system"],
                    name=options["name"],
                    kind=options["kind"],
                    description=options["description"],
                    trained_on=options["trained_on"],
                ),
                source=path,
                filename=path.name,
                dry_run=options["dry_run"],
                accept_low_confidence=options["accept_low_confidence"],
            )
        except ImportValidationError as error:
            raise import_refused(self, error, what="Upload") from error
        except ApplicationError as error:
            raise CommandError(f"Upload refused: {error.message}") from error
        summary = upload.summary
        verb = import_verb(summary.dry_run)
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {summary.outputs} output(s) of {upload.system!r} on {dataset.slug!r} "
                f"({summary.outputs} of {dataset.documents.count()} documents) "
                f"as version {upload.version}."
            )
        )
        import_report_write(
            self,
            summary.report,
            unit="low-confidence mapping(s)",
            none="no low-confidence mappings",
        )
        if upload.job_id is not None:
            self.stdout.write(
                f"Scoring job {upload.job_id} queued (GET /api/scoring-jobs/{upload.job_id}/)."
            )
