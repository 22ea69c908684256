// A system's page: its output versions (older ones stay readable), the version's upload report
// and its per-document scores, sortable here, each row linking to the document view.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import {
  bindControls,
  CATEGORY_LABELS,
  documentUrl,
  fixed,
  formControls,
  keepSortFocus,
  metricLabel,
  metricTitle,
  queryString,
  readParams,
  renderFacts,
  scoreCell,
  setSelect,
  showError,
  showFarFilters,
  sortHeader,
  visibleMetrics,
  writeParams,
} from "./leaderboard-format.js";

const DEFAULTS = { version: 0, k: 3, category: "", pr: false, sort: "", order: "" };
const root = document.getElementById("system-page");
const { dataset, system } = root.dataset;
const table = document.getElementById("doc-table");
const controls = formControls("controls");
const params = readParams(DEFAULTS);
let data = null;
let latestRequest = 0;

function drawVersions() {
  const latest = data.versions[0];
  const options = [el("option", `Latest (version ${latest.number})`, { value: "0" })];
  for (const v of data.versions) {
    options.push(el("option", `Version ${v.number} · ${when(v.created_at)} · ${counted(v.outputs, "output")}`, { value: String(v.number) }));
  }
  controls.version.replaceChildren(...options);
  setSelect(controls.version, params.version);
  const shown = data.versions.find((v) => v.number === data.version);
  const facts = [
    ["System", `${data.name} (${data.kind})`],
    ["Version", `${data.version} of ${data.versions.length}${data.version === latest.number ? " (latest, on the leaderboard)" : " (older: not on the leaderboard)"}`],
    ["Uploaded", `${when(shown.created_at)}${shown.uploaded_by ? ` by ${shown.uploaded_by}` : ""}`],
    ["Source", shown.source || "—"],
    ["Outputs", counted(shown.outputs, "document")],
  ];
  renderFacts(document.getElementById("version-facts"), facts);
  const report = shown.report || [];
  document.getElementById("report").hidden = report.length === 0;
  document.getElementById("report-intro").textContent =
    `${counted(report.length, "note")} from this upload, e.g. summary sentences mapped to document sentences with low confidence:`;
  document.getElementById("report-list").replaceChildren(...report.map((line) => el("li", line)));
}

function compare(key, direction, read = (doc) => doc[key]) {
  const sign = direction === "ascending" ? 1 : -1;
  return (a, b) => {
    const x = read(a);
    const y = read(b);
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1; // missing last
    if (y === null || y === undefined) return -1;
    return sign * (typeof x === "number" ? x - y : String(x).localeCompare(String(y)));
  };
}

function sortBy(key) {
  if (params.sort === key) params.order = params.order === "ascending" ? "descending" : "ascending";
  else params.order = key === "external_id" || key === "category" ? "ascending" : "descending";
  params.sort = key;
  writeParams(params, DEFAULTS);
  drawTable();
}

function documentRow(doc, metrics) {
  const row = el("tr", null, { "data-document": doc.external_id });
  const id = el("th", null, { scope: "row", class: "docid" });
  const query = queryString({ version: data.version, k: data.k, category: data.category });
  id.append(el("a", doc.external_id, { href: documentUrl(dataset, system, doc.external_id, query) }));
  row.append(id, el("td", doc.category ? CATEGORY_LABELS[doc.category] : "—"));
  for (const metric of metrics) row.append(scoreCell(metric, doc[metric]));
  if (data.polytope) row.append(polytopeDocumentCell(doc.polytope));
  return row;
}

// An output's PolyTope score (percent) and its errors; "not annotated" is not "clean".
function polytopeDocumentCell(p) {
  const cell = el("td", null, { class: "num", "data-metric": "polytope" });
  if (!p) {
    cell.classList.add("na");
    cell.append(el("span", "—", { class: "mean", "aria-hidden": "true" }), el("small", "not annotated", { class: "n" }));
    return cell;
  }
  cell.append(el("span", fixed(p.score, 2), { class: "mean" }));
  const errors = p.errors ? `${p.critical} C · ${p.major} M · ${p.minor} m` : "no errors";
  cell.append(el("small", `${errors} · ${counted(p.words, "word")}`, { class: "n" }));
  return cell;
}

// The pooled PolyTope score of the annotated outputs (not a mean of the rows above it).
function polytopeMeanCell() {
  const p = data.polytope;
  const cell = el("td", null, { class: "num", "data-metric": "polytope" });
  cell.append(el("span", fixed(p.score, 2), { class: "mean" }));
  if (p.ci_low !== null && p.ci_high !== null) cell.append(el("small", `${fixed(p.ci_low, 2)}–${fixed(p.ci_high, 2)}`, { class: "ci" }));
  cell.append(el("small", `pooled over ${p.n} annotated`, { class: "n" }));
  return cell;
}

// The means, each over the documents that have its score (FAR needs a FAM with a supported
// facet, ROUGE a reference): each cell says how many.
function meanRow(metrics) {
  const row = el("tr", null, { class: "means" });
  const head = el("th", "Mean", { scope: "row", colspan: 2, "aria-describedby": "mean-notes" });
  head.append(el("small", "over the documents with that score", { class: "muted" }));
  row.append(head);
  for (const metric of metrics) {
    const mean = data.means[metric];
    const cell = scoreCell(metric, mean ? mean.mean : null);
    const n = mean ? mean.n : 0;
    cell.append(el("small", `n = ${n}`, { class: "n", title: `${counted(n, "document")} with a ${metricLabel(metric)} score` }));
    row.append(cell);
  }
  if (data.polytope) row.append(polytopeMeanCell());
  return row;
}

