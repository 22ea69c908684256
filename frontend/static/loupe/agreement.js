// A campaign's agreement page: the latest run's figures with their intervals, per pair, per
// system (spans), per document, the lowest documents linked to their adjudication and the
// split with and without suggestions. "Stale" when the annotations changed since the run, with
// a Recompute button; while a run is queued or running the page polls until it is done.
// Data: GET / POST /api/campaigns/<id>/agreement/; drawing: agreement-view.js.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import { showError } from "./leaderboard-format.js";
import * as view from "./agreement-view.js";
import { recoveryText } from "./job-recovery.js";
import { pollMs } from "./timing.js";

const $ = (id) => document.getElementById(id);
const root = $("agreement-page");
const campaignId = Number(root.dataset.campaign);
const url = `/api/campaigns/${campaignId}/agreement/`;
const adjudicationUrl = (documentId) => `/manage/campaigns/${campaignId}/adjudication/${documentId}/`;
const POLL_MS = 1500; // unless LOUPE_UI_POLL_MS says otherwise (timing.js)
const BUSY = new Set(["queued", "running"]);

let timer = null;
let drawnDigest = null; // the run whose result is drawn (redrawn only when it changes)

// The run's state in words: [state, text]; state is empty, busy, failed, stale or fresh.
function describeStatus(envelope) {
  const status = envelope.status || "none";
  const at = envelope.computed_at ? ` (computed ${when(envelope.computed_at)})` : "";
  const busy = BUSY.has(status);
  const working = status === "running" ? "A new run is computing…" : "A new run waits for a worker…";
  if (!envelope.result) {
    if (busy) return ["busy", status === "running" ? "Computing…" : "Waiting for a worker to compute it…"];
    if (status === "failed") return ["failed", `The last run failed: ${envelope.error || "no reason given"}.`];
    return ["empty", "Not computed yet."];
  }
  if (envelope.stale) {
    const next = busy ? ` ${working}` : status === "failed" ? ` The last run failed: ${envelope.error || "no reason given"}.` : " Recompute to include them.";
    return ["stale", `the annotations changed since these figures${at}.${next}`];
  }
  if (busy) return ["busy", `${working} The figures below are the latest${at}.`];
  if (status === "failed") return ["failed", `The last run failed: ${envelope.error || "no reason given"}. The figures below are the latest${at}.`];
  return ["fresh", `Up to date with the annotations${at}.`];
}

function drawStatus(envelope) {
  const [state, text] = describeStatus(envelope);
  const box = $("status");
  box.dataset.state = state;
  const line = $("status-text");
  line.replaceChildren();
  if (state === "stale") line.append(el("span", "Stale", { class: "stale-tag" }), document.createTextNode(": "));
  line.append(document.createTextNode(text));
  // What the job kernel's watchdog did for the run under way (a lost worker's work re-sent).
  const recovered = BUSY.has(envelope.status) ? recoveryText(envelope.run) : "";
  if (recovered) line.append(document.createTextNode(` ${recovered}`));
  const button = $("recompute");
  button.hidden = root.dataset.admin !== "1"; // only admins may ask for a run
  button.disabled = BUSY.has(envelope.status);
  button.textContent = envelope.result || envelope.status === "failed" ? "Recompute" : "Compute";
}

function drawResult(envelope) {
  const data = view.normalizeResult(envelope.kind, envelope.result);
  $("result").hidden = !data;
  if (!data) return;
  const key = `${envelope.inputs_digest || ""}|${envelope.computed_at || ""}`;
  if (key === drawnDigest) return;
  drawnDigest = key;
  $("overall").tBodies[0].replaceChildren(...view.overallRows(data));
  $("skipped").textContent = view.skippedText(data);
  $("skipped").hidden = !$("skipped").textContent;
  $("systems-section").hidden = !data.perSystem || !Object.keys(data.perSystem).length;
  if (data.perSystem) view.drawSystems($("systems"), data);
  view.drawPairs($("pairs"), data);
  const lowestMeasure = data.lowest.length ? data.lowest[0].measure : null;
  $("lowest-note").textContent = lowestMeasure ? `by ${view.measureLabel(lowestMeasure).toLowerCase()}; open one to adjudicate it` : "";
  $("lowest").replaceChildren(...view.lowestItems(data, adjudicationUrl));
  $("suggestions-section").hidden = data.kind !== "fam";
  if (data.kind === "fam") view.drawSuggestions($("suggestions"), data.suggestions);
  view.documentTable($("documents"), data, { adjudicationUrl, sortKey: lowestMeasure, more: $("more") });
  $("conventions-list").replaceChildren(view.conventionItems(data.conventions));
  const annotators = data.annotators.length ? counted(data.annotators.length, "annotator") : counted(data.pairs.length, "annotator pair");
  const hidden = envelope.systems_hidden ? " · systems hidden (system-blind campaign)" : "";
  const [what, units] = envelope.kind === "spans" ? ["Error spans", "items"] : ["FAMs", "documents"];
  $("subtitle").textContent = `${what} · ${annotators} · ${data.documents.length} ${units}${hidden}`;
}

async function load() {
  clearTimeout(timer);
  let envelope;
  try {
    envelope = await api(url);
  } catch (error) {
    showError($("error"), error.status === 403 ? `You may not see this campaign's agreement: ${error.message}` : error.status === 404 ? "No such campaign." : `Could not load the agreement: ${error.message}`);
    $("status").hidden = true;
    root.setAttribute("aria-busy", "false");
    return;
  }
  showError($("error"), "");
  drawStatus(envelope);
  drawResult(envelope);
  root.setAttribute("aria-busy", "false");
  if (BUSY.has(envelope.status)) timer = setTimeout(load, pollMs(POLL_MS));
}

async function recompute() {
  const button = $("recompute");
  button.disabled = true;
  try {
    await api(url, { method: "POST" });
  } catch (error) {
    showError($("error"), `Not recomputed: ${error.message}`);
    button.disabled = false;
    return;
  }
  await load();
}

async function main() {
  $("recompute").addEventListener("click", recompute);
  api(`/api/campaigns/${campaignId}/`)
    .then((campaign) => {
      $("title").textContent = `Agreement · ${campaign.name}`;
      document.title = `Agreement · ${campaign.name} · Loupe`;
    })
    .catch(() => {});
  await load();
}

main();
