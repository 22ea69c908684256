// Workspace document pane: the numbered sentences and their marks.
import { el } from "./api.js";
import { counted } from "./plural.js";
import { badgeText, scorerLabel } from "./scorer-names.js";
import { $, S, currentGroup } from "./state.js";
import { setCursor, toggle } from "./actions.js";
import { facetSuggestions } from "./suggest-view.js";

export function buildSentences() {
  const list = $("sentences");
  S.sentences = S.task.document.sentences.map((text, i) => {
    const li = el("li", null, { class: "sent", "data-index": String(i), role: "button", "aria-pressed": "false" });
    li.tabIndex = i === 0 ? 0 : -1;
    li.append(
      el("span", i + 1, { class: "num", "aria-hidden": "true" }),
      el("span", text, { class: "text" }),
      el("span", null, { class: "marks" }),
    );
    li.addEventListener("click", () => {
      setCursor(i, { focus: false });
      toggle(i);
    });
    li.addEventListener("focus", () => {
      if (S.cursor !== i) setCursor(i, { focus: false });
    });
    return li;
  });
  list.replaceChildren(...S.sentences);
}

// Other annotators' groups of facet f (non-blind campaigns only): sentence -> annotators.
export function othersFor(f) {
  const used = new Map();
  for (const other of S.task.others || []) {
    const facet = (other.facets || [])[f];
    for (const group of (facet && facet.groups) || []) {
      for (const s of group) used.set(s, [...(used.get(s) || []), other.annotator]);
    }
  }
  return used;
}

export function renderSentences() {
  const f = S.facet;
  const facet = S.facets[f];
  const g = currentGroup();
  const suggestions = S.show ? facetSuggestions(f) : [];
  const others = othersFor(f);
  const perScorer = new Map(); // scorer -> how many suggestions it makes for the facet
  for (const s of suggestions) perScorer.set(s.scorer, (perScorer.get(s.scorer) || 0) + 1);
  S.sentences.forEach((li, i) => {
    const inGroup = g >= 0 && facet.groups[g].includes(i);
    const inFacet = facet.groups.some((group, j) => j !== g && group.includes(i));
    const suggested = suggestions.filter((s) => s.sentence === i);
    li.classList.toggle("in-group", inGroup);
    li.classList.toggle("in-facet", inFacet);
    li.classList.toggle("suggested", suggested.length > 0);
    li.setAttribute("aria-pressed", String(inGroup));
    const marks = [];
    facet.groups.forEach((group, j) => {
      if (group.includes(i)) {
        marks.push(el("span", `G${j + 1}`, { class: `mark group${j === g ? " current" : ""}`, title: `In group ${j + 1} of facet ${f + 1}` }));
      }
    });
    S.facets.forEach((other, j) => {
      if (j !== f && other.groups.some((group) => group.includes(i))) {
        marks.push(el("span", `F${j + 1}`, { class: "mark facet", title: `Supports facet ${j + 1}` }));
      }
    });
    for (const s of suggested) {
      const spelled = `Suggested by ${scorerLabel(s.scorer)}, rank ${s.rank} of ${perScorer.get(s.scorer)}, score ${Number(s.score).toFixed(2)}`;
      marks.push(
        el("span", badgeText(S.tags[s.scorer] || s.scorer, s.rank), {
          class: `mark sugg s${Math.max(0, Object.keys(S.tags).indexOf(s.scorer)) % 3}`,
          title: spelled,
          "aria-label": spelled,
        }),
      );
    }
    if (others.has(i)) {
      const names = others.get(i);
      marks.push(el("span", counted(names.length, "other"), { class: "mark others", title: names.join(", ") }));
    }
    li.querySelector(".marks").replaceChildren(...marks);
  });
}
