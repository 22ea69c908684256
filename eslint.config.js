// ESLint (flat config) for Loupe's front end: the pages' ES modules run in the browser as they
// are (no build step), the unit tests in tests/js/ under `node --test`.
import js from "@eslint/js";
import globals from "globals";

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
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
];
