// What the FAM workspace and the span workspace share about their page: the element lookup,
// the task's id, the flash message, focus-keeping rebuilds, loading the task, the buttons and
// window events both have, and the presence heartbeat. Each page keeps its own state
// (state.js, span-page.js); the task's actions and panels are task-actions.js and
// task-dialogs.js.
import { api } from "./api.js";
import { flash as showFlash } from "./page-ui.js";
import { showInstructions } from "./instructions.js";
import { startPresence } from "./presence.js";

export const $ = (id) => document.getElementById(id);

export const root = $("workspace");

export const taskId = Number(root.dataset.taskId);

export { rebuild } from "./page-ui.js";

// Show `message` in the flash line for `ms` milliseconds (a new message replaces it).
export function flash(message, ms = 3000) {
  showFlash(message, ms);
}

// GET the task and show its campaign's instructions; when that fails, the title says so and the
// page stops being busy (null).
export async function loadTask() {
  try {
    const task = await api(`/api/tasks/${taskId}/`);
    showInstructions(task);
    return task;
  } catch (error) {
    $("doc-title").textContent = error.status === 404 ? "No such task" : "Could not load the task";
    $("campaign-line").textContent = error.message;
    root.setAttribute("aria-busy", "false");
    return null;
  }
}

// The controls both pages have: Help, History and its Close, Submit, Reopen, the conflict's
// Keep mine and Take the server's (the conflict must be decided: Esc does not dismiss it), a
// warning before leaving with changes the server has not confirmed (the copy is kept anyway),
// and the save indicator redrawn when the connection comes or goes.
// page: the page's state ({readOnly}); ctx: {saver, replayQueue}; the rest are its handlers.
export function wireTask({ page, ctx, toggleHistory, submit, reopen, keepMine, takeServer, redrawSaveState }) {
  $("help-btn").addEventListener("click", () => $("help").showModal());
  $("history-btn").addEventListener("click", () => toggleHistory());
  $("history-close").addEventListener("click", () => {
    toggleHistory(false);
    $("history-btn").focus();
  });
  $("submit-btn").addEventListener("click", submit);
  $("reopen-btn").addEventListener("click", reopen);
  $("keep-mine").addEventListener("click", keepMine);
  $("take-server").addEventListener("click", takeServer);
  $("conflict").addEventListener("cancel", (e) => e.preventDefault());
  window.addEventListener("beforeunload", (e) => {
    if (ctx.saver && !page.readOnly && (ctx.saver.unsaved || ctx.replayQueue.length)) {
      e.preventDefault();
      e.returnValue = "";
    }
  });
  const redraw = () => redrawSaveState();
  window.addEventListener("online", redraw);
  window.addEventListener("offline", redraw);
}

// While a dialog (the help or the conflict) is open, the page's keys rest.
export const dialogOpen = () => $("help").open || $("conflict").open;

// The presence heartbeat, when the task has it: onOthers(others) draws the note.
export function watchPresence(task, ctx, onOthers) {
  if (!task.presence) return;
  startPresence({
    taskId,
    onOthers,
    // The server answered with this session: a save waiting for a new login can go now.
    onAnswer: () => {
      if (ctx.saver.state === "auth") ctx.saver.retryNow();
    },
  });
}
