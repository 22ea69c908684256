// A campaign's progress as DOM: the totals with a bar, one row per annotator (done, in progress,
// not started, time per task, last activity) and one row per task. Data from
// GET /api/campaigns/<id>/progress/; text goes in with textContent only.
import { el, when } from "./api.js";
import { duration, num, taskBadge } from "./manage-format.js";
import { counted } from "./plural.js";

const PARTS = [
  ["done", "done"],
  ["in_progress", "in progress"],
  ["not_started", "not started"],
];

// "3 done · 1 in progress · 2 not started, of 6 tasks" with a bar of the share done.
export function totalsNodes(totals) {
  const total = totals.total || 0;
  const bar = el("progress", null, { max: String(Math.max(total, 1)), value: String(totals.done || 0), "aria-labelledby": "totals-text" });
  const text = el("p", null, { id: "totals-text" });
  if (!total) {
    text.textContent = "No tasks assigned yet.";
    return [text];
  }
  const parts = PARTS.map(([key, words]) => {
    const span = el("span", `${totals[key] || 0} ${words}`, { class: `mg-count ${key}`, "data-count": key });
    return span;
  });
  text.append(parts[0], " · ", parts[1], " · ", parts[2], `, of ${counted(total, "task")}`);
  const share = Math.round((100 * (totals.done || 0)) / total);
  text.append(el("span", ` (${share}% done)`, { class: "muted" }));
  return [bar, text];
}

export function annotatorRow(a) {
  const row = el("tr", null, { "data-annotator": a.username });
  row.append(
    el("th", a.username, { scope: "row" }),
    num(a.done),
    num(a.in_progress),
    num(a.not_started),
    num(a.total),
    num(duration(a.seconds_per_task_median)),
    num(duration(a.seconds_per_task_mean)),
    el("td", a.last_activity ? when(a.last_activity) : "—"),
  );
  return row;
}

// One task's row; actions(task) gives the last cell's content (a Reassign button, or nothing).
export function taskRow(task, { showSystem, actions }) {
  const row = el("tr", null, { "data-task": task.id, "data-status": task.status });
  const status = el("td");
  status.append(taskBadge(task.status));
  const docId = typeof task.document === "object" && task.document ? task.document.external_id : task.document;
  const cells = [num(task.id), el("td", docId, { class: "docid" })];
  if (showSystem) cells.push(el("td", task.system || "—"));
  const last = el("td", null, { class: "row-actions" });
  const content = actions(task);
  if (content) last.append(content);
  cells.push(
    el("td", task.annotator),
    status,
    num(task.seconds === null || task.seconds === undefined ? "—" : duration(task.seconds)),
    el("td", task.last_edit ? when(task.last_edit) : "—"),
    el("td", task.submitted_at ? when(task.submitted_at) : "—"),
    last,
  );
  row.append(...cells);
  return row;
}
