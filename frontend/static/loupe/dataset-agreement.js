// A dataset's agreement page: span agreement among its annotation sets (each set one
// annotator, e.g. the XSum release's three workers) per system and overall with bootstrap
// intervals, per pair and per summary; admins start a run over chosen sets and the page
// follows it. The dataset's campaigns link to their own agreement pages.
// Data: /api/datasets/<slug>/, /api/span-agreement/?dataset=<slug>, /api/span-agreement/<id>/.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import { documentUrl, showError } from "./leaderboard-format.js";
import * as view from "./agreement-view.js";
import { pollMs } from "./timing.js";

const $ = (id) => document.getElementById(id);
const root = $("dataset-agreement");
const slug = root.dataset.dataset;
const POLL_MS = 1500; // unless LOUPE_UI_POLL_MS says otherwise (timing.js)
const BUSY = new Set(["queued", "running"]);
let runs = [];
let dataset = null;
let timer = null;

const setNames = (ids) => ids.map((id) => ((dataset && dataset.annotation_sets) || []).find((s) => s.id === id)?.slug || `set ${id}`);

function runLabel(run) {
  const source = run.source === "campaign" ? `campaign ${run.campaign}` : setNames(run.annotation_sets || []).join(", ");
  return `#${run.id} · ${source} · ${run.status}${run.stale ? " (stale)" : ""} · ${when(run.finished_at || run.created_at)}`;
}

function fillRuns(selected) {
  const select = $("run-select");
  select.replaceChildren(...runs.map((run) => el("option", runLabel(run), { value: String(run.id) })));
  if (!runs.length) select.append(el("option", "No run yet", { value: "" }));
  if (selected) select.value = String(selected);
}

function status(state, text) {
  $("status").dataset.state = state;
  $("status-text").textContent = text;
}

async function showRun(id) {
  clearTimeout(timer);
  if (!id) {
    $("result").hidden = true;
    status("empty", "No span agreement has been computed on this dataset yet.");
    return;
  }
  let run;
  try {
    run = await api(`/api/span-agreement/${id}/`);
  } catch (error) {
    status("failed", `Could not load run ${id}: ${error.message}`);
    return;
  }
  const known = runs.find((r) => r.id === run.id);
  if (known) Object.assign(known, { status: run.status, finished_at: run.finished_at });
  if (BUSY.has(run.status)) {
    status("busy", `Run ${run.id} is ${run.status}…`);
    timer = setTimeout(() => showRun(id), pollMs(POLL_MS));
    return;
  }
  fillRuns(run.id);
  if (run.status === "failed") {
    $("result").hidden = true;
    status("failed", `Run ${run.id} failed: ${run.error || "no reason given"}`);
    return;
  }
  const stale = run.stale ? " Stale: the annotations changed since; compute again to include them." : "";
  status(run.stale ? "stale" : "fresh", `Run ${run.id}, computed ${when(run.finished_at)}${run.seconds ? ` in ${run.seconds.toFixed(1)} s` : ""}.${stale}`);
  draw(view.normalizeResult("spans", run.result), run);
}

function draw(data, run) {
  $("result").hidden = !data;
  if (!data) return;
  $("overall").tBodies[0].replaceChildren(...view.overallRows(data));
  $("skipped").textContent = view.skippedText(data);
  $("skipped").hidden = !$("skipped").textContent;
  $("systems-section").hidden = !data.perSystem || !Object.keys(data.perSystem).length;
  if (data.perSystem) view.drawSystems($("systems"), data);
  view.drawPairs($("pairs"), data);
  const outputUrl = (row) => (row.system && row.external_id ? documentUrl(slug, row.system, row.external_id) : null);
  $("lowest").replaceChildren(
    ...view.lowestItems(data, null).map((li, i) => {
      const row = data.lowest[i];
      const href = row && outputUrl(row);
      const name = li.querySelector(".docid");
      if (href && name) name.replaceWith(el("a", name.textContent, { href, class: "docid" }));
      return li;
    }),
  );
  view.documentTable($("documents"), data, { adjudicationUrl: null, sortKey: "span_f1_partial", more: $("more") });
  $("conventions-list").replaceChildren(view.conventionItems(data.conventions));
  const counts = data.counts || {};
  const annotators = run.source === "campaign" ? `campaign ${run.campaign}` : setNames(run.annotation_sets || []).join(", ");
  $("overall-note").textContent = `${annotators}${counts.items !== undefined ? ` · ${counted(counts.items, "item")}` : ""}`;
}

