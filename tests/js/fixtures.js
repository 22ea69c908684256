// The span schemes and severity weights the task API serves a span workspace, as the core
// describes them: fixtures/span-schemes.json, which tests/test_js_fixtures.py keeps equal to
// scoring.metrics (rewrite it with `.venv/bin/python -m tests.test_js_fixtures`).
import { readFileSync } from "node:fs";

const served = JSON.parse(readFileSync(new URL("./fixtures/span-schemes.json", import.meta.url), "utf-8"));

export const SCHEMES = served.schemes;
export const WEIGHTS = served.weights;
