// PolyTope on the leaderboard page: the table's PolyTope and error-count cells, the error
// breakdown (a server-rendered stacked bar of subtypes, and per system a subtype table and a
// severity x label table) and PolyTope's correlations with the automatic metrics beside the
// figures of Huang et al. (2020), Table 4. All text goes in as text.
import { counted } from "./plural.js";
import { el } from "./api.js";
import {
  CATEGORY_LABELS,
  coefficientCell,
  fixed,
  metricLabel,
  queryString,
  SEVERITIES,
  severityText,
  visibleMetrics,
} from "./leaderboard-format.js";

let current = null; // the envelope the breakdown tables are drawn from

export function polytopeAvailable(envelope) {
  return Boolean(envelope.polytope && envelope.polytope.available);
}

// "89.45" with its CI "86.91–91.72" and "68 of 150 annotated"; "not annotated" without a cell.
export function polytopeCell(row) {
  const cell = el("td", null, { class: "num", "data-metric": "polytope" });
  const p = row.polytope;
  if (!p) {
    cell.classList.add("na");
    cell.append(el("span", "—", { class: "mean", "aria-hidden": "true" }), el("small", "not annotated", { class: "n" }));
    return cell;
  }
  cell.append(el("span", fixed(p.score, 2), { class: "mean", title: `${fixed(p.score, 3)} (pooled over ${counted(p.words, "word")}, penalty ${p.penalty})` }));
  if (p.ci_low !== null && p.ci_high !== null) {
    cell.append(el("small", `${fixed(p.ci_low, 2)}–${fixed(p.ci_high, 2)}`, { class: "ci", title: "95% confidence interval (bootstrap of the pooled ratio)" }));
  }
  const annotated = `${p.n} of ${p.outputs} annotated`;
  cell.append(el("small", annotated, { class: "n", title: `${p.n} of the system's ${counted(p.outputs, "output")} in scope are annotated; the score pools their ${counted(p.words, "word")}` }));
  return cell;
}

// "57 C · 69 M · 1 m", read out in full ("57 critical, 69 major, 1 minor").
export function severityCell(row) {
  const cell = el("td", null, { class: "num severities", "data-metric": "polytope-errors" });
  const p = row.polytope;
  if (!p) {
    cell.classList.add("na");
    cell.append(el("span", "—", { "aria-hidden": "true" }), el("span", "not annotated", { class: "sr-only" }));
    return cell;
  }
  const { shown, spoken } = severityText(p);
  cell.append(el("span", shown, { class: "mean", "aria-hidden": "true" }), el("span", spoken, { class: "sr-only" }));
  cell.append(el("small", `${counted(p.errors, "error")} · ${p.clean} clean`, { class: "n" }));
  return cell;
}

function base(dataset) {
  return `/api/datasets/${encodeURIComponent(dataset)}/leaderboard`;
}

function annotatedRows(envelope) {
  return envelope.systems.filter((row) => row.polytope);
}

function sources(p) {
  const parts = Object.entries(p.sources || {}).map(([kind, n]) => `${n} ${kind}`);
  return parts.length ? parts.join(", ") : "none";
}

// The subtypes and labels come in the official order as lists (a stored snapshot's objects do
// not keep their keys' order).
function drawSubtypes(p, order) {
  const rows = order.subtypes.map(({ name, aspect }) => {
    const tr = el("tr", null, { "data-subtype": name });
    tr.append(el("th", name, { scope: "row" }), el("td", aspect), el("td", p.breakdown.subtypes[name] || 0, { class: "num" }));
    return tr;
  });
  const total = el("tr", null, { class: "total" });
  total.append(el("th", "All subtypes", { scope: "row" }), el("td", ""), el("td", p.breakdown.total, { class: "num" }));
  document.querySelector("#subtype-table tbody").replaceChildren(...rows, total);
}

function drawSeverities(p, name, order) {
  const table = document.getElementById("severity-table");
  const labels = order.labels;
  const head = el("tr");
  head.append(el("th", "Severity", { scope: "col" }), ...labels.map((label) => el("th", label, { scope: "col", class: "num" })), el("th", "All labels", { scope: "col", class: "num" }));
  table.tHead.replaceChildren(head);
  const rows = SEVERITIES.map(([key, title]) => {
    const counts = p.breakdown.severity_by_label[key];
    const tr = el("tr", null, { "data-severity": key });
    tr.append(el("th", title, { scope: "row" }), ...labels.map((label) => el("td", counts[label], { class: "num", "data-label": label })));
    tr.append(el("td", p.breakdown.severities[key], { class: "num total" }));
    return tr;
  });
  const total = el("tr", null, { class: "total" });
  total.append(el("th", "All severities", { scope: "row" }), ...labels.map((label) => el("td", p.breakdown.labels[label], { class: "num" })));
  total.append(el("td", p.breakdown.total, { class: "num total" }));
  table.tBodies[0].replaceChildren(...rows, total);
  document.getElementById("severity-caption").textContent = `${name}: errors by severity (rows) and syntactic label (columns)`;
}

function drawBreakdown(envelope, select) {
  const rows = annotatedRows(envelope);
  const row = rows.find((r) => r.system === select.value) || rows[0];
  const p = row.polytope;
  const aspects = ["Accuracy", "Fluency"].map((aspect) => `${aspect} ${p.breakdown.aspects[aspect] || 0}`).join(", ");
  document.getElementById("breakdown-summary").textContent =
    `${row.name}: ${counted(p.errors, "error")} in ${counted(p.n, "annotated output")} (${p.clean} clean; ${counted(p.words, "word")}; penalty ${fixed(p.penalty, 1)}). ` +
    `By aspect: ${aspects}. Annotations scored: ${sources(p)}.`;
  document.getElementById("subtype-caption").textContent = `${row.name}: errors by subtype`;
  drawSubtypes(p, envelope.polytope);
  drawSeverities(p, row.name, envelope.polytope);
}

