// Workspace dialogs and indicators: the save state, left-over copies, history, conflicts (a
// per-facet merge) and the note about other tabs on the task. The save state, the replay of
// left-over copies, the history panel and the presence note are task-dialogs.js, shared with
// the span workspace; this module says how a FAM copy or revision is put in place.
import { api, when } from "./api.js";
import * as fam from "./fam.js";
import { conflictPicks, conflictRows, historyItems } from "./panels.js";
import { counted } from "./plural.js";
import { claim } from "./saver.js";
import { taskDialogs } from "./task-dialogs.js";
import { $, taskId, S, flash, state, ctx, ui } from "./state.js";
import { edit } from "./actions.js";

// Put a copy left by a closed tab in place and save it (base: the version it started from).
function restoreCopy(copy) {
  const n = S.facets.length;
  const mine = claim(copy);
  S.facets = fam.normalize(mine.facets, n);
  S.category = mine.category || "";
  ctx.saver.version = mine.base_version;
  ctx.saver.base = mine.base || null;
  ctx.saver.change(state(), { immediate: true });
}

// The history's items, each older one with a button that restores it (not when read-only).
function revisionItems(revisions) {
  const onRestore = S.readOnly
    ? null
    : (revision) => {
        edit(() => {
          S.facets = fam.normalize(revision.facets, S.facets.length);
          S.category = revision.category || "";
        });
        flash(`Restored version ${revision.version}; it is saved as a new version.`);
      };
  return historyItems(revisions, { count: S.facets.length, onRestore });
}

export const { onSaveState, redrawSaveState, replayNext, loadHistory, toggleHistory, showPresence } = taskDialogs({
  page: S,
  ctx,
  ui,
  flash,
  restoreCopy,
  historyItems: revisionItems,
});

// The state this tab's changes started from, when the saver does not hold it (a copy left by
// an older page): the revision of that version in the history, or null.
async function baseFromHistory(version, count) {
  try {
    const revisions = await api(`/api/tasks/${taskId}/history/`);
    const revision = revisions.find((r) => r.version === version);
    if (revision) return { facets: fam.normalize(revision.facets, count), category: revision.category || "" };
    // Version 1 is the empty FAM the task started with (it has no revision).
    if (version === 1) return { facets: fam.normalize([], count), category: "" };
  } catch {
    // No history: every difference then counts as changed on both sides.
  }
  return null;
}

// A 409: show yours and the server's per facet, each preset by a three-way comparison with
// the base (a facet only one side changed takes that side; one both changed is marked and
// keeps yours). Nothing is saved until the annotator applies a choice.
export async function showConflict(server) {
  const n = S.facets.length;
  const theirs = { facets: fam.normalize(server.facets, n), category: server.category || "" };
  S.server = { ...server, ...theirs };
  const mine = { facets: S.facets, category: S.category };
  const base = ctx.saver.base
    ? { facets: fam.normalize(ctx.saver.base.facets, n), category: ctx.saver.base.category || "" }
    : await baseFromHistory(ctx.saver.version, n);
  const plan = fam.mergePlan(base, mine, theirs);
  const who = server.updated_by === S.task.annotator ? "You (in another tab or browser)" : server.updated_by || "Someone";
  const both = plan.facets.filter((entry) => entry.conflict).length + (plan.category.conflict ? 1 : 0);
  $("conflict-text").textContent =
    `${who} saved version ${server.version} at ${when(server.updated_at)}, after the version your ` +
    "changes started from. Choose, per facet, yours or the server's: what only one side changed " +
    "is preset to that side" +
    (both ? `; ${both === 1 ? "one row was" : `${both} rows were`} changed on both sides (marked), preset to yours.` : ".") +
    " Nothing is overwritten until you save your choice.";
  $("conflict-server-head").textContent = `Server (version ${server.version})`;
  $("conflict-rows").replaceChildren(...conflictRows(mine, theirs, plan));
  const dialog = $("conflict");
  if (!dialog.open) dialog.showModal();
  $("apply-merge").focus();
}

// Close the dialog and save `merged` as one new save on top of the server's version.
function resolveWith(merged, message) {
  const server = S.server;
  if (!server) return;
  $("conflict").close();
  S.facets = fam.normalize(fam.clone(merged.facets), S.facets.length);
  S.category = merged.category || "";
  ctx.saver.resolve(server, state());
  S.server = null;
  // The note fields too, even the focused one (the dialog gives the focus back to it, and the
  // next key typed there would otherwise save the note it showed before the choice).
  S.cards.forEach((card, f) => {
    card.note.value = S.facets[f].note;
  });
  ui.render();
  flash(message);
}

export function applyMerge() {
  const mine = { facets: S.facets, category: S.category };
  const picks = conflictPicks($("conflict-rows"), S.facets.length);
  const taken = picks.facets.filter((pick) => pick === "theirs").length;
  resolveWith(
    fam.mergeStates(mine, S.server, picks),
    `Saved your choice: ${counted(taken, "facet")} from the server, the rest yours.`,
  );
}

export function keepMine() {
  resolveWith({ facets: S.facets, category: S.category }, "Your state is saved on top of the server's.");
}

export function takeServer() {
  resolveWith(S.server, "You now have the server's state.");
}
