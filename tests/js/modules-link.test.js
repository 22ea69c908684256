// Every module of frontend/static/loupe/ parses and links: each import names an existing module
// and one of its exports (what the browser checks before it runs a page; ESLint does not).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

test("every page module links", () => {
  const script = fileURLToPath(new URL("./link-modules.js", import.meta.url));
  const out = execFileSync(process.execPath, ["--experimental-vm-modules", "--no-warnings", script], { encoding: "utf-8" });
  const { modules, problems } = JSON.parse(out);
  const files = readdirSync(new URL("../../frontend/static/loupe/", import.meta.url)).filter((name) => name.endsWith(".js"));
  assert.equal(modules.length, files.length);
  assert.ok(modules.includes("span-workspace.js") && modules.includes("leaderboard.js"));
  assert.deepEqual(problems, []);
});
