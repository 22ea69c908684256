"""``DATASHEET.md``: what the release holds, how it was collected, by whom, agreement, licence.

Written from the export's own counts and the dataset's campaigns, with no date or version (the
manifest has those), so that the same data gives the same datasheet.
"""

from __future__ import annotations

import hashlib

from annotation.agreement.compute import MEASURE_LABELS as SPAN_MEASURE_LABELS
from annotation.agreement.compute import SCORE_MEASURES, SPAN_MEASURES
from annotation.agreement.fam_compute import MEASURES as FAM_MEASURES
from annotation.campaigns.models import Campaign, TaskStatus
from annotation.campaigns.models import Task as CampaignTask

from .members import Export

CATEGORY_NAMES = (
    ("low", "low abstraction"),
    ("noise", "noise"),
    ("high", "high abstraction"),
    ("", "without a category"),
)
SCHEMES = {
    "fam": "facet-aware mappings (Mao et al., ACL 2020): each reference sentence is a facet, "
    "mapped to groups of document sentences that together support it, or marked no_support "
    "or noise",
    "polytope": "PolyTope error spans (Huang et al., 2020): typed, labelled spans in a summary "
    "(an Omission in the source) with a severity derived from the type and label",
    "xsum-hallucinations": "hallucination spans (Maynez et al., ACL 2020): intrinsic or "
    "extrinsic spans in the summary",
}
CAMPAIGN_KINDS = {"fam": "facet-aware mappings", "polytope": "PolyTope error spans"}
# The agreement tables' rows: each kind's measures in order, with their labels.
FAM_ORDER = tuple(FAM_MEASURES)
FAM_LABELS = {key: label for key, (label, _) in FAM_MEASURES.items()}
SPAN_ORDER = SPAN_MEASURES + SCORE_MEASURES
FAR_SCHEMA = """\
The `far/` folder holds the FAMs and the extractive systems' picks in the structure of the FAR
release (Mao et al., 2020; `data/FAMs.pkl` and `data/idx2labels_*.pkl`), as plain JSON that any
language reads without running code:

- `far/FAMs.json`: `{"all_idx": [idx, ...], "high_abs": [idx, ...], "low_abs": {"idx":
  {"facet": [[sentence, ...], ...]}}, "noise": [idx, ...]}`. `all_idx` lists every document's
  idx in the dataset's order; `low_abs` maps each low-abstraction (or uncategorised) document's
  idx to its scored FAM (gold if adjudicated, else the released one): facet number (from "0")
  to its support groups, each a sorted list of 0-based document-sentence indices (an empty list:
  the facet has no support). JSON object keys are strings of the integers; the release's sets
  are sorted lists.
- `far/idx2labels_<system>.json`: `{"idx": [sentence, ...]}`, the system's extracted sentence
  indices in extraction order (repeats kept as released).
- `far/idx2id.json`: `{"idx": "document id"}`. idx is the FAR release's sample index when the
  dataset came from it (`meta.sample_idx`), else the document's rank in the dataset (from 0).

FAR, SAR, SAP and SAF1 at k = 3 follow from these files alone: take the set of the first three
extracted indices E; the support S is the union of every group of the FAM; SAP = |E & S| / |E|,
SAR = |E & S| / |S|, and a facet is covered when one of its groups is a subset of E (FAR =
covered facets / facets with a group); average over the documents of `low_abs`.
"""


