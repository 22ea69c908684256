"""``manage.py bias``: dataset-bias measures of a dataset's references and systems (issue 12)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError, ConflictError
from scoring.metrics.errors import MetricsError

from ...compute import bias_compute, bias_report
from ...models import RunStatus, RunTrigger
from ...services import bias_run_inline, bias_run_request, bias_run_start


def _num(value: float | None, width: int = 6) -> str:
    return "-".rjust(width) if value is None else f"{value:{width}.3f}"


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{100 * value:5.1f}"


class Command(BaseCommand):
    """Print one row per source as aligned text, or JSON with ``--format json``; with
    ``--queue``, start a stored run instead (the API's and the pages' figures)."""

    help = (
        "Dataset-bias measures of a dataset's references and every system's current outputs: "
        "coverage, density, compression, copy length, novel and repeated 1-4-grams, sentence "
        "fusion and the mean position of the supporting content."
    )

    def add_arguments(self, parser):
        """Declare the options."""
        parser.add_argument("--dataset", required=True, help="the dataset's slug")
        parser.add_argument("--format", choices=("text", "json"), default="text")
        parser.add_argument(
            "--queue",
            action="store_true",
            help="start a stored bias run (Celery) instead of printing; an unchanged dataset's "
            "latest run is reused",
        )
        parser.add_argument(
            "--sync", action="store_true", help="with --queue: run it in this process, no worker"
        )

    def _queue(self, dataset: Dataset, *, sync: bool) -> None:
        """Start (or reuse) a stored run and say which; with ``sync``, run it here."""
        if sync:
            run, created = bias_run_request(dataset=dataset, trigger=RunTrigger.MANUAL, queue=False)
            try:
                run = bias_run_inline(run=run)
            except MetricsError as error:
                raise CommandError(str(error)) from error
            if run.status != RunStatus.SUCCEEDED:
                raise CommandError(f"bias run {run.pk} {run.status}: {run.error}")
            reused = (
                f" (reused run {run.reused_from_id}: inputs unchanged)"
                if run.reused_from_id
                else ""
            )
            self.stdout.write(f"bias run {run.pk} on {dataset.slug}: succeeded{reused}")
            return
        try:
            run, queued = bias_run_start(dataset=dataset, user=None)
        except ConflictError as error:
            extra = error.extra
            self.stdout.write(f"bias run {extra['run']} on {dataset.slug}: {extra['status']}")
            return
        except ApplicationError as error:
            raise CommandError(error.message) from error
        if queued:
            self.stdout.write(f"bias run {run.pk} on {dataset.slug}: queued")
        else:
            self.stdout.write(f"bias run {run.pk} on {dataset.slug}: up to date (inputs unchanged)")

    def handle(self, *args, **options):
        """Read the dataset, compute the measures and print them."""
        try:
            dataset = Dataset.objects.get(slug=options["dataset"])
        except Dataset.DoesNotExist as error:
            raise CommandError(f"no dataset with slug {options['dataset']!r}") from error
        if options["queue"]:
            self._queue(dataset, sync=options["sync"])
            return
        if options["sync"]:
            raise CommandError("--sync goes with --queue")
        try:
            result = bias_compute(dataset=dataset)
        except MetricsError as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            self.stdout.write(json.dumps(bias_report(result, dataset=dataset), indent=2))
            return
        out = self.stdout.write
        meta = result.meta
        out(
            f"{dataset.slug}: {meta['documents']} documents"
            + (
                f" ({meta['documents_without_text_left_out']} without text left out)"
                if meta["documents_without_text_left_out"]
                else ""
            )
        )
        out("novel/repeated n-grams, fusion in %; position: 0 = first sentence, 1 = past the last")
        out(
            f"{'source':<28} {'kind':<11} {'pairs':>5} {'cover':>6} {'dens':>6} {'compr':>6} "
            f"{'copy':>6} {'nov1':>5} {'nov2':>5} {'nov3':>5} {'nov4':>5} {'rep1':>5} "
            f"{'rep2':>5} {'rep3':>5} {'rep4':>5} {'fus':>5} {'pos':>6}"
        )
        for row in result.rows:
            m = row.means
            novel = " ".join(_pct(v) for v in m.novel)
            repeated = " ".join(_pct(v) for v in m.repeated)
            out(
                f"{row.source:<28} {row.kind:<11} {m.n_items:>5} {_num(m.coverage)} "
                f"{_num(m.density)} {_num(m.compression)} {_num(m.copy_length)} {novel} "
                f"{repeated} {_pct(m.fusion)} {_num(m.mean_position)}"
            )
