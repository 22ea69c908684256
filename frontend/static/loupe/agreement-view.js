// The agreement pages' drawing, for a FAM campaign's result and a span run's result alike:
// both are first made one shape (`normalizeResult`), then drawn as tables of figures with their
// bootstrap intervals (overall, per system, per annotator pair, per document), the list of the
// lowest-agreement documents linked to their adjudication, the split with and without
// suggestions, and the conventions. DOM builders only; text goes in with textContent.
import { counted } from "./plural.js";
import { el } from "./api.js";
import { CATEGORY_LABELS, fixed, keepSortFocus, sortHeader } from "./leaderboard-format.js";
import { watch } from "./scroll-cue.js";

// Names of the measures, for both kinds of result (a result's own label wins).
export const MEASURE_LABELS = {
  jaccard_union: "Jaccard, support sentences",
  jaccard_groups: "Jaccard, groups",
  f1_union: "F1, support sentences",
  f1_groups: "F1, groups (best match)",
  alpha_masi_union: "α (MASI), support sentences",
  alpha_masi_groups: "α (MASI), groups",
  category_kappa: "κ, document category",
  category_alpha: "α, document category",
  span_f1_exact: "Span F1, exact",
  span_f1_partial: "Span F1, partial",
  kappa_type: "κ, error type",
  alpha_type: "α, error type",
  kappa_label: "κ, label",
  alpha_label: "α, label",
  kappa_severity: "κ, severity",
  alpha_severity: "α, severity",
  score_alpha_interval: "α, segment score",
  score_abs_difference: "Mean |score difference|",
  score_pearson: "Pearson r, segment score",
};

// Points on the score scale, not agreement coefficients: two decimals.
const POINTS = new Set(["score_abs_difference"]);

export const measureLabel = (key, label) => label || MEASURE_LABELS[key] || key;

// Measures in the order above (a stored result's objects may come back in another order);
// unknown ones after them, as they came.
const ORDER = Object.keys(MEASURE_LABELS);
const ordered = (keys) => [...keys].sort((a, b) => (ORDER.indexOf(a) + 1 || ORDER.length + 1) - (ORDER.indexOf(b) + 1 || ORDER.length + 1));

const isFigure = (value) => value && typeof value === "object" && "value" in value;

// A figure's value as text: three decimals (two for score points); "—" when undefined.
export function valueText(key, value) {
  return fixed(value, POINTS.has(key) ? 2 : 3);
}

// A figure's interval as "[0.512, 0.634]" with its level, or "".
export function ciText(key, figure) {
  if (!figure || figure.ci_low === null || figure.ci_low === undefined || figure.ci_high === null || figure.ci_high === undefined) return "";
  const level = figure.ci_level ? `${Math.round(figure.ci_level * 100)}% ` : "";
  return `${level}CI ${valueText(key, figure.ci_low)}–${valueText(key, figure.ci_high)}`;
}

// The result, whatever its kind, as {kind, measures, pairs, documents, lowest, perSystem,
// suggestions, conventions, counts, annotators}. measures: [{key, label, description, overall}];
// pairs: [{a, b, figures: {key: figure}}]; documents: [{id, external_id, category, system,
// output, annotators, figures: {key: figure}}].
export function normalizeResult(kind, result) {
  if (!result) return null;
  if (result.measures) {
    const keys = ordered(Object.keys(result.measures));
    const measures = keys.map((key) => {
      const m = result.measures[key] || {};
      return { key, label: measureLabel(key, m.label), description: m.description || "", overall: m.overall || null };
    });
    const pairs = new Map();
    for (const key of keys) {
      for (const entry of result.measures[key].per_pair || []) {
        const [a, b] = entry.annotators || [entry.a, entry.b];
        const id = `${a}\u0000${b}`;
        if (!pairs.has(id)) pairs.set(id, { a, b, figures: {} });
        pairs.get(id).figures[key] = entry;
      }
    }
    const documents = (result.documents || []).map((doc) => ({
      id: doc.id ?? doc.document_id,
      external_id: doc.external_id ?? doc.document,
      category: doc.category || "",
      annotators: doc.annotators || [],
      figures: Object.fromEntries(keys.filter((key) => key in doc).map((key) => [key, isFigure(doc[key]) ? doc[key] : { value: doc[key] }])),
    }));
    return {
      kind: kind || "fam",
      measures,
      pairs: [...pairs.values()],
      documents,
      lowest: result.lowest || [],
      perSystem: null,
      suggestions: result.suggestions || null,
      conventions: result.conventions || {},
      counts: result.counts || null,
      annotators: result.annotators || [],
      skipped: result.skipped || {},
    };
  }
  const overall = result.overall || {};
  const skipped = result.skipped || {};
  const keys = ordered(Object.keys(overall));
  const measures = keys.map((key) => ({ key, label: measureLabel(key), description: "", overall: overall[key] }));
  const pairs = (result.per_pair || []).map((entry) => {
    const [a, b] = entry.annotators || [entry.a, entry.b];
    return { a, b, items: entry.items, figures: Object.fromEntries(keys.filter((key) => isFigure(entry[key])).map((key) => [key, entry[key]])) };
  });
  const documents = (result.per_item || []).map((item) => ({
    id: item.document_id ?? null,
    external_id: item.document,
    system: item.system || "",
    output: item.output,
    annotators: item.annotators || [],
    figures: Object.fromEntries(keys.filter((key) => isFigure(item[key])).map((key) => [key, item[key]])),
  }));
  return {
    kind: kind || "spans",
    measures,
    pairs,
    documents,
    lowest: result.lowest || [],
    perSystem: result.per_system || null,
    suggestions: null,
    conventions: result.conventions || {},
    counts: result.counts || null,
    annotators: [],
    skipped,
  };
}

