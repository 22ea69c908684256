// FAM adjudication's drawing: the document's sentences with who chose them for the current
// facet, and per facet every annotator's groups side by side, the union and the intersection,
// and the gold facet with its provenance (and, in edit mode, the workspace's group and label
// tools). A difference is shown by colour and by a cue that is not colour: the facet's
// "Differs" tag, a dashed border and an "only k of n" tag on a group some annotators lack.
// DOM builders only; every text goes in with textContent.
import { el } from "./api.js";
import { LABELS } from "./fam.js";
import * as gold from "./gold.js";
import { counted, plural } from "./plural.js";
import { $, S, rebuild } from "./adjudication-page.js";
import {
  currentGroup,
  cycleGroup,
  deleteGroup,
  newGroup,
  selectFacet,
  setCursor,
  setLabel,
  take,
  takeIntersection,
  takeUnion,
  toggleSentence,
} from "./adjudication-fam.js";

export function buildSentences() {
  S.sentences = S.data.document.sentences.map((text, i) => {
    const li = el("li", null, { class: "sent", "data-index": String(i) });
    li.tabIndex = -1;
    li.append(
      el("span", i + 1, { class: "num", "aria-hidden": "true" }),
      el("span", text, { class: "text" }),
      el("span", null, { class: "marks" }),
    );
    li.addEventListener("click", () => {
      if (!S.editing) return;
      setCursor(i, { focus: false });
      toggleSentence(i);
    });
    return li;
  });
  $("sentences").replaceChildren(...S.sentences);
}

const facets = (f) => gold.facetsOf(S.annotations, f);

export function renderSentences() {
  const f = S.facet;
  const mine = S.gold[f];
  const g = currentGroup(f);
  const used = gold.sentenceSupport(facets(f));
  const n = S.annotations.length;
  $("sentences").classList.toggle("editing", S.editing);
  $("doc-hint").textContent = S.editing
    ? `editing gold facet ${f + 1}: space or a click puts the sentence into the current group`
    : `facet ${f + 1}: numbers are the annotators who chose the sentence`;
  S.sentences.forEach((li, i) => {
    const who = used.get(i) || [];
    const agreed = n > 1 && who.length === n;
    const disputed = who.length > 0 && !agreed;
    const inGroup = g >= 0 && mine.groups[g].includes(i);
    const inGold = mine.groups.some((group) => group.includes(i));
    li.classList.toggle("agreed", agreed);
    li.classList.toggle("disputed", disputed);
    li.classList.toggle("in-group", S.editing && inGroup);
    li.classList.toggle("in-gold", inGold);
    if (S.editing) {
      li.setAttribute("role", "button");
      li.setAttribute("aria-pressed", String(inGroup));
    } else {
      li.removeAttribute("role");
      li.removeAttribute("aria-pressed");
      li.tabIndex = -1;
      li.classList.remove("cursor");
    }
    const marks = [];
    if (agreed) marks.push(el("span", "all", { class: "mark agree-tag", title: "Every annotator chose this sentence" }));
    else if (disputed) marks.push(el("span", `${who.length} of ${n}`, { class: "mark dispute-tag", title: "Only some annotators chose this sentence" }));
    for (const a of who) {
      marks.push(el("span", a + 1, { class: `mark who a${a % 6}`, title: `Chosen by ${S.annotations[a].annotator} (${a + 1})` }));
    }
    mine.groups.forEach((group, j) => {
      if (group.includes(i)) {
        marks.push(el("span", `G${j + 1}`, { class: `mark group${S.editing && j === g ? " current" : ""}`, title: `In gold group ${j + 1} of facet ${f + 1}` }));
      }
    });
    li.querySelector(".marks").replaceChildren(...marks);
  });
}

// The chips of a facet's groups; `support` (key -> how many annotators have it) marks a group
// that only some of them chose.
function groupChips(facet, support = null) {
  if (facet.label !== "supported") return [el("span", facet.label === "noise" ? "noise" : "no support", { class: "chip label-chip" })];
  const groups = facet.groups.filter((group) => group.length);
  if (!groups.length) return [el("span", "—", { class: "muted none" })];
  const n = S.annotations.length;
  return groups.map((group) => {
    const chip = el("span", `[${group.map((i) => i + 1).join(", ")}]`, { class: "chip" });
    if (support) {
      const count = support.get(gold.groupKey(group)) || 0;
      if (count < n) {
        chip.classList.add("partial");
        chip.append(el("small", `only ${count} of ${n}`, { class: "ptag" }));
      } else chip.classList.add("shared");
    }
    return chip;
  });
}

