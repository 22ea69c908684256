// The dataset-bias panel (the admin dataset page and /leaderboards/<slug>/bias/): the latest
// figures as a table and three server-rendered SVG plots; Compute starts a run and follows it
// (409: a run is already waiting or running, which is followed); with nothing to measure, the
// empty state (job-follow.js) says what to add.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import { showMissing } from "./job-follow.js";
import { recoveryText } from "./job-recovery.js";
import { pollMs } from "./timing.js";

const POLL_MS = 1000; // unless LOUPE_UI_POLL_MS says otherwise (timing.js)
const panel = document.getElementById("bias-panel");
const slug = panel.dataset.slug;
const base = `/api/datasets/${encodeURIComponent(slug)}/bias`;
const button = document.getElementById("bias-compute");
const statusLine = document.getElementById("bias-status");
const progress = document.getElementById("bias-progress");
const errorLine = document.getElementById("bias-error");
const missing = document.getElementById("bias-missing");
let timer = null;

const number = (value, digits = 3) => (value === null || value === undefined ? "–" : value.toFixed(digits));
const percent = (value) => (value === null || value === undefined ? "–" : (100 * value).toFixed(1));

function cell(text, numeric = true) {
  return el("td", text, numeric ? { class: "num" } : {});
}

function row(source) {
  const tr = el("tr", null, { "data-source": source.source, "data-kind": source.kind });
  const name = source.kind === "reference" ? "Reference" : source.source;
  const version = source.version ? ` v${source.version}` : "";
  tr.append(el("th", `${name}${version}`, { scope: "row" }), cell(source.kind, false), cell(source.n_items));
  tr.append(cell(number(source.coverage)), cell(number(source.density)), cell(number(source.compression)));
  tr.append(cell(number(source.copy_length, 2)));
  for (const value of source.novel) tr.append(cell(percent(value)));
  for (const value of source.repeated) tr.append(cell(percent(value)));
  tr.append(cell(percent(source.fusion)), cell(number(source.mean_position)));
  return tr;
}

function describe(data) {
  const run = data.run;
  if (!run) return "Not computed yet.";
  const recovered = recoveryText(run) ? ` ${recoveryText(run)}` : "";
  if (run.status === "queued") return `Waiting for a worker…${recovered}`;
  if (run.status === "running") return `Computing: ${run.chunks_done} of ${run.chunks_total} chunks.${recovered}`;
  if (run.status === "failed") return `The latest run failed${data.rows.length ? "; the figures below are the previous run's" : ""}.`;
  const pairs = Object.values(data.meta.pairs || {}).reduce((a, b) => a + b, 0);
  const reused = run.reused_from ? " (inputs unchanged: reused)" : "";
  return `Computed ${when(run.finished_at)}${reused} over ${counted(data.meta.documents, "document")}, ${counted(pairs, "pair")}.`;
}

function render(data) {
  const running = data.run && (data.run.status === "queued" || data.run.status === "running");
  let text = describe(data);
  if (data.stale && !running) text += " The dataset changed since: Compute to update.";
  statusLine.textContent = text;
  progress.hidden = !running;
  if (running) progress.value = data.run.progress;
  errorLine.hidden = !(data.run && data.run.status === "failed");
  errorLine.textContent = data.run && data.run.error ? data.run.error : "";
  button.hidden = panel.dataset.canCompute !== "1";
  button.disabled = Boolean(running) || Boolean(data.missing);
  showMissing(missing, data.rows.length ? "" : data.missing);
  const has = data.rows.length > 0;
  document.getElementById("bias-region").hidden = !has;
  document.getElementById("bias-plots").hidden = !has;
  document.querySelector("#bias-table tbody").replaceChildren(...data.rows.map(row));
  if (has) {
    const key = data.computed_by ? data.computed_by.id : 0;
    for (const img of document.querySelectorAll("img[data-bias-plot]")) {
      const src = `${base}/plots/${img.dataset.biasPlot}.svg?run=${key}`;
      if (img.getAttribute("src") !== src) img.setAttribute("src", src);
    }
  }
  panel.setAttribute("aria-busy", "false");
  panel.dataset.state = data.run ? data.run.status : "none";
  clearTimeout(timer);
  if (running) timer = setTimeout(load, pollMs(POLL_MS));
}

async function load() {
  try {
    render(await api(`${base}/`));
  } catch (error) {
    panel.setAttribute("aria-busy", "false");
    errorLine.hidden = false;
    errorLine.textContent = error.message;
    statusLine.textContent = "";
  }
}

button.addEventListener("click", async () => {
  button.disabled = true;
  statusLine.textContent = "Starting…";
  try {
    render(await api(`${base}/`, { method: "POST" }));
  } catch (error) {
    if (error.status === 409) {
      load(); // a run is already queued or running (an upload's, say): follow it
      return;
    }
    button.disabled = false;
    errorLine.hidden = false;
    errorLine.textContent = error.message;
  }
});

load();
