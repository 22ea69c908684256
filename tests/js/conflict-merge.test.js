// The conflict merge of a 409 (fam.js mergePlan / mergeStates, what the conflict dialog offers
// and applies): per facet and for the category, what this tab ("mine") and the server
// ("theirs") each changed since the version both started from ("base").
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { mergePlan, mergeStates, payload, sameState } from "../../frontend/static/loupe/fam.js";

const facet = (groups, label = "supported", note = "") => ({ groups, label, note });

// Facet 0 changed here only, 1 there only, 2 on both sides differently, 3 on both sides alike,
// 4 nowhere; the category changed here only.
const base = { facets: [facet([[0]]), facet([[1]]), facet([[2]]), facet([]), facet([[4]])], category: "" };
const mine = { facets: [facet([[0, 5]]), facet([[1]]), facet([], "noise"), facet([[3]]), facet([[4]])], category: "high" };
const theirs = { facets: [facet([[0]]), facet([[1], [6]]), facet([[2, 7]]), facet([[3]]), facet([[4]])], category: "" };

describe("mergePlan", () => {
  test("a change on one side is taken from that side; a change on both is a conflict, mine by default", () => {
    const plan = mergePlan(base, mine, theirs);
    assert.deepEqual(plan.facets, [
      { same: false, mineChanged: true, theirsChanged: false, conflict: false, pick: "mine" },
      { same: false, mineChanged: false, theirsChanged: true, conflict: false, pick: "theirs" },
      { same: false, mineChanged: true, theirsChanged: true, conflict: true, pick: "mine" },
      { same: true, mineChanged: true, theirsChanged: true, conflict: false, pick: "mine" },
      { same: true, mineChanged: false, theirsChanged: false, conflict: false, pick: "mine" },
    ]);
    assert.deepEqual(plan.category, { same: false, mineChanged: true, theirsChanged: false, conflict: false, pick: "mine" });
  });

  test("the category changed only on the server is taken from it", () => {
    const plan = mergePlan(base, { ...mine, category: "" }, { ...theirs, category: "noise" });
    assert.equal(plan.category.pick, "theirs");
    assert.equal(plan.category.conflict, false);
  });

  test("without a base every difference is a conflict", () => {
    const plan = mergePlan(null, mine, theirs);
    assert.deepEqual(
      plan.facets.map((entry) => entry.conflict),
      [true, true, true, false, false],
    );
    assert.deepEqual(
      plan.facets.map((entry) => entry.pick),
      ["mine", "mine", "mine", "mine", "mine"],
    );
    assert.equal(plan.category.conflict, true);
  });

  test("facets are compared as they are sent: group order, repeated and empty groups do not count", () => {
    const a = { facets: [facet([[3, 1], [], [1, 3]])], category: "" };
    const b = { facets: [facet([[1, 3]])], category: "" };
    assert.equal(mergePlan(b, a, b).facets[0].same, true);
    assert.deepEqual(payload(a.facets), [{ groups: [[1, 3]], label: "supported", note: "" }]);
    assert.equal(sameState(a, b), true);
    assert.equal(sameState(a, { ...b, category: "low" }), false);
  });
});

describe("mergeStates", () => {
  test("the default picks keep both sides' changes", () => {
    const plan = mergePlan(base, mine, theirs);
    const picks = { facets: plan.facets.map((entry) => entry.pick), category: plan.category.pick };
    const merged = mergeStates(mine, theirs, picks);
    assert.deepEqual(merged, {
      facets: [facet([[0, 5]]), facet([[1], [6]]), facet([], "noise"), facet([[3]]), facet([[4]])],
      category: "high",
    });
  });

  test("the server's side where picked, for a facet and for the category", () => {
    const merged = mergeStates(mine, { ...theirs, category: "low" }, { facets: ["mine", "mine", "theirs", "mine", "mine"], category: "theirs" });
    assert.deepEqual(merged.facets[2], facet([[2, 7]]));
    assert.equal(merged.category, "low");
  });

  test("the merged facets are copies: editing them changes neither side", () => {
    const merged = mergeStates(mine, theirs, { facets: ["mine", "theirs", "mine", "mine", "mine"], category: "mine" });
    merged.facets[0].groups[0].push(9);
    merged.facets[1].groups.push([8]);
    assert.deepEqual(mine.facets[0], facet([[0, 5]]));
    assert.deepEqual(theirs.facets[1], facet([[1], [6]]));
  });
});
