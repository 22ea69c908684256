// The workspaces' side panels as DOM builders: the save indicator, the revision history, the
// conflict table and the note about other tabs. Text goes in with textContent only.
import { el, when } from "./api.js";
import { CATEGORIES, describeChanges, facetSummary, normalize } from "./fam.js";

export const SAVE_TEXT = {
  saved: "Saved",
  saving: "Saving…",
  offline: "Offline",
  conflict: "Conflict",
  error: "Not saved",
  auth: "Log in again",
};

export const SAVE_HELP = {
  saved: "Every change is on the server.",
  saving: "Sending your changes.",
  offline: "No connection. Your changes are kept in this browser and sent when it returns.",
  conflict: "This task was saved elsewhere; choose what to keep, facet by facet.",
  error: "The server refused the change; it is kept in this browser.",
  auth: "Your session has ended. Your changes are kept in this browser and sent once you log in again.",
};

// Draw the save indicator `node` for a saver state (saver.js); without a connection it says
// so, even when everything so far is saved. help: the titles per state (SAVE_HELP).
export function drawSaveState(node, stateName, detail, help = SAVE_HELP) {
  const offline = navigator.onLine === false && (stateName === "saved" || stateName === "saving");
  const shown = offline ? "offline" : stateName;
  node.dataset.state = shown;
  node.textContent = SAVE_TEXT[shown] || shown;
  node.title =
    offline && stateName === "saved" ? "No connection. Every change so far is on the server." : detail || help[shown] || "";
}

// A FAM revision's changes against the one before it (`before` is null for the oldest).
function famChanges(before, revision, count) {
  const state = (r) => r && { facets: normalize(r.facets, count), category: r.category || "" };
  return describeChanges(state(before), state(revision));
}

// One <li> per revision, newest first, with what changed (numbered from 1 like the page) and,
// for older ones, a button that restores them. describe(before, revision) gives the lines of
// what changed (a FAM's by default); when it gives none, the server's `changes` are shown.
export function historyItems(revisions, { count, onRestore, describe = (before, revision) => famChanges(before, revision, count) }) {
  if (!revisions.length) return [el("li", "No saved changes yet.", { class: "muted" })];
  return revisions.map((revision, i) => {
    const lines = describe(revisions[i + 1] || null, revision);
    const item = el("li", null, { class: "revision" });
    const head = el("div", null, { class: "rev-head" });
    head.append(
      el("strong", `Version ${revision.version}`),
      el("span", ` ${revision.author || "unknown"} · ${when(revision.created_at)}`, { class: "muted" }),
    );
    const changes = el("ul", null, { class: "rev-changes" });
    for (const line of lines.length ? lines : revision.changes || []) changes.append(el("li", line));
    item.append(head, changes);
    if (onRestore && i > 0) {
      const restore = el("button", "Use this version", {
        type: "button",
        class: "secondary small",
        "data-focus-key": `rev-${revision.version}`,
      });
      restore.addEventListener("click", () => onRestore(revision));
      item.append(restore);
    }
    return item;
  });
}

const CHANGED = (entry) => {
  if (entry.same) return "";
  if (entry.conflict) return "on both sides: choose";
  return entry.theirsChanged ? "on the server" : "by you";
};

// One row of the conflict table: the name, yours and the server's (each a radio button when
// they differ, preset to the plan's pick), and who changed it since the common base.
// yours, server: {text, full, spoken}: what the cell shows, its whole text (the title when it
// is cut) and what the radio's label says.
function mergeRow(head, name, yours, server, entry) {
  const kind = [entry.same ? "" : "differs", entry.conflict ? "conflict" : ""].join(" ").trim();
  const row = el("tr", null, { class: kind, "data-pick": entry.same ? "" : entry.pick });
  const cell = (shown, side, aria) => {
    const td = el("td", null, { class: "pick" });
    if (entry.same) {
      td.textContent = shown.text;
      return td;
    }
    const label = el("label", null, shown.full !== shown.text ? { title: shown.full } : {});
    const radio = el("input", null, { type: "radio", name, value: side, "aria-label": aria });
    radio.checked = entry.pick === side;
    radio.addEventListener("change", () => row.setAttribute("data-pick", side));
    label.append(radio, el("span", shown.text));
    td.append(label);
    return td;
  };
  row.append(
    el("th", head, { scope: "row" }),
    cell(yours, "mine", `${head}: keep yours (${yours.spoken})`),
    cell(server, "theirs", `${head}: take the server's (${server.spoken})`),
    el("td", CHANGED(entry), { class: "why" }),
  );
  return row;
}