function sameAsGold(facet, g) {
  return gold.isDecided(g) && JSON.stringify([gold.facetText(facet)]) === JSON.stringify([gold.facetText(g)]);
}

// One choice row: its key, its name, its groups; a click takes it.
function choiceRow(f, { key, focusKey, name, detail, facet, support, onTake, title }) {
  const g = S.gold[f];
  const li = el("li", null, { class: "adj-row" });
  const button = el("button", null, { type: "button", class: "choice", "data-focus-key": focusKey, title });
  button.append(el("kbd", key), el("span", name, { class: "who-name" }));
  if (detail) button.append(el("small", detail, { class: "muted" }));
  const chips = el("span", null, { class: "chips" });
  chips.append(...groupChips(facet, support));
  button.append(chips);
  if (sameAsGold(facet, g)) {
    li.classList.add("is-gold");
    button.append(el("span", "= gold", { class: "gold-tag" }));
  }
  button.disabled = S.readOnly;
  button.addEventListener("click", () => {
    if (S.facet !== f) selectFacet(f, { scroll: false });
    onTake();
  });
  li.append(button);
  return li;
}

function rows(f) {
  const list = facets(f);
  const support = gold.groupSupport(list);
  const diff = (S.diff || []).find((entry) => Number(entry.facet) === f) || null;
  const items = S.annotations.map((annotation, a) =>
    choiceRow(f, {
      key: a + 1,
      focusKey: `take-${f}-${a}`,
      name: annotation.annotator,
      detail: annotation.task_status && annotation.task_status !== "submitted" ? annotation.task_status.replace("_", " ") : "",
      facet: list[a],
      support,
      title: `Take ${annotation.annotator}'s facet ${f + 1} (${a + 1})`,
      onTake: () => take(a),
    }),
  );
  const union = { groups: diff && Array.isArray(diff.union) ? diff.union : gold.unionGroups(list), label: "supported" };
  const common = { groups: diff && Array.isArray(diff.intersection) ? diff.intersection : gold.intersectionGroups(list), label: "supported" };
  if (S.annotations.length > 1) {
    items.push(
      choiceRow(f, { key: "u", focusKey: `union-${f}`, name: "Union", facet: union, title: "Every group any annotator chose (u)", onTake: takeUnion }),
      choiceRow(f, { key: "i", focusKey: `inter-${f}`, name: "Intersection", facet: common, title: "The groups every annotator chose (i)", onTake: takeIntersection }),
    );
  }
  return items;
}

// The gold facet's editor (edit mode, current facet): its groups and its label.
function editor(f) {
  const facet = S.gold[f];
  const g = currentGroup(f);
  const box = el("div", null, { class: "adj-editor" });
  const groups = el("div", null, { class: "groups", role: "group", "aria-label": `Groups of gold facet ${f + 1}` });
  if (!facet.groups.length) groups.append(el("p", "No group yet: space on a sentence starts one.", { class: "muted hint" }));
  facet.groups.forEach((group, j) => {
    const wrap = el("div", null, { class: `group${j === g ? " current" : ""}` });
    const select = el("button", null, { type: "button", class: "gsel", "aria-pressed": String(j === g), "data-focus-key": `gg-${f}-${j}` });
    select.append(el("strong", `Group ${j + 1}`), el("span", group.length ? `sentences ${group.map((i) => i + 1).join(", ")}` : "empty", { class: "gmembers" }));
    select.addEventListener("click", () => {
      S.group[f] = j;
      cycleGroup(0);
    });
    const remove = el("button", "×", { type: "button", class: "gdel", "aria-label": `Delete group ${j + 1}`, title: "Delete this group (x)", "data-focus-key": `ggd-${f}-${j}` });
    remove.addEventListener("click", () => deleteGroup(j));
    wrap.append(select, remove);
    groups.append(wrap);
  });
  const add = el("button", "+ Alternative group ", { type: "button", class: "secondary small gnew", "data-focus-key": `ggn-${f}` });
  add.append(el("kbd", "g"));
  add.addEventListener("click", newGroup);
  groups.append(add);
  const labels = el("fieldset", null, { class: "labels" });
  labels.append(el("legend", `Label of gold facet ${f + 1}`, { class: "sr-only" }));
  for (const [value, text] of Object.entries(LABELS)) {
    const id = `gold-label-${f}-${value}`;
    const input = el("input", null, { type: "radio", name: `gold-label-${f}`, id, value, "data-focus-key": id });
    input.checked = facet.label === value;
    input.addEventListener("change", () => {
      if (input.checked) setLabel(f, value);
    });
    const label = el("label", null, { for: id });
    label.append(input, document.createTextNode(` ${text}`));
    labels.append(label);
  }
  box.append(groups, labels);
  return box;
}

