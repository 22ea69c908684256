// The adjudication page: one document of a campaign, every annotator's FAM (or error spans)
// side by side with their differences marked, and the gold version built one key or click per
// choice, saved with versions (a 409 asks, never overwrites). This entry loads the document
// (which names its previous and next documents), wires the buttons and keys, and draws; the rest lives in
// adjudication-page.js (shared state, done / reopen / next), adjudication-fam.js and
// adjudication-view.js (FAMs), adjudication-spans.js (spans), adjudication-keys.js, gold.js and
// gold-spans.js (pure).
import { api } from "./api.js";
import { normalize } from "./fam.js";
import { normalizeGold } from "./gold.js";
import { bindAdjudicationKeys } from "./adjudication-keys.js";
import * as page from "./adjudication-page.js";
import * as famActions from "./adjudication-fam.js";
import * as spans from "./adjudication-spans.js";
import { buildFacets, buildSentences, render as renderFam } from "./adjudication-view.js";

const { $, S, root, ui, flash } = page;

function fail(title, error) {
  $("doc-title").textContent = title;
  $("campaign-line").textContent = error ? error.message : "";
  root.setAttribute("aria-busy", "false");
}

function describe() {
  const doc = S.data.document;
  document.title = `Adjudicate ${doc.external_id} · Loupe`;
  $("doc-title").textContent = `Document ${doc.external_id}`;
  const people = S.kind === "fam" ? S.annotations.map((x, a) => `${a + 1} ${x.annotator}`) : [];
  const parts = [S.campaign ? S.campaign.name : `Campaign ${page.campaignId}`];
  if (S.data.index) parts.push(`document ${S.data.index} of ${S.data.count}`);
  if (people.length) parts.push(`annotators: ${people.join(", ")}`);
  else if (!S.annotations.length && S.kind === "fam") parts.push("no annotations yet");
  const waiting = S.data.waiting || [];
  if (waiting.length) parts.push(`not started: ${waiting.join(", ")}`);
  if (typeof S.data.agreement === "number") parts.push(`agreement ${S.data.agreement.toFixed(2)}`);
  if (S.data.you_annotated) parts.push("you annotated it: marking it adjudicated is recorded as self-adjudicated");
  $("campaign-line").textContent = parts.join(" · ");
  $("prev-btn").disabled = !S.data.previous;
  $("next-btn").disabled = !S.data.next;
  const version = S.kind === "fam" ? S.data.gold.version || 0 : 0;
  $("gold-version").textContent = version ? `Gold version ${version}` : S.kind === "fam" ? "No gold yet" : "";
}

function render() {
  if (S.kind === "fam") renderFam();
  else spans.renderSpans();
  $("edit-btn").setAttribute("aria-pressed", String(S.editing));
  $("edit-btn").disabled = S.readOnly;
  root.classList.toggle("editing", S.editing);
}

function toggleEdit(on = !S.editing) {
  if (S.kind === "fam") famActions.setEditing(on);
  else {
    if (on && page.editRefused()) return;
    S.editing = on;
    render();
    if (on) document.querySelector(`#items .cand[data-index="${S.candidate}"]`)?.focus();
  }
}

function bindKeyboard() {
  const fam = S.kind === "fam";
  const actions = {
    editing: () => S.editing,
    next: () => (fam ? (S.editing ? famActions.setCursor(S.cursor + 1) : famActions.moveFacet(1)) : S.editing ? spans.moveCandidate(1) : spans.selectItem(S.item + 1)),
    previous: () => (fam ? (S.editing ? famActions.setCursor(S.cursor - 1) : famActions.moveFacet(-1)) : S.editing ? spans.moveCandidate(-1) : spans.selectItem(S.item - 1)),
    take: (a) => (fam ? famActions.take(a) : spans.take(a)),
    union: () => (fam ? famActions.takeUnion() : spans.takeUnion()),
    intersection: () => (fam ? famActions.takeIntersection() : spans.takeIntersection()),
    edit: () => toggleEdit(),
    escape: () => S.editing && toggleEdit(false),
    toggle: () => (fam ? famActions.toggleSentence(S.cursor) : spans.toggleCandidate()),
    done: () => page.markDone(fam ? famActions.ready : spans.ready),
    nextDocument: () => page.goTo(1),
    previousDocument: () => page.goTo(-1),
    help: () => $("help").showModal(),
    editKeys: fam
      ? {
          g: famActions.newGroup,
          "[": () => famActions.cycleGroup(-1),
          "]": () => famActions.cycleGroup(1),
          x: () => famActions.deleteGroup(),
          m: () => famActions.toggleLabel("no_support"),
          o: () => famActions.toggleLabel("noise"),
        }
      : { 0: spans.toggleNoErrors },
  };
  // 0 is not a take (digits 1-9 are): in span edit mode it marks "no errors".
  bindAdjudicationKeys(actions, page.dialogOpen);
}

function wire() {
  bindKeyboard();
  const fam = S.kind === "fam";
  $("help-btn").addEventListener("click", () => $("help").showModal());
  $("edit-btn").addEventListener("click", () => toggleEdit());
  $("prev-btn").addEventListener("click", () => page.goTo(-1));
  $("next-btn").addEventListener("click", () => page.goTo(1));
  $("done-btn").addEventListener("click", () => page.markDone(fam ? famActions.ready : spans.ready));
  $("reopen-btn").addEventListener("click", page.reopen);
  $("apply-merge").addEventListener("click", famActions.applyMerge);
  $("keep-mine").addEventListener("click", fam ? famActions.keepMine : spans.keepMine);
  $("take-server").addEventListener("click", fam ? famActions.takeServer : spans.takeServer);
  $("conflict").addEventListener("cancel", (e) => e.preventDefault()); // a conflict must be decided
  window.addEventListener("beforeunload", (e) => {
    if (page.unsaved()) {
      e.preventDefault();
      e.returnValue = "";
    }
  });
  const redraw = () => page.onSaveState();
  window.addEventListener("online", redraw);
  window.addEventListener("offline", redraw);
}

function loadFam() {
  const n = S.data.reference.facets.length;
  S.annotations = (S.data.annotations || []).map((x) => ({ ...x, facets: normalize(x.facets, n) }));
  S.gold = normalizeGold((S.data.gold || {}).facets, n);
  S.diff = S.data.diff || [];
  S.group = S.gold.map(() => 0);
  buildSentences();
  buildFacets();
  famActions.startSaver();
}

function loadSpans() {
  S.kind = "spans";
  root.classList.add("spanws");
  for (const id of ["fam-doc", "fam-side"]) $(id).hidden = true;
  for (const id of ["span-doc", "span-side"]) $(id).hidden = false;
  spans.loadItems();
}

async function main() {
  Object.assign(ui, { render });
  let data;
  try {
    data = await api(page.apiUrl);
  } catch (error) {
    const title = error.status === 404 ? "No such document in this campaign" : error.status === 403 ? "You may not adjudicate this document" : "Could not load the document";
    fail(title, error);
    return;
  }
  S.data = data;
  S.status = data.status || "pending";
  S.campaign = data.campaign || null;
  page.applyStatus();
  if (Array.isArray(data.items)) loadSpans();
  else loadFam();
  describe();
  wire();
  render();
  if (S.kind === "spans") spans.showCurrentItem();
  page.onSaveState();
  root.setAttribute("aria-busy", "false");
  if (S.readOnly) flash(S.why, 5000);
  else if (S.data.you_annotated) flash("You annotated this document: you may adjudicate it, and marking it adjudicated is recorded as self-adjudicated.", 6000);
}

main();
