// The job kernel's recovery line shown on every job page (job-recovery.js recoveryText).
import assert from "node:assert/strict";
import { test } from "node:test";

import { recoveryText } from "../../frontend/static/loupe/job-recovery.js";

test("a job the watchdog never touched shows nothing", () => {
  assert.equal(recoveryText(null), "");
  assert.equal(recoveryText({ recoveries: 0, recovery_note: "" }), "");
});

test("one recovery shows its note; several say how many", () => {
  const once = { recoveries: 1, recovery_note: "re-sent 2 chunks after a worker was lost" };
  assert.equal(recoveryText(once), "Recovered: re-sent 2 chunks after a worker was lost.");
  const thrice = { recoveries: 3, recovery_note: "queued again once the task broker answered" };
  assert.equal(
    recoveryText(thrice),
    "Recovered: queued again once the task broker answered (3 recoveries).",
  );
});
