// Upload system outputs: fills the dataset and system choices from the JSON API, posts the
// form (multipart) to POST /api/datasets/<slug>/outputs/ and shows the report or the issues;
// after an upload it follows the scoring job live and links to the leaderboard.
import { api, el } from "./api.js";
import { refusal } from "./issues.js";
import { systemUrl } from "./leaderboard-format.js";
import { jobNodes, JobView } from "./scoring-job.js";

const NEW = "__new__";
const form = document.getElementById("upload-form");
const datasetSelect = document.getElementById("dataset");
const systemSelect = document.getElementById("system");
const newSystem = document.getElementById("new-system");
const trainedOn = document.getElementById("trained-on");
const fileInput = document.getElementById("file");
const dryRun = document.getElementById("dry-run");
const submit = document.getElementById("submit");
const formStatus = document.getElementById("form-status");
const result = document.getElementById("result");
const resultTitle = document.getElementById("result-title");
const resultBody = document.getElementById("result-body");
let scoring = null; // the JobView following the latest upload's scoring job

function option(value, text) {
  const node = el("option", text);
  node.value = value;
  return node;
}

function fillDatasets(datasets) {
  const wanted = new URLSearchParams(window.location.search).get("dataset");
  datasetSelect.replaceChildren(option("", datasets.length ? "Choose a dataset…" : "No datasets yet"));
  for (const d of datasets) {
    datasetSelect.append(option(d.slug, `${d.name} (${d.slug}, ${d.document_count} documents)`));
  }
  if (wanted && datasets.some((d) => d.slug === wanted)) datasetSelect.value = wanted;
  trainedOn.replaceChildren(option("", "Not given"));
  for (const d of datasets) trainedOn.append(option(d.slug, `${d.name} (${d.slug})`));
}

function fillSystems(systems, selected = "") {
  systemSelect.replaceChildren(option("", "Choose a system…"));
  // An existing system keeps the dataset it was trained on (the new-system fields set it).
  for (const s of systems) {
    const trained = s.trained_on ? `, trained on ${s.trained_on}` : "";
    systemSelect.append(option(s.slug, `${s.name} (${s.slug}, ${s.kind}${trained})`));
  }
  systemSelect.append(option(NEW, "New system…"));
  systemSelect.value = systems.some((s) => s.slug === selected) ? selected : "";
  showNewSystem();
}

// The new-system fields count (and are validated) only while "New system…" is chosen.
function showNewSystem() {
  const isNew = systemSelect.value === NEW;
  newSystem.hidden = !isNew;
  newSystem.disabled = !isNew;
}

async function loadChoices(selectedSystem) {
  const [datasets, systems] = await Promise.all([api("/api/datasets/"), api("/api/systems/")]);
  if (selectedSystem === undefined) fillDatasets(datasets);
  fillSystems(systems, selectedSystem);
}

// Show the outcome and move the focus to it, so keyboard and screen-reader users land there.
function show(state, title, ...nodes) {
  resultTitle.textContent = title;
  resultBody.replaceChildren(...nodes);
  result.dataset.state = state;
  result.hidden = false;
  result.focus();
}

function link(text, href) {
  return el("a", text, { href });
}

function showSummary(data) {
  const facts = el("dl", null, { class: "facts" });
  const fact = (term, value) => facts.append(el("dt", term), el("dd", value));
  fact("Documents", `${data.documents} of ${data.dataset_documents}`);
  fact("Outputs", data.outputs);
  fact("System", `${data.system}${data.system_created ? " (new)" : ""}, version ${data.version}`);
  const nodes = [facts];
  if (data.scoring_job) {
    const job = jobNodes();
    job.status.textContent = `Scoring job ${data.scoring_job}: checking its status…`;
    const links = el("p", null, { class: "links" });
    links.append(
      link("Leaderboard", data.leaderboard_url),
      " · ",
      link(`${data.system} on ${data.dataset}`, systemUrl(data.dataset, data.system)),
    );
    nodes.push(el("h3", "Scoring"), job.root, links);
    scoring = new JobView(job);
    scoring.follow(data.scoring_job, 0);
  }
  if (data.report.length) {
    nodes.push(el("h3", `Low-confidence mappings (${data.report.length})`));
    const list = el("ul", null, { class: "report" });
    for (const line of data.report) list.append(el("li", line));
    nodes.push(list);
  } else {
    nodes.push(el("p", "No low-confidence mappings.", { class: "muted" }));
  }
  const title = data.dry_run
    ? `Checked: the file is valid and would become ${data.system} version ${data.version}. Nothing was saved.`
    : `Uploaded ${data.system} version ${data.version} on ${data.dataset}.`;
  show("done", title, ...nodes);
}

// Loupe's errors: {message, extra: {issues: [...]}} for invalid files, {fields: {...}} for
// invalid form fields, or just a message (too large, not allowed).
function showRefusal(status, data) {
  let message = (data && data.message) || `The server answered ${status}.`;
  if (status === 401 || status === 403) message = `${message} (Log in again as a researcher or admin.)`;
  const { title, nodes } = refusal(status, data && data.extra, message);
  show("refused", title, ...nodes);
}

async function send(event) {
  event.preventDefault();
  if (scoring) scoring.stop(); // the result panel is about to show something else
  scoring = null;
  const dataset = datasetSelect.value;
  const file = fileInput.files[0];
  const limit = Number(form.dataset.maxBytes);
  if (file && file.size > limit) {
    showRefusal(413, { message: `${file.name} is larger than the upload limit; nothing was sent.` });
    return;
  }
  const body = new FormData(form);
  body.delete("csrfmiddlewaretoken");
  body.delete("dataset");
  body.delete("system-choice");
  if (systemSelect.value !== NEW) body.set("system", systemSelect.value);
  submit.disabled = true;
  form.setAttribute("aria-busy", "true");
  formStatus.textContent = dryRun.checked ? "Checking…" : "Uploading…";
  try {
    const data = await api(`/api/datasets/${encodeURIComponent(dataset)}/outputs/`, { method: "POST", body });
    showSummary(data);
    if (!data.dry_run) {
      fileInput.value = "";
      await loadChoices(data.system);
    }
  } catch (error) {
    if (error.status > 0) showRefusal(error.status, error.data);
    else showRefusal(0, { message: `The upload did not reach the server: ${error.message}` });
  } finally {
    submit.disabled = false;
    form.removeAttribute("aria-busy");
    formStatus.textContent = "";
  }
}

systemSelect.addEventListener("change", showNewSystem);
dryRun.addEventListener("change", () => {
  submit.textContent = dryRun.checked ? "Check" : "Upload";
});
form.addEventListener("submit", send);
loadChoices().catch((error) => {
  formStatus.textContent = `Could not load the datasets and systems: ${error.message}`;
});
