// New campaign: fills the dataset, system (the chosen dataset's), reference, category and user
// choices from the JSON API, shows only what the chosen kind and document choice need, and
// posts the form as JSON to POST /api/campaigns/create/. A refusal puts each field's message
// next to the field (the input stays as typed); a created campaign opens its page.
import { counted } from "./plural.js";
import { api, el } from "./api.js";
import { FormErrors, submitOnEnter } from "./form-errors.js";
import { CATEGORY_LABELS, slugify } from "./manage-format.js";

const $ = (id) => document.getElementById(id);
const form = $("campaign-form");
const status = $("form-status");
const submitStatus = $("submit-status");
const errors = new FormErrors(form, $("form-errors"));
let slugEdited = false;
let datasetToken = 0; // the latest dataset asked for: an earlier, slower answer is dropped

function option(value, text) {
  const node = el("option", text);
  node.value = value;
  return node;
}

function checkbox(name, value, text, extra) {
  const label = el("label", null, { class: "check" });
  const input = el("input", null, { type: "checkbox", name, value });
  label.append(input, ` ${text}`);
  if (extra) label.append(" ", el("span", extra, { class: "muted" }));
  return label;
}

const checked = (container) => [...container.querySelectorAll("input[type=checkbox]:checked")].map((i) => i.value);
const kind = () => form.querySelector("input[name=kind]:checked").value;
const docMode = () => form.querySelector("input[name=doc-mode]:checked").value;

// Refill box with one checkbox per [value, text, extra] entry; what was ticked stays ticked.
function refillChecks(box, name, entries) {
  const before = new Set(checked(box));
  box.replaceChildren(
    ...entries.map(([value, text, extra]) => {
      const item = checkbox(name, value, text, extra);
      item.querySelector("input").checked = before.has(value);
      return item;
    }),
  );
}

// Only the chosen kind's and document choice's fields show (and count).
function showParts() {
  for (const part of form.querySelectorAll(".mg-kind")) {
    const on = part.dataset.kind === kind();
    part.hidden = !on;
    part.disabled = !on;
  }
  for (const part of form.querySelectorAll(".mg-mode")) {
    const on = part.dataset.mode === docMode();
    part.hidden = !on;
    part.disabled = !on;
  }
}

function fillCategories(counts) {
  const total = Object.values(counts || {}).reduce((a, b) => a + b, 0);
  $("docs-total").textContent = total ? `${counted(total, "document")} in the dataset.` : "";
  const entries = Object.entries(CATEGORY_LABELS).map(([value, label]) => [value, label, `(${(counts || {})[value] || 0})`]);
  for (const [id, name] of [["categories", "categories"], ["sample-categories", "sample-categories"]]) {
    const box = $(id);
    refillChecks(box, name, entries);
    const none = (counts || {})[""] || 0;
    if (none) box.append(el("span", `${none} without a category`, { class: "muted" }));
  }
}

// The references of the dataset's first document: their positions and labels.
async function fillReferences(slug, token) {
  const select = $("reference");
  let references = [];
  try {
    const page = await api(`/api/datasets/${encodeURIComponent(slug)}/documents/?limit=1`);
    if (page.results.length) references = (await api(`/api/documents/${page.results[0].id}/`)).references;
  } catch {
    references = [];
  }
  if (token !== datasetToken) return;
  const before = select.value;
  select.replaceChildren();
  for (const ref of references) {
    select.append(option(String(ref.position), `${ref.position}: ${ref.label || "reference"} (${counted(ref.sentences.length, "sentence")} in the first document)`));
  }
  if (!references.length) select.append(option("0", "Reference 0"));
  if ([...select.options].some((o) => o.value === before)) select.value = before;
}

// The chosen dataset's systems (a PolyTope campaign's items are their outputs on it), each with
// its latest version's output count there; a system still offered stays chosen.
function fillSystems(systems) {
  const box = $("systems");
  if (systems === null) {
    box.replaceChildren(el("span", "Choose a dataset first.", { class: "muted" }));
    return;
  }
  refillChecks(box, "systems", systems.map((s) => [s.slug, s.name, `(${s.slug}, ${counted(s.output_count, "output")} on this dataset)`]));
  if (!systems.length) box.append(el("span", "No system has outputs on this dataset yet.", { class: "muted" }));
}

