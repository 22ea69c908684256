// Cross-dataset evaluation page: the form (metric, datasets, missing-cell rule) drives
// GET /api/crossdataset/?...&plots=true; the ranking (the means, ranked, and the paper's figures
// as printed), each system's heat maps (server-built SVG, values in data-* attributes) and the
// left-out systems are drawn from it. The paired tests (the permutation test and the paper's
// Wilcoxon tests) run on the workers: “Run the paired tests” POSTs /api/crossdataset/tests/
// (409: a run is already pending, which is followed) and GET /api/crossdataset/tests/<id>/ is
// polled until it is done (job-follow.js). With no system, the empty state says what to upload.
import { counted } from "./plural.js";
import { api, el } from "./api.js";
import { followNodes, JobFollower } from "./job-follow.js";
import { showError } from "./leaderboard-format.js";

const page = document.getElementById("crossdataset-page");
const form = document.getElementById("controls");
const metricSelect = document.getElementById("metric");
const datasetsBox = document.getElementById("datasets");
const missingSelect = document.getElementById("missing");
const status = document.getElementById("status");
const errorBox = document.getElementById("error");
const testsStatus = document.getElementById("tests-status");
let alpha = 0.05; // the paper's significance level, as the API gives it

const figure = (value) => (value === null || value === undefined ? "–" : Number(value).toFixed(4));

function option(value, text) {
  const node = el("option", text);
  node.value = value;
  return node;
}

function params() {
  const query = new URLSearchParams(window.location.search);
  return {
    metric: query.get("metric") || "rouge1_f",
    datasets: (query.get("datasets") || "").split(",").filter(Boolean),
    missing: query.get("missing") === "exclude" ? "exclude" : "error",
  };
}

function chosenDatasets() {
  return [...datasetsBox.querySelectorAll("input[type=checkbox]:checked")].map((box) => box.value);
}

function fillDatasets(datasets, ticked) {
  const nodes = datasets.map((d) => {
    const box = el("input", null, { type: "checkbox", name: "datasets", value: d.slug });
    box.checked = ticked.includes(d.slug);
    const label = el("label", null, { class: "check" });
    label.append(box, ` ${d.slug}`);
    return label;
  });
  datasetsBox.querySelector("#datasets-loading")?.remove();
  datasetsBox.querySelectorAll("label.check").forEach((node) => node.remove());
  datasetsBox.append(...nodes);
}

function fillMetrics(metrics, chosen) {
  const keys = metrics.includes(chosen) ? metrics : [chosen, ...metrics];
  metricSelect.replaceChildren(...keys.map((m) => option(m, m)));
  metricSelect.value = chosen;
}

// Server-built SVG text -> an inline <svg> (parsed as XML, never as HTML).
function svgNode(text) {
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = parsed.documentElement;
  if (root.nodeName !== "svg") return el("p", "The plot could not be drawn.", { class: "error" });
  return document.importNode(root, true);
}

function rankCell(value, rank) {
  const cell = el("td", null, { class: "num" });
  cell.append(el("span", figure(value), { class: "mean" }), el("small", `rank ${rank}`, { class: "ci" }));
  return cell;
}

function drawRanking(body) {
  const rows = body.systems.map((s) => {
    const row = el("tr", null, { "data-system": s.system });
    row.append(
      el("th", s.system, { scope: "row", class: "system" }),
      rankCell(s.stiffness, s.rank_stiffness),
      rankCell(s.stableness, s.rank_stableness),
      rankCell(s.in_dataset, s.rank_in_dataset),
      el("td", figure(s.stiffness_printed), { class: "num", "data-measure": "stiffness_printed" }),
      el("td", figure(s.stableness_printed), { class: "num", "data-measure": "stableness_printed" }),
    );
    return row;
  });
  document.querySelector("#ranking tbody").replaceChildren(...rows);
  document.getElementById("normalisation-note").textContent = body.normalisation;
  const note = document.getElementById("excluded-note");
  note.hidden = !body.excluded.length;
  note.textContent = body.excluded.length
    ? `Excluded for every system (trained on → tested on): ${body.excluded.map(([a, b]) => `${a} → ${b}`).join(", ")}. Stiffness and stableness are means over the other cells.`
    : "";
  document.getElementById("ranking-section").hidden = !body.systems.length;
}

