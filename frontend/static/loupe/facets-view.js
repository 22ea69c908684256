// Workspace facets pane: facet cards, groups, coverage summary, and status banner.
import { el } from "./api.js";
import * as fam from "./fam.js";
import { counted } from "./plural.js";
import { tagAndLabel } from "./scorer-names.js";
import { $, root, S, currentGroup, rebuild } from "./state.js";
import { edit, selectFacet, newGroup, deleteGroup, setLabel } from "./actions.js";
import { scorerNames, suggestionsReady, suggestionItems } from "./suggest-view.js";
import { renderSentences } from "./sentences-view.js";

export function buildFacets() {
  const list = $("facets");
  S.cards = S.task.facets_text.map((text, f) => {
    const li = el("li", null, { class: "facet", "data-index": String(f) });
    const head = el("button", null, {
      type: "button",
      class: "facet-head",
      "aria-expanded": "false",
      "data-focus-key": `fh-${f}`,
    });
    const status = el("span", "", { class: "fstatus" });
    const summary = el("span", "", { class: "fsummary" });
    const main = el("span", null, { class: "fmain" });
    main.append(el("span", text, { class: "ftext" }), summary);
    head.append(el("span", f + 1, { class: "fnum" }), main, status);
    head.addEventListener("click", () => selectFacet(f));
    const body = el("div", null, { class: "facet-body" });
    body.hidden = true;
    const groups = el("div", null, { class: "groups", role: "group", "aria-label": `Support groups of facet ${f + 1}` });
    const labels = el("fieldset", null, { class: "labels" });
    labels.append(el("legend", `Label of facet ${f + 1}`, { class: "sr-only" }));
    const radios = {};
    for (const [value, text] of Object.entries(fam.LABELS)) {
      const id = `label-${f}-${value}`;
      const input = el("input", null, { type: "radio", name: `label-${f}`, id, value });
      input.addEventListener("change", () => {
        if (input.checked) setLabel(f, value);
      });
      radios[value] = input;
      const label = el("label", null, { for: id });
      label.append(input, document.createTextNode(` ${text}`));
      labels.append(label);
    }
    const noteLabel = el("label", null, { class: "note" });
    const note = el("input", null, { type: "text", maxlength: "1000", placeholder: "Optional note", id: `note-${f}` });
    note.addEventListener("input", () => {
      const done = edit(
        () => {
          S.facets[f].note = note.value;
        },
        { redraw: false },
      );
      if (!done) note.value = S.facets[f].note; // refused: the field shows the note again
    });
    noteLabel.append(el("span", "Note"), note);
    const sugg = el("div", null, { class: "suggestions" });
    const others = el("div", null, { class: "others" });
    body.append(groups, labels, noteLabel, sugg, others);
    li.append(head, body);
    return { li, head, status, summary, body, groups, radios, note, sugg, others };
  });
  list.replaceChildren(...S.cards.map((card) => card.li));
}

export function facetStatus(facet) {
  if (facet.label === "no_support") return ["No support", "nosupport"];
  if (facet.label === "noise") return ["Noise", "noise"];
  const count = facet.groups.filter((group) => group.length).length;
  if (count) return [`✓ ${counted(count, "group")}`, "covered"];
  return ["To do", "empty"];
}

export function renderSummary() {
  const covered = S.facets.filter(fam.isCovered).length;
  $("coverage-text").textContent = `Coverage ${covered}/${S.facets.length}`;
  rebuild($("coverage"), () =>
    S.facets.map((facet, f) => {
      const [text, kind] = facetStatus(facet);
      const pill = el("button", f + 1, {
        type: "button",
        class: `pill ${kind}${f === S.facet ? " selected" : ""}`,
        title: `Facet ${f + 1}: ${text}`,
        "aria-label": `Facet ${f + 1}: ${text}`,
        "data-focus-key": `cov-${f}`,
      });
      pill.addEventListener("click", () => selectFacet(f));
      return pill;
    }),
  );
  const derived = fam.deriveCategory(S.facets);
  $("category-derived").textContent = `Derived: ${fam.CATEGORIES[derived]}`;
  $("category").value = S.category || "";
  S.cards.forEach((card, f) => {
    const [text, kind] = facetStatus(S.facets[f]);
    card.status.textContent = text;
    const groups = S.facets[f].groups.filter((group) => group.length);
    card.summary.textContent = groups.length && f !== S.facet ? `Sentences ${fam.facetSummary(S.facets[f])}` : "";
    card.summary.hidden = !card.summary.textContent;
    card.li.className = `facet ${kind}${f === S.facet ? " selected" : ""}`;
  });
}

