"""``manage.py leaderboard``: print a dataset's leaderboard as a table, JSON or CSV."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError
from scoring.leaderboards.apis import leaderboard_csv
from scoring.leaderboards.plots import fixed
from scoring.leaderboards.selectors import CATEGORIES
from scoring.leaderboards.services import leaderboard_serve
from scoring.scores.services import scoring_pending_run_inline

TABLE_METRICS = ("far", "autofar_l", "sar", "sap", "saf1")
# After the dataset's ROUGE F columns (and ROUGE-1 recall): APES and faithfulness.
TABLE_LAST = ("apes", "apes_embedding", "faithfulness")


def _table_metrics(envelope: dict) -> list[str]:
    """The table's columns: the FAR family, each configured ROUGE type's F (and ROUGE-1's
    recall), APES and faithfulness, those the board has."""
    rouge = [k for k in envelope["rouge"]["keys"] if k.endswith("_f")]
    rouge += [k for k in envelope["rouge"]["keys"] if k.startswith("rouge1_") and k.endswith("_r")]
    wanted = (*TABLE_METRICS, *rouge, *TABLE_LAST)
    return [m for m in wanted if m in envelope["metrics"]]


def _cell(cell: dict | None) -> str:
    """A cell x100 with its CI; a mean over one document has none, and says so."""
    if cell is None:
        return "-"
    mean = fixed(100 * cell["mean"])
    if cell["ci_low"] is None or cell["ci_high"] is None:
        return f"{mean} ({cell['n']} document{'s' * (cell['n'] != 1)}, no CI)"
    return f"{mean} [{fixed(100 * cell['ci_low'])}, {fixed(100 * cell['ci_high'])}]"


def _polytope(cell: dict | None) -> str:
    """PolyTope in percent with its ratio CI, the annotated outputs and the severity counts."""
    if cell is None:
        return "not annotated"
    score = fixed(cell["score"], 2)
    ci = (
        f" [{fixed(cell['ci_low'], 2)}, {fixed(cell['ci_high'], 2)}]"
        if cell["ci_low"] is not None and cell["ci_high"] is not None
        else " (no CI)"
    )
    counts = f"{cell['critical']} critical, {cell['major']} major, {cell['minor']} minor"
    return f"{score}{ci} ({cell['n']}/{cell['outputs']} annotated; {counts})"


def dataset_named(slug: str) -> Dataset:
    """The dataset of a command's ``--dataset`` option.

    Args:
        slug: the dataset's slug.

    Returns:
        The dataset.

    Raises:
        CommandError: no such dataset (the message lists those there are).
    """
    dataset = Dataset.objects.filter(slug=slug).first()
    if dataset is None:
        known = ", ".join(Dataset.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"no dataset {slug!r}; datasets: {known}")
    return dataset


def leaderboard_table(envelope: dict) -> str:
    """A plain-text table (values x100 with 95% CIs), notes and jobs underneath.

    When outputs are annotated, a PolyTope column (in percent, with its ratio bootstrap CI,
    the annotated outputs and the critical, major and minor errors) comes before the test.

    Args:
        envelope: :func:`leaderboard_serve`'s result.

    Returns:
        The table text.
    """
    metrics = _table_metrics(envelope)
    polytope = (envelope.get("polytope") or {}).get("available", False)
    extra = ["polytope"] if polytope else []
    studies = sorted({name for row in envelope["systems"] for name in row.get("human", {})})
    header = ["system", "n", *metrics, *extra, *studies, f"vs next ({envelope['sort']})"]
    rows = []
    for row in envelope["systems"]:
        test = row["vs_next"]
        mark = "-"
        if test and test["p_value"] is not None:
            mark = f"p={test['p_value']:.3f}{' *' if test['significant'] else ''}"
        cells = [_cell(row[m]) for m in metrics]
        if polytope:
            cells.append(_polytope(row.get("polytope")))
        human = row.get("human", {})
        cells += [_human(human.get(name)) for name in studies]
        rows.append([row["system"], str(row["n_documents"]), *cells, mark])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        f"{envelope['dataset']}: category {envelope['category'] or 'all'}, k = {envelope['k']}, "
        f"{envelope['n_documents']} documents; scores x100 with "
        f"{int(envelope['ci']['level'] * 100)}% bootstrap CIs"
        + ("; PolyTope in percent, pooled over words" if polytope else ""),
        f"ROUGE: {envelope['rouge']['scorer']}",
        "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.append(
        f"* p < {envelope['significance']['alpha']} against the next system "
        f"({envelope['significance']['test']}, two-sided, on shared documents)"
    )
    if studies:
        lines.append("human studies: the mean x100 over the judged documents (n), as given")
    lines += [f"note: {note}" for note in envelope["notes"]]
    lines += meta_evaluation_lines(envelope.get("meta_evaluation") or {})
    if envelope["jobs"]["pending"]:
        lines.append(
            f"note: {envelope['jobs']['pending']} scoring job(s) still running; "
            "use --sync for final figures"
        )
    return "\n".join(lines)


def _human(value: dict | None) -> str:
    if value is None:
        return "-"
    count = "" if value["n"] is None else f" ({value['n']})"
    return f"{fixed(100 * value['mean'])}{count}"


def _tau(coefficient: dict) -> str:
    if coefficient["value"] is None:
        return "-"
    ends = ""
    if coefficient["low"] is not None:
        ends = f" [{fixed(coefficient['low'], 2)}, {fixed(coefficient['high'], 2)}]"
    return f"{fixed(coefficient['value'], 2)}{ends}"


def meta_evaluation_lines(block: dict) -> list[str]:
    """Kendall's tau of every metric with each human study by subset, and the released scores
    against Loupe's, as text (the JSON has Pearson and Spearman too).

    Args:
        block: the envelope's ``meta_evaluation``.

    Returns:
        The lines (none without a study or a released score).
    """
    lines = []
    for study in block.get("studies", []):
        sizes = {item["subset"]: len(item["systems"]) for item in study["subsets"]}
        subsets = list(sizes)
        system = {(r["metric"], r["subset"]): r for r in study["rows"] if r["level"] == "system"}
        summary = {(r["metric"], r["subset"]): r for r in study["rows"] if r["level"] == "summary"}
        metrics = list(dict.fromkeys(r["metric"] for r in study["rows"]))
        header = ["metric", *(f"{s} ({sizes[s]})" for s in subsets)]
        header.append("summary level (all)")
        rows = [
            [
                metric,
                *(_tau(system[(metric, s)]["kendall"]) for s in subsets),
                _tau(summary[(metric, "all")]["kendall"]),
            ]
            for metric in metrics
        ]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines.append(
            f"Kendall's tau with {study['study']} at system level by subset (systems), "
            f"{int(block['ci']['level'] * 100)}% bootstrap CIs over documents; summary level: "
            "tau per document across systems, averaged"
        )
        lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    for item in block.get("released", []):
        if item["loupe_key"] is None:
            lines.append(f"released {item['released_key']}: Loupe has no counterpart")
            continue
        pearson = "-" if item["pearson"] is None else fixed(item["pearson"], 3)
        lines.append(
            f"released {item['released_key']} vs Loupe's {item['loupe_key']}: Pearson "
            f"{pearson}, mean |difference| {fixed(item['mean_abs_diff'], 4)} over {item['n']} "
            "outputs"
        )
    return lines


def leaderboard_json(envelope: dict) -> str:
    """The leaderboard as the API serves it, as JSON: the systems (one object each, the export's
    rows) with everything around them, the correlations and the meta-evaluation included.

    Args:
        envelope: :func:`leaderboard_serve`'s result.

    Returns:
        JSON text.
    """
    return json.dumps(envelope, indent=2)


class Command(BaseCommand):
    help = "Print a dataset's leaderboard as the API serves it (table, JSON or CSV)."

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="the dataset's slug")
        parser.add_argument("--category", choices=list(CATEGORIES), default=None)
        parser.add_argument("--k", type=int, default=3, help="FAR cut-off (default 3)")
        parser.add_argument(
            "--sort", default=None, help="metric to sort by (default far; or polytope)"
        )
        parser.add_argument("--common", action="store_true", help="common documents only")
        parser.add_argument("--format", choices=["table", "json", "csv"], default="table")
        parser.add_argument(
            "--sync",
            action="store_true",
            help="first run any pending scoring in this process and wait for it",
        )

    def handle(self, *args, **options):
        dataset = dataset_named(options["dataset"])
        if options["sync"]:
            ran = scoring_pending_run_inline(dataset=dataset, ks=[options["k"]])
            self.stderr.write(f"ran {ran} scoring job(s) in this process")
        try:
            envelope = leaderboard_serve(
                dataset=dataset,
                category=options["category"],
                k=options["k"],
                sort=options["sort"],
                common_only=options["common"],
            )
        except ApplicationError as error:
            raise CommandError(error.message) from error
        render = {"table": leaderboard_table, "json": leaderboard_json, "csv": leaderboard_csv}
        self.stdout.write(render[options["format"]](envelope).rstrip("\n"))
