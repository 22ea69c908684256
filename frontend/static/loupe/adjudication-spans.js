// Span adjudication (PolyTope campaigns): per item (a system output), every annotator's errors
// side by side, the union and the intersection, and the gold list with each error's provenance;
// the current item's summary and the source show the gold errors as the span workspace draws
// them (span-view.js: severity by line style and tag, not colour alone). By hand (e), any
// annotator's error goes into the gold list or out of it. Each item's gold is saved with its
// own version (saver.js), named by the item's opaque id (never its output id, which a
// system-blind campaign hides from its annotators); a 409 asks which list to keep.
import { el } from "./api.js";
import * as gs from "./gold-spans.js";
import { counted } from "./plural.js";
import { Saver } from "./saver.js";
import * as st from "./span-state.js";
import { drawText } from "./span-view.js";
import { $, S, ctx, ui, flash, editRefused, goldSender, onSaveState, rebuild, campaignId, documentId } from "./adjudication-page.js";

const withSeverity = (errors) =>
  (errors || []).map((error) => ({
    ...error,
    severity: S.data.scheme ? st.severityOf(S.data.scheme, error.type, error.label) || "" : error.severity || "",
  }));

function makeText(sentences) {
  const list = Array.isArray(sentences) ? sentences : [String(sentences || "")];
  const text = st.joinSentences(list);
  const cps = st.chars(text);
  const words = st.tokenize(cps);
  return { sentences: list, text, cps, words, sentenceOf: st.wordSentences(list, words) };
}

function readItem(id) {
  return (response) => {
    const items = response && (response.items || (response.gold && response.gold.items));
    if (Array.isArray(items)) {
      const item = items.find((x) => x.item === id);
      if (item) return item.gold && Number.isInteger(item.gold.version) ? item.gold : item;
    }
    return response && response.gold && !Number.isInteger(response.version) ? response.gold : response;
  };
}

const goldState = (item) => ({ errors: item.gold.errors.map(gs.goldError), no_errors: Boolean(item.gold.no_errors) });

const FORMAT = {
  kind: "gold-spans",
  body: (state) => ({ errors: state.errors.map(gs.goldError), no_errors: Boolean(state.no_errors) }),
  server: (response) => ({ errors: response.errors || [], no_errors: Boolean(response.no_errors) }),
  stored: (state) => ({ facets: [], errors: state.errors.map(gs.goldError), no_errors: Boolean(state.no_errors) }),
  same: gs.sameGoldSpans,
};

export function loadItems() {
  S.items = (S.data.items || []).map((item) => {
    const annotations = (item.annotations || []).map((x) => ({ ...x, errors: st.sortErrors(withSeverity(x.errors)) }));
    const goldIn = item.gold || {};
    return {
      id: String(item.item),
      system: item.system_name || item.system || "",
      text: makeText(item.summary),
      annotations,
      gold: { version: goldIn.version || 0, errors: gs.normalizeGoldErrors(withSeverity(goldIn.errors)), no_errors: Boolean(goldIn.no_errors) },
    };
  });
  S.source = S.data.document.sentences && S.data.document.sentences.length ? makeText(S.data.document.sentences) : null;
  for (const item of S.items) {
    const send = goldSender(readItem(item.id));
    const saver = new Saver({
      taskId: `adj-${campaignId}-${documentId}-i${item.id}`,
      version: item.gold.version,
      base: goldState(item),
      format: FORMAT,
      // The body the API takes: the item with its own base version.
      send: (body) => send({ items: [{ item: item.id, base_version: body.base_version, errors: body.errors, no_errors: body.no_errors }] }),
      onState: (name, detail) => {
        saver.lastDetail = detail;
        onSaveState();
      },
      onConflict: (server) => showConflict(item, server),
      onSaved: () => {},
    });
    ctx.savers.set(item.id, saver);
  }
  S.item = itemFromAddress();
}

// After the first drawing: the summary the address named is in view.
export function showCurrentItem() {
  if (S.item > 0) scrollToItem(S.item);
}

// The ith summary's row in the list is in view.
function scrollToItem(i) {
  document.querySelector(`#items [data-item="${S.items[i].id}"]`)?.scrollIntoView({ block: "nearest" });
}

const current = () => S.items[S.item];

// The summary being adjudicated is in the address (?item=<its opaque id>, left out for the
// first; never the output id, which a blind campaign hides), so a reload or a copied link
// opens that one; replaceState keeps Back for leaving the document.
function setItem(i) {
  S.item = i;
  const url = new URL(window.location.href);
  if (i > 0) url.searchParams.set("item", S.items[i].id);
  else url.searchParams.delete("item");
  if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url);
}

// The summary the address names (0, the first, without one or for an unknown item).
function itemFromAddress() {
  const wanted = new URL(window.location.href).searchParams.get("item");
  return Math.max(0, S.items.findIndex((item) => item.id === wanted));
}

