// A form's refusals shown where they belong: each field's server message next to the field (with
// aria-invalid and aria-describedby on its controls), anything else in the form's own alert.
// Loupe's API answers {message, extra: {fields: {name: [msg] | {sub: [msg]}}}} for invalid
// fields (DRF), and {message, extra} for a service's refusal, which may name its field in
// `extra.field` or `extra.fields`. Text goes in with textContent only.
import { el } from "./api.js";

// Every (path, message) pair of a DRF error value: a list of strings, a nested serializer's
// object ({size: [...]}) or a list field's per-item errors ({"0": [...]} or [[...], {...}]).
export function flattenErrors(value, path = "") {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) {
    const strings = value.filter((v) => typeof v === "string");
    const nested = value.filter((v) => v && typeof v === "object");
    return [...strings.map((s) => [path, s]), ...nested.flatMap((v) => flattenErrors(v, path))];
  }
  if (typeof value === "object") {
    return Object.entries(value).flatMap(([key, sub]) => {
      // An item's index in a list is no field of its own: "documents.3" is "documents".
      const next = /^\d+$/.test(key) ? path : path ? `${path}.${key}` : key;
      const items = flattenErrors(sub, next);
      return /^\d+$/.test(key) ? items.map(([p, m]) => [p, `Item ${Number(key) + 1}: ${m}`]) : items;
    });
  }
  return [[path, String(value)]];
}

// The field errors of an API error's body, as [path, message] pairs (empty: none named).
export function fieldErrors(data) {
  const extra = (data && data.extra) || {};
  const pairs = flattenErrors(extra.fields || {});
  // A service's refusal may name just its field; with `fields` too, that says it already.
  if (!pairs.length && typeof extra.field === "string" && extra.field) pairs.push([extra.field, data.message || "Invalid."]);
  return pairs;
}

const CONTROLS = "input, select, textarea";

// Enter submits the form from any of its fields: text fields do it natively; here also from a
// checkbox, a radio button and a select, and Ctrl+Enter (Cmd+Enter) from a text area, where
// Enter is a new line.
export function submitOnEnter(form) {
  form.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.altKey || e.shiftKey || e.defaultPrevented) return;
    const target = e.target;
    const area = target.matches("textarea");
    const choice = target.matches("input[type=checkbox], input[type=radio], select");
    if ((area && (e.ctrlKey || e.metaKey)) || (choice && !e.ctrlKey && !e.metaKey)) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
}

// One form's error display. Each field's container is `[data-field="<server name>"]` (a nested
// name such as "sample.size" works too); its error paragraph is made on first use.
// summary: the element (role=alert) for what no field claims, and for the count.
export class FormErrors {
  constructor(form, summary) {
    this.form = form;
    this.summary = summary;
    this.marked = [];
  }

  // The container for a server path: the longest registered prefix ("sample.size", then "sample").
  container(path) {
    const parts = path ? path.split(".") : [];
    for (let n = parts.length; n > 0; n -= 1) {
      const name = parts.slice(0, n).join(".");
      const node = this.form.querySelector(`[data-field="${CSS.escape(name)}"]`);
      if (node && !node.closest("[hidden], fieldset:disabled")) return node;
    }
    return null;
  }

  clear() {
    for (const { node, box } of this.marked) {
      box.hidden = true;
      box.textContent = "";
      for (const control of node.querySelectorAll(CONTROLS)) {
        control.removeAttribute("aria-invalid");
        const ids = (control.getAttribute("aria-describedby") || "").split(/\s+/).filter((id) => id && id !== box.id);
        if (ids.length) control.setAttribute("aria-describedby", ids.join(" "));
        else control.removeAttribute("aria-describedby");
      }
      node.classList.remove("invalid");
    }
    this.marked = [];
    this.summary.hidden = true;
    this.summary.replaceChildren();
  }

  mark(node, messages) {
    const name = node.dataset.field;
    const id = `error-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
    let box = node.querySelector(`:scope > .field-error`);
    if (!box) {
      box = el("p", null, { class: "field-error", id });
      node.append(box);
    }
    box.textContent = messages.join(" ");
    box.hidden = false;
    node.classList.add("invalid");
    for (const control of node.querySelectorAll(CONTROLS)) {
      if (control.type === "hidden") continue;
      control.setAttribute("aria-invalid", "true");
      const ids = (control.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
      if (!ids.includes(box.id)) control.setAttribute("aria-describedby", [...ids, box.id].join(" "));
    }
    this.marked.push({ node, box });
  }

  // Show an API error (error.data from api.js). Returns the number of fields marked; the focus
  // goes to the first invalid field's first control, or to the summary when none is named.
  show(error, fallback = "The server refused the form; nothing was saved.") {
    this.clear();
    const data = (error && error.data) || {};
    const byNode = new Map();
    const loose = [];
    for (const [path, message] of fieldErrors(data)) {
      const node = this.container(path);
      if (!node) {
        // A service's sentence names its field already; a bare "This field is required." not.
        const name = path.split(".").pop();
        const named = !path || path === "non_field_errors" || message.includes(name);
        loose.push(named ? message : `${path}: ${message}`);
        continue;
      }
      if (!byNode.has(node)) byNode.set(node, []);
      byNode.get(node).push(message);
    }
    for (const [node, messages] of byNode) this.mark(node, messages);
    const count = byNode.size;
    let lines;
    if (count) lines = [`${count === 1 ? "One field needs" : `${count} fields need`} attention; nothing was saved.`, ...loose];
    else if (loose.length) lines = loose;
    else if (error && error.status === 0) lines = [`The server could not be reached: ${error.message}`];
    else lines = [data.message && data.message !== "Validation error" ? data.message : (error && error.message) || fallback];
    this.summary.replaceChildren(...lines.map((line) => el("p", line)));
    this.summary.hidden = false;
    // Fields in document order: the first one gets the focus.
    const first = [...byNode.keys()].sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))[0];
    const control = first && [...first.querySelectorAll(CONTROLS)].find((c) => !c.disabled && c.type !== "hidden");
    if (control) control.focus();
    else this.summary.focus();
    return count;
  }
}
