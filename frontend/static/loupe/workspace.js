// The FAM workspace: numbered document sentences on the left, facets on the right.
// All data comes from the JSON API; all text is set with textContent (never as HTML).
import { api, el, when } from "./api.js";
import * as fam from "./fam.js";
import { bindKeys } from "./keys.js";
import { conflictRows, historyItems } from "./panels.js";
import { dropPending, readPending, Saver } from "./saver.js";
import { pollSuggestions, SuggestionLog, scorerLabel, scorerLetters } from "./suggest.js";

const $ = (id) => document.getElementById(id);
const root = $("workspace");
const taskId = Number(root.dataset.taskId);

const SAVE_TEXT = {
  saved: "Saved",
  saving: "Saving…",
  offline: "Offline",
  conflict: "Conflict",
  error: "Not saved",
};
const SAVE_HELP = {
  saved: "Every change is on the server.",
  saving: "Sending your changes.",
  offline: "No connection. Your changes are kept in this browser and sent when it returns.",
  conflict: "This task was saved elsewhere; choose which state to keep.",
  error: "The server refused the change; it is kept in this browser.",
};

const S = {
  task: null,
  facets: [],
  category: "",
  facet: 0,
  group: [], // the current group of each facet
  cursor: -1, // the focused sentence
  suggestions: { status: "pending", scorers: {} },
  show: localStorage.getItem("loupe:show-suggestions") !== "0",
  readOnly: false,
  server: null, // the server's state while a conflict is open
  letters: {},
  sentences: [], // <li> per sentence
  cards: [], // per facet: {li, head, status, body, groups, radios, note, sugg, others}
  historyOpen: false,
};
let saver;
let log;

// ---- helpers -----------------------------------------------------------------------------

let flashTimer;
function flash(message) {
  const node = $("flash");
  node.textContent = message;
  node.hidden = false;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => {
    node.hidden = true;
  }, 3000);
}

function currentGroup(f = S.facet) {
  const groups = S.facets[f].groups;
  if (!groups.length) return -1;
  return Math.max(0, Math.min(S.group[f] ?? 0, groups.length - 1));
}

// Rebuild a container's children, keeping keyboard focus on the element with the same key.
function rebuild(container, build) {
  const active = document.activeElement;
  const key = container.contains(active) && active.dataset ? active.dataset.focusKey : null;
  container.replaceChildren(...build());
  if (key) {
    const again = container.querySelector(`[data-focus-key="${key}"]`);
    if (again) again.focus();
  }
}

function state() {
  return { facets: fam.clone(S.facets), category: S.category };
}

// Apply a change to the FAM, then save (debounced) and redraw.
function edit(change, { redraw = true } = {}) {
  if (S.readOnly) {
    flash(S.task.editable ? "The task is submitted: reopen it to make changes." : "Read-only.");
    return false;
  }
  change();
  saver.change(state());
  if (redraw) render();
  else renderSummary();
  return true;
}

// ---- suggestions -------------------------------------------------------------------------

function suggestionsReady() {
  return Object.keys(S.suggestions.scorers || {}).length > 0;
}

// Every suggestion for facet f: [{scorer, version, sentence, score, rank}], best rank first.
function facetSuggestions(f) {
  const out = [];
  const order = S.task.campaign.scorers || [];
  for (const [scorer, data] of Object.entries(S.suggestions.scorers || {})) {
    const row = (data.facets && data.facets[f]) || [];
    row.forEach((item, i) => {
      out.push({
        scorer,
        version: data.version,
        sentence: item.sentence,
        score: item.score,
        rank: item.rank ?? i + 1,
      });
    });
  }
  return out.sort((a, b) => a.rank - b.rank || order.indexOf(a.scorer) - order.indexOf(b.scorer));
}

const event = (f, s) => ({
  facet: f,
  sentence: s.sentence,
  scorer: s.scorer,
  scorer_version: s.version,
});

function acceptSuggestion(sentence) {
  const f = S.facet;
  const changed = edit(() => {
    S.group[f] = fam.addSentence(S.facets, f, currentGroup(f), sentence);
  });
  if (!changed) return;
  for (const s of facetSuggestions(f)) {
    if (s.sentence === sentence) log.markAccepted(event(f, s));
  }
  // Keep the keyboard focus with the cursor when the keyboard is on the sentences.
  const onSentences = document.activeElement && document.activeElement.classList.contains("sent");
  setCursor(sentence, { focus: onSentences });
  S.sentences[sentence].scrollIntoView({ block: "nearest" });
}