// "demo-006 (its FAM has no supported facet)"; documents with the same reason are listed together
// (the first ten by name, then how many more).
function leftOutText(leftOut) {
  const byReason = new Map();
  for (const { external_id: id, reason } of leftOut) byReason.set(reason, [...(byReason.get(reason) || []), id]);
  return [...byReason]
    .map(([reason, ids]) => {
      const named = ids.slice(0, 10).join(", ") + (ids.length > 10 ? ` and ${ids.length - 10} more` : "");
      return ids.length === 1 ? `${named} (${reason})` : `${ids.length} documents (${reason}): ${named}`;
    })
    .join("; ");
}

// One line per set of columns whose means cover the same documents, naming those left out.
function drawMeanNotes(metrics) {
  const total = data.documents.length;
  const groups = new Map();
  for (const metric of metrics) {
    const mean = data.means[metric];
    const leftOut = mean ? mean.left_out : data.documents.map((d) => ({ external_id: d.external_id, reason: "no score" }));
    const key = JSON.stringify(leftOut);
    if (!groups.has(key)) groups.set(key, { leftOut, metrics: [] });
    groups.get(key).metrics.push(metric);
  }
  const lines = [...groups.values()].map(({ leftOut, metrics: columns }) => {
    const names = columns.map(metricLabel).join(", ");
    if (!leftOut.length) return el("li", `${names}: mean over all ${counted(total, "document")}.`);
    return el("li", `${names}: mean over ${total - leftOut.length} of ${counted(total, "document")}; left out: ${leftOutText(leftOut)}.`);
  });
  const p = data.polytope;
  if (p && total) {
    const missing = p.not_annotated.length;
    lines.push(
      el(
        "li",
        `PolyTope: ${fixed(p.score, 2)}, pooled over the words of the ${counted(p.n, "annotated output")} ` +
          `(${p.critical} critical, ${p.major} major, ${p.minor} minor errors; ${p.clean} clean)` +
          (missing ? `; ${counted(missing, "output")} not annotated, which is not the same as clean.` : "."),
      ),
    );
  }
  document.getElementById("mean-notes").replaceChildren(...(total ? lines : []));
}

function drawTable() {
  const metrics = visibleMetrics(data.metrics, params.pr, params.sort);
  const documents = [...data.documents];
  if (params.sort === "polytope" && data.polytope) {
    const score = (doc) => (doc.polytope ? doc.polytope.score : null);
    documents.sort(compare("polytope_score", params.order || "descending", score));
  } else if (params.sort && (params.sort === "external_id" || params.sort === "category" || metrics.includes(params.sort))) {
    documents.sort(compare(params.sort, params.order || "descending"));
  }
  const direction = (key) => (params.sort === key ? params.order || "descending" : null);
  keepSortFocus(table, () => {
    const head = el("tr");
    head.append(
      sortHeader("external_id", "Document", { direction: direction("external_id"), onSort: sortBy }),
      sortHeader("category", "Category", { direction: direction("category"), onSort: sortBy }),
      ...metrics.map((m) =>
        sortHeader(m, metricLabel(m), { title: metricTitle(m), direction: direction(m), onSort: sortBy, className: "num" }),
      ),
    );
    if (data.polytope) {
      head.append(sortHeader("polytope", metricLabel("polytope"), { title: metricTitle("polytope"), direction: direction("polytope"), onSort: sortBy, className: "num" }));
    }
    table.tHead.replaceChildren(head);
    table.tBodies[0].replaceChildren(...documents.map((doc) => documentRow(doc, metrics)));
    table.tFoot.replaceChildren(documents.length ? meanRow(metrics) : el("tr"));
  });
  drawMeanNotes(metrics);
}

function draw() {
  document.getElementById("title").textContent = data.name;
  document.title = `${data.name} on ${data.dataset} · Loupe`;
  const scope = data.category ? CATEGORY_LABELS[data.category] : "all categories";
  // Without a FAM there is no FAR: no k or category filter (a line says why), no k to name.
  const hasFams = Boolean(data.has_fams);
  showFarFilters(hasFams);
  document.getElementById("subtitle").textContent =
    `${data.kind} system on ${data.dataset} · version ${data.version}` + (hasFams ? ` · k = ${data.k}` : "");
  document.getElementById("count").textContent =
    `${counted(data.documents.length, "document")} with an output (${scope}).` +
    (hasFams && data.kind === "extractive" && !data.metrics.includes("far") ? ` No FAR scores at k = ${data.k} yet.` : "");
  drawVersions();
  drawTable();
}

async function load() {
  const request = ++latestRequest;
  root.setAttribute("aria-busy", "true");
  const query = queryString({ version: params.version, k: params.k, category: params.category }, DEFAULTS);
  const path = `/api/datasets/${encodeURIComponent(dataset)}/systems/${encodeURIComponent(system)}/scores/${query}`;
  try {
    const response = await api(path);
    if (request !== latestRequest) return;
    data = response;
    showError(document.getElementById("error"), "");
    draw();
    table.dataset.query = query;
  } catch (error) {
    if (request !== latestRequest) return;
    const what = error.status === 404 ? "No such system, version or dataset." : error.message;
    showError(document.getElementById("error"), `Could not load the scores: ${what}`);
  }
  root.setAttribute("aria-busy", "false");
}

bindControls(controls, params, DEFAULTS, (key) => {
  if (key === "pr") drawTable();
  else load();
});
load();
