// The document view: one system's output on one document against the support groups, from
// GET /api/datasets/<slug>/systems/<system>/documents/<id>/, with links to the neighbours.
import { counted } from "./plural.js";
import { api, el } from "./api.js";
import {
  bindControls,
  CATEGORY_LABELS,
  documentUrl,
  formControls,
  metricLabel,
  metricTitle,
  queryString,
  readParams,
  renderFacts,
  scoreCell,
  showError,
  systemUrl,
} from "./leaderboard-format.js";
import { facetItems, sentenceItems } from "./output-document-view.js";

const DEFAULTS = { version: 0, k: 3, category: "" };
const root = document.getElementById("output-document");
const { dataset, system, document: externalId } = root.dataset;
const params = readParams(DEFAULTS);
const kSelect = document.getElementById("k");
let latestRequest = 0;

for (let k = 1; k <= 10; k += 1) kSelect.append(el("option", k, { value: String(k) }));

function highlight(indices, on, scroll = false) {
  for (const index of indices) {
    const item = document.querySelector(`#sentences li[data-index="${index}"]`);
    item?.classList.toggle("in-group", on);
  }
  if (scroll && indices.length) {
    document.querySelector(`#sentences li[data-index="${indices[0]}"]`)?.scrollIntoView({ block: "nearest" });
  }
}

function drawFacts(view) {
  let fam = "none: FAR is not defined here";
  if (view.fam) {
    const set = view.fam.annotation_set;
    fam = set === view.fam.source ? view.fam.source : `${view.fam.source} (annotation set ${set})`;
  }
  const extraction = view.extracted
    ? `${counted(view.extracted.length, "sentence")}, ${view.extraction_method || "given"}`
    : "none (abstractive output)";
  const facts = [
    ["Category", view.document.category ? CATEGORY_LABELS[view.document.category] : "—"],
    ["FAM", fam],
    ["Extracted", extraction],
  ];
  renderFacts(document.getElementById("facts"), facts);
  const metrics = Object.keys(view.scores); // in the leaderboard's order (FAR, then ROUGE, ...)
  const head = el("tr");
  head.append(...metrics.map((m) => el("th", metricLabel(m), { scope: "col", class: "num", title: metricTitle(m) })));
  const row = el("tr");
  row.append(...metrics.map((m) => scoreCell(m, view.scores[m])));
  const table = document.getElementById("scores");
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(metrics.length ? row : el("tr"));
  if (!metrics.length) table.tBodies[0].firstChild.append(el("td", `No scores at k = ${view.k} yet.`));
  const noFar = view.extracted && view.fam && !metrics.includes("far");
  const stale = view.scores_stale ? " (computed against an earlier FAM than the one shown: rescore on the leaderboard page)" : "";
  table.caption.textContent = `This document's scores ×100${noFar ? ` (no FAR scores at k = ${view.k} yet: rescore at this k on the leaderboard page)` : ""}${stale}`;
}

function drawDocument(view) {
  // A release without article text (e.g. XSum's hallucination annotations) has ids only.
  const textless = view.document.sentences.length === 0;
  document.getElementById("sentences").hidden = textless;
  document.getElementById("sentences").replaceChildren(...sentenceItems(view.document.sentences, view.extracted, view.considered));
  document.getElementById("doc-legend").textContent = textless
    ? "The release has no article text: only the document's id, its reference and the systems' summaries are part of it."
    : view.extracted
      ? `Sentences the system extracted carry their extraction order: “considered” (solid) are the first k = ${view.k} ` +
        "that FAR uses; “beyond k” (dashed) were extracted later and are not used."
      : "An abstractive output: no document sentences were extracted, so FAR does not apply (ROUGE only).";
  const facets = view.fam ? view.fam.facets : [];
  document.getElementById("facets").replaceChildren(...facetItems(facets, view.considered, highlight));
  const covered = facets.filter((f) => f.covered).length;
  document.getElementById("facets-summary").textContent = view.fam
    ? `${covered} of ${counted(facets.length, "facet")} covered by the first k = ${view.k} extracted sentences. ` +
      "A facet is covered when every sentence of one of its support groups is considered; hover over or " +
      "focus a group to see its sentences in the document."
    : "No facet-aware mapping (FAM) for this document, so there are no support groups to compare with.";
  if (!view.fam) document.getElementById("facets").replaceChildren(...view.reference.map((text) => el("li", text, { class: "facet plain" })));
  const confidence = view.match_confidence || [];
  document.getElementById("summary").replaceChildren(
    ...view.summary.map((text, i) => {
      const item = el("li", text);
      if (confidence[i] !== undefined && confidence[i] < 1) item.append(el("small", ` (match confidence ${confidence[i].toFixed(2)})`, { class: "muted" }));
      return item;
    }),
  );
}

// Previous / next document in the system page's order (same version, k and category).
async function drawPager(version) {
  const query = queryString({ version, k: params.k, category: params.category });
  const list = await api(`/api/datasets/${encodeURIComponent(dataset)}/systems/${encodeURIComponent(system)}/scores/${query}`);
  const ids = list.documents.map((d) => d.external_id);
  const at = ids.indexOf(externalId);
  document.getElementById("position").textContent = at >= 0 ? `${at + 1} of ${ids.length}` : "";
  for (const [id, step] of [["prev", -1], ["next", 1]]) {
    const link = document.getElementById(id);
    const neighbour = at >= 0 ? ids[at + step] : undefined;
    link.hidden = neighbour === undefined;
    if (neighbour !== undefined) link.href = documentUrl(dataset, system, neighbour, query);
  }
}

async function load() {
  const request = ++latestRequest;
  root.setAttribute("aria-busy", "true");
  const query = queryString({ version: params.version, k: params.k }, DEFAULTS);
  try {
    const path = `/api/datasets/${encodeURIComponent(dataset)}/systems/${encodeURIComponent(system)}/documents/`;
    const view = await api(`${path}${encodeURIComponent(externalId)}/${query}`);
    if (request !== latestRequest) return;
    document.getElementById("title").textContent = `${view.name} on ${view.document.external_id}`;
    document.getElementById("subtitle").textContent = `${view.kind} system · version ${view.version} · ${view.dataset} · k = ${view.k}`;
    document.getElementById("system-link").href = `${systemUrl(dataset, system)}${queryString({ version: view.version, k: view.k, category: params.category }, DEFAULTS)}`;
    drawFacts(view);
    drawDocument(view);
    showError(document.getElementById("error"), "");
    await drawPager(view.version).catch(() => {});
  } catch (error) {
    if (request !== latestRequest) return;
    const what = error.status === 404 ? "this version has no output for this document." : error.message;
    showError(document.getElementById("error"), `Could not load the document: ${what}`);
  }
  root.setAttribute("aria-busy", "false");
}

bindControls(formControls("controls"), params, DEFAULTS, () => load());
load();
