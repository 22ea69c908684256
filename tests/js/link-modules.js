// Link every page module as a browser does, without running any: each module must parse and
// each import must name a module of frontend/static/loupe/ and an export it has. Run by
// modules-link.test.js under `node --experimental-vm-modules` (vm.SourceTextModule); prints
// {"modules": [names], "problems": ["module: message", ...]} as JSON.
import { readdirSync, readFileSync } from "node:fs";
import vm from "node:vm";

const DIR = new URL("../../frontend/static/loupe/", import.meta.url);
const source = (url) => readFileSync(url, "utf-8");

const names = readdirSync(DIR)
  .filter((name) => name.endsWith(".js"))
  .sort();
const problems = [];

// First each module alone: it parses, and imports only modules of the folder by a relative path.
const imports = new Map(); // name -> the names it imports
for (const name of names) {
  try {
    const specifiers = new vm.SourceTextModule(source(new URL(name, DIR))).dependencySpecifiers;
    const outside = specifiers.filter((specifier) => !specifier.startsWith("./") || !names.includes(specifier.slice(2)));
    if (outside.length) problems.push(`${name}: imports ${outside.join(", ")}: no module of frontend/static/loupe/ (the pages load only those, no build step)`);
    imports.set(name, specifiers.map((specifier) => specifier.slice(2)));
  } catch (error) {
    problems.push(`${name}: ${error.message}`);
  }
}

// Then each module linked with fresh copies of what it imports: null, or why it does not link.
async function linkError(name) {
  const context = vm.createContext({});
  const modules = new Map();
  const load = (at) => {
    if (!modules.has(at)) modules.set(at, new vm.SourceTextModule(source(new URL(at, DIR)), { identifier: at, context }));
    return modules.get(at);
  };
  try {
    await load(name).link((specifier) => load(specifier.slice(2)));
    return null;
  } catch (error) {
    return error.message;
  }
}

if (!problems.length) {
  const errors = new Map();
  for (const name of names) errors.set(name, await linkError(name));
  // A failed link fails every module that leads to the faulty one: the fault is the module's
  // own import when each module it imports links.
  for (const name of names) {
    if (errors.get(name) && imports.get(name).every((dependency) => !errors.get(dependency))) problems.push(`${name}: ${errors.get(name)}`);
  }
}
console.log(JSON.stringify({ modules: names, problems }));
