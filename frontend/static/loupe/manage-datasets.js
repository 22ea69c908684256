// Manage datasets: the list (GET /api/datasets/) and the import form, which posts the file
// (multipart) to POST /api/datasets/import/ with dry_run for "Validate only" and shows the
// pipeline's report, or every problem of a refused file, in the page.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import { fieldErrors, FormErrors, submitOnEnter } from "./form-errors.js";
import { facts, link, num } from "./manage-format.js";

const $ = (id) => document.getElementById(id);
const form = $("import-form");
const result = $("result");
const errors = new FormErrors(form, $("form-errors"));
const formStatus = $("form-status");
let formats = [];

async function loadDatasets() {
  const datasets = await api("/api/datasets/");
  const body = document.querySelector("#datasets tbody");
  body.replaceChildren();
  for (const d of datasets) {
    const row = el("tr", null, { "data-dataset": d.slug });
    const name = el("th", null, { scope: "row" });
    name.append(link(d.name, `/manage/datasets/${encodeURIComponent(d.slug)}/`), el("small", d.slug, { class: "muted slug" }));
    row.append(name, num(d.document_count), el("td", d.source, { class: "source" }), el("td", d.license), el("td", when(d.created_at), { class: "when" }));
    body.append(row);
  }
  $("status").textContent = `${counted(datasets.length, "dataset")}.`;
  $("empty").hidden = datasets.length > 0;
}

// The formats' hints: a JSONL file, or a release directory packed as .zip or .tar.gz.
function describeFormat() {
  const chosen = formats.find((f) => f.name === $("format").value);
  const archive = chosen && chosen.upload === "archive";
  $("format-hint").textContent = chosen ? chosen.description : "";
  $("file").accept = archive ? ".zip,.tar.gz,.tgz" : ".jsonl,.json,.ndjson";
  $("file-hint").textContent = archive
    ? "The release's directory packed as a .zip or .tar.gz archive."
    : "One JSON object per line: a document with its sentences and references.";
}

async function loadFormats() {
  try {
    formats = await api("/api/formats/");
  } catch {
    formats = [{ name: "jsonl", description: "JSON Lines: one document per line.", upload: "file" }];
  }
  const select = $("format");
  select.replaceChildren(
    ...formats.map((f) => {
      const node = el("option", f.name);
      node.value = f.name;
      return node;
    }),
  );
  if (formats.some((f) => f.name === "jsonl")) select.value = "jsonl";
  describeFormat();
}

function show(state, title, ...nodes) {
  $("result-title").textContent = title;
  $("result-body").replaceChildren(...nodes);
  result.dataset.state = state;
  result.hidden = false;
  result.focus();
}

// An issue as "where: message"; the import kernel names file, line and field, a release's check
// a place ("where").
function issueItem(issue) {
  const item = el("li");
  let where = issue.where || issue.file || "";
  if (issue.line) where += `:${issue.line}`;
  if (issue.field) where += ` [${issue.field}]`;
  if (where) item.append(el("code", where), " ");
  item.append(issue.message || String(issue));
  return item;
}

function reportNodes(report, heading) {
  if (!report || !report.length) return [];
  const list = el("ul", null, { class: "report" });
  list.append(...report.map((line) => el("li", line)));
  return [el("h3", heading), list];
}

function issueNodes(issues, heading) {
  if (!issues || !issues.length) return [];
  const list = el("ul", null, { class: "issues" });
  list.append(...issues.map(issueItem));
  return [el("h3", heading), list];
}

function showSummary(data) {
  const dataset = data.dry_run ? data.dataset : link(data.dataset, `/manage/datasets/${encodeURIComponent(data.dataset)}/`);
  const nodes = [
    facts([
      ["Dataset", dataset],
      ["Documents", data.documents],
      ["References", data.references],
    ]),
    ...reportNodes(data.report, "Report"),
    ...issueNodes(data.issues, `Warnings (${(data.issues || []).length})`),
  ];
  const title = data.dry_run
    ? `Valid: ${counted(data.documents, "document")} would become ${data.dataset}. Nothing was written.`
    : `Imported ${data.dataset}: ${counted(data.documents, "document")}.`;
  show("done", title, ...nodes);
}

function showRefusal(error) {
  const data = error.data || {};
  const extra = data.extra || {};
  const issues = extra.issues || data.issues || [];
  const report = extra.report || data.report || [];
  const message = data.message || data.detail || error.message;
  const title = issues.length ? `Refused: ${issues.length} problem(s); nothing was written.` : "Refused; nothing was written.";
  show("refused", title, el("p", message), ...issueNodes(issues, "Problems"), ...reportNodes(report, "Report"));
}

async function send(event) {
  event.preventDefault();
  const dryRun = !event.submitter || event.submitter.value !== "import";
  errors.clear();
  result.hidden = true;
  const body = new FormData();
  const file = $("file").files[0];
  if (file) body.set("file", file);
  body.set("format", $("format").value);
  body.set("slug", $("slug").value.trim());
  if ($("name").value.trim()) body.set("name", $("name").value.trim());
  body.set("dry_run", dryRun ? "true" : "false");
  const buttons = form.querySelectorAll("button");
  for (const b of buttons) b.disabled = true;
  form.setAttribute("aria-busy", "true");
  formStatus.textContent = dryRun ? "Validating…" : "Importing…";
  try {
    const data = await api("/api/datasets/import/", { method: "POST", body });
    showSummary(data);
    if (!data.dry_run) {
      form.reset();
      if (formats.some((f) => f.name === "jsonl")) $("format").value = "jsonl";
      describeFormat();
      await loadDatasets();
    }
  } catch (error) {
    if (fieldErrors(error.data).length) errors.show(error);
    else showRefusal(error);
  } finally {
    for (const b of buttons) b.disabled = false;
    form.removeAttribute("aria-busy");
    formStatus.textContent = "";
  }
}

form.addEventListener("submit", send);
submitOnEnter(form);
$("format").addEventListener("change", describeFormat);
loadFormats();
loadDatasets().catch((error) => {
  $("status").textContent = "";
  $("error").textContent = `Could not load the datasets: ${error.message}`;
  $("error").hidden = false;
});
