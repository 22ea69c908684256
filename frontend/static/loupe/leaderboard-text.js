// The leaderboard pages' text as pure functions over plain data (no DOM): metric names and
// titles, the columns shown, numbers x100 and p values, the PolyTope error counts, the view's
// parameters in a query string and the pages' addresses. leaderboard-format.js re-exports them
// beside its DOM helpers, so the pages import one module.

export const FAR_FAMILY = ["far", "sar", "sap", "saf1"];
// A ROUGE key: type, then "_nostem" (no stemming), "_split" (ROUGE-Lsum over NLTK Punkt's
// sentences), then the measure (scoring/metrics/rouge/config.py names them).
const ROUGE_KEY = /^rouge([1-9]|Lsum|L)(_nostem)?(_split)?_([prf])$/;
// Human scores from annotations, shown as columns like the metrics (always visible).
const HUMAN = { faithfulness: ["Faithful", "Faithfulness (share of words outside the annotators' hallucinated spans)"] };
// Estimates of a human score from a fitted model, shown beside it and labelled as estimates.
const ESTIMATES = {
  autofar_l: ["AutoFAR-L (estimate)", "AutoFAR-L: FAR estimated from machine FAMs by a fitted regression (an estimate, not human FAR; extractive systems only)"],
};

// APES (Eyal et al. 2019): share of the reference's cloze questions answered from the summary.
const APES = {
  apes: ["APES", "APES, entity matching: share of the reference's cloze questions (its named entities masked) the summary answers"],
  apes_embedding: ["APES emb.", "APES, embedding answerer (all-MiniLM-L6-v2, untrained for cloze questions): share of the reference's cloze questions the summary answers"],
};

const PARTS = { p: ["P", "precision"], r: ["R", "recall"], f: ["F", "F1"] };
const FAR_NAMES = {
  far: ["FAR", "facet-aware recall"],
  sar: ["SAR", "support recall"],
  sap: ["SAP", "support precision"],
  saf1: ["SAF1", "support F1"],
};

export const CATEGORY_LABELS = {
  noise: "Noise",
  low: "Low abstraction",
  high: "High abstraction",
  "low+high": "Low + high",
};

// The pages' addresses: a system on a dataset, and its output for one document.
export function systemUrl(dataset, system) {
  return `/leaderboards/${encodeURIComponent(dataset)}/systems/${encodeURIComponent(system)}/`;
}

export function documentUrl(dataset, system, externalId, query = "") {
  return `${systemUrl(dataset, system)}documents/${encodeURIComponent(externalId)}/${query}`;
}

// "FAR" / "R-1 F" for a column, and a longer name for titles and screen readers.
export function metricLabel(metric) {
  if (metric === "polytope") return "PolyTope";
  if (HUMAN[metric]) return HUMAN[metric][0];
  if (ESTIMATES[metric]) return ESTIMATES[metric][0];
  if (APES[metric]) return APES[metric][0];
  if (FAR_NAMES[metric]) return FAR_NAMES[metric][0];
  const rouge = ROUGE_KEY.exec(metric);
  if (!rouge) return metric;
  const marks = [rouge[2] ? "ns" : "", rouge[3] ? "split" : ""].filter(Boolean);
  return `R-${rouge[1]} ${PARTS[rouge[4]][0]}${marks.length ? ` (${marks.join(", ")})` : ""}`;
}

export function metricTitle(metric) {
  if (metric === "polytope") return "PolyTope score (percent, pooled over the annotated outputs' words)";
  if (HUMAN[metric]) return HUMAN[metric][1];
  if (ESTIMATES[metric]) return ESTIMATES[metric][1];
  if (APES[metric]) return APES[metric][1];
  if (FAR_NAMES[metric]) return `${FAR_NAMES[metric][0]} (${FAR_NAMES[metric][1]})`;
  const rouge = ROUGE_KEY.exec(metric);
  if (!rouge) return metric;
  const how = [rouge[2] ? "no stemming" : "Porter stemming"];
  if (rouge[1] === "Lsum") how.push(rouge[3] ? "sentences by NLTK Punkt" : "sentences on lines");
  return `ROUGE-${rouge[1]} ${PARTS[rouge[4]][1]} (${how.join("; ")})`;
}

// The columns to draw: the FAR family and ROUGE F always, ROUGE P and R when asked for, and
// the column the view is sorted by in any case.
export function visibleMetrics(metrics, showPrecisionRecall, sorted = null) {
  const rougeF = (m) => ROUGE_KEY.test(m) && m.endsWith("_f");
  const shown = (m) => showPrecisionRecall || m === sorted || FAR_FAMILY.includes(m) || rougeF(m) || m in HUMAN || m in ESTIMATES || m in APES;
  return metrics.filter(shown);
}

// A number with `digits` decimals, rounded as toFixed rounds, but never "-0.00": a value that
// rounds to zero is shown without a sign. "—" when missing or not a finite number.
export function fixed(value, digits) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "—";
  const text = value.toFixed(digits);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

// A fraction in [0, 1] as x100 with one decimal ("54.8"); "—" when missing.
export function x100(value) {
  return typeof value === "number" ? fixed(value * 100, 1) : "—";
}

// "p = 0.045", or "p < 0.001" for tiny values.
export function pText(p) {
  if (p === null || p === undefined) return "p = —";
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

// PolyTope's severities: the envelope's key, the name and the short tag of the table.
export const SEVERITIES = [
  ["critical", "Critical", "C"],
  ["major", "Major", "M"],
  ["minor", "Minor", "m"],
];

// A system's PolyTope error counts: shown "57 C · 69 M · 1 m", spoken "57 critical, 69 major,
// 1 minor". p: the row's polytope block ({critical, major, minor, ...}).
export function severityText(p) {
  return {
    shown: SEVERITIES.map(([key, , short]) => `${p[key]} ${short}`).join(" · "),
    spoken: SEVERITIES.map(([key, name]) => `${p[key]} ${name.toLowerCase()}`).join(", "),
  };
}

// The view's parameters from a query string ("?k=5&pr=1"), with defaults: a number default
// parses the value as an int (the default when that fails), a boolean takes "1" or "true".
export function parseParams(defaults, search) {
  const query = new URLSearchParams(search);
  const params = {};
  for (const [key, fallback] of Object.entries(defaults)) {
    const raw = query.get(key);
    if (raw === null) params[key] = fallback;
    else if (typeof fallback === "number") params[key] = Number.parseInt(raw, 10) || fallback;
    else if (typeof fallback === "boolean") params[key] = raw === "1" || raw === "true";
    else params[key] = raw;
  }
  return params;
}

// Encode the non-default parameters (booleans as 1) for an API call or the page's URL.
export function queryString(params, defaults = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === "" || value === false) continue;
    if (key in defaults && defaults[key] === value) continue;
    query.set(key, value === true ? "1" : String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}