// A p-value cell: the figure (bold under alpha), how it was computed underneath.
function pCell(p, how, kind) {
  const cell = el("td", null, { class: "num", "data-test": kind, "data-p": String(p) });
  const text = figure(p);
  cell.append(p < alpha ? el("strong", text) : el("span", text), el("small", how, { class: "ci" }));
  return cell;
}

function wilcoxonCell(t, measure, reading) {
  if (t.wilcoxon_error) return el("td", "–", { class: "num na", title: t.wilcoxon_error });
  const w = t.wilcoxon.find((x) => x.measure === measure && x.reading === reading);
  const pairs = `${w.n - w.zeros} ${reading === "cells" ? "cells" : "units"}`;
  const how = w.method.startsWith("exact") ? "exact" : "normal";
  return pCell(w.p_value, `${pairs}, ${how}`, `wilcoxon-${measure}-${reading}`);
}

function difference(value) {
  return el("td", (value >= 0 ? "+" : "") + figure(value), { class: "num" });
}

function drawTests(tests) {
  const rows = tests.map((t) => {
    const row = el("tr", null, { "data-pair": `${t.system_a}|${t.system_b}` });
    row.append(el("th", t.system_a, { scope: "row" }), el("td", t.system_b));
    if (t.error) {
      row.append(el("td", `Not tested: ${t.error}`, { colspan: "2", class: "na" }));
    } else {
      const how = t.exact ? "exact" : `${t.resamples} patterns, seed ${t.seed}`;
      const dropped = t.dropped_a || t.dropped_b ? `; left out ${t.dropped_a} / ${t.dropped_b}` : "";
      row.append(difference(t.statistic), pCell(t.p_value, `${t.n} units, ${how}${dropped}`, "permutation"));
    }
    const stableness = t.wilcoxon.find((x) => x.measure === "stableness" && x.reading === "cells");
    row.append(
      wilcoxonCell(t, "stiffness", "cells"),
      wilcoxonCell(t, "stiffness", "documents"),
      stableness ? difference(stableness.mean_difference) : el("td", "–", { class: "num na" }),
      wilcoxonCell(t, "stableness", "cells"),
      wilcoxonCell(t, "stableness", "documents"),
    );
    return row;
  });
  document.querySelector("#tests tbody").replaceChildren(...rows);
  document.getElementById("tests").hidden = !tests.length;
}

// The paired tests' run, followed live by the shared follower (job-follow.js).
const testsButton = document.getElementById("tests-start");
const follower = new JobFollower(followNodes(document.getElementById("tests-job"), "Paired tests"), {
  url: (id) => `/api/crossdataset/tests/${id}/`,
  label: "Paired tests run",
  unit: "pairs",
  read: (run) => ({
    id: run.run,
    state: run.state,
    done: run.pairs_done,
    total: run.pairs_total,
    error: run.error,
    recoveries: run.recoveries,
    recovery_note: run.recovery_note,
  }),
  onFinal: (run) => drawRun(run),
});
let current = null; // the evaluation shown: its parameters start the tests

function drawRun(run) {
  if (run.state === "succeeded") testsStatus.textContent = `Run ${run.run}: ${counted(run.pairs_total, "pair")} tested.`;
  else if (run.state === "failed") testsStatus.textContent = `The paired tests failed: ${run.error}`;
  else testsStatus.textContent = "";
  drawTests(run.tests);
}

// Show the evaluation's run: drawn when it succeeded, followed while it is queued or running,
// else the button says how to start it.
function showTests(body) {
  const run = body.tests_run;
  follower.stop();
  if (run.state === "none") {
    follower.show(null, "The paired tests have not run for these scores: “Run the paired tests” starts them on the workers.");
  } else {
    follower.track(run);
  }
  drawRun(run);
}

