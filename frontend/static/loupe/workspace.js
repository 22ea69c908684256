// The FAM workspace: numbered document sentences on the left, facets on the right.
// All data comes from the JSON API; all text is set with textContent (never as HTML).
// This entry wires the keyboard and buttons and loads the task; the rest lives in
// state.js, actions.js, sentences-view.js, facets-view.js, suggest-view.js and dialogs.js;
// what it shares with the span workspace is task-page.js, task-actions.js and task-dialogs.js.
import { counted } from "./plural.js";
import { api } from "./api.js";
import * as fam from "./fam.js";
import { toggleInstructions } from "./instructions.js";
import { bindKeys } from "./keys.js";
import { claim, dropKey, leftovers, Saver } from "./saver.js";
import { pollSuggestions, SuggestionLog } from "./suggest.js";
import { dialogOpen, loadTask, watchPresence, wireTask } from "./task-page.js";
import { $, root, taskId, S, flash, currentGroup, state, ctx, ui } from "./state.js";
import {
  edit,
  move,
  toggle,
  selectFacet,
  newGroup,
  cycleGroup,
  deleteGroup,
  toggleLabel,
  nextTask,
  setCursor,
  submit,
  submitFromKeyboard,
  reopen,
} from "./actions.js";
import { acceptTop, nextScorer, toggleSuggestions, onSuggestions } from "./suggest-view.js";
import {
  onSaveState,
  loadHistory,
  toggleHistory,
  showConflict,
  applyMerge,
  keepMine,
  takeServer,
  showPresence,
  redrawSaveState,
} from "./dialogs.js";
import { buildSentences } from "./sentences-view.js";
import { applyStatus, buildFacets, render, renderSummary } from "./facets-view.js";

function bindKeyboard() {
  const keys = {
    g: newGroup,
    "[": () => cycleGroup(-1),
    "]": () => cycleGroup(1),
    x: () => deleteGroup(currentGroup()),
    a: acceptTop,
    A: nextScorer,
    u: () => toggleLabel("no_support"),
    o: () => toggleLabel("noise"),
    s: () => toggleSuggestions(),
    h: () => toggleHistory(),
    i: toggleInstructions,
    n: nextTask,
    "?": () => $("help").showModal(),
  };
  bindKeys(
    {
      next: () => move(1),
      previous: () => move(-1),
      toggle: () => S.cursor >= 0 && toggle(S.cursor),
      facet: (f) => {
        if (f >= S.facets.length) return false;
        selectFacet(f, { fromKeyboard: true });
        return true;
      },
      escape: () => S.historyOpen && toggleHistory(false),
      submit: submitFromKeyboard,
      keys,
    },
    dialogOpen,
  );
}

function wire() {
  bindKeyboard();
  wireTask({ page: S, ctx, toggleHistory, submit, reopen, keepMine, takeServer, redrawSaveState });
  $("toggle-suggestions").addEventListener("change", (e) => toggleSuggestions(e.target.checked));
  $("category").addEventListener("change", (e) => {
    const value = e.target.value;
    edit(() => {
      S.category = value;
    });
  });
  $("apply-merge").addEventListener("click", applyMerge);
}

async function main() {
  Object.assign(ui, { render, renderSummary, applyStatus });
  const task = await loadTask();
  if (!task) return;
  S.task = task;
  const n = task.facets_text.length;
  const server = { facets: fam.normalize(task.fam.facets, n), category: task.fam.category || "" };
  S.facets = server.facets;
  S.category = server.category;
  S.group = S.facets.map(() => 0);
  let version = task.fam.version;
  let base = server; // the state `version` holds: what a conflict is compared against
  let restored = false;
  // Copies left in this browser by tabs that are gone (closed, reloaded, crashed).
  const copies = leftovers(taskId).filter((copy) => {
    const local = { facets: fam.normalize(copy.facets, n), category: copy.category || "" };
    if (!fam.sameState(local, server)) return true;
    dropKey(copy.key); // the server has it already
    return false;
  });
  const editable = task.editable && task.status !== "submitted" && task.campaign.status !== "closed";
  if (copies.length && editable) {
    const first = claim(copies.shift());
    ctx.replayQueue = copies;
    S.facets = fam.normalize(first.facets, n);
    S.category = first.category || "";
    version = first.base_version;
    base = first.base || null;
    restored = true;
  }
  document.title = `${task.document.external_id} · Loupe`;
  $("doc-title").textContent = `Document ${task.document.external_id}`;
  const parts = [
    task.campaign.name,
    counted(task.document.sentences.length, "sentence"),
    counted(n, "facet"),
    task.campaign.blind ? "blind" : "not blind",
  ];
  if (!task.editable) parts.push(`annotator ${task.annotator}`);
  $("campaign-line").textContent = parts.join(" · ");
  ctx.saver = new Saver({
    taskId,
    version,
    base: base && fam.clone(base),
    send: (body) => api(`/api/tasks/${taskId}/fam/`, { method: "PUT", body }),
    onState: onSaveState,
    onConflict: showConflict,
    onSaved: () => {
      if (S.historyOpen) loadHistory();
    },
  });
  ctx.log = new SuggestionLog(taskId);
  buildSentences();
  buildFacets();
  $("toggle-suggestions").checked = S.show;
  applyStatus();
  wire();
  redrawSaveState();
  render();
  // Sentence 1 is the current one from the start: the first space acts on it.
  setCursor(0, { focus: !$("conflict").open });
  root.setAttribute("aria-busy", "false");
  if (restored) {
    ctx.saver.change(state(), { immediate: true });
    flash("Changes kept in this browser were restored and are being saved.");
  } else if (copies.length && task.editable && task.status === "submitted") {
    flash("This browser holds unsaved changes for this task: reopen it to save them.");
  }
  if ((task.campaign.scorers || []).length) pollSuggestions(taskId, onSuggestions);
  watchPresence(task, ctx, showPresence);
}

main();
