// The PolyTope span workspace: the source and the summary side by side, a word caret moved by
// the keyboard (or clicks), keyed menus for the subtype and the label, the errors drawn in both
// texts with their severity and listed in order, the live segment score. All data comes from
// the JSON API and all text is set with textContent. This entry draws the page, wires the
// keyboard, the pointer and the buttons, and loads the task; the rest lives in span-state.js
// (pure), span-page.js, span-actions.js, span-view.js and span-dialogs.js. Saving, presence
// and the keyboard dispatch are the FAM workspace's (saver.js, presence.js, keys.js), and so
// are the page's basics, the task's actions and panels (task-page.js, task-actions.js,
// task-dialogs.js).
import { api, el } from "./api.js";
import { toggleInstructions } from "./instructions.js";
import { bindKeys } from "./keys.js";
import { counted } from "./plural.js";
import { dropKey, leftovers, Saver } from "./saver.js";
import * as st from "./span-state.js";
import { $, W, ctx, flash, fromServer, rebuild, root, sel, taskId, ui } from "./span-page.js";
import * as act from "./span-actions.js";
import * as dialogs from "./span-dialogs.js";
import { drawCaret, drawMatrix, drawScore, drawText, errorItems } from "./span-view.js";
import { dialogOpen, loadTask, watchPresence, wireTask } from "./task-page.js";

// --- drawing --------------------------------------------------------------------------------

function renderCaret() {
  for (const side of st.SIDES) drawCaret(W.nodes[side], W.sels[side], side, W.side === side);
  for (const side of st.SIDES) $(`${side}-pane`).classList.toggle("active", W.side === side);
}

function renderTexts() {
  W.nodes.summary = drawText($("summary"), "summary", W.texts.summary, W.errors, W.current);
  if (W.texts.source) W.nodes.source = drawText($("source"), "source", W.texts.source, W.errors, W.current);
  renderCaret();
}

function renderList() {
  const handlers = {
    select: (i) => act.selectError(i, { focusList: true }),
    edit: (i) => {
      act.selectError(i);
      act.editCurrent();
    },
    remove: (i) => act.removeError(i),
    reason: (i, value, input) => act.setReason(i, value, input),
  };
  rebuild($("errors"), () => errorItems(W.errors, W.current, { readOnly: W.readOnly, handlers }));
  const n = W.errors.length;
  $("errors-count").textContent = n ? `${n} marked` : "";
  const button = $("no-errors-btn");
  button.setAttribute("aria-pressed", String(W.noErrors));
  button.disabled = W.readOnly;
  button.classList.toggle("on", W.noErrors);
  $("clean-note").hidden = !W.noErrors;
}

function renderScore() {
  drawScore(st.liveScore(W.errors, W.words, W.weights), { noErrors: W.noErrors, count: W.errors.length });
}

function renderOthers() {
  const others = W.task.others || [];
  const box = $("others");
  if (!others.length) {
    box.replaceChildren();
    return;
  }
  const items = [el("h3", "Other annotators")];
  for (const other of others) {
    const errors = fromServer(other.errors || []);
    const head = `${other.annotator}: ${errors.length ? counted(errors.length, "error") : other.no_errors ? "no errors" : "nothing yet"}`;
    const list = el("ul", null, { class: "other-errors" });
    list.append(...errors.map((error) => el("li", st.describeError(error))));
    items.push(el("p", head, { class: "other" }), list);
  }
  box.replaceChildren(...items);
}

function render() {
  renderTexts();
  renderList();
  renderScore();
  act.announce();
}

