// My tasks: progress (done / total), a link to the next unfinished task, the list with
// open and reopen buttons. Everything comes from GET /api/tasks/.
import { api, el, when } from "./api.js";
import { replayLeftovers } from "./saver.js";

const STATUS = { todo: "To do", in_progress: "In progress", submitted: "Submitted" };

function actions(task) {
  const cell = el("td");
  const box = el("div", null, { class: "actions" });
  cell.append(box);
  const open = el("a", task.status === "submitted" ? "View" : "Open", {
    class: "button",
    href: `/tasks/${task.id}/`,
  });
  open.setAttribute("aria-label", `${open.textContent} ${task.document.external_id}`);
  box.append(open);
  // Reopening makes sense until the campaign is done; the server refuses a task whose
  // document is already adjudicated, and the page shows its reason.
  const campaignOpen = task.campaign.status !== "closed";
  if (task.status === "submitted" && campaignOpen) {
    const reopen = el("button", "Reopen", {
      type: "button",
      class: "secondary",
      "aria-label": `Reopen ${task.document.external_id}`,
    });
    reopen.addEventListener("click", async () => {
      reopen.disabled = true;
      try {
        await api(`/api/tasks/${task.id}/reopen/`, { method: "POST" });
        window.location.assign(`/tasks/${task.id}/`);
      } catch (error) {
        reopen.disabled = false;
        showError(`Could not reopen: ${error.message}`);
      }
    });
    box.append(reopen);
  }
  box.append(el("span", "", { class: "replay muted", "data-replay": String(task.id), hidden: "" }));
  return cell;
}

// Changes this browser still holds for a task (left by a closed tab): say what became of them.
function note(taskId, kind, message) {
  const node = document.querySelector(`[data-replay="${taskId}"]`);
  if (!node) return;
  node.textContent = message;
  node.dataset.state = kind;
  node.hidden = false;
}

function showError(message) {
  const node = document.getElementById("error");
  node.textContent = message;
  node.hidden = false;
}

async function main() {
  const text = document.getElementById("progress-text");
  try {
    const data = await api("/api/tasks/");
    const progress = document.getElementById("progress");
    progress.max = Math.max(data.total, 1);
    progress.value = data.done;
    text.textContent = `${data.done} of ${data.total} done`;
    const next = document.getElementById("continue");
    if (data.next) {
      next.href = `/tasks/${data.next}/`;
      next.hidden = false;
    } else if (data.total) {
      text.textContent += " — all submitted.";
    }
    const body = document.querySelector("#tasks tbody");
    data.results.forEach((task, index) => {
      const row = el("tr", null, { "data-task": task.id, "data-status": task.status });
      const status = el("td");
      status.append(el("span", STATUS[task.status] || task.status, { class: `badge ${task.status}` }));
      row.append(
        el("td", index + 1),
        el("td", task.document.external_id),
        el("td", task.campaign.name),
        status,
        el("td", when(task.updated_at)),
        actions(task),
      );
      body.append(row);
    });
    document.getElementById("empty").hidden = data.results.length > 0;
    // A copy holds a FAM or (kind "spans") a PolyTope item's errors: each goes back where it came from.
    const save = (id, body, kind) => api(`/api/tasks/${id}/${kind === "spans" ? "spans" : "fam"}/`, { method: "PUT", body });
    replayLeftovers(data.results, save, note);
  } catch (error) {
    text.textContent = "";
    showError(`Could not load your tasks: ${error.message}`);
  }
}

main();
