// span-state.js: the PolyTope word count, words and offsets, the caret, errors and their order,
// the live score, the lanes of overlapping spans and the saver's format. Hand-worked cases.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as st from "../../frontend/static/loupe/span-state.js";
import { SCHEMES, WEIGHTS } from "./fixtures.js";

const POLYTOPE = SCHEMES.polytope;

describe("countWords: the workbooks' wdct rule", () => {
  // The cases of tests/metrics/test_polytope.py::test_word_count (scoring.metrics.polytope
  // .count_words), so the port and the core agree on them; tests/e2e/test_span_workspace.py
  // compares the two over every code point in a browser.
  const cases = [
    ["", 0],
    ["   \n\t ", 0],
    [". , -- `` '' ... ! ?", 0],
    ["hello .", 1],
    ["hello.", 1],
    ["alzheimer 's disease", 3],
    ["an 84-year-old man , 2-0 up", 5],
    ["12:30 am in d.c.", 6],
    ["don't u.s 1,000 3.5 3-pointers", 6],
    ["rock_n_roll a--b x' 'tis", 5],
    ["naïve résumé", 4],
    ["`` quoted '' words", 2],
    ["line one .\nline\ttwo .", 4],
    ["café über 17.2%", 3],
    ["$5 ( 3 )", 2],
  ];
  for (const [text, words] of cases) {
    test(JSON.stringify(text), () => assert.equal(st.countWords(text), words));
  }

  test("one word each: 3-pointers, 1,000, 3.5, don't; two: u.s, 12:30", () => {
    for (const word of ["3-pointers", "1,000", "3.5", "don't", "rock_n_roll"]) assert.equal(st.countWords(word), 1, word);
    for (const word of ["u.s", "12:30", "a--b", "d.c"]) assert.equal(st.countWords(word), 2, word);
  });

  test("a joiner at the end joins nothing", () => {
    assert.equal(st.countWords("end-"), 1);
    assert.equal(st.countWords("end- start"), 2);
  });

  test("isWord: pure punctuation and non-ASCII letters are no word", () => {
    assert.deepEqual(["a", "7", "café", ".", "--", "é", "中文", "😀"].map(st.isWord), [true, true, true, false, false, false, false, false]);
  });
});

describe("words and offsets in code points, as Python counts them", () => {
  test("chars: a character outside the BMP is one character", () => {
    assert.equal("😀a".length, 3);
    assert.deepEqual(st.chars("😀a"), ["😀", "a"]);
  });

  test("isSpace is Python's str.isspace, not JS's \\s", () => {
    for (const ch of [" ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000"]) {
      assert.equal(st.isSpace(ch), true, JSON.stringify(ch));
    }
    // U+FEFF is white space to JS's \s, not to Python; U+200B is neither.
    for (const ch of ["\ufeff", "\u200b", "a", "_"]) assert.equal(st.isSpace(ch), false, JSON.stringify(ch));
  });

  test("tokenize: runs of non-space characters", () => {
    assert.deepEqual(st.tokenize(st.chars("  a bc\td ")), [
      { start: 2, end: 3 },
      { start: 4, end: 6 },
      { start: 7, end: 8 },
    ]);
    assert.deepEqual(st.tokenize(st.chars("a\ufeffb a\x1cb")), [
      { start: 0, end: 3 },
      { start: 4, end: 5 },
      { start: 6, end: 7 },
    ]);
    assert.deepEqual(st.tokenize(st.chars("😀 x")), [
      { start: 0, end: 1 },
      { start: 2, end: 3 },
    ]);
    assert.deepEqual(st.tokenize([]), []);
  });

  test("wordSentences: the sentence of each word (sentences joined by one space)", () => {
    const sentences = ["A b.", "C d.", "E."];
    const words = st.tokenize(st.chars(st.joinSentences(sentences)));
    assert.deepEqual(st.wordSentences(sentences, words), [0, 0, 1, 1, 2]);
  });

  // The words lo..hi of a text as a span, and the text it covers.
  const spanOf = (text, lo, hi) => {
    const cps = st.chars(text);
    const { start, end } = st.wordSpan(cps, st.tokenize(cps), lo, hi);
    return { start, end, text: cps.slice(start, end).join("") };
  };

  test("wordSpan trims edge punctuation while letters or digits are left", () => {
    assert.equal(spanOf('he said "senator," then', 2, 2).text, "senator");
    assert.equal(spanOf("(a) b", 0, 0).text, "a");
    assert.equal(spanOf("the U.S. it.", 2, 2).text, "it");
    assert.equal(spanOf("the U.S. it.", 1, 1).text, "U.S.", "a token with two full stops keeps them");
    assert.equal(spanOf("the U.S. it.", 1, 2).text, "U.S. it");
    assert.equal(spanOf("so ... it", 1, 1).text, "...", "punctuation alone stays as it is");
  });

  test("wordSpan's offsets are code points", () => {
    assert.deepEqual(spanOf("😀 x.", 1, 1), { start: 2, end: 3, text: "x" });
  });
});

