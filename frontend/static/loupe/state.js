// Workspace state shared by its modules: the task, the FAM being edited, the saver and log.
import * as fam from "./fam.js";

export const $ = (id) => document.getElementById(id);

export const root = $("workspace");

export const taskId = Number(root.dataset.taskId);

export const S = {
  task: null,
  facets: [],
  category: "",
  facet: 0,
  group: [], // the current group of each facet
  cursor: -1, // the focused sentence
  suggestions: { status: "pending", scorers: {} },
  show: localStorage.getItem("loupe:show-suggestions") !== "0",
  readOnly: false,
  server: null, // the server's state while a conflict is open
  letters: {},
  sentences: [], // <li> per sentence
  cards: [], // per facet: {li, head, status, body, groups, radios, note, sugg, others}
  historyOpen: false,
};

let flashTimer;

export function flash(message) {
  const node = $("flash");
  node.textContent = message;
  node.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => {
    node.hidden = true;
  }, 3000);
}

export function currentGroup(f = S.facet) {
  const groups = S.facets[f].groups;
  if (!groups.length) return -1;
  return Math.max(0, Math.min(S.group[f] ?? 0, groups.length - 1));
}

// Rebuild a container's children, keeping keyboard focus on the element with the same key.
export function rebuild(container, build) {
  const active = document.activeElement;
  const key = container.contains(active) && active.dataset ? active.dataset.focusKey : null;
  container.replaceChildren(...build());
  if (key) {
    const again = container.querySelector(`[data-focus-key="${key}"]`);
    if (again) again.focus();
  }
}

export function state() {
  return { facets: fam.clone(S.facets), category: S.category };
}

// Set by main(): the autosaver, the suggestion log, copies left by closed tabs to replay.
export const ctx = { saver: null, log: null, replayQueue: [] };

// Drawing functions, registered by the entry (workspace.js) so that actions and dialogs can
// redraw without importing the views (static module imports must not form a cycle).
export const ui = { render() {}, renderSummary() {}, applyStatus() {} };