function goldBlock(f) {
  const facet = S.gold[f];
  const box = el("div", null, { class: `adj-gold${gold.isDecided(facet) ? " decided" : " undecided"}` });
  const line = el("p", null, { class: "adj-gold-line" });
  line.append(el("strong", "Gold"));
  const chips = el("span", null, { class: "chips", "data-gold": String(f) });
  chips.append(...groupChips(facet));
  const provenance = facet.provenance;
  const method = provenance ? provenance.method : "none";
  line.append(chips, el("span", gold.provenanceText(provenance), { class: `prov prov-${method}`, "data-provenance": method }));
  box.append(line);
  if (S.editing && f === S.facet) box.append(editor(f));
  return box;
}

export function buildFacets() {
  S.cards = S.data.reference.facets.map((text, f) => {
    const li = el("li", null, { class: "facet adj-facet", "data-index": String(f) });
    const head = el("button", null, { type: "button", class: "facet-head", "data-focus-key": `fh-${f}` });
    const tag = el("span", "", { class: "fstatus diff-tag" });
    const main = el("span", null, { class: "fmain" });
    main.append(el("span", text, { class: "ftext" }));
    head.append(el("span", f + 1, { class: "fnum" }), main, tag);
    head.addEventListener("click", () => selectFacet(f, { scroll: false }));
    const choices = el("ol", null, { class: "adj-rows", "aria-label": `Choices for facet ${f + 1}` });
    const goldBox = el("div");
    li.append(head, choices, goldBox);
    return { li, head, tag, choices, goldBox };
  });
  $("facets").replaceChildren(...S.cards.map((card) => card.li));
}

function agrees(f) {
  const diff = (S.diff || []).find((entry) => Number(entry.facet) === f);
  if (diff && typeof diff.agree === "boolean") return diff.agree;
  return gold.facetsAgree(facets(f));
}

export function renderFacets() {
  S.cards.forEach((card, f) => {
    const same = agrees(f);
    const selected = f === S.facet;
    card.li.className = `facet adj-facet ${same ? "agrees" : "differs"}${selected ? " selected" : ""}${gold.isDecided(S.gold[f]) ? " decided" : ""}`;
    card.tag.textContent = S.annotations.length < 2 ? "one annotator" : same ? "✓ Agree" : "≠ Differs";
    card.head.setAttribute("aria-current", selected ? "true" : "false");
    card.head.setAttribute("aria-label", `Facet ${f + 1}: ${same ? "the annotators agree" : "the annotators differ"}; gold ${gold.facetText(S.gold[f])}, ${gold.provenanceText(S.gold[f].provenance)}`);
    rebuild(card.choices, () => rows(f));
    rebuild(card.goldBox, () => [goldBlock(f)]);
  });
}

export function renderSummary() {
  const decided = S.gold.filter(gold.isDecided).length;
  const differ = S.gold.filter((_, f) => !agrees(f)).length;
  $("decided-text").textContent = `Decided ${decided}/${S.gold.length}`;
  $("differ-text").textContent = `${counted(differ, "facet")} ${plural(differ, "differs", "differ")}`;
  rebuild($("decided"), () =>
    S.gold.map((facet, f) => {
      const ok = gold.isDecided(facet);
      const pill = el("button", f + 1, {
        type: "button",
        class: `pill ${ok ? "covered" : "empty"}${f === S.facet ? " selected" : ""}`,
        title: `Gold facet ${f + 1}: ${ok ? gold.provenanceText(facet.provenance) : "not decided"}`,
        "aria-label": `Gold facet ${f + 1}: ${ok ? "decided" : "not decided"}`,
        "data-focus-key": `dec-${f}`,
      });
      pill.addEventListener("click", () => selectFacet(f));
      return pill;
    }),
  );
}

export function render() {
  renderSummary();
  renderSentences();
  renderFacets();
}
