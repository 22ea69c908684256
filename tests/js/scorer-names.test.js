// Suggestion scorers' names for people (scorer-names.js): the spelled-out label and the short
// tag of the badges in the text, which must never read as another scorer or as a rank.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { badgeText, scorerLabel, scorerTags, tagAndLabel } from "../../frontend/static/loupe/scorer-names.js";

describe("scorerLabel", () => {
  test("registry names are spelled out", () => {
    assert.equal(scorerLabel("rouge1-f"), "ROUGE-1 F");
    assert.equal(scorerLabel("rougeavg-f"), "ROUGE-AVG F");
    assert.equal(scorerLabel("rougel-p"), "ROUGE-L P");
    assert.equal(scorerLabel("tfidf"), "TF-IDF");
    assert.equal(scorerLabel("tfidf-document"), "TF-IDF (doc)");
    assert.equal(scorerLabel("embedding"), "Embedding");
    assert.equal(scorerLabel("custom"), "custom");
  });
});

describe("scorerTags", () => {
  test("ROUGE-1 and ROUGE-AVG get tags that do not end in a digit a rank could follow", () => {
    assert.deepEqual(scorerTags(["rouge1-f", "rougeavg-f"]), { "rouge1-f": "R-1", "rougeavg-f": "R-avg" });
  });

  test("every registry scorer has its own tag", () => {
    const names = ["rouge1-f", "rouge2-f", "rougel-f", "rougeavg-f", "rouge1-p", "rouge1-r", "tfidf", "tfidf-document", "embedding"];
    const tags = scorerTags(names);
    assert.deepEqual(tags, {
      "rouge1-f": "R-1",
      "rouge2-f": "R-2",
      "rougel-f": "R-L",
      "rougeavg-f": "R-avg",
      "rouge1-p": "R-1 P",
      "rouge1-r": "R-1 R",
      tfidf: "TF-IDF",
      "tfidf-document": "TF-IDF doc",
      embedding: "Emb",
    });
    assert.equal(new Set(Object.values(tags)).size, names.length);
  });

  test("two names with the same tag are told apart", () => {
    const tags = scorerTags(["RougeAvg-F", "rougeavg-f"]);
    assert.notEqual(tags["RougeAvg-F"], tags["rougeavg-f"]);
  });
});

describe("badgeText", () => {
  test("the rank is written after #, apart from the tag", () => {
    assert.equal(badgeText("R-1", 1), "R-1 #1");
    assert.equal(badgeText("R-avg", 2), "R-avg #2");
    assert.equal(badgeText("Emb", 3), "Emb #3");
  });
});

describe("tagAndLabel", () => {
  test("a tag that is not the label is followed by the label; else the label stands alone", () => {
    assert.equal(tagAndLabel("R-1", "rouge1-f"), "R-1 = ROUGE-1 F");
    assert.equal(tagAndLabel("R-avg", "rougeavg-f", " · "), "R-avg · ROUGE-AVG F");
    assert.equal(tagAndLabel("TF-IDF", "tfidf"), "TF-IDF");
  });
});
