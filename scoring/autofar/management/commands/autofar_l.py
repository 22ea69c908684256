"""``manage.py autofar_l``: fit AutoFAR (or reuse the fit) and run AutoFAR-L on a dataset."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError
from scoring.metrics.errors import MetricsError
from scoring.metrics.suggest import ScorerUnavailableError

from ...selectors import autofar_note, fit_as_dict, run_as_dict
from ...services import autofar_fit_obtain, autofar_run_create, autofar_run_inline
from ...tables import DEFAULT_SCORERS, DEFAULT_TOP_NS


def _dataset(slug: str) -> Dataset:
    try:
        return Dataset.objects.get(slug=slug)
    except Dataset.DoesNotExist as error:
        raise CommandError(f"no dataset with slug {slug!r}") from error


class Command(BaseCommand):
    """Fit (or reuse an unchanged fit by its digest), then run AutoFAR-L inline or queue it."""

    help = (
        "AutoFAR-L: fit AutoFAR on --fit-dataset's human FAMs (reused while its inputs are "
        "unchanged) and estimate FAR for --dataset's extractive outputs of documents without "
        "human FAMs (the DocumentScore key autofar_l, the leaderboard's estimate column)."
    )

    def add_arguments(self, parser):
        """Declare the options."""
        parser.add_argument("--fit-dataset", required=True, help="the dataset to fit on")
        parser.add_argument("--dataset", required=True, help="the dataset to estimate")
        parser.add_argument("--scorers", default=",".join(DEFAULT_SCORERS))
        parser.add_argument("--top-n", default=",".join(str(n) for n in DEFAULT_TOP_NS))
        parser.add_argument("--k", type=int, default=3)
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument(
            "--queue", action="store_true", help="queue the run for the workers (default: inline)"
        )
        parser.add_argument("--format", choices=("text", "json"), default="text")

    def handle(self, *args, **options):
        """Obtain the fit, run (or queue) AutoFAR-L and print the fit and the run."""
        fit_dataset = _dataset(options["fit_dataset"])
        dataset = _dataset(options["dataset"])
        scorers = [s.strip() for s in options["scorers"].split(",") if s.strip()]
        try:
            top_ns = [int(n) for n in options["top_n"].split(",") if n.strip()]
        except ValueError as error:
            raise CommandError(f"--top-n must be integers: {options['top_n']!r}") from error
        try:
            obtained = autofar_fit_obtain(
                dataset=fit_dataset,
                scorers=scorers,
                top_ns=top_ns,
                k=options["k"],
                resamples=options["resamples"],
            )
            run = autofar_run_create(dataset=dataset, fit=obtained.fit, queue=options["queue"])
            if not options["queue"]:
                run = autofar_run_inline(run=run)
        except (ApplicationError, MetricsError, ScorerUnavailableError) as error:
            raise CommandError(str(error)) from error
        fit = obtained.fit
        if options["format"] == "json":
            payload = {
                "fit": fit_as_dict(fit),
                "fit_created": obtained.created,
                "run": run_as_dict(run),
            }
            self.stdout.write(json.dumps(payload, indent=2))
            return
        out = self.stdout.write
        out(f"fit {fit.pk} on {fit_dataset.slug} ({'new' if obtained.created else 'reused'})")
        out(autofar_note(fit))
        out(f"features: {', '.join(fit.features)}; k={fit.k}")
        out(f"run {run.pk} on {dataset.slug}: {run.status}")
        if not options["queue"]:
            result = run.result
            out(
                f"{result.get('documents', 0)} documents, {result.get('outputs_predicted', 0)} "
                f"outputs estimated, {result.get('outputs_without_machine_support', 0)} without "
                "machine support"
            )
            for entry in result.get("systems", []):
                mean = entry["mean"]
                value = "-" if mean is None else f"{mean:.3f}"
                reason = f" ({entry['reason']})" if entry.get("reason") else ""
                out(f"  {entry['system']:<16} {value:>7} n={entry['n_documents']}{reason}")
