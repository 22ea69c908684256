// The span workspace's state as pure functions over plain data (no DOM): the PolyTope word
// count (a port of scoring/metrics/polytope/wordcount.py), words and the caret, selections,
// errors and their order, severities from the scheme, the live segment score, the lanes of
// overlapping spans, and the saver's format for error lists.
//
// Offsets are the server's: character offsets as Python counts them (code points, not the
// UTF-16 units of a JS string), end exclusive, into the side's sentences joined by one space.
// So every text here is handled as an array of code points (`chars`).

// Python's str.isspace() characters (what str.split() with no argument splits on). Not JS's
// \s: that also takes U+FEFF and leaves out U+001C-U+001F and U+0085.
const PY_SPACE_CLASS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SPACE = new RegExp(`^[${PY_SPACE_CLASS}]$`, "u");
// Letters and digits of any script (for trimming a selection's edge punctuation).
const ALNUM = /[\p{L}\p{N}]/u;

export const SIDES = ["summary", "source"];
export const SIDE_NAMES = { summary: "summary", source: "source", none: "no span" };

// --- the PolyTope word count ----------------------------------------------------------------

// The workbooks' wdct rule (scoring/metrics/polytope/wordcount.py): a word is a run of ASCII
// letters and digits; the run goes on across one of _ - . , ' when a letter or digit follows,
// except that . or , followed by a letter ends the word.
const ASCII_ALNUM = /^[A-Za-z0-9]$/;
const ASCII_LETTER = /^[A-Za-z]$/;
const JOINERS = new Set(["_", "-", ".", ",", "'"]);

function joins(ch, next) {
  if (!JOINERS.has(ch) || !ASCII_ALNUM.test(next)) return false;
  return !((ch === "." || ch === ",") && ASCII_LETTER.test(next));
}

// The PolyTope word count of a text (code points, as Python counts them).
export function countWords(text) {
  const cps = Array.from(String(text));
  let words = 0;
  let inWord = false;
  cps.forEach((ch, i) => {
    if (ASCII_ALNUM.test(ch)) {
      if (!inWord) words += 1;
      inWord = true;
    } else if (!(inWord && i < cps.length - 1 && joins(ch, cps[i + 1]))) inWord = false;
  });
  return words;
}

// Whether a token holds at least one word by that rule.
export function isWord(token) {
  return countWords(token) > 0;
}

// --- texts, words and offsets ---------------------------------------------------------------

export const joinSentences = (sentences) => (sentences || []).join(" ");

// The text as code points: index i is Python's character i.
export const chars = (text) => Array.from(text || "");

export const isSpace = (ch) => SPACE.test(ch);

// The words of a text (runs of non-space characters): [{start, end}] in code points.
export function tokenize(cps) {
  const words = [];
  let start = -1;
  cps.forEach((ch, i) => {
    if (isSpace(ch)) {
      if (start >= 0) words.push({ start, end: i });
      start = -1;
    } else if (start < 0) start = i;
  });
  if (start >= 0) words.push({ start, end: cps.length });
  return words;
}

// The index of the sentence each word belongs to (sentences joined by one space).
export function wordSentences(sentences, words) {
  const bounds = [];
  let at = 0;
  for (const sentence of sentences || []) {
    const length = chars(sentence).length;
    bounds.push([at, at + length]);
    at += length + 1;
  }
  return words.map((word) => {
    const found = bounds.findIndex(([, end]) => word.start < end);
    return found < 0 ? Math.max(0, bounds.length - 1) : found;
  });
}

// Closing punctuation a span drops at its end, and opening punctuation at its start, so that
// a word followed by a comma marks "senator", not "senator,". A trailing full stop goes only
// when it is the token's one full stop ("it." -> "it", but "U.S." stays).
const TRAIL = new Set([",", ";", ":", "!", "?", '"', "'", ")", "]", "}", "”", "’", "»"]);
const LEAD = new Set(['"', "'", "(", "[", "{", "“", "‘", "«"]);

// The character span [start, end) of the words lo..hi, trimmed of edge punctuation when
// letters or digits are left.
export function wordSpan(cps, words, lo, hi) {
  let start = words[lo].start;
  let end = words[hi].end;
  const hasAlnum = (s, e) => ALNUM.test(cps.slice(s, e).join(""));
  for (;;) {
    const last = cps[end - 1];
    const lastWord = cps.slice(words[hi].start, end);
    const dot = last === "." && lastWord.filter((c) => c === ".").length === 1;
    if (end - 1 > start && (TRAIL.has(last) || dot) && hasAlnum(start, end - 1)) end -= 1;
    else break;
  }
  while (start + 1 < end && LEAD.has(cps[start]) && hasAlnum(start + 1, end)) start += 1;
  return { start, end };
}