export function groupItems(f) {
  const facet = S.facets[f];
  const g = currentGroup(f);
  const items = [];
  if (!facet.groups.length) {
    items.push(el("p", "No group yet: click sentences (or press space) to start one.", { class: "muted hint" }));
  }
  facet.groups.forEach((group, j) => {
    const dup = fam.duplicateOf(facet, j);
    const wrap = el("div", null, { class: `group${j === g ? " current" : ""}${dup >= 0 ? " dup" : ""}` });
    const select = el("button", null, {
      type: "button",
      class: "gsel",
      "aria-pressed": String(j === g),
      "data-focus-key": `g-${f}-${j}`,
    });
    select.append(
      el("strong", `Group ${j + 1}`),
      el("span", group.length ? `${group.length > 1 ? "sentences" : "sentence"} ${group.map((i) => i + 1).join(", ")}` : "empty", {
        class: "gmembers",
      }),
    );
    if (dup >= 0) select.append(el("span", `same as group ${dup + 1}`, { class: "gwarn" }));
    select.addEventListener("click", () => {
      S.group[f] = j;
      render();
    });
    const remove = el("button", "×", {
      type: "button",
      class: "gdel",
      title: "Delete this group (x)",
      "aria-label": `Delete group ${j + 1}`,
      "data-focus-key": `gd-${f}-${j}`,
    });
    remove.addEventListener("click", () => {
      S.facet = f;
      deleteGroup(j);
    });
    wrap.append(select, remove);
    items.push(wrap);
  });
  const add = el("button", "+ Alternative group ", { type: "button", class: "secondary small gnew", "data-focus-key": `gn-${f}` });
  add.append(el("kbd", "g"));
  add.addEventListener("click", () => newGroup());
  items.push(add);
  return items;
}

export function otherItems(f) {
  if (!(S.task.others || []).length) return [];
  const items = [el("h3", "Other annotators")];
  for (const other of S.task.others) {
    const facet = fam.normalize(other.facets, S.facets.length)[f];
    items.push(el("p", `${other.annotator}: ${fam.facetSummary(facet)}`, { class: "other" }));
  }
  return items;
}

export function renderFacets() {
  S.cards.forEach((card, f) => {
    const selected = f === S.facet;
    card.head.setAttribute("aria-expanded", String(selected));
    card.body.hidden = !selected;
    const facet = S.facets[f];
    for (const [value, input] of Object.entries(card.radios)) {
      input.checked = facet.label === value;
      input.disabled = S.readOnly;
    }
    if (document.activeElement !== card.note) card.note.value = facet.note;
    card.note.disabled = S.readOnly;
    if (!selected) return;
    rebuild(card.groups, () => groupItems(f));
    rebuild(card.sugg, () => suggestionItems(f));
    rebuild(card.others, () => otherItems(f));
  });
  const status = $("sugg-status");
  const scorers = S.task.campaign.scorers || [];
  $("toggle-suggestions").closest("label").hidden = !scorers.length;
  if (!scorers.length) status.textContent = "This campaign shows no suggestions.";
  else if (!S.show) status.textContent = "Suggestions are hidden.";
  else if (suggestionsReady()) {
    const legend = scorerNames().map((name) => tagAndLabel(S.tags[name], name));
    status.textContent = `Top ${S.task.campaign.top_k} per scorer, marked in the text: ${legend.join(" · ")}. They are hints, not answers.`;
  } else if (S.suggestions.status === "failed") status.textContent = "Suggestions are unavailable.";
  else status.textContent = "Suggestions: being computed…";
  status.dataset.state = suggestionsReady() ? "ready" : S.suggestions.status;
}

export function render() {
  renderSummary();
  renderSentences();
  renderFacets();
}

export function applyStatus() {
  const submitted = S.task.status === "submitted";
  S.readOnly = !S.task.editable || submitted;
  root.classList.toggle("readonly", S.readOnly);
  $("category").disabled = S.readOnly;
  const submit = $("submit-btn");
  submit.hidden = !S.task.editable;
  submit.disabled = S.readOnly;
  const banner = $("banner");
  banner.hidden = !S.readOnly;
  const campaignOpen = !S.task.campaign.status || S.task.campaign.status === "open";
  $("reopen-btn").hidden = !(S.task.editable && submitted && campaignOpen);
  const next = $("banner-next");
  next.hidden = !submitted;
  next.href = S.task.next_task ? `/tasks/${S.task.next_task}/` : "/tasks/";
  next.textContent = S.task.next_task ? "Next task" : "My tasks";
  if (!S.task.editable) $("banner-text").textContent = `${S.task.annotator}'s task, read-only.`;
  else if (submitted) $("banner-text").textContent = "Submitted. Reopen it to make changes.";
}