function applyStatus() {
  const task = W.task;
  const submitted = task.status === "submitted";
  const open = task.campaign.status !== "closed";
  W.readOnly = !task.editable || submitted || !open;
  root.classList.toggle("readonly", W.readOnly);
  const submit = $("submit-btn");
  submit.hidden = !task.editable;
  submit.disabled = W.readOnly;
  $("banner").hidden = !W.readOnly;
  $("reopen-btn").hidden = !(task.editable && submitted && open);
  const next = $("banner-next");
  next.hidden = !submitted;
  next.href = task.next_task ? `/tasks/${task.next_task}/` : "/tasks/";
  next.textContent = task.next_task ? "Next item" : "My tasks";
  let text = "";
  if (!task.editable) text = `${task.annotator}'s item, read-only.`;
  else if (submitted) text = "Submitted. Reopen it to make changes.";
  else if (!open) text = "The campaign is closed: this item is read-only.";
  $("banner-text").textContent = text;
  if (W.readOnly && W.menu) act.cancelMenu({ focus: false });
}

// --- input ----------------------------------------------------------------------------------

const CONTROL = "button, a, input, select, textarea, summary";

function bindKeyboard() {
  const onControl = (e) => e.target instanceof Element && e.target.matches(CONTROL);
  const keys = {
    ArrowLeft: (e) => act.move(-1, e.shiftKey),
    ArrowRight: (e) => act.move(1, e.shiftKey),
    h: () => act.move(-1),
    l: () => act.move(1),
    H: () => act.move(-1, true),
    L: () => act.move(1, true),
    ArrowUp: (e) => act.upDown(-1, e.shiftKey),
    ArrowDown: (e) => act.upDown(1, e.shiftKey),
    K: () => act.upDown(-1, true),
    J: () => act.upDown(1, true),
    s: () => act.switchSide(),
    Enter: (e) => (onControl(e) || W.menu ? false : act.mark()),
    m: () => act.mark(),
    "[": () => act.cycleError(-1),
    "]": () => act.cycleError(1),
    e: () => act.editCurrent(),
    x: () => act.removeError(),
    Delete: () => act.removeError(),
    r: () => act.focusReason(),
    0: () => act.toggleNoErrors(),
    v: () => dialogs.toggleHistory(),
    i: toggleInstructions,
    n: () => act.nextTask(),
    "?": () => $("help").showModal(),
  };
  bindKeys(
    {
      next: () => act.upDown(1, false),
      previous: () => act.upDown(-1, false),
      toggle: () => (W.menu ? undefined : act.mark()),
      facet: (i) => (W.menu ? act.pick(i) : false),
      escape: () => act.escape(),
      submit: act.submitFromKeyboard,
      keys,
    },
    dialogOpen,
  );
}

// Words are picked with the pointer: press on a word, drag or shift-click to extend.
function bindPointer(side) {
  const pane = $(side);
  const wordOf = (target) => {
    const node = target instanceof Element ? target.closest(".w") : null;
    return node && pane.contains(node) ? Number(node.dataset.w) : -1;
  };
  pane.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    const w = wordOf(e.target);
    if (w < 0) return;
    e.preventDefault(); // no native text selection: the words are the selection
    act.setCaret(side, w, e.shiftKey && W.side === side);
    W.dragging = side;
    act.focusPane(side);
  });
  pane.addEventListener("pointerover", (e) => {
    if (W.dragging !== side) return;
    const w = wordOf(e.target);
    if (w >= 0 && w !== sel().caret) act.setCaret(side, w, true);
  });
  pane.addEventListener("focus", () => {
    if (W.side !== side && W.texts[side] && !W.menu) {
      W.side = side;
      renderCaret();
      act.announce();
    }
  });
}

function wire() {
  bindKeyboard();
  for (const side of st.SIDES) bindPointer(side);
  window.addEventListener("pointerup", () => {
    W.dragging = false;
  });
  $("menu-options").addEventListener("focusin", (e) => {
    const button = e.target.closest("button.opt");
    if (button) act.menuNote(Number(button.dataset.option));
  });
  $("no-errors-btn").addEventListener("click", () => act.toggleNoErrors());
  wireTask({
    page: W,
    ctx,
    toggleHistory: dialogs.toggleHistory,
    submit: act.submit,
    reopen: act.reopen,
    keepMine: dialogs.keepMine,
    takeServer: dialogs.takeServer,
    redrawSaveState: dialogs.redrawSaveState,
  });
}

