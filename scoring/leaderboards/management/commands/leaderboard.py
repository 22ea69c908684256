"""``manage.py leaderboard``: print a dataset's leaderboard as a table, JSON or CSV."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation.corpus.models import Dataset
from config.exceptions import ApplicationError
from scoring.leaderboards.apis import leaderboard_csv, leaderboard_json
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
    header = ["system", "n", *metrics, *extra, f"vs next ({envelope['sort']})"]
    rows = []
    for row in envelope["systems"]:
        test = row["vs_next"]
        mark = "-"
        if test and test["p_value"] is not None:
            mark = f"p={test['p_value']:.3f}{' *' if test['significant'] else ''}"
        cells = [_cell(row[m]) for m in metrics]
        if polytope:
            cells.append(_polytope(row.get("polytope")))
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
    lines += [f"note: {note}" for note in envelope["notes"]]
    if envelope["jobs"]["pending"]:
        lines.append(
            f"note: {envelope['jobs']['pending']} scoring job(s) still running; "
            "use --sync for final figures"
        )
    return "\n".join(lines)


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
