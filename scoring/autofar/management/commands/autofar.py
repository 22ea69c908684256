"""``manage.py autofar``: AutoFAR's Tables 6-8 (Mao et al., 2020) for an imported dataset."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from scoring.metrics.autofar import autofar_report
from scoring.metrics.errors import MetricsError
from scoring.metrics.suggest import ScorerUnavailableError

from ...tables import DEFAULT_SCORERS, DEFAULT_TOP_NS, autofar_compute, autofar_input_get


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{100 * value:5.1f}"


def _num(value: float | None) -> str:
    return "     -" if value is None else f"{value:6.3f}"


class Command(BaseCommand):
    """Print Tables 6-8 as aligned text, or as JSON with ``--format json``."""

    help = (
        "AutoFAR on an imported dataset: support discovery of machine FAMs (Table 6), "
        "FAR under machine vs human FAMs (Table 7), and the AutoFAR fit (Table 8)."
    )

    def add_arguments(self, parser):
        """Declare the options."""
        parser.add_argument("--dataset", required=True, help="the dataset's slug")
        parser.add_argument(
            "--scorers",
            default=",".join(DEFAULT_SCORERS),
            help=f"comma-separated scorer names (default {','.join(DEFAULT_SCORERS)})",
        )
        parser.add_argument(
            "--top-n",
            default=",".join(str(n) for n in DEFAULT_TOP_NS),
            help="comma-separated N's of the machine FAMs (default 1,2,3)",
        )
        parser.add_argument("--format", choices=("text", "json"), default="text")
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument(
            "--keep-split-disagreements",
            action="store_true",
            help="also use documents whose sentence split disagrees with their FAM's support "
            "sentences (left out by default)",
        )

    def handle(self, *args, **options):
        """Read the dataset, compute the tables and print them."""
        try:
            dataset = Dataset.objects.get(slug=options["dataset"])
        except Dataset.DoesNotExist as error:
            raise CommandError(f"no dataset with slug {options['dataset']!r}") from error
        scorers = [s.strip() for s in options["scorers"].split(",") if s.strip()]
        try:
            top_ns = [int(n) for n in options["top_n"].split(",") if n.strip()]
        except ValueError as error:
            raise CommandError(f"--top-n must be integers: {options['top_n']!r}") from error
        if not scorers or not top_ns:
            raise CommandError("give at least one scorer and one N")
        try:
            result = autofar_compute(
                data=autofar_input_get(
                    dataset=dataset,
                    keep_split_disagreements=options["keep_split_disagreements"],
                ),
                scorers=scorers,
                top_ns=top_ns,
                resamples=options["resamples"],
            )
        except (MetricsError, ScorerUnavailableError) as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            report = autofar_report(result.table6, result.table7, result.table8)
            report["table8_reason"] = result.table8_reason
            report["meta"] = result.meta
            self.stdout.write(json.dumps(report, indent=2))
            return
        self._text(result)

    def _text(self, result) -> None:
        out = self.stdout.write
        meta = result.meta
        out(
            f"{meta['documents_with_human_fam']} documents with a human FAM; Tables 7-8 on "
            f"{meta['documents_scored']} documents and {len(meta['systems'])} systems "
            f"({', '.join(meta['systems'])}); FAR at k={meta['k']}"
        )
        if meta["documents_split_disagreements_left_out"]:
            out(
                f"{meta['documents_split_disagreements_left_out']} documents left out: their "
                "sentence split disagrees with their FAM (--keep-split-disagreements keeps them)"
            )
        if meta["systems_left_out"]:
            out(f"systems left out (outputs missing): {', '.join(meta['systems_left_out'])}")
        out("")
        out("Table 6: support-sentence discovery (micro, %)")
        out(f"{'scorer':<14} {'N':>2} {'P':>6} {'R':>6} {'F1':>6}")
        for row in result.table6:
            out(
                f"{row.scorer:<14} {row.top_n:>2} {_pct(row.precision):>6} "
                f"{_pct(row.recall):>6} {_pct(row.f1):>6}"
            )
        out("")
        out("Table 7: system-level correlation of machine-FAM FAR with human FAR [95% CI]")
        out(f"{'scorer':<14} {'N':>2} {'docs':>4}  {'pearson':<24}{'spearman':<24}kendall")
        unsupported = {(u["scorer"], u["top_n"]): u["documents"] for u in meta["unsupported"]}
        for row in result.table7:
            cells = []
            for item in (row.pearson, row.spearman, row.kendall):
                interval = item.interval
                ci = f"[{_num(interval.low)},{_num(interval.high)}]" if interval else "[-]"
                cells.append(f"{_num(item.correlation.value)} {ci}".ljust(24))
            out(f"{row.scorer:<14} {row.top_n:>2} {row.n_documents:>4}  {''.join(cells)}".rstrip())
            if unsupported.get((row.scorer, row.top_n)):
                out(f"{'':17}({unsupported[(row.scorer, row.top_n)]} without machine support)")
        out("")
        out("Table 8: AutoFAR, human FAR ~ b0 + sum w_j FAR_j (leave one system out)")
        if result.table8 is None:
            out(f"no fit: {result.table8_reason}")
            return
        model = result.table8.model
        out(f"rows {model.n_rows} ({meta['table8_documents']} documents)")
        out(f"{'intercept':<16} {_num(model.intercept)}")
        for name, weight in model.weights.items():
            out(f"{name:<16} {_num(weight)}")
        for name, same in meta["table8_duplicates"].items():
            out(f"{name:<16} (same FAR as {same}: left out)")
        out(f"fit RMSE {_num(model.rmse)}  R^2 {_num(model.r2)}")
        out(f"{'held-out system':<16} {'pred':>6} {'human':>6} {'RMSE':>6}")
        for item in result.table8.held_out:
            out(
                f"{item.system!s:<16} {_num(item.predicted_far)} {_num(item.human_far)} "
                f"{_num(item.rmse)}"
            )
        validation = (
            f"validation RMSE {_num(result.table8.validation_rmse)}  "
            f"R^2 {_num(result.table8.validation_r2)}"
        )
        if result.table8.validation_reason:
            validation += f" ({result.table8.validation_reason})"
        out(validation)
