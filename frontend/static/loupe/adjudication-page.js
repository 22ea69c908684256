// What the adjudication page's modules share: the element lookup, the campaign and document
// ids, the page state, the flash line, focus-keeping rebuilds, the save indicator, and the
// document-level actions (mark adjudicated, reopen, next and previous document).
// The FAM part is adjudication-fam.js and adjudication-view.js, the span part
// adjudication-spans.js; the keys are adjudication-keys.js; the entry is adjudication.js.
import { api } from "./api.js";
import { flash as showFlash } from "./page-ui.js";
import { drawSaveState } from "./panels.js";

export const $ = (id) => document.getElementById(id);

export const root = $("adjudication");
export const campaignId = Number(root.dataset.campaign);
export const documentId = Number(root.dataset.document);
export const listUrl = `/manage/campaigns/${campaignId}/adjudication/`;
export const apiUrl = `/api/campaigns/${campaignId}/adjudication/${documentId}/`;
export const pageUrl = (id) => `${listUrl}${id}/`;

export const S = {
  kind: "fam", // or "spans" (a PolyTope campaign)
  data: null, // the document's adjudication (GET)
  campaign: null, // the campaign as the document's GET gives it
  status: "pending", // or "done"
  readOnly: false,
  why: "", // why the page is read-only
  // FAM: the annotators' facets, the gold being built, the current facet and group, edit mode
  annotations: [],
  gold: [],
  diff: [],
  facet: 0,
  group: [],
  editing: false,
  cursor: 0,
  sentences: [],
  cards: [],
  server: null, // the server's gold while a conflict is open
  // spans: the items (system outputs, by opaque id) with their gold lists, the current item and candidate
  items: [],
  item: 0,
  candidate: 0,
};

// ctx.saver: the FAM gold's saver; ctx.savers: one per item (spans), by its opaque id; ctx.flushAll().
export const ctx = { saver: null, savers: new Map() };

// Drawing, registered by the entry (so actions redraw without importing the views).
export const ui = { render() {} };

export { rebuild } from "./page-ui.js";

// Show `message` in the flash line for `ms` milliseconds (a new message replaces it).
export function flash(message, ms = 4000) {
  showFlash(message, ms);
}

export const dialogOpen = () => $("help").open || $("conflict").open;

// The save indicator: one saver (FAM) or the worst state of the items' savers (spans).
const RANK = { conflict: 5, error: 4, auth: 3, offline: 2, saving: 1, saved: 0 };

export function onSaveState() {
  const savers = ctx.saver ? [ctx.saver] : [...ctx.savers.values()];
  let worst = ["saved", ""];
  for (const saver of savers) {
    if ((RANK[saver.state] ?? 0) > (RANK[worst[0]] ?? 0)) worst = [saver.state, saver.lastDetail || ""];
  }
  drawSaveState($("save-state"), worst[0], worst[1], {
    saved: "Every choice is on the server.",
    saving: "Sending the gold version.",
    offline: "No connection. The gold is kept in this browser and sent when it returns.",
    conflict: "The gold was saved elsewhere; choose what to keep.",
    error: "The server refused the change; it is kept in this browser.",
    auth: "Your session has ended; log in again to save.",
  });
  if (worst[0] === "error") flash(`Not saved: ${worst[1] || "the server refused the change."}`);
}

// Every saver's changes confirmed (true), or not within the time (false).
export async function flushAll() {
  const savers = ctx.saver ? [ctx.saver] : [...ctx.savers.values()];
  const results = await Promise.all(savers.map((saver) => saver.flush()));
  return results.every(Boolean);
}

export const unsaved = () => (ctx.saver ? [ctx.saver] : [...ctx.savers.values()]).some((saver) => saver.unsaved);

// Edits are refused (with the reason) while the page is read-only or a conflict is open.
export function editRefused() {
  if ($("conflict").open) {
    flash("The gold was saved elsewhere: choose what to keep first.");
    return true;
  }
  if (S.readOnly) {
    flash(S.why || "This gold version is read-only.");
    return true;
  }
  return false;
}

// The page's read-only state: a closed campaign, a document marked adjudicated.
export function applyStatus() {
  const closed = Boolean(S.campaign && (S.campaign.status === "closed" || S.campaign.writable === false));
  const done = S.status === "done";
  S.readOnly = Boolean(closed || done);
  S.why = closed
    ? "The campaign is closed: its gold is read-only."
    : done
      ? "This document is adjudicated: reopen it to change the gold."
      : "";
  root.classList.toggle("readonly", S.readOnly);
  const badge = $("adj-status");
  badge.textContent = done ? "Adjudicated" : "Pending";
  badge.className = `badge ${done ? "submitted" : "in_progress"}`;
  $("done-btn").hidden = done;
  $("done-btn").disabled = Boolean(closed);
  $("reopen-btn").hidden = !done || Boolean(closed);
  $("banner").hidden = !S.readOnly;
  $("banner-text").textContent = S.why;
  if (S.readOnly && S.editing) S.editing = false;
}

// The previous or next document's id (the campaign's order, as the GET names them), or null.
function neighbour(delta) {
  if (!S.data) return null;
  return (delta > 0 ? S.data.next : S.data.previous) || null;
}

export async function goTo(delta) {
  const target = neighbour(delta);
  if (!target) {
    flash(delta > 0 ? "This is the campaign's last document." : "This is the campaign's first document.");
    return;
  }
  if (!(await flushAll())) {
    flash("The gold is not saved yet: wait for the indicator to say Saved, or choose in the conflict first.");
    return;
  }
  window.location.assign(pageUrl(target));
}

// ready(): true, or false after saying what is not decided yet.
export async function markDone(ready) {
  if (S.status === "done") {
    flash("This document is already adjudicated: reopen it to change the gold.");
    return;
  }
  if (editRefused() || !ready()) return;
  if (!(await flushAll())) {
    flash("The gold is not saved yet: it is marked adjudicated once every choice is on the server.");
    return;
  }
  try {
    await api(`${apiUrl}done/`, { method: "POST" });
  } catch (error) {
    flash(`Not marked adjudicated: ${error.message}`);
    return;
  }
  S.status = "done";
  applyStatus();
  ui.render();
  const next = neighbour(1);
  flash(`Document ${S.data.document.external_id} is adjudicated.${next ? " Press n for the next document." : ""}`);
  $("status-live").textContent = "Document adjudicated.";
}

export async function reopen() {
  try {
    await api(`${apiUrl}reopen/`, { method: "POST" });
  } catch (error) {
    flash(`Not reopened: ${error.message}`);
    return;
  }
  S.status = "pending";
  applyStatus();
  ui.render();
  flash("Reopened: the gold can be changed again.");
  $("status-live").textContent = "Document reopened.";
}

// The 409's server state, whatever shape the error's body has ({extra: {server}} as the
// task saves send it, or the gold itself).
export function conflictState(data) {
  if (!data) return null;
  const extra = data.extra || {};
  for (const candidate of [extra.server, extra.gold, extra, data.server, data.gold, data]) {
    if (candidate && typeof candidate === "object" && Number.isInteger(candidate.version)) return candidate;
  }
  return null;
}

// A send function for a Saver: PUT the body, read the gold back; a 409 carries the server's
// state where saver.js looks for it (error.data.extra.server).
export function goldSender(read) {
  return async (body) => {
    try {
      return read(await api(apiUrl, { method: "PUT", body }));
    } catch (error) {
      if (error.status === 409) {
        const server = conflictState(error.data);
        if (server) error.data = { ...(error.data || {}), extra: { ...((error.data || {}).extra || {}), server: read(server) } };
      }
      throw error;
    }
  };
}
