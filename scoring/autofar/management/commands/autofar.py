"""``manage.py autofar``: AutoFAR's Tables 6-8 (Mao et al., 2020) for an imported dataset."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from scoring.metrics.autofar import published
from scoring.metrics.errors import MetricsError
from scoring.metrics.suggest import ScorerUnavailableError

from ...tables import (
    AUTOFAR_L_UNAVAILABLE,
    DEFAULT_SCORERS,
    DEFAULT_TOP_NS,
    autofar_compute,
    autofar_input_get,
    autofar_result_report,
)

# Table 6's rows in the paper's order; rows it does not have follow.
_TABLE6_ORDER = tuple(published.TABLE6)
_PRF = "    P     R    F1"
_RHO = "    r   rho   tau"


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{100 * value:5.1f}"


def _num(value: float | None) -> str:
    return "     -" if value is None else f"{value:6.3f}"


def _three(values) -> str:
    """Three figures in % (r, rho, tau), or dashes."""
    return " ".join(_pct(v) for v in values) if values else "    -     -     -"


def _ci(item) -> str:
    interval = item.interval
    if interval is None:
        return f"{_pct(item.correlation.value)} [    -,     -]"
    return f"{_pct(item.correlation.value)} [{_pct(interval.low)},{_pct(interval.high)}]"


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
            self.stdout.write(json.dumps(autofar_result_report(result), indent=2))
            return
        self._text(result)

    def _text(self, result) -> None:
        out = self.stdout.write
        meta = result.meta
        out(
            f"{meta['documents_with_human_fam']} documents with a human FAM, "
            f"{len(meta['systems'])} systems ({', '.join(meta['systems'])}); FAR at k={meta['k']}"
        )
        disagree = meta["documents_split_disagreements"]
        if meta["documents_split_disagreements_left_out"]:
            out(
                f"machine FAMs on {meta['documents_machine']} documents: {disagree} left out, "
                "their stored sentence split disagrees with their FAM "
                "(--keep-split-disagreements keeps them)"
            )
        elif disagree:
            out(
                f"machine FAMs on {meta['documents_machine']} documents, {disagree} of them on a "
                "stored sentence split that disagrees with their FAM"
            )
        out(
            f"ground truth (human-FAM FAR, needs no split) on {meta['documents_ground_truth']} "
            "documents"
        )
        if meta["systems_left_out"]:
            out(f"systems left out (outputs missing): {', '.join(meta['systems_left_out'])}")
        out("")
        self._table6(result)
        out("")
        self._table7(result)
        out("")
        self._table8(result)

    def _table6(self, result) -> None:
        out = self.stdout.write
        out("Table 6: support-sentence discovery, micro P / R / F1 (%) pooled over documents")
        out(f"{'':<25}{'Loupe':<17} | paper (its 89 documents; top-1 for the scorers)")
        out(f"{'approach':<16} {'N':>2} {'docs':>4} {_PRF} | {_PRF}")
        rows = [*result.table6, *result.table6_other]
        rank = {name: i for i, name in enumerate(_TABLE6_ORDER)}
        rows.sort(key=lambda r: (rank.get(r.scorer, len(rank)), r.top_n or 0, -r.documents))
        for row in rows:
            found = published.TABLE6.get(row.scorer)
            paper = ""
            if found is not None and row.top_n in (None, published.TABLE6_TOP_N):
                paper = f" {_three((found.precision, found.recall, found.f1))}"
            n = "-" if row.top_n is None else str(row.top_n)
            out(
                f"{row.scorer:<16} {n:>2} {row.documents:>4} "
                f"{_three((row.precision, row.recall, row.f1))} |{paper}".rstrip()
            )

    def _table7(self, result) -> None:
        out = self.stdout.write
        meta = result.meta
        out("Table 7: system-level correlation of FAR under machine FAMs with human FAR (%)")
        out(
            "  protocol: the paper's, as we read it: each system's mean FAR under the machine "
            f"FAMs ({meta['documents_scored']} documents) against its ground-truth FAR "
            f"({meta['documents_ground_truth']} documents, the published FAR)"
        )
        out(
            "  Loupe: both sides on the same documents, 95% paired bootstrap interval over "
            "documents"
        )
        out(f"{'':<16}{'paper':<17} | {'protocol':<17} | Loupe")
        out(
            f"{'scorer':<12} {'N':>2} {_RHO} | {_RHO} | docs {'    r [95% CI]':<19}  "
            f"{'  rho [95% CI]':<19}    tau [95% CI]"
        )
        unsupported = {(u["scorer"], u["top_n"]): u["documents"] for u in meta["unsupported"]}
        for row, paper in zip(result.table7, result.table7_paper, strict=True):
            found = published.TABLE7.get((row.scorer, row.top_n))
            cells = "  ".join(_ci(item) for item in (row.pearson, row.spearman, row.kendall))
            out(
                f"{row.scorer:<12} {row.top_n:>2} "
                f"{_three(found.values() if found else None)} | "
                f"{_three(paper.agreement.values())} | {row.n_documents:>4} {cells}"
            )
            if unsupported.get((row.scorer, row.top_n)):
                out(f"{'':16}({unsupported[(row.scorer, row.top_n)]} without machine support)")

    def _table8(self, result) -> None:
        out = self.stdout.write
        meta = result.meta
        out("Table 8: AutoFAR, a linear regression from estimated FARs to the ground-truth FAR (%)")
        fit = result.table8_paper
        features = ", ".join(result.table8_paper_features)
        out(
            f"  protocol: the paper's, as we read it: one row per system, fitted in sample; "
            f"features {features} (system means), target the ground-truth FAR "
            f"({meta['documents_ground_truth']} documents)"
        )
        if fit is None:
            out(f"  no fit: {result.table8_paper_reason}")
        else:
            out(
                f"{'system':<16} {'FAR':>5} {'paper':>5} {'AutoFAR':>7} {'paper':>5} "
                f"{'held out':>8} | paper AutoFAR-L"
            )
            names = meta["system_names"]
            for system, far in fit.in_sample.truth.items():
                found = published.TABLE8.get(names.get(system, system))
                held = fit.held_out.estimated[system] if fit.held_out else None
                out(
                    f"{system:<16} {_pct(far)} {_pct(found.far if found else None)} "
                    f"{_pct(fit.in_sample.estimated[system]):>7} "
                    f"{_pct(found.autofar if found else None)} {_pct(held):>8} | "
                    f"{_pct(found.autofar_l if found else None):>15}"
                )
            model = fit.model
            weights = ", ".join(f"{name} {w:.3f}" for name, w in model.weights.items())
            out(f"  intercept {model.intercept:.3f}; {weights}")
            held = _three(fit.held_out.values()) if fit.held_out else f"- ({fit.held_out_reason})"
            out(
                f"  FAR vs AutoFAR r / rho / tau: in sample {_three(fit.in_sample.values())}; "
                f"paper {_three(published.TABLE8_AUTOFAR.values())}; held out (Loupe) {held}"
            )
        out(
            f"  FAR vs AutoFAR-L: paper {_three(published.TABLE8_AUTOFAR_L.values())}; "
            f"not computed: {AUTOFAR_L_UNAVAILABLE}"
        )
        out("  every reading, FAR vs AutoFAR r / rho / tau in sample | held out:")
        for reading in result.table8_readings:
            in_sample = _three(reading.in_sample.values() if reading.in_sample else None)
            held = _three(reading.held_out.values() if reading.held_out else None)
            docs = f"{reading.machine_documents}/{reading.truth_documents} docs"
            line = f"  {reading.label:<58} {docs:>12}  {in_sample} | {held}"
            if reading.reason:
                line += f" ({reading.reason})"
            out(line)
        out("")
        self._loupe_model(result)

    def _loupe_model(self, result) -> None:
        out = self.stdout.write
        out(
            "Table 8, Loupe's model: human FAR ~ b0 + sum w_j FAR_j per (system, document), "
            "validated leaving one system out"
        )
        if result.table8 is None:
            out(f"no fit: {result.table8_reason}")
            return
        meta = result.meta
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
        fit = result.table8
        held = _three(fit.held_out_agreement.values() if fit.held_out_agreement else None)
        out(
            f"FAR vs AutoFAR r / rho / tau (system means, {meta['table8_documents']} documents): "
            f"in sample {_three(fit.in_sample.values() if fit.in_sample else None)}; held out "
            f"{held}; paper {_three(published.TABLE8_AUTOFAR.values())}"
        )