// --- loading --------------------------------------------------------------------------------

function makeText(sentences) {
  const text = st.joinSentences(sentences);
  const cps = st.chars(text);
  const words = st.tokenize(cps);
  return { sentences: sentences || [], text, cps, words, sentenceOf: st.wordSentences(sentences, words) };
}

function describeTask(task) {
  const output = task.output || {};
  const system = output.system ? `system ${output.system.name || output.system.slug}` : "system hidden";
  $("system-line").textContent = output.system ? output.system.name || output.system.slug : "system hidden (blind)";
  document.title = `${task.document.external_id} · Loupe`;
  const item = task.item || {};
  $("doc-title").textContent = item.of
    ? `Document ${task.document.external_id} · summary ${item.position} of ${item.of}`
    : `Document ${task.document.external_id}`;
  const parts = [task.campaign.name];
  if (item.documents) parts.push(`document ${item.document_position} of ${item.documents}`);
  parts.push(system, counted(W.words, "word"), W.scheme.title || W.scheme.name);
  if (!task.editable) parts.push(`annotator ${task.annotator}`);
  $("campaign-line").textContent = parts.join(" · ");
}

async function main() {
  Object.assign(ui, { render, renderCaret, renderList, applyStatus, toggleHistory: dialogs.toggleHistory });
  const task = await loadTask();
  if (!task) return;
  W.task = task;
  W.scheme = task.scheme;
  if (task.weights) W.weights = task.weights;
  W.texts.summary = makeText((task.output && task.output.sentences) || []);
  W.texts.source = task.document.text_missing ? null : makeText(task.document.sentences);
  W.words = st.countWords(W.texts.summary.text);
  const spans = task.spans || { errors: [], no_errors: false, version: 1 };
  const server = { errors: spans.errors || [], no_errors: Boolean(spans.no_errors) };
  W.errors = fromServer(server.errors);
  W.noErrors = server.no_errors;
  // Copies left in this browser by tabs that are gone (closed, reloaded, crashed).
  const copies = leftovers(taskId).filter((copy) => {
    if (copy.kind !== "spans") return false;
    if (!st.sameSpans(copy, server)) return true;
    dropKey(copy.key); // the server has it already
    return false;
  });
  const open = task.campaign.status !== "closed";
  const editable = task.editable && task.status !== "submitted" && open;
  describeTask(task);
  if (!W.texts.source) {
    $("source").replaceChildren(el("p", "The release has no article text.", { class: "muted no-text" }));
  }
  ctx.saver = new Saver({
    taskId,
    version: spans.version,
    base: server,
    format: st.SPAN_FORMAT,
    send: (body) => api(`/api/tasks/${taskId}/spans/`, { method: "PUT", body }),
    onState: dialogs.onSaveState,
    onConflict: dialogs.showConflict,
    onSaved: () => {
      if (W.historyOpen) dialogs.loadHistory();
    },
  });
  drawMatrix($("help-matrix-table"), W.scheme, W.weights);
  applyStatus();
  wire();
  W.current = W.errors.length ? 0 : -1;
  if (copies.length && editable) {
    ctx.replayQueue = copies.slice(1);
    dialogs.restoreCopy(copies[0]);
    flash("Changes kept in this browser were restored and are being saved.");
  } else if (copies.length && task.editable && task.status === "submitted" && open) {
    flash("This browser holds unsaved changes for this item: reopen it to save them.");
  } else if (copies.length && task.editable && !open) {
    flash("This browser holds changes to this item that were not saved, but the campaign is closed.");
  }
  dialogs.redrawSaveState();
  renderOthers();
  render();
  for (const side of st.SIDES) $(side).tabIndex = W.texts[side] ? 0 : -1;
  act.focusPane("summary");
  root.setAttribute("aria-busy", "false");
  watchPresence(task, ctx, dialogs.showPresence);
}

main();
