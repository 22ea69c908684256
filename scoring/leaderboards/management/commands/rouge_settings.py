"""``manage.py rouge_settings``: show or change the ROUGE a dataset's leaderboard computes."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from config.exceptions import ApplicationError
from scoring.metrics.cli.rouge import add_rouge_options
from scoring.scores.selectors import rouge_settings_get
from scoring.scores.services import (
    rouge_config_parse,
    rouge_settings_update,
    scoring_job_run_inline,
)

from .leaderboard import dataset_named


class Command(BaseCommand):
    help = (
        "Show a dataset's ROUGE settings (rouge-score's rouge_types, use_stemmer, "
        "split_summaries), or change them and rescore its outputs. An option not given keeps "
        "its current value."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="the dataset's slug")
        add_rouge_options(parser)
        parser.add_argument("--sync", action="store_true", help="rescore in this process")

    def handle(self, *args, **options):
        dataset = dataset_named(options["dataset"])
        current = rouge_settings_get(dataset=dataset).config.as_dict()
        given = {
            "rouge_types": [t for item in options["rouge_types"] or [] for t in item.split(",")],
            "use_stemmer": options["use_stemmer"],
            "split_summaries": options["split_summaries"],
        }
        if options["rouge_types"] is None:
            given.pop("rouge_types")
        changes = {name: value for name, value in given.items() if value is not None}
        if changes:
            try:
                config = rouge_config_parse({**current, **changes})
            except ApplicationError as error:
                raise CommandError(f"--{error.extra['field'].replace('_', '-')}: {error}") from None
            job = rouge_settings_update(dataset=dataset, config=config, queue=not options["sync"])
            if job is None:
                self.stderr.write("unchanged: no rescoring")
            elif options["sync"]:
                job = scoring_job_run_inline(job=job)
                self.stderr.write(f"rescored in this process: scoring job {job.pk} {job.status}")
            else:
                self.stderr.write(f"scoring job {job.pk} queued to rescore the outputs")
        self.stdout.write(json.dumps(rouge_settings_get(dataset=dataset).as_dict(), indent=2))
