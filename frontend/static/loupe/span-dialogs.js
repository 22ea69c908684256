// Span workspace dialogs and indicators: the save state, copies left by closed tabs, the
// history, the conflict (keep my list of errors or take the server's) and the note about
// other tabs. The save indicator, history items and presence note are the FAM workspace's
// (panels.js); the saving itself is saver.js.
import { api, el, when } from "./api.js";
import { drawSaveState, historyItems, presenceText, SAVE_HELP } from "./panels.js";
import { claim } from "./saver.js";
import { describeError } from "./span-state.js";
import { $, W, ctx, flash, fromServer, rebuild, root, state, taskId, ui } from "./span-page.js";
import { edit } from "./span-actions.js";

const HELP = { ...SAVE_HELP, conflict: "These errors were saved elsewhere; choose which list to keep." };

let saveState = ["saved", ""];

export function onSaveState(stateName, detail) {
  saveState = [stateName, detail];
  drawSaveState($("save-state"), stateName, detail, HELP);
  $("relogin").hidden = stateName !== "auth";
  if (stateName === "auth") flash(HELP.auth);
  // A refusal (400) is not retried: say why, it is kept in this browser meanwhile.
  if (stateName === "error") flash(`Not saved: ${detail || HELP.error}`);
  if (stateName === "saved" && !ctx.saver.dirty) replayNext();
}

export function redrawSaveState() {
  onSaveState(...saveState);
}

// Put a copy kept in this browser in place and save it (base: the version it started from).
export function restoreCopy(copy) {
  const mine = claim(copy);
  W.errors = fromServer(mine.errors);
  W.noErrors = Boolean(mine.no_errors);
  W.current = Math.min(W.current, W.errors.length - 1);
  ctx.saver.version = mine.base_version;
  ctx.saver.base = mine.base || null;
  ctx.saver.change(state(), { immediate: true });
}

// Replay the next copy left by a closed tab (after the previous one is confirmed).
export function replayNext() {
  const copy = ctx.replayQueue.shift();
  if (!copy) return;
  restoreCopy(copy);
  ui.render();
  flash("More changes kept in this browser were restored and are being saved.");
}

export async function loadHistory() {
  const list = $("history-list");
  try {
    const revisions = await api(`/api/tasks/${taskId}/history/`);
    const restorable = !W.readOnly && revisions.every((revision) => Array.isArray(revision.errors));
    const onRestore = restorable
      ? (revision) => {
          const done = edit(() => {
            W.errors = fromServer(revision.errors);
            W.noErrors = Boolean(revision.no_errors);
          });
          if (done) flash(`Restored version ${revision.version}; it is saved as a new version.`);
        }
      : null;
    // The server's own lines say what each revision changed.
    rebuild(list, () => historyItems(revisions, { count: 0, onRestore, describe: () => [] }));
  } catch (error) {
    list.replaceChildren(el("li", `Could not load the history: ${error.message}`, { class: "error" }));
  }
}

export function toggleHistory(open = !W.historyOpen) {
  W.historyOpen = open;
  $("history").hidden = !open;
  $("history-btn").setAttribute("aria-expanded", String(open));
  root.classList.toggle("with-history", open);
  if (open) {
    loadHistory();
    $("history-close").focus();
  }
}

const lines = (errors, clean) => {
  if (!errors.length) return [el("li", clean ? "No errors (marked clean)." : "No error marked.", { class: "muted" })];
  return errors.map((error) => el("li", describeError(error) + (error.reason ? ` · reason: ${error.reason}` : "")));
};

// A 409: the server holds a newer version. Show both lists; nothing is saved until a choice.
export function showConflict(server) {
  W.server = { ...server, errors: fromServer(server.errors), no_errors: Boolean(server.no_errors) };
  const who = server.updated_by === W.task.annotator ? "You (in another tab or browser)" : server.updated_by || "Someone";
  $("conflict-text").textContent =
    `${who} saved version ${server.version} at ${when(server.updated_at)}, after the version your ` +
    "changes started from. Keep your list of errors or take the server's; nothing is overwritten until you choose.";
  $("conflict-mine-head").textContent = `Yours (${W.errors.length} error${W.errors.length === 1 ? "" : "s"})`;
  $("conflict-server-head").textContent = `Server, version ${server.version} (${W.server.errors.length} error${W.server.errors.length === 1 ? "" : "s"})`;
  $("conflict-mine").replaceChildren(...lines(W.errors, W.noErrors));
  $("conflict-server").replaceChildren(...lines(W.server.errors, W.server.no_errors));
  const dialog = $("conflict");
  if (!dialog.open) dialog.showModal();
  $("keep-mine").focus();
}

function resolveWith(chosen, message) {
  const server = W.server;
  if (!server) return;
  $("conflict").close();
  W.errors = fromServer(chosen.errors);
  W.noErrors = Boolean(chosen.no_errors);
  W.current = Math.min(W.current, W.errors.length - 1);
  ctx.saver.resolve(server, state());
  W.server = null;
  ui.render();
  flash(message);
}

export function keepMine() {
  resolveWith({ errors: W.errors, no_errors: W.noErrors }, "Your list of errors is saved on top of the server's.");
}

export function takeServer() {
  resolveWith(W.server, "You now have the server's list of errors.");
}

// The note that this item is open elsewhere too, and its live region (without the ages).
export function showPresence(others) {
  const editable = !W.readOnly;
  const choice = "your list of errors or the server's";
  const node = $("presence");
  const text = presenceText(others, { editable, choice });
  if (node.textContent !== text) node.textContent = text;
  node.hidden = !text;
  const live = $("presence-live");
  const said = presenceText(others, { editable, ages: false, choice });
  if (live.textContent !== said) live.textContent = said;
}
