// Workspace state shared by its modules: the task, the FAM being edited, the saver and log.
// The page's basics ($, root, taskId, rebuild, the flash) are task-page.js, shared with the
// span workspace.
import * as fam from "./fam.js";
import { flash as pageFlash } from "./task-page.js";

export { $, rebuild, root, taskId } from "./task-page.js";

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
  tags: {}, // scorer -> its short tag in the badges ("R-1")
  scorer: null, // the current scorer: the one whose pick "a" adds
  sentences: [], // <li> per sentence
  cards: [], // per facet: {li, head, status, body, groups, radios, note, sugg, others}
  historyOpen: false,
};

export const flash = (message) => pageFlash(message, 3000);

export function currentGroup(f = S.facet) {
  const groups = S.facets[f].groups;
  if (!groups.length) return -1;
  return Math.max(0, Math.min(S.group[f] ?? 0, groups.length - 1));
}

export function state() {
  return { facets: fam.clone(S.facets), category: S.category };
}

// Set by main(): the autosaver, the suggestion log, copies left by closed tabs to replay.
export const ctx = { saver: null, log: null, replayQueue: [] };

// Drawing functions, registered by the entry (workspace.js) so that actions and dialogs can
// redraw without importing the views (static module imports must not form a cycle).
export const ui = { render() {}, renderSummary() {}, applyStatus() {} };