// --- the caret and the selection --------------------------------------------------------------

// A selection: {side, anchor, caret} word indices; the words between them (both included).
export function selectionRange(sel) {
  return [Math.min(sel.anchor, sel.caret), Math.max(sel.anchor, sel.caret)];
}

// Move the caret by `delta` words (clamped); `extend` keeps the anchor (Shift), else the
// selection collapses onto the caret.
export function moveCaret(sel, delta, count, extend = false) {
  if (!count) return sel;
  const caret = Math.max(0, Math.min(count - 1, sel.caret + delta));
  return { ...sel, caret, anchor: extend ? sel.anchor : caret };
}

// The caret onto the first word of the next (delta 1) or previous (-1) sentence.
export function moveSentence(sel, delta, sentenceOf, extend = false) {
  const count = sentenceOf.length;
  if (!count) return sel;
  const current = sentenceOf[sel.caret] ?? 0;
  let caret;
  if (delta > 0) {
    caret = sentenceOf.findIndex((s) => s > current);
    if (caret < 0) caret = count - 1;
  } else {
    const first = sentenceOf.indexOf(current);
    const target = sel.caret > first ? current : current - 1;
    caret = Math.max(0, sentenceOf.indexOf(Math.max(0, target)));
  }
  return { ...sel, caret, anchor: extend ? sel.anchor : caret };
}

// --- the scheme: types, labels, severity ------------------------------------------------------

// The severity of (type, label): "Critical" | "Major" | "Minor", null for N/A (not allowed),
// "" for a scheme without severities.
export function severityOf(scheme, type, label) {
  if (!scheme.has_severity) return "";
  const row = scheme.severity[type] || {};
  return Object.hasOwn(row, label) ? row[label] : null;
}

// The severity matrix as the help shows it: per type (rows) the severity of each label
// (columns), null where the combination is N/A; no rows for a scheme without severities.
export function severityMatrix(scheme) {
  if (!scheme.has_severity) return [];
  return scheme.types.map((type) => ({
    type,
    cells: scheme.labels.map((label) => ({ label, severity: severityOf(scheme, type, label) })),
  }));
}

// Why a combination is N/A, in words (the server refuses it with the same reason).
export function notAllowedReason(type, label) {
  return (
    `${type} with the label ${label} is N/A in the official severity matrix: the guidelines do ` +
    "not allow that combination, so it has no severity. Choose the label that names what is wrong, or another subtype."
  );
}

// Where an error of this type may be marked: a text side ("summary" or "source") or "none".
export function sidesFor(scheme, type) {
  return (scheme.sides && scheme.sides[type]) || ["summary", "none"];
}

// Whether a type can be marked on `side`; otherwise the reason why not.
export function typeOnSide(scheme, type, side) {
  const sides = sidesFor(scheme, type);
  if (sides.includes(side)) return { ok: true, reason: "" };
  const where = sides.filter((s) => s !== "none").join(" or ") || "nowhere";
  return {
    ok: false,
    reason:
      `A ${type} error is marked in the ${where}, not in the ${side}` +
      (where === "source" ? ": the missing point lives in the source (press s to move the caret there)." : " (press s to switch)."),
  };
}

// --- errors ---------------------------------------------------------------------------------

const SIDE_ORDER = { summary: 0, source: 1, none: 2 };

// The order errors are listed and numbered in: summary spans by position, then source spans,
// then errors without a span.
export function compareErrors(a, b) {
  return (
    (SIDE_ORDER[a.side] ?? 3) - (SIDE_ORDER[b.side] ?? 3) ||
    (a.start ?? 0) - (b.start ?? 0) ||
    (a.end ?? 0) - (b.end ?? 0) ||
    String(a.type).localeCompare(String(b.type)) ||
    String(a.label).localeCompare(String(b.label))
  );
}

export const sortErrors = (errors) => [...errors].sort(compareErrors);

// An error as it is sent and compared: no derived severity, offsets null for "none".
export function cleanError(error) {
  const none = error.side === "none";
  return {
    side: error.side,
    start: none ? null : error.start,
    end: none ? null : error.end,
    words: error.words || "",
    type: error.type,
    label: error.label || "",
    reason: error.reason || "",
  };
}

