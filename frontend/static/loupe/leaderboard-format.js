// Shared helpers of the leaderboard pages: score and coefficient cells, view parameters kept in
// the URL's query string and bound to the controls, sortable column headers. The pure text
// (metric names, numbers, query strings, addresses) is leaderboard-text.js, re-exported here.
import { el } from "./api.js";
import { fixed, parseParams, pText, queryString, x100 } from "./leaderboard-text.js";

export {
  CATEGORY_LABELS,
  documentUrl,
  FAR_FAMILY,
  fixed,
  metricLabel,
  metricTitle,
  parseParams,
  pText,
  queryString,
  severityText,
  SEVERITIES,
  systemUrl,
  visibleMetrics,
  x100,
} from "./leaderboard-text.js";

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

// A score cell: the mean x100 and, for leaderboard cells, the 95% CI underneath.
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

// The view's parameters from the page's query string, with defaults (parseParams).
export function readParams(defaults) {
  return parseParams(defaults, window.location.search);
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

// FAR's filters (facet category and k, the .far-filter fields of leaderboard_filters.html) need a
// FAM to compute FAR against: without one they are hidden and the #no-fams line
// (no_fams_note.html) says why.
export function showFarFilters(hasFams) {
  for (const field of document.querySelectorAll("#controls .far-filter")) field.hidden = !hasFams;
  document.getElementById("no-fams").hidden = hasFams;
}

export function showError(node, message) {
  node.textContent = message;
  node.hidden = !message;
}