describe("the caret and the selection", () => {
  const sel = { side: "summary", anchor: 2, caret: 2 };

  test("selectionRange orders anchor and caret", () => {
    assert.deepEqual(st.selectionRange({ anchor: 3, caret: 1 }), [1, 3]);
  });

  test("moveCaret collapses, extends with Shift and stays inside the words", () => {
    assert.deepEqual(st.moveCaret(sel, 1, 5), { side: "summary", anchor: 3, caret: 3 });
    assert.deepEqual(st.moveCaret(sel, 1, 5, true), { side: "summary", anchor: 2, caret: 3 });
    assert.deepEqual(st.moveCaret(sel, 9, 5), { side: "summary", anchor: 4, caret: 4 });
    assert.deepEqual(st.moveCaret(sel, -9, 5), { side: "summary", anchor: 0, caret: 0 });
    assert.equal(st.moveCaret(sel, 1, 0), sel, "no words: nothing moves");
  });

  test("moveSentence goes to the first word of the next or previous sentence", () => {
    const sentenceOf = [0, 0, 0, 1, 1, 2];
    const at = (caret) => ({ side: "summary", anchor: caret, caret });
    assert.equal(st.moveSentence(at(1), 1, sentenceOf).caret, 3);
    assert.equal(st.moveSentence(at(5), 1, sentenceOf).caret, 5, "the last sentence: its last word");
    assert.equal(st.moveSentence(at(4), -1, sentenceOf).caret, 3, "inside a sentence: its first word");
    assert.equal(st.moveSentence(at(3), -1, sentenceOf).caret, 0, "on a first word: the previous sentence");
    assert.equal(st.moveSentence(at(0), -1, sentenceOf).caret, 0);
    assert.deepEqual(st.moveSentence(at(1), 1, sentenceOf, true), { side: "summary", anchor: 1, caret: 3 });
  });
});

describe("errors", () => {
  const error = (side, start, end, type = "Addition", label = "Subject") => ({ side, start, end, words: "", type, label, reason: "" });

  test("list order: summary spans by position, then source spans, then errors without a span", () => {
    const none = error("none", null, null, "Omission", "Whole Sentence");
    const source = error("source", 5, 7, "Omission");
    const late = error("summary", 10, 12);
    const b = error("summary", 2, 9, "Duplication");
    const a = error("summary", 2, 9, "Addition");
    assert.deepEqual(st.sortErrors([none, source, late, b, a]), [a, b, late, source, none]);
  });

  test("cleanError drops the severity and the offsets of an error without a span", () => {
    assert.deepEqual(st.cleanError({ side: "none", start: 3, end: 4, type: "Omission", severity: "Critical", extra: 1 }), {
      side: "none",
      start: null,
      end: null,
      words: "",
      type: "Omission",
      label: "",
      reason: "",
    });
  });

  test("makeError takes the spanned words and derives the severity", () => {
    const cps = st.chars("The senator said");
    const made = st.makeError(POLYTOPE, { side: "summary", start: 4, end: 11, cps, type: "Addition", label: "Subject" });
    assert.deepEqual(made, { side: "summary", start: 4, end: 11, words: "senator", type: "Addition", label: "Subject", reason: "", severity: "Critical" });
    const omission = st.makeError(POLYTOPE, { side: "none", start: null, end: null, cps, type: "Omission", label: "Whole Sentence" });
    assert.equal(omission.words, "");
    assert.equal(omission.severity, "Critical");
  });

  test("findRepeat: the same span, type and label, except the one edited", () => {
    const list = [error("summary", 0, 3), error("summary", 0, 3, "Addition", "Object"), error("none", null, null)];
    assert.equal(st.findRepeat(list, error("summary", 0, 3)), 0);
    assert.equal(st.findRepeat(list, error("summary", 0, 3), 0), -1);
    assert.equal(st.findRepeat(list, error("summary", 0, 4)), -1);
    assert.equal(st.findRepeat(list, error("none", null, null)), -1, "errors without a span never repeat");
  });

  test("describeError: one line for people", () => {
    assert.equal(
      st.describeError({ type: "Addition", label: "Subject", severity: "Critical", words: "senator", side: "summary" }),
      'Addition / Subject · Critical · "senator" (summary)',
    );
    assert.equal(st.describeError({ type: "Omission", label: "Whole Sentence", severity: "Critical", words: "", side: "none" }), "Omission / Whole Sentence · Critical (no span)");
    assert.equal(st.describeError({ type: "intrinsic", label: "", severity: "", words: "x", side: "summary" }), 'intrinsic · "x" (summary)');
  });

  test("typeOnSide: an Omission lives in the source, the other subtypes in the summary", () => {
    assert.deepEqual(st.typeOnSide(POLYTOPE, "Omission", "source"), { ok: true, reason: "" });
    assert.deepEqual(st.typeOnSide(POLYTOPE, "Addition", "none"), { ok: true, reason: "" });
    const omission = st.typeOnSide(POLYTOPE, "Omission", "summary");
    assert.equal(omission.ok, false);
    assert.match(omission.reason, /^A Omission error is marked in the source, not in the summary: the missing point lives in the source/);
    assert.equal(st.typeOnSide(POLYTOPE, "Addition", "source").reason, "A Addition error is marked in the summary, not in the source (press s to switch).");
  });
});