function edit(item, next, message = "") {
  if (editRefused()) return false;
  item.gold = { ...item.gold, errors: withSeverity(next.errors), no_errors: Boolean(next.no_errors) };
  ctx.savers.get(item.id).change(goldState(item));
  ui.render();
  if (message) flash(message, 2500);
  return true;
}

export function selectItem(i, { scroll = true } = {}) {
  if (i < 0 || i >= S.items.length) return;
  setItem(i);
  S.candidate = 0;
  ui.render();
  if (scroll) scrollToItem(i);
}

export function take(a) {
  const item = current();
  if (!item || a >= item.annotations.length) {
    flash(`There is no annotator ${a + 1} on this summary.`);
    return false;
  }
  return edit(item, gs.takeErrors(item.annotations, a), `Summary ${S.item + 1}: ${item.annotations[a].annotator}'s errors.`);
}

export const takeUnion = () => current() && edit(current(), gs.unionErrors(current().annotations), `Summary ${S.item + 1}: every error any annotator marked.`);

export const takeIntersection = () =>
  current() && edit(current(), gs.intersectionErrors(current().annotations), `Summary ${S.item + 1}: the errors every annotator marked.`);

export function moveCandidate(delta) {
  const list = gs.candidates(current().annotations);
  if (!list.length) return;
  S.candidate = Math.max(0, Math.min(list.length - 1, S.candidate + delta));
  ui.render();
  document.querySelector(`#items .cand[data-index="${S.candidate}"]`)?.focus();
}

export function toggleCandidate(index = S.candidate) {
  const item = current();
  const entry = gs.candidates(item.annotations)[index];
  if (!entry) return;
  S.candidate = index;
  edit(item, gs.toggleCandidate(item.gold, entry));
}

export function toggleNoErrors() {
  const item = current();
  if (item.gold.errors.length) {
    flash("The gold list has errors: take them out first to mark the summary as having none.");
    return;
  }
  edit(item, { errors: [], no_errors: !item.gold.no_errors });
}

export function ready() {
  const open = S.items.findIndex((item) => !item.gold.errors.length && !item.gold.no_errors);
  if (open < 0) return true;
  flash(`Summary ${open + 1} has no gold yet: take a choice, or mark it as having no errors (0 in edit mode).`);
  selectItem(open);
  return false;
}

// --- drawing --------------------------------------------------------------------------------

const errorLine = (error) => st.describeError(error);

function errorList(errors, { partial = null, provenance = false } = {}) {
  if (!errors.length) return el("p", "no errors", { class: "muted none" });
  const list = el("ul", null, { class: "adj-errors" });
  for (const error of errors) {
    const li = el("li", errorLine(error), { class: `adj-err sev-${(error.severity || "none").toLowerCase()}` });
    if (partial && partial.has(gs.errorKey(error))) {
      li.classList.add("partial");
      li.append(el("small", ` only ${partial.get(gs.errorKey(error))}`, { class: "ptag" }));
    }
    if (provenance && error.provenance) {
      const { method, annotators } = error.provenance;
      li.append(el("small", ` ${method}${annotators.length ? `: ${annotators.join(", ")}` : ""}`, { class: `prov prov-${method}`, "data-provenance": method }));
    }
    list.append(li);
  }
  return list;
}

function itemCard(item, i) {
  const selected = i === S.item;
  const all = item.annotations.length;
  const partial = new Map();
  for (const entry of gs.candidates(item.annotations)) if (entry.annotators.length < all) partial.set(entry.key, `${entry.annotators.length} of ${all}`);
  const agree = partial.size === 0 && new Set(item.annotations.map((x) => Boolean(x.no_errors))).size <= 1;
  const li = el("li", null, { class: `facet adj-facet adj-item ${agree ? "agrees" : "differs"}${selected ? " selected" : ""}`, "data-item": item.id });
  const head = el("button", null, { type: "button", class: "facet-head", "data-focus-key": `ih-${i}` });
  head.append(el("span", i + 1, { class: "fnum" }), el("span", item.system ? `System ${item.system}` : "Summary", { class: "ftext" }), el("span", agree ? "✓ Agree" : "≠ Differs", { class: "fstatus diff-tag" }));
  head.addEventListener("click", () => selectItem(i, { scroll: false }));
  const rows = el("ol", null, { class: "adj-rows" });
  item.annotations.forEach((annotation, a) => {
    const row = el("li", null, { class: "adj-row" });
    const button = el("button", null, { type: "button", class: "choice", "data-focus-key": `it-${i}-${a}` });
    const count = annotation.errors.length;
    button.append(el("kbd", a + 1), el("span", annotation.annotator, { class: "who-name" }), el("small", count ? counted(count, "error") : annotation.no_errors ? "no errors" : "nothing marked", { class: "muted" }));
    button.disabled = S.readOnly;
    button.addEventListener("click", () => {
      setItem(i);
      take(a);
    });
    row.append(button, errorList(annotation.errors, { partial }));
    rows.append(row);
  });
  if (all > 1) {
    for (const [key, name, action] of [
      ["u", "Union", takeUnion],
      ["i", "Intersection", takeIntersection],
    ]) {
      const row = el("li", null, { class: "adj-row" });
      const button = el("button", null, { type: "button", class: "choice", "data-focus-key": `${name}-${i}` });
      button.append(el("kbd", key), el("span", name, { class: "who-name" }));
      button.disabled = S.readOnly;
      button.addEventListener("click", () => {
        setItem(i);
        action();
      });
      row.append(button);
      rows.append(row);
    }
  }
  const goldBox = el("div", null, { class: `adj-gold${item.gold.errors.length || item.gold.no_errors ? " decided" : " undecided"}` });
  const line = el("p", null, { class: "adj-gold-line" });
  line.append(el("strong", "Gold"), el("span", item.gold.no_errors ? "no errors" : item.gold.errors.length ? counted(item.gold.errors.length, "error") : "not decided", { class: "muted" }));
  goldBox.append(line, errorList(item.gold.errors, { provenance: true }));
  if (selected && S.editing) goldBox.append(candidateEditor(item));
  li.append(head, rows, goldBox);
  return li;
}

