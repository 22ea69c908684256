// The FAM being edited, as pure functions over plain data (no DOM).
// A FAM is a list of facets: {groups: [[sentence index, ...], ...], label, note}.
// Indices are 0-based as in the API; everything shown to people is numbered from 1.

export const LABELS = {
  supported: "Supported",
  no_support: "No support (high abstraction)",
  noise: "Noise",
};

export const CATEGORIES = { noise: "Noise", low: "Low abstraction", high: "High abstraction" };

export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

const sorted = (group) => [...new Set(group.map(Number))].sort((a, b) => a - b);

// The facets as the server may send them (missing keys, unsorted groups), made regular.
export function normalize(facets, count) {
  const out = [];
  for (let i = 0; i < count; i += 1) {
    const facet = (facets && facets[i]) || {};
    out.push({
      groups: (facet.groups || []).map(sorted),
      label: LABELS[facet.label] ? facet.label : "supported",
      note: facet.note || "",
    });
  }
  return out;
}

// What is sent to the server: no empty groups and no repeated group within a facet.
export function payload(facets) {
  return facets.map((facet) => {
    const seen = new Set();
    const groups = [];
    for (const group of facet.groups) {
      const key = sorted(group).join(",");
      if (group.length && !seen.has(key)) {
        seen.add(key);
        groups.push(sorted(group));
      }
    }
    return { groups, label: facet.label, note: facet.note };
  });
}

export function sameState(a, b) {
  return (
    JSON.stringify(payload(a.facets)) === JSON.stringify(payload(b.facets)) &&
    (a.category || "") === (b.category || "")
  );
}

export function isCovered(facet) {
  return facet.groups.some((group) => group.length > 0);
}

// A facet is done when it has support or a label saying why it has none.
export function isResolved(facet) {
  return isCovered(facet) || facet.label !== "supported";
}

// The document category that follows from the facets: any facet without support is high
// abstraction; every facet noise is noise; otherwise low abstraction.
export function deriveCategory(facets) {
  if (facets.some((facet) => facet.label === "no_support")) return "high";
  if (facets.length && facets.every((facet) => facet.label === "noise")) return "noise";
  return "low";
}

export function duplicateOf(facet, groupIndex) {
  const key = facet.groups[groupIndex].join(",");
  if (!key) return -1;
  return facet.groups.findIndex((group, i) => i < groupIndex && group.join(",") === key);
}

// Put a sentence into a group or take it out. A facet without groups gets its first one, and
// a facet labelled no support / noise becomes supported again.
// Returns the (possibly new) index of the group that was changed.
export function toggleSentence(facets, facetIndex, groupIndex, sentence) {
  const facet = facets[facetIndex];
  if (!facet.groups.length || groupIndex < 0 || groupIndex >= facet.groups.length) {
    facet.groups.push([]);
    groupIndex = facet.groups.length - 1;
  }
  const group = facet.groups[groupIndex];
  const at = group.indexOf(sentence);
  if (at >= 0) group.splice(at, 1);
  else facet.groups[groupIndex] = sorted([...group, sentence]);
  if (facet.groups[groupIndex].length) facet.label = "supported";
  return groupIndex;
}

export function addSentence(facets, facetIndex, groupIndex, sentence) {
  const facet = facets[facetIndex];
  const group = facet.groups[groupIndex];
  if (group && group.includes(sentence)) return groupIndex;
  return toggleSentence(facets, facetIndex, groupIndex, sentence);
}

// Marking a facet "no support" or "noise" removes its groups (they stay in the history).
export function setLabel(facets, facetIndex, label) {
  const facet = facets[facetIndex];
  facet.label = label;
  if (label !== "supported") facet.groups = [];
}

const numbers = (group) => group.map((i) => i + 1).join(", ");

// One line per facet for people: "S2, S4 | S7", "no support (high abstraction)", "noise", "—".
export function facetSummary(facet) {
  if (facet.label === "no_support") return "no support (high abstraction)";
  if (facet.label === "noise") return "noise";
  const groups = facet.groups.filter((group) => group.length);
  if (!groups.length) return "—";
  return groups.map((group) => `[${numbers(group)}]`).join(" or ");
}

// What changed between two saved states, in the workspace's 1-based numbering.
export function describeChanges(before, after) {
  const lines = [];
  const count = Math.max(before ? before.facets.length : 0, after.facets.length);
  for (let i = 0; i < count; i += 1) {
    const old = (before && before.facets[i]) || { groups: [], label: "supported", note: "" };
    const now = after.facets[i] || { groups: [], label: "supported", note: "" };
    const oldKeys = old.groups.map((g) => g.join(","));
    const newKeys = now.groups.map((g) => g.join(","));
    for (const group of now.groups) {
      if (!oldKeys.includes(group.join(","))) lines.push(`Facet ${i + 1}: added [${numbers(group)}]`);
    }
    for (const group of old.groups) {
      if (!newKeys.includes(group.join(","))) lines.push(`Facet ${i + 1}: removed [${numbers(group)}]`);
    }
    if ((old.label || "supported") !== (now.label || "supported")) {
      lines.push(`Facet ${i + 1}: ${LABELS[now.label] || now.label}`);
    }
    if ((old.note || "") !== (now.note || "")) lines.push(`Facet ${i + 1}: note changed`);
  }
  const oldCategory = (before && before.category) || "";
  if (oldCategory !== (after.category || "")) {
    lines.push(`Category: ${CATEGORIES[after.category] || "derived from the facets"}`);
  }
  return lines;
}

// Three-way merge of a conflict, per facet and for the category: what this tab ("mine") and
// the server ("theirs") each changed since the state both started from ("base"; null when
// unknown, then every difference counts as changed on both sides).
// Each entry: {same, mineChanged, theirsChanged, conflict, pick}. The default pick is the side
// that changed when only one did, and mine when both did (a real conflict, shown as such).
function plan(mine, theirs, base) {
  const same = mine === theirs;
  const mineChanged = base === null ? !same : mine !== base;
  const theirsChanged = base === null ? !same : theirs !== base;
  const conflict = !same && mineChanged && theirsChanged;
  const pick = !same && theirsChanged && !mineChanged ? "theirs" : "mine";
  return { same, mineChanged, theirsChanged, conflict, pick };
}

const facetKey = (facet) => JSON.stringify(payload([facet])[0]);

export function mergePlan(base, mine, theirs) {
  const facets = mine.facets.map((facet, i) =>
    plan(facetKey(facet), facetKey(theirs.facets[i]), base ? facetKey(base.facets[i]) : null),
  );
  const category = plan(mine.category || "", theirs.category || "", base ? base.category || "" : null);
  return { facets, category };
}

// The merged state: picks is {facets: ["mine"|"theirs", ...], category: "mine"|"theirs"}.
export function mergeStates(mine, theirs, picks) {
  return {
    facets: mine.facets.map((facet, i) => clone(picks.facets[i] === "theirs" ? theirs.facets[i] : facet)),
    category: picks.category === "theirs" ? theirs.category || "" : mine.category || "",
  };
}