function acceptTop() {
  if (!S.show) {
    flash("Suggestions are hidden: press s to show them.");
    return;
  }
  if (!suggestionsReady()) {
    flash("Suggestions are not ready yet.");
    return;
  }
  const g = currentGroup();
  const members = g >= 0 ? S.facets[S.facet].groups[g] : [];
  const top = facetSuggestions(S.facet).find((s) => !members.includes(s.sentence));
  if (!top) {
    flash("Every suggestion for this facet is already in the group.");
    return;
  }
  acceptSuggestion(top.sentence);
  flash(`Added sentence ${top.sentence + 1} (${scorerLabel(top.scorer)} #${top.rank}).`);
}

function toggleSuggestions(value = !S.show) {
  S.show = value;
  $("toggle-suggestions").checked = value;
  try {
    localStorage.setItem("loupe:show-suggestions", value ? "1" : "0");
  } catch {
    // Preference only.
  }
  render();
}

function onSuggestions(data, error) {
  if (error) {
    $("sugg-status").textContent = `Suggestions could not be loaded (${error.message}); retrying.`;
    return;
  }
  S.suggestions = data;
  S.letters = scorerLetters(Object.keys(data.scorers || {}));
  render();
}

// ---- actions -----------------------------------------------------------------------------

function setCursor(i, { focus = true } = {}) {
  const n = S.sentences.length;
  if (!n) return;
  S.cursor = Math.max(0, Math.min(i, n - 1));
  S.sentences.forEach((li, j) => {
    li.tabIndex = j === S.cursor ? 0 : -1;
    li.classList.toggle("cursor", j === S.cursor);
  });
  if (focus) {
    S.sentences[S.cursor].focus({ preventScroll: true });
    S.sentences[S.cursor].scrollIntoView({ block: "nearest" });
  }
}

function move(delta) {
  setCursor(S.cursor < 0 ? 0 : S.cursor + delta);
}

function toggle(sentence) {
  const f = S.facet;
  edit(() => {
    S.group[f] = fam.toggleSentence(S.facets, f, currentGroup(f), sentence);
  });
}

function selectFacet(f, { fromKeyboard = false } = {}) {
  if (f < 0 || f >= S.facets.length) return;
  S.facet = f;
  render();
  if (fromKeyboard) {
    if (S.cursor >= 0) setCursor(S.cursor);
    else if (document.activeElement && document.activeElement !== document.body) {
      document.activeElement.blur();
    }
  }
  S.cards[f].li.scrollIntoView({ block: "nearest" });
}

function newGroup() {
  if (S.readOnly) return edit(() => {});
  const f = S.facet;
  const facet = S.facets[f];
  const empty = facet.groups.findIndex((group) => !group.length);
  if (empty >= 0) {
    S.group[f] = empty; // reuse the empty group instead of stacking empty ones
  } else {
    facet.groups.push([]);
    S.group[f] = facet.groups.length - 1;
  }
  render(); // nothing to save until a sentence goes into it
  flash(`Group ${S.group[f] + 1} of facet ${f + 1}: add its sentences.`);
}

function cycleGroup(delta) {
  const groups = S.facets[S.facet].groups;
  if (!groups.length) return;
  S.group[S.facet] = (currentGroup() + delta + groups.length) % groups.length;
  render();
}

function deleteGroup(g) {
  const f = S.facet;
  if (g < 0 || g >= S.facets[f].groups.length) return;
  edit(() => {
    S.facets[f].groups.splice(g, 1);
    S.group[f] = Math.max(0, Math.min(g, S.facets[f].groups.length - 1));
  });
}

function setLabel(f, label) {
  const hadGroups = S.facets[f].groups.some((group) => group.length);
  if (edit(() => fam.setLabel(S.facets, f, label)) && hadGroups && label !== "supported") {
    flash(`Facet ${f + 1}: its groups were removed (they stay in the history).`);
  }
}

// Keyboard: mark the current facet no support / noise, or back to supported.
function toggleLabel(label) {
  setLabel(S.facet, S.facets[S.facet].label === label ? "supported" : label);
}

async function nextTask() {
  await saver.flush(3000);
  const next = S.task.next_task;
  window.location.assign(next ? `/tasks/${next}/` : "/tasks/");
}

