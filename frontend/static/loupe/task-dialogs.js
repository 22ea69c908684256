// The panels both workspaces keep the same way: the save indicator (and the copies left by
// closed tabs, replayed once it says Saved), the history panel and the note about other tabs.
// What differs (how a copy or a revision is put in place, the texts) comes from the page;
// the drawing is panels.js. Each page makes its set once with taskDialogs(...).
import { api, el } from "./api.js";
import { drawSaveState, presenceText, SAVE_HELP } from "./panels.js";
import { $, rebuild, root, taskId } from "./task-page.js";

// page: the page's state ({readOnly, historyOpen}); ctx: {saver, replayQueue}; ui: {render};
// flash: the page's flash (it also says why the server refused a change); help: the save
// indicator's titles per state; restoreCopy(copy): put a copy kept in this browser in place
// and save it; historyItems(revisions): the history's <li> elements; choice: what the
// presence note says a conflict lets one choose (panels.js's default if undefined).
export function taskDialogs({ page, ctx, ui, flash, help = SAVE_HELP, restoreCopy, historyItems, choice }) {
  let saveState = ["saved", ""];

  function onSaveState(stateName, detail) {
    saveState = [stateName, detail];
    // Without a connection the indicator says so, even when everything so far is saved.
    drawSaveState($("save-state"), stateName, detail, help);
    $("relogin").hidden = stateName !== "auth";
    if (stateName === "auth") flash(help.auth);
    // A refusal (400) is not retried: say why, it is kept in this browser meanwhile.
    if (stateName === "error") flash(`Not saved: ${detail || help.error}`);
    if (stateName === "saved" && !ctx.saver.dirty) replayNext();
  }

  function redrawSaveState() {
    onSaveState(...saveState);
  }

  // Replay the next copy left by a closed tab (after the previous one is confirmed).
  function replayNext() {
    const copy = ctx.replayQueue.shift();
    if (!copy) return;
    restoreCopy(copy);
    ui.render();
    flash("More changes kept in this browser were restored and are being saved.");
  }

  async function loadHistory() {
    const list = $("history-list");
    try {
      const revisions = await api(`/api/tasks/${taskId}/history/`);
      rebuild(list, () => historyItems(revisions));
    } catch (error) {
      list.replaceChildren(el("li", `Could not load the history: ${error.message}`, { class: "error" }));
    }
  }

  function toggleHistory(open = !page.historyOpen) {
    page.historyOpen = open;
    $("history").hidden = !open;
    $("history-btn").setAttribute("aria-expanded", String(open));
    root.classList.toggle("with-history", open);
    if (open) {
      loadHistory();
      $("history-close").focus();
    }
  }

  // The note that this task is open elsewhere too (hidden when it is not), and its live region
  // for screen readers: the same without the ages, so it changes only when someone comes or goes.
  // The flash line (fixed at the window's foot) stands above the note: --presence-height
  // follows the note's height as it comes, goes or wraps.
  const note = $("presence");
  new ResizeObserver(() => {
    const height = note.hidden ? 0 : note.getBoundingClientRect().height;
    document.documentElement.style.setProperty("--presence-height", `${height}px`);
  }).observe(note);

  function showPresence(others) {
    const editable = !page.readOnly;
    const node = $("presence");
    const text = presenceText(others, { editable, choice });
    if (node.textContent !== text) node.textContent = text;
    node.hidden = !text;
    const live = $("presence-live");
    const said = presenceText(others, { editable, ages: false, choice });
    if (live.textContent !== said) live.textContent = said;
  }

  return { onSaveState, redrawSaveState, replayNext, loadHistory, toggleHistory, showPresence };
}
