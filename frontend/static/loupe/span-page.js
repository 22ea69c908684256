// The span workspace's page state, shared by its modules: the task, the two texts, the errors
// being edited, the caret and selection per side, the open menu, the saver.
// The page's basics ($, root, taskId, rebuild, the flash) are task-page.js, shared with the
// FAM workspace.
import { cleanError, normalizeErrors } from "./span-state.js";
import { flash as pageFlash } from "./task-page.js";

export { $, rebuild, root, taskId } from "./task-page.js";

export const W = {
  task: null,
  scheme: null,
  weights: { Minor: 0.5, Major: 2.5, Critical: 5 },
  texts: { summary: null, source: null }, // {sentences, text, cps, words, sentenceOf}; source null without text
  words: 0, // the summary's PolyTope word count
  errors: [], // in list order, each with its derived severity
  noErrors: false,
  current: -1, // the current error (list index)
  side: "summary", // where the caret is
  sels: { summary: { side: "summary", anchor: 0, caret: 0 }, source: { side: "source", anchor: 0, caret: 0 } },
  nodes: { summary: [], source: [] }, // word elements per side
  menu: null, // {step: "type" | "label", span: {side, start, end}, editing: index | -1, type}
  readOnly: false,
  server: null, // the server's state while a conflict is open
  historyOpen: false,
  dragging: false,
};

// The autosaver and the copies left by closed tabs, to replay one after the other.
export const ctx = { saver: null, replayQueue: [] };

// Drawing, registered by the entry so that actions and dialogs redraw without a module cycle.
export const ui = { render() {}, renderCaret() {}, renderList() {}, applyStatus() {} };

export const sel = () => W.sels[W.side];

// The state the saver sends: the errors without severity and the "no errors" mark.
export function state() {
  return { errors: W.errors.map(cleanError), no_errors: W.noErrors };
}

// Errors as the server holds them (any order, with or without severity), made regular.
export const fromServer = (errors) => normalizeErrors(W.scheme, errors);

export const flash = (message) => pageFlash(message, 3500);