async function submit() {
  const open = S.facets.map((f, i) => (fam.isResolved(f) ? -1 : i)).filter((i) => i >= 0);
  if (open.length) {
    const list = open.map((i) => i + 1).join(", ");
    flash(`Facet ${list} ${open.length > 1 ? "are" : "is"} not done: add a group or mark it no support or noise.`);
    selectFacet(open[0]);
    return;
  }
  const button = $("submit-btn");
  button.disabled = true;
  if (!(await saver.flush())) {
    flash("Your changes are not on the server yet: submit once the indicator says Saved.");
    button.disabled = false;
    return;
  }
  log.markIgnored();
  await log.flush();
  try {
    const task = await api(`/api/tasks/${taskId}/submit/`, { method: "POST" });
    S.task.status = task.status;
    applyStatus();
    render();
    flash("Submitted. Press n for the next task.");
  } catch (error) {
    flash(`Could not submit: ${error.message}`);
  } finally {
    button.disabled = S.readOnly;
  }
}

async function reopen() {
  try {
    const task = await api(`/api/tasks/${taskId}/reopen/`, { method: "POST" });
    S.task.status = task.status;
    if (readPending(taskId)) {
      window.location.reload(); // resume the changes this browser still holds
      return;
    }
    applyStatus();
    render();
    flash("Reopened: your changes save again.");
  } catch (error) {
    flash(`Could not reopen: ${error.message}`);
  }
}

// ---- history -----------------------------------------------------------------------------

async function loadHistory() {
  const list = $("history-list");
  try {
    const revisions = await api(`/api/tasks/${taskId}/history/`);
    const onRestore = S.readOnly
      ? null
      : (revision) => {
          edit(() => {
            S.facets = fam.normalize(revision.facets, S.facets.length);
            S.category = revision.category || "";
          });
          flash(`Restored version ${revision.version}; it is saved as a new version.`);
        };
    rebuild(list, () => historyItems(revisions, { count: S.facets.length, onRestore }));
  } catch (error) {
    list.replaceChildren(el("li", `Could not load the history: ${error.message}`, { class: "error" }));
  }
}

function toggleHistory(open = !S.historyOpen) {
  S.historyOpen = open;
  $("history").hidden = !open;
  $("history-btn").setAttribute("aria-expanded", String(open));
  root.classList.toggle("with-history", open);
  if (open) {
    loadHistory();
    $("history-close").focus();
  }
}

// ---- conflict ----------------------------------------------------------------------------

function showConflict(server) {
  S.server = server;
  const n = S.facets.length;
  const theirs = { facets: fam.normalize(server.facets, n), category: server.category || "" };
  const who = server.updated_by === S.task.annotator ? "You (in another tab or device)" : server.updated_by || "Someone";
  $("conflict-text").textContent =
    `${who} saved version ${server.version} at ${when(server.updated_at)}, after the version your ` +
    "changes started from. Nothing is overwritten until you choose which state to keep.";
  $("conflict-server-head").textContent = `Server (version ${server.version})`;
  $("conflict-rows").replaceChildren(...conflictRows({ facets: S.facets, category: S.category }, theirs));
  const dialog = $("conflict");
  if (!dialog.open) dialog.showModal();
  $("keep-mine").focus();
}

function keepMine() {
  $("conflict").close();
  saver.keepMine(S.server);
  S.server = null;
  flash("Your state is saved on top of the server's.");
}

function takeServer() {
  $("conflict").close();
  const server = S.server;
  S.facets = fam.normalize(server.facets, S.facets.length);
  S.category = server.category || "";
  saver.takeServer(server);
  S.server = null;
  render();
  flash("You now have the server's state.");
}

// ---- rendering ---------------------------------------------------------------------------

function buildSentences() {
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

function buildFacets() {
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
      edit(
        () => {
          S.facets[f].note = note.value;
        },
        { redraw: false },
      );
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

function facetStatus(facet) {
  if (facet.label === "no_support") return ["No support", "nosupport"];
  if (facet.label === "noise") return ["Noise", "noise"];
  const count = facet.groups.filter((group) => group.length).length;
  if (count) return [`✓ ${count} group${count > 1 ? "s" : ""}`, "covered"];
  return ["To do", "empty"];
}

// Other annotators' groups of facet f (non-blind campaigns only): sentence -> annotators.
function othersFor(f) {
  const used = new Map();
  for (const other of S.task.others || []) {
    const facet = (other.facets || [])[f];
    for (const group of (facet && facet.groups) || []) {
      for (const s of group) used.set(s, [...(used.get(s) || []), other.annotator]);
    }
  }
  return used;
}

function renderSummary() {
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

function renderSentences() {
  const f = S.facet;
  const facet = S.facets[f];
  const g = currentGroup();
  const suggestions = S.show ? facetSuggestions(f) : [];
  const others = othersFor(f);
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
      marks.push(
        el("span", `${S.letters[s.scorer] || "?"}${s.rank}`, {
          class: `mark sugg s${Math.max(0, Object.keys(S.letters).indexOf(s.scorer)) % 3}`,
          title: `Suggested by ${scorerLabel(s.scorer)}: rank ${s.rank}, score ${Number(s.score).toFixed(2)}`,
        }),
      );
    }
    if (others.has(i)) {
      const names = others.get(i);
      marks.push(el("span", `${names.length} other${names.length > 1 ? "s" : ""}`, { class: "mark others", title: names.join(", ") }));
    }
    li.querySelector(".marks").replaceChildren(...marks);
  });
}

