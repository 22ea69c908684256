// Adjudication of FAMs as pure functions over plain data (no DOM): the annotators' facets
// compared, and the gold facet built from them by taking one, the union or the intersection
// of their groups, or by hand. Every gold facet carries its provenance:
// {method: "take"|"union"|"intersection"|"edited"|"agreed", annotators: [usernames]}.
import { clone, LABELS, normalize, payload } from "./fam.js";

export const METHODS = {
  take: "taken from",
  agreed: "agreed by",
  union: "union of",
  intersection: "intersection of",
  edited: "edited by hand",
};

export const groupKey = (group) => [...new Set(group.map(Number))].sort((a, b) => a - b).join(",");

const numbers = (group) => group.map((i) => i + 1).join(", ");

// A facet's groups as keys (no empty or repeated group).
function keys(facet) {
  return [...new Set(facet.groups.filter((group) => group.length).map(groupKey))];
}

function validProvenance(value) {
  if (!value || typeof value !== "object" || !METHODS[value.method]) return null;
  return { method: value.method, annotators: Array.isArray(value.annotators) ? [...new Set(value.annotators.map(String))].sort() : [] };
}

// The gold facets as the server may send them (none yet, missing keys), made regular: one per
// facet of the reference, each with its provenance (null: not decided yet).
export function normalizeGold(facets, count) {
  const regular = normalize(facets || [], count);
  return regular.map((facet, i) => ({ ...facet, provenance: validProvenance(((facets || [])[i] || {}).provenance) }));
}

// What is sent to the server: fam.js's payload with each facet's provenance.
export function goldPayload(facets) {
  return payload(facets).map((facet, i) => ({ ...facet, provenance: facets[i].provenance || null }));
}

export function sameGold(a, b) {
  return JSON.stringify(goldPayload(a.facets)) === JSON.stringify(goldPayload(b.facets));
}

// The annotators' facets of facet f (annotations: [{annotator, facets}], normalized).
export const facetsOf = (annotations, f) => annotations.map((annotation) => annotation.facets[f]);

// Whether every annotator gave facet f the same groups and label (notes aside).
export function facetsAgree(facets) {
  if (facets.length < 2) return true;
  const key = (facet) => JSON.stringify([keys(facet).sort(), facet.label]);
  return facets.every((facet) => key(facet) === key(facets[0]));
}

// Every distinct group of the facets, in the annotators' order.
export function unionGroups(facets) {
  const seen = new Map();
  for (const facet of facets) {
    for (const group of facet.groups) {
      const key = groupKey(group);
      if (key && !seen.has(key)) seen.set(key, key.split(",").map(Number));
    }
  }
  return [...seen.values()];
}

// The groups every annotator has, in the first one's order.
export function intersectionGroups(facets) {
  if (!facets.length) return [];
  const sets = facets.map((facet) => new Set(keys(facet)));
  return unionGroups([facets[0]]).filter((group) => sets.every((set) => set.has(groupKey(group))));
}

// How many of the annotators have each group of `facet` (key -> count), to mark a group that
// only some of them chose.
export function groupSupport(facets) {
  const counts = new Map();
  for (const facet of facets) for (const key of keys(facet)) counts.set(key, (counts.get(key) || 0) + 1);
  return counts;
}

// Per sentence, the indices of the annotators whose groups of the facet hold it.
export function sentenceSupport(facets) {
  const used = new Map();
  facets.forEach((facet, a) => {
    for (const group of facet.groups) {
      for (const s of group) {
        const list = used.get(s) || [];
        if (!list.includes(a)) list.push(a);
        used.set(s, list);
      }
    }
  });
  return used;
}

// The label a gold facet without groups gets: the one every annotator gave when they agree,
// else "no support" if any said so, else "noise" if any said so (a facet with groups is
// supported).
function labelWithout(facets) {
  const labels = [...new Set(facets.map((facet) => facet.label))];
  if (labels.length === 1) return labels[0];
  if (labels.includes("no_support")) return "no_support";
  if (labels.includes("noise")) return "noise";
  return "supported";
}

const sortedNames = (names) => [...new Set(names)].sort();

function made(groups, label, method, annotators) {
  return { groups: clone(groups), label: groups.length ? "supported" : label, note: "", provenance: { method, annotators: sortedNames(annotators) } };
}

// Annotator a's facet as the gold one ("agreed" when every annotator gave that facet alike).
export function takeFacet(annotations, f, a) {
  const facets = facetsOf(annotations, f);
  const facet = facets[a];
  const agreed = facets.length > 1 && facetsAgree(facets);
  const people = agreed ? annotations.map((x) => x.annotator) : [annotations[a].annotator];
  const gold = made(facet.groups.filter((group) => group.length), facet.label, agreed ? "agreed" : "take", people);
  gold.label = facet.label; // as it is (the server checks a taken facet against the annotator's)
  return gold;
}

// The union (or intersection) of the annotators' groups; `groups` may come from the server's
// diff, else they are computed here.
export function unionFacet(annotations, f, groups = null) {
  const facets = facetsOf(annotations, f);
  const union = groups || unionGroups(facets);
  return made(union, labelWithout(facets), "union", annotations.map((x) => x.annotator));
}

export function intersectionFacet(annotations, f, groups = null) {
  const facets = facetsOf(annotations, f);
  const common = groups || intersectionGroups(facets);
  // No common group: the facet has no support only if every annotator said why it has none.
  const label = common.length ? "supported" : facets.every((facet) => facet.label !== "supported") ? labelWithout(facets) : "supported";
  return made(common, label, "intersection", annotations.map((x) => x.annotator));
}

// A gold facet changed by hand keeps who it came from.
export function markEdited(facet) {
  facet.provenance = { method: "edited", annotators: facet.provenance ? [...facet.provenance.annotators] : [] };
}

// Whether the gold facet is decided: it has a group or a label saying why it has none.
export function isDecided(facet) {
  return facet.groups.some((group) => group.length) || facet.label !== "supported";
}

// "taken from alice", "union of alice, bob", "edited by hand (from alice)", "not decided".
export function provenanceText(provenance) {
  if (!provenance) return "not decided";
  const names = provenance.annotators.join(", ");
  if (provenance.method === "edited") return names ? `${METHODS.edited} (from ${names})` : METHODS.edited;
  return names ? `${METHODS[provenance.method]} ${names}` : METHODS[provenance.method];
}

// One line per facet for people: "[1, 3] or [2]", "no support (high abstraction)", "noise", "—".
export function facetText(facet) {
  if (facet.label === "no_support") return LABELS.no_support.toLowerCase();
  if (facet.label === "noise") return "noise";
  const groups = facet.groups.filter((group) => group.length);
  return groups.length ? groups.map((group) => `[${numbers(group)}]`).join(" or ") : "—";
}
