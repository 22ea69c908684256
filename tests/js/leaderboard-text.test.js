// The leaderboard pages' text (leaderboard-text.js): metric names, the columns shown, numbers,
// p values, PolyTope's error counts, the view in the query string and the pages' addresses.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import * as lt from "../../frontend/static/loupe/leaderboard-text.js";

describe("metric names", () => {
  test("column labels", () => {
    const labels = {
      far: "FAR",
      saf1: "SAF1",
      rouge1_f: "R-1 F",
      rouge2_p: "R-2 P",
      rougeL_nostem_r: "R-L R (ns)",
      rougeLsum_split_f: "R-Lsum F (split)",
      rougeLsum_nostem_split_p: "R-Lsum P (ns, split)",
      polytope: "PolyTope",
      faithfulness: "Faithful",
      autofar_l: "AutoFAR-L (estimate)",
      apes_embedding: "APES emb.",
      // Not a key Loupe names: shown as it is.
      rouge10_f: "rouge10_f",
      bertscore: "bertscore",
    };
    for (const [metric, label] of Object.entries(labels)) assert.equal(lt.metricLabel(metric), label, metric);
  });

  test("titles say the measure, the stemming and how Lsum splits sentences", () => {
    assert.equal(lt.metricTitle("rouge2_f"), "ROUGE-2 F1 (Porter stemming)");
    assert.equal(lt.metricTitle("rougeL_nostem_p"), "ROUGE-L precision (no stemming)");
    assert.equal(lt.metricTitle("rougeLsum_split_f"), "ROUGE-Lsum F1 (Porter stemming; sentences by NLTK Punkt)");
    assert.equal(lt.metricTitle("rougeLsum_nostem_r"), "ROUGE-Lsum recall (no stemming; sentences on lines)");
    assert.equal(lt.metricTitle("sap"), "SAP (support precision)");
    assert.equal(lt.metricTitle("bertscore"), "bertscore");
  });

  test("visibleMetrics: FAR's family, ROUGE F and the human scores always; P and R when asked or sorted by", () => {
    const metrics = ["far", "sar", "rouge1_p", "rouge1_r", "rouge1_f", "rougeL_nostem_f", "faithfulness", "autofar_l", "apes", "bertscore"];
    assert.deepEqual(lt.visibleMetrics(metrics, false), ["far", "sar", "rouge1_f", "rougeL_nostem_f", "faithfulness", "autofar_l", "apes"]);
    assert.deepEqual(lt.visibleMetrics(metrics, false, "rouge1_r"), ["far", "sar", "rouge1_r", "rouge1_f", "rougeL_nostem_f", "faithfulness", "autofar_l", "apes"]);
    assert.deepEqual(lt.visibleMetrics(metrics, true), metrics);
  });
});

describe("numbers", () => {
  test("fixed: toFixed's rounding, never a signed zero, a dash for no number", () => {
    assert.equal(lt.fixed(0.1234, 2), "0.12");
    assert.equal(lt.fixed(-0.126, 2), "-0.13");
    assert.equal(lt.fixed(-0.004, 2), "0.00");
    assert.equal(lt.fixed(-0.04, 0), "0");
    // 1.005 is 1.00499999999999989... in binary: toFixed gives 1.00.
    assert.equal(lt.fixed(1.005, 2), "1.00");
    for (const value of [null, undefined, Number.NaN, Infinity, "0.5"]) assert.equal(lt.fixed(value, 2), "—", String(value));
  });

  test("x100: a fraction as a percentage with one decimal", () => {
    assert.equal(lt.x100(0.548), "54.8");
    assert.equal(lt.x100(0.54849), "54.8");
    assert.equal(lt.x100(1), "100.0");
    assert.equal(lt.x100(-0.0001), "0.0");
    assert.equal(lt.x100(null), "—");
  });

  test("pText: three decimals, tiny values as p < 0.001", () => {
    assert.equal(lt.pText(0.0449), "p = 0.045");
    assert.equal(lt.pText(0.001), "p = 0.001");
    assert.equal(lt.pText(0.00099), "p < 0.001");
    assert.equal(lt.pText(1), "p = 1.000");
    assert.equal(lt.pText(null), "p = —");
  });

  test("severityText: PolyTope's error counts, shown and read out", () => {
    assert.deepEqual(lt.severityText({ critical: 57, major: 69, minor: 1, errors: 127 }), {
      shown: "57 C · 69 M · 1 m",
      spoken: "57 critical, 69 major, 1 minor",
    });
  });
});

describe("the view in the query string", () => {
  const DEFAULTS = { category: "", k: 3, sort: "", common: false, pr: false };

  test("parseParams: defaults, ints, booleans and unknown keys left out", () => {
    assert.deepEqual(lt.parseParams(DEFAULTS, ""), DEFAULTS);
    assert.deepEqual(lt.parseParams(DEFAULTS, "?k=5&pr=1&common=true&sort=far&other=1"), { category: "", k: 5, sort: "far", common: true, pr: true });
    assert.deepEqual(lt.parseParams(DEFAULTS, "?k=abc&pr=yes&category=low%2Bhigh"), { category: "low+high", k: 3, sort: "", common: false, pr: false });
  });

  test("queryString: only what differs from the defaults, booleans as 1", () => {
    assert.equal(lt.queryString({ category: "", k: 3, sort: "far", common: false, pr: true }, DEFAULTS), "?sort=far&pr=1");
    assert.equal(lt.queryString({ category: "low+high", k: 5 }), "?category=low%2Bhigh&k=5");
    assert.equal(lt.queryString(DEFAULTS, DEFAULTS), "");
    assert.equal(lt.queryString({ a: null, b: undefined }), "");
  });

  test("a view survives the round trip through the URL", () => {
    const view = { category: "high", k: 10, sort: "rouge1_f", common: true, pr: false };
    assert.deepEqual(lt.parseParams(DEFAULTS, lt.queryString(view, DEFAULTS)), view);
  });
});

describe("addresses", () => {
  test("a system's page and its output's page, with the names encoded", () => {
    assert.equal(lt.systemUrl("cnndm far", "bart/large"), "/leaderboards/cnndm%20far/systems/bart%2Flarge/");
    assert.equal(lt.documentUrl("d", "s", "doc 1#2", "?k=3"), "/leaderboards/d/systems/s/documents/doc%201%232/?k=3");
  });
});
