// Span workspace actions: the caret and the selection, the keyed menus that make an error,
// changing and deleting errors, the reason, "no errors", next item, submit and reopen (the
// task's next, submit and reopen are task-actions.js, shared with the FAM workspace).
import * as st from "./span-state.js";
import { $, W, ctx, flash, sel, state, ui } from "./span-page.js";
import { closeMenu, drawMenu, menuFocus, sevClass } from "./span-view.js";
import { taskActions } from "./task-actions.js";

const MENU_FIRST = "Pick from the menu with its number keys, or press Esc to cancel.";

const task = taskActions({
  page: W,
  ctx,
  ui,
  flash,
  noun: "item",
  conflictFirst: "These errors were saved elsewhere: choose which list to keep first (this change was not made).",
  keepFirst: "Choose which list of errors to keep first.",
  // Submit only once something is said: errors marked, or "no errors".
  ready: () => {
    if (W.errors.length || W.noErrors) return true;
    flash("Nothing is marked yet: mark the errors, or press 0 if the summary has none.");
    return false;
  },
});

export const { submit, submitFromKeyboard, reopen } = task;

// The PolyTope families, for the subtype menu.
const FLUENCY = new Set(["Duplication", "Word Order", "Word Form"]);

// Apply a change to the errors, keep them in list order, save (debounced) and redraw.
// select: an error (object) to make the current one afterwards. Refused while read-only or
// while a conflict waits for a choice.
export function edit(change, { select = null, redraw = true } = {}) {
  if (task.editRefused()) return false;
  const current = select || W.errors[W.current] || null;
  change();
  W.errors = st.sortErrors(W.errors);
  const at = current ? W.errors.indexOf(current) : -1;
  W.current = at >= 0 ? at : Math.min(W.current, W.errors.length - 1);
  ctx.saver.change(state());
  if (redraw) ui.render();
  return true;
}

// --- the caret ------------------------------------------------------------------------------

function text(side = W.side) {
  return W.texts[side];
}

// What the selection marks: {side, start, end, words} (code point offsets), or null.
function selectedSpan(side = W.side) {
  const t = text(side);
  if (!t || !t.words.length) return null;
  const [lo, hi] = st.selectionRange(W.sels[side]);
  const { start, end } = st.wordSpan(t.cps, t.words, lo, hi);
  return { side, start, end, words: t.cps.slice(start, end).join(""), count: hi - lo + 1 };
}

// Say what is selected (visibly, and in a live region for screen readers).
export function announce() {
  const span = selectedSpan();
  const line = $("sel-line");
  if (!span) {
    line.textContent = W.side === "source" ? "The release has no article text." : "The summary is empty.";
    return;
  }
  const what = `“${span.words}” in the ${span.side}`;
  line.replaceChildren();
  line.append(`Selected: ${what} `);
  const hint = document.createElement("span");
  hint.className = "muted";
  hint.textContent = W.readOnly ? "(read-only)" : "· Enter to mark it";
  line.append(hint);
  $("sel-live").textContent = `${what}${span.count > 1 ? `, ${span.count} words` : ""}`;
}

function caretMoved(scroll = true) {
  ui.renderCaret();
  announce();
  if (scroll) {
    const node = W.nodes[W.side][sel().caret];
    if (node) node.scrollIntoView({ block: "nearest" });
  }
}

export function move(delta, extend = false) {
  if (W.menu) return flash(MENU_FIRST);
  const t = text();
  if (!t) return undefined;
  W.sels[W.side] = st.moveCaret(sel(), delta, t.words.length, extend);
  caretMoved();
  return undefined;
}

export function moveSentence(delta, extend = false) {
  if (W.menu) return flash(MENU_FIRST);
  const t = text();
  if (!t) return undefined;
  W.sels[W.side] = st.moveSentence(sel(), delta, t.sentenceOf, extend);
  caretMoved();
  return undefined;
}

// Put the caret on word w of `side` (a click); extend keeps the anchor (Shift).
export function setCaret(side, w, extend = false) {
  if (!text(side)) return;
  if (W.menu) cancelMenu({ focus: false });
  W.side = side;
  const current = W.sels[side];
  W.sels[side] = { side, caret: w, anchor: extend ? current.anchor : w };
  caretMoved(false);
}

export function focusPane(side = W.side) {
  const pane = $(side);
  if (pane && document.activeElement !== pane) pane.focus({ preventScroll: true });
}

// Move the caret to the other text (Omissions are marked in the source).
export function switchSide() {
  if (W.menu) return flash(MENU_FIRST);
  const other = W.side === "summary" ? "source" : "summary";
  if (!text(other)) {
    flash("The release has no article text: there is no source to mark in.");
    return undefined;
  }
  W.side = other;
  caretMoved();
  focusPane();
  return undefined;
}

// --- the menus ------------------------------------------------------------------------------

const otherSideMissing = (type) => {
  const sides = st.sidesFor(W.scheme, type).filter((side) => side !== "none");
  return sides.length > 0 && sides.every((side) => !text(side)) && st.sidesFor(W.scheme, type).includes("none");
};

