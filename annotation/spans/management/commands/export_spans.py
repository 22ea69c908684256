"""``manage.py export_spans``: a span set as the official PolyTope workbook or as JSONL."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.fams.models import AnnotationSet
from annotation.spans.selectors_workbook import FORMATS, span_set_export


class Command(BaseCommand):
    help = (
        "Export a span annotation set: --format xlsx writes the official PolyTope workbook "
        "layout (Error Log, Scores per segment, ScoreCard, Severity_Matrix; values only, text "
        "escaped against formula injection), --format jsonl one object per output and "
        "annotator. Name the set with --set and --dataset, or with --campaign."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "out", type=Path, help="The file to write ('-' for stdout, JSONL only)."
        )
        parser.add_argument("--set", help="Slug of the annotation set.")
        parser.add_argument("--dataset", help="Slug of the set's dataset.")
        parser.add_argument("--campaign", help="Slug of a campaign: its annotation set.")
        parser.add_argument("--system", help="Only this system's outputs.")
        parser.add_argument("--format", choices=FORMATS, required=True)

    def _set(self, options) -> AnnotationSet:
        chosen = None
        if options["campaign"]:
            chosen = (
                AnnotationSet.objects.filter(campaign__slug=options["campaign"])
                .select_related("dataset")
                .first()
            )
            if chosen is None:
                raise CommandError(f"No campaign {options['campaign']!r}.")
        if options["set"] or options["dataset"]:
            if not (options["set"] and options["dataset"]):
                raise CommandError("Give --set and --dataset together (or --campaign).")
            named = (
                AnnotationSet.objects.filter(slug=options["set"], dataset__slug=options["dataset"])
                .select_related("dataset")
                .first()
            )
            if named is None:
                raise CommandError(
                    f"No annotation set {options['set']!r} on dataset {options['dataset']!r}."
                )
            if chosen is not None and chosen.pk != named.pk:
                raise CommandError(
                    f"Campaign {options['campaign']!r} writes set {chosen.slug!r} of dataset "
                    f"{chosen.dataset.slug!r}, not {named.slug!r}."
                )
            chosen = named
        if chosen is None:
            raise CommandError("Name the set: --set and --dataset, or --campaign.")
        if chosen.is_fam:
            raise CommandError(f"Annotation set {chosen.slug!r} holds FAMs, not error spans.")
        return chosen

    def handle(self, *args, **options):
        annotation_set = self._set(options)
        out: Path = options["out"]
        if str(out) == "-" and options["format"] != "jsonl":
            raise CommandError("Only JSONL can be written to stdout.")
        try:
            export = span_set_export(
                annotation_set=annotation_set,
                file_format=options["format"],
                system=options["system"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        if str(out) == "-":
            self.stdout.write(export.body.decode("utf-8"), ending="")
            return
        out.write_bytes(export.body)
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {export.segments} annotation(s) of set {annotation_set.slug!r} to {out}."
            )
        )
        for cell in export.altered:
            self.stdout.write(f"  {cell}: text cut at the 32,767 characters a cell holds")
