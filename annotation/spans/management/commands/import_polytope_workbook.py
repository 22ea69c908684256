"""``manage.py import_polytope_workbook``: one system's official PolyTope workbook as spans."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from annotation.imports.bundle import ImportValidationError
from annotation.imports.commands import import_refused, import_report_write, import_verb
from annotation.spans.services_workbook import RELEASE_SET, polytope_workbook_import

# Loupe's pooled score and the ScoreCard's LQI agree to this, unless the report says why not.
LQI_TOLERANCE = 0.005


class Command(BaseCommand):
    help = (
        "Import an official PolyTope annotation workbook (Human_Annotation_*.xlsm, its Error "
        "Log sheet) for one system of a dataset as a released span set. The workbook is read as "
        "data only (no macro, formula or link is run). Rows are matched to the system's outputs "
        "by ID and summary text; severities come from the official matrix. Everything is "
        "checked first; the system's rows of the set are then replaced in one transaction. "
        "Exits with status 1 when the import is refused (every problem goes to stderr)."
    )

    def add_arguments(self, parser):
        parser.add_argument("workbook", type=Path, help="The .xlsm or .xlsx workbook.")
        parser.add_argument("--dataset", required=True, help="Slug of the dataset.")
        parser.add_argument("--system", required=True, help="Slug of the annotated system.")
        parser.add_argument(
            "--set", default=RELEASE_SET, help=f"Released set to write (default {RELEASE_SET})."
        )
        parser.add_argument("--dry-run", action="store_true", help="Check only; write nothing.")
        parser.add_argument(
            "--keep-uncounted",
            action="store_true",
            help="Store (and count) valid rows the sheet does not count, e.g. an empty Severity.",
        )
        parser.add_argument(
            "--strict", action="store_true", help="Refuse the import if the report has any line."
        )

    def handle(self, *args, **options):
        dataset = Dataset.objects.filter(slug=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"No dataset {options['dataset']!r}.")
        path: Path = options["workbook"]
        try:
            result = polytope_workbook_import(
                dataset=dataset,
                system_slug=options["system"],
                source=path,
                filename=path.name,
                set_slug=options["set"],
                dry_run=options["dry_run"],
                keep_uncounted=options["keep_uncounted"],
                strict=options["strict"],
            )
        except ImportValidationError as error:
            raise import_refused(self, error) from error
        verb = import_verb(result.dry_run)
        where = f"{'new ' if result.set_created else ''}set {result.annotation_set!r}"
        self.stdout.write(
            self.style.SUCCESS(
                f"{verb} {result.placed} of {result.segments} segment(s) of {result.system!r} "
                f"on {result.dataset!r} into {where}: {result.with_errors} with errors, "
                f"{result.clean} without; {result.errors} error(s) from {result.rows} row(s)."
            )
        )
        counts = ", ".join(f"{n} {name}" for name, n in result.severities.items())
        score = f"{result.score:.3f}" if result.score is not None else "none"
        lqi = f"{result.scorecard_lqi:.3f}" if result.scorecard_lqi is not None else "not cached"
        self.stdout.write(
            f"PolyTope over the imported segments: {score} ({counts}; {result.words} words). "
            f"The workbook's ScoreCard LQI: {lqi}."
        )
        if result.score is not None and result.scorecard_lqi is not None:
            gap = result.score - result.scorecard_lqi
            if abs(gap) >= LQI_TOLERANCE:
                self.stdout.write(
                    self.style.WARNING(
                        f"Loupe's score is {gap:+.3f} from the ScoreCard's LQI: the report says "
                        "which segments Loupe counts otherwise than the sheet."
                    )
                )
        import_report_write(self, result.report)
