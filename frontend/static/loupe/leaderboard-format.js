// Shared helpers of the leaderboard pages: metric names, x100 numbers, view parameters kept in
// the URL's query string, sortable column headers and the facet categories.
import { el } from "./api.js";

export const FAR_FAMILY = ["far", "sar", "sap", "saf1"];
// A ROUGE key: type, then "_nostem" (no stemming), "_split" (ROUGE-Lsum over NLTK Punkt's
// sentences), then the measure (scoring/metrics/rouge/config.py names them).
const ROUGE_KEY = /^rouge([1-9]|Lsum|L)(_nostem)?(_split)?_([prf])$/;
// Human scores from annotations, shown as columns like the metrics (always visible).
const HUMAN = { faithfulness: ["Faithful", "Faithfulness (share of words outside the annotators' hallucinated spans)"] };
// Estimates of a human score from a fitted model, shown beside it and labelled as estimates.
const ESTIMATES = {
  autofar_l: ["AutoFAR-L (estimate)", "AutoFAR-L: FAR estimated from machine FAMs by a fitted regression (an estimate, not human FAR; extractive systems only)"],
};

// APES (Eyal et al. 2019): share of the reference's cloze questions answered from the summary.
const APES = {
  apes: ["APES", "APES, entity matching: share of the reference's cloze questions (its named entities masked) the summary answers"],
  apes_embedding: ["APES emb.", "APES, embedding answerer (all-MiniLM-L6-v2, untrained for cloze questions): share of the reference's cloze questions the summary answers"],
};

const PARTS = { p: ["P", "precision"], r: ["R", "recall"], f: ["F", "F1"] };
const FAR_NAMES = {
  far: ["FAR", "facet-aware recall"],
  sar: ["SAR", "support recall"],
  sap: ["SAP", "support precision"],
  saf1: ["SAF1", "support F1"],
};

export const CATEGORY_LABELS = {
  noise: "Noise",
  low: "Low abstraction",
  high: "High abstraction",
  "low+high": "Low + high",
};

// The pages' addresses: a system on a dataset, and its output for one document.
export function systemUrl(dataset, system) {
  return `/leaderboards/${encodeURIComponent(dataset)}/systems/${encodeURIComponent(system)}/`;
}

export function documentUrl(dataset, system, externalId, query = "") {
  return `${systemUrl(dataset, system)}documents/${encodeURIComponent(externalId)}/${query}`;
}

// "FAR" / "R-1 F" for a column, and a longer name for titles and screen readers.
export function metricLabel(metric) {
  if (metric === "polytope") return "PolyTope";
  if (HUMAN[metric]) return HUMAN[metric][0];
  if (ESTIMATES[metric]) return ESTIMATES[metric][0];
  if (APES[metric]) return APES[metric][0];
  if (FAR_NAMES[metric]) return FAR_NAMES[metric][0];
  const rouge = ROUGE_KEY.exec(metric);
  if (!rouge) return metric;
  const marks = [rouge[2] ? "ns" : "", rouge[3] ? "split" : ""].filter(Boolean);
  return `R-${rouge[1]} ${PARTS[rouge[4]][0]}${marks.length ? ` (${marks.join(", ")})` : ""}`;
}

export function metricTitle(metric) {
  if (metric === "polytope") return "PolyTope score (percent, pooled over the annotated outputs' words)";
  if (HUMAN[metric]) return HUMAN[metric][1];
  if (ESTIMATES[metric]) return ESTIMATES[metric][1];
  if (APES[metric]) return APES[metric][1];
  if (FAR_NAMES[metric]) return `${FAR_NAMES[metric][0]} (${FAR_NAMES[metric][1]})`;
  const rouge = ROUGE_KEY.exec(metric);
  if (!rouge) return metric;
  const how = [rouge[2] ? "no stemming" : "Porter stemming"];
  if (rouge[1] === "Lsum") how.push(rouge[3] ? "sentences by NLTK Punkt" : "sentences on lines");
  return `ROUGE-${rouge[1]} ${PARTS[rouge[4]][1]} (${how.join("; ")})`;
}

// The columns to draw: the FAR family and ROUGE F always, ROUGE P and R when asked for, and
// the column the view is sorted by in any case.
export function visibleMetrics(metrics, showPrecisionRecall, sorted = null) {
  const rougeF = (m) => ROUGE_KEY.test(m) && m.endsWith("_f");
  const shown = (m) => showPrecisionRecall || m === sorted || FAR_FAMILY.includes(m) || rougeF(m) || m in HUMAN || m in ESTIMATES || m in APES;
  return metrics.filter(shown);
}

// A number with `digits` decimals, rounded as toFixed rounds, but never "-0.00": a value that
// rounds to zero is shown without a sign. "—" when missing or not a finite number.
export function fixed(value, digits) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "—";
  const text = value.toFixed(digits);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

// A fraction in [0, 1] as x100 with one decimal ("54.8"); "—" when missing.
export function x100(value) {
  return typeof value === "number" ? fixed(value * 100, 1) : "—";
}

