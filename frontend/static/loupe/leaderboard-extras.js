// The leaderboard page's other parts: coverage and notes (a warning when systems cover different
// documents), download links, the server-rendered SVG plots and the human-judgment correlations.
import { el } from "./api.js";
import { CATEGORY_LABELS, coefficientCell, metricLabel, queryString, visibleMetrics } from "./leaderboard-format.js";
import { counted } from "./plural.js";

function base(dataset) {
  return `/api/datasets/${encodeURIComponent(dataset)}/leaderboard`;
}

// Documents in scope, how many every system covers, and every note the server wrote.
export function renderCoverage(envelope) {
  const scope = envelope.category ? `${CATEGORY_LABELS[envelope.category].toLowerCase()} documents` : "documents";
  let text = `${envelope.n_documents} ${scope} in scope · ${envelope.common_documents} covered by every system`;
  if (envelope.comparable) text += " · every system covers the same documents";
  if (envelope.common_only) text += " · means over the common documents only";
  document.getElementById("coverage").textContent = `${text}.`;
  const box = document.getElementById("notes");
  box.classList.toggle("warning", !envelope.comparable);
  document.getElementById("notes-heading").textContent = envelope.comparable
    ? "Notes"
    : "⚠ Systems are not compared over the same documents";
  document.getElementById("notes-list").replaceChildren(...envelope.notes.map((note) => el("li", note)));
  box.hidden = envelope.notes.length === 0 && envelope.comparable;
}

export function renderDownloads(dataset, params) {
  const filters = { category: params.category, k: params.k, common: params.common };
  for (const file of ["csv", "json"]) {
    document.getElementById(`download-${file}`).href = `${base(dataset)}/export/${queryString({ file, ...filters })}`;
  }
}

// The plots follow the category and k (not the sort or the common-documents switch); an image
// is only re-requested when its address changes.
export function renderPlots(dataset, params) {
  const query = queryString({ category: params.category, k: params.k });
  for (const img of document.querySelectorAll("#plots img[data-plot]")) {
    const src = `${base(dataset)}/plots/${img.dataset.plot}.svg${query}`;
    if (img.getAttribute("src") !== src) img.setAttribute("src", src);
  }
  const scope = params.category ? CATEGORY_LABELS[params.category] : "all documents";
  document.getElementById("plots-scope").textContent = `${scope}, k = ${params.k}`;
}

// One row per study, metric and level; the metrics follow the table's columns (P/R on demand).
export function renderCorrelations(correlations, showPrecisionRecall) {
  const section = document.getElementById("correlations");
  const shown = new Set(visibleMetrics([...new Set((correlations || []).map((c) => c.metric))], showPrecisionRecall));
  const items = (correlations || []).filter((c) => shown.has(c.metric));
  section.hidden = items.length === 0;
  if (section.hidden) return;
  const rows = items.map((c) => {
    const row = el("tr");
    const systems = counted(c.n_systems, "system");
    const n = c.level === "summary" ? `${systems}, ${counted(c.n_documents, "document")}` : systems;
    row.append(el("td", c.judgment), el("td", metricLabel(c.metric)), el("td", c.level), el("td", n));
    row.append(coefficientCell(c.pearson), coefficientCell(c.spearman), coefficientCell(c.kendall));
    return row;
  });
  document.querySelector("#corr-table tbody").replaceChildren(...rows);
}
