// Counted nouns (plural.js): "1 error", never "1 errors"; "0 errors"; irregular plurals.
import assert from "node:assert/strict";
import { test } from "node:test";

import { counted, plural } from "../../frontend/static/loupe/plural.js";

test("one takes the singular; zero and more the plural", () => {
  assert.equal(counted(1, "error"), "1 error");
  assert.equal(counted(0, "error"), "0 errors");
  assert.equal(counted(2, "system"), "2 systems");
  assert.equal(counted(1, "system"), "1 system");
});

test("an irregular plural is given", () => {
  assert.equal(counted(1, "summary", "summaries"), "1 summary");
  assert.equal(counted(3, "summary", "summaries"), "3 summaries");
});

test("the word alone, for a count written apart", () => {
  assert.equal(plural(1, "output"), "output");
  assert.equal(plural(1500, "output"), "outputs");
  assert.equal(`${(1500).toLocaleString("en")} ${plural(1500, "output")}`, "1,500 outputs");
});

test("a count that is no number is written as it comes, with the plural", () => {
  assert.equal(counted(undefined, "error"), "? errors");
  assert.equal(counted(null, "error"), "? errors");
  assert.equal(counted("1", "error"), "1 error");
});
