// FAM adjudication's actions: move between facets, take an annotator's facet, the union or
// the intersection of their groups, edit the gold facet by hand (sentences, groups, labels, as
// in the workspace), and the gold's versioned saves (saver.js: a stale version is a 409 and a
// choice, never an overwrite) with copies kept in this browser until the server has them.
import * as fam from "./fam.js";
import * as gold from "./gold.js";
import { conflictPicks, conflictRows } from "./panels.js";
import { counted } from "./plural.js";
import { claim, dropKey, Saver, tabAlive } from "./saver.js";
import { $, S, ctx, ui, flash, editRefused, goldSender, onSaveState, campaignId, documentId } from "./adjudication-page.js";

// The saver's key for this document's gold (not a task id: My tasks never replays it).
export const GOLD_KEY = `adj-${campaignId}-${documentId}`;

const readGold = (response) => (response && response.gold && !Number.isInteger(response.version) ? response.gold : response);

export const GOLD_FORMAT = {
  kind: "gold",
  body: (state) => ({ facets: gold.goldPayload(state.facets) }),
  server: (response) => ({ facets: gold.normalizeGold(response.facets, S.gold.length) }),
  stored: (state) => ({ facets: state.facets }),
  same: (a, b) => gold.sameGold(a, b),
};

const state = () => ({ facets: fam.clone(S.gold) });

// Copies of this gold left in this browser by tabs that are gone.
function leftoverCopies() {
  const prefix = `loupe:pending:${GOLD_KEY}:`;
  const copies = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(prefix)) continue;
    const tab = key.slice(prefix.length);
    if (tabAlive(tab)) continue;
    try {
      const copy = JSON.parse(localStorage.getItem(key));
      if (copy && Array.isArray(copy.facets)) copies.push({ ...copy, key, taskId: GOLD_KEY, tab });
    } catch {
      dropKey(key);
    }
  }
  return copies.sort((a, b) => String(a.at || "").localeCompare(String(b.at || "")));
}

// Set up the gold's saver; a copy left by a closed tab is restored and saved (a 409 then asks).
export function startSaver() {
  const version = S.data.gold.version || 0;
  ctx.saver = new Saver({
    taskId: GOLD_KEY,
    version,
    base: state(),
    send: goldSender(readGold),
    format: GOLD_FORMAT,
    onState: (name, detail) => {
      ctx.saver.lastDetail = detail;
      onSaveState();
    },
    onConflict: showConflict,
    onSaved: (response) => {
      $("gold-version").textContent = `Gold version ${response.version}`;
    },
  });
  const server = state();
  const copies = leftoverCopies().filter((copy) => {
    const local = { facets: gold.normalizeGold(copy.facets, S.gold.length) };
    if (!gold.sameGold(local, server)) return true;
    dropKey(copy.key);
    return false;
  });
  if (copies.length && !S.readOnly) {
    const copy = claim(copies[copies.length - 1]);
    for (const older of copies.slice(0, -1)) dropKey(older.key);
    S.gold = gold.normalizeGold(copy.facets, S.gold.length);
    ctx.saver.version = copy.base_version;
    ctx.saver.base = copy.base || null;
    ctx.saver.change(state(), { immediate: true });
    flash("Choices kept in this browser were restored and are being saved.");
  }
}

// Apply a change to the gold, save it (debounced) and redraw.
export function edit(change, message = "") {
  if (editRefused()) return false;
  change();
  ctx.saver.change(state());
  ui.render();
  if (message) flash(message, 2500);
  return true;
}

export function selectFacet(f, { scroll = true } = {}) {
  if (f < 0 || f >= S.gold.length) return;
  S.facet = f;
  ui.render();
  if (scroll) S.cards[f]?.li.scrollIntoView({ block: "nearest" });
}

export const moveFacet = (delta) => selectFacet(Math.max(0, Math.min(S.gold.length - 1, S.facet + delta)));

export function take(a) {
  if (a >= S.annotations.length) {
    flash(`There is no annotator ${a + 1}: this document has ${S.annotations.length}.`);
    return false;
  }
  const f = S.facet;
  const facet = gold.takeFacet(S.annotations, f, a);
  return edit(() => {
    S.gold[f] = facet;
    S.group[f] = 0;
  }, `Facet ${f + 1}: ${gold.provenanceText(facet.provenance)}.`);
}

function diffOf(f) {
  return (S.diff || []).find((entry) => Number(entry.facet) === f) || null;
}

export function takeUnion() {
  const f = S.facet;
  const diff = diffOf(f);
  return edit(() => {
    S.gold[f] = gold.unionFacet(S.annotations, f, diff && Array.isArray(diff.union) ? diff.union : null);
    S.group[f] = 0;
  }, `Facet ${f + 1}: the union of the annotators' groups.`);
}

export function takeIntersection() {
  const f = S.facet;
  const diff = diffOf(f);
  const done = edit(() => {
    S.gold[f] = gold.intersectionFacet(S.annotations, f, diff && Array.isArray(diff.intersection) ? diff.intersection : null);
    S.group[f] = 0;
  });
  if (done) {
    flash(
      gold.isDecided(S.gold[f])
        ? `Facet ${f + 1}: the intersection of the annotators' groups.`
        : `Facet ${f + 1}: the annotators share no group; the gold facet is empty (edit it, or take another choice).`,
    );
  }
  return done;
}