function typeOptions(span) {
  return W.scheme.types.map((type) => {
    const on = st.typeOnSide(W.scheme, type, span.side);
    const family = W.scheme.name === "polytope" ? (FLUENCY.has(type) ? "Fluency" : "Accuracy") : "";
    if (!on.ok && span.side !== "none" && otherSideMissing(type)) {
      return { label: type, detail: "no span: the release has no article text", enabled: true, value: type, noSpan: true };
    }
    return { label: type, detail: family, enabled: on.ok, reason: on.reason, short: on.ok ? "" : `in the ${span.side === "summary" ? "source" : "summary"}`, value: type };
  });
}

function labelOptions(type) {
  return W.scheme.labels.map((label) => {
    const severity = st.severityOf(W.scheme, type, label);
    if (severity === null) {
      return { label, enabled: false, short: "N/A", reason: st.notAllowedReason(type, label), value: label };
    }
    return { label, detail: severity, detailClass: sevClass(severity), enabled: true, reason: `Severity ${severity}`, value: label };
  });
}

function showMenu() {
  const menu = W.menu;
  if (menu.step === "type") {
    const where = menu.span.side === "none" ? "an error without a span" : `“${menu.span.words}” in the ${menu.span.side}`;
    menu.options = typeOptions(menu.span);
    const focus = menu.editing >= 0 ? W.scheme.types.indexOf(W.errors[menu.editing].type) : -1;
    drawMenu(`${menu.editing >= 0 ? `Error ${menu.editing + 1}: change the subtype of` : "Subtype of"} ${where}`, menu.options, { focus, onPick: pick });
  } else {
    menu.options = labelOptions(menu.type);
    const focus = menu.editing >= 0 && W.errors[menu.editing].type === menu.type ? W.scheme.labels.indexOf(W.errors[menu.editing].label) : -1;
    drawMenu(`Label of this ${menu.type} (the severity follows from the matrix)`, menu.options, { focus, onPick: pick });
  }
  menuNote();
}

// The note under the menu: the focused option's severity, or why it is not allowed.
export function menuNote(index = -1) {
  if (!W.menu) return;
  const option = W.menu.options[index];
  const note = $("menu-note");
  if (!option) {
    note.textContent = W.menu.step === "type" ? "Press a number to choose; Esc cancels." : "Press a number to choose; Esc goes back to the subtype.";
    note.className = "menu-note";
    return;
  }
  if (!option.enabled) {
    note.textContent = `Not allowed: ${option.reason}`;
    note.className = "menu-note na";
  } else if (W.menu.step === "label") {
    note.textContent = `${W.menu.type} / ${option.label}: severity ${option.detail}.`;
    note.className = `menu-note ${option.detailClass || ""}`;
  } else {
    note.textContent = option.noSpan ? `${option.label}, without a span (the release has no article text).` : `${option.label}${option.detail ? ` (${option.detail})` : ""}.`;
    note.className = "menu-note";
  }
}

// Open the subtype menu for the selection (Enter, m, space).
export function mark() {
  if (W.menu) return flash(MENU_FIRST);
  if (W.readOnly || ctx.saver.conflict) return edit(() => {});
  const span = selectedSpan();
  if (!span) {
    flash("There is nothing to select here.");
    return undefined;
  }
  W.menu = { step: "type", span, editing: -1, type: null };
  showMenu();
  return undefined;
}

// Change the current error's subtype and label (its span stays).
export function editCurrent() {
  if (W.menu) return flash(MENU_FIRST);
  const error = W.errors[W.current];
  if (!error) {
    flash("No error is selected: [ and ] go through the list.");
    return undefined;
  }
  if (W.readOnly || ctx.saver.conflict) return edit(() => {});
  W.menu = { step: "type", span: { side: error.side, start: error.start, end: error.end, words: error.words }, editing: W.current, type: null };
  showMenu();
  return undefined;
}

// Pick option i of the open menu (a number key or a click).
export function pick(i) {
  const menu = W.menu;
  if (!menu || !menu.options[i]) return false;
  const option = menu.options[i];
  if (!option.enabled) {
    menuNote(i);
    flash(`Not allowed: ${option.reason}`);
    return true;
  }
  if (menu.step === "type") {
    menu.type = option.value;
    menu.noSpan = Boolean(option.noSpan);
    if (W.scheme.labels.length) {
      menu.step = "label";
      showMenu();
    } else commit(option.value, "");
  } else commit(menu.type, option.value);
  return true;
}

