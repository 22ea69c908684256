// DOM builders of the document view (Mao et al. 2020, Fig. 1): the numbered sentences with the
// extracted ones marked in extraction order, and the reference facets with their support groups.
import { el } from "./api.js";

const STATUS = {
  covered: "✓ covered",
  missed: "✗ not covered",
  no_support: "no support (high abstraction)",
  noise: "noise",
};

// One <li> per document sentence; `considered` (the first k extracted) strongly, later ones
// lightly, each with its extraction order ("#1") and a word, never colour alone.
export function sentenceItems(sentences, extracted, considered) {
  const order = new Map((extracted || []).map((index, position) => [index, position]));
  const chosen = new Set(considered);
  return sentences.map((text, index) => {
    const item = el("li", null, { class: "sent", "data-index": index });
    const marks = el("span", null, { class: "marks" });
    if (order.has(index)) {
      const first = chosen.has(index);
      item.classList.add(first ? "considered" : "extracted");
      marks.append(
        el("span", `#${order.get(index) + 1} ${first ? "considered" : "beyond k"}`, {
          class: `mark ${first ? "pick" : "late"}`,
          title: first ? "extracted, among the first k that FAR considers" : "extracted after the first k: not considered",
        }),
      );
    }
    item.append(el("span", index + 1, { class: "num" }), el("span", text, { class: "text" }), marks);
    return item;
  });
}

function groupButton(group, number, considered, onHighlight) {
  const hits = group.sentences.filter((s) => considered.has(s)).length;
  const button = el("button", null, {
    type: "button",
    class: `dgroup ${group.covered ? "covered" : "missed"}`,
    "data-sentences": group.sentences.join(","),
    "data-covered": String(group.covered),
  });
  const numbers = group.sentences.map((s) => s + 1).join(", ");
  button.append(
    el("span", group.covered ? "✓" : "✗", { class: "gicon", "aria-hidden": "true" }),
    el("span", `Group ${number}: sentence${group.sentences.length === 1 ? "" : "s"} ${numbers}`),
    el("span", `${group.covered ? "covered" : "not covered"} (${hits} of ${group.sentences.length} considered)`, { class: "gstate" }),
  );
  const on = () => onHighlight(group.sentences, true);
  const off = () => onHighlight(group.sentences, false);
  button.addEventListener("mouseenter", on);
  button.addEventListener("mouseleave", off);
  // Keyboard focus also brings the sentences into view (the facets panel stays in place).
  button.addEventListener("focus", () => onHighlight(group.sentences, true, button.matches(":focus-visible")));
  button.addEventListener("blur", off);
  button.addEventListener("click", () => onHighlight(group.sentences, true, true));
  return button;
}

// One <li> per reference sentence (facet): its status in words, and a button per support group
// that highlights the group's sentences while hovered or focused (a click scrolls to them).
export function facetItems(facets, considered, onHighlight) {
  const chosen = new Set(considered);
  return facets.map((facet) => {
    const kind = facet.label !== "supported" ? facet.label : facet.covered ? "covered" : "missed";
    const item = el("li", null, {
      class: `facet ${kind === "covered" ? "covered" : kind === "missed" ? "missed" : kind === "noise" ? "noise" : "nosupport"}`,
      "data-index": facet.index,
      "data-covered": String(facet.covered),
    });
    const head = el("div", null, { class: "facet-head" });
    head.append(
      el("span", facet.index + 1, { class: "fnum" }),
      el("span", facet.text, { class: "ftext" }),
      el("span", STATUS[kind] || kind, { class: "fstatus" }),
    );
    item.append(head);
    if (facet.groups.length) {
      const groups = el("div", null, { class: "dgroups", role: "group", "aria-label": `Support groups of facet ${facet.index + 1}` });
      facet.groups.forEach((group, i) => groups.append(groupButton(group, i + 1, chosen, onHighlight)));
      item.append(groups);
    }
    return item;
  });
}