function groupItems(f) {
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

function suggestionItems(f) {
  const scorers = S.task.campaign.scorers || [];
  if (!scorers.length) return [];
  if (!S.show) return [el("p", "Suggestions are hidden (press s to show them).", { class: "muted hint" })];
  if (!suggestionsReady()) {
    const failed = S.suggestions.status === "failed";
    return [
      el("p", failed ? "Suggestions could not be computed." : "Suggestions are being computed; they appear here when ready.", {
        class: `muted hint${failed ? "" : " pending"}`,
      }),
    ];
  }
  const g = currentGroup(f);
  const members = g >= 0 ? S.facets[f].groups[g] : [];
  const items = [el("h3", "Suggestions")];
  const all = facetSuggestions(f);
  for (const scorer of Object.keys(S.suggestions.scorers)) {
    const row = el("div", null, { class: "srow", "data-scorer": scorer });
    row.append(el("span", `${S.letters[scorer]} · ${scorerLabel(scorer)}`, { class: "sname" }));
    for (const s of all.filter((item) => item.scorer === scorer)) {
      const added = members.includes(s.sentence);
      const chip = el("button", null, {
        type: "button",
        class: `chip${added ? " added" : ""}`,
        "data-sentence": String(s.sentence),
        "data-focus-key": `sg-${f}-${scorer}-${s.rank}`,
        title: added ? "Already in the current group" : "Add to the current group",
        "aria-label": `Sentence ${s.sentence + 1}, score ${Number(s.score).toFixed(2)}${added ? ", in the group" : ", add to the group"}`,
      });
      chip.append(el("span", `S${s.sentence + 1}`), el("small", Number(s.score).toFixed(2)));
      chip.addEventListener("click", () => acceptSuggestion(s.sentence));
      row.append(chip);
      if (S.task.editable) log.markShown(event(f, s));
    }
    items.push(row);
  }
  return items;
}

function otherItems(f) {
  if (!(S.task.others || []).length) return [];
  const items = [el("h3", "Other annotators")];
  for (const other of S.task.others) {
    const facet = fam.normalize(other.facets, S.facets.length)[f];
    items.push(el("p", `${other.annotator}: ${fam.facetSummary(facet)}`, { class: "other" }));
  }
  return items;
}

function renderFacets() {
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
    const legend = Object.keys(S.suggestions.scorers).map((name) => `${S.letters[name]} = ${scorerLabel(name)}`);
    status.textContent = `Top ${S.task.campaign.top_k} per scorer, marked in the text: ${legend.join(" · ")}. They are hints, not answers.`;
  } else if (S.suggestions.status === "failed") status.textContent = "Suggestions are unavailable.";
  else status.textContent = "Suggestions: being computed…";
  status.dataset.state = suggestionsReady() ? "ready" : S.suggestions.status;
}

function render() {
  renderSummary();
  renderSentences();
  renderFacets();
}

function applyStatus() {
  const submitted = S.task.status === "submitted";
  S.readOnly = !S.task.editable || submitted;
  root.classList.toggle("readonly", S.readOnly);
  $("category").disabled = S.readOnly;
  const submit = $("submit-btn");
  submit.hidden = !S.task.editable;
  submit.disabled = S.readOnly;
  const banner = $("banner");
  banner.hidden = !S.readOnly;
  $("reopen-btn").hidden = !(S.task.editable && submitted);
  const next = $("banner-next");
  next.hidden = !submitted;
  next.href = S.task.next_task ? `/tasks/${S.task.next_task}/` : "/tasks/";
  next.textContent = S.task.next_task ? "Next task" : "My tasks";
  if (!S.task.editable) $("banner-text").textContent = `${S.task.annotator}'s task, read-only.`;
  else if (submitted) $("banner-text").textContent = "Submitted. Reopen it to make changes.";
}

