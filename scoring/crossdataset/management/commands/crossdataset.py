"""``manage.py crossdataset``: CDEvalSumm's U matrices, stiffness, stableness and paired tests."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.exceptions import ApplicationError
from scoring.metrics.crossdataset import (
    MEASURES,
    MISSING_ERROR,
    MISSING_RULES,
    CrossDatasetError,
    cells_from_nested,
)
from scoring.metrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

from ...report import crossdataset_report, report_data
from ...selectors import DEFAULT_METRIC, MAX_RESAMPLES, MIN_RESAMPLES

MEASURE_TITLES = {"stiffness": "stiffness", "stableness": "stableness", "in_dataset": "in-dataset"}
PRINTED = ("stiffness", "stableness")
PRINTED_TITLES = ("stiff. / N", "stable. / N")


def scores_file_read(path: Path) -> tuple[str, list[str] | None, dict]:
    """Read a scores file in the layout of ``fixtures/crossdataset/example.json``.

    Args:
        path: the JSON file: ``{"metric": ..., "datasets": [...], "systems": {system: {train:
            {test: {document: score}}}}}`` (``metric`` and ``datasets`` optional).

    Returns:
        ``(metric label, datasets or None, system -> (train, test) -> document -> score)``.

    Raises:
        CommandError: the file cannot be read, is not JSON or not in the layout.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror or error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{path} is not a JSON file: {error}") from error
    layout = "systems[system][train dataset][test dataset][document] = score"
    systems = data.get("systems") if isinstance(data, dict) else None
    if not isinstance(systems, dict) or not systems:
        raise CommandError(f'{path}: expected an object with "systems": {layout}')
    cells = {}
    for name, nested in systems.items():
        if not isinstance(nested, dict) or not all(
            isinstance(row, dict) and all(isinstance(s, dict) for s in row.values())
            for row in nested.values()
        ):
            raise CommandError(f"{path}: system {name!r} is not in the layout {layout}")
        cells[str(name)] = cells_from_nested(nested)
    datasets = data.get("datasets")
    if datasets is not None and (
        not isinstance(datasets, list) or not all(isinstance(d, str) for d in datasets)
    ):
        raise CommandError(f'{path}: "datasets" must be a list of dataset names')
    return str(data.get("metric") or "score"), datasets, cells


def _datasets_of(cells: dict) -> list[str]:
    """Every dataset that is both a training and a test dataset of some system, sorted."""
    trained = {train for system in cells.values() for train, _ in system}
    tested = {test for system in cells.values() for _, test in system}
    return sorted(trained & tested)


def _number(value: float | None, width: int = 8) -> str:
    return f"{'excluded' if value is None else f'{value:.4f}':>{width}}"