// A cell with a figure's value, its interval underneath, and why it is undefined (`quiet`:
// the reason in the cell's title only, for tables where it would repeat).
export function figureCell(key, figure, { quiet = false } = {}) {
  const td = el("td", null, { class: "num", "data-measure": key });
  if (!figure || figure.value === null || figure.value === undefined) {
    const why = (figure && figure.reason) || "undefined";
    td.append(el("span", "—", { class: "mean", "aria-hidden": "true" }));
    if (quiet) {
      td.title = why;
      td.append(el("span", why, { class: "sr-only" }));
    } else td.append(el("small", why, { class: "why" }));
    return td;
  }
  td.append(el("span", valueText(key, figure.value), { class: "mean" }));
  const ci = ciText(key, figure);
  if (ci) td.append(el("small", ci, { class: "ci" }));
  else if (figure.ci_reason) td.append(el("small", `no CI: ${figure.ci_reason}`, { class: "why" }));
  return td;
}

// The measures that have a value somewhere (not skipped by the run as a whole).
export const shownMeasures = (data) => data.measures.filter((m) => !(m.key in data.skipped));

// The overall table: one row per measure with its value, interval, units and exclusions.
export function overallRows(data) {
  return shownMeasures(data).map((m) => {
    const tr = el("tr", null, { "data-measure": m.key });
    const th = el("th", null, { scope: "row" });
    th.append(el("span", m.label));
    if (m.description) th.title = m.description;
    const f = m.overall || {};
    const n = f.n === undefined ? "—" : String(f.n);
    const excluded = f.excluded ? `${f.excluded} left out` : "";
    tr.append(th, figureCell(m.key, f), el("td", n, { class: "num" }), el("td", [excluded, f.reason && f.value !== null ? f.reason : ""].filter(Boolean).join("; "), { class: "why" }));
    return tr;
  });
}

// The measures the run did not compute at all, with why: "" when there are none.
export function skippedText(data) {
  const entries = Object.entries(data.skipped || {});
  if (!entries.length) return "";
  return `Not computed: ${entries.map(([key, why]) => `${measureLabel(key)} (${why})`).join("; ")}.`;
}

// A table's body of rows × measures: rows [{head: Node|string, figures, attrs}].
export function matrix(table, measures, rows, { headLabel }) {
  const head = el("tr");
  head.append(el("th", headLabel, { scope: "col" }), ...measures.map((m) => el("th", m.label, { scope: "col", class: "num", title: m.description || m.key })));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(
    ...rows.map((row) => {
      const tr = el("tr", null, row.attrs || {});
      const th = el("th", null, { scope: "row" });
      th.append(typeof row.head === "string" ? document.createTextNode(row.head) : row.head);
      tr.append(th, ...measures.map((m) => figureCell(m.key, row.figures[m.key])));
      return tr;
    }),
  );
}

// Per annotator pair.
export function drawPairs(table, data) {
  const measures = shownMeasures(data);
  const rows = data.pairs.map((pair) => ({
    head: `${pair.a} – ${pair.b}${pair.items !== undefined ? ` (${counted(pair.items, "item")})` : ""}`,
    figures: pair.figures,
    attrs: { "data-pair": `${pair.a}|${pair.b}` },
  }));
  matrix(table, measures, rows, { headLabel: "Annotators" });
}

