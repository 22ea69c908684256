// A campaign's documents to adjudicate: category, annotators, agreement, status and gold
// version, filtered by status and sorted by any column (agreement lowest first by default).
// Data: GET /api/campaigns/<id>/adjudication/; text goes in with textContent only.
import { api, el } from "./api.js";
import { CATEGORY_LABELS, fixed, sortHeader, keepSortFocus, showError } from "./leaderboard-format.js";
import { counted } from "./plural.js";

const $ = (id) => document.getElementById(id);
const root = $("adj-list");
const campaignId = Number(root.dataset.campaign);
const docUrl = (id) => `/manage/campaigns/${campaignId}/adjudication/${id}/`;

const COLUMNS = [
  ["external_id", "Document"],
  ["category", "Category"],
  ["annotators", "Annotators"],
  ["submitted", "Submitted"],
  ["agreement", "Agreement"],
  ["status", "Status"],
  ["gold_version", "Gold version"],
];
const view = { sort: "agreement", descending: false, status: "" };
const AGREEMENT_TITLES = {
  jaccard_union: "Mean Jaccard index of the submitted annotators' support sentences, over facets and pairs",
  span_f1_exact: "Span F1, exact, as on the agreement page: the submitted annotators' errors paired by their offsets (type and label not compared), pooled over the document's summaries and pairs",
};
let measure = "";
let documents = [];

function value(doc, key) {
  const v = doc[key];
  return v === null || v === undefined ? null : v;
}

function compare(a, b) {
  const x = value(a, view.sort);
  const y = value(b, view.sort);
  // Missing values last, whichever the direction.
  if (x === null || y === null) return x === null && y === null ? 0 : x === null ? 1 : -1;
  const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
  return view.descending ? -order : order;
}

function row(doc) {
  const tr = el("tr", null, { "data-document": String(doc.id), class: doc.status === "done" ? "done" : "" });
  const th = el("th", null, { scope: "row", class: "docid" });
  th.append(el("a", doc.external_id, { href: docUrl(doc.id) }));
  const agreement = typeof doc.agreement === "number" ? fixed(doc.agreement, 2) : "—";
  const status = el("td");
  status.append(el("span", doc.status === "done" ? "Adjudicated" : "Pending", { class: `badge ${doc.status === "done" ? "submitted" : "in_progress"}` }));
  tr.append(
    th,
    el("td", CATEGORY_LABELS[doc.category] || doc.category || "—"),
    el("td", doc.annotators ?? "—", { class: "num" }),
    el("td", doc.submitted ?? "—", { class: "num" }),
    el("td", agreement, { class: "num", title: AGREEMENT_TITLES[measure] || measure || "" }),
    status,
    el("td", doc.gold_version ? `v${doc.gold_version}` : "—", { class: "num" }),
  );
  return tr;
}

function draw() {
  const table = $("documents");
  keepSortFocus(table, () => {
    const head = el("tr");
    for (const [key, label] of COLUMNS) {
      head.append(
        sortHeader(key, label, {
          direction: view.sort === key ? (view.descending ? "descending" : "ascending") : null,
          onSort: (k) => {
            view.descending = view.sort === k ? !view.descending : false;
            view.sort = k;
            draw();
          },
        }),
      );
    }
    table.tHead.replaceChildren(head);
    const shown = documents.filter((doc) => !view.status || doc.status === view.status).sort(compare);
    table.tBodies[0].replaceChildren(...(shown.length ? shown.map(row) : [emptyRow()]));
  });
}

function emptyRow() {
  const tr = el("tr");
  tr.append(el("td", view.status ? "No document with this status." : "This campaign has no document.", { colspan: String(COLUMNS.length), class: "muted" }));
  return tr;
}

async function main() {
  let data;
  try {
    data = await api(`/api/campaigns/${campaignId}/adjudication/`);
  } catch (error) {
    $("summary").textContent = "";
    showError($("error"), error.status === 403 ? `You may not adjudicate this campaign: ${error.message}` : error.status === 404 ? "No such campaign." : `Could not load the documents: ${error.message}`);
    root.setAttribute("aria-busy", "false");
    return;
  }
  documents = data.documents || [];
  measure = data.agreement_measure || "";
  const campaign = data.campaign || {};
  $("title").textContent = `Adjudication · ${campaign.name || `campaign ${campaignId}`}`;
  document.title = `Adjudication · ${campaign.name || campaignId} · Loupe`;
  const done = documents.filter((doc) => doc.status === "done").length;
  const parts = [`${done} of ${counted(documents.length, "document")} adjudicated`];
  if (campaign.status === "closed") parts.push("the campaign is closed: the gold is read-only");
  $("summary").textContent = parts.join(" · ");
  const pending = [...documents].filter((doc) => doc.status !== "done").sort((a, b) => (a.agreement ?? 2) - (b.agreement ?? 2))[0];
  if (pending) {
    const next = $("next-pending");
    next.href = docUrl(pending.id);
    next.textContent = `Next pending: ${pending.external_id}`;
    next.hidden = false;
  }
  const filter = $("status-filter");
  filter.addEventListener("change", () => {
    view.status = filter.value;
    draw();
  });
  $("controls").addEventListener("submit", (e) => e.preventDefault());
  draw();
  root.setAttribute("aria-busy", "false");
}

main();