// The breakdown section: the plot follows the category filter; the tables the chosen system.
export function renderPolytope(envelope, dataset, params) {
  const section = document.getElementById("polytope");
  const rows = polytopeAvailable(envelope) ? annotatedRows(envelope) : [];
  section.hidden = rows.length === 0;
  renderPolytopeCorrelations(envelope, params.pr);
  renderFaithfulnessCorrelations(envelope, params.pr);
  if (section.hidden) return;
  const scope = params.category ? CATEGORY_LABELS[params.category] : "all documents";
  document.getElementById("polytope-scope").textContent = scope;
  document.getElementById("polytope-about").textContent =
    "Scores are 100 × (1 − penalty / words), pooled over each system's annotated outputs (critical errors weigh 5, " +
    "major 2.5, minor 0.5), with a 95% bootstrap interval of that ratio. Only annotated outputs count: an output " +
    "nobody annotated is not counted as clean. Where an output has a gold (adjudicated) and a released " +
    "annotation, the gold one is scored.";
  const img = document.getElementById("polytope-plot");
  const src = `${base(dataset)}/plots/polytope-subtypes.svg${queryString({ category: params.category, k: params.k })}`;
  if (img.getAttribute("src") !== src) img.setAttribute("src", src);
  const select = document.getElementById("breakdown-system");
  const chosen = select.value;
  select.replaceChildren(...rows.map((row) => el("option", `${row.name} (${row.polytope.n} annotated)`, { value: row.system })));
  if (rows.some((row) => row.system === chosen)) select.value = chosen;
  if (current === null) select.addEventListener("change", () => drawBreakdown(current, select));
  current = envelope;
  drawBreakdown(envelope, select);
}

// One row per metric and level: n, the three coefficients and, when given, the paper's r.
export function correlationRows(items, paper) {
  return items.map((c) => {
    const row = el("tr", null, { "data-metric": c.metric, "data-level": c.level });
    const n = c.level === "system" ? counted(c.n, "system") : `${counted(c.n, "output")} (${counted(c.n_systems, "system")})`;
    row.append(el("td", metricLabel(c.metric)), el("td", c.level), el("td", n, { class: "count" }));
    row.append(coefficientCell(c.pearson), coefficientCell(c.spearman), coefficientCell(c.kendall));
    if (paper) {
      const published = ((paper.pearson || {})[c.level] || {})[c.metric];
      row.append(el("td", published === undefined ? "—" : fixed(published, 2), { class: "num paper" }));
    }
    return row;
  });
}

function shownCorrelations(all, showPrecisionRecall) {
  const shown = new Set(visibleMetrics([...new Set(all.map((c) => c.metric))], showPrecisionRecall));
  return all.filter((c) => shown.has(c.metric));
}

function counts(items) {
  const instance = items.find((c) => c.level === "instance");
  return instance ? [instance.n_systems, instance.n] : [0, 0];
}

// PolyTope against each automatic metric, with n, beside the paper's Pearson r where it has one.
export function renderPolytopeCorrelations(envelope, showPrecisionRecall) {
  const section = document.getElementById("polytope-correlations");
  const items = shownCorrelations((envelope.polytope && envelope.polytope.correlations) || [], showPrecisionRecall);
  section.hidden = items.length === 0;
  if (section.hidden) return;
  const paper = envelope.polytope.paper;
  const [systems, outputs] = counts(items);
  document.getElementById("pt-corr-about").textContent =
    `Pearson r (with Spearman ρ and Kendall τ) between PolyTope and each automatic metric: at system level one point per ` +
    `annotated system (its pooled PolyTope score against the metric's mean over its annotated outputs), at instance level ` +
    `one point per annotated output. Here ${systems} system${systems === 1 ? " is" : "s are"} annotated, with ${counted(outputs, "output")} ` +
    `in all. ${paper.source} reports r over ${paper.n_systems} systems and ${paper.n_outputs.toLocaleString("en")} ` +
    `annotated outputs; with other systems and far fewer outputs annotated these figures differ from the paper's, and a ` +
    `system-level r needs at least 3 annotated systems. They are what Loupe computes from this dataset's annotations, ` +
    `not a reproduction of the paper's Table 4.`;
  document.querySelector("#pt-corr-table tbody").replaceChildren(...correlationRows(items, paper));
}

// The XSum annotators' faithfulness against each automatic metric, at system and instance level.
export function renderFaithfulnessCorrelations(envelope, showPrecisionRecall) {
  const section = document.getElementById("faith-correlations");
  const block = envelope.faithfulness || {};
  const items = shownCorrelations(block.correlations || [], showPrecisionRecall);
  section.hidden = items.length === 0;
  if (section.hidden) return;
  const [systems, outputs] = counts(items);
  document.getElementById("faith-corr-about").textContent =
    `${block.definition} Correlations with each automatic metric: at system level one point per system (its mean ` +
    `faithfulness against the metric's mean over the same outputs), at instance level one point per judged output; ` +
    `here ${counted(systems, "system")} and ${counted(outputs, "output")}.`;
  document.querySelector("#faith-corr-table tbody").replaceChildren(...correlationRows(items, null));
}
