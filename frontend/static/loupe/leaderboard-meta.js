// The meta-evaluation section of the leaderboard page: every metric against each per-document
// human study (e.g. REALSumm's LitePyramid recall), at system level by subset of systems with
// 95% intervals over documents and at summary level, and a release's own ROUGE against Loupe's.
import { counted } from "./plural.js";
import { el } from "./api.js";
import { fixed, metricLabel } from "./leaderboard-format.js";
import { watch } from "./scroll-cue.js";

const SUBSET_LABELS = { all: "All", abstractive: "Abstractive", extractive: "Extractive" };

// A metric's name: a release's own scores ("realsumm:js-2") as released.
function label(metric) {
  return metric.includes(":") ? metric : metricLabel(metric);
}

function subsetLabel(subset) {
  return SUBSET_LABELS[subset] || subset.replace("top-", "Top ");
}

// A coefficient with its interval under it, or the reason it is undefined.
function intervalCell(result) {
  const cell = el("td", null, { class: "num" });
  if (!result || result.value === null || result.value === undefined) {
    cell.append(el("small", (result && result.reason) || "undefined", { class: "muted reason" }));
    return cell;
  }
  cell.append(el("span", fixed(result.value, 2), { class: "mean" }));
  if (result.low !== null && result.low !== undefined) {
    const title = "95% percentile-bootstrap interval over documents";
    cell.append(el("small", `${fixed(result.low, 2)}–${fixed(result.high, 2)}`, { class: "ci", title }));
  }
  return cell;
}

function studyTable(study, method) {
  const subsets = study.subsets.map((s) => s.subset);
  const rows = new Map(study.rows.map((r) => [`${r.metric}|${r.subset}|${r.level}`, r]));
  const metrics = [...new Set(study.rows.map((r) => r.metric))];
  const head = el("tr", null);
  head.append(el("th", "Metric", { scope: "col" }));
  for (const item of study.subsets) {
    head.append(el("th", `${subsetLabel(item.subset)} (${item.systems.length})`, { scope: "col", class: "num" }));
  }
  head.append(el("th", "Summary level (all)", { scope: "col", class: "num" }));
  const body = metrics.map((metric) => {
    const row = el("tr", null, { "data-metric": metric });
    row.append(el("th", label(metric), { scope: "row" }));
    for (const subset of subsets) row.append(intervalCell((rows.get(`${metric}|${subset}|system`) || {})[method]));
    row.append(intervalCell((rows.get(`${metric}|all|summary`) || {})[method]));
    return row;
  });
  const table = el("table", null, { class: "grid lb-table corr-table meta-table", "data-study": study.study });
  table.append(el("thead", null), el("tbody", null));
  table.tHead.append(head);
  table.tBodies[0].append(...body);
  const wrap = el("div", null, { class: "table-scroll", tabindex: "0", role: "region", "aria-label": `${study.study}: ${method}` });
  wrap.append(table);
  watch(wrap);
  return wrap;
}

function releasedRows(items) {
  return items.map((c) => {
    const row = el("tr", null, { "data-key": c.released_key });
    row.append(el("td", c.released_key), el("td", c.loupe_key || "—"), el("td", String(c.n), { class: "count" }));
    const values = [c.pearson, c.mean_abs_diff, c.mean_diff];
    for (const [value, digits] of values.map((v, i) => [v, i ? 4 : 3])) {
      row.append(el("td", value === null || value === undefined ? "—" : fixed(value, digits), { class: "num" }));
    }
    return row;
  });
}

// Draw the section from the envelope's meta_evaluation; `method` is the coefficient shown.
export function renderMetaEvaluation(envelope, method) {
  const section = document.getElementById("meta-evaluation");
  const block = envelope.meta_evaluation || {};
  section.hidden = !block.available;
  if (section.hidden) return;
  document.getElementById("meta-about").textContent = block.definition;
  const studies = document.getElementById("meta-studies");
  studies.replaceChildren(
    ...(block.studies || []).flatMap((study) => [
      el("h3", `${study.study}: ${counted(Object.keys(study.human_means).length, "judged system")}`),
      studyTable(study, method),
    ]),
  );
  const released = block.released || [];
  document.getElementById("meta-released").hidden = released.length === 0;
  document.getElementById("meta-released-about").textContent = block.released_definition;
  document.querySelector("#meta-released-table tbody").replaceChildren(...releasedRows(released));
}