// --- edit by hand (the workspace's tools) ------------------------------------------------------

export function currentGroup(f = S.facet) {
  const groups = S.gold[f].groups;
  if (!groups.length) return -1;
  return Math.max(0, Math.min(S.group[f] ?? 0, groups.length - 1));
}

export function setCursor(i, { focus = true } = {}) {
  const n = S.sentences.length;
  if (!n) return;
  S.cursor = Math.max(0, Math.min(i, n - 1));
  S.sentences.forEach((li, j) => {
    li.tabIndex = j === S.cursor ? 0 : -1;
    li.classList.toggle("cursor", j === S.cursor);
  });
  if (focus) {
    S.sentences[S.cursor].focus({ preventScroll: true });
    S.sentences[S.cursor].scrollIntoView({ block: "nearest" });
  }
}

export function setEditing(on) {
  if (on && editRefused()) return;
  S.editing = on;
  ui.render();
  if (on) {
    setCursor(S.cursor);
    flash(`Editing facet ${S.facet + 1} by hand: j/k move between sentences, space puts one in the group; Esc ends.`, 5000);
  } else {
    document.activeElement?.blur();
    S.cards[S.facet]?.li.scrollIntoView({ block: "nearest" });
  }
}

export function toggleSentence(i) {
  const f = S.facet;
  edit(() => {
    S.group[f] = fam.toggleSentence(S.gold, f, currentGroup(f), i);
    gold.markEdited(S.gold[f]);
  });
}

export function newGroup() {
  if (editRefused()) return;
  const f = S.facet;
  const facet = S.gold[f];
  const empty = facet.groups.findIndex((group) => !group.length);
  if (empty >= 0) S.group[f] = empty;
  else {
    facet.groups.push([]);
    S.group[f] = facet.groups.length - 1;
  }
  ui.render();
  flash(`Group ${S.group[f] + 1} of gold facet ${f + 1}: add its sentences.`);
}

export function cycleGroup(delta) {
  const groups = S.gold[S.facet].groups;
  if (!groups.length) return;
  S.group[S.facet] = (currentGroup() + delta + groups.length) % groups.length;
  ui.render();
}

export function deleteGroup(g = currentGroup()) {
  const f = S.facet;
  if (g < 0 || g >= S.gold[f].groups.length) return;
  edit(() => {
    S.gold[f].groups.splice(g, 1);
    S.group[f] = Math.max(0, Math.min(g, S.gold[f].groups.length - 1));
    gold.markEdited(S.gold[f]);
  });
}

export function setLabel(f, label) {
  edit(() => {
    fam.setLabel(S.gold, f, label);
    gold.markEdited(S.gold[f]);
  });
}

export const toggleLabel = (label) => setLabel(S.facet, S.gold[S.facet].label === label ? "supported" : label);

// Ready to mark adjudicated: every gold facet decided (else say which and go to the first).
export function ready() {
  const open = S.gold.map((facet, i) => (gold.isDecided(facet) ? -1 : i)).filter((i) => i >= 0);
  if (!open.length) return true;
  const list = open.map((i) => i + 1).join(", ");
  flash(`Gold facet ${list} ${open.length > 1 ? "are" : "is"} not decided: take a choice or edit ${open.length > 1 ? "them" : "it"}.`);
  selectFacet(open[0]);
  return false;
}

// --- conflicts -----------------------------------------------------------------------------------

// A 409: yours and the server's gold per facet, each preset by a three-way comparison with the
// version your changes started from. Nothing is saved until a choice is made.
export function showConflict(server) {
  const n = S.gold.length;
  const theirs = { facets: gold.normalizeGold(server.facets, n), category: "" };
  S.server = { ...server, ...theirs };
  const mine = { facets: S.gold, category: "" };
  const base = ctx.saver.base ? { facets: gold.normalizeGold(ctx.saver.base.facets, n), category: "" } : null;
  const plan = fam.mergePlan(base, mine, theirs);
  const who = server.updated_by || "Someone";
  $("conflict-text").textContent =
    `${who} saved gold version ${server.version} after the version your choices started from. ` +
    "Choose, per facet, yours or the server's: what only one side changed is preset to that side. " +
    "Nothing is overwritten until you save your choice.";
  $("conflict-server-head").textContent = `Server (version ${server.version})`;
  // The category row of the workspace's table does not apply to a gold version.
  $("conflict-rows").replaceChildren(...conflictRows(mine, theirs, plan).slice(0, -1));
  const dialog = $("conflict");
  if (!dialog.open) dialog.showModal();
  $("apply-merge").focus();
}

function resolveWith(merged, message) {
  const server = S.server;
  if (!server) return;
  $("conflict").close();
  S.gold = gold.normalizeGold(fam.clone(merged.facets), S.gold.length);
  ctx.saver.resolve(server, state());
  S.server = null;
  ui.render();
  flash(message);
}

export function applyMerge() {
  const picks = conflictPicks($("conflict-rows"), S.gold.length);
  const taken = picks.facets.filter((pick) => pick === "theirs").length;
  resolveWith(fam.mergeStates({ facets: S.gold, category: "" }, S.server, picks), `Saved your choice: ${counted(taken, "facet")} from the server, the rest yours.`);
}

export const keepMine = () => resolveWith({ facets: S.gold }, "Your gold is saved on top of the server's.");

export const takeServer = () => resolveWith(S.server, "You now have the server's gold.");
