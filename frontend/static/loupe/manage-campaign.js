// One campaign (admins): its facts and state, the progress per annotator and per task (with the
// CSV), and the edits while it runs: move it to adjudication or close it, add annotators (overlap
// top-up), reassign a task not yet submitted, rename it and change its instructions. Every
// refusal is shown next to its field or in the form's alert; nothing is changed on a refusal.
import { api, el, when } from "./api.js";
import { FormErrors, submitOnEnter } from "./form-errors.js";
import { CAMPAIGN_STATUS, campaignBadge, duration, KIND_LABELS, link, STATUS_ACTIONS } from "./manage-format.js";
import { counted } from "./plural.js";
import { annotatorRow, taskRow, totalsNodes } from "./progress-view.js";

const $ = (id) => document.getElementById(id);
const root = $("campaign-page");
const campaignId = Number(root.dataset.campaignId);
const base = `/api/campaigns/${campaignId}`;
const PAGE = 50;
const page = { campaign: null, progress: null, annotators: [], offset: 0, reassigning: null, nextStatus: null };
const addErrors = new FormErrors($("add-form"), $("add-errors"));
const editErrors = new FormErrors($("edit-form"), $("edit-errors"));
const reassignErrors = new FormErrors($("reassign-form"), $("reassign-errors"));

const STATE_TEXT = {
  open: "Annotating: annotators work on their tasks and may reopen the ones they submitted; annotators can be added and tasks reassigned.",
  adjudication: "Adjudicating: adjudicators build the gold version; annotators may still fix their tasks (not those of a document marked adjudicated). Unfinished tasks can still be reassigned (say, from an annotator who left); no annotator is added.",
  closed: "Done: the campaign is read-only, for good.",
};

const CONFIRM = {
  adjudication: "Adjudicators can start on the gold version. Annotators can no longer be added (unfinished tasks can still be reassigned); you can go back to annotating later.",
  open: "Annotators can be added and tasks reassigned again.",
  closed: "Nothing in this campaign can be changed afterwards, not by annotators nor by adjudicators. This cannot be undone.",
};

