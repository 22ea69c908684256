// Link every page module as a browser does, without running any: each module must parse and
// each import must name a module of frontend/static/loupe/ and an export it has. Run by
// modules-link.test.js under `node --experimental-vm-modules` (vm.SourceTextModule); prints
// {"modules": [names], "problems": ["module: message", ...]} as JSON.
import { readdirSync, readFileSync } from "node:fs";
import vm from "node:vm";

const DIR = new URL("../../frontend/static/loupe/", import.meta.url);
const context = vm.createContext({});
const modules = new Map(); // URL -> SourceTextModule
const problems = [];

function load(url) {
  if (!modules.has(url.href)) {
    modules.set(url.href, new vm.SourceTextModule(readFileSync(url, "utf-8"), { identifier: url.href, context }));
  }
  return modules.get(url.href);
}

function resolve(specifier, referencing) {
  const url = new URL(specifier, referencing.identifier);
  if (!specifier.startsWith("./") || !url.href.startsWith(DIR.href)) {
    throw new Error(`imports ${specifier}: the pages load ES modules from frontend/static/loupe/ only (no build step)`);
  }
  return load(url);
}

const names = readdirSync(DIR)
  .filter((name) => name.endsWith(".js"))
  .sort();
for (const name of names) {
  try {
    const module = load(new URL(name, DIR));
    if (module.status === "unlinked") await module.link(resolve);
  } catch (error) {
    problems.push(`${name}: ${error.message}`);
  }
}
console.log(JSON.stringify({ modules: names, problems }));
