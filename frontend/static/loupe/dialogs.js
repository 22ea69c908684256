// Workspace dialogs and indicators: the save state, left-over copies, history, conflicts (a
// per-facet merge) and the note about other tabs on the task.
import { api, el, when } from "./api.js";
import * as fam from "./fam.js";
import { conflictPicks, conflictRows, drawSaveState, historyItems, presenceText, SAVE_HELP, SAVE_TEXT } from "./panels.js";
import { claim } from "./saver.js";
import { $, root, taskId, S, flash, rebuild, state, ctx, ui } from "./state.js";
import { edit } from "./actions.js";

export { SAVE_HELP, SAVE_TEXT }; // they live in panels.js, shared with the span workspace

let saveState = ["saved", ""];

export function onSaveState(stateName, detail) {
  saveState = [stateName, detail];
  // Without a connection the indicator says so, even when everything so far is saved.
  drawSaveState($("save-state"), stateName, detail);
  const login = $("relogin");
  if (login) login.hidden = stateName !== "auth";
  if (stateName === "auth") flash(SAVE_HELP.auth);
  if (stateName === "saved" && !ctx.saver.dirty) replayNext();
}

// Replay the next copy left by a closed tab (after the previous one is confirmed).
export function replayNext() {
  const copy = ctx.replayQueue.shift();
  if (!copy) return;
  const n = S.facets.length;
  const mine = claim(copy);
  S.facets = fam.normalize(mine.facets, n);
  S.category = mine.category || "";
  ctx.saver.version = mine.base_version;
  ctx.saver.base = mine.base || null;
  ctx.saver.change(state(), { immediate: true });
  ui.render();
  flash("More changes kept in this browser were restored and are being saved.");
}

export async function loadHistory() {
  const list = $("history-list");
  try {
    const revisions = await api(`/api/tasks/${taskId}/history/`);
    const onRestore = S.readOnly
      ? null
      : (revision) => {
          edit(() => {
            S.facets = fam.normalize(revision.facets, S.facets.length);
            S.category = revision.category || "";
          });
          flash(`Restored version ${revision.version}; it is saved as a new version.`);
        };
    rebuild(list, () => historyItems(revisions, { count: S.facets.length, onRestore }));
  } catch (error) {
    list.replaceChildren(el("li", `Could not load the history: ${error.message}`, { class: "error" }));
  }
}

export function toggleHistory(open = !S.historyOpen) {
  S.historyOpen = open;
  $("history").hidden = !open;
  $("history-btn").setAttribute("aria-expanded", String(open));
  root.classList.toggle("with-history", open);
  if (open) {
    loadHistory();
    $("history-close").focus();
  }
}

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
    `Saved your choice: ${taken} facet${taken === 1 ? "" : "s"} from the server, the rest yours.`,
  );
}

export function keepMine() {
  resolveWith({ facets: S.facets, category: S.category }, "Your state is saved on top of the server's.");
}

export function takeServer() {
  resolveWith(S.server, "You now have the server's state.");
}

// The note that this task is open elsewhere too (hidden when it is not), and its live region
// for screen readers: the same without the ages, so it changes only when someone comes or goes.
export function showPresence(others) {
  const editable = !S.readOnly;
  const node = $("presence");
  const text = presenceText(others, { editable });
  if (node.textContent !== text) node.textContent = text;
  node.hidden = !text;
  const live = $("presence-live");
  const said = presenceText(others, { editable, ages: false });
  if (live.textContent !== said) live.textContent = said;
}

export function redrawSaveState() {
  onSaveState(...saveState);
}
