// The no-lost-work rules (save-rules.js): which copies kept in the browser are replayed, the
// body that saves one, and what a failed save means for the saver and the replay.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { copyBody, failureKind, parseCopy } from "../../frontend/static/loupe/save-rules.js";

describe("parseCopy", () => {
  test("a FAM's copy and an error list's copy are known", () => {
    const fam = { tab: "t1", base_version: 2, facets: [], category: "", at: "2025-01-01T00:00:00Z" };
    assert.deepEqual(parseCopy(JSON.stringify(fam)), fam);
    const spans = { kind: "spans", base_version: 0, errors: [], no_errors: true };
    assert.deepEqual(parseCopy(JSON.stringify(spans)), spans);
  });

  test("anything else is no copy", () => {
    for (const raw of [null, "", "{", "null", "[]", '{"facets": 3}', '{"errors": []}', '{"kind": "spans", "errors": {}}']) {
      assert.equal(parseCopy(raw), null, String(raw));
    }
  });
});

describe("copyBody", () => {
  test("a FAM's copy is sent as the saver sends a FAM: groups cleaned, category a string", () => {
    const copy = { base_version: 4, facets: [{ groups: [[2, 0], [], [0, 2]], label: "supported", note: "n" }], category: null, tab: "t1" };
    assert.deepEqual(copyBody(copy), { base_version: 4, facets: [{ groups: [[0, 2]], label: "supported", note: "n" }], category: "" });
  });

  test("an error list's copy is sent with its no-errors mark as a boolean", () => {
    const errors = [{ side: "summary", start: 0, end: 3, words: "The", type: "Addition", label: "Subject", reason: "" }];
    assert.deepEqual(copyBody({ kind: "spans", base_version: 1, errors, tab: "t1" }), { base_version: 1, errors, no_errors: false });
  });
});

describe("failureKind", () => {
  const kind = (status) => failureKind({ status, message: "x" });

  test("409 is a conflict: the server's newer version is never overwritten", () => {
    assert.equal(kind(409), "conflict");
  });

  test("no network, server errors and 429 are retried", () => {
    assert.deepEqual([0, 429, 500, 502, 503].map(kind), ["retry", "retry", "retry", "retry", "retry"]);
  });

  test("401 and 403 wait for a new login", () => {
    assert.deepEqual([401, 403].map(kind), ["auth", "auth"]);
  });

  test("anything else would be refused again", () => {
    assert.deepEqual([400, 404, 413, undefined].map(kind), ["refused", "refused", "refused", "refused"]);
  });
});