function candidateEditor(item) {
  const box = el("div", null, { class: "adj-editor" });
  box.append(el("p", "Every error any annotator marked: space puts it into the gold list or takes it out; 0 marks the summary as having no errors.", { class: "muted hint" }));
  const list = el("ol", null, { class: "cands" });
  const inGold = new Set(item.gold.errors.map(gs.errorKey));
  gs.candidates(item.annotations).forEach((entry, c) => {
    const on = inGold.has(entry.key);
    const button = el("button", null, { type: "button", class: `cand${on ? " on" : ""}${c === S.candidate ? " cursor" : ""}`, "aria-pressed": String(on), "data-index": String(c), "data-focus-key": `cand-${c}` });
    button.append(el("span", on ? "✓ in gold" : "○ out", { class: "cand-state" }), el("span", errorLine(entry.error)), el("small", ` (${entry.annotators.join(", ")})`, { class: "muted" }));
    button.addEventListener("click", () => toggleCandidate(c));
    const li = el("li");
    li.append(button);
    list.append(li);
  });
  box.append(list);
  return box;
}

export function renderSpans() {
  const item = current();
  rebuild($("items"), () => S.items.map(itemCard));
  const decided = S.items.filter((x) => x.gold.errors.length || x.gold.no_errors).length;
  $("decided-text").textContent = `Decided ${decided}/${S.items.length}`;
  $("differ-text").textContent = "";
  $("decided").replaceChildren();
  if (!item) return;
  $("summary-heading-system").textContent = item.system ? `system ${item.system}` : "";
  const errors = item.gold.errors;
  drawText($("summary"), "summary", item.text, errors, -1);
  if (S.source) drawText($("source"), "source", S.source, errors, -1);
}

// --- conflicts -----------------------------------------------------------------------------------

let open = null; // {item, server} while the conflict dialog is open

function showConflict(item, server) {
  open = { item, server };
  $("conflict-fam").hidden = true;
  $("conflict-spans").hidden = false;
  $("apply-merge").hidden = true;
  $("conflict-text").textContent =
    `${server.updated_by || "Someone"} saved the gold of summary ${S.items.indexOf(item) + 1} (version ${server.version}) after ` +
    "the version your choices started from. Keep your list or take the server's; nothing is overwritten until you choose.";
  const lines = (errors, noErrors) => {
    const list = withSeverity(errors || []);
    if (!list.length) return [el("li", noErrors ? "no errors" : "nothing", { class: "muted" })];
    return list.map((error) => el("li", errorLine(error)));
  };
  $("conflict-mine").replaceChildren(...lines(item.gold.errors, item.gold.no_errors));
  $("conflict-theirs").replaceChildren(...lines(server.errors, server.no_errors));
  const dialog = $("conflict");
  if (!dialog.open) dialog.showModal();
  $("keep-mine").focus();
}

function resolve(useServer) {
  if (!open) return;
  const { item, server } = open;
  open = null;
  $("conflict").close();
  if (useServer) item.gold = { version: server.version, errors: gs.normalizeGoldErrors(withSeverity(server.errors)), no_errors: Boolean(server.no_errors) };
  ctx.savers.get(item.id).resolve(server, goldState(item));
  ui.render();
  flash(useServer ? "You now have the server's gold list." : "Your gold list is saved on top of the server's.");
}

export const keepMine = () => resolve(false);
export const takeServer = () => resolve(true);