function onSaveState(stateName, detail) {
  const node = $("save-state");
  node.dataset.state = stateName;
  node.textContent = SAVE_TEXT[stateName] || stateName;
  node.title = detail || SAVE_HELP[stateName] || "";
}

// ---- keyboard ----------------------------------------------------------------------------

function bindKeyboard() {
  const keys = {
    g: newGroup,
    "[": () => cycleGroup(-1),
    "]": () => cycleGroup(1),
    x: () => deleteGroup(currentGroup()),
    a: acceptTop,
    u: () => toggleLabel("no_support"),
    o: () => toggleLabel("noise"),
    s: () => toggleSuggestions(),
    h: () => toggleHistory(),
    n: nextTask,
    "?": () => $("help").showModal(),
  };
  bindKeys(
    {
      next: () => move(1),
      previous: () => move(-1),
      toggle: () => (S.cursor < 0 ? move(1) : toggle(S.cursor)),
      facet: (f) => {
        if (f >= S.facets.length) return false;
        selectFacet(f, { fromKeyboard: true });
        return true;
      },
      escape: () => S.historyOpen && toggleHistory(false),
      keys,
    },
    () => $("help").open || $("conflict").open,
  );
}

// ---- start -------------------------------------------------------------------------------

function wire() {
  bindKeyboard();
  $("help-btn").addEventListener("click", () => $("help").showModal());
  $("history-btn").addEventListener("click", () => toggleHistory());
  $("history-close").addEventListener("click", () => {
    toggleHistory(false);
    $("history-btn").focus();
  });
  $("submit-btn").addEventListener("click", submit);
  $("reopen-btn").addEventListener("click", reopen);
  $("toggle-suggestions").addEventListener("change", (e) => toggleSuggestions(e.target.checked));
  $("category").addEventListener("change", (e) => {
    const value = e.target.value;
    edit(() => {
      S.category = value;
    });
  });
  $("keep-mine").addEventListener("click", keepMine);
  $("take-server").addEventListener("click", takeServer);
  // The conflict must be decided: Esc does not dismiss it.
  $("conflict").addEventListener("cancel", (e) => e.preventDefault());
}

async function main() {
  let task;
  try {
    task = await api(`/api/tasks/${taskId}/`);
  } catch (error) {
    $("doc-title").textContent = error.status === 404 ? "No such task" : "Could not load the task";
    $("campaign-line").textContent = error.message;
    root.setAttribute("aria-busy", "false");
    return;
  }
  S.task = task;
  const n = task.facets_text.length;
  const server = { facets: fam.normalize(task.fam.facets, n), category: task.fam.category || "" };
  S.facets = server.facets;
  S.category = server.category;
  S.group = S.facets.map(() => 0);
  let version = task.fam.version;
  let restored = false;
  const pending = readPending(taskId);
  if (pending) {
    const local = { facets: fam.normalize(pending.facets, n), category: pending.category || "" };
    if (fam.sameState(local, server)) dropPending(taskId);
    else if (task.editable && task.status !== "submitted") {
      S.facets = local.facets;
      S.category = local.category;
      version = pending.base_version;
      restored = true;
    }
  }
  document.title = `${task.document.external_id} · Loupe`;
  $("doc-title").textContent = `Document ${task.document.external_id}`;
  const parts = [
    task.campaign.name,
    `${task.document.sentences.length} sentences`,
    `${n} facet${n === 1 ? "" : "s"}`,
    task.campaign.blind ? "blind" : "not blind",
  ];
  if (!task.editable) parts.push(`annotator ${task.annotator}`);
  $("campaign-line").textContent = parts.join(" · ");
  saver = new Saver({
    taskId,
    version,
    send: (body) => api(`/api/tasks/${taskId}/fam/`, { method: "PUT", body }),
    onState: onSaveState,
    onConflict: showConflict,
    onSaved: () => {
      if (S.historyOpen) loadHistory();
    },
  });
  log = new SuggestionLog(taskId);
  buildSentences();
  buildFacets();
  $("toggle-suggestions").checked = S.show;
  applyStatus();
  wire();
  render();
  root.setAttribute("aria-busy", "false");
  if (restored) {
    saver.change(state(), { immediate: true });
    flash("Changes kept in this browser were restored and are being saved.");
  } else if (pending && task.status === "submitted") {
    flash("This browser holds unsaved changes for this task: reopen it to save them.");
  }
  if ((task.campaign.scorers || []).length) pollSuggestions(taskId, onSuggestions);
}

main();
