// Workspace actions: cursor and facet moves, group edits, labels, next task, submit, reopen
// (the task's next, submit and reopen are task-actions.js, shared with the span workspace).
import * as fam from "./fam.js";
import { taskActions } from "./task-actions.js";
import { S, flash, currentGroup, state, ctx, ui } from "./state.js";

// Submit only when every facet is done (else say which are not and go to the first).
function ready() {
  const open = S.facets.map((f, i) => (fam.isResolved(f) ? -1 : i)).filter((i) => i >= 0);
  if (!open.length) return true;
  const list = open.map((i) => i + 1).join(", ");
  flash(`Facet ${list} ${open.length > 1 ? "are" : "is"} not done: add a group or mark it no support or noise.`);
  selectFacet(open[0]);
  return false;
}

const task = taskActions({
  page: S,
  ctx,
  ui,
  flash,
  noun: "task",
  conflictFirst: "This task was saved elsewhere: choose what to keep first (this change was not made).",
  keepFirst: "Choose which state to keep first.",
  ready,
  // Every suggestion shown but never accepted is logged as ignored before submitting.
  beforeSubmit: async () => {
    ctx.log.markIgnored();
    await ctx.log.flush();
  },
});

export const { nextTask, submit, submitFromKeyboard, reopen } = task;

// Apply a change to the FAM, then save (debounced) and redraw.
// Refused while a conflict waits for a choice, from the 409 on: the dialog may still be
// reading the history, and its choice is applied to the state it showed.
export function edit(change, { redraw = true } = {}) {
  if (task.editRefused()) {
    // A conflict: the controls show the state again (the category, a label's radio).
    if (!S.readOnly) ui.render();
    return false;
  }
  change();
  ctx.saver.change(state());
  if (redraw) ui.render();
  else ui.renderSummary();
  return true;
}

export function setCursor(i, { focus = true } = {}) {
  const n = S.sentences.length;
  if (!n) return;
  S.cursor = Math.max(0, Math.min(i, n - 1));
  S.sentences.forEach((li, j) => {
    li.tabIndex = j === S.cursor ? 0 : -1;
    li.classList.toggle("cursor", j === S.cursor);
  });
  if (focus) {
    S.sentences[S.cursor].focus({ preventScroll: true });
    S.sentences[S.cursor].scrollIntoView({ block: "nearest" });
  }
}

export function move(delta) {
  setCursor(S.cursor < 0 ? 0 : S.cursor + delta);
}

export function toggle(sentence) {
  const f = S.facet;
  edit(() => {
    S.group[f] = fam.toggleSentence(S.facets, f, currentGroup(f), sentence);
  });
}

export function selectFacet(f, { fromKeyboard = false } = {}) {
  if (f < 0 || f >= S.facets.length) return;
  S.facet = f;
  ui.render();
  if (fromKeyboard) {
    if (S.cursor >= 0) setCursor(S.cursor);
    else if (document.activeElement && document.activeElement !== document.body) {
      document.activeElement.blur();
    }
  }
  S.cards[f].li.scrollIntoView({ block: "nearest" });
}

export function newGroup() {
  if (S.readOnly) return edit(() => {});
  const f = S.facet;
  const facet = S.facets[f];
  const empty = facet.groups.findIndex((group) => !group.length);
  if (empty >= 0) {
    S.group[f] = empty; // reuse the empty group instead of stacking empty ones
  } else {
    facet.groups.push([]);
    S.group[f] = facet.groups.length - 1;
  }
  ui.render(); // nothing to save until a sentence goes into it
  flash(`Group ${S.group[f] + 1} of facet ${f + 1}: add its sentences.`);
}

export function cycleGroup(delta) {
  const groups = S.facets[S.facet].groups;
  if (!groups.length) return;
  S.group[S.facet] = (currentGroup() + delta + groups.length) % groups.length;
  ui.render();
}

export function deleteGroup(g) {
  const f = S.facet;
  if (g < 0 || g >= S.facets[f].groups.length) return;
  edit(() => {
    S.facets[f].groups.splice(g, 1);
    S.group[f] = Math.max(0, Math.min(g, S.facets[f].groups.length - 1));
  });
}

export function setLabel(f, label) {
  const hadGroups = S.facets[f].groups.some((group) => group.length);
  if (edit(() => fam.setLabel(S.facets, f, label)) && hadGroups && label !== "supported") {
    flash(`Facet ${f + 1}: its groups were removed (they stay in the history).`);
  }
}

// Keyboard: mark the current facet no support / noise, or back to supported.
export function toggleLabel(label) {
  setLabel(S.facet, S.facets[S.facet].label === label ? "supported" : label);
}