const NOTE_SHOWN = 40; // characters of a note in a cell
const NOTE_SPOKEN = 160; // in a radio's label

// A note on one line, cut to `max` characters with an ellipsis.
function cut(note, max) {
  const line = note.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

// A facet as a cell of the conflict table: its sentences, and its note when the two sides'
// notes differ (the whole row differs then, and the note may be all that does).
function facetCell(facet, withNote) {
  const summary = facetSummary(facet);
  if (!withNote) return { text: summary, full: summary, spoken: summary };
  const note = (max) => (facet.note ? `note: "${max ? cut(facet.note, max) : facet.note}"` : "no note");
  return {
    text: `${summary} · ${note(NOTE_SHOWN)}`,
    full: `${summary} · ${note(0)}`,
    spoken: `${summary} · ${note(NOTE_SPOKEN)}`,
  };
}

// The rows of the conflict dialog: per facet and for the category, yours and the server's with
// a choice where they differ (plan: fam.mergePlan), and what changed on which side.
export function conflictRows(mine, theirs, plan) {
  const rows = mine.facets.map((facet, i) => {
    const other = theirs.facets[i];
    const notes = (facet.note || "") !== (other.note || "");
    return mergeRow(`${i + 1}`, `merge-${i}`, facetCell(facet, notes), facetCell(other, notes), plan.facets[i]);
  });
  const label = (c) => {
    const text = CATEGORIES[c] || "derived";
    return { text, full: text, spoken: text };
  };
  const category = mergeRow("Category", "merge-category", label(mine.category), label(theirs.category), plan.category);
  return [...rows, category];
}

// The choices made in the conflict table: {facets: ["mine"|"theirs", ...], category}.
export function conflictPicks(tbody, count) {
  const pick = (name) => {
    const checked = tbody.querySelector(`input[name="${name}"]:checked`);
    return checked ? checked.value : "mine";
  };
  return { facets: Array.from({ length: count }, (_, i) => pick(`merge-${i}`)), category: pick("merge-category") };
}

const ago = (seconds) => (seconds < 2 ? "active just now" : seconds < 60 ? `active ${seconds} s ago` : `active ${Math.round(seconds / 60)} min ago`);

// The note about other open tabs (from POST .../presence/): "" when there are none.
// others: [{user, is_you, editing, seconds_ago}]; editable: this page may save; ages: say how
// long ago each was active (false for the live region, which must change only when someone
// comes or goes, not with every heartbeat); choice: how a conflict is decided, for the last line.
export function presenceText(others, { editable, ages = true, choice = "facet by facet" }) {
  const freshest = (list) => Math.min(...list.map((o) => o.seconds_ago));
  const age = (list, wrap) => (ages ? wrap(ago(freshest(list))) : "");
  const names = (list) => [...new Set(list.map((o) => o.user))].join(", ");
  const mine = others.filter((o) => o.is_you);
  const editors = others.filter((o) => !o.is_you && o.editing);
  const viewers = others.filter((o) => !o.is_you && !o.editing);
  const lines = [];
  if (mine.length) {
    const where = mine.length > 1 ? `${mine.length} other tabs or browsers` : "another tab or browser";
    lines.push(`This task is also open in ${where} (by ${names(mine)}${age(mine, (a) => `, ${a}`)}).`);
  }
  if (editors.length) lines.push(`${names(editors)} has this task open too${age(editors, (a) => ` (${a})`)}.`);
  if (viewers.length) {
    const verb = new Set(viewers.map((o) => o.user)).size > 1 ? "are" : "is";
    lines.push(`${names(viewers)} ${verb} looking at this task, read-only${age(viewers, (a) => ` (${a})`)}.`);
  }
  if (editable && (mine.length || editors.length)) {
    lines.push(`If both save, you choose what to keep, ${choice}; nothing is overwritten.`);
  }
  return lines.join(" ");
}
