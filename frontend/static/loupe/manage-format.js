// Words and numbers the admin pages share: category, campaign and task state labels, a slug made
// from a name, durations, and small DOM builders (a definition list, a link, a status badge).
import { el } from "./api.js";

export const CATEGORY_LABELS = { noise: "Noise", low: "Low abstraction", high: "High abstraction" };

// The campaign states' values are kept; the pages name them by what happens in them.
export const CAMPAIGN_STATUS = { open: "Annotating", adjudication: "Adjudicating", closed: "Done" };

export const KIND_LABELS = { fam: "FAM", polytope: "PolyTope" };

export const TASK_STATUS = { todo: "Not started", in_progress: "In progress", submitted: "Done" };

// What a button moving a campaign to a state says.
export const STATUS_ACTIONS = {
  open: "Back to annotating",
  adjudication: "Start adjudicating",
  closed: "Close the campaign",
};

// "My FAM study 2" -> "my-fam-study-2" (at most 64 characters, the slug field's length).
export function slugify(text) {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
}

// Seconds as "45 s", "3 min 20 s", "10 min", "1 h 05 min"; "—" for none.
export function duration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(Number(seconds))) return "—";
  const s = Math.round(Number(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s` : `${s / 60} min`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

export function facts(pairs) {
  const list = el("dl", null, { class: "facts" });
  for (const [term, value] of pairs) {
    const dd = el("dd");
    if (value instanceof Node) dd.append(value);
    else dd.textContent = value === null || value === undefined || value === "" ? "—" : String(value);
    list.append(el("dt", term), dd);
  }
  return list;
}

export function link(text, href, attrs = {}) {
  return el("a", text, { href, ...attrs });
}

export function campaignBadge(status, label) {
  return el("span", label || CAMPAIGN_STATUS[status] || status, { class: `badge campaign-${status}` });
}

export function taskBadge(status) {
  return el("span", TASK_STATUS[status] || status, { class: `badge ${status}` });
}

// A cell with a number, right-aligned.
export function num(value) {
  return el("td", value === null || value === undefined ? "—" : value, { class: "num" });
}