// "p = 0.045", or "p < 0.001" for tiny values.
export function pText(p) {
  if (p === null || p === undefined) return "p = —";
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

// A score cell: the mean x100 and, for leaderboard cells, the 95% CI underneath.
// A correlation coefficient's cell: the value with its p below, or the reason it is undefined.
// result: {value, p_value, reason} (a coefficient of the API's correlations), or null.
export function coefficientCell(result) {
  const cell = el("td", null, { class: "num" });
  if (!result || result.value === null || result.value === undefined) {
    cell.append(el("small", (result && result.reason) || "undefined", { class: "muted reason" }));
    return cell;
  }
  cell.append(el("span", fixed(result.value, 2), { class: "mean" }));
  if (result.p_value !== null && result.p_value !== undefined) cell.append(el("small", pText(result.p_value), { class: "ci" }));
  return cell;
}

export function scoreCell(metric, value, ci) {
  const cell = el("td", null, { class: "num", "data-metric": metric });
  if (value === null || value === undefined) {
    cell.classList.add("na");
    cell.append(el("span", "—", { class: "mean", "aria-hidden": "true" }), el("span", "no score", { class: "sr-only" }));
    return cell;
  }
  cell.append(el("span", x100(value), { class: "mean" }));
  if (ci) {
    const text = `${x100(ci[0])}–${x100(ci[1])}`;
    cell.append(el("small", text, { class: "ci", title: "95% confidence interval" }));
  }
  return cell;
}

// The view's parameters from the query string, with defaults; `numbers` are parsed as ints.
export function readParams(defaults) {
  const query = new URLSearchParams(window.location.search);
  const params = {};
  for (const [key, fallback] of Object.entries(defaults)) {
    const raw = query.get(key);
    if (raw === null) params[key] = fallback;
    else if (typeof fallback === "number") params[key] = Number.parseInt(raw, 10) || fallback;
    else if (typeof fallback === "boolean") params[key] = raw === "1" || raw === "true";
    else params[key] = raw;
  }
  return params;
}

// Encode the non-default parameters (booleans as 1) for an API call or the page's URL.
export function queryString(params, defaults = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === "" || value === false) continue;
    if (key in defaults && defaults[key] === value) continue;
    query.set(key, value === true ? "1" : String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

// Keep the URL in step with the controls, so a view can be shared or reloaded.
export function writeParams(params, defaults) {
  const url = `${window.location.pathname}${queryString(params, defaults)}`;
  window.history.replaceState(null, "", url);
}

// A select's value; adds the option first when the URL asks for one the page did not list.
export function setSelect(select, value) {
  const text = String(value);
  if (![...select.options].some((o) => o.value === text)) select.append(el("option", text, { value: text }));
  select.value = text;
}

// A form's named controls by name ({category: <select>, k: <select>, pr: <input>, ...}).
export function formControls(formId) {
  const form = document.getElementById(formId);
  return Object.fromEntries([...form.elements].filter((c) => c.name).map((c) => [c.name, c]));
}

// Two-way binding of form controls and the view's parameters: the URL's values go into the
// controls; a change goes into the parameters and the URL, then `onChange(key)` runs.
export function bindControls(controls, params, defaults, onChange) {
  for (const [key, control] of Object.entries(controls)) {
    if (control.type === "checkbox") control.checked = Boolean(params[key]);
    else setSelect(control, params[key]);
    control.addEventListener("change", () => {
      const raw = control.type === "checkbox" ? control.checked : control.value;
      params[key] = typeof defaults[key] === "number" ? Number.parseInt(raw, 10) || defaults[key] : raw;
      writeParams(params, defaults);
      onChange(key);
    });
    control.form?.addEventListener("submit", (event) => event.preventDefault());
  }
}

// A <th> whose button sorts by `key`; `direction` is "descending", "ascending" or null.
export function sortHeader(key, label, { title, direction, onSort, className = "" }) {
  const th = el("th", null, { scope: "col", class: className });
  if (direction) th.setAttribute("aria-sort", direction);
  const button = el("button", null, { type: "button", class: "sort", "data-sort": key });
  if (title) button.title = title;
  const arrow = direction === "ascending" ? "▲" : direction ? "▼" : "↕";
  button.append(el("span", label), el("span", arrow, { class: "arrow", "aria-hidden": "true" }));
  button.addEventListener("click", () => onSort(key));
  th.append(button);
  return th;
}

// After a table is redrawn, give the focus back to the header button that had it.
export function keepSortFocus(container, redraw) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.sort : null;
  redraw();
  if (key) container.querySelector(`button[data-sort="${CSS.escape(key)}"]`)?.focus();
}

// A <dl> of label: value pairs, each pair in its own <div> so a long value wraps with its label.
export function renderFacts(list, pairs) {
  list.replaceChildren(
    ...pairs.map(([term, value]) => {
      const pair = el("div");
      pair.append(el("dt", term), el("dd", value));
      return pair;
    }),
  );
}

export function showError(node, message) {
  node.textContent = message;
  node.hidden = !message;
}
