// The leaderboard page: reads the view (category, k, sort, common documents, P/R columns) from
// the URL, asks GET /api/datasets/<slug>/leaderboard/ and draws the table and its companions,
// and lists the human judgment studies with a form to upload one.
import { counted } from "./plural.js";
import { api } from "./api.js";
import {
  bindControls,
  CATEGORY_LABELS,
  formControls,
  queryString,
  readParams,
  showError,
  showFarFilters,
  writeParams,
} from "./leaderboard-format.js";
import { renderApes } from "./leaderboard-apes.js";
import { renderCorrelations, renderCoverage, renderDownloads, renderPlots } from "./leaderboard-extras.js";
import { AnalysesPanel } from "./leaderboard-analyses.js";
import { JobsPanel } from "./leaderboard-jobs.js";
import { JudgmentsPanel } from "./leaderboard-judgments.js";
import { renderMetaEvaluation } from "./leaderboard-meta.js";
import { renderPolytope } from "./leaderboard-polytope.js";
import { legendText, renderTable } from "./leaderboard-table.js";

const DEFAULTS = { category: "", k: 3, sort: "", common: false, pr: false };
const root = document.getElementById("leaderboard");
const dataset = root.dataset.dataset;
const table = document.getElementById("lb-table");
const error = document.getElementById("error");
const controls = formControls("controls");
const params = readParams(DEFAULTS);
let envelope = null;
let latestRequest = 0;

const metaMethod = document.getElementById("meta-method");
metaMethod.addEventListener("change", () => envelope && renderMetaEvaluation(envelope, metaMethod.value));

const jobs = new JobsPanel({ dataset, k: () => params.k, onFinished: () => load() });
const judgments = new JudgmentsPanel({ dataset, onChange: () => load() });
const analyses = new AnalysesPanel({ dataset, k: () => params.k, onFinished: () => load() });

function draw() {
  const e = envelope;
  document.getElementById("title").textContent = e.dataset_name || e.dataset;
  const scope = e.category ? CATEGORY_LABELS[e.category] : "All documents";
  document.getElementById("subtitle").textContent = `${e.dataset} · ${counted(e.systems.length, "system")} · ${scope} · k = ${e.k}`;
  renderTable(table, e, { showPrecisionRecall: params.pr, onSort: sortBy });
  document.getElementById("rouge-settings").textContent = rougeText(e.rouge);
  let legend = legendText(e);
  const extractive = e.systems.some((s) => s.kind === "extractive");
  if (extractive && !e.metrics.includes("far")) legend = `No FAR scores at k = ${e.k} yet: “Rescore at k = ${e.k}” computes them. ${legend}`;
  if (e.polytope && e.polytope.available) {
    legend += " PolyTope: the score in percent, pooled over the words of the system's annotated outputs, with the " +
      "bootstrap interval of that ratio; Errors: critical (C), major (M) and minor (m) errors. A system none of whose " +
      "outputs is annotated says “not annotated”, which is not the same as clean.";
  }
  document.getElementById("legend").textContent = legend;
  renderCoverage(e);
  // FAR's plots and filters need a FAM to compute FAR against: without one, a note says so.
  showFarFilters(Boolean(e.has_fams));
  document.getElementById("plots-section").hidden = !e.has_fams;
  if (e.has_fams) renderPlots(dataset, params);
  renderCorrelations(e.correlations, params.pr);
  renderPolytope(e, dataset, params);
  renderApes(e);
  renderMetaEvaluation(e, metaMethod.value);
}

// The dataset's ROUGE settings as rouge-score's call, and what ROUGE-Lsum reads.
function rougeText(rouge) {
  if (!rouge) return "";
  let text = `ROUGE as rouge-score's ${rouge.scorer}`;
  if (rouge.rouge_types.includes("rougeLsum")) {
    text += rouge.split_summaries
      ? "; ROUGE-Lsum over the sentences NLTK's Punkt finds."
      : "; ROUGE-Lsum over the stored sentences, one a line.";
  }
  if (rouge.status === "rescoring") text += " Being rescored with these settings.";
  return text;
}

async function load() {
  const request = ++latestRequest;
  root.setAttribute("aria-busy", "true");
  const query = queryString({ category: params.category, k: params.k, sort: params.sort, common: params.common });
  renderDownloads(dataset, params);
  let data;
  try {
    data = await api(`/api/datasets/${encodeURIComponent(dataset)}/leaderboard/${query}`);
  } catch (failure) {
    if (request !== latestRequest) return;
    // A sort column without data at this k (e.g. FAR before it was scored): fall back.
    if (failure.status === 400 && params.sort && /sort/.test(failure.message)) {
      params.sort = "";
      writeParams(params, DEFAULTS);
      load();
      return;
    }
    showError(error, `Could not load the leaderboard: ${failure.message}`);
    root.setAttribute("aria-busy", "false");
    return;
  }
  if (request !== latestRequest) return; // a newer view was asked for meanwhile
  envelope = data;
  showError(error, "");
  draw();
  jobs.update(data.jobs);
  table.dataset.query = query;
  root.setAttribute("aria-busy", "false");
}

function sortBy(metric) {
  params.sort = metric;
  writeParams(params, DEFAULTS);
  load();
}

bindControls(controls, params, DEFAULTS, (key) => {
  if (key === "k") {
    jobs.label();
    analyses.autofar.refresh(); // its "new fit" choices are at the board's k
  }
  if (key !== "pr") load();
  else if (envelope) draw();
});
jobs.label();
load();
judgments.refresh();
analyses.refresh();
