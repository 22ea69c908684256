"""``manage.py import_spans``: span annotations from Loupe's JSONL export into a set."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from annotation.fams.models import AnnotationSetKind
from annotation.imports.bundle import ImportValidationError
from annotation.imports.commands import import_refused, import_verb
from annotation.spans.services_workbook import span_jsonl_import
from scoring.metrics.spans import scheme_names


class Command(BaseCommand):
    help = (
        "Import span annotations from JSONL (one object per output and annotator, as "
        "export_spans --format jsonl writes) into an annotation set of a dataset, replacing "
        "the set's rows of the outputs the file names. Everything is checked first. Exits "
        "with status 1 when the import is refused (every problem goes to stderr)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The .jsonl file.")
        parser.add_argument("--dataset", required=True, help="Slug of the dataset.")
        parser.add_argument("--set", required=True, help="Slug of the set (created if absent).")
        parser.add_argument("--format", choices=["jsonl"], default="jsonl")
        parser.add_argument(
            "--kind",
            choices=[AnnotationSetKind.RELEASED, AnnotationSetKind.GOLD, AnnotationSetKind.HUMAN],
            default=AnnotationSetKind.RELEASED,
            help="Kind of a new set (an existing set's kind must match).",
        )
        parser.add_argument("--scheme", choices=scheme_names(), default="polytope")
        parser.add_argument("--name", default="", help="Name of a new set.")
        parser.add_argument("--dry-run", action="store_true", help="Check only; write nothing.")

    def handle(self, *args, **options):
        dataset = Dataset.objects.filter(slug=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"No dataset {options['dataset']!r}.")
        path: Path = options["path"]
        try:
            result = span_jsonl_import(
                dataset=dataset,
                source=path,
                filename=path.name,
                set_slug=options["set"],
                kind=options["kind"],
                scheme=options["scheme"],
                name=options["name"],
                dry_run=options["dry_run"],
            )
        except ImportValidationError as error:
            raise import_refused(self, error) from error
        verb = import_verb(result.dry_run)
        where = f"{'new ' if result.set_created else ''}set {result.annotation_set!r}"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {result.annotations} annotation(s) of {result.outputs} output(s) on "
                f"{result.dataset!r} into {where}."
            )
        )
