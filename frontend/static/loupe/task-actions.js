// What both workspaces do with their task as a whole: refuse an edit while read-only or while a
// conflict waits, move on only once the server has every change, submit (the button and
// Ctrl+Enter) and reopen. Each page makes its set once with taskActions(...).
import { api } from "./api.js";
import { leftovers, readPending } from "./saver.js";
import { $, taskId } from "./task-page.js";

// page: the page's state ({task, readOnly}); ctx: {saver, replayQueue}; ui: {render,
// applyStatus}; flash: the page's flash; noun: what the page calls its task ("task", "item");
// conflictFirst: the flash for an edit while a conflict waits; keepFirst: what to do first
// when moving on while a conflict waits; ready(): whether the task may be submitted (it says
// why not itself); beforeSubmit(): awaited once the changes are saved, before submitting.
export function taskActions({ page, ctx, ui, flash, noun, conflictFirst, keepFirst, ready = () => true, beforeSubmit = async () => {} }) {
  // Whether an edit is refused now (the flash says why).
  function editRefused() {
    if (page.readOnly) {
      flash(page.task.editable ? `The ${noun} is submitted: reopen it to make changes.` : "Read-only.");
      return true;
    }
    if (ctx.saver.conflict) {
      flash(conflictFirst);
      return true;
    }
    return false;
  }

  function notSavedMessage() {
    if (ctx.saver.conflict) return keepFirst;
    if (ctx.saver.state === "auth") return "Your session has ended: log in again (your changes are kept here), then press n.";
    return "Your changes are not on the server yet: they are kept here and retried. Press n again once Saved.";
  }

  async function nextTask() {
    // Never move on with changes the server has not confirmed.
    if (ctx.saver.stuck || ctx.replayQueue.length || !(await ctx.saver.flush(3000)) || ctx.saver.stuck) {
      flash(notSavedMessage());
      return;
    }
    const next = page.task.next_task;
    window.location.assign(next ? `/tasks/${next}/` : "/tasks/");
  }

  async function submit() {
    if (!ready()) return;
    const button = $("submit-btn");
    button.disabled = true;
    if (!(await ctx.saver.flush())) {
      flash("Your changes are not on the server yet: submit once the indicator says Saved.");
      button.disabled = false;
      return;
    }
    await beforeSubmit();
    try {
      const task = await api(`/api/tasks/${taskId}/submit/`, { method: "POST" });
      page.task.status = task.status;
      ui.applyStatus();
      ui.render();
      flash(`Submitted. Press n for the next ${noun}.`);
    } catch (error) {
      flash(`Could not submit: ${error.message}`);
    } finally {
      button.disabled = page.readOnly;
    }
  }

  // Ctrl+Enter: what a click on Submit does, only when the button could be clicked.
  function submitFromKeyboard() {
    const button = $("submit-btn");
    if (page.readOnly || button.hidden) {
      flash(page.task.editable ? `The ${noun} is submitted already.` : "Read-only.");
      return;
    }
    if (!button.disabled) submit();
  }

  async function reopen() {
    try {
      const task = await api(`/api/tasks/${taskId}/reopen/`, { method: "POST" });
      page.task.status = task.status;
      if (readPending(taskId) || leftovers(taskId).length) {
        window.location.reload(); // resume the changes this browser still holds
        return;
      }
      ui.applyStatus();
      ui.render();
      flash("Reopened: your changes save again.");
    } catch (error) {
      flash(`Could not reopen: ${error.message}`);
    }
  }

  return { editRefused, notSavedMessage, nextTask, submit, submitFromKeyboard, reopen };
}