function notice(message) {
  const node = $("notice");
  node.textContent = message;
  node.hidden = false;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

// --- the campaign ---------------------------------------------------------------------------

// What the campaign annotates and how, after "FAM on <dataset>".
function summaryText(c) {
  const parts = [];
  parts.push(counted(c.document_count, "document"));
  if (c.kind === "polytope" && (c.systems || []).length) parts.push(`systems ${c.systems.join(", ")}${c.system_blind ? " (system-blind)" : ""}`);
  parts.push(`${counted(c.annotators_per_document, "annotator")} per item`);
  parts.push(c.blind ? "blind" : "not blind");
  if (c.kind !== "polytope") {
    parts.push(`reference ${c.reference_position}`);
    parts.push((c.scorers || []).length ? `suggestions ${c.scorers.join(", ")} (top ${c.top_k})` : "no suggestions");
  }
  if (c.sample) {
    const only = (c.sample.categories || []).length ? ` from ${c.sample.categories.join(", ")}` : "";
    parts.push(`random sample of ${c.sample.size}${only}, seed ${c.sample.seed}`);
  }
  if ((c.adjudicators || []).length) parts.push(`adjudicators ${c.adjudicators.join(", ")}`);
  if (c.created_at) parts.push(`created ${when(c.created_at)}`);
  return parts.join(" · ");
}

function drawCampaign() {
  const c = page.campaign;
  document.title = `${c.name} · Campaigns · Loupe`;
  $("title").textContent = c.name;
  $("crumb").textContent = c.name;
  $("state-badge").replaceChildren(campaignBadge(c.status, c.status_label));
  $("summary").replaceChildren(
    `${KIND_LABELS[c.kind] || c.kind} on `,
    link(c.dataset, `/manage/datasets/${encodeURIComponent(c.dataset)}/`),
    ` · ${summaryText(c)}`,
  );
  $("state-text").textContent = STATE_TEXT[c.status] || c.status_label || c.status;
  const actions = $("state-actions");
  actions.replaceChildren();
  for (const next of c.statuses_allowed || []) {
    const button = el("button", STATUS_ACTIONS[next] || `Move to ${CAMPAIGN_STATUS[next] || next}`, {
      type: "button",
      class: next === "closed" ? "danger" : "",
      "data-status": next,
    });
    button.addEventListener("click", () => askState(next));
    actions.append(button);
  }
  if (!actions.childElementCount) actions.append(el("span", "No further state.", { class: "muted" }));
  if (!$("edit-form").dataset.dirty) {
    $("edit-name").value = c.name;
    $("edit-instructions").value = c.instructions || "";
  }
  const closed = c.status === "closed";
  for (const node of $("edit-form").querySelectorAll("input, textarea, button")) node.disabled = closed;
  $("system-col").hidden = c.kind !== "polytope";
  drawAddChoices();
}

function drawAddChoices() {
  const c = page.campaign;
  const box = $("add-annotators");
  const inCampaign = new Set(c.annotators || []);
  const free = page.annotators.filter((u) => !inCampaign.has(u.username));
  box.replaceChildren(
    ...free.map((u) => {
      const label = el("label", null, { class: "check" });
      label.append(el("input", null, { type: "checkbox", name: "annotators", value: u.username }), ` ${u.username}`);
      return label;
    }),
  );
  if (!free.length) box.append(el("span", "Every annotator already works on this campaign.", { class: "muted" }));
  const annotating = c.status === "open";
  $("add-hint").textContent = !annotating
    ? "Annotators can be added only while the campaign is Annotating."
    : `Each new annotator gets, round robin, items that have fewer than ${counted(c.annotators_per_document, "annotator")}. Now working: ${(c.annotators || []).join(", ") || "nobody"}.`;
  $("add-btn").disabled = !annotating || !free.length;
}

// --- progress -------------------------------------------------------------------------------

function filteredTasks() {
  const who = $("filter-annotator").value;
  const status = $("filter-status").value;
  return page.progress.tasks.filter((t) => (!who || t.annotator === who) && (!status || t.status === status));
}

function taskActions(task) {
  // Only a task not yet submitted changes hands, until the campaign is Done (the API's rule).
  if (task.status === "submitted" || page.campaign.status === "closed") return null;
  const button = el("button", "Reassign", {
    type: "button",
    class: "secondary small",
    "aria-label": `Reassign task ${task.id} (${task.annotator})`,
    "data-focus-key": `reassign-${task.id}`,
  });
  button.addEventListener("click", () => openReassign(task, button));
  return button;
}

function drawTasks() {
  const tasks = filteredTasks();
  if (page.offset >= tasks.length) page.offset = Math.max(0, Math.floor((tasks.length - 1) / PAGE) * PAGE);
  const shown = tasks.slice(page.offset, page.offset + PAGE);
  const showSystem = page.campaign.kind === "polytope";
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focusKey : null;
  const body = document.querySelector("#tasks-table tbody");
  body.replaceChildren(...shown.map((t) => taskRow(t, { showSystem, actions: taskActions })));
  if (focused) {
    const again = body.querySelector(`[data-focus-key="${focused}"]`);
    if (again) again.focus();
  }
  $("tasks-count").textContent = `${tasks.length}${tasks.length === page.progress.tasks.length ? "" : ` of ${page.progress.tasks.length}`}`;
  const last = Math.min(page.offset + PAGE, tasks.length);
  $("tasks-page").textContent = tasks.length ? `${page.offset + 1}–${last} of ${tasks.length}` : "none";
  keepPagerFocus($("tasks-prev"), page.offset === 0, $("tasks-next"));
  keepPagerFocus($("tasks-next"), last >= tasks.length, $("tasks-prev"));
}

// Disable a pager button; if it had the focus, the focus moves to its partner (or the filter).
function keepPagerFocus(button, disabled, partner) {
  const had = document.activeElement === button;
  button.disabled = disabled;
  if (had && disabled) (partner.disabled ? $("filter-status") : partner).focus();
}

function drawProgress() {
  const p = page.progress;
  if (p.idle_cap_seconds) {
    const cap = duration(p.idle_cap_seconds);
    $("time-rule").textContent = `Time per task: from the annotator's first to their last saved revision of the task, each pause between two saves counted at most ${cap}; medians and means over done tasks.`;
  }
  $("totals").replaceChildren(...totalsNodes(p.totals));
  document.querySelector("#annotators-table tbody").replaceChildren(...p.annotators.map(annotatorRow));
  const filter = $("filter-annotator");
  const chosen = filter.value;
  const names = [...new Set(p.tasks.map((t) => t.annotator))].sort();
  filter.replaceChildren(el("option", "Everyone", { value: "" }), ...names.map((n) => el("option", n, { value: n })));
  filter.value = names.includes(chosen) ? chosen : "";
  drawTasks();
}

async function load() {
  const [campaign, progress] = await Promise.all([api(`${base}/`), api(`${base}/progress/`)]);
  page.campaign = campaign;
  page.progress = progress;
  drawCampaign();
  drawProgress();
}

// --- state ----------------------------------------------------------------------------------

function askState(next) {
  page.nextStatus = next;
  $("confirm-heading").textContent = `${STATUS_ACTIONS[next] || next}?`;
  $("confirm-text").textContent = CONFIRM[next] || "";
  const ok = $("confirm-ok");
  ok.textContent = STATUS_ACTIONS[next] || "Confirm";
  ok.className = next === "closed" ? "danger" : "";
  $("confirm-state").showModal();
  $("confirm-cancel").focus();
}

async function setState() {
  const next = page.nextStatus;
  $("confirm-state").close();
  try {
    await api(`${base}/status/`, { method: "POST", body: { status: next } });
    await load();
    notice(`The campaign is now: ${page.campaign.status_label || CAMPAIGN_STATUS[next] || next}.`);
    const first = $("state-actions").querySelector("button");
    (first || $("notice")).focus();
  } catch (error) {
    showError(`Could not change the state: ${error.message}`);
    $("error").focus();
  }
}

// --- add annotators -------------------------------------------------------------------------

async function addAnnotators(event) {
  event.preventDefault();
  const chosen = [...$("add-annotators").querySelectorAll("input:checked")].map((i) => i.value);
  addErrors.clear();
  $("add-btn").disabled = true;
  try {
    const result = await api(`${base}/annotators/`, { method: "POST", body: { annotators: chosen } });
    await load();
    notice(`Added ${chosen.join(", ")}: ${counted(result.created, "task")} created.`);
    $("add-form").querySelector("input, button:not(:disabled)")?.focus();
  } catch (error) {
    addErrors.show(error);
    $("add-btn").disabled = false;
  }
}

// --- name and instructions ------------------------------------------------------------------

async function saveEdit(event) {
  event.preventDefault();
  editErrors.clear();
  $("edit-btn").disabled = true;
  try {
    const body = { name: $("edit-name").value.trim(), instructions: $("edit-instructions").value };
    await api(`${base}/`, { method: "PATCH", body });
    delete $("edit-form").dataset.dirty;
    await load();
    notice("Name and instructions saved.");
  } catch (error) {
    editErrors.show(error);
  } finally {
    $("edit-btn").disabled = page.campaign.status === "closed";
  }
}

// --- reassign -------------------------------------------------------------------------------

function openReassign(task, button) {
  page.reassigning = { task, button };
  reassignErrors.clear();
  const docId = typeof task.document === "object" && task.document ? task.document.external_id : task.document;
  $("reassign-text").textContent = `Task ${task.id}: ${docId}${task.system ? ` (${task.system})` : ""}, now ${task.annotator}'s (${task.status === "in_progress" ? "in progress" : "not started"}).`;
  const select = $("reassign-to");
  const others = page.annotators.map((u) => u.username).filter((name) => name !== task.annotator);
  // Who already has this item (the document; a PolyTope item: the document's output of that
  // system) is named as such; the server would refuse them.
  const sameItem = (t) => t.document === task.document && (t.system || null) === (task.system || null);
  const holders = new Set(page.progress.tasks.filter(sameItem).map((t) => t.annotator));
  select.replaceChildren(
    el("option", others.length ? "Choose an annotator…" : "No other annotator", { value: "" }),
    ...others.map((n) => el("option", holders.has(n) ? `${n} (already has this item)` : n, { value: n })),
  );
  $("reassign").showModal();
  select.focus();
}

async function reassign(event) {
  event.preventDefault();
  const { task } = page.reassigning;
  const to = $("reassign-to").value;
  reassignErrors.clear();
  $("reassign-ok").disabled = true;
  try {
    await api(`/api/tasks/${task.id}/reassign/`, { method: "POST", body: { annotator: to } });
    $("reassign").close();
    page.reassigning = null;
    await load();
    notice(`Task ${task.id} moved from ${task.annotator} to ${to}.`);
    $("notice").focus();
  } catch (error) {
    reassignErrors.show(error);
  } finally {
    $("reassign-ok").disabled = false;
  }
}

function closeReassign() {
  $("reassign").close();
}

// --- wiring ---------------------------------------------------------------------------------

function wire() {
  $("confirm-ok").addEventListener("click", setState);
  $("confirm-cancel").addEventListener("click", () => $("confirm-state").close());
  $("add-form").addEventListener("submit", addAnnotators);
  $("edit-form").addEventListener("submit", saveEdit);
  $("edit-form").addEventListener("input", () => {
    $("edit-form").dataset.dirty = "1";
  });
  for (const id of ["add-form", "edit-form", "reassign-form"]) submitOnEnter($(id));
  $("reassign-form").addEventListener("submit", reassign);
  $("reassign-cancel").addEventListener("click", closeReassign);
  // The dialog gives the focus back to the task's button (or, re-drawn, the table).
  $("reassign").addEventListener("close", () => {
    const state = page.reassigning;
    page.reassigning = null;
    if (state && state.button.isConnected) state.button.focus();
  });
  for (const id of ["filter-annotator", "filter-status"]) {
    $(id).addEventListener("change", () => {
      page.offset = 0;
      drawTasks();
    });
  }
  $("tasks-prev").addEventListener("click", () => {
    page.offset = Math.max(0, page.offset - PAGE);
    drawTasks();
  });
  $("tasks-next").addEventListener("click", () => {
    page.offset += PAGE;
    drawTasks();
  });
}

async function main() {
  wire();
  try {
    page.annotators = await api("/api/users/?role=Annotator").catch(() => []);
    await load();
    if (new URLSearchParams(window.location.search).get("created")) {
      const t = page.progress.totals.total;
      const notes = JSON.parse(sessionStorage.getItem(`loupe:created:${campaignId}`) || "[]");
      sessionStorage.removeItem(`loupe:created:${campaignId}`);
      notice([`Campaign created${t ? ` with ${counted(t, "task")}` : ": add annotators below"}.`, ...notes].join(" "));
      history.replaceState(null, "", window.location.pathname);
    }
  } catch (error) {
    showError(error.status === 404 ? "No such campaign." : `Could not load the campaign: ${error.message}`);
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}

main();