// An error with its severity derived from the scheme (what the list and the score read).
export function withSeverity(scheme, error) {
  return { ...cleanError(error), severity: severityOf(scheme, error.type, error.label) || "" };
}

// The errors as the server may send them, made regular and in list order.
export function normalizeErrors(scheme, errors) {
  return sortErrors((errors || []).map((error) => withSeverity(scheme, error)));
}

// A new error on a selection: the spanned words are the issue words.
export function makeError(scheme, { side, start, end, cps, type, label, reason = "" }) {
  const words = side === "none" ? "" : cps.slice(start, end).join("");
  return withSeverity(scheme, { side, start, end, words, type, label, reason });
}

// The same span (side, start, end), type and label as one already in the list: its index, or -1.
export function findRepeat(errors, error, except = -1) {
  return errors.findIndex(
    (other, i) =>
      i !== except &&
      other.side !== "none" &&
      other.side === error.side &&
      other.start === error.start &&
      other.end === error.end &&
      other.type === error.type &&
      other.label === error.label,
  );
}

export const SEVERITY_SHORT = { Critical: "C", Major: "M", Minor: "m" };

// One line for people: `Addition / Subject · Critical · "senator" (summary)`.
export function describeError(error) {
  const kind = [error.type, error.label].filter(Boolean).join(" / ");
  const severity = error.severity ? ` · ${error.severity}` : "";
  const where = error.side === "none" ? "no span" : error.side;
  const words = error.words ? ` · "${error.words}"` : "";
  return `${kind}${severity}${words} (${where})`;
}

// --- the live score -------------------------------------------------------------------------

// The segment's PolyTope score as the core computes it: penalty = sum of severity weights,
// score = 100 * (words - penalty) / words (null when the summary has no word).
export function liveScore(errors, words, weights) {
  const count = (severity) => errors.filter((error) => error.severity === severity).length;
  const critical = count("Critical");
  const major = count("Major");
  const minor = count("Minor");
  const penalty = critical * weights.Critical + major * weights.Major + minor * weights.Minor;
  const score = words > 0 ? (100 * (words - penalty)) / words : null;
  return { words, penalty, score, critical, major, minor };
}

// --- drawing overlapping spans ----------------------------------------------------------------

// A lane per error of one side, so that overlapping spans get separate underlines: each
// error takes the lowest lane free over its whole span. Returns Map(error index -> lane).
export function lanes(errors, side) {
  const order = errors
    .map((error, i) => ({ error, i }))
    .filter(({ error }) => error.side === side && error.end > error.start)
    .sort((a, b) => a.error.start - b.error.start || b.error.end - a.error.end);
  const ends = []; // per lane: the end of its last span
  const out = new Map();
  for (const { error, i } of order) {
    let lane = ends.findIndex((end) => end <= error.start);
    if (lane < 0) lane = ends.length;
    ends[lane] = error.end;
    out.set(i, lane);
  }
  return out;
}

// The pieces of [from, to) cut at every error boundary of `side` inside it, each with the
// indices of the errors covering it: [{start, end, errors: [i, ...]}].
export function pieces(errors, side, from, to) {
  const cuts = new Set([from, to]);
  errors.forEach((error) => {
    if (error.side !== side) return;
    for (const at of [error.start, error.end]) if (at > from && at < to) cuts.add(at);
  });
  const points = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let k = 0; k + 1 < points.length; k += 1) {
    const [start, end] = [points[k], points[k + 1]];
    const covering = [];
    errors.forEach((error, i) => {
      if (error.side === side && error.start <= start && end <= error.end) covering.push(i);
    });
    out.push({ start, end, errors: covering });
  }
  return out;
}

// --- the saver's format -----------------------------------------------------------------------

// What is stored, sent and compared for an output's errors (saver.js `format`).
export function sameSpans(a, b) {
  const key = (state) => JSON.stringify([sortErrors((state.errors || []).map(cleanError)), Boolean(state.no_errors)]);
  return key(a) === key(b);
}

export const SPAN_FORMAT = {
  kind: "spans",
  body: (state) => ({ errors: state.errors.map(cleanError), no_errors: Boolean(state.no_errors) }),
  server: (response) => ({ errors: response.errors || [], no_errors: Boolean(response.no_errors) }),
  stored: (state) => ({ kind: "spans", errors: state.errors.map(cleanError), no_errors: Boolean(state.no_errors) }),
  same: sameSpans,
};
