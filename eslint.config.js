// ESLint (flat config) for Loupe's front end: the pages' ES modules run in the browser as they
// are (no build step), the unit tests in tests/js/ under `node --test`.
import js from "@eslint/js";
import globals from "globals";

// The pure modules: plain data in and out, no DOM, no storage, no fetch. The unit tests in
// tests/js/ import them under Node, so here they get no browser globals and may import only
// each other.
const PURE = ["fam.js", "gold.js", "gold-spans.js", "leaderboard-text.js", "save-rules.js", "span-state.js"];

export default [
  { ignores: ["node_modules/", ".venv/", "var/", "build/", "dist/"] },
  js.configs.recommended,
  {
    rules: {
      // `const { key, alive, ...stored } = copy` names the keys it leaves out of `stored`
      // (saver.js `claim`): those names are the point, not unused variables.
      "no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    files: ["frontend/static/**/*.js"],
    ignores: PURE.map((name) => `frontend/static/loupe/${name}`),
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
  {
    files: PURE.map((name) => `frontend/static/loupe/${name}`),
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { URLSearchParams: "readonly" } },
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^(?!\\./(${PURE.map((name) => name.replaceAll(".", "\\.")).join("|")})$)`,
              message: "A pure module imports only the other pure modules (eslint.config.js PURE).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
];