class Command(BaseCommand):
    help = (
        "Cross-dataset evaluation (CDEvalSumm, Chen et al. 2020): per system (the Systems "
        "sharing a name, each trained on one dataset) the U matrix (train x test) of a metric's "
        "mean, the normalised matrix U_ij / U_jj, stiffness, stableness and the in-dataset "
        "mean (and the two measures as the paper prints them, sums / N); the ranking by the "
        "three; paired tests between systems (the paper's Wilcoxon signed-rank test and a "
        "permutation test). From the database, or "
        "from a JSON scores file (--scores, no database needed)."
    )
    requires_system_checks: list = []

    def add_arguments(self, parser):
        parser.add_argument(
            "--metric",
            default=DEFAULT_METRIC,
            help="Stored metric key (rouge1_f, rouge2_f, rougeL_f, far@3, ...); default "
            f"{DEFAULT_METRIC}. Ignored with --scores (the file's own metric is shown).",
        )
        parser.add_argument(
            "--datasets",
            default="",
            help="Comma-separated datasets in row/column order (default: every dataset that "
            "is both a training and a test set).",
        )
        parser.add_argument(
            "--missing",
            choices=MISSING_RULES,
            default=MISSING_ERROR,
            help="error: every cell is required; exclude: missing off-diagonal cells are left "
            "out for every system, systems without an in-dataset cell are left out.",
        )
        parser.add_argument("--format", choices=("text", "json"), default="text")
        parser.add_argument(
            "--scores",
            type=Path,
            help="Compute from this JSON file (layout of fixtures/crossdataset/example.json).",
        )
        parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)

    def handle(self, *args, **options):
        chosen = [s.strip() for s in options["datasets"].split(",") if s.strip()] or None
        resamples = options["resamples"]
        if not MIN_RESAMPLES <= resamples <= MAX_RESAMPLES:
            raise CommandError(f"--resamples must be from {MIN_RESAMPLES} to {MAX_RESAMPLES}")
        common = {"missing": options["missing"], "resamples": resamples, "seed": options["seed"]}
        try:
            if options["scores"]:
                metric, datasets, cells = scores_file_read(options["scores"])
                report = crossdataset_report(
                    systems=cells, datasets=chosen or datasets or _datasets_of(cells), **common
                )
            else:
                from ...selectors import crossdataset_read

                metric = options["metric"]
                report = crossdataset_read(metric=metric, datasets=chosen, **common)
        except CrossDatasetError as error:
            raise CommandError(str(error)) from error
        except ApplicationError as error:
            raise CommandError(error.message) from error
        data = report_data(report, metric=metric)
        if options["format"] == "json":
            self.stdout.write(json.dumps(data, indent=2))
            return
        self._text(data)

    def _matrix(self, title: str, datasets: list[str], rows: list) -> None:
        self.stdout.write(f"  {title}")
        self.stdout.write("  " + " " * 12 + "".join(f"{d[:8]:>10}" for d in datasets))
        for name, row in zip(datasets, rows, strict=True):
            self.stdout.write(f"  {name[:12]:<12}" + "".join(f"  {_number(v)}" for v in row))

    def _pair(self, test: dict, alpha: float) -> None:
        out = self.stdout.write
        pair = f"{test['system_a']} vs {test['system_b']}"
        if test["error"]:
            out(f"  {pair}: permutation test not run: {test['error']}")
        else:
            how = "exact" if test["exact"] else f"{test['resamples']} sign patterns"
            dropped = ""
            if test["dropped_a"] or test["dropped_b"]:
                dropped = f", units left out {test['dropped_a']} / {test['dropped_b']}"
            out(
                f"  {pair}: stiffness difference {test['statistic']:+.4f}, "
                f"permutation p = {test['p_value']:.4f} ({test['n']} units, {test['cells']} "
                f"cells, {how}{dropped})"
            )
        if test["wilcoxon_error"]:
            out(f"    Wilcoxon not run: {test['wilcoxon_error']}")
        for w in test["wilcoxon"]:
            mark = f" < {alpha}" if w["p_value"] < alpha else ""
            zeros = f", {w['zeros']} zero(s) dropped" if w["zeros"] else ""
            label = f"{w['measure']} over {w['reading']}:"
            out(
                f"    Wilcoxon, {label:<26} difference "
                f"{w['mean_difference']:+.4f}, p = {w['p_value']:.4f}{mark} (W = "
                f"{w['statistic']:g}, {w['n']} pairs{zeros}, {w['method']})"
            )

    def _text(self, data: dict) -> None:
        out = self.stdout.write
        datasets = data["datasets"]
        out(
            f"Cross-dataset evaluation: metric {data['metric']}, datasets "
            f"{', '.join(datasets) or '(none)'}, missing cells: {data['missing']}"
        )
        if data["excluded"]:
            cells = ", ".join(f"{a}->{b}" for a, b in data["excluded"])
            out(f"Excluded for every system (train->test): {cells}")
        for system in data["systems"]:
            out("")
            out(system["system"])
            self._matrix("U (rows: trained on, columns: tested on)", datasets, system["u"])
            self._matrix("Normalised U_ij / U_jj", datasets, system["normalised"])
            out(
                f"  stiffness {system['stiffness']:.4f}  stableness {system['stableness']:.4f}  "
                f"in-dataset {system['in_dataset']:.4f}"
            )
            out(
                f"  as printed in the paper (sums / N): stiffness "
                f"{system['stiffness_printed']:.4f}  stableness {system['stableness_printed']:.4f}"
            )
        if data["systems"]:
            out("")
            out("Ranking (1 is best; ties share a rank)")
            out(
                f"{'system':<20}"
                + "".join(f"{MEASURE_TITLES[m]:>18}" for m in MEASURES)
                + "".join(f"{title:>14}" for title in PRINTED_TITLES)
            )
            for system in data["systems"]:
                cells = "".join(f"{system[m]:>14.4f} ({system['rank_' + m]})" for m in MEASURES)
                printed = "".join(f"{system[m + '_printed']:>14.4f}" for m in PRINTED)
                out(f"{system['system'][:20]:<20}{cells}{printed}")
            out(data["normalisation"])
        if data["tests"]:
            out("")
            out(f"Paired tests: {data['test_description']}")
            for test in data["tests"]:
                self._pair(test, data["alpha"])
        if data["left_out"]:
            out("")
            out("Left out:")
            for item in data["left_out"]:
                slug = f" ({item['slug']})" if item["slug"] else ""
                out(f"  {item['system']}{slug}: {item['reason']}")
        if not data["systems"]:
            out("")
            out("No system to evaluate on these datasets.")
