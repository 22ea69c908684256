// Workspace dialogs and indicators: the save state, left-over copies, history and conflicts.
import { api, el, when } from "./api.js";
import * as fam from "./fam.js";
import { conflictRows, historyItems } from "./panels.js";
import { claim } from "./saver.js";
import { $, root, taskId, S, flash, rebuild, state, ctx, ui } from "./state.js";
import { edit } from "./actions.js";

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
  conflict: "This task was saved elsewhere; choose which state to keep.",
  error: "The server refused the change; it is kept in this browser.",
  auth: "Your session has ended. Your changes are kept in this browser and sent once you log in again.",
};

let saveState = ["saved", ""];

export function onSaveState(stateName, detail) {
  saveState = [stateName, detail];
  const node = $("save-state");
  // Without a connection the indicator says so, even when everything so far is saved.
  const offline = navigator.onLine === false && (stateName === "saved" || stateName === "saving");
  const shown = offline ? "offline" : stateName;
  node.dataset.state = shown;
  node.textContent = SAVE_TEXT[shown] || shown;
  node.title =
    offline && stateName === "saved"
      ? "No connection. Every change so far is on the server."
      : detail || SAVE_HELP[shown] || "";
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

export function showConflict(server) {
  S.server = server;
  const n = S.facets.length;
  const theirs = { facets: fam.normalize(server.facets, n), category: server.category || "" };
  const who = server.updated_by === S.task.annotator ? "You (in another tab or device)" : server.updated_by || "Someone";
  $("conflict-text").textContent =
    `${who} saved version ${server.version} at ${when(server.updated_at)}, after the version your ` +
    "changes started from. Nothing is overwritten until you choose which state to keep.";
  $("conflict-server-head").textContent = `Server (version ${server.version})`;
  $("conflict-rows").replaceChildren(...conflictRows({ facets: S.facets, category: S.category }, theirs));
  const dialog = $("conflict");
  if (!dialog.open) dialog.showModal();
  $("keep-mine").focus();
}

export function keepMine() {
  $("conflict").close();
  ctx.saver.keepMine(S.server);
  S.server = null;
  flash("Your state is saved on top of the server's.");
}

export function takeServer() {
  $("conflict").close();
  const server = S.server;
  S.facets = fam.normalize(server.facets, S.facets.length);
  S.category = server.category || "";
  ctx.saver.takeServer(server);
  S.server = null;
  ui.render();
  flash("You now have the server's state.");
}

export function redrawSaveState() {
  onSaveState(...saveState);
}
