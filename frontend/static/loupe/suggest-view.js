// Workspace suggestions: ranking per facet, accepting, showing/hiding, and their chips.
import { el } from "./api.js";
import * as fam from "./fam.js";
import { scorerLabel, scorerLetters } from "./suggest.js";
import { $, S, flash, currentGroup, ctx, ui } from "./state.js";
import { edit, setCursor } from "./actions.js";

export function suggestionsReady() {
  return Object.keys(S.suggestions.scorers || {}).length > 0;
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

export function acceptTop() {
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
  S.letters = scorerLetters(Object.keys(data.scorers || {}));
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
      // Logged only while the task can be edited: a submitted task's redraw (the one right
      // after submitting, say) logs nothing, so no event reaches the server after the submission.
      if (!S.readOnly) ctx.log.markShown(event(f, s));
    }
    items.push(row);
  }
  return items;
}
