// The pages' timers (timing.js): the server's settings on <body> when set, else the default.
import assert from "node:assert/strict";
import { test } from "node:test";

import { beatMs, pollMs } from "../../frontend/static/loupe/timing.js";

test("without a document or attributes each caller keeps its own interval", () => {
  assert.equal(pollMs(1500), 1500);
  assert.equal(beatMs(5000), 5000);
  assert.equal(pollMs(1500, { dataset: {} }), 1500);
});

test("the body's data-poll-ms and data-beat-ms replace the defaults", () => {
  const body = { dataset: { pollMs: "200", beatMs: "250" } };
  assert.equal(pollMs(1500, body), 200);
  assert.equal(beatMs(5000, body), 250);
});

test("a value that is not a positive number is ignored", () => {
  for (const value of ["", "0", "-5", "soon"]) {
    assert.equal(pollMs(1500, { dataset: { pollMs: value } }), 1500, value);
  }
});
