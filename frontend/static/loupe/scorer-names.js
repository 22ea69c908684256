// Suggestion scorers' names for people: the spelled-out label ("ROUGE-1 F") and the short tag
// of the badges in the text ("R-1"), which never ends in a digit a rank could be read into.

const ROUGE = { rouge1: "ROUGE-1", rouge2: "ROUGE-2", rougel: "ROUGE-L", rougeavg: "ROUGE-AVG" };
const ROUGE_TAG = { rouge1: "R-1", rouge2: "R-2", rougel: "R-L", rougeavg: "R-avg" };
const OTHER_LABEL = { tfidf: "TF-IDF", "tfidf-document": "TF-IDF (doc)", embedding: "Embedding" };
const OTHER_TAG = { tfidf: "TF-IDF", "tfidf-document": "TF-IDF doc", embedding: "Emb" };
const ROUGE_NAME = /^(rouge(?:1|2|l|avg))-([fpr])$/i;

// "rougeavg-f" -> "ROUGE-AVG F"; "tfidf" -> "TF-IDF"; unknown names are shown as they are.
export function scorerLabel(name) {
  const match = ROUGE_NAME.exec(name);
  if (match) return `${ROUGE[match[1].toLowerCase()]} ${match[2].toUpperCase()}`;
  return Object.hasOwn(OTHER_LABEL, name) ? OTHER_LABEL[name] : name;
}

// A short tag per scorer, unique within names: "R-1", "R-avg", "R-1 P" (F, the usual measure,
// is left out), "TF-IDF", "Emb"; an unknown name is its own tag.
export function scorerTags(names) {
  const tags = {};
  const used = new Set();
  for (const name of names) {
    const rouge = ROUGE_NAME.exec(name);
    let tag = name;
    if (rouge) {
      const measure = rouge[2].toUpperCase();
      tag = `${ROUGE_TAG[rouge[1].toLowerCase()]}${measure === "F" ? "" : ` ${measure}`}`;
    } else if (Object.hasOwn(OTHER_TAG, name)) tag = OTHER_TAG[name];
    const base = tag;
    for (let i = 2; used.has(tag); i += 1) tag = `${base} (${i})`;
    used.add(tag);
    tags[name] = tag;
  }
  return tags;
}

// A badge in the text: the scorer's tag and the suggestion's rank, "R-1 #1".
export function badgeText(tag, rank) {
  return `${tag} #${rank}`;
}

// The tag and the label together ("R-1 = ROUGE-1 F"), or the label alone when they are the same.
export function tagAndLabel(tag, name, joiner = " = ") {
  const label = scorerLabel(name);
  return tag === label ? label : `${tag}${joiner}${label}`;
}
