// Workspace suggestions: ranking per facet, accepting, showing/hiding, and their chips. One
// scorer is the current one (its row is marked): "a" adds its best pick not yet in the group,
// "A" makes the next scorer current, and a suggestion chip with the keyboard focus (or clicked)
// is accepted as it is and makes its scorer current.
import { el } from "./api.js";
import * as fam from "./fam.js";
import { scorerLabel, scorerTags, tagAndLabel } from "./scorer-names.js";
import { $, S, flash, currentGroup, ctx, ui } from "./state.js";
import { edit, setCursor } from "./actions.js";

export function suggestionsReady() {
  return scorerNames().length > 0;
}

// Every suggestion for facet f: [{scorer, version, sentence, score, rank}], best rank first.
export function facetSuggestions(f) {
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

export const event = (f, s) => ({
  facet: f,
  sentence: s.sentence,
  scorer: s.scorer,
  scorer_version: s.version,
});

export function acceptSuggestion(sentence) {
  const f = S.facet;
  const changed = edit(() => {
    S.group[f] = fam.addSentence(S.facets, f, currentGroup(f), sentence);
  });
  if (!changed) return;
  for (const s of facetSuggestions(f)) {
    if (s.sentence === sentence) ctx.log.markAccepted(event(f, s));
  }
  // Keep the keyboard focus with the cursor when the keyboard is on the sentences.
  const onSentences = document.activeElement && document.activeElement.classList.contains("sent");
  setCursor(sentence, { focus: onSentences });
  S.sentences[sentence].scrollIntoView({ block: "nearest" });
}

// The scorers in the order of their rows, and the current one (the first until one is chosen).
export function scorerNames() {
  return Object.keys(S.suggestions.scorers || {});
}

export function currentScorer() {
  const names = scorerNames();
  return names.includes(S.scorer) ? S.scorer : names[0] || null;
}

// Mark the current scorer's rows without redrawing them (a chip keeps its focus).
function markCurrentRows() {
  const current = currentScorer();
  for (const row of document.querySelectorAll("#facets .srow")) {
    const on = row.dataset.scorer === current;
    row.classList.toggle("current", on);
    row.setAttribute("aria-current", String(on));
  }
}

function chooseScorer(scorer) {
  if (!scorerNames().includes(scorer) || scorer === S.scorer) return;
  S.scorer = scorer;
  markCurrentRows();
}

function suggestionsUsable() {
  if (!S.show) {
    flash("Suggestions are hidden: press s to show them.");
    return false;
  }
  if (!suggestionsReady()) {
    flash("Suggestions are not ready yet.");
    return false;
  }
  return true;
}

// "a": the focused suggestion chip, else the current scorer's best pick not yet in the group.
export function acceptTop() {
  if (!suggestionsUsable()) return;
  const g = currentGroup();
  const members = g >= 0 ? S.facets[S.facet].groups[g] : [];
  const focused = document.activeElement && document.activeElement.closest("#facets .srow .chip");
  const all = facetSuggestions(S.facet);
  let pick = null;
  if (focused) {
    const scorer = focused.closest(".srow").dataset.scorer;
    const sentence = Number(focused.dataset.sentence);
    pick = all.find((s) => s.scorer === scorer && s.sentence === sentence);
    if (pick) chooseScorer(scorer);
    if (pick && members.includes(sentence)) {
      flash(`Sentence ${sentence + 1} is already in the group.`);
      return;
    }
  }
  const scorer = currentScorer();
  if (!pick) pick = all.find((s) => s.scorer === scorer && !members.includes(s.sentence));
  if (!pick) {
    const more = scorerNames().length > 1 ? " Press A to switch the current scorer." : "";
    flash(`Every ${scorerLabel(scorer)} suggestion for this facet is already in the group.${more}`);
    return;
  }
  acceptSuggestion(pick.sentence);
  flash(`Added sentence ${pick.sentence + 1} (${scorerLabel(pick.scorer)} #${pick.rank}).`);
}

// "A": the next scorer becomes the current one.
export function nextScorer() {
  if (!suggestionsUsable()) return;
  const names = scorerNames();
  S.scorer = names[(names.indexOf(currentScorer()) + 1) % names.length];
  markCurrentRows();
  flash(`a now adds ${scorerLabel(S.scorer)}'s suggestions.`);
}

export function toggleSuggestions(value = !S.show) {
  S.show = value;
  $("toggle-suggestions").checked = value;
  try {
    localStorage.setItem("loupe:show-suggestions", value ? "1" : "0");
  } catch {
    // Preference only.
  }
  ui.render();
}

export function onSuggestions(data, error) {
  if (error) {
    $("sugg-status").textContent = `Suggestions could not be loaded (${error.message}); retrying.`;
    return;
  }
  S.suggestions = data;
  S.tags = scorerTags(scorerNames());
  ui.render();
}

export function suggestionItems(f) {
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
  const current = currentScorer();
  for (const scorer of scorerNames()) {
    const on = scorer === current;
    const row = el("div", null, { class: `srow${on ? " current" : ""}`, "data-scorer": scorer, "aria-current": String(on) });
    const name = el("span", tagAndLabel(S.tags[scorer], scorer, " · "), { class: "sname" });
    name.append(el("kbd", "a", { class: "sa", title: "a adds this scorer's suggestions (A switches)" }));
    row.append(name);
    for (const s of all.filter((item) => item.scorer === scorer)) {
      const added = members.includes(s.sentence);
      const chip = el("button", null, {
        type: "button",
        class: `chip${added ? " added" : ""}`,
        "data-sentence": String(s.sentence),
        "data-focus-key": `sg-${f}-${scorer}-${s.rank}`,
        title: added ? "Already in the current group" : "Add to the current group",
        "aria-label": `${scorerLabel(scorer)} #${s.rank}: sentence ${s.sentence + 1}, score ${Number(s.score).toFixed(2)}${added ? ", in the group" : ", add to the group"}`,
      });
      chip.append(el("span", `S${s.sentence + 1}`), el("small", Number(s.score).toFixed(2)));
      chip.addEventListener("focus", () => chooseScorer(scorer));
      chip.addEventListener("click", () => {
        chooseScorer(scorer);
        acceptSuggestion(s.sentence);
      });
      row.append(chip);
      // Logged only while the task can be edited: a submitted task's redraw (the one right
      // after submitting, say) logs nothing, so no event reaches the server after the submission.
      if (!S.readOnly) ctx.log.markShown(event(f, s));
    }
    items.push(row);
  }
  return items;
}
