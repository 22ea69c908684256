// Adjudication of error spans as pure functions over plain data (no DOM): the annotators'
// errors on one output compared, and the gold list built from them (one annotator's list, the
// union or the intersection of their errors, or by hand: any of their errors in or out). Each
// gold error carries its provenance {method, annotators}, like a gold facet (gold.js).
import { cleanError, sortErrors } from "./span-state.js";

// Two errors are the same when they mark the same place (and words) with the same type and
// label, as the server compares them (scoring.metrics.adjudication.error_key).
export function errorKey(error) {
  const none = error.side === "none";
  return JSON.stringify([error.side, none ? null : error.start, none ? null : error.end, error.words || "", error.type, error.label || ""]);
}

function provenanceOf(value) {
  if (!value || typeof value !== "object" || !value.method) return null;
  return { method: String(value.method), annotators: Array.isArray(value.annotators) ? value.annotators.map(String) : [] };
}

// A gold error as sent: the clean error with its provenance.
export const goldError = (error) => ({ ...cleanError(error), provenance: provenanceOf(error.provenance) });

export function normalizeGoldErrors(errors) {
  return sortErrors((errors || []).map((error) => ({ ...error, provenance: provenanceOf(error.provenance) })));
}

// Every distinct error of the annotators (annotations: [{annotator, errors, no_errors}]) with
// who marked it: [{key, error, annotators: [usernames]}], in list order.
export function candidates(annotations) {
  const found = new Map();
  for (const annotation of annotations) {
    for (const error of annotation.errors || []) {
      const key = errorKey(error);
      if (!found.has(key)) found.set(key, { key, error, annotators: [] });
      const entry = found.get(key);
      if (!entry.annotators.includes(annotation.annotator)) entry.annotators.push(annotation.annotator);
    }
  }
  const sorted = sortErrors([...found.values()].map((entry) => ({ ...entry.error, _key: entry.key })));
  return sorted.map((error) => {
    const entry = found.get(error._key);
    return { key: entry.key, error: entry.error, annotators: entry.annotators };
  });
}

const withProvenance = (error, method, annotators) => ({ ...error, provenance: { method, annotators: [...annotators] } });

// Annotator a's list as the gold one ("agreed" for errors every annotator marked).
export function takeErrors(annotations, a) {
  const all = annotations.map((x) => x.annotator);
  const counts = new Map(candidates(annotations).map((entry) => [entry.key, entry.annotators]));
  const mine = annotations[a];
  return {
    no_errors: Boolean(mine.no_errors) && !(mine.errors || []).length,
    errors: sortErrors(
      (mine.errors || []).map((error) => {
        const who = counts.get(errorKey(error)) || [];
        return who.length === all.length && all.length > 1 ? withProvenance(error, "agreed", who) : withProvenance(error, "take", [mine.annotator]);
      }),
    ),
  };
}

export function unionErrors(annotations) {
  const errors = candidates(annotations).map((entry) => withProvenance(entry.error, "union", entry.annotators));
  return { errors, no_errors: !errors.length && annotations.every((x) => x.no_errors) };
}

export function intersectionErrors(annotations) {
  const all = annotations.map((x) => x.annotator);
  const errors = candidates(annotations)
    .filter((entry) => entry.annotators.length === all.length)
    .map((entry) => withProvenance(entry.error, "intersection", entry.annotators));
  return { errors, no_errors: !errors.length && annotations.every((x) => x.no_errors) };
}

// Put candidate `entry` into the gold list or take it out (by hand: provenance "edited").
export function toggleCandidate(gold, entry) {
  const at = gold.errors.findIndex((error) => errorKey(error) === entry.key);
  const errors = [...gold.errors];
  if (at >= 0) errors.splice(at, 1);
  else errors.push(withProvenance(entry.error, "edited", entry.annotators));
  return { errors: sortErrors(errors), no_errors: errors.length ? false : gold.no_errors };
}

export function sameGoldSpans(a, b) {
  const key = (state) => JSON.stringify([sortErrors((state.errors || []).map(goldError)), Boolean(state.no_errors)]);
  return key(a) === key(b);
}
