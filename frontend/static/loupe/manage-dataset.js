// One dataset (admins): its facts, categories, annotation sets and campaigns from
// GET /api/datasets/<slug>/, and its documents a page at a time (filtered by category) from
// GET /api/datasets/<slug>/documents/. A category's row filters the documents.
import { api, el, when } from "./api.js";
import { campaignBadge, CATEGORY_LABELS, facts, KIND_LABELS, link, num } from "./manage-format.js";

const $ = (id) => document.getElementById(id);
const root = $("dataset-page");
const slug = root.dataset.slug;
const LIMIT = 50;
const docs = { offset: 0, count: 0, category: "" };

function rows(tbody, items, build) {
  tbody.replaceChildren(...items.map(build));
}

function categoryRow([value, count]) {
  const row = el("tr", null, { "data-category": value });
  const head = el("th", null, { scope: "row" });
  if (value && Object.hasOwn(CATEGORY_LABELS, value)) {
    const button = el("button", CATEGORY_LABELS[value], { type: "button", class: "linkish", title: "Show these documents" });
    button.addEventListener("click", () => {
      $("category-filter").value = value;
      filter();
      $("documents-heading").scrollIntoView({ block: "start" });
    });
    head.append(button);
  } else {
    head.textContent = value ? value : "No category";
  }
  row.append(head, num(count));
  return row;
}

function setRow(set) {
  const row = el("tr", null, { "data-set": set.slug });
  const name = el("th", set.name, { scope: "row" });
  name.append(el("small", set.slug, { class: "muted slug" }));
  row.append(name, el("td", set.kind), el("td", set.scheme || "—"), num(set.count));
  return row;
}

function campaignRow(campaign) {
  const row = el("tr", null, { "data-campaign": campaign.id });
  const name = el("th", null, { scope: "row" });
  name.append(link(campaign.name, `/manage/campaigns/${campaign.id}/`));
  const state = el("td");
  state.append(campaignBadge(campaign.status, campaign.status_label));
  row.append(name, el("td", KIND_LABELS[campaign.kind] || campaign.kind), state);
  return row;
}

async function loadDataset() {
  const d = await api(`/api/datasets/${encodeURIComponent(slug)}/`);
  document.title = `${d.name} · Datasets · Loupe`;
  $("title").textContent = d.name;
  $("description").textContent = d.description || "";
  $("facts").replaceChildren(
    facts([
      ["Slug", d.slug],
      ["Documents", d.document_count],
      ["Source", d.source],
      ["License", d.license],
      ["Public", d.public === undefined ? "—" : d.public ? "yes: anyone may download its releases" : "no"],
      ["Imported", when(d.created_at)],
    ]),
  );
  const order = ["noise", "low", "high", ""];
  const categories = Object.entries(d.categories || {}).sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]));
  rows(document.querySelector("#categories tbody"), categories, categoryRow);
  const sets = d.annotation_sets || [];
  rows(document.querySelector("#sets tbody"), sets, setRow);
  $("sets-empty").hidden = sets.length > 0;
  const campaigns = d.campaigns || [];
  rows(document.querySelector("#campaigns tbody"), campaigns, campaignRow);
  $("campaigns-empty").hidden = campaigns.length > 0;
}

async function loadDocuments() {
  const params = new URLSearchParams({ limit: String(LIMIT), offset: String(docs.offset) });
  if (docs.category) params.set("category", docs.category);
  const page = await api(`/api/datasets/${encodeURIComponent(slug)}/documents/?${params}`);
  docs.count = page.count;
  rows(document.querySelector("#documents tbody"), page.results, (d) => {
    const row = el("tr", null, { "data-document": d.external_id });
    row.append(num(d.position), el("td", d.external_id, { class: "docid" }), el("td", CATEGORY_LABELS[d.category] || d.category || "—"), num(d.sentence_count));
    return row;
  });
  const last = Math.min(docs.offset + LIMIT, docs.count);
  $("documents-count").textContent = `${docs.count}${docs.category ? ` ${CATEGORY_LABELS[docs.category] || docs.category}` : ""}`;
  $("page-text").textContent = docs.count ? `${docs.offset + 1}–${last} of ${docs.count}` : "none";
  pagerButton($("prev"), docs.offset === 0, $("next"));
  pagerButton($("next"), last >= docs.count, $("prev"));
}

// Disable a pager button; if it had the focus, the focus moves to its partner (or the filter).
function pagerButton(button, disabled, partner) {
  const had = document.activeElement === button;
  button.disabled = disabled;
  if (had && disabled) (partner.disabled ? $("category-filter") : partner).focus();
}

function showError(error, what) {
  $("error").textContent = `Could not load ${what}: ${error.message}`;
  $("error").hidden = false;
}

function filter() {
  docs.category = $("category-filter").value;
  docs.offset = 0;
  loadDocuments().catch((error) => showError(error, "the documents"));
}

function turn(step) {
  docs.offset = Math.max(0, docs.offset + step * LIMIT);
  loadDocuments().catch((error) => showError(error, "the documents"));
}

$("category-filter").addEventListener("change", filter);
$("prev").addEventListener("click", () => turn(-1));
$("next").addEventListener("click", () => turn(1));
Promise.all([
  loadDataset().catch((error) => showError(error, "the dataset")),
  loadDocuments().catch((error) => showError(error, "the documents")),
]).finally(() => root.setAttribute("aria-busy", "false"));
