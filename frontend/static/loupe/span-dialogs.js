// Span workspace dialogs and indicators: the save state, copies left by closed tabs, the
// history, the conflict (keep my list of errors or take the server's) and the note about
// other tabs. The save state, the replay of copies, the history panel and the presence note
// are task-dialogs.js, shared with the FAM workspace (the drawing is panels.js); this module
// says how a list of errors is put in place. The saving itself is saver.js.
import { el, when } from "./api.js";
import { historyItems, SAVE_HELP } from "./panels.js";
import { counted } from "./plural.js";
import { claim } from "./saver.js";
import { describeError } from "./span-state.js";
import { $, W, ctx, flash, fromServer, state, ui } from "./span-page.js";
import { edit } from "./span-actions.js";
import { taskDialogs } from "./task-dialogs.js";

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

// The history's items: the server's own lines say what each revision changed; an older one
// can be restored (not when read-only, nor when a revision holds no list of errors).
function revisionItems(revisions) {
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
  return historyItems(revisions, { count: 0, onRestore, describe: () => [] });
}

export const { onSaveState, redrawSaveState, replayNext, loadHistory, toggleHistory, showPresence } = taskDialogs({
  page: W,
  ctx,
  ui,
  flash,
  help: { ...SAVE_HELP, conflict: "These errors were saved elsewhere; choose which list to keep." },
  restoreCopy,
  historyItems: revisionItems,
  choice: "your list of errors or the server's",
});

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
  $("conflict-mine-head").textContent = `Yours (${counted(W.errors.length, "error")})`;
  $("conflict-server-head").textContent = `Server, version ${server.version} (${counted(W.server.errors.length, "error")})`;
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