function commit(type, label) {
  const menu = W.menu;
  let error;
  if (menu.editing >= 0) {
    error = st.withSeverity(W.scheme, { ...W.errors[menu.editing], type, label });
  } else if (menu.noSpan) {
    error = st.makeError(W.scheme, { side: "none", type, label });
  } else {
    const { side, start, end } = menu.span;
    error = st.makeError(W.scheme, { side, start, end, cps: text(side).cps, type, label });
  }
  const repeat = st.findRepeat(W.errors, error, menu.editing);
  if (repeat >= 0) {
    flash(`Error ${repeat + 1} already marks these words as ${type}${label ? ` / ${label}` : ""}.`);
    return;
  }
  const wasClean = W.noErrors;
  const editing = menu.editing;
  cancelMenu();
  const done = edit(
    () => {
      if (editing >= 0) W.errors[editing] = error;
      else W.errors.push(error);
      W.noErrors = false;
    },
    { select: error },
  );
  if (!done) return;
  const verb = editing >= 0 ? "Changed" : "Marked";
  flash(`${verb} error ${W.current + 1}: ${st.describeError(error)}.${wasClean ? ' The "no errors" mark is removed.' : ""}`);
}

// Close the menu (Esc at the subtype step, a click in a text) and give the focus back.
export function cancelMenu({ focus = true } = {}) {
  W.menu = null;
  closeMenu();
  if (focus) focusPane();
}

// Esc: back from the label to the subtype, close the menu, else shrink the selection.
export function escape() {
  if (W.menu) {
    if (W.menu.step === "label") {
      W.menu.step = "type";
      showMenu();
    } else cancelMenu();
    return;
  }
  if (W.historyOpen) {
    ui.toggleHistory(false);
    return;
  }
  const current = sel();
  if (current.anchor !== current.caret) {
    W.sels[W.side] = { ...current, anchor: current.caret };
    caretMoved(false);
  }
}

// Up and down: within an open menu, else by sentence.
export function upDown(delta, extend) {
  if (W.menu) {
    menuFocus(delta);
    return;
  }
  moveSentence(delta, extend);
}

// --- the list -------------------------------------------------------------------------------

// Make error i the current one and show it: the caret goes onto its words.
export function selectError(i, { focusList = false } = {}) {
  if (W.menu) return flash(MENU_FIRST);
  if (i < 0 || i >= W.errors.length) return undefined;
  W.current = i;
  const error = W.errors[i];
  const t = text(error.side);
  if (t && error.side !== "none") {
    const inside = t.words.map((word, w) => (word.start < error.end && word.end > error.start ? w : -1)).filter((w) => w >= 0);
    if (inside.length) {
      W.side = error.side;
      W.sels[error.side] = { side: error.side, anchor: inside[0], caret: inside[inside.length - 1] };
    }
  }
  ui.render();
  announce();
  const node = W.nodes[W.side][sel().caret];
  if (node && error.side !== "none") node.scrollIntoView({ block: "nearest" });
  const item = document.querySelector(`#errors li[data-index="${i}"]`);
  if (item) {
    item.scrollIntoView({ block: "nearest" });
    if (focusList) item.querySelector(".ehead").focus();
  }
  return undefined;
}

export function cycleError(delta) {
  const n = W.errors.length;
  if (!n) {
    flash("No error is marked yet.");
    return;
  }
  selectError(W.current < 0 ? (delta > 0 ? 0 : n - 1) : (W.current + delta + n) % n);
}

export function removeError(i = W.current) {
  if (W.menu) return flash(MENU_FIRST);
  const error = W.errors[i];
  if (!error) {
    flash("No error is selected: [ and ] go through the list.");
    return undefined;
  }
  const next = W.errors[i + 1] || W.errors[i - 1] || null;
  if (edit(() => W.errors.splice(i, 1), { select: next })) {
    flash(`Deleted error ${i + 1}: ${st.describeError(error)} (it stays in the history).`);
    if (!W.errors.length) $("summary").focus();
  }
  return undefined;
}

// The current error's reason, as typed (saved like every change; no redraw while typing).
export function setReason(i, value, input) {
  const done = edit(
    () => {
      W.errors[i].reason = value;
    },
    { select: W.errors[i], redraw: false },
  );
  if (!done) input.value = W.errors[i].reason;
}

export function focusReason() {
  if (W.menu) return flash(MENU_FIRST);
  const input = $("reason-input");
  if (!input) {
    flash("No error is selected: [ and ] go through the list.");
    return undefined;
  }
  if (W.readOnly) return edit(() => {});
  input.focus();
  return undefined;
}

// 0: the summary has no errors (only when none is marked); again: the mark goes.
export function toggleNoErrors() {
  if (W.menu) return flash(MENU_FIRST);
  if (!W.noErrors && W.errors.length) {
    const n = W.errors.length;
    flash(`${n} error${n > 1 ? "s are" : " is"} marked: delete ${n > 1 ? "them" : "it"} first (x) to say the summary has no errors.`);
    return undefined;
  }
  const clean = !W.noErrors;
  if (edit(() => (W.noErrors = clean))) {
    flash(clean ? "Marked: this summary has no errors. Press 0 again to undo." : 'The "no errors" mark is removed.');
  }
  return undefined;
}

// --- next, submit, reopen -------------------------------------------------------------------

// Not while a menu is open; else the shared move to the next item (once everything is saved).
export function nextTask() {
  if (W.menu) return flash(MENU_FIRST);
  return task.nextTask();
}
