"""``manage.py apes``: run APES over a dataset's current outputs and print per-system figures."""

from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset

from ...nlp import ANSWERER_KEYS
from ...selectors import apes_run_as_dict, apes_system_list
from ...services import ApesRequestError, apes_run_create, apes_run_inline


def _num(value: float | None) -> str:
    return "     -" if value is None else f"{value:6.4f}"


class Command(BaseCommand):
    """Compute APES in this process (or queue it) and print one row per answerer and system."""

    help = (
        "APES (Eyal et al. 2019) of every system's current outputs of a dataset: cloze questions "
        "from the references' named entities (spaCy), answered from each summary by each "
        "answerer; prints per system the mean over summaries, the pooled share, the undefined "
        "summaries and the questions."
    )

    def add_arguments(self, parser):
        """Declare the options."""
        parser.add_argument("--dataset", required=True, help="the dataset's slug")
        parser.add_argument(
            "--answerer",
            action="append",
            choices=ANSWERER_KEYS,
            help="an answerer to run (repeatable); default every installed one",
        )
        parser.add_argument("--format", choices=("text", "json"), default="text")
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument(
            "--queue", action="store_true", help="queue the run for the workers and exit"
        )
        mode.add_argument(
            "--stored", action="store_true", help="print the stored figures, compute nothing"
        )

    def handle(self, *args, **options):
        """Run (or queue) APES and print the figures."""
        try:
            dataset = Dataset.objects.get(slug=options["dataset"])
        except Dataset.DoesNotExist as error:
            raise CommandError(f"no dataset with slug {options['dataset']!r}") from error
        keys = options["answerer"] or list(ANSWERER_KEYS)
        run, seconds = None, None
        if not options["stored"]:
            try:
                run = apes_run_create(dataset=dataset, answerers=keys, queue=bool(options["queue"]))
            except ApesRequestError as error:
                raise CommandError(error.message) from error
            if options["queue"]:
                self.stdout.write(f"APES run {run.pk} queued for {dataset.slug}")
                return
            started = time.perf_counter()
            try:
                run = apes_run_inline(run=run)
            except Exception as error:
                raise CommandError(f"APES run {run.pk} failed: {error}") from error
            seconds = time.perf_counter() - started
            keys = run.answerers
        rows = apes_system_list(dataset=dataset, answerers=keys)
        meta = {"dataset": dataset.slug, "run": apes_run_as_dict(run) if run else None}
        if seconds is not None:
            meta["seconds"] = round(seconds, 2)
        if options["format"] == "json":
            self.stdout.write(json.dumps({"systems": rows, "meta": meta}, indent=2))
            return
        out = self.stdout.write
        if run is not None:
            out(
                f"{dataset.slug}: APES run {run.pk}, {run.outputs_total} outputs "
                f"({', '.join(f'{k} {v}' for k, v in sorted(run.outcomes.items()))}), "
                f"{run.questions_answered} questions answered in {seconds:.1f} s"
            )
            out("seconds per step: " + ", ".join(f"{k} {v:.1f}" for k, v in run.seconds.items()))
            for key, reason in run.skipped.items():
                out(f"skipped {key}: {reason}")
        out(
            f"{'answerer':<15} {'system':<24} {'mean':>6} {'pooled':>6} {'scored':>6} "
            f"{'undef':>5} {'no-out':>6} {'questions':>9} {'correct':>7}"
        )
        for row in rows:
            out(
                f"{row['answerer']:<15} {row['system']:<24} {_num(row['value'])} "
                f"{_num(row['pooled'])} {row['n_scored']:>6} {row['n_undefined']:>5} "
                f"{row['n_documents_without_output']:>6} {row['n_questions']:>9} "
                f"{row['n_correct']:>7}"
            )