function drawCompute() {
  // Span sets only: a FAM set's scheme is "fam" (the server refuses FAM sets in a span run).
  const sets = (dataset.annotation_sets || []).filter((s) => s.scheme && s.scheme !== "fam");
  const form = $("compute-form");
  form.hidden = false;
  const box = $("sets");
  box.replaceChildren(box.querySelector("legend"));
  for (const set of sets) {
    const id = `set-${set.id}`;
    const label = el("label", null, { for: id });
    const input = el("input", null, { type: "checkbox", id, name: "annotation_sets", value: String(set.id) });
    input.checked = set.kind !== "gold";
    label.append(input, document.createTextNode(` ${set.name} (${set.count ?? "?"})`));
    box.append(label);
  }
  if (!sets.length) box.append(el("p", "This dataset has no span annotation sets.", { class: "muted" }));
}

async function compute(event) {
  event.preventDefault();
  const ids = [...$("sets").querySelectorAll("input:checked")].map((input) => Number(input.value));
  if (ids.length < 2) {
    showError($("error"), "Choose two or more annotation sets.");
    return;
  }
  $("compute").disabled = true;
  try {
    const run = await api("/api/span-agreement/", { method: "POST", body: { annotation_sets: ids } });
    showError($("error"), "");
    if (!runs.some((r) => r.id === run.id)) runs.unshift(run);
    fillRuns(run.id);
    await showRun(run.id);
  } catch (error) {
    showError($("error"), `Not started: ${error.message}`);
  } finally {
    $("compute").disabled = false;
  }
}

function drawCampaigns() {
  const campaigns = dataset.campaigns || [];
  $("campaigns-section").hidden = !campaigns.length;
  $("campaigns").replaceChildren(
    ...campaigns.map((c) => {
      const li = el("li");
      li.append(el("a", c.name, { href: `/manage/campaigns/${c.id}/agreement/` }), document.createTextNode(` (${c.kind}, ${c.status})`));
      return li;
    }),
  );
}

async function main() {
  $("run-form").addEventListener("submit", (e) => e.preventDefault());
  $("run-select").addEventListener("change", (e) => showRun(Number(e.target.value)));
  $("compute-form").addEventListener("submit", compute);
  try {
    dataset = await api(`/api/datasets/${encodeURIComponent(slug)}/`);
  } catch (error) {
    showError($("error"), error.status === 404 ? "No such dataset." : `Could not load the dataset: ${error.message}`);
    root.setAttribute("aria-busy", "false");
    return;
  }
  $("title").textContent = `Agreement on ${dataset.name || slug}`;
  document.title = `Agreement · ${dataset.name || slug} · Loupe`;
  drawCampaigns();
  try {
    runs = await api(`/api/span-agreement/?dataset=${encodeURIComponent(slug)}`);
    if (root.dataset.admin === "1") drawCompute();
  } catch (error) {
    runs = [];
    status("failed", error.status === 403 ? `You may not see this dataset's span agreement runs: ${error.message}` : `Could not list the runs: ${error.message}`);
    root.setAttribute("aria-busy", "false");
    return;
  }
  const latest = runs.find((run) => run.status === "succeeded" && run.source === "annotation_sets") || runs.find((run) => run.status === "succeeded") || runs[0];
  fillRuns(latest && latest.id);
  await showRun(latest && latest.id);
  root.setAttribute("aria-busy", "false");
}

main();