async function datasetChosen() {
  const slug = $("dataset").value;
  datasetToken += 1;
  const token = datasetToken;
  if (!slug) {
    fillCategories({});
    fillSystems(null);
    return;
  }
  try {
    const query = encodeURIComponent(slug);
    const [dataset, systems] = await Promise.all([api(`/api/datasets/${query}/`), api(`/api/systems/?dataset=${query}`)]);
    if (token !== datasetToken) return;
    fillCategories(dataset.categories || {});
    fillSystems(systems);
    await fillReferences(slug, token);
  } catch (error) {
    status.textContent = `Could not load the dataset ${slug}: ${error.message}`;
  }
}

function fillUsers(container, name, users, describe) {
  container.replaceChildren();
  for (const user of users) container.append(checkbox(name, user.username, user.username, describe(user)));
  if (!users.length) container.append(el("span", "Nobody yet.", { class: "muted" }));
}

async function load() {
  const wanted = new URLSearchParams(window.location.search).get("dataset");
  const [datasets, annotators, everyone] = await Promise.all([
    api("/api/datasets/"),
    api("/api/users/?role=Annotator"),
    api("/api/users/"),
  ]);
  const select = $("dataset");
  select.replaceChildren(option("", datasets.length ? "Choose a dataset…" : "No datasets yet"));
  for (const d of datasets) select.append(option(d.slug, `${d.name} (${d.slug}, ${counted(d.document_count, "document")})`));
  if (wanted && datasets.some((d) => d.slug === wanted)) select.value = wanted;
  fillUsers($("annotators"), "annotators", annotators, () => "");
  const others = everyone.filter((u) => !(u.roles || []).includes("Admin"));
  fillUsers($("adjudicators"), "adjudicators", others, (u) => ((u.roles || []).length ? `(${u.roles.join(", ")})` : ""));
  status.textContent = "Every field is checked by the server; a problem is shown next to its field.";
  await datasetChosen();
}

// A number as typed: an integer when it is one, else the text itself (the server names it).
function number(input) {
  const text = input.value.trim();
  return /^-?\d+$/.test(text) ? Number(text) : text;
}

function body() {
  const data = {
    dataset: $("dataset").value,
    kind: kind(),
    name: $("name").value.trim(),
    slug: $("slug").value.trim(),
    annotators_per_document: number($("overlap")),
    blind: $("blind").checked,
    instructions: $("instructions").value,
    annotators: checked($("annotators")),
  };
  const adjudicators = checked($("adjudicators"));
  if (adjudicators.length) data.adjudicators = adjudicators;
  if (data.kind === "polytope") {
    data.systems = checked($("systems"));
    data.system_blind = $("system-blind").checked;
  } else {
    data.reference_position = number($("reference"));
    data.scorers = checked($("scorers"));
    data.top_k = number($("top-k"));
  }
  const mode = docMode();
  if (mode === "categories") data.categories = checked($("categories"));
  else if (mode === "ids") data.documents = $("documents").value.split(/[\s,;]+/).filter(Boolean);
  else if (mode === "sample") {
    // No seed: the server draws one and records it, so the sample can still be reproduced.
    data.sample = { size: number($("sample-size")) };
    if ($("sample-seed").value.trim() !== "") data.sample.seed = number($("sample-seed"));
    const only = checked($("sample-categories"));
    if (only.length) data.sample.categories = only;
  }
  return data;
}

async function send(event) {
  event.preventDefault();
  const button = $("create");
  button.disabled = true;
  form.setAttribute("aria-busy", "true");
  submitStatus.textContent = "Creating…";
  errors.clear();
  try {
    const campaign = await api("/api/campaigns/create/", { method: "POST", body: body() });
    submitStatus.textContent = `Created ${campaign.name}.`;
    // What the server noted (e.g. adjudicators it could not record) is shown on the next page.
    try {
      sessionStorage.setItem(`loupe:created:${campaign.id}`, JSON.stringify(campaign.notes || []));
    } catch {
      // no storage: the notes are just not repeated there
    }
    window.location.assign(`/manage/campaigns/${campaign.id}/?created=1`);
  } catch (error) {
    submitStatus.textContent = "";
    errors.show(error);
    button.disabled = false;
  } finally {
    form.removeAttribute("aria-busy");
  }
}

function wire() {
  form.addEventListener("submit", send);
  submitOnEnter(form);
  for (const input of form.querySelectorAll("input[name=kind], input[name=doc-mode]")) input.addEventListener("change", showParts);
  $("dataset").addEventListener("change", datasetChosen);
  $("name").addEventListener("input", () => {
    if (!slugEdited) $("slug").value = slugify($("name").value);
  });
  $("slug").addEventListener("input", () => {
    slugEdited = $("slug").value !== "";
  });
}

wire();
showParts();
load().catch((error) => {
  status.textContent = `Could not load the choices: ${error.message}`;
});
