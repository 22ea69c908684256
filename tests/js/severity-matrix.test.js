// The severity matrix in the span workspace: span-state.js severityOf and severityMatrix over
// the schemes the server serves (fixtures.js), checked cell by cell against the official
// matrix, the Severity_Matrix sheet of the release's annotated BART workbook as
// scoring/metrics/polytope/severity.py spells it (SHEET_ROWS, in the sheet's own names:
// Inaccuracy_internal is Inaccuracy Intrinsic, Event Entity-Subject is Subject, ...).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { notAllowedReason, severityMatrix, severityOf, withSeverity } from "../../frontend/static/loupe/span-state.js";
import { SCHEMES, WEIGHTS } from "./fixtures.js";

const POLYTOPE = SCHEMES.polytope;
const XSUM = SCHEMES["xsum-hallucinations"];

describe("the PolyTope severity matrix", () => {
  test("cells read off the sheet", () => {
    const cells = [
      ["Addition", "Subject", "Critical"],
      ["Addition", "Number & Time", "Major"],
      ["Addition", "Function Word", "Minor"],
      ["Addition", "Whole Sentence", "Major"],
      ["Omission", "Number & Time", "Critical"],
      ["Omission", "Place & Name", "Major"],
      ["Inaccuracy Intrinsic", "Attribute", "Major"],
      ["Inaccuracy Intrinsic", "Whole Sentence", null],
      // The annotated workbook has N/A here; the AnnotationTemplate's copy has Minor.
      ["Inaccuracy Extrinsic", "Function Word", null],
      ["Inaccuracy Extrinsic", "Attribute", "Critical"],
      ["Positive-Negative Aspect", "Predicate", "Critical"],
      ["Positive-Negative Aspect", "Subject", null],
      ["Word Order", "Attribute", "Major"],
      ["Word Order", "Function Word", "Minor"],
      ["Word Order", "Object", null],
      ["Duplication", "Whole Sentence", "Major"],
      ["Word Form", "Subject", "Minor"],
      ["Word Form", "Whole Sentence", null],
    ];
    for (const [type, label, severity] of cells) assert.equal(severityOf(POLYTOPE, type, label), severity, `${type} x ${label}`);
  });

  test("the whole matrix: 8 x 8 cells, 21 critical, 16 major, 12 minor and 15 N/A (counted on the sheet)", () => {
    const rows = severityMatrix(POLYTOPE);
    assert.deepEqual(
      rows.map((row) => row.type),
      ["Addition", "Omission", "Inaccuracy Intrinsic", "Inaccuracy Extrinsic", "Positive-Negative Aspect", "Word Order", "Duplication", "Word Form"],
    );
    for (const row of rows) {
      assert.deepEqual(
        row.cells.map((cell) => cell.label),
        ["Subject", "Object", "Predicate", "Number & Time", "Place & Name", "Attribute", "Function Word", "Whole Sentence"],
      );
    }
    const counts = {};
    for (const { cells } of rows) for (const { severity } of cells) counts[severity] = (counts[severity] || 0) + 1;
    assert.deepEqual(counts, { Critical: 21, Major: 16, Minor: 12, null: 15 });
    // Per subtype, the sheet's rows as counts of C / M / m / N/A.
    const perRow = rows.map(({ cells }) => ["Critical", "Major", "Minor", null].map((s) => cells.filter((c) => c.severity === s).length).join("/"));
    assert.deepEqual(perRow, ["3/4/1/0", "5/2/1/0", "5/1/1/1", "6/0/0/2", "2/0/0/6", "0/2/1/5", "0/7/1/0", "0/0/7/1"]);
  });

  test("a combination the scheme does not know is N/A too", () => {
    assert.equal(severityOf(POLYTOPE, "Addition", "Adverb"), null);
    assert.equal(severityOf(POLYTOPE, "Misspelling", "Subject"), null);
  });

  test("an error gets its severity from the matrix; an N/A one gets none", () => {
    assert.equal(withSeverity(POLYTOPE, { side: "none", type: "Word Form", label: "Attribute" }).severity, "Minor");
    assert.equal(withSeverity(POLYTOPE, { side: "none", type: "Word Form", label: "Whole Sentence" }).severity, "");
  });

  test("the reason of an N/A names the combination", () => {
    assert.match(notAllowedReason("Word Order", "Object"), /^Word Order with the label Object is N\/A in the official severity matrix/);
  });

  test("the weights: minor 0.5, major 2.5, critical 5 (the paper's 1:5:10)", () => {
    assert.deepEqual(WEIGHTS, { Minor: 0.5, Major: 2.5, Critical: 5 });
  });
});

describe("a scheme without severities (the XSum hallucinations)", () => {
  test("no severity and no matrix", () => {
    assert.equal(XSUM.has_severity, false);
    assert.equal(severityOf(XSUM, "intrinsic", ""), "");
    assert.deepEqual(severityMatrix(XSUM), []);
  });
});