// Per system (span runs), by name.
export function drawSystems(table, data) {
  const measures = shownMeasures(data);
  const rows = Object.entries(data.perSystem || {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([system, figures]) => ({ head: system, figures, attrs: { "data-system": system } }));
  matrix(table, measures, rows, { headLabel: "System" });
}

// The lowest-agreement documents, each linked to its adjudication page when `adjudicationUrl`
// (document id -> URL) is given.
export function lowestItems(data, adjudicationUrl) {
  if (!data.lowest.length) return [el("li", "No document has a defined value.", { class: "muted" })];
  return data.lowest.map((row) => {
    const li = el("li", null, { "data-document": String(row.document_id ?? "") });
    const name = `${row.external_id ?? row.document_id}${row.system ? ` · ${row.system}` : ""}`;
    if (adjudicationUrl && row.document_id !== undefined && row.document_id !== null) {
      li.append(el("a", name, { href: adjudicationUrl(row.document_id), class: "docid" }));
    } else li.append(el("span", name, { class: "docid" }));
    li.append(document.createTextNode(` ${measureLabel(row.measure)} ${valueText(row.measure, row.value)}`));
    return li;
  });
}

// Per document: sortable by any measure (lowest first by default), shown `limit` at a time.
export function documentTable(table, data, { adjudicationUrl, sortKey, more }) {
  const measures = shownMeasures(data).filter((m) => data.documents.some((doc) => doc.figures[m.key]));
  const state = { sort: sortKey && measures.some((m) => m.key === sortKey) ? sortKey : (measures[0] || {}).key, descending: false, limit: 50 };
  const spans = data.kind === "spans";
  const systems = data.documents.some((doc) => doc.system); // hidden on system-blind campaigns
  const valueOf = (doc) => {
    const f = doc.figures[state.sort];
    return f && typeof f.value === "number" ? f.value : null;
  };
  function draw() {
    keepSortFocus(table, () => {
      const head = el("tr");
      head.append(el("th", systems ? "Document · system" : "Document", { scope: "col" }));
      if (!spans) head.append(el("th", "Category", { scope: "col" }));
      head.append(el("th", "Annotators", { scope: "col" }));
      for (const m of measures) {
        head.append(
          sortHeader(m.key, m.label, {
            title: m.description || m.key,
            className: "num",
            direction: state.sort === m.key ? (state.descending ? "descending" : "ascending") : null,
            onSort: (key) => {
              state.descending = state.sort === key ? !state.descending : false;
              state.sort = key;
              draw();
            },
          }),
        );
      }
      table.tHead.replaceChildren(head);
      const sorted = [...data.documents].sort((a, b) => {
        const x = valueOf(a);
        const y = valueOf(b);
        if (x === null || y === null) return x === null && y === null ? 0 : x === null ? 1 : -1;
        return state.descending ? y - x : x - y;
      });
      const rows = sorted.slice(0, state.limit).map((doc) => {
        const tr = el("tr", null, { "data-document": String(doc.id ?? "") });
        const th = el("th", null, { scope: "row", class: "docid" });
        const name = `${doc.external_id ?? doc.id}${doc.system ? ` · ${doc.system}` : ""}`;
        if (adjudicationUrl && doc.id !== null && doc.id !== undefined) th.append(el("a", name, { href: adjudicationUrl(doc.id) }));
        else th.textContent = name;
        tr.append(th);
        if (!spans) tr.append(el("td", CATEGORY_LABELS[doc.category] || doc.category || "—"));
        tr.append(el("td", Array.isArray(doc.annotators) ? doc.annotators.join(", ") : String(doc.annotators)));
        for (const m of measures) tr.append(figureCell(m.key, doc.figures[m.key], { quiet: true }));
        return tr;
      });
      table.tBodies[0].replaceChildren(...rows);
      more.hidden = sorted.length <= state.limit;
      more.textContent = `Show ${Math.min(50, sorted.length - state.limit)} more (${sorted.length - state.limit} not shown)`;
    });
  }
  more.onclick = () => {
    state.limit += 50;
    draw();
  };
  draw();
}

const human = (key) => key.replace(/_/g, " ");

function plain(value, key = "") {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") {
    if (key.includes("second")) return `${fixed(value, 1)} s`;
    return Number.isInteger(value) ? String(value) : fixed(value, 3);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (isFigure(value)) return `${plain(value.value, key)}${value.ci_low !== undefined && value.ci_low !== null ? ` [${plain(value.ci_low, key)}, ${plain(value.ci_high, key)}]` : ""}${value.n !== undefined ? ` (n = ${value.n})` : ""}`;
  if (Array.isArray(value)) return value.map((v) => plain(v, key)).join(", ");
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${human(k)}: ${plain(v, k)}`).join("; ");
  return String(value);
}

const GROUPS = {
  shown: "Every annotator saw suggestions",
  not_shown: "No annotator saw suggestions",
  mixed: "Some annotators saw suggestions",
};
const SHARES = {
  accept_rate: "Accepted, of the suggestions shown",
  accepted_kept: "Accepted and still in the annotator's FAM",
  accepted_in_gold: "Accepted and in the gold (adjudicated documents)",
};
const percent = (value) => (typeof value === "number" ? `${fixed(value * 100, 1)}%` : "—");
const seconds = (value) => (typeof value === "number" ? `${fixed(value, 1)} s` : "—");

// The split with and without suggestions: per group of documents (every annotator saw
// suggestions, none did, some did) the documents and tasks, the mean measures with their
// intervals and the time per task; then how many suggestions were shown and accepted, and
// the share of accepted ones kept by the annotator and found in the gold.
export function drawSuggestions(container, suggestions) {
  if (!suggestions || typeof suggestions !== "object" || !Object.keys(suggestions).length) {
    container.replaceChildren(el("p", "This campaign showed no suggestions, or the run did not split by them.", { class: "muted" }));
    return;
  }
  const groups = Object.keys(GROUPS).filter((key) => suggestions[key]);
  const measures = [...new Set(groups.flatMap((key) => Object.keys(suggestions[key]).filter((k) => isFigure(suggestions[key][k]))))];
  const table = el("table", null, { class: "grid ag-table", id: "suggestions-table" });
  const head = el("tr");
  head.append(
    el("th", "Documents", { scope: "col" }),
    el("th", "Documents", { scope: "col", class: "num" }),
    el("th", "Tasks", { scope: "col", class: "num" }),
    ...measures.map((key) => el("th", measureLabel(key), { scope: "col", class: "num" })),
    el("th", "Time per task (median)", { scope: "col", class: "num" }),
    el("th", "(mean)", { scope: "col", class: "num" }),
  );
  head.firstChild.textContent = "Group";
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  for (const key of groups) {
    const group = suggestions[key];
    const tr = el("tr", null, { "data-group": key });
    tr.append(el("th", GROUPS[key], { scope: "row" }), el("td", group.documents ?? "—", { class: "num" }), el("td", group.tasks ?? "—", { class: "num" }));
    if (group.documents === 0) {
      // An empty group has no figures: one cell says why it is empty.
      const cell = el("td", null, { colspan: String(measures.length + 2) });
      cell.append(el("small", `No document: ${group.reason || "no compared document is in this group"}.`, { class: "why" }));
      tr.append(cell);
    } else {
      tr.append(
        ...measures.map((m) => figureCell(m, group[m], { quiet: true })),
        el("td", seconds(group.seconds_per_task_median), { class: "num" }),
        el("td", seconds(group.seconds_per_task_mean), { class: "num" }),
      );
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const scroll = el("div", null, { class: "table-scroll" });
  scroll.append(table);
  watch(scroll);
  const list = el("dl", null, { class: "facts", id: "suggestion-facts" });
  if ("suggestions_shown" in suggestions) list.append(el("dt", "Suggestions shown"), el("dd", String(suggestions.suggestions_shown)));
  if ("suggestions_accepted" in suggestions) list.append(el("dt", "Suggestions accepted"), el("dd", String(suggestions.suggestions_accepted)));
  for (const [key, label] of Object.entries(SHARES)) {
    const share = suggestions[key];
    if (!share) continue;
    const text = share.value === null || share.value === undefined ? `— (${share.reason || "undefined"})` : `${percent(share.value)} of ${share.n}`;
    list.append(el("dt", label), el("dd", text, { "data-share": key }));
  }
  container.replaceChildren(...(groups.length ? [scroll] : []), list);
}

// The conventions the figures were computed with, as a definition list.
export function conventionItems(conventions) {
  const list = el("dl");
  for (const [key, value] of Object.entries(conventions || {})) list.append(el("dt", human(key)), el("dd", plain(value, key)));
  return list;
}