describe("the live score, as the core computes it", () => {
  const withSev = (type, label) => st.withSeverity(POLYTOPE, { side: "none", type, label });

  test("tests/metrics/test_polytope.py's hand-worked segment: 10 words, a critical and a minor error", () => {
    // Penalty 5 + 0.5 = 5.5; 100 * (10 - 5.5) / 10 = 45.
    const errors = [withSev("Omission", "Whole Sentence"), withSev("Addition", "Function Word")];
    assert.deepEqual(st.liveScore(errors, 10, WEIGHTS), { words: 10, penalty: 5.5, score: 45, critical: 1, major: 0, minor: 1 });
  });

  test("one major error in 20 words: 100 * (20 - 2.5) / 20 = 87.5", () => {
    assert.equal(st.liveScore([withSev("Duplication", "Subject")], 20, WEIGHTS).score, 87.5);
  });

  test("no error scores 100; a summary without words has no score", () => {
    assert.equal(st.liveScore([], 7, WEIGHTS).score, 100);
    assert.equal(st.liveScore([withSev("Addition", "Subject")], 0, WEIGHTS).score, null);
  });
});

describe("overlapping spans", () => {
  const span = (side, start, end) => ({ side, start, end });
  // A covers B and C's start; D starts where A ends; E is in the source; F is empty.
  const errors = [span("summary", 0, 10), span("summary", 2, 5), span("summary", 6, 12), span("summary", 10, 14), span("source", 0, 3), span("summary", 4, 4)];

  test("lanes: each span takes the lowest lane free over its whole length", () => {
    assert.deepEqual([...st.lanes(errors, "summary")].sort(([a], [b]) => a - b), [
      [0, 0],
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    assert.deepEqual([...st.lanes(errors, "source")], [[4, 0]]);
  });

  test("pieces: cut at every boundary, with the errors covering each piece", () => {
    assert.deepEqual(st.pieces(errors.slice(0, 2), "summary", 0, 14), [
      { start: 0, end: 2, errors: [0] },
      { start: 2, end: 5, errors: [0, 1] },
      { start: 5, end: 10, errors: [0] },
      { start: 10, end: 14, errors: [] },
    ]);
    assert.deepEqual(st.pieces(errors, "source", 1, 5), [
      { start: 1, end: 3, errors: [4] },
      { start: 3, end: 5, errors: [] },
    ]);
  });
});

describe("the saver's format of an error list", () => {
  const a = { side: "summary", start: 0, end: 3, words: "The", type: "Addition", label: "Subject", reason: "" };
  const b = { side: "none", start: null, end: null, words: "", type: "Omission", label: "Whole Sentence", reason: "" };

  test("sameSpans ignores the order and the derived severity, not the no-errors mark", () => {
    assert.equal(st.sameSpans({ errors: [{ ...a, severity: "Critical" }, b], no_errors: false }, { errors: [b, a] }), true);
    assert.equal(st.sameSpans({ errors: [], no_errors: true }, { errors: [], no_errors: false }), false);
    assert.equal(st.sameSpans({ errors: [a] }, { errors: [{ ...a, reason: "why" }] }), false);
  });

  test("SPAN_FORMAT sends and stores the clean errors", () => {
    const state = { errors: [{ ...a, severity: "Critical" }], no_errors: 0 };
    assert.deepEqual(st.SPAN_FORMAT.body(state), { errors: [a], no_errors: false });
    assert.deepEqual(st.SPAN_FORMAT.stored(state), { kind: "spans", errors: [a], no_errors: false });
    assert.deepEqual(st.SPAN_FORMAT.server({ version: 3, errors: [b], no_errors: true }), { errors: [b], no_errors: true });
  });
});