def _table(header: tuple[str, ...], rows: list[tuple]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def _what(export: Export) -> list[str]:
    dataset, counts, facts = export.dataset, export.counts, export.facts
    categories = facts.get("categories", {})
    split = ", ".join(
        f"{categories[key]:,} {name}" for key, name in CATEGORY_NAMES if categories.get(key)
    )
    lines = [
        "## What it is",
        "",
        dataset.description or "(The dataset has no description.)",
        "",
        f"- Source: {dataset.source or 'not stated'}.",
        f"- Documents: {counts['documents']:,} ({split or 'none'}), with "
        f"{counts['references']:,} reference summaries.",
        f"- System outputs: {counts['outputs']:,}, the current version of each system's.",
        f"- Per-document scores: {counts['scores']:,}"
        + (f" ({', '.join(facts['metrics'])})." if facts.get("metrics") else "."),
        "",
    ]
    if export.versions:
        per_system = facts.get("outputs_per_system", {})
        rows = [
            (v.system.slug, v.system.name, v.system.kind, per_system.get(v.system.slug, 0))
            for v in export.versions
        ]
        lines += [*_table(("system", "name", "kind", "outputs"), rows), ""]
    if export.sets:
        per_set = facts.get("rows_per_set", {})
        rows = [(s.slug, s.name, s.kind, s.scheme, per_set.get(s.slug, 0)) for s in export.sets]
        lines += [*_table(("annotation set", "name", "kind", "scheme", "rows"), rows), ""]
    return lines


def _guideline(campaign: Campaign) -> str:
    text = (getattr(campaign, "instructions", "") or "").strip()
    if not text:
        return "none given"
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _how(export: Export) -> list[str]:
    kinds = {s.kind for s in export.sets}
    schemes = sorted({s.scheme for s in export.sets})
    lines = ["## How it was collected", ""]
    if "released" in kinds:
        lines.append("- Sets of kind `released` are kept as the source published them.")
    if "gold" in kinds:
        lines.append(
            "- Sets of kind `gold` were adjudicated in Loupe from the annotators' work (each "
            "facet's provenance is kept in Loupe, not in the release; an error's too, unless "
            "the release includes annotators, then it names them by pseudonym). A campaign's "
            "gold holds only the documents whose adjudication was done when it was exported."
        )
    if "human" in kinds:
        lines.append("- Sets of kind `human` hold individual annotators' or workers' work.")
    for scheme in schemes:
        lines.append(f"- Scheme `{scheme}`: {SCHEMES.get(scheme, 'see the set')}.")
    campaigns = Campaign.objects.filter(dataset=export.dataset).order_by("slug")
    rows = [
        (
            c.slug,
            c.kind,
            c.status,
            c.documents.count(),
            c.annotators_per_document,
            _guideline(c),
        )
        for c in campaigns
    ]
    if rows:
        lines += [
            "",
            "Annotation campaigns run in Loupe (the guideline version is the SHA-256 of the "
            "instructions shown to the annotators):",
            "",
            *_table(
                ("campaign", "kind", "status", "documents", "annotators per item", "guideline"),
                rows,
            ),
        ]
    else:
        lines.append("- No annotation campaign was run in Loupe on this dataset.")
    return [*lines, ""]


def _pool(export: Export) -> list[str]:
    submitted = (
        CampaignTask.objects.filter(campaign__dataset=export.dataset, status=TaskStatus.SUBMITTED)
        .values("annotator")
        .distinct()
        .count()
    )
    workers = sum(1 for s in export.sets if s.kind == "human")
    included = (
        f"their rows are included under pseudonyms ({len(export.pseudonyms)} annotators: "
        "`annotator-1`, ...), only for submitted items"
        if export.include_annotators
        else "their individual rows are not included"
    )
    return [
        "## Annotator pool",
        "",
        f"- {submitted} Loupe annotator(s) submitted work in this dataset's campaigns; {included}.",
        f"- {workers} set(s) of kind `human` in the release.",
        "",
    ]


def _cell(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _figures_table(overall: dict, order: tuple[str, ...], labels: dict[str, str]) -> list[str]:
    """One row per measure: its name, value, bootstrap interval (when computed) and ``n``."""
    names = [name for name in order if name in overall]
    names += sorted(name for name in overall if name not in order)
    rows = []
    for name in names:
        figure = overall[name]
        interval = ""
        if figure.get("ci_low") is not None and figure.get("ci_high") is not None:
            level = figure.get("ci_level")
            interval = (f"{round(level * 100):g}% " if level else "") + (
                f"CI {_cell(figure['ci_low'])}–{_cell(figure['ci_high'])}"
            )
        label = labels.get(name)
        rows.append(
            (
                f"{label} (`{name}`)" if label else f"`{name}`",
                _cell(figure.get("value")),
                interval,
                figure.get("n", ""),
            )
        )
    return _table(("measure", "value", "interval", "n"), rows)


def _campaign_agreement(entry: dict) -> list[str]:
    name = entry.get("name") or entry["slug"]
    kind = CAMPAIGN_KINDS.get(entry["kind"], entry["kind"])
    lines = [f"### Campaign `{entry['slug']}` ({name}, {kind})", ""]
    agreement = entry["agreement"]
    unit = "documents" if entry["kind"] == "fam" else "items"
    compared = agreement.get("documents")
    state = (
        "stale: the annotations changed after this run"
        if agreement.get("stale")
        else "figures are current"
    )
    lines.append(f"{compared if compared is not None else 'No'} {unit} compared; {state}.")
    if entry["kind"] == "fam":
        order, labels = FAM_ORDER, FAM_LABELS
    else:
        order, labels = SPAN_ORDER, SPAN_MEASURE_LABELS
    return [*lines, "", *_figures_table(agreement.get("overall") or {}, order, labels), ""]


def _span_run_agreement(run: dict) -> list[str]:
    sets = ", ".join(f"`{slug}`" for slug in run.get("annotation_sets", []))
    lines = [
        f"### Annotation sets {sets} (scheme `{run.get('scheme')}`, partial matching at "
        f"IoU ≥ {run.get('min_iou', 0):g})",
        "",
    ]
    overall = run.get("overall") or {}
    return [*lines, *_figures_table(overall, SPAN_ORDER, SPAN_MEASURE_LABELS), ""]


def _agreement(export: Export) -> list[str]:
    summary = export.facts.get("agreement") or {}
    campaigns = summary.get("campaigns", [])
    computed = [entry for entry in campaigns if entry.get("agreement")]
    span_runs = summary.get("span_runs", [])
    lines = ["## Agreement", ""]
    if not computed and not span_runs:
        return [*lines, "No agreement was computed on this dataset (see `agreement.json`).", ""]
    lines += [
        "The overall figures of the latest run of each campaign and set of annotation sets; "
        "`agreement.json` has them with their exclusions and reasons.",
        "",
    ]
    for entry in computed:
        lines += _campaign_agreement(entry)
    for run in span_runs:
        lines += _span_run_agreement(run)
    missing = [entry["slug"] for entry in campaigns if not entry.get("agreement")]
    if missing:
        names = ", ".join(f"`{slug}`" for slug in missing)
        lines += [f"No agreement run yet for campaign(s) {names}.", ""]
    return lines


def datasheet_text(export: Export) -> str:
    """The datasheet of an export whose data members are written.

    Args:
        export: the export (its counts, facts, versions and sets are read).

    Returns:
        The Markdown text.
    """
    dataset = export.dataset
    lines = [
        f"# Datasheet: {dataset.name}",
        "",
        "A release of a dataset from Loupe. `manifest.json` gives the release's version, date "
        "and the SHA-256 of every file; the files' schemas are below.",
        "",
        *_what(export),
        *_how(export),
        *_pool(export),
        *_agreement(export),
        "## Licence",
        "",
        dataset.license or "Not stated by the dataset's source.",
        "",
        "## Files",
        "",
        "- `documents.jsonl`: one document per line: `id`, `category`, `sentences`, "
        "`references` (`label`, `sentences`), `meta`.",
        "- `systems.jsonl` and `outputs.jsonl`: the systems and their outputs (`system`, "
        "`document`, `sentences`, `extracted`, `method`, `confidences`).",
        "- `annotation_sets.jsonl`, `fams.jsonl` (`set`, `document`, `reference`, `annotator`, "
        "`facets`: `groups`, `label`, `note`) and `polytope.jsonl` (`set`, `system`, "
        "`document`, `annotator`, `no_errors`, `errors`: the error spans of every span "
        "scheme; `annotated_text` where the text annotated is not the output's, such as an "
        "official workbook's Target, which the offsets then index).",
        "- `workbooks/<set>/<system>.xlsx`: each PolyTope set in the official workbook layout.",
        "- `scores.jsonl`: per-document scores (`system`, `document`, `metric`, `value`).",
        "- `agreement.json`: agreement figures.",
        "",
        "### FAR-compatible files",
        "",
        FAR_SCHEMA,
    ]
    return "\n".join(lines)