testsButton.addEventListener("click", async () => {
  if (!current) return;
  const params = { metric: current.metric, missing: current.missing, datasets: current.datasets.join(",") };
  const resamples = new URLSearchParams(window.location.search).get("resamples");
  if (resamples) params.resamples = Number(resamples);
  const run = await follower.start(testsButton, "/api/crossdataset/tests/", params);
  if (run) drawRun(run);
});

function drawMatrices(body) {
  const sections = body.systems.map((s) => {
    const section = el("section", null, { class: "cdx-system", "data-system": s.system, "aria-label": s.system });
    section.append(el("h3", s.system));
    const plots = el("div", null, { class: "plots" });
    for (const [kind, caption] of [["u", "U matrix"], ["normalised", "Normalised U_ij / U_jj"]]) {
      const fig = el("figure", null, { "data-matrix": kind });
      fig.append(svgNode(s.plots[kind]), el("figcaption", caption));
      plots.append(fig);
    }
    section.append(plots);
    return section;
  });
  document.getElementById("matrices").replaceChildren(...sections);
  document.getElementById("matrices-section").hidden = !body.systems.length;
}

function drawLeftOut(body) {
  const items = body.left_out.map((x) => {
    const who = x.slug ? `${x.system} (${x.slug})` : x.system;
    return el("li", `${who}: ${x.reason}`, { "data-slug": x.slug });
  });
  document.getElementById("left-out").replaceChildren(...items);
  document.getElementById("left-out-section").hidden = !items.length;
}

async function load() {
  const wanted = params();
  follower.stop();
  current = null;
  testsStatus.textContent = "";
  const query = new URLSearchParams({ metric: wanted.metric, missing: wanted.missing, plots: "true" });
  if (wanted.datasets.length) query.set("datasets", wanted.datasets.join(","));
  const resamples = new URLSearchParams(window.location.search).get("resamples");
  if (resamples) query.set("resamples", resamples);
  page.setAttribute("aria-busy", "true");
  errorBox.hidden = true;
  status.textContent = "Computing…";
  let body;
  try {
    body = await api(`/api/crossdataset/?${query}`);
    fillMetrics(body.metrics, body.metric);
    missingSelect.value = body.missing;
    for (const box of datasetsBox.querySelectorAll("input[type=checkbox]")) box.checked = body.datasets.includes(box.value);
    alpha = body.alpha;
    document.getElementById("tests-alpha").textContent = String(alpha);
    drawRanking(body);
    document.getElementById("tests-description").textContent = body.test_description;
    current = body;
    showTests(body);
    document.getElementById("tests-section").hidden = body.systems.length < 2;
    drawMatrices(body);
    drawLeftOut(body);
    // Empty state: no system has a "trained on" dataset with outputs on the chosen ones.
    document.getElementById("cdx-empty").hidden = body.systems.length > 0;
    status.textContent = body.systems.length
      ? `${counted(body.systems.length, "system")} on ${body.datasets.join(", ")} by ${body.metric}.`
      : `No system to evaluate on ${body.datasets.join(", ") || "these datasets"}.`;
  } catch (error) {
    status.textContent = "";
    for (const id of ["ranking-section", "tests-section", "matrices-section", "left-out-section", "cdx-empty"]) document.getElementById(id).hidden = true;
    showError(errorBox, error.message);
    return;
  } finally {
    page.setAttribute("aria-busy", "false");
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const query = new URLSearchParams({ metric: metricSelect.value, missing: missingSelect.value });
  const resamples = new URLSearchParams(window.location.search).get("resamples");
  if (resamples) query.set("resamples", resamples);
  const datasets = chosenDatasets();
  if (datasets.length) query.set("datasets", datasets.join(","));
  window.history.replaceState(null, "", `?${query}`);
  load();
});

async function main() {
  const wanted = params();
  missingSelect.value = wanted.missing;
  fillMetrics([wanted.metric], wanted.metric);
  try {
    fillDatasets(await api("/api/datasets/"), wanted.datasets);
  } catch (error) {
    showError(errorBox, `Could not load the datasets: ${error.message}`);
  }
  await load();
}

main();
